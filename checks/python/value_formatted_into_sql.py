import libcst as cst

from checks.python._driver import shown
from checks.python._literals_and_reads import classify_fields, constant_field, place_fields
from linter.semantic.templates import sql_template
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import SESSION, STRING, keyword_arg, method_name, positional_args

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"


# DataFrame methods whose string argument is a SQL condition: `df.where("ds >= '{}'".format(day))`.
_CONDITIONS = frozenset(("where", "filter"))


class ValueFormattedIntoSql(PythonRule):
    """
    ## What it does
    Finds a value formatted into the SQL text given to `spark.sql(...)`: an
    f-string, `"...".format(...)`, `"..." % (...)` or `"..." + x`, written in
    the call or assigned to the name it is given. Only fields the SQL reads as
    values are reported: one inside a quoted literal (`WHERE ds = '{ds}'`) or
    one compared with a column (`WHERE id = {order_id}`), in a query or a DML
    statement. Table, column and database names (`FROM {table}`), whole
    conditions (`WHERE {condition}`), lists (`IN ({ids})`) and DDL are not:
    parameters cannot bind them. Nor are fields holding constants (the item
    of a `for` over literals with no quote in them, a literal,
    a name assigned a literal) or values with no quote in their text (`int(x)`,
    `d.timestamp()`, `d.strftime("%Y-%m-%d")`), calls that already pass `args=`, or
    SQL sparkcheck cannot parse. Test modules (`test_*.py`, `tests/`) format
    fixed values of their own and are not reported.

    The same holds for the condition string of a DataFrame's `where` /
    `filter` and for `F.expr(...)` text (`df.where("ds >= '{}'".format(day))`):
    there the remedy is a Column expression (`df.where(F.col("ds") >= day)`),
    which passes the value as a typed literal. A receiver nothing identifies
    counts in a file that imports pyspark: a formatted SQL condition is only
    a Spark DataFrame's to take (pandas' `where` takes a mask, polars' and the
    ORMs' `filter` take expressions or keywords).

    ## Why is this bad?
    Formatted SQL is text nobody has read until it runs: sparkcheck's SQL
    rules (and any reviewer) see a hole where the value goes, so the query
    cannot be checked before it reaches the cluster. A value with a quote in
    it (a customer name, a path, a parameter from a request or a widget)
    changes the statement, which is SQL injection; a date formatted as text
    is compared as a string. Named parameters (`:name`, Spark 3.4+) keep the
    statement fixed and pass the value as a typed literal.

    ## Example
    ```python
    def daily(run_date):
        return spark.sql(f"SELECT order_id, amount FROM sales.orders WHERE order_date = '{run_date}'")
    ```

    ## Use instead
    ```python
    def daily(run_date):
        return spark.sql("SELECT order_id, amount FROM sales.orders WHERE order_date = :run_date",
                         args={"run_date": run_date})
    ```
    A table name still has to be formatted in (or, on Spark 3.5+, bound
    with `IDENTIFIER(:table)`). Targeting Spark older than 3.4
    (`target-spark`), filter with the DataFrame API instead:
    `spark.table("sales.orders").where(F.col("order_date") == run_date)`.

    ## Fix safety
    No fix: the parameter's name and the quoting of the value change with it.

    ## References
    - PySpark API: `SparkSession.sql` (`args`, new in 3.4.0).
    - Spark SQL reference, "Parameter markers" and "IDENTIFIER clause".
    """

    code = "SPK522"
    skip_in_tests = True
    name = "value-formatted-into-sql"
    summary = "a value formatted into `spark.sql` text: unchecked and injectable; bind it with `args=`"
    default_reason = ("a formatted value is SQL no one has read until it runs: a quote in it changes the "
                      "statement, and the SQL rules cannot check it; names, lists and constants are left alone")
    min_spark = "3.4"
    triggers = ("sql", "where", "filter", "expr")

    invalid = (
        Invalid(_SETUP + "import sys\nyears = ['2021', '2020']\nyears.append(sys.argv[1])\nfor year in years:\n"
                "    spark.sql(f\"SELECT id FROM t WHERE y = '{year}'\").show()\n"),
        Invalid(_SETUP + "def by_years(years):\n    for year in years:\n"
                "        spark.sql(f'SELECT id FROM t WHERE y = {year}').write.mode('overwrite').parquet(f'/o/{year}')\n"),
        Invalid(_SETUP + "for name in [\"o'brien\", 'smith']:\n"
                "    spark.sql(f\"SELECT id FROM people WHERE last = '{name}'\").show()\n"),
        Invalid(_SETUP + "def daily(run_date):\n"
                "    return spark.sql(f\"SELECT id FROM sales.orders WHERE order_date = '{run_date}'\")\n"),
        Invalid(_SETUP + "def one(order_id):\n"
                "    return spark.sql('SELECT * FROM sales.orders WHERE order_id = {}'.format(order_id))\n"),
        Invalid(_SETUP + "def by_name(name):\n"
                "    return spark.sql(\"SELECT id FROM crm.customers WHERE name = '%s'\" % name)\n"),
        Invalid(_SETUP + "def by_day(table, day):\n"
                "    query = f\"SELECT id FROM {table} WHERE ds = '{day}'\"\n"
                "    return spark.sql(query)\n"),
        Invalid(_SETUP + "def by_day(day):\n"
                "    return spark.sql(\"SELECT id FROM t WHERE ds = '\" + day + \"'\")\n"),
        # a condition string of a DataFrame
        Invalid(_SETUP + "def window(frame, start, end):\n"
                "    return frame.where(\"submission_date >= '{}'\".format(start)).where(f\"submission_date <= '{end}'\")\n"
                "events = window(spark.table('telemetry.events'), '20240101', '20240131')\n", count=2),
    )
    valid = (
        Valid(_SETUP + "for year in ['2021', '2020', '2019']:\n"
              "    df = spark.sql(f'SELECT id, max(v) FROM t WHERE year(ts) = {year} GROUP BY id')\n"
              "    df.write.mode('overwrite').parquet(f's3://out/{year}')\n"),
        Valid(_SETUP + "def load(table):\n    return spark.sql(f'SELECT id, amount FROM {table}')\n"),
        Valid(_SETUP + "def load(db, cols):\n    return spark.sql(f'SELECT {cols} FROM {db}.orders')\n"),
        Valid(_SETUP + "def daily(d):\n"
              "    return spark.sql('SELECT id FROM t WHERE ds = :d', args={'d': d})\n"),
        Valid(_SETUP + "DAYS = 7\nrecent = spark.sql(f'SELECT id FROM t WHERE age_days < {DAYS}')\n"),
        Valid(_SETUP + "def keep(cond):\n    return spark.sql(f'SELECT id FROM t WHERE {cond}')\n"),
        Valid(_SETUP + "def part(ds):\n    spark.sql(f\"ALTER TABLE t ADD PARTITION (ds='{ds}')\")\n"),
        Valid(_SETUP + "def some(ids):\n    return spark.sql(f'SELECT id FROM t WHERE id IN ({ids})')\n"),
        Valid(_SETUP + "def t(x):\n    return spark.sql(f\"SELECT 1 FROM t WHERE a = '{x}'\")\n",
              path="tests/test_q.py"),
        Valid(_SETUP + "from pyspark.sql import functions as F\ndef window(frame, start):\n"
              "    return spark.table('t').where(F.col('submission_date') >= start)\n"),
        Valid(_SETUP + "def keep(col, threshold):\n    return spark.table('t').where(f'{col} > 10')\n"),
        # a number the code computes has no quote to rewrite anything with
        Valid(_SETUP + "def since(day):\n    start = int(day.timestamp() * 1000)\n"
              "    return spark.table('crab.jobs').filter(f'RecordTime >= {start}')\n"),
        Valid(_SETUP + "def since(day):\n    return spark.sql(f'SELECT id FROM t WHERE ts >= {day.timestamp()}')\n"),
        Valid(_SETUP + "from pyspark.sql import functions as F\ndef on(day):\n    day_str = day.strftime('%Y-%m-%d')\n"
              "    return F.expr(f\"to_date('{day_str}') = order_date\")\n"),
        Valid("import pandas as pd\ndef q(frame, x):\n    return pd.read_csv('a.csv').filter(like=f'{x}')\n"),
        Valid("import sqlite3\ndef q(c, x):\n    return c.execute(f\"SELECT 1 WHERE a = '{x}'\")\nspark = None\n"),
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._literal_names: dict = {}  # name -> True while every assignment to it seen so far is a literal
        self._assigned: dict = {}  # name -> the value last assigned to it (`query = "..." % x`)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                name = target.target.value
                literal = isinstance(node.value, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString))
                self._literal_names[name] = self._literal_names.get(name, True) and literal
                self._assigned[(self._function(), name)] = node.value

    def _function(self):
        return self.ctx.function

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method in _CONDITIONS or (method is None and self.ctx.semantic.is_function(node.func, {"expr"})):
            self._condition(node, method or "F.expr")
            return
        if method != "sql" or keyword_arg(node, "args") is not None:
            return
        args = positional_args(node)
        if not args or len(args) > 1:
            return  # `spark.sql(query, {...})`: already bound
        receiver = self.ctx.semantic.infer(node.func.value)
        if receiver is None or receiver.kind != SESSION:
            return
        text_node = args[0]
        parts = sql_template(text_node)
        if parts is None and isinstance(text_node, cst.Name):
            bound = self.ctx.semantic.lookup(text_node.value)
            if bound is not None and bound.kind == STRING and bound.node is not None:
                parts = sql_template(bound.node)
            elif (self._function(), text_node.value) in self._assigned:
                parts = sql_template(self._assigned[(self._function(), text_node.value)])
        if parts is None:
            return
        sql, fields = place_fields(parts)
        if not classify_fields(sql, fields):
            return
        semantic = self.ctx.semantic
        values = [f for f in fields if f.role == "value" and not constant_field(semantic, f.node, self.ctx.ancestors)
                  and not (isinstance(f.node, cst.Name) and self._literal_names.get(f.node.value))]
        if not values or values[0].node is None:
            return
        identifiers = [f for f in fields if f.role != "value"]
        first = values[0].node
        names = ", ".join(f"`{shown(self.ctx, f.node)}`" for f in values[:3] if f.node is not None)
        if self.ctx.settings.target_spark >= (3, 4):
            help = "bind values as named parameters: `spark.sql(\"... WHERE day = :day\", args={\"day\": day})`"
            if identifiers:
                help += " (table and column names cannot be bound: keep formatting those, or use " \
                        "`IDENTIFIER(:name)` on Spark 3.5+)"
        else:
            help = "filter with the DataFrame API (`spark.table(t).where(F.col(c) == value)`); `args=` parameters " \
                   "need Spark 3.4 (target-spark is older)"
        self.ctx.report(
            self, first,
            f"{names} formatted into the SQL text of `spark.sql`: the query cannot be checked before it runs, and "
            "a value with a quote in it rewrites the statement",
            help=help)

    def _condition(self, node: cst.Call, method: str) -> None:
        """A value formatted into a condition string: `df.where("ds >= '{}'".format(day))`, `F.expr(f"...")`."""
        args = positional_args(node)
        if len(args) != 1:
            return
        if method != "F.expr" and not self.ctx.semantic.is_dataframe(node.func.value):
            # a receiver nothing identifies, in a pyspark file: a formatted SQL condition is only a DataFrame's to
            # take (pandas' `where` takes a mask, polars' and the ORMs' `filter` expressions or keywords)
            value = self.ctx.semantic.infer(node.func.value)
            if value is not None or "pyspark" not in (self.ctx.unit.text or ""):
                return
        parts = sql_template(args[0])
        if parts is None and isinstance(args[0], cst.Name) and (self._function(), args[0].value) in self._assigned:
            parts = sql_template(self._assigned[(self._function(), args[0].value)])
        if parts is None:
            return
        condition, fields = place_fields(parts)
        prefix = "SELECT * FROM spk_frame WHERE " if method in _CONDITIONS else "SELECT "
        if not classify_fields(prefix + condition, fields):
            return
        semantic = self.ctx.semantic
        values = [f for f in fields if f.role == "value" and f.node is not None and
                  not constant_field(semantic, f.node, self.ctx.ancestors)
                  and not (isinstance(f.node, cst.Name) and self._literal_names.get(f.node.value))]
        if not values:
            return
        names = ", ".join(f"`{shown(self.ctx, f.node)}`" for f in values[:3])
        self.ctx.report(
            self, values[0].node,
            f"{names} formatted into the condition text of `{method}`: it cannot be checked before it runs, and a "
            "value with a quote in it rewrites the condition",
            help="compare with a Column instead, which passes the value as a typed literal: "
                 "`df.where(F.col(\"ds\") >= day)`")
