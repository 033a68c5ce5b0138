
import libcst as cst

from checks.python._collections import callee_prefix
from checks.python._driver import shown
from checks.python._fixes import functions_alias, source
from linter.diagnostics import SAFE, UNSAFE, Fix, NodeEdit
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_string, method_name, positional_args

_SETUP = """\
from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
orders = spark.table("orders")
w = Window.partitionBy("customer_id").orderBy("ts")
"""
_IMPORTED = """\
from pyspark.sql import SparkSession
from pyspark.sql.functions import array_distinct, collect_list, size

spark = SparkSession.builder.getOrCreate()
orders = spark.table("orders")
"""
_COLLECT = frozenset({"collect_list", "collect_set", "array_agg"})  # array_agg: collect_list's SQL name (3.5+)
_OUTER = frozenset({"array_distinct", "size", "array_size", "cardinality", "array_except"})
_SIZE = frozenset({"size", "array_size", "cardinality"})
_TYPE = "the result becomes a `bigint` where `size` gave an `int`"


class ArrayExpressionReplaceableByBuiltin(PythonRule):
    """
    ## What it does
    Finds array functions applied to an array that a single built-in computes
    directly:

    - `array_distinct(collect_list(x))`: that is `collect_set(x)`;
    - `array_distinct(collect_set(x))` (also over a window): `collect_set`
      is already distinct;
    - `size(collect_list(x))`, also `.over(w)`: that is `count(x)`;
    - `size(collect_set(x))` in an aggregation: that is `count_distinct(x)`;
    - `array_except(arr, array(lit(None)))` to drop the nulls of an array:
      `array_compact(arr)` (Spark 3.4+; reported when `target-spark` is 3.4 or
      newer), and `array_except(arr, lit(None))` / `array_except(arr, None)`,
      which do not drop nulls at all: `None` is not a Column (a `TypeError`), and
      a null literal is not an array (an `AnalysisException`, or a null result
      once cast to an array type).

    `size` also stands for `array_size` and `cardinality`. The functions are
    recognised when they resolve to `pyspark.sql.functions` (`F.size`, imported
    by name, `import *`). Not reported: `size(collect_set(x).over(w))`, the
    usual way to count distinct values over a window (`count_distinct` is not
    allowed there), and `array_distinct(collect_list(x).over(w))`, whose
    first-seen order over an ordered window `collect_set` would not keep.

    On by default: each form computes the same numbers or elements as the
    built-in it names (or, for `array_except` with a null, does not work), so
    a finding is never a matter of taste.

    ## Why is this bad?
    `collect_list` and `collect_set` build one array per group in executor
    memory (an `ObjectHashAggregate` that spills or fails on a hot key); an
    array built only to be counted or deduplicated costs that memory for
    nothing: `count` and `count_distinct` keep one number per group. Deduplicating
    an array `collect_set` returned is a second pass that changes nothing. And
    `array_except` with a null does not do what it is there for.

    ## Example
    ```python
    per_customer = orders.groupBy("customer_id").agg(
        F.size(F.collect_list("order_id")).alias("orders"),
        F.array_distinct(F.collect_set("sku")).alias("skus"),
    )
    ```

    ## Use instead
    ```python
    per_customer = orders.groupBy("customer_id").agg(
        F.count("order_id").alias("orders"),
        F.collect_set("sku").alias("skus"),
    )
    ```

    ## Fix safety
    `array_distinct(collect_set(x))` -> `collect_set(x)` is safe: the elements
    are already distinct, and `array_distinct` keeps them in the same order.
    The others are unsafe:
    `size(collect_list(x))` -> `count(x)` and `size(collect_set(x))` ->
    `count_distinct(x)` give the same numbers (both sides skip nulls, and an
    empty group gives 0), but `count` is a `bigint` where `size` is an `int`, which
    changes the schema a write or a union sees; `array_distinct(collect_list(x))`
    -> `collect_set(x)` keeps the same elements but not their first-seen order;
    `array_except(arr, array(lit(None)))` -> `array_compact(arr)` also keeps
    the duplicates `array_except` removed (`array_distinct(array_compact(arr))`
    keeps the old result); and the `None` / `lit(None)` forms fail or return null
    today, where `array_compact` returns the array without its nulls.
    `count_distinct` is written `countDistinct` for a `target-spark` before 3.2.

    ## References
    - Spark SQL built-in functions: `collect_set`, `count`, `count_distinct`,
      `array_distinct`, `array_except` ("without duplicates"), `array_compact`
      (3.4.0).
    """

    code = "SPK420"
    name = "array-expression-replaceable-by-builtin"
    summary = "an array built by `collect_list`/`collect_set` only to be counted or deduplicated, or `array_except` with a null"
    default_reason = ("each form computes exactly what the built-in it names computes (or, for `array_except` "
                      "with a null, does not work), after building arrays in executor memory for nothing")
    triggers = ("array_distinct", "size", "cardinality", "array_except")
    fix = "unsafe"
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(
            _SETUP + 'n = orders.groupBy("customer_id").agg(F.size(F.collect_list("order_id")).alias("orders"))\n',
            unsafe=True,
            fixed=_SETUP + 'n = orders.groupBy("customer_id").agg(F.count("order_id").alias("orders"))\n',
        ),
        Invalid(
            _SETUP + 'skus = orders.groupBy("customer_id").agg(F.array_distinct(F.collect_set("sku")).alias("s"))\n',
            fixed=_SETUP + 'skus = orders.groupBy("customer_id").agg(F.collect_set("sku").alias("s"))\n',
        ),
        Invalid(
            _SETUP + 'seen = orders.withColumn("skus", F.array_distinct(F.collect_set("sku").over(w)))\n',
            fixed=_SETUP + 'seen = orders.withColumn("skus", F.collect_set("sku").over(w))\n',
        ),
        Invalid(
            _SETUP + 'u = orders.groupBy("day").agg(F.size(F.collect_set("customer_id")).alias("customers"))\n',
            unsafe=True,
            fixed=_SETUP + 'u = orders.groupBy("day").agg(F.count_distinct("customer_id").alias("customers"))\n',
        ),
        Invalid(
            _SETUP + 'running = orders.withColumn("n", F.size(F.collect_list("order_id").over(w)))\n',
            unsafe=True,
            fixed=_SETUP + 'running = orders.withColumn("n", F.count("order_id").over(w))\n',
        ),
        Invalid(
            _IMPORTED + 'skus = orders.groupBy("customer_id").agg(array_distinct(collect_list("sku")))\n',
            unsafe=True,
            fixed=_IMPORTED.replace("spark = ", "from pyspark.sql import functions as F\nspark = ", 1)
            + 'skus = orders.groupBy("customer_id").agg(F.collect_set("sku"))\n',
        ),
        Invalid(
            "from pyspark.sql.functions import *\n\ndef per_user(events):\n"
            "    return events.groupBy('user_id').agg(size(collect_list(col('event'))).alias('events'))\n",
            unsafe=True,
            fixed="from pyspark.sql.functions import *\n\ndef per_user(events):\n"
            "    return events.groupBy('user_id').agg(count(col('event')).alias('events'))\n",
        ),
        Invalid(
            _SETUP + 'skus = (orders.groupBy("customer_id").agg(F.collect_list("sku").alias("skus"))\n'
            '        .withColumn("skus", F.array_distinct("skus")))\n'
        ),
        Invalid(
            _SETUP + 'clean = orders.withColumn("tags", F.array_except("tags", F.array(F.lit(None))))\n',
            unsafe=True,
            fixed=_SETUP + 'clean = orders.withColumn("tags", F.array_compact("tags"))\n',
        ),
        Invalid(_SETUP + 'clean = orders.withColumn("tags", F.array_except(F.col("tags"), F.lit(None)))\n'),
        Invalid(_SETUP + 'clean = orders.withColumn("tags", F.array_except("tags", None))\n'),
        Invalid(
            _SETUP + 'clean = orders.withColumn("tags", F.array_except("tags", F.lit(None).cast("array<string>")))\n',
        ),
    )
    valid = (
        Valid(_SETUP + 'n = orders.groupBy("customer_id").agg(F.count("order_id"), F.collect_set("sku"))\n'),
        Valid(_SETUP + 'n = orders.withColumn("customers", F.size(F.collect_set("customer_id").over(w)))\n'),
        Valid(_SETUP + 'path = orders.withColumn("pages", F.array_distinct(F.collect_list("page").over(w)))\n'),
        Valid(_SETUP + 'n = orders.withColumn("n_items", F.size("items"))\n'),
        Valid(_SETUP + 'skus = (orders.groupBy("customer_id").agg(F.collect_list("sku").alias("skus"))\n'
              '        .withColumn("tags", F.array_distinct("tags")))\n'),
        Valid(_SETUP + 'rest = orders.withColumn("rest", F.array_except("tags", F.array(F.lit("spam"))))\n'),
        Valid("import mylib\nfrom pyspark.sql import functions as F\nn = mylib.size(F.collect_list('x'))\n"),
        Valid("from pyspark.sql import functions as F\n\ndef size(xs):\n    return len(xs)\n\n"
              "n = size(F.collect_list('x'))\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.found: list = []  # (node, message, help, (fix title, prefix or None, text, applicability) or None)

    def visit_Call(self, node: cst.Call) -> None:
        outer = self.ctx.semantic.is_function(node.func, _OUTER)
        if outer is None or any(a.keyword is not None or a.star for a in node.args):
            return
        args = positional_args(node)
        if outer == "array_except":
            if len(args) == 2:
                self._except(node, args[0], args[1])
            return
        if len(args) != 1:
            return
        if not isinstance(args[0], cst.Call) or self.ctx.semantic.is_function(args[0].func, {"col", "column"}):
            if outer == "array_distinct":
                self._split(node, args[0])
            return
        inner = over = args[0]
        if method_name(inner) == "over" and isinstance(inner.func.value, cst.Call):
            inner = inner.func.value
        else:
            over = None
        collect = self.ctx.semantic.is_function(inner.func, _COLLECT)
        if collect is None or len(inner.args) != 1 or inner.args[0].keyword is not None:
            return
        arg = source(self.ctx, inner.args[0].value)
        window = f".over({', '.join(source(self.ctx, a.value) for a in over.args)})" if over is not None else ""
        shown_call = shown(self.ctx, node)
        if outer == "array_distinct":
            if collect == "collect_set":
                self._add(node, f"`{shown_call}`: `collect_set` already returns distinct values",
                          "drop the `array_distinct`",
                          ("Drop the `array_distinct`", "", source(self.ctx, args[0]), SAFE))
            elif over is None:
                self._add(node, f"`{shown_call}` collects every value of the group, duplicates included, "
                                "then deduplicates: `collect_set` keeps only the distinct ones",
                          f"use `collect_set({arg})` (its element order is unspecified)",
                          self._call_fix(inner, "collect_set", arg, ""))
            return
        if collect == "collect_set":
            if over is not None:
                return  # count_distinct is not allowed over a window: this is the usual workaround
            name = "count_distinct" if self.ctx.settings.target_spark >= (3, 2) else "countDistinct"
            self._add(node, f"`{shown_call}` builds an array of each group's distinct values only to count them",
                      f"use `{name}({arg})` (or `approx_count_distinct` when an estimate will do); {_TYPE}",
                      self._call_fix(inner, name, arg, ""))
            return
        where = "each window frame" if over is not None else "each group"
        self._add(node, f"`{shown_call}` builds an array of {where} only to count it",
                  f"use `count({arg}){window}`: the same number without the array; {_TYPE}",
                  self._call_fix(inner, "count", arg, window))

    def _split(self, node, arg) -> None:
        """``.agg(collect_list(x).alias("xs")).withColumn("xs", array_distinct("xs"))``: the two halves of one step."""
        name = literal_string(arg)
        if name is None and isinstance(arg, cst.Call) and self.ctx.semantic.is_function(arg.func, {"col", "column"}) \
                and len(arg.args) == 1:
            name = literal_string(arg.args[0].value)
        step = self.ctx.parent_of(self.ctx.parent_of(node) or node)
        if name is None or not isinstance(step, cst.Call) or method_name(step) not in ("withColumn", "select") \
                or not isinstance(step.func.value, cst.Call):
            return
        before = step.func.value
        collect = None
        if method_name(before) == "agg":
            for item in before.args:
                value = item.value
                if isinstance(value, cst.Call) and method_name(value) == "alias" and isinstance(value.func.value, cst.Call) \
                        and [literal_string(a) for a in positional_args(value)] == [name]:
                    collect = self.ctx.semantic.is_function(value.func.value.func, _COLLECT) or collect
        elif method_name(before) == "withColumn":
            given = positional_args(before)
            if len(given) == 2 and literal_string(given[0]) == name and isinstance(given[1], cst.Call):
                collect = self.ctx.semantic.is_function(given[1].func, _COLLECT)
        if collect is None:
            return
        if collect == "collect_set":
            message = f"`{shown(self.ctx, node)}` deduplicates `{name}`, which `collect_set` already made distinct"
            help = "drop the `array_distinct`"
        else:
            message = (f"`{shown(self.ctx, node)}` deduplicates `{name}`, built by `{collect}` the step before: "
                       "`collect_set` collects only the distinct values")
            help = f"aggregate `{name}` with `collect_set` and drop the `array_distinct`"
        self._add(node, message, help, None)

    def _call_fix(self, like, name, arg, window):
        return (f"Replace with `{name}(...)`", callee_prefix(self.ctx, like, name), f"{name}({arg}){window}", UNSAFE)

    def _except(self, node, array, other) -> None:
        shown_call = shown(self.ctx, node)
        semantic = self.ctx.semantic
        compact = self.ctx.settings.target_spark >= (3, 4)
        instead = "`array_compact` (Spark 3.4+)" if compact else "`filter(arr, lambda x: x.isNotNull())`"
        if isinstance(other, cst.Name) and other.value == "None":
            problem = "`None` is not a Column: the call raises a `TypeError`"
        elif self._null_literal(other):
            problem = "a null literal is not an array: Spark rejects the types (`AnalysisException`)"
        elif isinstance(other, cst.Call) and method_name(other) == "cast" and self._null_literal(other.func.value):
            problem = "an array that is null makes the whole result null"
        elif (isinstance(other, cst.Call) and semantic.is_function(other.func, {"array"}) and len(other.args) == 1
              and self._null_literal(_uncast(other.args[0].value)) and compact):
            self._add(node, f"`{shown_call}` removes the nulls (and, being a set operation, the duplicates): "
                            "`array_compact` says what is meant",
                      "use `array_compact(...)` (Spark 3.4+); wrap it in `array_distinct` if the duplicates "
                      "must go too",
                      self._compact_fix(node, array))
            return
        else:
            return
        self._add(node, f"`{shown_call}` does not drop the nulls of `{shown(self.ctx, array)}`: {problem}",
                  f"use {instead} to drop null elements",
                  self._compact_fix(node, array) if compact else None)

    def _compact_fix(self, like, array):
        return ("Replace with `array_compact(...)`", callee_prefix(self.ctx, like, "array_compact"),
                f"array_compact({source(self.ctx, array)})", UNSAFE)

    def _null_literal(self, node) -> bool:
        return (isinstance(node, cst.Call) and self.ctx.semantic.is_function(node.func, {"lit"}) is not None
                and len(node.args) == 1 and isinstance(node.args[0].value, cst.Name)
                and node.args[0].value.value == "None")

    def _add(self, node, message, help, fix) -> None:
        self.found.append((node, message, help, fix))

    def leave_Module(self, node: cst.Module) -> None:
        fn = import_edit = None
        if any(plan is not None and plan[1] is None for _, _, _, plan in self.found):
            fn, import_edit = functions_alias(self.ctx, node)
        for call, message, help, plan in self.found:
            fix = None
            if plan is not None:
                title, prefix, body, applicability = plan
                if prefix is not None:
                    fix = Fix(title, (NodeEdit(call, prefix + body),), applicability)
                elif fn is not None:  # the file has no name for pyspark.sql.functions: `F`, imported
                    edits = (NodeEdit(call, f"{fn}.{body}"),) + ((import_edit,) if import_edit is not None else ())
                    fix = Fix(title, edits, applicability)
            self.ctx.report(self, call, message, help=help, fix=fix)


def _uncast(node):
    """``lit(None).cast("string")`` -> ``lit(None)``."""
    if isinstance(node, cst.Call) and method_name(node) == "cast" and isinstance(node.func, cst.Attribute):
        return node.func.value
    return node
