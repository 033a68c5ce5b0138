import re
from typing import Optional

from linter.registry import Invalid, SqlRule, Valid
from linter.semantic.bounds import declared_small
from linter.sources.sql import node_span

_Q28 = """SELECT * FROM
  (SELECT avg(ss_list_price) b1_lp, count(ss_list_price) b1_cnt FROM store_sales WHERE ss_quantity BETWEEN 0 AND 5) b1,
  (SELECT avg(ss_list_price) b2_lp, count(ss_list_price) b2_cnt FROM store_sales WHERE ss_quantity BETWEEN 6 AND 10) b2;
"""
_Q02 = """SELECT d_week_seq1, sun_sales1 / sun_sales2
FROM (SELECT d_week_seq d_week_seq1, sun_sales sun_sales1 FROM wswscs) y,
     (SELECT d_week_seq d_week_seq2, sun_sales sun_sales2 FROM wswscs) z
WHERE d_week_seq1 = d_week_seq2 - 53;
"""


class SqlCrossJoin(SqlRule):
    """
    ## What it does
    Finds joins that pair every row with every row in Spark SQL: `CROSS JOIN`,
    `JOIN` without `ON` or `USING` (a `NATURAL JOIN` joins on the columns both
    sides share), and comma joins (`FROM a, b`), when no
    predicate of the query can connect the sides. As Spark does, a predicate
    in `WHERE` joins the tables it compares, whatever the `FROM` says: each
    column is attributed to the table it names, or, unqualified, to the
    derived table (`(SELECT ...) y`) or common table expression that projects
    that name; a column no derived table projects may come from any table
    whose columns are not known (there is no schema), so a predicate on it may
    connect them and nothing is reported. A side that is one row (a global
    aggregate such as `(SELECT count(*) FROM t) x`, a `SELECT` without `FROM`,
    `LIMIT 1`) pairs nothing and is left alone: TPC-DS q28 and q88 join eight
    such counts. A `CROSS JOIN ... ON a.k = b.k` is not reported either: with a
    condition Spark plans the join the condition makes. Nor is a product with a
    table the project declares small in the `small-tables` setting
    (`small-tables = ["ref.*", "dim_date"]`): a few rows times the other side is
    how a deliberate cartesian product is written.

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
    - Spark SQL reference, "JOIN"; Spark's optimizer rule `PushPredicateThroughJoin`, which turns
      a `WHERE` predicate on both sides of a cross join into its join condition.
    """

    code = "SPK505"
    name = "sql-cross-join"
    summary = "a SQL join that pairs every row with every row"
    default_reason = ("a join no predicate connects is the product of both sides in Spark's slowest joins; "
                      "`WHERE` predicates are attributed as Spark does them, and one-row sides are left alone")

    invalid = (
        Invalid("SELECT o.id, c.name FROM orders o, customers c WHERE o.amount > 10;\n", path="q.sql"),
        Invalid("SELECT * FROM a CROSS JOIN b;\n", path="q.sql", count=1),
        Invalid("SELECT a.x FROM a JOIN b;\n", path="q.sql"),
        # derived tables whose projections are known: nothing connects y and z
        Invalid("SELECT * FROM (SELECT k AS k1 FROM t) y, (SELECT k AS k2, v FROM u) z WHERE v > 1;\n",
                path="q.sql"),
        # one pair linked, the third table alone
        Invalid("SELECT * FROM a, b, c WHERE a.k = b.k AND c.v > 0;\n", path="q.sql"),
    )
    valid = (
        Valid("SELECT o.id FROM orders o JOIN customers c ON o.customer_id = c.id;\n", path="q.sql"),
        Valid("SELECT o.id FROM orders o, customers c WHERE o.customer_id = c.id;\n", path="q.sql"),
        Valid("SELECT a.x FROM a JOIN b USING (id);\n", path="q.sql"),
        Valid("SELECT * FROM graduateProgram NATURAL JOIN person;\n", path="q.sql"),
        Valid("SELECT * FROM graduateProgram CROSS JOIN person ON graduateProgram.id = person.graduate_program;\n",
              path="q.sql"),
        Valid("SELECT a.x FROM a LEFT SEMI JOIN b ON a.id = b.id;\n", path="q.sql"),
        Valid("SELECT * FROM range(0, 10), LATERAL explode_udtf(id);\n", path="q.sql"),
        # TPC-DS q08: unqualified columns of tables without a schema may connect them
        Valid("SELECT s_store_name, sum(ss_net_profit) FROM store_sales, date_dim, store, "
              "(SELECT ca_zip FROM customer_address) v1 "
              "WHERE ss_store_sk = s_store_sk AND ss_sold_date_sk = d_date_sk "
              "AND substr(s_zip, 1, 2) = substr(v1.ca_zip, 1, 2);\n", path="q.sql"),
        # TPC-DS q02: the derived tables' projected aliases carry the join
        Valid(_Q02, path="q.sql"),
        # TPC-DS q28: one-row global aggregates pair nothing
        Valid(_Q28, path="q.sql"),
        Valid("SELECT * FROM orders o CROSS JOIN (SELECT max(dt) AS last_dt FROM loads) l;\n", path="q.sql"),
        Valid("WITH totals AS (SELECT sum(amount) AS total FROM orders) "
              "SELECT o.id, o.amount / t.total FROM orders o, totals t;\n", path="q.sql"),
        Valid("SELECT * FROM a CROSS JOIN b WHERE a.k = b.k;\n", path="q.sql"),
    )

    def visit_Select(self, node) -> None:
        from sqlglot import exp

        joins = node.args.get("joins") or []
        first = node.args.get("from_") or node.args.get("from")
        if not joins or first is None:
            return
        sources = [first.this] + [join.this for join in joins]
        known = [_projected(s, node) for s in sources]
        small = self.ctx.settings["small-tables"]
        ctes = {c.alias_or_name.lower() for c in node.find_all(exp.CTE)} if small else set()
        top = node
        while small and top.parent is not None:  # a CTE of an enclosing query names a table of its own too
            top = top.parent
            ctes |= {c.alias_or_name.lower() for c in top.args.get("with").expressions} \
                if top.args.get("with") is not None else set()
        # a side of one row pairs nothing; a table the project declares small (`small-tables`) multiplies the
        # other side by its few rows, the way a deliberate product (dates by products) is written
        one_row = [_one_row(s, node) or (small and isinstance(s, exp.Table) and s.name.lower() not in ctes and
                                         declared_small(".".join(p.name for p in s.parts), small))
                   for s in sources]
        aliases = [s.alias_or_name.lower() for s in sources]
        groups = list(range(len(sources)))  # union-find over the sources

        def find(i):
            while groups[i] != i:
                groups[i] = groups[groups[i]]
                i = groups[i]
            return i

        def union(items):
            items = [find(i) for i in items]
            for i in items[1:]:
                groups[i] = items[0]

        unconditioned = []
        for i, join in enumerate(joins, start=1):
            on = join.args.get("on")
            if isinstance(on, exp.Boolean) and on.this is True:
                on = None  # sqlglot's reading of a JOIN without ON
            kind = (join.args.get("kind") or "").upper()
            lateral = isinstance(join.this, (exp.Lateral, exp.Unnest)) or join.this.find(exp.Lateral)
            natural = (join.args.get("method") or "").upper() == "NATURAL"  # an equi-join on the shared columns
            if lateral or natural or on is not None or join.args.get("using") or kind in ("SEMI", "ANTI") or \
                    (join.args.get("side") and kind != "CROSS"):
                union(list(range(i + 1)))  # joined on a condition, or correlated with the rows before it
                continue
            unconditioned.append((i, join))
        if not unconditioned:
            return
        where = node.args.get("where")
        for predicate in _conjuncts(where.this) if where is not None else []:
            candidates = [_attribute(column, aliases, known) for column in _columns(predicate)]
            candidates = [c for c in candidates if c]
            if len(candidates) >= 2 and len(set().union(*candidates)) >= 2:
                union(sorted(set().union(*candidates)))
        text = self.ctx.unit.text
        for i, join in unconditioned:
            if one_row[i]:
                continue
            before = [j for j in range(i) if not one_row[j]]
            if not before or any(find(j) == find(i) for j in before):
                continue
            if any(find(j) == find(i) for j in range(i + 1, len(sources))) and \
                    any(find(j) == find(k) for j in range(i + 1, len(sources)) for k in before):
                continue  # connected to the tables before it through one that follows
            span = node_span(join.this)
            comma = span is not None and re.sub(r"[\s(]+$", "", text[:span[0]]).endswith(",")
            if (join.args.get("kind") or "").upper() == "CROSS" and not comma:
                self.ctx.report(self, join, "CROSS JOIN pairs every row with every row of the other side",
                                help="join on a key; if a cartesian product is intended, keep one side tiny")
            else:
                self.ctx.report(self, join, f"no predicate links `{join.this.alias_or_name}` with the tables "
                                "before it: a cartesian product", help="add the join condition (JOIN ... ON ...)")


