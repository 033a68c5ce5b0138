import re

from checks.plan._spark import internal_plan_reason
from linter.registry import Invalid, PlanRule, Valid

_PLAN = """== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- CartesianProduct
   :- FileScan parquet [o_orderkey#35] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<o_orderkey:int>
   +- FileScan csv [c_custkey#77] Batched: false, DataFilters: [], Format: CSV, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<c_custkey:int>
"""

# TPC-DS q28's shape: two global aggregates, one row each
_Q28 = """== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- BroadcastNestedLoopJoin BuildRight, Inner
   :- HashAggregate(keys=[], functions=[avg(ss_list_price#12)])
   :  +- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=40]
   :     +- HashAggregate(keys=[], functions=[partial_avg(ss_list_price#12)])
   :        +- FileScan parquet [ss_list_price#12] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<ss_list_price:double>
   +- BroadcastExchange IdentityBroadcastMode, [plan_id=52]
      +- HashAggregate(keys=[], functions=[avg(ss_list_price#40)])
         +- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=48]
            +- HashAggregate(keys=[], functions=[partial_avg(ss_list_price#40)])
               +- FileScan parquet [ss_list_price#40] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<ss_list_price:double>
"""


class CartesianInPlan(PlanRule):
    """
    ## What it does
    Finds `CartesianProduct` and `BroadcastNestedLoopJoin` in a physical plan
    (and RAPIDS' `GpuCartesianProduct` and `GpuBroadcastNestedLoopJoin`: the
    query's shape is the user's whatever engine runs it). A join with a side
    that is one row, a global aggregate (`HashAggregate(keys=[], ...)`, as in
    TPC-DS q28, q61, q88 and q90, which pair single-row sums), pairs nothing
    and is not reported; nor are Delta's own jobs (reads of `_delta_log`).

    ## Why is this bad?
    Both compare every row of one side with every row of the other: the number
    of pairs is the product of the sides. They appear for cross joins, for
    joins without an equality condition, and for `NOT IN` subqueries, and they
    are the slowest joins Spark has.

    ## Example
    ```text
    +- CartesianProduct
    ```

    ## Use instead
    ```text
    +- SortMergeJoin [o_custkey#36], [c_custkey#77], Inner
    ```
    Join on an equality of keys (sparkcheck's SPK403 and SPK505 find the code).

    ## Fix safety
    No fix: plans are read, not written.

    ## References
    - Spark SQL guide, "Join Strategy Hints".
    """

    code = "SPK602"
    name = "cartesian-in-plan"
    summary = "a cartesian product or nested-loop join in a physical plan"
    default_reason = ("a cartesian product or nested-loop join compares every row with every row of "
                      "the other side; joins with a one-row side and Delta's own jobs are not reported")
    invalid = (Invalid(_PLAN, path="plan.txt"),)
    valid = (Valid(_PLAN.replace("CartesianProduct", "SortMergeJoin [o_orderkey#35], [c_custkey#77], Inner"),
                   path="plan.txt"),
             Valid(_Q28, path="plan.txt"))

    def _report(self, node) -> None:
        if any(_one_row(child) for child in node.children) or internal_plan_reason(self):
            return
        self.ctx.report(self, node, f"`{node.name}` pairs every row of one side with every row of the other",
                        help="join on an equality of keys; a NOT IN subquery becomes NOT EXISTS")

    visit_CartesianProduct = visit_BroadcastNestedLoopJoin = _report
    visit_GpuCartesianProduct = visit_GpuBroadcastNestedLoopJoin = _report


# Between a join and what feeds one side without changing its row count.
_SAME_ROWS = {"Project", "BroadcastExchange", "BroadcastQueryStage", "ShuffleQueryStage", "Exchange", "AQEShuffleRead",
              "InputAdapter", "WholeStageCodegen", "ColumnarToRow", "ReusedExchange", "Sort"}


def _one_row(side) -> bool:
    """A side that is one row: a global aggregate (no grouping keys), a projection of scalar subqueries over
    Spark's one-row relation (what the optimizer makes of a cross join with a one-row aggregate, TPC-DS q23),
    or a product of such sides; through projections and exchanges."""
    node = side
    while node is not None:
        if node.name in ("HashAggregate", "ObjectHashAggregate", "SortAggregate"):
            keys = node.attrs.get("Keys")
            if keys is None:
                m = re.search(r"keys=\[(.*?)\]", node.text)
                keys = m.group(1) if m else None
            return keys is not None and keys.strip().strip("[]").strip() == "" and not _partial(node)
        if node.name in ("CartesianProduct", "BroadcastNestedLoopJoin") and len(node.children) == 2:
            return all(_one_row(child) for child in node.children)
        if "OneRowRelation" in node.text or re.search(r"\browCount=(?:1|1\.0+E\+?0+)\)", node.text):
            return True  # Spark's one-row relation, or a query stage AQE measured at one row
        if node.name == "ReusedExchange":
            node = _reused(node)  # the exchange it reuses, when the plan prints it
            continue
        children = [c for c in node.children if c.name not in ("Subquery", "ReusedSubquery", "SubqueryBroadcast")]
        if node.name not in _SAME_ROWS or len(children) != 1:
            return False
        node = children[0]
    return False


def _reused(node):
    """The exchange a `ReusedExchange` leaf points at (same `plan_id`), elsewhere in the same tree; None if not there."""
    m = re.search(r"\[plan_id=(\d+)\]", node.text)
    if not m:
        return None
    root = node
    while root.parent is not None:
        root = root.parent
    return next((n for n in root.walk() if n.name in ("Exchange", "BroadcastExchange") and
                 f"[plan_id={m.group(1)}]" in n.text), None)


def _partial(node) -> bool:
    """The map-side step of an aggregate: one row per task, not one row."""
    text = node.attrs.get("Functions") or node.text
    return bool(re.search(r"\bpartial_", text))
