"""Values and kinds: what sparkcheck knows about one expression, and the literal helpers rules share."""

from __future__ import annotations

import ast
import functools
from typing import Optional

import libcst as cst

# Row bounds (linter/semantic/bounds.py says how they are proven): a Value's `bound` is one of these, a number of
# rows at most, or None (unknown)
UNBOUNDED = "unbounded"
BOUNDED = "bounded"

DATAFRAME = "DataFrame"
COLUMN = "Column"
SESSION = "SparkSession"
BUILDER = "SparkSession.Builder"
READER = "DataFrameReader"
WRITER = "DataFrameWriter"
GROUPED = "GroupedData"
NA = "DataFrameNaFunctions"
RDD = "RDD"
CONTEXT = "SparkContext"
IMPORT = "import"
FUNCTION = "function"
DATAFRAMES = "list[DataFrame]"
STRING = "str"
WINDOW = "WindowSpec"
PANDAS = "pandas.DataFrame"
ROWS = "list[Row]"  # what collect() returns
CLASS = "class"  # a class defined in this file
INSTANCE = "instance"  # an object of a class defined in this file (detail: the class name)
UDF = "udf"  # a user-defined function object (its detail: the FunctionDef or Lambda, when known)
FOREIGN = "foreign"  # a pandas-like frame of another library (polars, dask, ibis, an ORM query): never Spark
DYNAMICFRAME = "DynamicFrame"  # AWS Glue's frame; toDF() makes a DataFrame
GLUE = "GlueContext"
GLUE_READER = "GlueContext reader"  # create_dynamic_frame / create_data_frame (detail: the kind it makes)
DELTA_TABLE = "DeltaTable"  # toDF() makes a DataFrame
MODEL = "Model"  # what an ML estimator's fit(df) returns: its transform(df) keeps df's rows

_ALIASES = {
    "pyspark.sql.session.SparkSession": "pyspark.sql.SparkSession",
    "pyspark.sql.dataframe.DataFrame": "pyspark.sql.DataFrame",
    "pyspark.sql.connect.dataframe.DataFrame": "pyspark.sql.DataFrame",
    "pyspark.sql.connect.session.SparkSession": "pyspark.sql.SparkSession",
    "pyspark.sql.column.Column": "pyspark.sql.Column",
    "pyspark.sql.connect.column.Column": "pyspark.sql.Column",
    "pyspark.sql.connect.functions": "pyspark.sql.functions",
    # where pandas_udf and PandasUDFType are defined (pyspark.sql.functions re-exports them), and Spark 4's
    # module of the built-in functions (the package pyspark.sql.functions imports them from)
    "pyspark.sql.pandas.functions": "pyspark.sql.functions",
    "pyspark.sql.functions.builtin": "pyspark.sql.functions",
    "pyspark.context.SparkContext": "pyspark.SparkContext",
    "pyspark.rdd.RDD": "pyspark.RDD",
}
_TYPES = {
    "pyspark.sql.DataFrame": DATAFRAME,
    "pyspark.sql.SparkSession": SESSION,
    "pyspark.sql.Column": COLUMN,
    "pyspark.SparkContext": CONTEXT,
    "pyspark.RDD": RDD,
}
FUNCTIONS = "pyspark.sql.functions"


class Value:
    """What sparkcheck knows about an expression."""

    __slots__ = ("kind", "bound", "detail", "node", "flags", "why", "few")

    def __init__(self, kind: str, bound=None, detail=None, node=None, flags=None, why=None, few=None):
        self.kind = kind
        self.bound = bound
        # qualified name for imports, return Value for functions, text for strings,
        # a Schema for DataFrames and readers when the file declares one
        self.detail = detail
        self.node = node  # where the value was made (for messages)
        # DataFrames: {"shuffle"} once a join/aggregate/sort is in its plan, {"model"} once a fitted ML
        # model's transform is, {"udf"} once a Python UDF's column is, {"cached"}, {"on-cache"} when built on a
        # cached frame (the costs before the cache are gone from its flags), {"inferred"} when known from how
        # the code uses it (evidence), not from where it was made
        self.flags = flags
        self.why = why  # for an inferred DataFrame: the evidence, as a message can say it
        self.few = few  # DataFrames: {column: at most how many distinct values} where proven (semantic/columns.py)

    def is_(self, kind: str) -> bool:
        return self.kind == kind

    def __repr__(self):
        return f"Value({self.kind}, bound={self.bound!r}, detail={self.detail!r})"



