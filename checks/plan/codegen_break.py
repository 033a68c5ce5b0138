from checks.plan._spark import engine_operator, internal_plan_reason
from linter.registry import Invalid, PlanRule, Valid

_PLAN = """== Physical Plan ==
*(2) HashAggregate(keys=[o_custkey#36], functions=[count(1)])
+- Exchange hashpartitioning(o_custkey#36, 200), ENSURE_REQUIREMENTS, [plan_id=40]
   +- *(1) HashAggregate(keys=[o_custkey#36], functions=[partial_count(1)])
      +- Project [o_custkey#36, o_c1#101, o_c2#102, o_c3#103]
         +- *(1) FileScan parquet [o_custkey#36] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<o_custkey:int>
"""
# Operators whole-stage codegen normally compiles; outside it, each row goes through an interpreted iterator.
_USUALLY_INSIDE = {"Project", "Filter", "HashAggregate", "BroadcastHashJoin", "Sort", "Expand", "LocalLimit",
                   "ShuffledHashJoin"}
# Below these, rows come from an interpreted source anyway (Python, cache, RDD, local data).
_INTERPRETED_SOURCES = {"BatchEvalPython", "ArrowEvalPython", "InMemoryTableScan", "Scan", "LocalTableScan",
                        "ExternalRDDScan", "RDDScanExec", "FlatMapGroupsInPandas", "MapInPandas", "Generate"}


class CodegenBreak(PlanRule):
    """
    ## What it does
    Finds operators that whole-stage code generation normally compiles
    (`Project`, `Filter`, `HashAggregate`, `Sort`, `BroadcastHashJoin`, ...)
    running outside it, in a plan where other operators carry the `*(n)`
    codegen marker (so codegen is on and the plan was prepared). Operators
    right above an interpreted source (a Python UDF's output, a cached
    relation, local rows) are left alone.

    Spark's own parts are judged as such: a plan AQE has not prepared yet
    (`isFinalPlan=false`, a subquery that did not run) carries no markers to
    expect, `AQEShuffleRead` and query stages are not operators codegen
    compiles, and an operator fed by Photon or RAPIDS operators (`Photon*`,
    `Gpu*`, which have no whole-stage codegen of Spark's) is left alone, as
    are Delta's own jobs (reads of `_delta_log`).

    ## Why is this bad?
    Inside a codegen stage, a chain of operators is one compiled loop over
    the rows; outside it, every operator hands each row on through a virtual
    call. The usual causes are very wide rows (over
    `spark.sql.codegen.maxFields`, 100 columns), generated methods over
    `spark.sql.codegen.hugeMethodLimit`, and expressions without code
    generation; the stage then runs several times slower.

    ## Example
    ```text
    +- *(1) HashAggregate(keys=[o_custkey#36], functions=[partial_count(1)])
       +- Project [o_custkey#36, o_c1#101, o_c2#102, o_c3#103]
    ```

    ## Use instead
    ```text
    +- *(1) HashAggregate(keys=[o_custkey#36], functions=[partial_count(1)])
       +- *(1) Project [o_custkey#36]
    ```
    Select only the columns you need before wide transformations; look in
    the driver log for codegen warnings (too many fields, huge methods).

    ## Fix safety
    No fix: plans are read, not written.

    ## References
    - Spark configuration, `spark.sql.codegen.wholeStage`, `spark.sql.codegen.maxFields`,
      `spark.sql.codegen.hugeMethodLimit`.
    """

    code = "SPK608"
    name = "codegen-break"
    summary = "an operator outside whole-stage codegen that is usually inside"
    default_reason = ("an operator left outside codegen, where codegen is on, hands each row on through a "
                      "virtual call and runs several times slower; those above interpreted sources are skipped")
    invalid = (Invalid(_PLAN, path="plan.txt"),)
    valid = (Valid(_PLAN.replace("+- Project [o_custkey#36, o_c1", "+- *(1) Project [o_custkey#36, o_c1"),
                   path="plan.txt"),
             Valid(_PLAN.replace("*(1) ", "").replace("*(2) ", ""), path="plan.txt"))

    def start_plan(self, root) -> None:
        self.marked = any(node.codegen is not None for node in root.walk())

    def visit(self, node) -> None:
        if not self.marked or node.codegen is not None or node.name not in _USUALLY_INSIDE:
            return
        scope = node.parent
        while scope is not None and scope.name != "AdaptiveSparkPlan":
            scope = scope.parent
        if scope is not None and "isFinalPlan=false" in scope.text:
            return  # a plan AQE has not prepared yet (a subquery that did not run): no markers to expect
        if any(child.name in _INTERPRETED_SOURCES for child in node.children):
            return
        if any(engine_operator(n) for n in node.walk()) or internal_plan_reason(self):
            return  # rows come from a columnar engine's operators, or the job is Delta's
        if node.name == "Sort" and node.parent is not None and node.parent.name in ("SortAggregate", "Window"):
            return
        self.ctx.report(self, node, f"`{node.name}` runs outside whole-stage codegen, row by row through an "
                        f"interpreted iterator", help="narrow wide rows (spark.sql.codegen.maxFields is 100) and "
                        "look in the driver log for codegen warnings")

    visit_Project = visit_Filter = visit_HashAggregate = visit_BroadcastHashJoin = visit = visit
    visit_Sort = visit_Expand = visit_LocalLimit = visit_ShuffledHashJoin = visit
