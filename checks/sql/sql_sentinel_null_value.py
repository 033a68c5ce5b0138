from checks.python.sentinel_null_value import DEFAULT_SENTINELS
from checks.sql._sql import is_string
from linter.registry import Invalid, Option, SqlRule, Valid


class SqlSentinelNullValue(SqlRule):
    """
    ## What it does
    Finds placeholder strings standing in for null in Spark SQL: as the
    fallback of `COALESCE`, `NVL`, `IFNULL` (`COALESCE(email, '')`,
    `NVL(country, 'N/A')`), and in comparisons that test for them
    (`WHERE email = ''`, `status <> 'NULL'`). The list is the one of SPK301,
    configurable: remove `""` from `sentinels` if empty strings are real
    values in your data.

    ## Why is this bad?
    A placeholder is a real value: `IS NULL` no longer finds the missing
    rows, `COUNT(col)` counts them, and every placeholder row joins with every
    other one on that key: one hot key, one straggling task. Comparing with
    `'NULL'` or `''` usually means earlier code wrote placeholders, or is a
    null test that never matches a real null.

    ## Example
    ```sql
    SELECT id, COALESCE(country, 'N/A') AS country FROM crm.customers;
    ```

    ## Use instead
    ```sql
    SELECT id, country FROM crm.customers;
    ```

    ## Fix safety
    No fix: replacing a placeholder changes the data.

    ## Options
    - `sentinels` (list of strings): the placeholder values to report.

    ## References
    - Spark SQL guide, "NULL Semantics".
    """

    code = "SPK504"
    name = "sql-sentinel-null-value"
    summary = "a placeholder string such as 'N/A' stands in for null in SQL"
    options = {"sentinels": Option(DEFAULT_SENTINELS, "Placeholder values to report (case-insensitive).")}

    invalid = (
        Invalid("SELECT id, COALESCE(country, 'N/A') AS country FROM crm.customers;\n", path="q.sql"),
        Invalid("SELECT NVL(email, '') FROM c;\n", path="q.sql"),
        Invalid("SELECT id FROM c WHERE status = 'NULL';\n", path="q.sql"),
        Invalid("SELECT id FROM c WHERE email = '';\n", path="q.sql"),
    )
    valid = (
        Valid("SELECT id, country FROM crm.customers;\n", path="q.sql"),
        Valid("SELECT COALESCE(a, b, 0) FROM t;\n", path="q.sql"),
        Valid("SELECT id FROM c WHERE status = 'ACTIVE';\n", path="q.sql"),
    )

    def _sentinel(self, node):
        if not is_string(node):
            return None
        wanted = {s.lower() for s in self.opts["sentinels"]}
        return node.this if node.this.strip().lower() in wanted else None

    def _report(self, node, text: str, how: str) -> None:
        self.ctx.report(self, node, f"{how} '{text}' where the value is missing: it stops being null "
                        "(IS NULL misses it, joins and counts include it)",
                        help="keep the value NULL; label nulls only where they are displayed")

    def visit_Coalesce(self, node) -> None:
        for arg in node.expressions:
            text = self._sentinel(arg)
            if text is not None:
                self._report(arg, text, "COALESCE writes")

    def _compare(self, node) -> None:
        for side in (node.this, node.expression):
            text = self._sentinel(side)
            if text is not None:
                self._report(side, text, "comparing with")

    visit_EQ = visit_NEQ = _compare
