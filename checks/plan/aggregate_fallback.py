import re

from checks.plan._plan import clean
from checks.plan._spark import bloom_filter_aggregate, internal_plan_reason
from linter.registry import Invalid, PlanRule, Valid

_PLAN = """== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- ObjectHashAggregate(keys=[o_custkey#36], functions=[collect_list(o_orderkey#35, 0, 0)])
   +- Exchange hashpartitioning(o_custkey#36, 200), ENSURE_REQUIREMENTS, [plan_id=21]
      +- ObjectHashAggregate(keys=[o_custkey#36], functions=[partial_collect_list(o_orderkey#35, 0, 0)])
         +- FileScan parquet [o_orderkey#35,o_custkey#36] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<o_orderkey:int,o_custkey:int>
"""

_BLOOM = """== Physical Plan ==
Subquery subquery#93, [id=#251]
+- ObjectHashAggregate(keys=[], functions=[bloom_filter_agg(xxhash64(i_item_sk#45, 42), 17102, 136816, 0, 0)])
   +- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=249]
      +- ObjectHashAggregate(keys=[], functions=[partial_bloom_filter_agg(xxhash64(i_item_sk#45, 42), 17102, 136816, 0, 0)])
         +- FileScan parquet [i_item_sk#45] Batched: true, DataFilters: [isnotnull(i_item_sk#45)], Format: Parquet, PartitionFilters: [], PushedFilters: [IsNotNull(i_item_sk)], ReadSchema: struct<i_item_sk:int>
"""


def _functions(node) -> str:
    text = node.attrs.get("Functions") or node.text
    m = re.search(r"functions=\[(.*)\]", text) or re.search(r"\[(.*)\]", text)
    names = sorted(set(re.findall(r"\b([a-z_]+)\(", m.group(1) if m else "")) - {"partial", "cast"})
    return ", ".join(n.replace("partial_", "") for n in names)


class AggregateFallback(PlanRule):
    """
    ## What it does
    Finds aggregations that cannot use Spark's fast hash aggregation: an
    `ObjectHashAggregate` (aggregates kept as JVM objects: `collect_list`,
    `collect_set`, `percentile`, typed aggregators) and a `SortAggregate` that
    needs a `Sort` of its input added for it. Each aggregation is reported
    once, at its partial (map-side) step.

    Spark's own aggregations are skipped: `bloom_filter_agg`, the
    `ObjectHashAggregate` that builds a runtime bloom filter
    (`spark.sql.optimizer.runtime.bloomFilter.enabled`) in a scalar subquery,
    is one global aggregate whose buffer is the filter's bit array, not a
    grouping of the user's; Delta's internal jobs (reads of `_delta_log`) are
    skipped too. Photon's and RAPIDS' aggregates (`PhotonGroupingAgg`,
    `GpuHashAggregate`) are not read: they have no object-hash fallback.

    ## Why is this bad?
    `HashAggregate` keeps its buffers in compact binary rows, in generated
    code. `ObjectHashAggregate` keeps Java objects per key and, after
    `spark.sql.objectHashAggregate.sortBased.fallbackThreshold` (128) keys in a
    task, falls back to sorting; `SortAggregate` sorts the whole input by the
    grouping keys first. Both are far slower and heavier on memory and GC for
    large groups, and `collect_list` builds arrays that grow with the group.

    ## Example
    ```text
    +- ObjectHashAggregate(keys=[o_custkey#36], functions=[partial_collect_list(o_orderkey#35, 0, 0)])
    ```

    ## Use instead
    ```text
    +- HashAggregate(keys=[o_custkey#36], functions=[partial_count(o_orderkey#35)])
    ```
    Aggregate to a number where one is wanted (`count`, `sum`, `max_by`); if the
    list is the result, keep it, but bound the groups (sparkcheck's SPK406 and
    SPK511 find `collect_list` in the code).

    ## Fix safety
    No fix: plans are read, not written.

    ## References
    - Spark configuration, `spark.sql.objectHashAggregate.sortBased.fallbackThreshold`.
    """

    code = "SPK607"
    name = "aggregate-fallback"
    summary = "an object-hash or sort-based aggregation instead of hash aggregation"
    default_reason = ("object-hash and sort-based aggregation are far slower and heavier on memory and GC "
                      "than hash aggregation for large groups; Spark's own bloom-filter aggregate is skipped")
    invalid = (Invalid(_PLAN, path="plan.txt"),)
    valid = (Valid(_PLAN.replace("ObjectHashAggregate", "HashAggregate").replace("collect_list", "count"),
                   path="plan.txt"),
             # TPC-DS q72 (NDS): the runtime bloom filter Spark builds for a join
             Valid(_BLOOM, path="plan.txt"))

    def _partial(self, node) -> bool:
        """The map-side step: no aggregation of the same kind below it (the final one has its partial below)."""
        return not any(below.name == node.name for below in node.walk() if below is not node)

    def visit_ObjectHashAggregate(self, node) -> None:
        if not self._partial(node) or bloom_filter_aggregate(node) or internal_plan_reason(self):
            return
        self.ctx.report(self, node, f"`ObjectHashAggregate` ({_functions(node) or 'object aggregates'}) keeps JVM "
                        f"objects per key and falls back to sorting after 128 keys per task",
                        help="aggregate to a number where one is wanted; bound the groups of collect_list")

    def visit_SortAggregate(self, node) -> None:
        if not node.children or node.children[0].name != "Sort" or not self._partial(node) or \
                internal_plan_reason(self):
            return
        self.ctx.report(self, node, f"`SortAggregate` ({_functions(node) or 'aggregates'}) sorts its whole input "
                        f"by `{clean(node.children[0].args.split(']')[0].strip('['))}` because hash aggregation "
                        f"cannot hold these aggregates", help="use aggregates with fixed-size buffers")
