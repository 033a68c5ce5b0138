import re

from linter.registry import Invalid, SqlRule, Valid

_KEYED = r"(?:DELETE\s+FROM|MERGE\s+INTO|TRUNCATE\s+TABLE)\s*`?{}\b"
_CREATED = r"CREATE\s+(?:EXTERNAL\s+)?TABLE\s+IF\s+NOT\s+EXISTS\s+`?{}\b"
# a plain CREATE TABLE of the target: a second run of the script fails there, before the INSERT
_CREATED_ONCE = r"CREATE\s+(?:EXTERNAL\s+)?TABLE\s+(?!IF\s+NOT\s+EXISTS\b)`?{}\b"


def _name(table) -> str:
    return ".".join(p for p in (table.catalog, table.db, table.name) if p).lower()


def _spelled(name: str) -> str:
    """A regex for a table name as a script may write it (backticks around any part)."""
    return r"`?\.`?".join(re.escape(part) for part in name.split("."))


class SqlInsertIntoRerun(SqlRule):
    """
    ## What it does
    Finds `INSERT INTO t ... SELECT` (an append) where the statement itself
    shows that the job writes a slice it may write again:

    - it names a partition: `INSERT INTO t PARTITION (ds = '2024-06-01') SELECT ...`
      (or a dynamic `PARTITION (ds)`);
    - the same script creates `t` with `CREATE TABLE IF NOT EXISTS`, that is,
      it is written to be run again.

    Not reported: a script that also creates `t` with a plain `CREATE TABLE`
    (a rerun fails there, before the insert), `INSERT OVERWRITE`, `INSERT INTO ... REPLACE WHERE`,
    `INSERT ... VALUES` (seed rows), a query that reads `t` itself (an
    incremental load: `WHERE NOT EXISTS (SELECT ... FROM t)`, `max(ts)` of
    `t`), and a target the script also deletes from, merges into or
    truncates. A plain `INSERT INTO t SELECT` of a table created elsewhere
    is not reported: whether each run reads only new rows is not in the text.

    ## Why is this bad?
    Pipelines are rerun: a scheduler retries a failed task, an engineer
    reruns a day after a fix. `INSERT INTO` has no key, so the rerun appends
    the same rows a second time and every total downstream is doubled.
    `INSERT OVERWRITE` of the partition (dynamic partition overwrite for
    `PARTITION (ds)`) replaces exactly what the run produces, so running it
    twice gives the same table.

    ## Example
    ```sql
    INSERT INTO sales.daily PARTITION (ds = '2024-06-01')
    SELECT customer_id, SUM(amount) AS amount FROM sales.orders WHERE ds = '2024-06-01' GROUP BY customer_id;
    ```

    ## Use instead
    ```sql
    INSERT OVERWRITE TABLE sales.daily PARTITION (ds = '2024-06-01')
    SELECT customer_id, SUM(amount) AS amount FROM sales.orders WHERE ds = '2024-06-01' GROUP BY customer_id;
    ```

    ## Fix safety
    No fix: the overwrite also removes rows other jobs may have appended to the partition.

    ## References
    - Spark SQL reference, "INSERT TABLE" (`INSERT INTO` appends, `INSERT OVERWRITE` replaces the partition).
    - Spark SQL configuration: `spark.sql.sources.partitionOverwriteMode` (for `PARTITION (ds)` without a value).
    """

    code = "SPK520"
    name = "sql-insert-into-rerun"
    summary = "`INSERT INTO` a partition or a rerunnable script's table appends the rows again on a rerun"

    invalid = (
        Invalid("INSERT INTO sales.daily PARTITION (ds = '2024-06-01')\n"
                "SELECT customer_id, SUM(amount) FROM sales.orders WHERE ds = '2024-06-01' GROUP BY customer_id;\n",
                path="q.sql"),
        Invalid("INSERT INTO TABLE sales.daily PARTITION (ds) SELECT customer_id, amount, ds FROM sales.staged;\n",
                path="q.sql"),
        Invalid("CREATE TABLE IF NOT EXISTS sales.daily (customer_id BIGINT, amount DOUBLE) USING delta;\n"
                "INSERT INTO sales.daily SELECT customer_id, SUM(amount) FROM sales.orders GROUP BY customer_id;\n",
                path="q.sql"),
        Invalid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
                "spark.sql(\"INSERT INTO sales.daily PARTITION (ds = '2024-06-01') SELECT id FROM sales.orders\")\n",
                path="job.py"),
    )
    valid = (
        Valid("CREATE TABLE flights (dest STRING, n INT);\nCREATE TABLE IF NOT EXISTS flights (dest STRING, n INT);\n"
              "INSERT INTO flights SELECT dest, n FROM staging.flights;\n", path="q.sql"),
        Valid("INSERT OVERWRITE TABLE sales.daily PARTITION (ds = '2024-06-01') SELECT id FROM sales.orders;\n",
              path="q.sql"),
        Valid("INSERT INTO sales.daily SELECT id FROM sales.orders;\n", path="q.sql"),
        Valid("INSERT INTO sales.daily PARTITION (ds = '2024-06-01') VALUES (1), (2);\n", path="q.sql"),
        Valid("INSERT INTO sales.daily REPLACE WHERE ds = '2024-06-01' SELECT id, ds FROM sales.orders;\n",
              path="q.sql"),
        Valid("DELETE FROM sales.daily WHERE ds = '2024-06-01';\n"
              "INSERT INTO sales.daily PARTITION (ds = '2024-06-01') SELECT id FROM sales.orders;\n", path="q.sql"),
        Valid("CREATE TABLE IF NOT EXISTS sales.daily (id BIGINT) USING delta;\n"
              "INSERT INTO sales.daily SELECT o.id FROM sales.orders o\n"
              "WHERE NOT EXISTS (SELECT 1 FROM sales.daily d WHERE d.id = o.id);\n", path="q.sql"),
    )

    def visit_Insert(self, node) -> None:
        from sqlglot import exp

        if node.args.get("overwrite") or node.args.get("where") is not None:
            return
        query = node.expression
        if not isinstance(query, exp.Query):
            return  # VALUES: literal seed rows
        table = node.this.this if isinstance(node.this, exp.Schema) else node.this
        if not isinstance(table, exp.Table) or not table.name:
            return
        name = _name(table)
        if any(_name(t) == name for t in query.find_all(exp.Table)):
            return  # reads its own target: an incremental load that skips what is there
        text = self.ctx.unit.document.text
        spelled = _spelled(name)
        if re.search(_KEYED.format(spelled), text, re.IGNORECASE):
            return
        if re.search(_CREATED_ONCE.format(spelled), text, re.IGNORECASE):
            return  # `CREATE TABLE t ...` without IF NOT EXISTS in the script: a rerun stops there
        partition = table.args.get("partition")
        if partition is not None:
            why = f"`INSERT INTO {name} PARTITION (...)` appends to the partition: a rerun writes its rows a second time"
            help = "`INSERT OVERWRITE TABLE ... PARTITION (...)` replaces the partition, so a rerun gives the same table"
        elif re.search(_CREATED.format(spelled), text, re.IGNORECASE):
            why = (f"`INSERT INTO {name}` appends to a table this script creates `IF NOT EXISTS` (it is meant to "
                   "run again): each run adds the rows again")
            help = "`INSERT OVERWRITE`, or `MERGE INTO` on a key, so that a rerun gives the same table"
        else:
            return
        self.ctx.report(self, table.this, why, help=help)
