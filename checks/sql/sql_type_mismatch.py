from typing import Optional

from linter.registry import Invalid, SqlRule, Valid
from linter.semantic import normalise_type

_FAMILIES = {"int": "number", "float": "number", "decimal": "number", "str": "string", "date": "date",
             "timestamp": "date", "bool": "boolean"}
_SCHEMA = "CREATE TABLE sales.orders (order_id BIGINT, customer_id BIGINT, amount DECIMAL(10,2), zip STRING, day DATE);\n"


def tables_of(statements) -> dict:
    """{table name (and db.table): {column: family}} from CREATE TABLE statements."""
    from sqlglot import exp

    out: dict = {}
    from linter.sources.sql import Statement

    for statement in statements:
        create = statement.expression if isinstance(statement, Statement) else statement
        if not isinstance(create, exp.Create) or not isinstance(create.this, exp.Schema):
            continue
        table = create.this.this
        columns = {}
        for column in create.this.expressions:
            if isinstance(column, exp.ColumnDef) and column.args.get("kind") is not None:
                family = _FAMILIES.get(normalise_type(column.args["kind"].sql("spark")))
                if family:
                    columns[column.name.lower()] = family
        if isinstance(table, exp.Table):
            out[table.name.lower()] = columns
            if table.db:
                out[f"{table.db}.{table.name}".lower()] = columns
    return out


class SqlTypeMismatch(SqlRule):
    """
    ## What it does
    With a schema, finds comparisons whose two sides have different types, in
    `WHERE` and join conditions: a numeric column with a string literal
    (`amount > '100'`), a string column with a number (`zip = 1234`), a date
    with a number, and a column of one type with a column of another
    (`o.customer_id = c.code`, BIGINT against STRING).

    The schema comes from `CREATE TABLE` statements in the same file and from
    the files named by `sql-schema` in the configuration: SQL files of
    `CREATE TABLE` statements, paths or globs relative to the configuration
    file (`sql-schema = ["warehouse/ddl/**/*.sql"]` takes every DDL file of the
    repository). Their content is part of the cache key.
    Columns are resolved through the query's tables and aliases; a column
    sparkcheck cannot resolve is left alone.

    ## Why is this bad?
    Spark casts one side to the other's type at run time. A string column
    compared with a number is cast to a number: `'01234'` becomes 1234 and
    `'n/a'` becomes null (the row silently disappears); a join on BIGINT
    against STRING casts every key, defeats pushdown and broadcast
    statistics, and matches `'007'` with 7. With ANSI mode on (Spark 4) some of
    these casts fail the query instead.

    ## Example
    ```sql
    SELECT order_id FROM sales.orders WHERE zip = 1234;
    ```

    ## Use instead
    ```sql
    SELECT order_id FROM sales.orders WHERE zip = '01234';
    ```

    ## Fix safety
    No fix: which side should change is the author's decision.

    ## References
    - Spark SQL guide, "ANSI Compliance: Type Coercion".
    """

    code = "SPK513"
    name = "sql-type-mismatch"
    summary = "SQL compares values of different types (with a schema): one side is cast silently"
    default_reason = ("comparing two types casts one side silently: '007' matches 7 and 'n/a' rows vanish; "
                      "only columns resolved through the schema given are judged, others are left alone")
    doc_setup = _SCHEMA

    invalid = (
        Invalid(_SCHEMA + "SELECT order_id FROM sales.orders WHERE zip = 1234;\n", path="q.sql"),
        Invalid(_SCHEMA + "SELECT o.order_id FROM sales.orders o WHERE o.amount > '100';\n", path="q.sql"),
        Invalid(_SCHEMA + "CREATE TABLE crm.customers (code STRING, name STRING);\n"
                "SELECT o.order_id FROM sales.orders o JOIN crm.customers c ON o.customer_id = c.code;\n", path="q.sql"),
    )
    valid = (
        Valid(_SCHEMA + "SELECT order_id FROM sales.orders WHERE zip = '01234' AND amount > 100;\n", path="q.sql"),
        Valid(_SCHEMA + "SELECT order_id FROM sales.orders WHERE day >= '2024-01-01';\n", path="q.sql"),
        Valid("SELECT order_id FROM unknown_table WHERE zip = 1234;\n", path="q.sql"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.schema: Optional[dict] = None

    def _schema(self) -> dict:
        if self.schema is None:
            from linter.sources.sql import parse_statements

            schema: dict = {}
            for _, text in self.ctx.settings.sql_schema_files():
                schema.update(tables_of(parse_statements(text)[0]))
            self.schema = schema
        return self.schema

    def visit_Create(self, node) -> None:
        self._schema().update(tables_of([node]))

    def _family(self, node, select) -> Optional[str]:
        from sqlglot import exp

        if isinstance(node, exp.Literal):
            return "string" if node.is_string else "number"
        if not isinstance(node, exp.Column) or select is None:
            return None
        sources = {}
        for table in select.find_all(exp.Table):
            if table.find_ancestor(exp.Select) is not select:
                continue
            columns = self._schema().get(f"{table.db}.{table.name}".lower() if table.db else table.name.lower())
            if columns is None:
                columns = self._schema().get(table.name.lower())
            if columns is not None:
                sources[(table.alias_or_name or table.name).lower()] = columns
        name = node.name.lower()
        if node.table:
            columns = sources.get(node.table.lower())
            return columns.get(name) if columns else None
        found = [cols[name] for cols in sources.values() if name in cols]
        return found[0] if len(found) == 1 else None

    def _compare(self, node) -> None:
        from sqlglot import exp

        if node.find_ancestor(exp.Where, exp.Join) is None:
            return
        select = node.find_ancestor(exp.Select)
        left, right = self._family(node.this, select), self._family(node.expression, select)
        if left is None or right is None or left == right:
            return
        literal_sides = [isinstance(s, exp.Literal) for s in (node.this, node.expression)]
        if all(literal_sides):
            return
        if "date" in (left, right) and "string" in (left, right) and any(literal_sides):
            return  # `day >= '2024-01-01'`: a date literal written as a string, the usual way
        self.ctx.report(
            self, node,
            f"`{node.sql('spark', comments=False)}` compares a {left} with a {right}: Spark casts one side silently",
            help="compare values of the same type (quote or unquote the literal, or CAST the column explicitly)",
        )

    visit_EQ = visit_NEQ = visit_GT = visit_GTE = visit_LT = visit_LTE = _compare
