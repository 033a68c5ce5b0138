from checks.python._literals_and_reads import filter_conditions, sql_date_predicates
from linter.registry import Invalid, Option, SqlRule, Valid

_WRITES = ("Insert", "Merge", "Create", "Delete", "Update")
_JOB = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"


class SqlHardcodedDateInFilter(SqlRule):
    """
    ## What it does
    Finds a column compared with a hard-coded date or timestamp in a `WHERE`,
    `HAVING`, `QUALIFY` or `JOIN ... ON` condition: `ds = '2024-01-01'`,
    `day = DATE '2024-01-01'`, `to_date(ts) = to_date('2024-01-01')`,
    `day IN ('2024-01-01', '2024-01-02')`, `<=>`.

    Read as a job: SQL given to `spark.sql(...)` in a Python module, and in
    `.sql` files the statements that write (`INSERT`, `MERGE`,
    `CREATE TABLE ... AS`, `DELETE`, `UPDATE`) and every statement of a
    templated file (dbt, Jinja, `${var}`: a file an orchestrator renders). A
    plain `SELECT` in a `.sql` file may be an analysis query kept for later,
    `%sql` cells and notebooks are how one looks at data, and test modules
    use fixed dates on purpose: none of these are reported. Only equality is
    reported by default (the `ranges` option adds `<`, `>=`, `BETWEEN`...), and
    never a sentinel or open-end date (before 1971 or after 2098:
    `valid_to = '9999-12-31'`). String filters of DataFrames
    (`.where("ds = '2024-01-01'")`) are SPK330's.

    With `--preview`, the two judgement calls go the other way, each where
    it is likely: ranges are reported as with `ranges` in the statements
    read as a job's, and a plain `SELECT` of a `.sql` file is read as a
    job's for equality (one fixed day; a fixed range there is how a query
    studies a period, as TPC-H's queries do). Notebooks, `%sql` cells and
    test modules stay quiet.

    ## Why is this bad?
    A scheduled statement runs every day with the text it was deployed with:
    a filter on a fixed date makes every run load, merge or delete the same
    day again, and the job succeeds while the target stops moving. Nothing
    fails, so it is noticed late; a backfill cannot target another day without
    an edit.

    ## Example
    ```sql
    INSERT INTO analytics.daily_orders
    SELECT order_id, amount FROM raw.orders WHERE order_date = '2024-01-01';
    ```

    ## Use instead
    ```sql
    INSERT INTO analytics.daily_orders
    SELECT order_id, amount FROM raw.orders WHERE order_date = '{{ ds }}';
    ```
    From Python, bind the run's date: `spark.sql("... WHERE order_date = :day", args={"day": run_date})`
    (Spark 3.4+).

    ## Fix safety
    No fix: where the date comes from is the job's to decide.

    ## Options
    - `ranges` (bool, default false): also report `<`, `<=`, `>`, `>=` and
      `BETWEEN` with a hard-coded date.

    ## References
    - Spark SQL reference, "Parameter markers"; dbt, "About variables";
      Apache Airflow, "Templates reference".
    """

    code = "SPK521"
    skip_in_tests = True
    name = "sql-hardcoded-date-in-filter"
    summary = "a SQL filter on a hard-coded date makes every scheduled run read the same day"
    default_reason = ("a scheduled statement on a fixed date loads, merges or deletes the same day every run "
                      "and succeeds while its target stops moving; ad-hoc SELECTs and notebooks are skipped")
    options = {"ranges": Option(False, "Also report range comparisons (`>=`, `BETWEEN`) with a hard-coded date.")}

    invalid = (
        Invalid("INSERT INTO analytics.daily_orders\n"
                "SELECT order_id, amount FROM raw.orders WHERE order_date = '2024-01-01';\n", path="load.sql"),
        Invalid("MERGE INTO dim.c t USING (SELECT * FROM raw.c WHERE ds = DATE '2024-01-01') s ON t.id = s.id\n"
                "WHEN MATCHED THEN UPDATE SET *;\n", path="merge.sql"),
        Invalid("SELECT id FROM {{ ref('events') }} WHERE day IN ('2024-01-01', '2024-01-02')\n",
                path="models/events_daily.sql"),
        Invalid(_JOB + "daily = spark.sql(\"SELECT id FROM sales.orders WHERE ds = '2024-01-01'\")\n", path="job.py"),
        Invalid(_JOB + "spark.sql('''SELECT o.id FROM o JOIN p ON p.id = o.id AND p.day = DATE '2024-05-01' ''')\n",
                path="job.py"),
        Invalid("INSERT OVERWRITE TABLE t SELECT * FROM s WHERE ds >= '2024-01-01';\n", path="load.sql",
                options={"ranges": True}),
        Invalid("SELECT store_id, SUM(amount) FROM silver.orders\nWHERE order_date = '2026-01-01'\n"
                "GROUP BY store_id;\n", path="reports/daily_revenue.sql"),
        Invalid("INSERT INTO t SELECT id FROM s WHERE ds >= DATE '2024-01-01';\n", path="load.sql"),
    )
    valid = (
        Valid("SELECT * FROM sales.orders WHERE order_date = '2024-01-01';\n", path="adhoc.sql", preview=False),
        Valid("INSERT INTO t SELECT id FROM s WHERE ds = '{{ ds }}';\n", path="load.sql"),
        Valid("INSERT INTO t SELECT id FROM s WHERE ds >= DATE '2024-01-01';\n", path="load.sql", preview=False),
        Valid("INSERT INTO t SELECT id FROM s WHERE valid_to = '9999-12-31';\n", path="load.sql"),
        Valid("INSERT INTO t SELECT id, CASE WHEN d = '2024-01-01' THEN 1 END AS x FROM s;\n", path="load.sql"),
        Valid("INSERT INTO t SELECT id FROM s WHERE ds = date_sub(current_date(), 1);\n", path="load.sql"),
        Valid(_JOB + "x = spark.sql(\"SELECT id FROM t WHERE ds = '2024-01-01'\")\n", path="tests/test_job.py"),
        Valid("# Databricks notebook source\n" + _JOB +
              "display(spark.sql(\"SELECT id FROM t WHERE ds = '2024-01-01'\"))\n", path="explore.py"),
        Valid("SELECT id FROM t WHERE d = '{{ ds }}' AND valid_to = '9999-12-31';\n", path="report.sql"),
        Valid("SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem\n"
              "WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01';\n", path="q06.sql"),
        Valid("SELECT id, CASE WHEN d < '2020-01-01' THEN 'legacy' END AS era FROM t\n"
              "WHERE name = '2026-01-01-backup';\n", path="report.sql"),
    )

    def visit_Select(self, node) -> None:
        if node.parent is not None and _inside_select(node):
            return  # conditions are collected once, from the outermost query
        self._check(node)

    def visit_Delete(self, node) -> None:
        self._check(node)

    def visit_Update(self, node) -> None:
        self._check(node)

    def visit_Merge(self, node) -> None:
        self._check(node)

    def _check(self, node) -> None:
        if self.ctx.expression:
            return
        job = self._is_job()
        preview = self.ctx.settings.preview
        if not job and not (preview and not self.ctx.unit.document.is_notebook):
            return
        seen = getattr(self, "_seen", None)
        if seen is None:
            seen = self._seen = set()
        ranges = self.opts["ranges"] or (preview and job)
        for condition in filter_conditions(node):
            for literal, column, op in sql_date_predicates(condition, ranges):
                if id(literal) in seen:
                    continue
                seen.add(id(literal))
                what = "day" if op in ("=", "NullSafeEQ", "IN") else "window"
                self.ctx.report(
                    self, literal,
                    f"`{column}` is compared with the fixed date '{literal.this}': every scheduled run reads the "
                    f"same {what}",
                    help="take the date from the run: a template field (`'{{ ds }}'`), or `:day` bound with "
                    "`spark.sql(query, args={...})` (Spark 3.4+)")

    def _is_job(self) -> bool:
        document = self.ctx.unit.document
        if document.is_notebook:
            return False
        if self.ctx.embedded:
            return True
        from linter.sources.sql import is_templated

        if is_templated(document.text):
            return True
        root = self.ctx.statement.expression if self.ctx.statement is not None else None
        return root is not None and type(root).__name__ in _WRITES


def _inside_select(node) -> bool:
    from sqlglot import exp

    parent = node.parent
    while parent is not None:
        if isinstance(parent, (exp.Select, exp.Delete, exp.Update, exp.Merge)):
            return True
        parent = parent.parent
    return False
