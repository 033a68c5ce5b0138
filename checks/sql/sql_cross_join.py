from linter.registry import Invalid, SqlRule, Valid
from linter.sources.sql import node_span


class SqlCrossJoin(SqlRule):
    """
    ## What it does
    Finds joins that pair every row with every row in Spark SQL: `CROSS JOIN`,
    `JOIN` without `ON` or `USING`, and comma joins (`FROM a, b`) whose
    `WHERE` never compares a column of one table with a column of the other.
    A join with a single-row side, such as a scalar subquery, is still
    reported: say so with `-- noqa: SPK505`. A `CROSS JOIN ... ON a.k = b.k`
    is not reported: with a condition Spark plans it as the join the
    condition makes (here a hash or sort-merge equi-join), as for `JOIN ... ON`.

    ## Why is this bad?
    A cartesian product of a million by a million rows is a trillion rows,
    planned as `CartesianProduct` or `BroadcastNestedLoopJoin`, the slowest
    joins Spark has; a forgotten join predicate in a comma join is the classic
    way to write one by accident.

    ## Example
    ```sql
    SELECT o.id, c.name FROM orders o, customers c WHERE o.amount > 10;
    ```

    ## Use instead
    ```sql
    SELECT o.id, c.name FROM orders o JOIN customers c ON o.customer_id = c.id WHERE o.amount > 10;
    ```

    ## Fix safety
    No fix.

    ## References
    - Spark SQL reference, "JOIN".
    """

    code = "SPK505"
    name = "sql-cross-join"
    summary = "a SQL join that pairs every row with every row"

    invalid = (
        Invalid("SELECT o.id, c.name FROM orders o, customers c WHERE o.amount > 10;\n", path="q.sql"),
        Invalid("SELECT * FROM a CROSS JOIN b;\n", path="q.sql", count=1),
        Invalid("SELECT a.x FROM a JOIN b;\n", path="q.sql"),
    )
    valid = (
        Valid("SELECT o.id FROM orders o JOIN customers c ON o.customer_id = c.id;\n", path="q.sql"),
        Valid("SELECT o.id FROM orders o, customers c WHERE o.customer_id = c.id;\n", path="q.sql"),
        Valid("SELECT a.x FROM a JOIN b USING (id);\n", path="q.sql"),
        Valid("SELECT * FROM graduateProgram CROSS JOIN person ON graduateProgram.id = person.graduate_program;\n",
              path="q.sql"),
        Valid("SELECT a.x FROM a LEFT SEMI JOIN b ON a.id = b.id;\n", path="q.sql"),
        Valid("SELECT * FROM range(0, 10), LATERAL explode_udtf(id);\n", path="q.sql"),
    )

    def visit_Select(self, node) -> None:
        from sqlglot import exp

        joins = node.args.get("joins") or []
        text = self.ctx.unit.text
        for join in joins:
            if isinstance(join.this, (exp.Lateral, exp.Unnest)) or join.this.find(exp.Lateral):
                continue  # LATERAL / table functions of the left rows: correlated, not a cartesian product
            kind = (join.args.get("kind") or "").upper()
            span = node_span(join.this)
            comma = span is not None and text[:span[0]].rstrip().endswith(",")
            on = join.args.get("on")
            if kind == "CROSS" and not comma and (on is None or (isinstance(on, exp.Boolean) and on.this is True)) \
                    and not join.args.get("using"):
                self.ctx.report(self, join, "CROSS JOIN pairs every row with every row of the other side",
                                help="join on a key; if a cartesian product is intended, keep one side tiny")
                continue
            if isinstance(on, exp.Boolean) and on.this is True:
                on = None  # sqlglot's reading of a JOIN without ON
            if on is not None or join.args.get("using"):
                continue
            if isinstance(join.this, (exp.Subquery, exp.Unnest, exp.Lateral)) or join.args.get("side") or \
                    kind in ("SEMI", "ANTI"):
                continue
            # a comma join (or JOIN without ON): look for a predicate linking the two in WHERE
            right = join.this.alias_or_name.lower()
            where = node.args.get("where")
            if where is not None and self._links(where, right):
                continue
            self.ctx.report(self, join, f"no predicate links `{join.this.alias_or_name}` with the tables before it: "
                            "a cartesian product", help="add the join condition (JOIN ... ON ...)")

    @staticmethod
    def _links(where, right: str) -> bool:
        from sqlglot import exp

        for cmp in where.find_all(exp.EQ, exp.NullSafeEQ, exp.GT, exp.LT, exp.GTE, exp.LTE, exp.NEQ):
            tables = {c.table.lower() for c in (cmp.this, cmp.expression) if isinstance(c, exp.Column)}
            if right in tables and len(tables) == 2:
                return True
            if isinstance(cmp.this, exp.Column) and isinstance(cmp.expression, exp.Column) and "" in tables:
                return True  # unqualified columns: cannot tell which table, assume linked
        return False