def _conjuncts(expression) -> list:
    from sqlglot import exp

    if isinstance(expression, exp.And):
        return _conjuncts(expression.this) + _conjuncts(expression.expression)
    if isinstance(expression, exp.Paren):
        return _conjuncts(expression.this)
    return [expression]


def _columns(predicate) -> list:
    """Column references of a predicate, not those inside its subqueries (theirs are their own or correlated)."""
    from sqlglot import exp

    return [c for c in predicate.find_all(exp.Column)
            if not any(isinstance(a, (exp.Select, exp.Subquery)) for a in _ancestors(c, predicate))]


def _ancestors(node, stop):
    node = node.parent
    while node is not None and node is not stop:
        yield node
        node = node.parent


def _attribute(column, aliases: list, known: list) -> set:
    """The sources a column may come from: the one it names; else those projecting its name; else every
    source whose columns are unknown (no schema). Empty: an outer query's column."""
    table = column.table.lower()
    name = column.name.lower()
    if table:
        return {i for i, alias in enumerate(aliases) if alias == table}
    projecting = {i for i, names in enumerate(known) if names is not None and name in names}
    if projecting:
        return projecting
    return {i for i, names in enumerate(known) if names is None}


def _query_of(source, select):
    """The query behind a source: a derived table's, or the common table expression's it names."""
    from sqlglot import exp

    if isinstance(source, exp.Subquery):
        return source.this, None
    if isinstance(source, exp.Table) and not source.args.get("db"):
        scope = select
        while scope is not None:
            with_ = scope.args.get("with_") or scope.args.get("with") if hasattr(scope, "args") else None
            for cte in (with_.expressions if with_ is not None else ()):
                if cte.alias.lower() == source.name.lower():
                    alias = cte.args.get("alias")
                    return cte.this, [c.name for c in alias.columns] if alias is not None and alias.columns else None
            scope = scope.parent
    return None, None


