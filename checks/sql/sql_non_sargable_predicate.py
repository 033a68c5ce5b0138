from linter.registry import Invalid, SqlRule, Valid

_COMPARISONS = ("EQ", "NEQ", "GT", "GTE", "LT", "LTE", "Like", "In")


class SqlNonSargablePredicate(SqlRule):
    """
    ## What it does
    Finds `WHERE` conditions that wrap a column in a function or a cast before
    comparing it with a constant: `year(dt) = 2024`, `date_format(ts,
    'yyyy-MM') = '2024-01'`, `CAST(dt AS STRING) LIKE '2024%'`,
    `substr(code, 1, 2) = 'DE'`, `lower(country) = 'de'`.

    ## Why is this bad?
    Partition pruning and filter pushdown work on the column itself: Spark can
    skip whole partitions for `dt >= '2024-01-01'`, and Parquet row groups by
    their min/max statistics, but not for a function of the column, which has
    to be computed for every row of every partition. The query reads the whole
    table.

    ## Example
    ```sql
    SELECT id FROM events WHERE year(dt) = 2024;
    ```

    ## Use instead
    ```sql
    SELECT id FROM events WHERE dt >= DATE '2024-01-01' AND dt < DATE '2025-01-01';
    ```

    ## Fix safety
    No fix: the equivalent range depends on the function.

    ## References
    - Spark SQL guide, "Parquet Files" (filter pushdown) and partition discovery.
    """

    code = "SPK509"
    name = "sql-non-sargable-predicate"
    summary = "a function or cast around a column in WHERE defeats partition pruning and pushdown"
    default_reason = ("a function or cast around a column in `WHERE` defeats partition pruning "
                      "and row-group skipping, so a query for one slice reads the whole table")

    invalid = (
        Invalid("SELECT id FROM events WHERE year(dt) = 2024;\n", path="q.sql"),
        Invalid("SELECT id FROM events WHERE CAST(dt AS STRING) LIKE '2024%';\n", path="q.sql"),
        Invalid("SELECT id FROM e WHERE date_format(ts, 'yyyy-MM') = '2024-01' AND kind = 'x';\n", path="q.sql"),
    )
    valid = (
        Valid("SELECT id FROM events WHERE dt >= DATE '2024-01-01' AND dt < DATE '2025-01-01';\n", path="q.sql"),
        Valid("SELECT year(dt) AS y FROM events WHERE kind = 'click';\n", path="q.sql"),
        Valid("SELECT id FROM events WHERE dt = current_date();\n", path="q.sql"),
        Valid("SELECT a FROM t JOIN u ON lower(t.k) = lower(u.k);\n", path="q.sql"),
    )

    def visit_Where(self, node) -> None:
        from sqlglot import exp

        for cmp in node.find_all(*(getattr(exp, n) for n in _COMPARISONS)):
            if cmp.find_ancestor(exp.Where) is not node:
                continue  # belongs to a subquery's own WHERE, visited on its own
            sides = [cmp.this, cmp.expression] if not isinstance(cmp, exp.In) else [cmp.this]
            constants = [s for s in (cmp.expression,) if s is not None]
            if isinstance(cmp, exp.In):
                constants = cmp.expressions
            if not constants or not all(isinstance(c, exp.Literal) for c in constants):
                continue
            wrapped = sides[0]
            if isinstance(wrapped, (exp.Func, exp.Cast)) and not isinstance(wrapped, exp.AggFunc):
                columns = list(wrapped.find_all(exp.Column))
                if len(columns) == 1 and wrapped.find(exp.Subquery) is None:
                    name = columns[0].sql("spark")
                    self.ctx.report(
                        self, wrapped,
                        f"`{wrapped.sql('spark')}` in WHERE: Spark cannot prune partitions or push the filter on "
                        f"`{name}` through the function",
                        help=f"compare `{name}` itself with a range of constants",
                    )
