import re

from checks.python._literals_and_reads import date_like_name, date_text
from checks.python._rerun_safety import sets_overwrite_mode
from checks.sql._sql import normalise, partitioned_tables, spelled_name, table_name
from linter.registry import Invalid, SqlRule, Valid

_CREATED = r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:EXTERNAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?`?{}`?\b"
_JOB = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"


class SqlOverwriteAllPartitions(SqlRule):
    """
    ## What it does
    Finds `INSERT OVERWRITE [TABLE] t SELECT ...` with no `PARTITION (...)`
    clause whose query holds only a slice of a column it writes: its
    `WHERE` keeps one value (or a list) of that column (`WHERE ds = '{{ ds }}'`,
    `ds IN (...)`) and the column is among the query's output. SPK321 is the
    same mistake written with the DataFrame writer.

    Reported when the script creates `t` as a data source table
    (`USING parquet`/`delta`/...) `PARTITIONED BY` that column. With
    `--preview`, also when the file does not show how `t` is partitioned and
    the slice is of a date (a column named like one, `ds`, `day`,
    `order_date`, or date values): if `t` is partitioned by it the other
    partitions are deleted, and if it is not, the table keeps only this
    slice; either may be what is meant.

    Not reported: a script or module that sets `partitionOverwriteMode`
    anywhere to anything but `static` (`SET
    spark.sql.sources.partitionOverwriteMode = dynamic`, the session's
    configuration), a `PARTITION (...)` clause (it names what is
    replaced), a table the file creates `STORED AS` (a Hive table: its
    inserts replace only the partitions written) or without `PARTITIONED BY`,
    a query that reads the table it overwrites (a rewrite of the table
    itself), and a `WHERE` whose value comes from another column.

    ## Why is this bad?
    With the default `spark.sql.sources.partitionOverwriteMode=static`,
    `INSERT OVERWRITE` of a partitioned data source table without a
    partition spec first deletes *every* partition, then writes the ones the
    query returns. A daily job that refreshes one day this way leaves only
    that day: the history is gone on the first run.

    ## Example
    ```sql
    CREATE TABLE IF NOT EXISTS gold.store_revenue (store_id BIGINT, revenue DOUBLE, order_date DATE)
    USING parquet PARTITIONED BY (order_date);

    INSERT OVERWRITE TABLE gold.store_revenue
    SELECT store_id, SUM(amount) AS revenue, order_date FROM silver.orders
    WHERE order_date = '{{ ds }}' GROUP BY store_id, order_date;
    ```

    ## Use instead
    ```sql
    INSERT OVERWRITE TABLE gold.store_revenue PARTITION (order_date = '{{ ds }}')
    SELECT store_id, SUM(amount) AS revenue FROM silver.orders
    WHERE order_date = '{{ ds }}' GROUP BY store_id;
    ```
    Or `SET spark.sql.sources.partitionOverwriteMode = dynamic;` before the
    insert, which replaces only the partitions the query returns.

    ## Fix safety
    No fix: the session may set the mode elsewhere (spark-defaults.conf, the cluster).

    ## References
    - Spark SQL reference, "INSERT TABLE" (`INSERT OVERWRITE` with and without a partition spec).
    - Spark SQL configuration: `spark.sql.sources.partitionOverwriteMode` ("static" replaces all
      partitions matching the partition spec, none given here; "dynamic" only those written), Spark 2.3+.
    """

    code = "SPK524"
    name = "sql-overwrite-all-partitions"
    summary = "`INSERT OVERWRITE` of a partitioned table with one slice and no partition spec replaces every partition"
    default_reason = ("under static overwrite, `INSERT OVERWRITE` of one slice with no partition spec "
                      "deletes every other partition; reported only where the script shows the partitioning")
    severity = "error"
    min_spark = "2.3"

    invalid = (
        Invalid("CREATE TABLE IF NOT EXISTS gold.store_revenue (store_id BIGINT, revenue DOUBLE, order_date DATE)\n"
                "USING parquet PARTITIONED BY (order_date);\n\n"
                "INSERT OVERWRITE TABLE gold.store_revenue\n"
                "SELECT store_id, SUM(amount) AS revenue, order_date FROM silver.orders\n"
                "WHERE order_date = '{{ ds }}' GROUP BY store_id, order_date;\n", path="daily_revenue.sql"),
        Invalid(_JOB + "spark.sql('CREATE TABLE IF NOT EXISTS lake.events (id BIGINT, ds STRING) USING delta "
                "PARTITIONED BY (ds)')\n"
                "spark.sql(\"INSERT OVERWRITE lake.events SELECT id, ds FROM raw.events WHERE ds IN ('2024-06-01', "
                "'2024-06-02')\")\n", path="job.py"),
        Invalid("-- Rebuild the store revenue mart for the run date.\nINSERT OVERWRITE TABLE gold.store_revenue\n"
                "SELECT store_id, order_date, SUM(amount) AS revenue FROM silver.orders\n"
                "WHERE order_date = '{{ ds }}' AND status = 'completed'\nGROUP BY store_id, order_date;\n",
                path="store_revenue.sql"),
        Invalid("SET spark.sql.sources.partitionOverwriteMode = static;\n"
                "CREATE TABLE IF NOT EXISTS lake.visits (user_id BIGINT, visit_day DATE) USING delta "
                "PARTITIONED BY (visit_day);\n"
                "INSERT OVERWRITE TABLE lake.visits SELECT user_id, visit_day FROM raw.visits "
                "WHERE visit_day = '{{ ds }}';\n", path="visits.sql"),
    )
    valid = (
        Valid("-- Rebuild the store revenue mart for the run date.\nINSERT OVERWRITE TABLE gold.store_revenue\n"
              "SELECT store_id, order_date, SUM(amount) AS revenue FROM silver.orders\n"
              "WHERE order_date = '{{ ds }}' GROUP BY store_id, order_date;\n", path="store_revenue.sql",
              preview=False),
        Valid("INSERT OVERWRITE TABLE gold.store_revenue PARTITION (order_date = '{{ ds }}')\n"
              "SELECT store_id, SUM(amount) FROM silver.orders WHERE order_date = '{{ ds }}' GROUP BY store_id;\n",
              path="q.sql"),
        Valid("SET spark.sql.sources.partitionOverwriteMode = dynamic;\nINSERT OVERWRITE TABLE gold.store_revenue\n"
              "SELECT store_id, SUM(amount), order_date FROM silver.orders WHERE order_date = '{{ ds }}'\n"
              "GROUP BY store_id, order_date;\n", path="q.sql"),
        Valid("CREATE TABLE IF NOT EXISTS gold.revenue (store_id BIGINT, order_date STRING) PARTITIONED BY (order_date)"
              " STORED AS PARQUET;\nINSERT OVERWRITE TABLE gold.revenue SELECT store_id, order_date FROM silver.orders"
              " WHERE order_date = '2024-06-01';\n", path="q.sql"),
        Valid("INSERT OVERWRITE TABLE gold.sales SELECT order_date, SUM(amount) FROM silver.orders GROUP BY order_date;\n",
              path="q.sql"),
        Valid("INSERT OVERWRITE TABLE gold.current SELECT id, status FROM silver.accounts WHERE status = 'open';\n",
              path="q.sql"),
        Valid("INSERT OVERWRITE TABLE lake.events SELECT * FROM lake.events WHERE ds = '2024-06-01';\n", path="q.sql"),
        Valid(_JOB + "spark.conf.set('spark.sql.sources.partitionOverwriteMode', 'dynamic')\n"
              "spark.sql(\"INSERT OVERWRITE lake.events SELECT id, ds FROM raw.events WHERE ds = '2024-06-01'\")\n",
              path="job.py"),
    )

    def visit_Insert(self, node) -> None:
        from sqlglot import exp

        if not node.args.get("overwrite"):
            return
        table = node.this.this if isinstance(node.this, exp.Schema) else node.this
        if not isinstance(table, exp.Table) or not table.name or table.args.get("partition") is not None:
            return
        query = node.expression
        if not isinstance(query, exp.Select):
            return
        text = self.ctx.unit.document.text
        if sets_overwrite_mode(text):
            return  # the mode is set in this file (to anything but `static`): trust it
        name = table_name(table)
        if any(table_name(t) == name for t in query.find_all(exp.Table)):
            return  # rewrites the table from itself
        columns = partitioned_tables(text).get(normalise(name))
        if columns is None:
            created = re.search(_CREATED.format(spelled_name(name)), text, re.IGNORECASE)
            if created or not self.ctx.settings.preview:
                return  # a Hive table, or one made without PARTITIONED BY; or its partitioning is not in the file
        found = _slice(query, columns)
        if found is None:
            return
        column, values = found
        if columns is None and not (date_like_name(column) or all(date_text(v.this) for v in values)):
            return  # `WHERE status = 'open'` into a table of unknown layout: a current-state table, most likely
        if columns is not None:
            why = (f"`INSERT OVERWRITE {name}` has no `PARTITION (...)`: it deletes every partition of the table, "
                   f"but the query holds only some values of `{column}`, its partition column: the others are lost "
                   "(static partition overwrite is the default)")
        else:
            why = (f"`INSERT OVERWRITE {name}` has no `PARTITION (...)` and the query holds only some values of "
                   f"`{column}`: if the table is partitioned by `{column}`, every other partition is deleted (static "
                   "partition overwrite is the default); if it is not, the table keeps only this slice")
        self.ctx.report(
            self, table.this, why,
            help=f"name the partition, `PARTITION ({column} = ...)`, or `SET "
                 "spark.sql.sources.partitionOverwriteMode = dynamic` so only the partitions written are replaced")