def _projected(source, select) -> Optional[set]:
    """Lower-case names a source projects, when the query shows them (a derived table, a CTE); else None."""
    from sqlglot import exp

    if isinstance(source, exp.Subquery) and source.args.get("alias") is not None and source.args["alias"].columns:
        return {c.name.lower() for c in source.args["alias"].columns}
    query, columns = _query_of(source, select)
    if columns:
        return {c.lower() for c in columns}
    if query is None or not hasattr(query, "named_selects"):
        return None
    if any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
           for e in getattr(query, "selects", [])):
        return None  # `SELECT *`: the names are the tables'
    names = {n.lower() for n in query.named_selects if n}
    return names or None


def _one_row(source, select) -> bool:
    """A global aggregate, a SELECT without FROM or with LIMIT 1: at most one row."""
    from sqlglot import exp

    query, _ = _query_of(source, select)
    if not isinstance(query, exp.Select):
        return False
    limit = query.args.get("limit")
    if limit is not None and isinstance(limit.expression, exp.Literal) and limit.expression.this == "1":
        return True
    if query.args.get("group"):
        return False
    if not (query.args.get("from_") or query.args.get("from")):
        return not any(isinstance(e, (exp.Explode, exp.Posexplode)) for e in query.find_all(exp.Func))
    selects = query.selects
    return bool(selects) and all(_aggregated(e) for e in selects)


def _aggregated(expression) -> bool:
    """Every column of the projection is inside an aggregate function (not a window), or it is a constant."""
    from sqlglot import exp

    if expression.find(exp.Window):
        return False
    aggregates = list(expression.find_all(exp.AggFunc))
    if not aggregates:
        return not list(expression.find_all(exp.Column))
    return all(any(isinstance(a, exp.AggFunc) for a in _ancestors(c, None)) for c in expression.find_all(exp.Column))
