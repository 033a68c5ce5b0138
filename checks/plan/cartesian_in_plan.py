from linter.registry import Invalid, PlanRule, Valid

_PLAN = """== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- CartesianProduct
   :- FileScan parquet [o_orderkey#35] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<o_orderkey:int>
   +- FileScan csv [c_custkey#77] Batched: false, DataFilters: [], Format: CSV, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<c_custkey:int>
"""


class CartesianInPlan(PlanRule):
    """
    ## What it does
    Finds `CartesianProduct` and `BroadcastNestedLoopJoin` in a physical plan.

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
    invalid = (Invalid(_PLAN, path="plan.txt"),)
    valid = (Valid(_PLAN.replace("CartesianProduct", "SortMergeJoin [o_orderkey#35], [c_custkey#77], Inner"),
                   path="plan.txt"),)

    def _report(self, node) -> None:
        self.ctx.report(self, node, f"`{node.name}` pairs every row of one side with every row of the other",
                        help="join on an equality of keys; a NOT IN subquery becomes NOT EXISTS")

    visit_CartesianProduct = visit_BroadcastNestedLoopJoin = _report
