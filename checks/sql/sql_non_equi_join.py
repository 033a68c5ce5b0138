from linter.registry import Invalid, SqlRule, Valid


class SqlNonEquiJoin(SqlRule):
    """
    ## What it does
    Finds a SQL join whose `ON` condition has no equality between a column of
    one side and a column of the other: only `<`, `>`, `BETWEEN`, `LIKE`,
    `<>`, an `OR` of conditions, or comparisons with literals. A condition
    with at least one equality conjunct (`ON a.k = b.k AND a.ts BETWEEN
    b.start AND b.end`) is a range join with a key and is not reported; nor
    are joins with a broadcast hint (`/*+ BROADCAST(s) */`, `MAPJOIN`,
    `BROADCASTJOIN`: the nested loop is then chosen on purpose), `LATERAL`
    joins, or a side that is a `VALUES` list. Joins without any condition are
    SPK505's (sql-cross-join). The DataFrame counterpart is SPK422
    (non-equi-join).

    ## Why is this bad?
    Spark's hash and sort-merge joins need equality keys. Without one the
    only strategies left are `BroadcastNestedLoopJoin` and
    `CartesianProduct`, which test the condition for every pair of rows: a
    million events against a hundred thousand sessions is a hundred billion
    comparisons. An `OR` of equalities is no better: neither equality alone
    decides a match, so neither can be the key.

    ## Example
    ```sql
    SELECT e.id, s.session_id
    FROM web.events e JOIN web.sessions s ON e.ts BETWEEN s.start_ts AND s.end_ts;
    ```

    ## Use instead
    ```sql
    SELECT e.id, s.session_id
    FROM web.events e JOIN web.sessions s
      ON e.user_id = s.user_id AND e.ts BETWEEN s.start_ts AND s.end_ts;
    ```
    Give the join an equality key: a key both sides share, or a bucket of the
    range (the day, `floor(ts / 3600)`), keeping the range as an extra
    condition. If one side is really small, say so with a `BROADCAST` hint.

    ## Fix safety
    No fix: the key depends on the data.

    ## References
    - Spark SQL guide, "Join Strategy Hints" (a nested-loop join is chosen
      when there are no equi-join keys).
    """

    code = "SPK523"
    name = "sql-non-equi-join"
    summary = "a SQL join with no equality between its sides runs as a nested loop over every pair of rows"
    default_reason = ("a SQL join without an equality key can only run as a nested loop over every pair of "
                      "rows; a join with a key, a broadcast hint, `LATERAL` or a `VALUES` side is left alone")

    invalid = (
        Invalid("SELECT e.id FROM events e JOIN sessions s ON e.ts BETWEEN s.start_ts AND s.end_ts;\n", path="q.sql"),
        Invalid("SELECT a.id FROM a JOIN b ON a.k = b.k OR a.j = b.j;\n", path="q.sql"),
        Invalid("SELECT a.id FROM a LEFT JOIN b ON a.name LIKE concat(b.prefix, '%');\n", path="q.sql"),
        # a key inside an array: the help says to explode it and join on the item
        Invalid("SELECT p.name, s.status FROM person p JOIN spark_status s ON array_contains(p.status_ids, s.id);\n",
                path="q.sql"),
    )
    valid = (
        Valid("SELECT e.id FROM events e JOIN sessions s ON e.user_id = s.user_id "
              "AND e.ts BETWEEN s.start_ts AND s.end_ts;\n", path="q.sql"),
        Valid("SELECT /*+ BROADCAST(s) */ e.id FROM events e JOIN sessions s ON e.ts > s.start_ts;\n", path="q.sql"),
        Valid("SELECT a.id FROM a JOIN b USING (id);\n", path="q.sql"),
        Valid("SELECT a.id FROM a CROSS JOIN b;\n", path="q.sql"),  # SPK505's
        Valid("SELECT a.id FROM a JOIN b ON a.k <=> b.k;\n", path="q.sql"),
    )

    def visit_Select(self, node) -> None:
        from sqlglot import exp

        joins = node.args.get("joins") or []
        if not joins or _hinted(node):
            return
        for join in joins:
            on = join.args.get("on")
            if on is None or (isinstance(on, exp.Boolean) and on.this is True) or join.args.get("using"):
                continue  # no condition: SPK505's
            if isinstance(join.this, (exp.Lateral, exp.Unnest, exp.Values)) or join.this.find(exp.Lateral):
                continue
            right = join.this.alias_or_name.lower()
            if _has_equi_key(on, right):
                continue
            help = ("add an equality key (a shared key, or a bucket of the range such as the day), "
                    "or a BROADCAST hint if one side is really small")
            if on.find(exp.ArrayContains) is not None:
                help = ("explode the array first (`LATERAL VIEW explode(arr) AS item`, or a subquery) and join on "
                        "`item = key`, an equality Spark can hash; or a BROADCAST hint if one side is really small")
            self.ctx.report(self, on, f"the join with `{join.this.alias_or_name}` has no equality between its sides: "
                            "Spark can only test every pair of rows (a nested-loop join)", help=help)


def _hinted(select) -> bool:
    from sqlglot import exp

    hint = select.args.get("hint")
    if hint is None:
        return False
    text = hint.sql().upper()
    return any(word in text for word in ("BROADCAST", "MAPJOIN"))


def _has_equi_key(condition, right: str) -> bool:
    """An AND-conjunct of the condition equates a column of the right side with a column of another table."""
    from sqlglot import exp

    conjuncts = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
    for part in conjuncts:
        part = part.unnest() if isinstance(part, exp.Paren) else part
        if isinstance(part, exp.And):
            if _has_equi_key(part, right):
                return True
            continue
        if isinstance(part, (exp.EQ, exp.NullSafeEQ)):
            columns = [side for side in (part.this, part.expression) if isinstance(side, exp.Column)]
            if len(columns) != 2:
                continue
            tables = {c.table.lower() for c in columns}
            if "" in tables or (right in tables and len(tables) == 2):
                return True  # unqualified columns: cannot tell which side, assume a key
    return False
