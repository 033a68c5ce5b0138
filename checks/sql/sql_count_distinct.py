from linter.registry import Invalid, SqlRule, Valid


class SqlCountDistinct(SqlRule):
    """
    ## What it does
    Finds `COUNT(DISTINCT ...)`. Preview rule (`--preview`): an exact count is
    sometimes required.

    ## Why is this bad?
    An exact distinct count shuffles every distinct value (and with several
    `COUNT(DISTINCT)` in one query, Spark expands the rows once per distinct
    aggregate). `approx_count_distinct` (HyperLogLog++, 5% error by default,
    configurable) runs in one pass with tiny memory.

    ## Example
    ```sql
    SELECT day, COUNT(DISTINCT user_id) AS users FROM events GROUP BY day;
    ```

    ## Use instead
    ```sql
    SELECT day, approx_count_distinct(user_id) AS users FROM events GROUP BY day;
    ```

    ## Fix safety
    No fix: the result becomes approximate.

    ## References
    - Spark SQL built-in functions: `approx_count_distinct`.
    """

    code = "SPK510"
    name = "sql-count-distinct"
    summary = "`COUNT(DISTINCT ...)` where `approx_count_distinct` would do"
    preview = True

    invalid = (Invalid("SELECT day, COUNT(DISTINCT user_id) AS users FROM events GROUP BY day;\n", path="q.sql"),)
    valid = (Valid("SELECT day, approx_count_distinct(user_id) FROM events GROUP BY day;\n", path="q.sql"),
             Valid("SELECT COUNT(*) FROM events;\n", path="q.sql"))

    def visit_Count(self, node) -> None:
        from sqlglot import exp

        if isinstance(node.this, exp.Distinct):
            self.ctx.report(self, node, "COUNT(DISTINCT ...) shuffles every distinct value",
                            help="use approx_count_distinct(...) when an estimate will do")