def _slice(select, columns):
    """(the output column the query's WHERE holds to constant values (`c = 'x'`, `c IN ('x', 'y')`, in the
    top-level AND of the condition), those values); among ``columns`` when they are known. None when there is
    none."""
    from sqlglot import exp

    where = select.args.get("where")
    if where is None:
        return None
    outputs = {e.alias_or_name.lower() for e in select.expressions if e.alias_or_name}
    if any(isinstance(e, exp.Star) for e in select.expressions):
        outputs.add("*")
    conjuncts, stack = [], [where.this]
    while stack:
        part = stack.pop()
        if isinstance(part, exp.And):
            stack += [part.left, part.right]
        elif isinstance(part, exp.Paren):
            stack.append(part.this)
        else:
            conjuncts.append(part)
    for part in conjuncts:
        if isinstance(part, exp.EQ):
            sides = [(part.left, [part.right]), (part.right, [part.left])]
        elif isinstance(part, exp.In) and part.expressions:
            sides = [(part.this, part.expressions)]
        else:
            continue
        for column, values in sides:
            if not isinstance(column, exp.Column) or not all(isinstance(v, exp.Literal) for v in values):
                continue
            name = column.name.lower()
            if (name in outputs or "*" in outputs) and (columns is None or name in [c.lower() for c in columns]):
                return column.name, values
    return None
