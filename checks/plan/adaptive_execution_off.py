from checks.plan._spark import internal_plan_reason
from linter.registry import Invalid, PlanRule, Valid

_PLAN = """== Physical Plan ==
*(3) HashAggregate(keys=[o_custkey#36], functions=[sum(o_totalprice#38)])
+- Exchange hashpartitioning(o_custkey#36, 200), ENSURE_REQUIREMENTS, [plan_id=31]
   +- *(1) HashAggregate(keys=[o_custkey#36], functions=[partial_sum(o_totalprice#38)])
      +- *(1) FileScan parquet [o_custkey#36,o_totalprice#38] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<o_custkey:int,o_totalprice:double>
"""
# Plans AQE never applies to: streaming, and commands that only wrap a query.
_NOT_ADAPTIVE = ("StateStore", "MicroBatchScan", "StreamingRelation", "ContinuousScan", "EventTimeWatermark")


class AdaptiveExecutionOff(PlanRule):
    """
    ## What it does
    Finds a batch plan with a shuffle (`Exchange`) that is not wrapped in
    `AdaptiveSparkPlan`: adaptive query execution was switched off
    (`spark.sql.adaptive.enabled=false`, or Spark 3.0/3.1 where it was off by
    default). Streaming plans, where AQE does not apply, are left alone, and so
    are Delta's own jobs (reads of `_delta_log`, `OPTIMIZE`): the setting that
    switched AQE off is reported once, on the user's queries.

    ## Why is this bad?
    Without AQE, the number of shuffle partitions is fixed in advance
    (`spark.sql.shuffle.partitions`, 200): tiny tasks for small data, huge ones
    for big data. AQE coalesces small partitions, splits skewed ones, and turns
    sort-merge joins into broadcast joins when a side turns out to be small,
    from sizes measured at run time. It is on by default since Spark 3.2.

    ## Example
    ```text
    *(3) HashAggregate(keys=[o_custkey#36], functions=[sum(o_totalprice#38)])
    +- Exchange hashpartitioning(o_custkey#36, 200), ENSURE_REQUIREMENTS, [plan_id=31]
    ```

    ## Use instead
    ```text
    AdaptiveSparkPlan isFinalPlan=false
    +- HashAggregate(keys=[o_custkey#36], functions=[sum(o_totalprice#38)])
       +- Exchange hashpartitioning(o_custkey#36, 200), ENSURE_REQUIREMENTS, [plan_id=31]
    ```
    Set `spark.sql.adaptive.enabled=true` (sparkcheck's SPK8xx configuration
    rules find where it was switched off).

    ## Fix safety
    No fix: plans are read, not written.

    ## References
    - Spark SQL performance tuning guide, "Adaptive Query Execution".
    """

    code = "SPK609"
    name = "adaptive-execution-off"
    summary = "a batch plan with shuffles that runs without adaptive query execution"
    default_reason = ("without AQE the number of shuffle partitions is fixed in advance and skew and "
                      "small join sides go unhandled; streaming plans and Delta's own jobs are left alone")
    invalid = (Invalid(_PLAN, path="plan.txt"),)
    valid = (Valid("== Physical Plan ==\nAdaptiveSparkPlan isFinalPlan=false\n" +
                   "\n".join("+- " + line if i == 0 else "   " + line
                             for i, line in enumerate(_PLAN.splitlines()[1:])) + "\n", path="plan.txt"),)

    def start_plan(self, root) -> None:
        if root.name in ("AdaptiveSparkPlan", "ResultQueryStage") or root.section or internal_plan_reason(self):
            return
        nodes = list(root.walk())
        if any(n.name.startswith(_NOT_ADAPTIVE) or "Streaming" in n.name for n in nodes):
            return
        exchange = next((n for n in nodes if n.name == "Exchange"), None)
        if exchange is None or any(n.name == "AdaptiveSparkPlan" for n in nodes):
            return
        self.ctx.report(self, root, "this plan shuffles without adaptive query execution: partition counts are "
                        "fixed in advance and skew and small join sides are not handled at run time",
                        help="set spark.sql.adaptive.enabled=true (the default since Spark 3.2)")
