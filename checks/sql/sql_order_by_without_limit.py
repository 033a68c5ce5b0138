from linter.registry import Invalid, SqlRule, Valid


class SqlOrderByWithoutLimit(SqlRule):
    """
    ## What it does
    Finds `ORDER BY` without `LIMIT` inside a subquery, a CTE or the query of
    an `INSERT` / `CREATE TABLE ... AS`.

    ## Why is this bad?
    The order of rows inside a subquery or CTE does not survive the outer
    query (joins, aggregates and shuffles reorder rows), and a table written
    by `INSERT ... SELECT ... ORDER BY` is not read back in that order. The
    sort is a full range shuffle for nothing. With a `LIMIT` the sort means
    something (the top rows) and is not reported.

    ## Example
    ```sql
    WITH recent AS (SELECT * FROM orders ORDER BY ts DESC) SELECT customer_id, count(*) FROM recent GROUP BY customer_id;
    ```

    ## Use instead
    ```sql
    WITH recent AS (SELECT customer_id FROM orders) SELECT customer_id, count(*) FROM recent GROUP BY customer_id;
    ```

    ## Fix safety
    No fix.

    ## References
    - Spark SQL reference, "ORDER BY Clause", "SORT BY Clause".
    """

    code = "SPK508"
    name = "sql-order-by-without-limit"
    summary = "`ORDER BY` without `LIMIT` in a subquery, CTE or INSERT is sorted for nothing"
    default_reason = ("a subquery's, CTE's or `INSERT`'s order does not survive the outer query or the "
                      "table, so the sort is a range shuffle for nothing; with a `LIMIT` it is not reported")

    invalid = (
        Invalid("WITH r AS (SELECT a FROM t ORDER BY a) SELECT a FROM r;\n", path="q.sql"),
        Invalid("INSERT INTO archive SELECT a, b FROM t ORDER BY a;\n", path="q.sql"),
        Invalid("SELECT a FROM (SELECT a FROM t ORDER BY a) x;\n", path="q.sql"),
    )
    valid = (
        Valid("SELECT a FROM t ORDER BY a;\n", path="q.sql"),
        Valid("WITH r AS (SELECT a FROM t ORDER BY a LIMIT 10) SELECT a FROM r;\n", path="q.sql"),
        Valid("SELECT a, row_number() OVER (ORDER BY a) FROM t;\n", path="q.sql"),
    )

    def visit_Order(self, node) -> None:
        from sqlglot import exp

        query = node.parent
        if not isinstance(query, exp.Select) or query.args.get("limit") is not None:
            return
        parent = query.parent
        inside = isinstance(parent, (exp.Subquery, exp.CTE)) or isinstance(parent, (exp.Insert, exp.Create))
        if not inside:
            return
        self.ctx.report(self, node, "ORDER BY without LIMIT here is a full sort whose order nothing downstream keeps",
                        help="drop the ORDER BY (sort in the outermost query, or sortWithinPartitions when writing)")
