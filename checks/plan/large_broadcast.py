from checks.plan._spark import in_spark_subquery
from linter.registry import Invalid, Option, PlanRule, Valid
from linter.sources.plan import MIB, format_size

_PLAN = """== Physical Plan ==
*(2) BroadcastHashJoin [o_custkey#36], [c_custkey#77], Inner, BuildRight, false
:- *(2) FileScan parquet [o_custkey#36] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<o_custkey:int>
+- BroadcastQueryStage 1, Statistics(sizeInBytes=3.2 GiB, rowCount=1.50E+8)
   +- BroadcastExchange HashedRelationBroadcastMode(List(cast(input[0, int, false] as bigint)),false), [plan_id=120]
      +- *(1) FileScan parquet [c_custkey#77] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<c_custkey:int>
"""


class LargeBroadcast(PlanRule):
    """
    ## What it does
    Finds a `BroadcastExchange` that carries more than 1 GiB: measured (its
    `data size` in an event log or a History Server) or written as the
    statistics of the AQE broadcast stage above it.

    ## Why is this bad?
    A broadcast is collected on the driver, built into a hash table there and
    sent to every executor, where it is held in memory for the whole join.
    Over a gigabyte this is the usual cause of driver `OutOfMemoryError`,
    long pauses before a stage starts and broadcast timeouts
    (`spark.sql.broadcastTimeout`); Spark refuses broadcasts over 8 GiB.
    A broadcast hint or a raised `autoBroadcastJoinThreshold` is the usual way
    such a plan comes about.

    A broadcast under dynamic partition pruning's `SubqueryBroadcast` is the
    join's own broadcast reused to prune partitions, not a second one: it is
    not reported again. A `ReusedExchange` of a broadcast is not a new one
    either. RAPIDS' `GpuBroadcastExchange` is not read.

    ## Example
    ```text
    +- BroadcastQueryStage 1, Statistics(sizeInBytes=3.2 GiB, rowCount=1.50E+8)
       +- BroadcastExchange HashedRelationBroadcastMode(...)
    ```

    ## Use instead
    ```text
    +- *(5) SortMergeJoin [o_custkey#36], [c_custkey#77], Inner
    ```
    Let the join shuffle (drop the hint, keep the threshold near its default of
    10 MiB), or shrink the broadcast side first (select only the needed columns,
    filter before joining).

    ## Fix safety
    No fix: plans are read, not written.

    ## Options
    - `max-mib` (default 1024.0): the largest broadcast not reported.

    ## References
    - Spark SQL performance tuning guide, `spark.sql.autoBroadcastJoinThreshold`,
      `spark.sql.broadcastTimeout`.
    """

    code = "SPK605"
    name = "large-broadcast"
    summary = "a broadcast over 1 GiB"
    default_reason = ("a broadcast over 1 GiB is the usual cause of driver OutOfMemoryError and broadcast "
                      "timeouts; its size is measured or written in the plan, and reuses are not counted again")
    severity = "error"
    options = {"max-mib": Option(1024.0, "The largest broadcast (MiB) not reported.")}
    invalid = (Invalid(_PLAN, path="plan.txt"),)
    valid = (Valid(_PLAN.replace("3.2 GiB", "3.2 MiB"), path="plan.txt"),)

    def visit_BroadcastExchange(self, node) -> None:
        if in_spark_subquery(node):
            return
        size = node.metrics.get("data size")
        source = "measured"
        if size is None and node.parent is not None and node.parent.name == "BroadcastQueryStage":
            size, source = node.parent.size, "AQE's statistics"
        if size is None or size <= self.opts["max-mib"] * MIB:
            return
        self.ctx.report(self, node, f"`BroadcastExchange` sends {format_size(size)} ({source}) to the driver and "
                        f"every executor", help="let the join shuffle, or shrink the broadcast side "
                        "(fewer columns, filter first); check broadcast hints and autoBroadcastJoinThreshold")
