from checks.sql._sql import is_string, numeric_text
from linter.diagnostics import UNSAFE, Edit, Fix
from linter.registry import Invalid, SqlRule, Valid
from linter.sources.sql import node_span

_NUMERIC_TYPES = {"INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "DOUBLE", "FLOAT", "DECIMAL", "LONG", "SHORT"}


class SqlImplicitStringCast(SqlRule):
    """
    ## What it does
    Finds Spark SQL that turns strings into numbers without saying so:
    arithmetic with a string literal (`price * '100'`, `5 * ' '`), and a
    `CAST` of a string literal that is not a number to a numeric type
    (`CAST('' AS INT)`, `CAST('n/a' AS DOUBLE)`).

    ## Why is this bad?
    Spark casts the string at run time. A numeric string works by accident; a
    string that is not a number, including `''` and `' '`, becomes null (or, with
    ANSI mode on, as in Spark 4, fails the query), so `5 * ' '` is null and the
    row silently drops out of sums and filters. `CAST('' AS INT)` is always null.

    ## Example
    ```sql
    SELECT order_id, amount * '100' AS cents FROM sales.orders;
    ```

    ## Use instead
    ```sql
    SELECT order_id, amount * 100 AS cents FROM sales.orders;
    ```

    ## Fix safety
    Unsafe: a numeric string in arithmetic gets an explicit `CAST('100' AS
    INT)` (`DOUBLE` for decimals), which spells out what Spark did implicitly:
    the value is unchanged, but the expression's type may differ from the
    implicit cast's (Spark casts strings in arithmetic to DOUBLE). Strings
    that are not numbers get no fix: what they should be is the author's call.

    ## References
    - Spark SQL guide, "ANSI Compliance" (type coercion of strings).
    """

    code = "SPK502"
    name = "sql-implicit-string-cast"
    summary = "SQL arithmetic with a string, or a cast of a non-number: silently null"
    default_reason = ("a string in SQL arithmetic, or a cast of a non-number, is null at run time "
                      "(or fails under ANSI mode), so rows silently drop out of sums and filters")
    fix = "unsafe"

    invalid = (
        Invalid("SELECT order_id, amount * '100' AS cents FROM sales.orders;\n", path="q.sql", unsafe=True,
                fixed="SELECT order_id, amount * CAST('100' AS INT) AS cents FROM sales.orders;\n"),
        Invalid("SELECT 5 * ' ' AS x;\n", path="q.sql"),
        Invalid("SELECT CAST('' AS INT) AS n;\n", path="q.sql"),
        Invalid("SELECT price + '0.5' FROM p;\n", path="q.sql", unsafe=True,
                fixed="SELECT price + CAST('0.5' AS DOUBLE) FROM p;\n"),
    )
    valid = (
        Valid("SELECT amount * 100 AS cents FROM sales.orders;\n", path="q.sql"),
        Valid("SELECT CAST('42' AS INT) AS n, concat(a, '-', b) FROM t;\n", path="q.sql"),
        Valid("SELECT * FROM t WHERE day > '2024-01-01';\n", path="q.sql"),
    )

    def _arithmetic(self, node) -> None:
        for side in (node.left, node.right):
            if not is_string(side):
                continue
            text = side.this
            number = numeric_text(text)
            what = "a number" if number else "null (it is not a number)"
            fix = None
            span = node_span(side)
            if number and span is not None:
                fix = Fix(f"Cast it explicitly: CAST('{text}' AS {number})",
                          (Edit(span[0], span[1], f"CAST('{text}' AS {number})"),), UNSAFE)
            self.ctx.report(
                self,
                side,
                f"arithmetic with the string '{text}': Spark casts it silently and it becomes {what}",
                help="use a number literal, or an explicit CAST where a string column must be read as a number",
                fix=fix,
            )

    visit_Add = visit_Sub = visit_Mul = visit_Div = visit_Mod = _arithmetic

    def visit_Cast(self, node) -> None:
        target = node.to.sql("spark").split("(")[0].upper() if node.args.get("to") is not None else ""
        if target not in _NUMERIC_TYPES or not is_string(node.this) or numeric_text(node.this.this):
            return
        self.ctx.report(
            self,
            node.this,
            f"CAST('{node.this.this}' AS {target}) is always null: the string is not a number",
            help="write NULL (typed: CAST(NULL AS ...)) or the number you mean",
        )

    visit_TryCast = visit_Cast
