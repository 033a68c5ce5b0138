from linter.registry import Invalid, PlanRule, Valid

_PLAN = """== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=true
+- == Final Plan ==
   *(5) SortMergeJoin(skew=true) [o_custkey#36], [c_custkey#77], Inner
   :- *(3) Sort [o_custkey#36 ASC NULLS FIRST], false, 0
   :  +- AQEShuffleRead coalesced and skewed
   :     +- ShuffleQueryStage 0
   :        +- Exchange hashpartitioning(o_custkey#36, 200), ENSURE_REQUIREMENTS, [plan_id=54]
   :           +- *(1) FileScan parquet [o_custkey#36] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<o_custkey:int>
   +- *(4) Sort [c_custkey#77 ASC NULLS FIRST], false, 0
      +- AQEShuffleRead coalesced and skewed
         +- ShuffleQueryStage 1
            +- Exchange hashpartitioning(c_custkey#77, 200), ENSURE_REQUIREMENTS, [plan_id=66]
               +- *(2) FileScan parquet [c_custkey#77] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<c_custkey:int>
"""


class SkewJoinInPlan(PlanRule):
    """
    ## What it does
    Finds joins that adaptive query execution had to split because a
    partition was skewed: `SortMergeJoin(skew=true)` or
    `ShuffledHashJoin(skew=true)`, and `AQEShuffleRead ... skewed`. With
    measured metrics (event logs), the message says how many partitions were
    skewed and into how many pieces they were split.
    `AQEShuffleRead` is AQE's own operator, but `skewed` on it is AQE's
    measurement of the user's data: it is reported, once per join.

    ## Why is this bad?
    AQE's skew handling is a rescue, not a cure: it splits partitions over
    `spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes` (256 MiB) and
    five times the median, and duplicates the matching rows of the other side.
    The skew itself is a hot key (often a null, an empty string or a
    placeholder such as `"UNKNOWN"` standing in for a missing value) that also
    slows every other operation on that key, and that AQE cannot split in
    aggregations or in outer joins on the preserved side.

    ## Example
    ```text
    *(5) SortMergeJoin(skew=true) [o_custkey#36], [c_custkey#77], Inner
    :- *(3) Sort ...
    :  +- AQEShuffleRead coalesced and skewed
    ```

    ## Use instead
    ```text
    *(5) SortMergeJoin [o_custkey#36], [c_custkey#77], Inner
    :- *(3) Sort ...
    :  +- AQEShuffleRead coalesced
    ```
    Find the hot key (`df.groupBy(key).count().orderBy(F.desc("count"))`);
    filter out or null the placeholders before joining (sparkcheck's SPK301
    finds sentinel values in code); salt the key if the hot value is real data;
    broadcast the other side if it is small.

    ## Fix safety
    No fix: plans are read, not written.

    ## References
    - Spark SQL performance tuning guide, "Optimizing Skew Join".
    """

    code = "SPK610"
    name = "skew-join-in-plan"
    summary = "a join AQE split for skew: a hot key"
    default_reason = ("a skew-split join reveals a hot key that slows every other operation on it too, and "
                      "that AQE cannot split in aggregations; it comes from AQE's own measurement of the data")
    invalid = (Invalid(_PLAN, path="plan.txt"),)
    valid = (Valid(_PLAN.replace("(skew=true)", "").replace(" and skewed", ""), path="plan.txt"),)

    def start_plan(self, root) -> None:
        self.reported_reads = set()

    def visit_SortMergeJoin(self, node) -> None:
        if "skew=true" not in node.text:
            return
        reads = [n for child in node.children for n in child.walk() if n.name == "AQEShuffleRead"][:2]
        self.reported_reads.update(id(n) for n in reads)
        skewed = sum(r.metrics.get("number of skewed partitions", 0) for r in reads)
        splits = sum(r.metrics.get("number of skewed partition splits", 0) for r in reads)
        counts = f": {skewed:.0f} skewed partitions split into {splits:.0f}" if skewed else ""
        self.ctx.report(self, node, f"AQE split skewed partitions of this `{node.name}`{counts}; "
                        f"a hot join key is behind it", help="find the hot key; filter or null placeholder values "
                        "before joining, salt the key, or broadcast the other side")

    visit_ShuffledHashJoin = visit_SortMergeJoin

    def visit_AQEShuffleRead(self, node) -> None:
        if "skewed" in node.text and id(node) not in self.reported_reads:
            self.ctx.report(self, node, "AQE split skewed shuffle partitions here: a hot key",
                            help="find the hot key; filter or null placeholder values, or salt the key")
