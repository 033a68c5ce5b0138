from linter.registry import Invalid, Option, SqlRule, Valid


class SelectStar(SqlRule):
    """
    ## What it does
    Finds `SELECT *` and `SELECT t.*` projections in Spark SQL: `.sql` files and
    `%sql` notebook cells.

    Reported in `.sql` files and in SQL embedded in Python modules, not in test
    modules. In notebooks (Jupyter, Databricks and Fabric, their `%sql` cells
    and Databricks SQL notebooks) a `SELECT *` is how one looks at a table:
    only `INSERT ... SELECT *`, which writes by position, is reported there.
    `CREATE TABLE ... AS SELECT *` (a copy of every column on purpose) and
    `CREATE VIEW ... AS SELECT *` (its readers' own column lists are pruned)
    are not reported. Two hand-judged samples of this rule's findings on real
    notebooks found none right: that is why notebooks are left out.
    With `--preview`, a `CREATE TABLE ... AS SELECT *` in a `.sql` file or a
    Python module is reported: the table takes whatever columns the source has
    on the day it runs, so a column added upstream changes its schema (and
    its readers') without a change here. Whether that copy is meant is a
    judgement the file cannot settle.

    Not reported: `COUNT(*)`, `EXISTS (SELECT * ...)`, and (by default) a star
    over a subquery or a CTE defined in the same statement, or over a temporary
    view the same file registers (`df.createOrReplaceTempView("v")`, `CREATE
    TEMP VIEW v`, an f-string name matching the query's templated one), whose
    columns were already chosen where it is defined; with joins, a star
    qualified by that view's alias (`SELECT s.* FROM updates s LEFT JOIN
    dim t ON ...`). Nor a star inside a
    subquery of a `FROM` or `JOIN` whose outer query names its columns
    (`SELECT o.id, o.amount FROM (SELECT * FROM orders) o`): the optimizer
    prunes the star to those columns. Nor a query of its own that only
    looks at a few rows (`SELECT * FROM t LIMIT 10`: a literal limit of at
    most 1,000, in no `INSERT` or `CREATE`). Nor an `INSERT` whose `SELECT *`
    reads only the table it writes (`INSERT OVERWRITE t SELECT * FROM t
    VERSION AS OF 3`, a rollback). Nor a `spark.sql(...)`
    query whose DataFrame the code narrows straight away
    (`spark.sql("SELECT * FROM t").select(cols)`, or `df = spark.sql(...)`
    followed by `df = df.select(cols)`): the optimizer prunes the star to
    those columns before the scan. Nor one whose DataFrame is only looked at
    straight away (`spark.sql("SELECT * FROM t").show()`, `.printSchema()`,
    `.columns`, `display(spark.sql(...))`): that is how one looks at a table,
    in a job as in a notebook (SPK411 judges a `show` left in a job). Nor a
    bare `spark.sql("SELECT * FROM t")`, or one with only a `WHERE` (no
    join, grouping, sort or limit): that is `spark.table("t")` (with a
    `.where(...)`), whose columns are pruned to what the code reads from
    it, and which this rule does not report either. A `.sql` file's query
    returns its rows whole, and is reported.

    ## Why is this bad?
    A star reads every column of the table. With Parquet, ORC or Delta the scan
    can skip the columns a query does not name; `*` makes it read them all
    (check `ReadSchema` in the plan). The query's output also changes whenever
    the table gains a column, which breaks `INSERT ... SELECT *` by position and
    downstream schemas.

    ## Example
    ```sql
    SELECT * FROM sales.orders WHERE order_date = DATE '2024-01-01';
    ```

    ## Use instead
    ```sql
    SELECT order_id, customer_id, amount FROM sales.orders WHERE order_date = DATE '2024-01-01';
    ```

    ## Fix safety
    No fix: the columns a query needs are the author's choice.

    ## Options
    - `allow-from-subquery` (bool, default true): allow a star over a subquery,
      a CTE of the same statement, or a temporary view the same file registers.

    ## References
    - Spark SQL guide, "Parquet Files" (column pruning) and "Performance Tuning".
    """

    code = "SPK501"
    skip_in_tests = True
    name = "select-star"
    summary = "`SELECT *` reads every column and changes with the table"
    default_reason = ("a star reads every column a columnar scan could skip, and `INSERT ... SELECT *` "
                      "breaks when the table gains a column; stars the optimizer prunes are not reported")
    options = {"allow-from-subquery": Option(True, "Allow a star over a subquery or a CTE of the statement.")}

    invalid = (
        Invalid("# Databricks notebook source\nspark.sql('INSERT INTO sales.archive SELECT * FROM sales.orders')\n",
                path="archive.py"),
        Invalid("SELECT * FROM sales.orders WHERE order_date = DATE '2024-01-01';\n", path="q.sql"),
        Invalid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
                "def save(df):\n    df.createOrReplaceTempView('updates')\n"
                "    spark.sql('INSERT INTO dim.customer SELECT t.* FROM updates s JOIN dim.customer t ON s.id = t.id')\n",
                path="job.py"),
        Invalid("SELECT o.*, c.name\nFROM orders o JOIN customers c ON o.cid = c.id;\n", path="q.sql"),
        Invalid("INSERT INTO archive SELECT * FROM events;\n", path="q.sql"),
        Invalid("INSERT OVERWRITE sales.orders SELECT * FROM staging.orders;\n", path="q.sql"),
        Invalid("SELECT x.* FROM (SELECT * FROM events) x;\n", path="q.sql"),
        Invalid("INSERT INTO sample_orders SELECT * FROM orders LIMIT 100;\n", path="q.sql"),
        Invalid("SELECT * FROM orders LIMIT 1000000;\n", path="q.sql"),
        Invalid(
            "WITH c AS (SELECT * FROM t) SELECT * FROM c;\n", path="q.sql"
        ),
        Invalid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
                "df = spark.sql('SELECT * FROM sales.orders o JOIN sales.customers c ON o.cid = c.id')\n"
                "print(df.count())\ndf = df.select('id')\n",
                path="job.py"),
        Invalid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
                "spark.sql('INSERT INTO sales.archive SELECT * FROM sales.orders WHERE amount > 0')\n",
                path="job.py"),
        Invalid("CREATE OR REPLACE TABLE gold.orders_snapshot AS SELECT * FROM silver.orders;\n", path="q.sql"),
    )
    valid = (
        Valid("CREATE TABLE sales.orders_copy AS SELECT * FROM sales.orders;\n", path="q.sql", preview=False),
        Valid("# Databricks notebook source\n# COMMAND ----------\n"
              "spark.sql('CREATE TABLE scratch.orders AS SELECT * FROM sales.orders')\n", path="explore.py"),
        Valid("SELECT * FROM sales.orders;\n", path="tests/sql/test_orders.sql"),
        Valid("# Databricks notebook source\ndisplay(spark.sql('SELECT * FROM sales.orders'))\n", path="look.py"),
        Valid("SELECT count(*) AS n FROM orders;\n", path="q.sql"),
        Valid("SELECT id FROM a WHERE EXISTS (SELECT * FROM b WHERE b.id = a.id);\n", path="q.sql"),
        Valid("WITH c AS (SELECT id, amount FROM t) SELECT * FROM c;\n", path="q.sql"),
        Valid("CREATE OR REPLACE VIEW sales.recent AS SELECT * FROM sales.orders WHERE day > current_date() - 7;\n",
              path="q.sql"),
        Valid("SELECT * FROM (SELECT id, amount FROM t) x;\n", path="q.sql"),
        Valid("INSERT INTO fct SELECT o.id, o.amount FROM (SELECT * FROM orders) AS o;\n", path="q.sql"),
        Valid("SELECT * FROM staging.orders LIMIT 10;\n", path="q.sql"),
        Valid("INSERT OVERWRITE sales.orders SELECT * FROM sales.orders VERSION AS OF 3;\n", path="q.sql"),
        Valid("SELECT o.id, c.name FROM orders o JOIN (SELECT * FROM customers) c ON o.cid = c.id;\n", path="q.sql"),
        Valid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
              "spark.table('orders').select('id', 'amount').createOrReplaceTempView('recent')\n"
              "rows = spark.sql('SELECT * FROM recent')\n", path="job.py"),
        Valid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
              "def check(df, name):\n    df.createOrReplaceTempView(f'{name}_temp')\n"
              "    return spark.sql(f'SELECT * FROM {name}_temp')\n", path="job.py"),
        Valid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
              "def save(df, dst):\n    df.createOrReplaceTempView('updates')\n"
              "    spark.sql(f'INSERT INTO {dst} SELECT s.* EXCEPT (loaded_at), current_timestamp() AS loaded_at '\n"
              "              f'FROM updates s LEFT JOIN {dst} t ON s.id = t.id WHERE t.id IS NULL')\n", path="job.py"),
        Valid("CREATE OR REPLACE TEMP VIEW recent AS SELECT id, amount FROM orders;\nSELECT * FROM recent;\n",
              path="q.sql"),
        Valid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
              "def reread(table, columns):\n    df = spark.sql(f'select * from {table}_temp')\n"
              "    df = df.select(columns)\n    return df\n", path="job.py"),
        Valid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
              "amounts = spark.sql('SELECT * FROM sales.orders').select('id', 'amount')\n", path="job.py"),
        Valid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
              "recent = spark.sql(\"SELECT * FROM events WHERE date > '2024-01-01'\")\n"
              "recent.groupBy('status').count().write.mode('overwrite').saveAsTable('status_counts')\n",
              path="job.py"),
        Valid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
              "se = SparkExpectations(product_id='orders', rules_df=spark.sql('select * from dq.rules'))\n",
              path="job.py"),
        Valid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
              "spark.sql('select * from dq.stats').show(truncate=False)\n"
              "spark.sql('select * from dq.stats').printSchema()\n", path="job.py"),
    )

    def visit_Star(self, node) -> None:
        from sqlglot import exp

        holder = node.parent
        qualifier = None
        if isinstance(holder, exp.Column):  # t.*
            qualifier = holder.table or None
            holder = holder.parent
        if not isinstance(holder, exp.Select) or node.arg_key not in ("this", "expressions"):
            return
        if holder.parent is not None and isinstance(holder.parent, exp.Exists):
            return
        if self.ctx.expression and holder.parent is None:
            return  # `F.expr("*")`, `count(F.expr("*"))`: not a query's projection
        if self.opts["allow-from-subquery"] and (self._from_derived(holder) or self._from_temp_view(holder, qualifier)):
            return
        if self._narrowed_outside(holder):
            return  # `SELECT a, b FROM (SELECT * FROM s) x`: the outer query's columns prune the star
        statement = holder
        while statement.parent is not None and not isinstance(statement.parent, (exp.Insert, exp.Create)):
            statement = statement.parent
        into = statement.parent
        message = "`SELECT *` reads every column of the source; name the columns the query needs"
        help = "list the columns explicitly so the scan can prune the others"
        if isinstance(into, exp.Create):
            # `CREATE TABLE t AS SELECT *` copies every column on purpose (a judgement: preview); a view's
            # readers prune
            if not (self.ctx.settings.preview and str(into.args.get("kind") or "").upper() == "TABLE"
                    and not self.ctx.unit.document.is_notebook):
                return
            message = ("`CREATE TABLE ... AS SELECT *` takes every column the source has on the day it runs: a "
                       "column added upstream changes this table's schema, and its readers', with no change here")
            help = "list the columns the table is meant to hold"
        if isinstance(into, exp.Insert) and holder is statement and self._from_itself(holder, into):
            return  # `INSERT OVERWRITE t SELECT * FROM t VERSION AS OF 3`: a table restored from its own past
        if into is None and self.ctx.projected:
            return  # `spark.sql("SELECT * FROM t").select(cols)`: the optimizer prunes the star to `cols`
        if into is None and self.ctx.embedded and holder is statement and _bare(holder):
            return  # `spark.sql("SELECT * FROM t")` is `spark.table("t")`: what reads it decides the columns
            # (a WHERE alike: measured on local Spark, a later `groupBy("status")` scans `struct<status>` only)
        if into is None and holder is statement and self._small_limit(holder):
            return  # `SELECT * FROM t LIMIT 10` on its own: a look at a few rows, as in a notebook
        if not isinstance(into, exp.Insert) and self.ctx.unit.document.is_notebook:
            return  # a notebook's `SELECT *` (a %sql cell, `display(spark.sql(...))`) is how one looks at a table
        self.ctx.report(self, node, message, help=help)

    def _from_temp_view(self, select, qualifier=None) -> bool:
        """The star reads a temporary view the file registers: the only source (`SELECT * FROM v`), or the one
        its qualifier names among joined ones (`SELECT s.* ... FROM v s LEFT JOIN t ...`)."""
        from sqlglot import exp

        from linter.sources.sql import temp_view_names

        source = select.args.get("from_") or select.args.get("from")
        if source is None or not isinstance(source.this, exp.Table):
            return False
        table = source.this
        if select.args.get("joins"):
            if qualifier is None:
                return False
            tables = [table] + [j.this for j in select.args["joins"]]
            named = [t for t in tables if isinstance(t, exp.Table) and (t.alias_or_name or "").lower() == qualifier.lower()]
            if len(named) != 1:
                return False
            table = named[0]
        if table.db and table.db.lower() != "global_temp":
            return False
        return temp_view_names(self.ctx.unit.document.text).matches(table.name)

    @staticmethod
    def _from_itself(select, insert) -> bool:
        """The select reads only the table the INSERT writes (a rollback, a rewrite in place): every column is
        meant, and the positions are the table's own."""
        from sqlglot import exp

        source = select.args.get("from_") or select.args.get("from")
        target = insert.this.this if isinstance(insert.this, exp.Schema) else insert.this
        if source is None or select.args.get("joins") or not isinstance(source.this, exp.Table) \
                or not isinstance(target, exp.Table):
            return False
        return source.this.name.lower() == target.name.lower() and \
            (source.this.db or "").lower() == (target.db or "").lower()

    @staticmethod
    def _small_limit(select) -> bool:
        """A literal `LIMIT n` of at most 1,000 rows."""
        from sqlglot import exp

        limit = select.args.get("limit")
        value = limit.args.get("expression") if isinstance(limit, exp.Limit) else None
        return isinstance(value, exp.Literal) and not value.is_string and str(value.this).isdigit() and \
            int(str(value.this)) <= 1000

    @staticmethod
    def _narrowed_outside(select) -> bool:
        """The select is a subquery in the FROM or a JOIN of a query that names its columns (no star)."""
        from sqlglot import exp

        subquery = select.parent
        if not isinstance(subquery, exp.Subquery) or not isinstance(subquery.parent, (exp.From, exp.Join)):
            return False
        outer = subquery.parent.parent
        return isinstance(outer, exp.Select) and not any(
            isinstance(e, exp.Star) or isinstance(e, exp.Column) and isinstance(e.this, exp.Star)
            for e in outer.expressions
        )

    @staticmethod
    def _from_derived(select) -> bool:
        from sqlglot import exp

        source = select.args.get("from_") or select.args.get("from")
        if source is None or select.args.get("joins"):
            return False
        table = source.this
        if isinstance(table, exp.Subquery):
            return True
        if isinstance(table, exp.Table) and not table.db:
            name = table.name.lower()
            scope = select
            while scope is not None:
                with_ = scope.args.get("with_") or scope.args.get("with")
                if with_ is not None and any(cte.alias_or_name.lower() == name for cte in with_.expressions):
                    return True
                scope = scope.parent
        return False


def _bare(select) -> bool:
    """`SELECT * FROM t`, or `SELECT * FROM t WHERE ...`: a star over one table, and no other clause than a
    filter (`spark.table("t").where(...)`, pruned alike: a filter keeps every column it does not test)."""
    from sqlglot import exp

    source = select.args.get("from_") or select.args.get("from")
    return (len(select.expressions) == 1 and isinstance(select.expressions[0], exp.Star)
            and source is not None and isinstance(source.this, exp.Table)
            and not any(v for k, v in select.args.items() if k not in ("expressions", "from_", "from", "where")))