class Schema(tuple):
    """Ordered ``(name, type or None)`` pairs of a DataFrame, as far as the file says.

    ``raw`` keeps the declared DDL type of each column (``"decimal(10,2)"``) when
    the schema comes straight from a DDL string; it is lost once columns change.
    """

    raw: dict = {}

    def names(self) -> list:
        return [n for n, _ in self]

    def type_of(self, name: str):
        for n, t in self:
            if n == name:
                return t
        return None


def parse_ddl(text: str) -> Optional[Schema]:
    """``"id BIGINT, name STRING"`` -> Schema; None when it is not that simple."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    out, raw = [], {}
    for part in parts:
        words = part.replace(":", " ").split(None, 1)
        if len(words) != 2:
            return None
        name = words[0].strip("`")
        out.append((name, normalise_type(words[1])))
        raw[name] = words[1].strip()
    if not out:
        return None
    schema = Schema(out)
    schema.raw = raw
    return schema


_TYPE_WORDS = {
    "int": "int", "integer": "int", "bigint": "int", "long": "int", "smallint": "int", "tinyint": "int",
    "short": "int", "byte": "int", "double": "float", "float": "float", "real": "float", "string": "str",
    "varchar": "str", "char": "str", "boolean": "bool", "bool": "bool", "decimal": "decimal", "numeric": "decimal",
    "date": "date", "timestamp": "timestamp", "timestamp_ntz": "timestamp", "binary": "binary",
}


def normalise_type(text: str) -> Optional[str]:
    """A Spark type name (DDL or ``IntegerType``) as one of int, float, decimal, str, bool, date, ..."""
    word = text.strip().lower().split("(")[0].split("<")[0].strip()
    if word.endswith("type"):
        word = {"integertype": "int", "longtype": "long", "shorttype": "short", "bytetype": "byte",
                "doubletype": "double", "floattype": "float", "stringtype": "string", "booleantype": "boolean",
                "decimaltype": "decimal", "datetype": "date", "timestamptype": "timestamp",
                "binarytype": "binary"}.get(word, word)
    return _TYPE_WORDS.get(word, word or None)


def merge(a: Optional[Value], b: Optional[Value]) -> Optional[Value]:
    """The value of a name that may hold either ``a`` or ``b``.

    One branch known and the other not (``df = load(...)`` / ``df = spark.read...``):
    the known kind stands, with its row bound unknown.  Rows are unbounded unless proven
    small, on every way through: a frame limited on one branch only (``if debug: df =
    df.limit(100)``) and unbounded on another is unbounded (flagged ``partly-bounded``, so a
    message can say so); two bounds keep the larger.
    """
    if a is None or b is None:
        known = a if b is None else b
        if known is None or known.kind not in (DATAFRAME, RDD):
            return None
        return Value(known.kind, None, None, known.node)
    if a.kind != b.kind:
        return None
    few = _merged_few(a.few, b.few)
    if a.bound == b.bound:
        return a if few == a.few else Value(a.kind, a.bound, a.detail, a.node, a.flags, a.why, few)
    if a.bound is None or b.bound is None:
        return Value(a.kind, None, a.detail, a.node, few=few)
    if UNBOUNDED in (a.bound, b.bound):
        wide = a if a.bound == UNBOUNDED else b
        flags = set(wide.flags or ()) | {"partly-bounded"}
        return Value(a.kind, UNBOUNDED, wide.detail, wide.node, flags, wide.why, few)
    if isinstance(a.bound, int) and isinstance(b.bound, int):
        return Value(a.kind, max(a.bound, b.bound), a.detail, a.node, few=few)
    return Value(a.kind, BOUNDED, a.detail, a.node, few=few)  # a limit and another proof of few rows


def _merged_few(a: Optional[dict], b: Optional[dict]) -> Optional[dict]:
    """Columns of few values in both branches, with the larger count (semantic/columns.py)."""
    if not a or not b:
        return None
    both = {name: max(count, b[name]) for name, count in a.items() if name in b}
    return both or None



@functools.lru_cache(maxsize=16384)
def _string_value(source: str) -> Optional[str]:
    """The value of a string literal's source text (``'a\\tb'``); None for bytes or what does not evaluate.

    libcst's ``evaluated_value`` is ``ast.literal_eval`` of the same text, a
    compile per call; rules ask for the same literals many times.
    """
    try:
        value = ast.literal_eval(source)
    except Exception:  # noqa: BLE001 - malformed escapes: not a literal we can read
        return None
    return value if isinstance(value, str) else None


def literal_string(node) -> Optional[str]:
    """The value of a plain string literal (implicit concatenation included)."""
    if isinstance(node, cst.SimpleString):
        return _string_value(node.value)
    if isinstance(node, cst.ConcatenatedString):
        left, right = literal_string(node.left), literal_string(node.right)
        return None if left is None or right is None else left + right
    return None


def literal_type(node) -> Optional[str]:
    """The Python type of a literal: "str", "int", "float", "bool", "None"; else None."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return "str" if literal_string(node) is not None else None
    if isinstance(node, cst.Integer):
        return "int"
    if isinstance(node, cst.Float):
        return "float"
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return "bool"
    if isinstance(node, cst.Name) and node.value == "None":
        return "None"
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return literal_type(node.expression) if isinstance(node.expression, (cst.Integer, cst.Float)) else None
    return None


