from linter.registry import Invalid, SqlRule, Valid


class SqlNotInSubquery(SqlRule):
    """
    ## What it does
    Finds `x NOT IN (SELECT ...)` in Spark SQL.

    ## Why is this bad?
    If the subquery returns a single null, `x NOT IN (...)` is null for every
    row and the query returns nothing: a silent wrong answer as soon as the
    column gets a null. Spark must also plan it as a null-aware anti join,
    which falls back to a `BroadcastNestedLoopJoin` in many cases: slow, and
    the subquery's result is broadcast whole.

    ## Example
    ```sql
    SELECT id FROM customers WHERE id NOT IN (SELECT customer_id FROM orders);
    ```

    ## Use instead
    ```sql
    SELECT id FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id);
    ```
    Or `LEFT ANTI JOIN orders o ON o.customer_id = c.id`.

    ## Fix safety
    No fix: the rewrite changes the result when the subquery has nulls (that is
    usually the point, but it is a change).

    ## References
    - Spark SQL guide, "NULL Semantics: IN and NOT IN Subquery".
    """

    code = "SPK506"
    name = "sql-not-in-subquery"
    summary = "`NOT IN (SELECT ...)`: one null in the subquery empties the result"
    default_reason = ("one null in the subquery makes `NOT IN` null for every row, so the query "
                      "silently returns nothing, and it often runs as a broadcast nested-loop join")
    severity = "error"

    invalid = (Invalid("SELECT id FROM customers WHERE id NOT IN (SELECT customer_id FROM orders);\n", path="q.sql"),)
    valid = (
        Valid("SELECT id FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id);\n",
              path="q.sql"),
        Valid("SELECT id FROM customers WHERE id NOT IN (1, 2, 3);\n", path="q.sql"),
        Valid("SELECT id FROM customers WHERE id IN (SELECT customer_id FROM orders);\n", path="q.sql"),
    )

    def visit_Not(self, node) -> None:
        from sqlglot import exp

        inner = node.this
        if isinstance(inner, exp.Paren):
            inner = inner.this
        if isinstance(inner, exp.In) and inner.args.get("query") is not None:
            self.ctx.report(self, inner.this, "`NOT IN (SELECT ...)` is null for every row once the subquery returns "
                            "a null, and plans as a nested-loop join", help="use NOT EXISTS or a LEFT ANTI JOIN")
