import re

from checks.python.sentinel_null_value import DEFAULT_SENTINELS
from checks.sql._sql import is_string
from linter.registry import Invalid, Option, SqlRule, Valid
from linter.sources.sql import node_span


class SqlSentinelNullValue(SqlRule):
    """
    ## What it does
    Finds SQL that writes a placeholder string where a value is missing: the
    fallback of `COALESCE`, `NVL`, `IFNULL` and the null branch of `NVL2`
    (`COALESCE(email, '')`, `NVL(country, 'N/A')`), the `ELSE` of a `CASE`
    (and the branch of a `WHEN x IS NULL`, or of `IF(x IS NULL, ...)`), and
    the values of `INSERT ... VALUES`. A comparison (`WHERE status =
    'unknown'`) is not reported: it reads a value and writes none, and such a
    value is often a real category of the data (TPC-DS's `hd_buy_potential =
    'Unknown'`), as SPK301 leaves `==` alone in Python. An empty fallback
    inside string building (`COALESCE(last, '') || ', ' || first`,
    `concat_ws`, a hash) formats one part of a text and is not reported either.
    The list is the one of SPK301, configurable: remove `""` from `sentinels`
    if empty strings are real values in your data.

    ## Why is this bad?
    A placeholder is a real value: `IS NULL` no longer finds the missing
    rows, `COUNT(col)` counts them, and every placeholder row joins with every
    other one on that key: one hot key, one straggling task.

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
    default_reason = ("a placeholder written in SQL is a real value: `IS NULL` misses those rows and "
                      "they all join on one hot key; comparisons and string building are not reported")
    options = {"sentinels": Option(DEFAULT_SENTINELS, "Placeholder values to report (case-insensitive).")}

    invalid = (
        Invalid("SELECT id, COALESCE(country, 'N/A') AS country FROM crm.customers;\n", path="q.sql"),
        Invalid("SELECT NVL(email, '') FROM c;\n", path="q.sql"),
        Invalid("SELECT IFNULL(phone, 'unknown') AS phone FROM c;\n", path="q.sql"),
        Invalid("SELECT CASE WHEN score > 0 THEN 'scored' ELSE 'N/A' END AS band FROM c;\n", path="q.sql"),
        Invalid("SELECT CASE WHEN region IS NULL THEN 'NULL' ELSE region END FROM c;\n", path="q.sql"),
        Invalid("SELECT IF(region IS NULL, 'N/A', region) FROM c;\n", path="q.sql"),
        Invalid("INSERT INTO crm.customers VALUES (1, 'Ada', 'N/A');\n", path="q.sql"),
    )
    valid = (
        Valid("SELECT id, country FROM crm.customers;\n", path="q.sql"),
        Valid("SELECT COALESCE(a, b, 0) FROM t;\n", path="q.sql"),
        Valid("SELECT id FROM c WHERE status = 'ACTIVE';\n", path="q.sql"),
        # comparisons read a value: TPC-DS q34's real category
        Valid("SELECT hd_demo_sk FROM household_demographics "
              "WHERE hd_buy_potential = 'unknown' OR hd_buy_potential = '>10000';\n", path="q.sql"),
        Valid("SELECT id FROM c WHERE email <> '';\n", path="q.sql"),
        # TPC-DS q84: an empty part of a display name
        Valid("SELECT coalesce(c_last_name, '') || ', ' || coalesce(c_first_name, '') AS customername FROM customer;\n",
              path="q.sql"),
        Valid("SELECT concat_ws('|', coalesce(a, ''), b) AS k FROM t;\n", path="q.sql"),
        Valid("SELECT CASE WHEN x > 0 THEN 'pos' ELSE 'neg' END FROM t;\n", path="q.sql"),
        Valid("INSERT INTO t VALUES (1, 'Ada');\n", path="q.sql"),
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

    def _fallback(self, node, how: str) -> None:
        text = self._sentinel(node)
        if text is None or (not text.strip() and _in_string_building(node)):
            return
        self._report(node, text, how)

    def visit_Coalesce(self, node) -> None:
        span = node_span(node.this) if node.this is not None else None
        called = re.search(r"(\w+)\s*\(\s*$", self.ctx.unit.text[:span[0]]) if span else None
        name = called.group(1).upper() if called else "COALESCE"  # sqlglot reads NVL and IFNULL as COALESCE
        for arg in node.expressions:
            self._fallback(arg, f"{name} writes")

    def visit_Nvl2(self, node) -> None:
        self._fallback(node.args.get("false"), "NVL2 writes")

    def visit_Case(self, node) -> None:
        default = node.args.get("default")
        if default is not None:
            self._fallback(default, "CASE ... ELSE writes")
        for branch in node.args.get("ifs") or ():
            if _tests_null(branch.this):
                self._fallback(branch.args.get("true"), "CASE WHEN ... IS NULL THEN writes")

    def visit_If(self, node) -> None:
        if node.parent is not None and type(node.parent).__name__ == "Case":
            return  # a CASE branch: visit_Case reads it
        if _tests_null(node.this):
            self._fallback(node.args.get("true"), "IF(... IS NULL) writes")

    def visit_Insert(self, node) -> None:
        from sqlglot import exp

        values = node.expression
        if not isinstance(values, exp.Values):
            return
        for literal in values.find_all(exp.Literal):
            self._fallback(literal, "INSERT ... VALUES writes")


def _tests_null(condition) -> bool:
    from sqlglot import exp

    return isinstance(condition, exp.Is) and isinstance(condition.expression, exp.Null)


# Building one text from parts: an empty filler formats a part (sqlglot's names, lower case).
_STRING_BUILDING = {"dpipe", "concat", "concatws", "md5", "sha", "sha2", "sha1", "hash", "xxhash64", "format_string",
                    "formatstring"}


def _in_string_building(node) -> bool:
    from sqlglot import exp

    parent = node.parent
    while parent is not None and not isinstance(parent, (exp.Select, exp.Subquery)):
        if type(parent).__name__.lower() in _STRING_BUILDING or \
                (isinstance(parent, exp.Anonymous) and str(parent.this).lower() in _STRING_BUILDING):
            return True
        parent = parent.parent
    return False