def literal_int(node) -> Optional[int]:
    if isinstance(node, cst.Integer):
        try:
            return int(node.value.replace("_", ""), 0)
        except ValueError:
            return None
    return None


def dotted_name(node) -> Optional[str]:
    # exact classes, not isinstance: libcst's node classes are ABCs (slow isinstance), and none has subclasses
    cls = node.__class__
    if cls is cst.Name:
        return node.value
    if cls is cst.Attribute:
        base = dotted_name(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


def target_names(target, out: set) -> None:
    """Add the names an assignment target binds (`a`, `a, (b, *c)`) to ``out``."""
    if isinstance(target, cst.Name):
        out.add(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            target_names(element.value, out)
    elif isinstance(target, cst.StarredElement):
        target_names(target.value, out)


def method_name(call: cst.Call) -> Optional[str]:
    """``collect`` for ``x.collect()``; None for a plain function call."""
    func = call.func
    return func.attr.value if func.__class__ is cst.Attribute else None


def positional_args(call: cst.Call) -> list:
    return [a.value for a in call.args if a.keyword is None and not a.star]


def keyword_arg(call: cst.Call, name: str):
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a.value
    return None


# Names a compatibility shim re-exports at its top (`from great_expectations.compatibility import pyspark`,
# then `pyspark.DataFrame`, `pyspark.functions`, `pyspark.Window`).
_SHIM_NAMES = {
    "functions": "pyspark.sql.functions", "DataFrame": "pyspark.sql.DataFrame", "Column": "pyspark.sql.Column",
    "Window": "pyspark.sql.Window", "SparkSession": "pyspark.sql.SparkSession", "types": "pyspark.sql.types",
    "Row": "pyspark.sql.Row",
}


@functools.lru_cache(maxsize=4096)
def _normalise(q: str) -> str:
    if not q.startswith("pyspark.") and "pyspark" in q:
        parts = q.split(".")
        if "pyspark" in parts:  # a shim module named `pyspark` inside another package: from its last `pyspark` on
            last = len(parts) - 1 - parts[::-1].index("pyspark")
            q = ".".join(parts[last:])
    if q.startswith("pyspark."):
        first, _, tail = q[len("pyspark."):].partition(".")
        if first in _SHIM_NAMES:
            q = _SHIM_NAMES[first] + ("." + tail if tail else "")
    for old, new in _ALIASES.items():
        if q == old or q.startswith(old + "."):
            return new + q[len(old) :]
    return q
