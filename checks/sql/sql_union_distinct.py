from linter.registry import Invalid, SqlRule, Valid


class SqlUnionDistinct(SqlRule):
    """
    ## What it does
    Finds `UNION` (which removes duplicates) between queries. Preview rule
    (`--preview`): sparkcheck cannot know whether duplicates are possible or
    wanted.

    ## Why is this bad?
    `UNION` is `UNION ALL` followed by a `DISTINCT` over every column of the
    result: a full shuffle of all rows. When the parts cannot overlap (different
    days, different sources) or duplicates are wanted, `UNION ALL` gives the
    same rows for free.

    ## Example
    ```sql
    SELECT id FROM orders_2023 UNION SELECT id FROM orders_2024;
    ```

    ## Use instead
    ```sql
    SELECT id FROM orders_2023 UNION ALL SELECT id FROM orders_2024;
    ```

    ## Fix safety
    No fix: `UNION ALL` keeps duplicates, which may be wrong.

    ## References
    - Spark SQL reference, "Set Operators".
    """

    code = "SPK507"
    name = "sql-union-distinct"
    summary = "`UNION` deduplicates with a full shuffle where `UNION ALL` may be meant"
    preview = True

    invalid = (Invalid("SELECT id FROM orders_2023 UNION SELECT id FROM orders_2024;\n", path="q.sql"),)
    valid = (Valid("SELECT id FROM orders_2023 UNION ALL SELECT id FROM orders_2024;\n", path="q.sql"),)

    def visit_Union(self, node) -> None:
        if node.args.get("distinct"):
            self.ctx.report(self, node.expression, "UNION removes duplicates with a shuffle of every row",
                            help="use UNION ALL when the parts cannot overlap or duplicates are wanted")
