import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_int, method_name

_SETUP = (
    "from pyspark.sql import SparkSession, Window\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)
_POSITIONAL = frozenset({"element_at", "slice", "array_join", "get"})


class CollectListOrderAssumed(PythonRule):
    """
    ## What it does
    Finds the result of `F.collect_list(...)` used as an ordered list without
    a sort: indexed (`[0]`, `getItem(0)`), passed to `F.element_at`,
    `F.slice`, `F.get` or `F.array_join`, when it is neither wrapped in
    `F.array_sort` / `F.sort_array` nor computed over a window with an
    `orderBy`.

    ## Why is this bad?
    `collect_list` gathers values in the order rows arrive at the aggregating
    task, which depends on the shuffle: it changes between runs, between
    Spark versions and with the number of partitions. "The first item" is
    then a different item each time, and results are not reproducible.

    ## Example
    ```python
    first_item = F.collect_list("item").getItem(0)
    ```

    ## Use instead
    ```python
    first_item = F.sort_array(F.collect_list(F.struct("ts", "item")))[0]["item"]
    ```
    Or `F.min_by("item", "ts")` (Spark 3.3+).

    ## Fix safety
    No fix yet; `F.array_sort(F.collect_list(...))` will be offered as unsafe
    where sorting by the value itself is what was meant.

    ## References
    - Spark SQL built-in functions: `collect_list` ("The function is
      non-deterministic because the order of collected results depends on the
      order of the rows which may be non-deterministic after a shuffle").
    """

    code = "SPK310"
    name = "collect-list-order-assumed"
    summary = "the order of `collect_list` is relied on without a sort"
    default_reason = ("`collect_list` keeps the order rows arrive from the shuffle, so 'the first item' is "
                      "another item from run to run; a sort or an ordered window around it is not reported")
    triggers = ("collect_list", "array_agg")

    invalid = (
        Invalid(_SETUP + "first_item = F.collect_list('item').getItem(0)\n"),
        Invalid(_SETUP + "first_item = F.collect_list('item')[0]\n"),
        Invalid(_SETUP + "top3 = F.slice(F.collect_list('item'), 1, 3)\n"),
        Invalid(_SETUP + "path = F.array_join(F.collect_list('page'), ' > ')\n"),
    )
    valid = (
        Valid(_SETUP + "first = F.sort_array(F.collect_list(F.struct('ts', 'item')))[0]['item']\n"),
        Valid(_SETUP + "items = F.collect_list('item')\n"),
        Valid(_SETUP + "w = Window.partitionBy('c').orderBy('ts')\npath = F.array_join(F.collect_list('page').over(w), ' > ')\n"),
        Valid(_SETUP + "top3 = F.slice(F.array_sort(F.collect_list('item')), 1, 3)\n"),
    )

    def _is_collect_list(self, node) -> bool:
        return isinstance(node, cst.Call) and self.ctx.semantic.is_function(node.func, {"collect_list", "array_agg"}) is not None

    def _report(self, node, how: str) -> None:
        self.ctx.report(
            self,
            node,
            f"{how} relies on the order of `collect_list`, which changes from run to run after a shuffle",
            help="sort it first (`F.array_sort`, or `F.sort_array(F.collect_list(F.struct(order_key, value)))`), "
            "or use `F.min_by` / `F.max_by`",
        )

    def visit_Call(self, node: cst.Call) -> None:
        semantic = self.ctx.semantic
        name = semantic.is_function(node.func, _POSITIONAL)
        if name is not None and node.args and self._is_collect_list(node.args[0].value):
            self._report(node, f"`F.{name}`")
            return
        if method_name(node) == "getItem" and self._is_collect_list(node.func.value):
            self._report(node, "`getItem`")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self._is_collect_list(node.value) and len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index) and literal_int(index.value) is not None:
                self._report(node, "indexing")
