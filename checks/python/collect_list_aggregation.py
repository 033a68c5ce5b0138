import libcst as cst

from checks.python._driver import for_a_driver_frame, shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import DATAFRAME, GROUPED, literal_string, method_name

_SETUP = """\
from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
orders = spark.table("orders")
"""
_FUNCTIONS = frozenset({"collect_list", "collect_set", "array_agg"})
# Shared with the SQL counterpart, SPK511.
HOT_KEY = "a hot key makes one task hold all of its rows"
ADVICE = "aggregate what you need (count, sum, approx_count_distinct, max_by) or keep the rows as rows"


class CollectListAggregation(PythonRule):
    """
    ## What it does
    Finds `collect_list`, `collect_set` and `array_agg` aggregations in the
    DataFrame API: `F.collect_list(...)`, the functions imported from
    `pyspark.sql.functions` (also through `import *`), and the dictionary form
    `groupBy(...).agg({"item": "collect_list"})`. Only names that resolve to
    `pyspark.sql.functions` are reported. SQL text (`F.expr`, `spark.sql`) is
    read by the SQL rules. Arrays of a frame the driver built
    (`spark.createDataFrame(pdf)`, literal rows) are not reported: its rows
    fit on the driver.

    On by default: an array of the whole DataFrame (`df.agg(F.collect_list(...))`,
    `groupBy().agg(...)`, `select(F.collect_set(...))`: every row in one task)
    and an array per window row (`.over(w)`). An array per group only with
    `--preview`: it is as safe as the groups are small, and the judged samples
    of real code found it the output needed (a user's set of items for
    `RankingMetrics`) more often than a hot key.

    ## Why is this bad?
    These aggregates build one array per group in executor memory. Spark cannot
    use its fast hash aggregate for them (the plan shows `ObjectHashAggregate`,
    which falls back to sort-based aggregation when its memory runs out), and
    a hot key (one customer with ten million orders) makes a single task build a
    ten-million-element array: long stages, spill and executor OOMs. The element
    order of `collect_list` is not deterministic after a shuffle either. Over a
    window (`.over(w)`) an array is built for every row.

    ## Example
    ```python
    items = orders.groupBy("customer_id").agg(F.collect_list("item_id").alias("items"))
    ```

    ## Use instead
    ```python
    items = orders.groupBy("customer_id").agg(F.count("item_id").alias("item_count"))
    ```
    Keep the rows as rows (join or filter on them later), aggregate what you
    need (`count`, `sum`, `approx_count_distinct`, `max_by`), or, when an array
    really is the output, make its order explicit (`F.array_sort`) and keep its
    groups small.

    ## Fix safety
    No fix: the replacement depends on what the array is used for.

    ## References
    - Spark SQL built-in functions: `collect_list` ("the function is
      non-deterministic because the order of collected results depends on the
      order of the rows which may be non-deterministic after a shuffle").
    """

    code = "SPK406"
    name = "collect-list-aggregation"
    summary = "`collect_list` / `collect_set` builds an in-memory array per group"
    default_reason = ("an array of the whole DataFrame is built by one task, a window builds one per row: spills "
                      "and executor OOMs; arrays per group, as safe as the groups are small, stay in preview")
    triggers = ("collect_list", "collect_set", "array_agg")
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + 'items = orders.groupBy("customer_id").agg(F.collect_list("item_id"))\n'),
        Invalid(_SETUP + 'everything = orders.agg(F.collect_set("country"), F.collect_list("country"))\n', count=2),
        Invalid(_SETUP + 'tags = orders.groupBy("id").agg(F.collect_set("tag").alias("tags"))\n'),
        Invalid(
            "from pyspark.sql.functions import collect_list, col\n"
            "def items(df):\n    return df.groupBy('k').agg(collect_list(col('v')))\n"
        ),
        Invalid("from pyspark.sql.functions import *\nagg = collect_set('x')\n"),
        Invalid(_SETUP + 'items = orders.groupBy("customer_id").agg({"item_id": "collect_list"})\n'),
        Invalid(
            _SETUP
            + 'w = Window.partitionBy("customer_id").orderBy("ts")\n'
            + 'hist = orders.withColumn("history", F.collect_list("item_id").over(w))\n'
        ),
    )
    valid = (
        Valid(_SETUP + 'n = orders.groupBy("customer_id").agg(F.count("item_id"))\n'),
        Valid("def collect_list(xs):\n    return list(xs)\n\ncollect_list([1, 2])\n"),
        Valid(_SETUP + "import pandas as pd\nfrom pyspark.sql import Window\n"
              "w = Window.partitionBy('k').orderBy('ts')\n"
              "hist = spark.createDataFrame(pd.read_csv('returns.csv')).select(F.collect_list('r').over(w))\n"),
        Valid("import mylib\nmylib.collect_list('x')\n"),
        Valid(_SETUP + 'totals = orders.groupBy("customer_id").agg({"amount": "sum"})\n'),
    )

    def visit_Call(self, node: cst.Call) -> None:
        semantic = self.ctx.semantic
        name = semantic.is_function(node.func, _FUNCTIONS)
        if name is not None:
            over = self._over_window(node)
            whole = not over and self._whole_frame(node)
            if not over and not whole and not self.ctx.settings.preview:
                return  # per group: as safe as the groups are small, which the file cannot show (preview)
            if for_a_driver_frame(self.ctx, node):
                return  # `spark.createDataFrame(pdf).select(F.collect_list(...).over(w))`: rows the driver holds
            if whole:
                of = "every distinct value of the column" if name == "collect_set" else "every row"
                message = f"`{shown(self.ctx, node)}` builds one in-memory array of {of}, in one task"
            else:
                where = "for every row of a window" if over else "per group"
                message = f"`{shown(self.ctx, node)}` builds an in-memory array {where}; {HOT_KEY}"
            self.ctx.report(self, node, message, help=ADVICE)
            return
        if method_name(node) != "agg" or len(node.args) != 1 or not isinstance(node.args[0].value, cst.Dict):
            return
        receiver = semantic.infer(node.func.value)
        if receiver is None or receiver.kind not in (DATAFRAME, GROUPED):
            return
        if receiver.kind == GROUPED and receiver.bound != 1 and not self.ctx.settings.preview:
            return
        for element in node.args[0].value.elements:
            if not isinstance(element, cst.DictElement):
                continue
            func = literal_string(element.value)
            if func is not None and func.lower() in _FUNCTIONS:
                column = literal_string(element.key) or shown(self.ctx, element.key)
                self.ctx.report(
                    self,
                    element.value,
                    f'`"{column}": "{func}"` builds an in-memory array per group; {HOT_KEY}',
                    help=ADVICE,
                )

    def _whole_frame(self, node: cst.Call) -> bool:
        """Aggregated over the whole DataFrame: in `df.agg(...)`, `groupBy().agg(...)` or `df.select(...)`."""
        path = self.ctx.ancestors
        for i in range(len(path) - 1, 0, -1):
            current = path[i]
            if isinstance(current, cst.Call) and current is not node and isinstance(current.func, cst.Attribute):
                method = current.func.attr.value
                if method in ("agg", "select"):
                    receiver = self.ctx.semantic.infer(current.func.value)
                    if receiver is None:
                        return False
                    return receiver.kind == DATAFRAME or (receiver.kind == GROUPED and receiver.bound == 1)
                if method == "over":
                    return False
        return False

    def _over_window(self, node: cst.Call) -> bool:
        parent = self.ctx.parent_of(node)
        if not isinstance(parent, cst.Attribute) or parent.attr.value != "over":
            return False
        return True
