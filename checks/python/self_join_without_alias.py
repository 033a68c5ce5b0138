import libcst as cst

from checks.python import _determinism_and_joins as lineage
from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import method_name, positional_args
from linter.sources.python import source_child_nodes

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\nemployees = spark.table('hr.employees')\n"
)


class SelfJoinWithoutAlias(PythonRule):
    """
    ## What it does
    Finds a join of two DataFrames made from the same one (`df.join(df2, ...)`
    where `df2 = df.filter(...)`, `df.select(...)`, `df.groupBy(...).agg(...)`,
    or the same `spark.table("t")` read twice) whose condition names a column
    as `df.c` / `df2["c"]` that both sides carry. Aliasing the sides is not
    enough while the condition still says `a.c` (checked on Spark 4.3: the
    same AnalysisException); only qualified names (`F.col("a.c")`) tell the
    sides apart, and they are not reported. Lineage is followed through the assignments of this file;
    columns made or renamed after the split (`withColumn`,
    `withColumnRenamed`) are new attributes and are not ambiguous. An equality
    of the same column on both sides (`df.id == df2.id`) is not reported:
    `DataFrame.join` rewrites exactly that case into a self-join on `id`.

    ## Why is this bad?
    `df2.parent_id` is resolved when the Python line runs, to the attribute of
    the plan both DataFrames share. In the join, Spark gives the right side
    new attribute ids, and the old ones now belong to the left side only: the
    condition `df.id == df2.parent_id` compares two columns of the *left*
    side. Spark 3 refuses it ("Column ... are ambiguous. It's probably because
    you joined several Datasets together, and some of these Datasets are the
    same", `spark.sql.analyzer.failAmbiguousSelfJoin`); with that check off
    or on older versions the join silently becomes a filter of the left side
    times every row of the right.

    ## Example
    ```python
    managers = employees.filter(F.col("is_manager"))
    pairs = employees.join(managers, employees.manager_id == managers.id)
    ```

    ## Use instead
    ```python
    e = employees.alias("e")
    m = employees.filter(F.col("is_manager")).alias("m")
    pairs = e.join(m, F.col("e.manager_id") == F.col("m.id"))
    ```

    ## Fix safety
    No fix: the aliases and qualified names are the user's to choose.

    ## References
    - Spark SQL migration guide 3.0 (`spark.sql.analyzer.failAmbiguousSelfJoin`).
    - PySpark API: `DataFrame.alias` ("Returns a new DataFrame with an alias set",
      its example is a self-join).
    """

    code = "SPK314"
    name = "self-join-without-alias"
    summary = "a self-join names columns as `df.col`: both sides carry them, so the condition is ambiguous"
    default_reason = ("`df.c` in a self-join resolves to the left side only: Spark 3 refuses the join as "
                      "ambiguous, and with that check off it silently becomes a filter times every right row")
    severity = "error"
    triggers = ("join",)
    doc_setup = 'employees = spark.table("hr.employees")\n'

    invalid = (
        Invalid(_SETUP + "managers = employees.filter(F.col('is_manager'))\n"
                "pairs = employees.join(managers, employees.manager_id == managers.id)\n"),
        Invalid(_SETUP + "parents = employees.select('id', 'name')\n"
                "pairs = employees.join(parents, employees['manager_id'] == parents['id'], 'left')\n"),
        Invalid(_SETUP + "again = spark.table('hr.employees')\n"
                "pairs = employees.join(again, employees.manager_id == again.id)\n"),
        Invalid(_SETUP + "e = employees.alias('e')\nm = employees.alias('m')\n"
                "pairs = e.join(m, e.manager_id == m.id)\n"),
        Invalid("from pyspark.sql import functions as F\n\ndef tree(nodes):\n"
                "    parents = nodes.where(F.col('depth') < 3)\n"
                "    return nodes.join(parents, nodes.parent_id == parents.node_id)\n"),
    )
    valid = (
        Valid(_SETUP + "e = employees.alias('e')\nm = employees.alias('m')\n"
              "pairs = e.join(m, F.col('e.manager_id') == F.col('m.id'))\n"),
        Valid(_SETUP + "sizes = employees.groupBy('dept').count()\n"
              "with_size = employees.join(sizes, employees.dept == sizes.dept)\n"),
        Valid(_SETUP + "parents = employees.withColumnRenamed('id', 'parent_id').select('parent_id', 'name')\n"
              "pairs = employees.join(parents, employees.manager_id == parents.parent_id)\n"),
        Valid(_SETUP + "depts = spark.table('hr.departments')\n"
              "pairs = employees.join(depts, employees.dept == depts.id)\n"),
        Valid(_SETUP + "managers = employees.filter(F.col('is_manager'))\npairs = employees.join(managers, 'id')\n"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        lineage.enter_function(self.ctx, node)

    def leave_Assign(self, node: cst.Assign) -> None:
        lineage.leave_assign(self.ctx, node)

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "join":
            return
        ctx = self.ctx
        args = positional_args(node)
        other = args[0] if args else None
        on = lineage.join_condition(node)
        if other is None or on is None or lineage.using_keys(on) is not None:
            return
        if not ctx.semantic.is_dataframe(node.func.value):
            return
        left, right = lineage.frame_of(ctx, node.func.value), lineage.frame_of(ctx, other)
        # an `alias` alone does not help: `a.id` still names the shared attribute; only qualified names do
        if left is None or right is None or not (left.roots & right.roots):
            return
        refs = lineage.column_refs(ctx, on)
        rewritten = self._same_column_equalities(on)
        for ref_node, (owner, name) in refs:
            if id(ref_node) in rewritten:
                continue
            tokens = lineage.tokens_of_ref(ctx, owner, name)
            if not tokens or not any(left.carries(t) and right.carries(t) for t in tokens):
                continue
            ctx.report(
                self,
                node,
                f"self-join of `{shown(ctx, node.func.value)}` and `{shown(ctx, other)}` (made from the same "
                f"DataFrame): `{shown(ctx, ref_node)}` is a column of both sides, so the condition is ambiguous "
                "(an AnalysisException, or a comparison of one side with itself)",
                help="alias both sides and use qualified names: "
                "`a.join(b, F.col('a.manager_id') == F.col('b.id'))` with `a = df.alias('a')`, `b = df2.alias('b')`",
                start=node.func.attr,
            )
            return

    def _same_column_equalities(self, on) -> set:
        """Ids of the references in ``x.c == y.c`` where both are the same column: `join` rewrites those."""
        out = set()
        stack = [on]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Comparison) and len(current.comparisons) == 1 \
                    and isinstance(current.comparisons[0].operator, cst.Equal):
                left, right = current.left, current.comparisons[0].comparator
                a, b = lineage.column_ref(self.ctx, left), lineage.column_ref(self.ctx, right)
                if a is not None and b is not None:
                    ta, tb = lineage.tokens_of_ref(self.ctx, *a), lineage.tokens_of_ref(self.ctx, *b)
                    if ta is not None and ta == tb:
                        out.update((id(left), id(right)))
            stack.extend(source_child_nodes(current))  # libcst's order, without whitespace and punctuation
        return out
