"""What a Python expression is, as far as Spark is concerned.

The model is built during the engine's single walk: imports, assignments,
function parameters and returns are recorded in scopes as they are met, so when
a rule looks at ``rows = orders.collect()`` it can ask what ``orders`` is.

Inference answers only what it can prove from the file: a ``Value`` with a kind
(DataFrame, Column, SparkSession, reader, grouped data, RDD, ...) or ``None``
for "cannot tell".  Rules stay quiet on ``None``; that is how sparkcheck tells a
DataFrame from any other object that happens to have a ``collect`` method.

What makes a DataFrame known (see also ``docs`` of SPK101):
- a SparkSession (``SparkSession.builder...getOrCreate()``, ``SparkSession.active()``,
  ``df.sparkSession``, a parameter annotated ``SparkSession``, or the name
  ``spark`` when the file does not bind it otherwise, as notebooks and
  Databricks jobs provide it) and its ``read``/``table``/``sql``/
  ``createDataFrame``/``range``;
- a parameter, variable or function return annotated with pyspark's ``DataFrame``;
- any DataFrame method that returns a DataFrame, applied to a known DataFrame;
- a local function whose returns are all known DataFrames.

Row bounds ride along: ``bound`` is ``UNBOUNDED``, ``None`` (unknown: the value
came from different branches, or from SQL text sparkcheck cannot read),
``BOUNDED`` (size unknown but bounded: data built on the driver, a ``limit(n)``
of a variable) or an ``int`` (at most that many rows: ``limit(10)``, a global
aggregate).
"""

from __future__ import annotations

import ast
import functools
import re
from typing import Optional

import libcst as cst

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

UNBOUNDED = "unbounded"
BOUNDED = "bounded"

