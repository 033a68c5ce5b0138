from linter.registry import Invalid, PlanRule, Valid

_PYTHON = {"BatchEvalPython": "a row-at-a-time Python UDF", "ArrowEvalPython": "a vectorised (Arrow) Python UDF",
           "FlatMapGroupsInPandas": "applyInPandas", "MapInPandas": "mapInPandas", "MapInArrow": "mapInArrow"}
_PLAN = """== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- Project [o_custkey#36]
   +- Filter (pythonUDF0#57 = F)
      +- BatchEvalPython [<lambda>(o_orderstatus#37)#45], [pythonUDF0#57]
         +- FileScan parquet [o_custkey#36,o_orderstatus#37] Batched: true, DataFilters: [], Format: Parquet, PartitionFilters: [], PushedFilters: [], ReadSchema: struct<o_custkey:int,o_orderstatus:string>
"""


class PythonUdfInPlan(PlanRule):
    """
    ## What it does
    Finds Python in a physical plan: `BatchEvalPython` (a plain Python UDF,
    row at a time), `ArrowEvalPython` (a pandas or Arrow UDF),
    `FlatMapGroupsInPandas` (`applyInPandas`), `MapInPandas`, `MapInArrow`.
    Spark inserts none of these itself, so nothing is skipped; RAPIDS'
    `GpuArrowEvalPython` is not read (it is the same UDF on another engine,
    reported where its CPU plan runs).

    ## Why is this bad?
    Each of these ships rows from the JVM to Python worker processes and back;
    `BatchEvalPython` pickles them one by one. Everything around the UDF stops
    at that boundary: filters on its result cannot be pushed to the scan, and
    whole-stage code generation is split. It is the first place to look when
    a stage is slow and CPU-bound in Python.

    ## Example
    ```text
    +- Filter (pythonUDF0#57 = F)
       +- BatchEvalPython [<lambda>(o_orderstatus#37)#45], [pythonUDF0#57]
    ```

    ## Use instead
    ```text
    +- Filter (upper(o_orderstatus#37) = F)
    ```
    Replace the UDF with built-in functions (sparkcheck's SPK201 finds such
    UDFs in the code and can rewrite them).

    ## Fix safety
    No fix: plans are read, not written.

    ## References
    - PySpark user guide, "Python User-defined Functions" and "Apache Arrow in PySpark".
    """

    code = "SPK601"
    name = "python-udf-in-plan"
    summary = "Python UDF execution in a physical plan"
    default_reason = ("a Python UDF in a plan ships rows to Python workers and back, stopping pushdown and "
                      "codegen around it; Spark never inserts these operators itself, so each is the user's")
    invalid = (Invalid(_PLAN, path="plan.txt"),)
    valid = (Valid(_PLAN.replace("BatchEvalPython [<lambda>(o_orderstatus#37)#45], [pythonUDF0#57]",
                                 "Project [o_custkey#36, o_orderstatus#37]"), path="plan.txt"),)

    def _report(self, node) -> None:
        self.ctx.report(self, node, f"`{node.name}`: {_PYTHON[node.name]} moves every row to a Python worker and back",
                        help="use built-in functions where they do the same (see SPK201); otherwise prefer Arrow UDFs")

    visit_BatchEvalPython = visit_ArrowEvalPython = visit_FlatMapGroupsInPandas = _report
    visit_MapInPandas = visit_MapInArrow = _report
