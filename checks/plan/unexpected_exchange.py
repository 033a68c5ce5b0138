import re

from checks.plan._plan import clean
from checks.plan._spark import in_spark_subquery, internal_plan_reason
from linter.registry import Invalid, PlanRule, Valid

_PLAN = """== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- HashAggregate(keys=[o_custkey#36], functions=[sum(o_totalprice#38)])
   +- Exchange hashpartitioning(o_custkey#36, 200), ENSURE_REQUIREMENTS, [plan_id=52]
      +- HashAggregate(keys=[o_custkey#36], functions=[partial_sum(o_totalprice#38)])
         +- Exchange hashpartitioning(o_orderdate#39, 64), REPARTITION_BY_COL, [plan_id=48]
            +- FileScan parquet [o_custkey#36,o_totalprice#38,o_orderdate#39] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<o_custkey:int,o_totalprice:double,o_orderdate:date>
"""
# Operators that keep the rows where they are: a shuffle below them still decides the partitioning above.
_NARROW = {"Project", "Filter", "Sort", "HashAggregate", "ObjectHashAggregate", "SortAggregate",
           "AQEShuffleRead", "CustomShuffleReader", "ShuffleQueryStage", "InputAdapter", "ColumnarToRow"}
# AQE and columnar wrappers: nothing happens to the rows between two exchanges separated only by these.
_WRAPPERS = {"AQEShuffleRead", "CustomShuffleReader", "ShuffleQueryStage", "InputAdapter", "ColumnarToRow"}
# Into one partition, but only a few rows per task: partial aggregates, or `limit(n)`'s local limits.
_CHEAP_INTO_ONE = ("HashAggregate", "ObjectHashAggregate", "SortAggregate", "LocalLimit")
_USER = re.compile(r"\b(REPARTITION\w*|REBALANCE\w*)\b")


def _partitioning(node) -> str:
    text = node.attrs.get("Arguments") or node.text[len(node.name):]
    return clean(text.split(", ENSURE_REQUIREMENTS")[0].split(", REPARTITION")[0].split(", REBALANCE")[0]).strip()


class UnexpectedExchange(PlanRule):
    """
    ## What it does
    Finds shuffles (`Exchange`) a plan should not have: a user's
    `repartition` (`REPARTITION_BY_COL`, `REPARTITION_BY_NUM`) that the planner
    shuffles again on other keys before anything uses its partitioning, two
    shuffles in a row, and exchanges into a single partition
    (`SinglePartition`, `roundrobinpartitioning(1)`) other than the cheap ones
    that gather partial aggregates for a global aggregation or the first rows
    of each partition for a `limit`.

    Spark's own shuffles are skipped: the `SinglePartition` gather of a
    runtime bloom filter's subquery (`bloom_filter_agg`), the exchanges under
    dynamic partition pruning's `SubqueryBroadcast`, and whole jobs of Delta's
    (reads of `_delta_log`). A `ReusedExchange` is a leaf that points at a
    shuffle already judged, and AQE's `AQEShuffleRead` and query stages are
    looked through; a Databricks `display()` or `%sql` result is a limit
    (`CollectLimit`), whose gather of the first rows is a cheap one. Photon's
    and RAPIDS' exchanges (`PhotonShuffleExchangeSink`, `GpuShuffleExchange`)
    are not read.

    ## Why is this bad?
    Each `Exchange` writes every row to disk and reads it over the network. A
    `repartition` followed by a join or aggregation on other keys pays for a
    shuffle whose result is thrown away. A single-partition exchange sends all
    rows to one task: a window without `partitionBy`, `repartition(1)` or
    `coalesce(1)` before a write, a global sort gathered into one file.

    ## Example
    ```text
    +- Exchange hashpartitioning(o_custkey#36, 200), ENSURE_REQUIREMENTS
       +- HashAggregate(keys=[o_custkey#36], functions=[partial_sum(o_totalprice#38)])
          +- Exchange hashpartitioning(o_orderdate#39, 64), REPARTITION_BY_COL
    ```

    ## Use instead
    ```text
    +- Exchange hashpartitioning(o_custkey#36, 200), ENSURE_REQUIREMENTS
       +- HashAggregate(keys=[o_custkey#36], functions=[partial_sum(o_totalprice#38)])
    ```
    Drop the `repartition`, or repartition by the keys the next join or
    aggregation uses; give windows a `partitionBy`.

    ## Fix safety
    No fix: plans are read, not written.

    ## References
    - Spark SQL performance tuning guide, "Coalesce Hints" and "Adaptive Query Execution".
    - DataFlint, "Repartition before a shuffle" and "Single partition" alerts.
    """

    code = "SPK606"
    name = "unexpected-exchange"
    summary = "a shuffle undone by the next one, or into a single partition"
    default_reason = ("an exchange writes every row to disk and the network: one the next shuffle undoes is "
                      "paid for nothing, one into a single partition feeds one task; Spark's own are skipped")
    invalid = (Invalid(_PLAN, path="plan.txt"),
               Invalid(_PLAN.replace("hashpartitioning(o_orderdate#39, 64), REPARTITION_BY_COL",
                                     "SinglePartition, REPARTITION_BY_NUM"), count=2, path="plan.txt"))
    valid = (Valid(_PLAN.replace("hashpartitioning(o_orderdate#39, 64), REPARTITION_BY_COL",
                                 "hashpartitioning(o_custkey#36, 64), REPARTITION_BY_COL")
                   .replace("+- Exchange hashpartitioning(o_custkey#36, 200), ENSURE_REQUIREMENTS, [plan_id=52]\n      ", "")
                   , path="plan.txt"),)

    def visit_Exchange(self, node) -> None:
        if in_spark_subquery(node) or internal_plan_reason(self):
            return
        text = node.attrs.get("Arguments") or node.text
        if re.search(r"\bSinglePartition\b|roundrobinpartitioning\(1\)", text, re.I):
            below = node.children[0] if node.children else None
            while below is not None and below.name in ("Project", "InputAdapter", "ColumnarToRow") and below.children:
                below = below.children[0]
            if below is None or below.name not in _CHEAP_INTO_ONE:
                why = "asked for by a repartition(1)" if _USER.search(text) else \
                    "a window without partitionBy, a global sort gathered, or a global limit"
                self.ctx.report(self, node, f"`Exchange {_partitioning(node)}` moves every row into one partition "
                                f"and one task ({why})",
                                help="partition windows, and write with several tasks; "
                                     "gather into one partition only small results")
                return
        if _USER.search(text):
            return
        below = _below(node, _NARROW)
        if below is not None and _USER.search(below.attrs.get("Arguments") or below.text):
            self.ctx.report(self, node, f"the user's repartition (`{_partitioning(below)}`) is shuffled again on "
                            f"`{_partitioning(node)}` before anything uses it",
                            help="drop the repartition, or repartition by the keys the next join or "
                                 "aggregation uses")
            return
        below = _below(node, _WRAPPERS)
        if below is not None:
            self.ctx.report(self, node, f"two shuffles in a row: `{_partitioning(below)}` then `{_partitioning(node)}`",
                            help="the first shuffle is wasted; remove what asks for it")


def _below(node, through):
    """The Exchange right under `node`, past single-child operators in `through`; None if there is none."""
    below = node.children[0] if node.children else None
    while below is not None and below.name in through and len(below.children) == 1:
        below = below.children[0]
    return below if below is not None and below.name == "Exchange" else None
