from linter.registry import Invalid, SqlRule, Valid


class SqlOrAcrossColumns(SqlRule):
    """
    ## What it does
    Finds `WHERE` conditions whose top level is an `OR` of comparisons on
    different columns (`WHERE dt = '2024-01-01' OR region = 'EU'`). Preview
    rule (`--preview`): it matters when one of the columns is a partition or
    sort column, which sparkcheck cannot see from the SQL alone.

    ## Why is this bad?
    Partition pruning and Parquet row-group skipping need a condition every
    kept row satisfies on one column. `a = 1 OR b = 2` gives none: every
    partition and row group may hold matching rows, so the whole table is
    read. Two queries joined with `UNION ALL`, each filtering one column, can
    each prune.

    ## Example
    ```sql
    SELECT id FROM events WHERE dt = '2024-01-01' OR region = 'EU';
    ```

    ## Use instead
    ```sql
    SELECT id FROM events WHERE dt = '2024-01-01'
    UNION ALL
    SELECT id FROM events WHERE region = 'EU' AND dt <> '2024-01-01';
    ```

    ## Fix safety
    No fix.

    ## References
    - Spark SQL guide, "Parquet Files" (filter pushdown) and partition discovery.
    """

    code = "SPK512"
    name = "sql-or-across-columns"
    summary = "`OR` across different columns in WHERE: nothing can be pruned"
    preview = True

    invalid = (Invalid("SELECT id FROM events WHERE dt = '2024-01-01' OR region = 'EU';\n", path="q.sql"),)
    valid = (
        Valid("SELECT id FROM events WHERE dt = '2024-01-01' OR dt = '2024-01-02';\n", path="q.sql"),
        Valid("SELECT id FROM events WHERE dt = '2024-01-01' AND (a = 1 OR b = 2);\n", path="q.sql"),
    )

    def visit_Where(self, node) -> None:
        from sqlglot import exp

        condition = node.this
        while isinstance(condition, exp.Paren):
            condition = condition.this
        if not isinstance(condition, exp.Or):
            return
        columns = set()
        for part in condition.flatten():
            names = {c.name.lower() for c in part.find_all(exp.Column)}
            if len(names) != 1:
                return
            columns |= names
        if len(columns) > 1:
            self.ctx.report(self, condition, f"OR across {', '.join(sorted(columns))}: no column filters every row, "
                            "so no partition or row group can be skipped",
                            help="split into queries that each filter one column, combined with UNION ALL")
