from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_string, method_name, positional_args
from linter.sources.python import source_child_nodes

_SETUP = """\
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
listings = spark.table("listings")
"""
_GENERATORS = frozenset({"explode", "explode_outer", "posexplode", "posexplode_outer"})
# the columns a generator adds when it is not aliased
_DEFAULT_OUTPUT = frozenset({"col", "pos", "key", "value"})
# methods that keep the rows' multiplicity and the columns (row filters, partitioning, caching)
_KEEP = frozenset(
    "filter where drop cache persist unpersist repartition repartitionByRange coalesce orderBy sort "
    "sortWithinPartitions limit distinct dropDuplicates drop_duplicates dropDuplicatesWithinWatermark alias hint "
    "checkpoint localCheckpoint dropna fillna withWatermark".split()
)
_COLUMN_FUNCTIONS = frozenset({"col", "column"})


@dataclass(frozen=True)
class _Lineage:
    """What explodes a DataFrame's rows went through, and which columns come from them."""

    exploded: tuple = ()  # (column names the generator read, the generator call) for each explode so far
    produced: frozenset = field(default_factory=frozenset)  # columns holding (or derived from) exploded values
    unknown: bool = False  # a projection we cannot follow (`select("o.*")`, `select(*cols)`): stop judging


class CompoundingExplodes(PythonRule):
    """
    ## What it does
    Finds a second `explode` (`explode_outer`, `posexplode`,
    `posexplode_outer`) of a *different* array column on rows that an earlier
    explode already multiplied: in one `select`, along one chain
    (`.withColumn("a", explode("xs")).withColumn("b", explode("ys"))`), or
    through variables (`df = df.withColumn(...)` twice). Exploding a column that
    the first explode produced (`explode("order.items")` after
    `withColumn("order", explode("orders"))`: nested arrays) is how nested data
    is flattened and is not reported; neither is the same column exploded twice
    (pairs of elements, on purpose), nor a second explode after a `groupBy`
    gathered the rows again. The lineage stops at anything it cannot follow
    (`select("o.*")`, `select(*cols)`, joins).

    On by default: a cross product of two arrays is rarely what a pipeline
    means, and the multiplied row count is a cost worth a look even when it
    is; a deliberate one is kept with a `# noqa: SPK421` that documents it.

    ## Why is this bad?
    Each explode turns a row into one row per element, so two explodes of
    different arrays turn a row into `len(xs) * len(ys)` rows, every element of
    one paired with every element of the other. When the arrays are parallel
    (the i-th date belongs to the i-th amount) the pairing is wrong, and for
    independent arrays the row count grows multiplicatively: 100 x 100 elements
    make 10,000 rows out of one, a shuffle and memory bill no one asked for.
    Older Spark versions reject two generators in one `select` ("Only one
    generator allowed per select clause"); Spark 4 computes the cross product.

    ## Example
    ```python
    prices = listings.withColumn("day", F.explode("days")).withColumn("price", F.explode("prices"))
    ```

    ## Use instead
    ```python
    prices = listings.select("listing_id", F.inline(F.arrays_zip("days", "prices")))
    ```
    `arrays_zip` pairs the elements position by position and one `inline`
    (or `explode` of the zipped array) makes one row per pair. When a cross
    product really is meant, keep it and suppress the finding with a comment
    saying so.

    ## Fix safety
    No fix: zipping changes the rows (pairs instead of all combinations), which
    is the point, but only the author knows which was meant.

    ## References
    - PySpark API: `pyspark.sql.functions.explode`, `arrays_zip`, `inline`.
    """

    code = "SPK421"
    name = "compounding-explodes"
    summary = "a second `explode` of a different array multiplies rows an explode already multiplied (a cross product)"
    default_reason = ("two explodes of different arrays make a cross product: wrong pairs for parallel arrays, "
                      "multiplied rows otherwise; nested flattening is not reported, `noqa` keeps a meant one")
    triggers = ("explode",)
    doc_setup = 'listings = spark.table("listings")\n'

    invalid = (
        Invalid(_SETUP + 'prices = listings.withColumn("day", F.explode("days")).withColumn("price", F.explode("prices"))\n'),
        Invalid(_SETUP + 'rows = listings.select("id", F.explode("tags").alias("tag"), F.posexplode("photos"))\n'),
        Invalid(_SETUP + 'df = listings.withColumn("tag", F.explode_outer("tags"))\n'
                'df = df.filter(F.col("tag") != "")\n'
                'df = df.withColumn("amenity", F.explode("amenities"))\n'),
        Invalid(
            "from pyspark.sql.functions import explode, col\n\ndef flatten(raw):\n"
            "    tagged = raw.select('id', 'sizes', explode(col('colors')).alias('color'))\n"
            "    return tagged.withColumn('size', explode('sizes'))\n"
        ),
        Invalid(_SETUP + "wide = (listings.withColumn('a', F.explode('xs')).withColumn('b', F.explode('ys'))\n"
                "        .withColumn('c', F.explode('zs')))\n", count=2),
    )
    valid = (
        Valid(_SETUP + 'items = (listings.withColumn("order", F.explode("orders"))\n'
              '         .withColumn("item", F.explode("order.items")))\n'),
        Valid(_SETUP + 'items = (listings.select("id", F.explode("orders").alias("o"))\n'
              '         .select("id", F.explode(F.col("o")["lines"]).alias("line")))\n'),
        Valid(_SETUP + 'flat = listings.select(F.explode("orders").alias("o")).select("o.*")'
              '.withColumn("item", F.explode("items"))\n'),
        Valid(_SETUP + 'pairs = listings.withColumn("a", F.explode("xs")).withColumn("b", F.explode("xs"))\n'),
        Valid(_SETUP + 'rows = listings.select("id", F.inline(F.arrays_zip("days", "prices")))\n'),
        Valid(_SETUP + 'tags = listings.withColumn("tag", F.explode("tags")).groupBy("tag").agg(F.count("*"))\n'
              'out = tags.withColumn("x", F.explode("xs"))\n'),
        Valid(_SETUP + 'a = listings.withColumn("tag", F.explode("tags"))\n'
              'b = listings.withColumn("photo", F.explode("photos"))\n'),
        Valid("import pandas as pd\nfrom pyspark.sql import functions as F\n"
              "frame = pd.DataFrame({'a': [[1]], 'b': [[2]]})\nout = frame.explode('a').explode('b')\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.functions: list = []  # the enclosing FunctionDefs (lineages are per function)
        self.lineages: dict = {}  # (function, name) -> _Lineage
        self.memo: dict = {}  # id(call) -> _Lineage or None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.pop()

    def _key(self, name: str):
        return (id(self.functions[-1]) if self.functions else None, name)

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) in ("withColumn", "withColumns", "select") and any(
            self._generator(a.value) for a in node.args
        ):
            self._lineage(node)

    def leave_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        key = self._key(node.targets[0].target.value)
        lineage = self._lineage(node.value)
        if lineage is not None and (lineage.exploded or lineage.unknown):
            self.lineages[key] = lineage
        else:
            self.lineages.pop(key, None)

    # -- lineage ------------------------------------------------------------------------------
    def _lineage(self, node) -> Optional[_Lineage]:
        if isinstance(node, cst.Name):
            return self.lineages.get(self._key(node.value))
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            return None
        key = id(node)
        if key not in self.memo:
            self.memo[key] = self._apply(node)
        return self.memo[key]

    def _apply(self, call: cst.Call) -> Optional[_Lineage]:
        method = method_name(call)
        if method not in _KEEP and method not in ("withColumn", "withColumns", "select", "withColumnRenamed"):
            return None  # joins, aggregations, unions, SQL: the rows are not these rows any more
        before = self._lineage(call.func.value) or _Lineage()
        if method in _KEEP:
            return before
        args = positional_args(call)
        if method == "withColumnRenamed":
            old, new = (literal_string(a) for a in args[:2]) if len(args) == 2 else (None, None)
            if old is None or new is None:
                return _Lineage(before.exploded, before.produced, True)
            return _Lineage(before.exploded, before.produced | {new} if old in before.produced else before.produced,
                            before.unknown)
        if method == "withColumn":
            if len(args) != 2 or literal_string(args[0]) is None:
                return _Lineage(before.exploded, before.produced, True)
            return self._column(before, args[1], {literal_string(args[0])})
        if method == "withColumns":
            if len(args) != 1 or not isinstance(args[0], cst.Dict):
                return _Lineage(before.exploded, before.produced, True)
            state = before
            for element in args[0].elements:
                name = literal_string(element.key) if isinstance(element, cst.DictElement) else None
                if name is None:
                    return _Lineage(state.exploded, state.produced, True)
                state = self._column(state, element.value, {name})
            return state
        # select: what is kept, what is derived from exploded columns, what is exploded here
        state = _Lineage(before.exploded, frozenset(), before.unknown)
        for arg in call.args:
            value = arg.value
            if arg.star or arg.keyword is not None:
                return _Lineage(state.exploded, state.produced, True)
            name = literal_string(value)
            if name is not None:
                if name == "*":  # every column, the exploded ones too
                    state = _Lineage(state.exploded, state.produced | before.produced, state.unknown)
                elif name.endswith("*"):
                    if name.split(".", 1)[0] in before.produced:  # `o.*`: fields we cannot name
                        return _Lineage(state.exploded, state.produced | before.produced, True)
                elif name.split(".", 1)[0] in before.produced:
                    state = _Lineage(state.exploded, state.produced | {name.rsplit(".", 1)[-1]}, state.unknown)
                continue
            if self._generator(value) is not None:
                state = self._column(state, value, None, before.produced)
                continue
            names = _references(value)
            if names is None:
                return _Lineage(state.exploded, state.produced | before.produced, True)
            if names & before.produced:
                alias = _alias(value)
                if alias is None:
                    return _Lineage(state.exploded, state.produced | before.produced, True)
                state = _Lineage(state.exploded, state.produced | set(alias), state.unknown)
        return state

    def _column(self, state: _Lineage, value, names: Optional[set], earlier: frozenset = frozenset()) -> _Lineage:
        """A column expression added as ``names`` (None: a select item, named by its alias).

        ``earlier``: columns produced before the ``select`` it is an item of (still readable there).
        """
        seen = state.produced | earlier
        generator = self._generator(value)
        if generator is None:
            refs = _references(value)
            if names and refs and refs & seen:
                return _Lineage(state.exploded, state.produced | names, state.unknown)
            return state
        call, which = generator
        refs = _references(call)
        outputs = set(names) if names else set(_alias(value) or _DEFAULT_OUTPUT)
        if not refs or state.unknown:
            return _Lineage(state.exploded, state.produced | outputs, True)
        if refs & seen:  # a nested array: a field of what an earlier explode produced
            return _Lineage(state.exploded, state.produced | outputs, state.unknown)
        first = next((c for r, c in state.exploded if r != refs), None)
        if first is not None:
            self._report(call, which, first)
        return _Lineage(state.exploded + ((refs, call),), state.produced | outputs, state.unknown)

    def _generator(self, value):
        """(the explode call, its function name) for ``explode(x)`` or ``explode(x).alias(...)``."""
        if isinstance(value, cst.Call) and method_name(value) == "alias" and isinstance(value.func.value, cst.Call):
            value = value.func.value
        if not isinstance(value, cst.Call):
            return None
        name = self.ctx.semantic.is_function(value.func, _GENERATORS)
        return (value, name) if name is not None else None

    def _report(self, call, which, earlier) -> None:
        first = shown(self.ctx, earlier)
        self.ctx.report(
            self,
            call,
            f"`{shown(self.ctx, call)}` multiplies rows that `{first}` already multiplied: each input row becomes "
            "one row per combination of the two arrays' elements (a cross product)",
            help="if the arrays belong together position by position, explode them once: "
            "`inline(arrays_zip(a, b))` (or `explode(arrays_zip(...))`); if every combination is meant, "
            "say so in a `# noqa: SPK421` comment",
            start=call.func.attr if isinstance(call.func, cst.Attribute) else call.func,
        )


def _alias(value) -> Optional[tuple]:
    """The names ``x.alias("a")`` / ``.alias("pos", "val")`` gives, or None."""
    if isinstance(value, cst.Call) and method_name(value) in ("alias", "name"):
        names = tuple(literal_string(a) for a in positional_args(value))
        if names and all(n is not None for n in names):
            return names
    return None


def _references(node) -> Optional[set]:
    """The top-level column names an expression reads: string arguments and ``col("a.b")`` roots.

    None when it reads something we cannot name (a variable, an attribute of a DataFrame).
    """
    out: set = set()
    stack = [node]
    while stack:
        current = stack.pop()
        text = literal_string(current)
        if text is not None:
            out.add(text.split(".", 1)[0])
            continue
        if isinstance(current, cst.Name):
            if current.value not in ("None", "True", "False"):
                return None
            continue
        if isinstance(current, cst.Attribute):
            stack.append(current.value)  # `F.col`, `x.alias`: the method's own name is not a column
            continue
        if isinstance(current, cst.Call):
            if isinstance(current.func, cst.Attribute):
                if isinstance(current.func.value, cst.Name):
                    pass  # `F.explode(...)`: a module function; its arguments say what it reads
                else:
                    stack.append(current.func.value)  # `col("o")["x"].alias(...)`: the receiver
            elif isinstance(current.func, cst.Name):
                pass  # `explode(...)` imported by name
            stack.extend(a.value for a in current.args)
            continue
        if isinstance(current, cst.Subscript):
            stack.append(current.value)  # `col("o")["items"]`: the field name is not a column
            continue
        stack.extend(c for c in source_child_nodes(current) if isinstance(c, cst.BaseExpression))
    return out