_ALIASES = {
    "pyspark.sql.session.SparkSession": "pyspark.sql.SparkSession",
    "pyspark.sql.dataframe.DataFrame": "pyspark.sql.DataFrame",
    "pyspark.sql.connect.dataframe.DataFrame": "pyspark.sql.DataFrame",
    "pyspark.sql.connect.session.SparkSession": "pyspark.sql.SparkSession",
    "pyspark.sql.column.Column": "pyspark.sql.Column",
    "pyspark.sql.connect.column.Column": "pyspark.sql.Column",
    "pyspark.sql.connect.functions": "pyspark.sql.functions",
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

# DataFrame methods whose result has at most as many rows as their receiver
# (or a fixed multiple, for unpivot): the bound carries over.
_SAME_ROWS = frozenset(
    "select filter where withColumn withColumns withColumnRenamed withColumnsRenamed drop "
    "dropDuplicates drop_duplicates dropDuplicatesWithinWatermark distinct orderBy sort "
    "sortWithinPartitions alias cache persist unpersist repartition repartitionByRange "
    "coalesce hint fillna dropna replace selectExpr toDF sample withWatermark localCheckpoint "
    "checkpoint exceptAll subtract intersect intersectAll unpivot melt withMetadata to observe "
    "offset where".split()
)
_COMBINE = frozenset("join crossJoin union unionAll unionByName".split())
_GROUPING = frozenset("groupBy groupby rollup cube".split())
_GROUPED_RESULT = frozenset("agg count sum avg mean min max applyInPandas apply".split())
_READER_CONFIG = frozenset("format option options schema".split())
_READER_LOAD = frozenset("load csv json parquet orc text table jdbc avro xml delta".split())
_BUILDER_CONFIG = frozenset("master appName config enableHiveSupport remote".split())
_RDD_SAME = frozenset(
    "map flatMap filter mapPartitions mapPartitionsWithIndex mapValues flatMapValues distinct "
    "reduceByKey groupByKey sortBy sortByKey keys values keyBy sample union join cache persist "
    "repartition coalesce zipWithIndex".split()
)
_CONTEXT_FILES = frozenset(
    "textFile wholeTextFiles sequenceFile hadoopFile newAPIHadoopFile binaryFiles pickleFile".split()
)
# DataFrame attributes that are not column accesses.
_DF_ATTRIBUTES = frozenset(
    "columns dtypes schema write writeStream na stat rdd sparkSession isStreaming storageLevel "
    "sql_ctx sqlContext".split()
)
AGGREGATES = frozenset(
    "count sum avg mean max min first last countDistinct count_distinct approx_count_distinct "
    "approxCountDistinct stddev stddev_samp stddev_pop variance var_samp var_pop collect_list "
    "collect_set sumDistinct sum_distinct kurtosis skewness corr covar_pop covar_samp "
    "percentile_approx percentile median mode max_by min_by any_value bool_and bool_or every "
    "some count_if array_agg histogram_numeric product".split()
)


class Value:
    """What sparkcheck knows about an expression."""

    __slots__ = ("kind", "bound", "detail", "node", "flags")

    def __init__(self, kind: str, bound=None, detail=None, node=None, flags=None):
        self.kind = kind
        self.bound = bound
        # qualified name for imports, return Value for functions, text for strings,
        # a Schema for DataFrames and readers when the file declares one
        self.detail = detail
        self.node = node  # where the value was made (for messages)
        self.flags = flags  # DataFrames: {"shuffle"} once a join/aggregate/sort is in its plan, {"cached"}

    def is_(self, kind: str) -> bool:
        return self.kind == kind

    def __repr__(self):
        return f"Value({self.kind}, bound={self.bound!r}, detail={self.detail!r})"


# DataFrame methods that put a shuffle in the plan: recomputing their result is costly.
SHUFFLES = frozenset(
    "join crossJoin groupBy groupby rollup cube agg distinct dropDuplicates drop_duplicates orderBy sort "
    "repartition repartitionByRange intersect intersectAll subtract exceptAll".split()
)
CACHES = frozenset({"cache", "persist", "checkpoint", "localCheckpoint"})
WRITER_CONFIG = frozenset("mode format option options partitionBy bucketBy sortBy clusterBy using tableProperty".split())
WRITES = frozenset("save saveAsTable insertInto parquet csv json orc text jdbc avro xml append overwrite create createOrReplace".split())
# Methods after which the columns are those of the receiver.
_SAME_COLUMNS = frozenset(
    "filter where orderBy sort sortWithinPartitions distinct dropDuplicates drop_duplicates limit cache persist "
    "unpersist repartition repartitionByRange coalesce sample hint alias localCheckpoint checkpoint fillna dropna "
    "replace offset".split()
)


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
    """The value of a name that may hold either ``a`` or ``b``."""
    if a is None or b is None or a.kind != b.kind:
        return None
    if a.bound == b.bound:
        return a
    return Value(a.kind, None, a.detail, a.node)


def _combine_bounds(bounds) -> object:
    if any(b is None for b in bounds):
        return None
    if all(b != UNBOUNDED for b in bounds):
        return BOUNDED
    return UNBOUNDED


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
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted_name(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


def method_name(call: cst.Call) -> Optional[str]:
    """``collect`` for ``x.collect()``; None for a plain function call."""
    func = call.func
    return func.attr.value if isinstance(func, cst.Attribute) else None


def positional_args(call: cst.Call) -> list:
    return [a.value for a in call.args if a.keyword is None and not a.star]


def keyword_arg(call: cst.Call, name: str):
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a.value
    return None


class _Scope:
    __slots__ = ("kind", "names", "cond", "returns")

    def __init__(self, kind: str):
        self.kind = kind  # module, function, class, lambda, comprehension
        self.names: dict[str, Optional[Value]] = {}
        self.cond = 0  # depth of if/for/while/try blocks inside this scope
        self.returns: list = []


_SQL_SELECT = re.compile(r"^\s*(\(\s*)*(select|with|from|values|table)\b", re.I)
_SQL_LIMIT = re.compile(r"\blimit\s+(\d+)\s*;?\s*$", re.I)
_SQL_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)


def sql_bound(text: str):
    """Row bound of the result of a SQL statement given as a literal."""
    text = _SQL_COMMENT.sub(" ", text).strip()
    if not _SQL_SELECT.match(text):
        return BOUNDED  # SHOW, DESCRIBE, DDL and DML return a handful of rows
    m = _SQL_LIMIT.search(text)
    if m:
        return int(m.group(1))
    from linter.sources.sql import is_templated

    if is_templated(text):
        return None
    try:
        import sqlglot
        from sqlglot import exp

        tree = sqlglot.parse_one(text.rstrip(";"), read="spark")
    except Exception:  # noqa: BLE001 - any parse failure means "cannot tell"
        return None
    if isinstance(tree, exp.Select) and not tree.args.get("group"):
        projections = tree.expressions
        if projections and all(
            p.find(exp.AggFunc) is not None and p.find(exp.Window) is None for p in projections
        ):
            return 1
    return UNBOUNDED


@functools.lru_cache(maxsize=4096)
def _parsed_annotation(text: str):
    try:
        return cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return None


def _string_annotation(node):
    """The expression a string annotation (``"DataFrame"``) holds; each text parsed once per process."""
    text = literal_string(node)
    return None if text is None else _parsed_annotation(text)


class Semantic:
    """Scopes and inference; fed by the engine's walk (see ``hooks``)."""

    def __init__(self, dataframe_functions: frozenset = frozenset()):
        self.scopes: list[_Scope] = [_Scope("module")]
        self.star_modules: list[str] = []
        self.loop_depth = 0
        self.extra_dataframe_functions = dataframe_functions

    # -- hooks called by the walk ------------------------------------------------
    def hooks(self):
        visit = {
            cst.Import: self._import,
            cst.ImportFrom: self._import_from,
            cst.FunctionDef: self._enter_function,
            cst.Lambda: self._enter_lambda,
            cst.ClassDef: self._enter_class,
            cst.ListComp: self._enter_comp,
            cst.SetComp: self._enter_comp,
            cst.DictComp: self._enter_comp,
            cst.GeneratorExp: self._enter_comp,
            cst.CompFor: self._comp_for,
            cst.Return: self._return,
            cst.If: self._enter_block,
            cst.Try: self._enter_block,
            cst.While: self._enter_loop,
            cst.For: self._enter_for,
        }
        leave = {
            cst.Assign: self._assign,
            cst.AnnAssign: self._ann_assign,
            cst.AugAssign: self._aug_assign,
            cst.NamedExpr: lambda n: self._bind_target(n.target, self.infer(n.value)),
            cst.FunctionDef: self._leave_function,
            cst.Lambda: lambda n: self.scopes.pop(),
            cst.ClassDef: lambda n: self.scopes.pop(),
            cst.ListComp: lambda n: self.scopes.pop(),
            cst.SetComp: lambda n: self.scopes.pop(),
            cst.DictComp: lambda n: self.scopes.pop(),
            cst.GeneratorExp: lambda n: self.scopes.pop(),
            cst.If: self._leave_block,
            cst.Try: self._leave_block,
            cst.While: self._leave_loop,
            cst.For: self._leave_loop,
        }
        return visit, leave

    @property
    def in_loop(self) -> bool:
        return self.loop_depth > 0

    def _import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted_name(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.bind(alias.asname.name.value, Value(IMPORT, detail=full))
            else:
                top = full.split(".")[0]
                self.bind(top, Value(IMPORT, detail=top))

    def _import_from(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            return
        module = dotted_name(node.module)
        if module is None:
            return
        if isinstance(node.names, cst.ImportStar):
            self.star_modules.append(_normalise(module))
            return
        for alias in node.names:
            name = dotted_name(alias.name)
            if name is None:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.bind(local, Value(IMPORT, detail=_normalise(f"{module}.{name}")))

    def _enter_function(self, node: cst.FunctionDef) -> None:
        returns = self.annotation_value(node.returns.annotation) if node.returns else None
        # Bound now so recursive and later calls see it; the return kind is
        # refined when the body has been read.
        if any(self.is_function(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator,
                                {"udf", "pandas_udf"}) for d in node.decorators):
            self.bind(node.name.value, Value(UDF, detail=node, node=node))
        else:
            self.bind(node.name.value, Value(FUNCTION, detail=returns, node=node))
        scope = _Scope("function")
        self.scopes.append(scope)
        params = node.params
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            value = self.annotation_value(p.annotation.annotation) if p.annotation else None
            if value is None and p.name.value == "spark":
                value = Value(SESSION)
            scope.names[p.name.value] = value
        for p in (params.star_arg, params.star_kwarg):
            if isinstance(p, cst.Param):
                scope.names[p.name.value] = None

    def _leave_function(self, node: cst.FunctionDef) -> None:
        scope = self.scopes.pop()
        binding = self.lookup(node.name.value)
        if binding is None or binding.kind != FUNCTION or binding.node is not node:
            return
        if binding.detail is None and scope.returns:
            result = scope.returns[0]
            for other in scope.returns[1:]:
                result = merge(result, other)
            binding.detail = result

    def _enter_class(self, node: cst.ClassDef) -> None:
        self.bind(node.name.value, Value(CLASS, detail=node.name.value, node=node))
        self.scopes.append(_Scope("class"))

    def _enter_lambda(self, node: cst.Lambda) -> None:
        scope = _Scope("lambda")
        self.scopes.append(scope)
        for p in node.params.params:
            scope.names[p.name.value] = None

    def _enter_comp(self, node) -> None:
        self.scopes.append(_Scope("comprehension"))

    def _comp_for(self, node: cst.CompFor) -> None:
        self._bind_target(node.target, None)

    def _return(self, node: cst.Return) -> None:
        scope = self._function_scope()
        if scope is not None:
            scope.returns.append(self.infer(node.value) if node.value is not None else None)

    def _enter_block(self, node) -> None:
        self.scopes[-1].cond += 1

    def _leave_block(self, node) -> None:
        self.scopes[-1].cond -= 1

    def _enter_loop(self, node) -> None:
        self.scopes[-1].cond += 1
        self.loop_depth += 1

    def _enter_for(self, node: cst.For) -> None:
        self._enter_loop(node)
        self._bind_target(node.target, None)

    def _leave_loop(self, node) -> None:
        self.scopes[-1].cond -= 1
        self.loop_depth -= 1

    def _assign(self, node: cst.Assign) -> None:
        value = self.infer(node.value)
        for target in node.targets:
            self._bind_target(target.target, value)

    def _ann_assign(self, node: cst.AnnAssign) -> None:
        value = self.annotation_value(node.annotation.annotation)
        if value is None and node.value is not None:
            value = self.infer(node.value)
        self._bind_target(node.target, value)

    def _aug_assign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target, None)

    def _bind_target(self, target, value: Optional[Value]) -> None:
        if isinstance(target, cst.Name):
            self.bind(target.value, value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            element = Value(DATAFRAME, value.bound) if value is not None and value.kind == DATAFRAMES else None
            for el in target.elements:
                inner = el.value
                if isinstance(el, cst.StarredElement):
                    element_value = None
                else:
                    element_value = element
                self._bind_target(inner, element_value)

    # -- scopes -------------------------------------------------------------------
    def _function_scope(self) -> Optional[_Scope]:
        for scope in reversed(self.scopes):
            if scope.kind == "function":
                return scope
            if scope.kind == "lambda":
                return None
        return None

    def bind(self, name: str, value: Optional[Value]) -> None:
        scope = self.scopes[-1]
        if scope.cond and name in scope.names:
            value = merge(scope.names[name], value)
        scope.names[name] = value

    def lookup(self, name: str) -> Optional[Value]:
        scopes = self.scopes
        last = len(scopes) - 1
        for i in range(last, -1, -1):
            scope = scopes[i]
            if scope.kind == "class" and i != last:
                continue
            if name in scope.names:
                return scope.names[name]
        if name == "spark":
            return Value(SESSION)
        if name == "sc":
            return Value(CONTEXT)
        for module in self.star_modules:
            if module == FUNCTIONS:
                return Value(IMPORT, detail=f"{module}.{name}")
        return None

    def is_bound(self, name: str) -> bool:
        return any(name in s.names for s in self.scopes)

    # -- inference ----------------------------------------------------------------
    def annotation_value(self, node) -> Optional[Value]:
        if isinstance(node, cst.SimpleString):
            node = _string_annotation(node)
            if node is None:
                return None
        if isinstance(node, cst.Subscript):  # Optional[DataFrame]
            name = dotted_name(node.value) or ""
            if name.split(".")[-1] == "Optional" and len(node.slice) == 1:
                el = node.slice[0].slice
                if isinstance(el, cst.Index):
                    inner = self.annotation_value(el.value)
                    return Value(inner.kind, inner.bound) if inner is not None else None
            return None
        value = self.infer(node)
        if value is not None and value.kind == IMPORT:
            kind = _TYPES.get(value.detail)
            if kind is not None:
                return Value(kind, UNBOUNDED if kind in (DATAFRAME, RDD) else None, node=node)
        if value is not None and value.kind == CLASS:
            return Value(INSTANCE, detail=value.detail, node=node)
        return None

    def qualified_name(self, node) -> Optional[str]:
        value = self.infer(node)
        if value is not None and value.kind == IMPORT:
            return value.detail
        return None

    def is_function(self, node, names) -> Optional[str]:
        """The pyspark.sql.functions name a call's callee resolves to, if in ``names``."""
        if isinstance(node, cst.Attribute) and node.attr.value not in names:
            return None  # `F.x`: the attribute is the function's own name (cheap test first)
        q = self.qualified_name(node)
        if q and q.startswith(FUNCTIONS + "."):
            short = q[len(FUNCTIONS) + 1 :]
            if short in names:
                return short
        return None

    def infer(self, node) -> Optional[Value]:
        try:
            return self._infer(node)
        except RecursionError:
            return None

    def _infer(self, node) -> Optional[Value]:
        if isinstance(node, cst.Name):
            return self.lookup(node.value)
        if isinstance(node, cst.Call):
            return self._call(node)
        if isinstance(node, cst.Attribute):
            return self._attribute(node)
        if isinstance(node, cst.Subscript):
            base = self._infer(node.value)
            if base is None:
                return None
            if base.kind == DATAFRAME and len(node.slice) == 1:
                index = node.slice[0].slice
                if isinstance(index, cst.Index):
                    if literal_string(index.value) is not None:
                        return Value(COLUMN)
                    if isinstance(index.value, (cst.List, cst.Tuple)):
                        return Value(DATAFRAME, base.bound, node=node)
            if base.kind == DATAFRAMES:
                return Value(DATAFRAME, base.bound, node=node)
            return None
        if isinstance(node, cst.IfExp):
            return merge(self._infer(node.body), self._infer(node.orelse))
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.DictComp)):
            source = self._infer(node.for_in.iter)  # built from collected rows: as big as they are
            return Value(ROWS, node=node) if source is not None and source.kind == ROWS else None
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            text = literal_string(node)
            return Value(STRING, detail=text, node=node) if text is not None else None
        if isinstance(node, cst.BinaryOperation):
            left, right = self._infer(node.left), self._infer(node.right)
            if (left is not None and left.kind == COLUMN) or (right is not None and right.kind == COLUMN):
                return Value(COLUMN)
            return None
        if isinstance(node, cst.Comparison):
            # `is`, `is not`, `in` and `not in` are Python's own: always a bool.
            if any(isinstance(t.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for t in node.comparisons):
                return None
            if self.is_column(node.left) or any(self.is_column(t.comparator) for t in node.comparisons):
                return Value(COLUMN)
            return None
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.BitInvert, cst.Minus, cst.Not)):
            # `not col` fails at run time, but is about a Column all the same (see SPK303)
            return Value(COLUMN) if self.is_column(node.expression) else None
        if isinstance(node, cst.BooleanOperation):
            return Value(COLUMN) if self.is_column(node.left) or self.is_column(node.right) else None
        return None

    def is_column(self, node) -> bool:
        value = self.infer(node)
        return value is not None and value.kind == COLUMN

    def is_dataframe(self, node) -> bool:
        value = self.infer(node)
        return value is not None and value.kind == DATAFRAME

    def _attribute(self, node: cst.Attribute) -> Optional[Value]:
        base = self._infer(node.value)
        if base is None:
            return None
        attr = node.attr.value
        kind = base.kind
        if kind == IMPORT:
            q = _normalise(f"{base.detail}.{attr}")
            if q.endswith("SparkSession.builder"):
                return Value(BUILDER)
            return Value(IMPORT, detail=q)
        if kind == SESSION:
            if attr in ("read", "readStream"):
                return Value(READER, UNBOUNDED)
            if attr == "sparkContext":
                return Value(CONTEXT)
            return None
        if kind == DATAFRAME:
            if attr == "na":
                return Value(NA, base.bound, node=base.node)
            if attr == "rdd":
                return Value(RDD, base.bound, node=base.node)
            if attr == "sparkSession":
                return Value(SESSION)
            if attr in ("write", "writeTo"):
                return Value(WRITER, node=node)
            if attr in _DF_ATTRIBUTES or attr in _SAME_ROWS or attr in _COMBINE or attr.startswith("_"):
                return None  # methods, properties and private attributes are not columns
            return Value(COLUMN)
        return None

    def _call(self, node: cst.Call) -> Optional[Value]:
        func = node.func
        if isinstance(func, cst.Attribute):
            receiver = self._infer(func.value)
            if receiver is None:
                return None
            if receiver.kind == IMPORT:
                return self._function_call(_normalise(f"{receiver.detail}.{func.attr.value}"), node)
            return self._method_call(receiver, func.attr.value, node)
        if isinstance(func, cst.Name):
            value = self.lookup(func.value)
            if value is None:
                if func.value in ("dict", "list", "set", "sorted", "tuple"):
                    # a container built from collected rows is as big as they are
                    args = positional_args(node)
                    inner = self._infer(args[0]) if len(args) == 1 else None
                    if inner is not None and inner.kind == ROWS:
                        return Value(ROWS, node=node)
                return None
            if value.kind == IMPORT:
                return self._function_call(value.detail, node)
            if value.kind == FUNCTION:
                result = value.detail
                if isinstance(result, Value):
                    return Value(result.kind, result.bound, result.detail, node)
            if value.kind == CLASS:
                return Value(INSTANCE, detail=value.detail, node=node)
        return None

    def _function_call(self, q: str, node: cst.Call) -> Optional[Value]:
        if q in self.extra_dataframe_functions:
            return Value(DATAFRAME, UNBOUNDED, node=node)
        if q.startswith(FUNCTIONS + "."):
            name = q[len(FUNCTIONS) + 1 :]
            if name == "broadcast":
                args = positional_args(node)
                return self._infer(args[0]) if args else None
            if name in ("udf", "pandas_udf"):
                args = positional_args(node)
                target = self._udf_target(args[0]) if args else None
                return Value(UDF, detail=target, node=node)
            if name == "lit":
                args = positional_args(node)
                return Value(COLUMN, detail=literal_type(args[0]) if args else None, node=node)
            return Value(COLUMN)
        if q.startswith(("pyspark.sql.Window.", "pyspark.sql.window.Window.")):
            return Value(WINDOW)
        if q in ("pandas.DataFrame", "pandas.concat") or q.startswith("pandas.read_"):
            return Value(PANDAS, node=node)
        if q.endswith(("SparkSession.getActiveSession", "SparkSession.active")):
            return Value(SESSION)
        if q in ("pyspark.SparkContext", "pyspark.SparkContext.getOrCreate"):
            return Value(CONTEXT)
        return None

    def _schema_of(self, node) -> Optional[Schema]:
        if node is None:
            return None
        text = literal_string(node)
        if text is None:
            value = self._infer(node)
            text = value.detail if value is not None and value.kind == STRING else None
        if text is not None:
            return parse_ddl(text)
        if isinstance(node, cst.List) and all(literal_string(e.value) for e in node.elements):
            return Schema([(literal_string(e.value), None) for e in node.elements])
        return None

    def _udf_target(self, node):
        """The FunctionDef or Lambda a UDF wraps, when it is in this file."""
        if isinstance(node, cst.Lambda):
            return node
        if isinstance(node, cst.Name):
            value = self.lookup(node.value)
            if value is not None and value.kind == FUNCTION and isinstance(value.node, cst.FunctionDef):
                return value.node
        return None

    def _method_call(self, receiver: Value, method: str, node: cst.Call) -> Optional[Value]:
        kind = receiver.kind
        if kind == DATAFRAME:
            return self._dataframe_method(receiver, method, node)
        if kind == SESSION:
            if method == "table":
                return Value(DATAFRAME, UNBOUNDED, node=node)
            if method == "sql":
                args = positional_args(node)
                text = None
                if args:
                    first = self._infer(args[0])
                    text = first.detail if first is not None and first.kind == STRING else None
                return Value(DATAFRAME, sql_bound(text) if text is not None else None, node=node)
            if method == "createDataFrame":
                args = positional_args(node)
                schema_arg = args[1] if len(args) > 1 else keyword_arg(node, "schema")
                return Value(DATAFRAME, BOUNDED, self._schema_of(schema_arg), node=node)
            if method == "range":
                args = [literal_int(a) for a in positional_args(node)]
                if len(args) == 1 and args[0] is not None:
                    return Value(DATAFRAME, max(args[0], 0), node=node)
                if len(args) >= 2 and args[0] is not None and args[1] is not None:
                    return Value(DATAFRAME, max(args[1] - args[0], 0), node=node)
                return Value(DATAFRAME, None, node=node)
            if method == "newSession":
                return Value(SESSION)
            return None
        if kind == BUILDER:
            if method in _BUILDER_CONFIG:
                return Value(BUILDER)
            if method in ("getOrCreate", "create"):
                return Value(SESSION)
            return None
        if kind == READER:
            if method == "schema":
                args = positional_args(node)
                text = literal_string(args[0]) if args else None
                if text is None and args:
                    value = self._infer(args[0])
                    text = value.detail if value is not None and value.kind == STRING else None
                return Value(READER, UNBOUNDED, parse_ddl(text) if text else None)
            if method in _READER_CONFIG:
                return receiver
            if method in _READER_LOAD:
                return Value(DATAFRAME, UNBOUNDED, receiver.detail, node=node)
            return None
        if kind == GROUPED:
            if method == "pivot":
                return receiver
            if method in _GROUPED_RESULT:
                return Value(DATAFRAME, receiver.bound, node=node, flags=set(receiver.flags or ()) | {"shuffle"})
            return None
        if kind == NA:
            if method in ("fill", "drop", "replace"):
                return Value(DATAFRAME, receiver.bound, node=receiver.node)
            return None
        if kind == COLUMN:
            return Value(COLUMN)  # Column methods return Columns (alias, cast, isNull, over, ...)
        if kind == WRITER:
            if method in WRITER_CONFIG:
                return Value(WRITER, node=receiver.node)
            return None
        if kind == WINDOW:
            return Value(WINDOW)
        if kind == UDF:
            return Value(COLUMN)  # calling a UDF builds a Column expression
        if kind == RDD:
            if method in _RDD_SAME:
                return Value(RDD, receiver.bound, node=receiver.node)
            return None
        if kind == CONTEXT:
            if method in _CONTEXT_FILES:
                return Value(RDD, UNBOUNDED, node=node)
            if method in ("parallelize", "range", "emptyRDD"):
                return Value(RDD, BOUNDED, node=node)
            return None
        return None

    def _dataframe_method(self, receiver: Value, method: str, node: cst.Call) -> Optional[Value]:
        result = self._dataframe_method_value(receiver, method, node)
        if result is None or result.kind not in (DATAFRAME, GROUPED, DATAFRAMES):
            return result
        flags = set(receiver.flags or ())
        if method in SHUFFLES:
            flags.add("shuffle")
        if method in CACHES:
            flags.add("cached")
        result = Value(result.kind, result.bound, self._columns_after(receiver, method, node), result.node, flags)
        return result

    def _columns_after(self, receiver: Value, method: str, node: cst.Call) -> Optional[Schema]:
        schema = receiver.detail if isinstance(receiver.detail, Schema) else None
        args = positional_args(node)
        if method in _SAME_COLUMNS:
            return schema
        if method in ("select", "toDF"):
            out = []
            for arg in args:
                name, col_type = self._column_name(arg, schema)
                if name is None:
                    return None
                out.append((name, col_type))
            return Schema(out) if out else None
        if method == "withColumn" and schema is not None and len(args) == 2 and literal_string(args[0]):
            name = literal_string(args[0])
            col_type = self._cast_type(args[1])
            kept = [(n, t) for n, t in schema if n != name]
            if len(kept) == len(schema):
                return Schema([*schema, (name, col_type)])
            return Schema([(n, col_type if n == name else t) for n, t in schema])
        if method == "drop" and schema is not None:
            gone = {literal_string(a) for a in args}
            return Schema([(n, t) for n, t in schema if n not in gone])
        if method == "withColumnRenamed" and schema is not None and len(args) == 2:
            old, new = literal_string(args[0]), literal_string(args[1])
            return Schema([(new if n == old else n, t) for n, t in schema])
        return None

    def _column_name(self, arg, schema) -> tuple:
        """Output name and type of a select item, when plain."""
        text = literal_string(arg)
        if text is not None:
            if text == "*":
                return None, None
            return text, schema.type_of(text) if schema else None
        if isinstance(arg, cst.Call) and method_name(arg) in ("alias", "name"):
            alias_args = positional_args(arg)
            name = literal_string(alias_args[0]) if alias_args else None
            return name, self._cast_type(arg.func.value)
        if isinstance(arg, cst.Call) and self.is_function(arg.func, {"col", "column"}):
            col_args = positional_args(arg)
            name = literal_string(col_args[0]) if col_args else None
            return name, (schema.type_of(name) if schema and name else None)
        return None, None

    def _cast_type(self, node) -> Optional[str]:
        if isinstance(node, cst.Call) and method_name(node) in ("cast", "astype"):
            cast_args = positional_args(node)
            if cast_args:
                text = literal_string(cast_args[0])
                if text is None and isinstance(cast_args[0], cst.Call):
                    text = dotted_name(cast_args[0].func)
                return normalise_type(text) if text else None
        return None

    def _dataframe_method_value(self, receiver: Value, method: str, node: cst.Call) -> Optional[Value]:
        bound = receiver.bound
        if method == "limit":
            args = positional_args(node)
            n = literal_int(args[0]) if args else None
            if n is None:
                bound = bound if isinstance(bound, int) else BOUNDED
            else:
                bound = min(bound, n) if isinstance(bound, int) else n
            return Value(DATAFRAME, bound, node=node)
        if method == "select" and self._all_aggregates(node):
            return Value(DATAFRAME, min(bound, 1) if isinstance(bound, int) else 1, node=node)
        if method in _SAME_ROWS:
            return Value(DATAFRAME, bound, node=receiver.node)
        if method == "agg":
            return Value(DATAFRAME, 1, node=node)
        if method in ("describe", "summary"):
            return Value(DATAFRAME, BOUNDED, node=node)
        if method in _GROUPING:
            if not node.args:  # groupBy() with no keys: a global aggregate
                grouped = 1
            elif bound is None or bound == UNBOUNDED:
                grouped = bound
            else:
                grouped = bound  # groups of a bounded frame are bounded too
            return Value(GROUPED, grouped, node=node)
        if method in _COMBINE:
            args = positional_args(node)
            other = self._infer(args[0]) if args else None
            if other is None or other.kind != DATAFRAME:
                return Value(DATAFRAME, None, node=node)
            return Value(DATAFRAME, _combine_bounds([bound, other.bound]), node=node)
        if method == "randomSplit":
            return Value(DATAFRAMES, bound, node=node)
        if method == "transform":
            return None
        if method == "toPandas":
            return Value(PANDAS, node=node)
        if method in ("collect", "take", "tail", "head") and (method == "collect" or node.args):
            return Value(ROWS, node=node)
        return None

    def _all_aggregates(self, node: cst.Call) -> bool:
        args = positional_args(node)
        if not args:
            return False
        for arg in args:
            while isinstance(arg, cst.Call) and isinstance(arg.func, cst.Attribute) and arg.func.attr.value == "alias":
                arg = arg.func.value
            if not isinstance(arg, cst.Call) or self.is_function(arg.func, AGGREGATES) is None:
                return False
        return True


def _normalise(q: str) -> str:
    for old, new in _ALIASES.items():
        if q == old or q.startswith(old + "."):
            return new + q[len(old) :]
    return q
