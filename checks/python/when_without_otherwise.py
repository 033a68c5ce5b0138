import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_type, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)
# Column methods the chain may pass through before it becomes a column of the result.
_THROUGH = frozenset({"alias", "name", "cast", "astype"})


class WhenWithoutOtherwise(PythonRule):
    """
    ## What it does
    Finds a `F.when(...)` chain without `.otherwise(...)` that becomes a
    column of its own (`withColumn(name, F.when(...))`,
    `withColumns({name: F.when(...)})` or `select(F.when(...).alias(name))`) when every branch gives a literal
    label or flag (`"high"`, `1`, `True`).

    Chains inside another expression are not reported (`F.sum(F.when(c, 1))`,
    `F.count(F.when(...))`, `F.coalesce(F.when(...), ...)`,
    `F.collect_list(F.when(...))`), nor chains whose branches are columns
    (`F.when(valid, F.col("x"))` nulls out invalid values on purpose).
    Preview: a null for "none of the above" may be exactly what is meant;
    the rule asks for it to be said.

    ## Why is this bad?
    Rows that match no branch get null. For a flag, null is not `False`:
    `filter(~F.col("is_vip"))` drops those rows instead of keeping them, and
    counts of `True`/`False` do not add up to the rows. For a label, the
    unmatched rows silently fall out of every `groupBy` total that filters on
    the labels. Writing `.otherwise(...)` makes the remaining case explicit,
    even when it is `F.lit(None)`.

    ## Example
    ```python
    flagged = orders.withColumn("is_large", F.when(F.col("amount") > 1000, True))
    ```

    ## Use instead
    ```python
    flagged = orders.withColumn("is_large", F.when(F.col("amount") > 1000, True).otherwise(False))
    ```

    ## Fix safety
    No fix: the value for the remaining rows is the user's choice.

    ## References
    - PySpark API: `pyspark.sql.functions.when` ("If `Column.otherwise()` is not
      invoked, None is returned for unmatched conditions").
    """

    code = "SPK316"
    name = "when-without-otherwise"
    summary = "a `F.when` chain of literal labels or flags without `.otherwise`: unmatched rows get null"
    preview = True
    triggers = ("when",)
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "flagged = orders.withColumn('is_large', F.when(F.col('amount') > 1000, True))\n"),
        Invalid(_SETUP + "sized = orders.withColumn('size', F.when(F.col('amount') > 1000, 'large')"
                ".when(F.col('amount') > 100, 'medium'))\n"),
        Invalid(_SETUP + "flags = orders.withColumns({'big': F.when(F.col('amount') > 1000, 1), 'n': F.lit(1)})\n"),
        Invalid(_SETUP + "sized = orders.select('id', F.when(F.col('qty') > 10, F.lit('bulk')).alias('kind'))\n"),
    )
    valid = (
        Valid(_SETUP + "flagged = orders.withColumn('is_large', F.when(F.col('amount') > 1000, True).otherwise(False))\n"),
        Valid(_SETUP + "clean = orders.withColumn('amount', F.when(F.col('amount') > 0, F.col('amount')))\n"),
        Valid(_SETUP + "n = orders.agg(F.sum(F.when(F.col('amount') > 1000, 1)).alias('large'))\n"),
        Valid(_SETUP + "sized = orders.withColumn('size', F.when(F.col('amount') > 1000, 'large')"
              ".otherwise(F.lit(None)))\n"),
        Valid(_SETUP + "c = orders.select(F.count(F.when(F.col('late'), True)).alias('late'))\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        semantic = self.ctx.semantic
        if not semantic.is_function(node.func, {"when"}):
            return
        values = [self._value(node)]
        chain = node
        while True:
            parent = self.ctx.parent_of(chain)
            if not isinstance(parent, cst.Attribute) or parent.value is not chain:
                break
            call = self.ctx.parent_of(parent)
            if not isinstance(call, cst.Call) or call.func is not parent:
                break
            if parent.attr.value == "otherwise":
                return
            if parent.attr.value != "when":
                break
            values.append(self._value(call))
            chain = call
        if not all(v is not None and v != "None" for v in values):
            return
        if not self._own_column(chain):
            return
        if all(v == "bool" for v in values):
            what = "rows where no condition holds get null, not `False`"
        else:
            what = "rows that match no branch get null rather than a label"
        self.ctx.report(
            self,
            chain,
            f"`{self.ctx.code_for(node.func)}` chain without `.otherwise(...)`: {what}",
            help="end the chain with `.otherwise(...)` (`.otherwise(False)`, `.otherwise('other')`), or "
            "`.otherwise(F.lit(None))` to say null is meant",
            start=node.func.attr if isinstance(node.func, cst.Attribute) else None,
        )

    def _value(self, call: cst.Call):
        """The Python type of a branch's literal value (through `F.lit`), None when it is not a literal."""
        args = positional_args(call)
        if len(args) < 2:
            return None
        value = args[1]
        if isinstance(value, cst.Call) and self.ctx.semantic.is_function(value.func, {"lit"}):
            inner = positional_args(value)
            value = inner[0] if inner else None
        return literal_type(value) if value is not None else None

    def _own_column(self, chain) -> bool:
        """The chain (through alias/cast) is a `withColumn` value or a `select` item."""
        current = chain
        while True:
            parent = self.ctx.parent_of(current)
            if isinstance(parent, cst.Attribute) and parent.value is current and parent.attr.value in _THROUGH:
                call = self.ctx.parent_of(parent)
                if not isinstance(call, cst.Call):
                    return False
                current = call
                continue
            break
        arg = self.ctx.parent_of(current)
        if isinstance(arg, cst.DictElement) and arg.value is current:
            mapping = self.ctx.parent_of(arg)
            arg = self.ctx.parent_of(mapping)
            call = self.ctx.parent_of(arg) if isinstance(arg, cst.Arg) else None
            return isinstance(call, cst.Call) and method_name(call) == "withColumns" \
                and self.ctx.semantic.is_dataframe(call.func.value)
        if not isinstance(arg, cst.Arg):
            return False
        call = self.ctx.parent_of(arg)
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute) \
                or not self.ctx.semantic.is_dataframe(call.func.value):
            return False
        method = method_name(call)
        if method == "withColumn":
            args = positional_args(call)
            return len(args) == 2 and args[1] is current
        return method == "select"
