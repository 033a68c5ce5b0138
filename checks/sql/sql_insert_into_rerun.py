import re

from checks.sql._sql import spelled_name, table_name
from linter.registry import Invalid, SqlRule, Valid

# statements that key a target: a DELETE or TRUNCATE before the insert, a MERGE anywhere
_KEYING = re.compile(r"\b(DELETE\s+FROM|TRUNCATE\s+TABLE|MERGE\s+INTO)\s+([\w`.]+)", re.IGNORECASE)
_CREATED = r"CREATE\s+(?:EXTERNAL\s+)?TABLE\s+IF\s+NOT\s+EXISTS\s+`?{}\b"
# a plain CREATE TABLE of the target: a second run of the script fails there, before the INSERT
_CREATED_ONCE = r"CREATE\s+(?:EXTERNAL\s+)?TABLE\s+(?!IF\s+NOT\s+EXISTS\b)`?{}\b"


def _keyed(name: str, text: str, before: int) -> bool:
    """Whether ``text`` deletes from, truncates (before offset ``before``) or merges into table ``name``.

    Names are compared by their last parts, so `DELETE FROM orders` keys `prod.sales.orders`: the
    unqualified name is the same table when the script runs in that database."""
    parts = name.split(".")
    for m in _KEYING.finditer(text):
        other = m.group(2).replace("`", "").lower().split(".")
        n = min(len(parts), len(other))
        if parts[-n:] == other[-n:] and (m.group(1).upper().startswith("MERGE") or m.start() < before):
            return True
    return False


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
    truncates before the insert (`DELETE FROM orders` keys `sales.orders`;
    in a notebook or a Python module's `spark.sql` strings, anywhere: their
    cells and functions may run in another order than written).
    A plain `INSERT INTO t SELECT` of a table created elsewhere is not
    reported: whether each run reads only new rows is not in the text.

    With `--preview`, that plain `INSERT INTO t SELECT` (or `VALUES`) is
    reported too, with the same exceptions: as for SPK320's appends from
    Python, an append is often right by design (each run reads only new
    rows, a load log wants every attempt), which a script cannot show.

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
    default_reason = ("an `INSERT INTO` that the statement shows to be rerun appends the same rows again, "
                      "doubling every total downstream; plain appends to tables made elsewhere stay in preview")

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
        Invalid("INSERT INTO analytics.fct_orders\nSELECT order_id, amount, order_date FROM raw.orders;\n",
                path="load_orders.sql"),
        Invalid("DELETE FROM sales.payments;\nINSERT INTO sales.orders SELECT id FROM staging.orders;\n",
                path="q.sql"),
        Invalid("INSERT INTO sales.orders SELECT id FROM staging.orders;\nDELETE FROM sales.orders WHERE d = 1;\n",
                path="q.sql"),
        Invalid("INSERT INTO audit.load_log VALUES ('orders', current_timestamp());\n", path="q.sql"),
    )
    valid = (
        Valid("CREATE TABLE flights (dest STRING, n INT);\nCREATE TABLE IF NOT EXISTS flights (dest STRING, n INT);\n"
              "INSERT INTO flights SELECT dest, n FROM staging.flights;\n", path="q.sql"),
        Valid("INSERT OVERWRITE TABLE sales.daily PARTITION (ds = '2024-06-01') SELECT id FROM sales.orders;\n",
              path="q.sql"),
        Valid("INSERT INTO sales.daily SELECT id FROM sales.orders;\n", path="q.sql", preview=False),
        Valid("INSERT INTO sales.daily PARTITION (ds = '2024-06-01') VALUES (1), (2);\n", path="q.sql",
              preview=False),
        Valid("DELETE FROM orders;\nINSERT INTO prod.sales.orders SELECT id FROM staging.orders;\n", path="q.sql"),
        Valid("TRUNCATE TABLE sales.orders;\nINSERT INTO sales.orders SELECT id FROM staging.orders;\n",
              path="q.sql"),
        Valid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
              "spark.sql(f'INSERT INTO {table} SELECT 1')\n", path="job.py"),
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
        preview = self.ctx.settings.preview
        query = node.expression
        values = not isinstance(query, exp.Query)
        if values and not preview:
            return  # VALUES: literal seed rows
        table = node.this.this if isinstance(node.this, exp.Schema) else node.this
        if not isinstance(table, exp.Table) or not table.name:
            return
        name = table_name(table)
        if not values and any(table_name(t) == name for t in query.find_all(exp.Table)):
            return  # reads its own target: an incremental load that skips what is there
        text = self.ctx.unit.document.text
        spelled = spelled_name(name)
        if self.ctx.embedded or self.ctx.unit.document.is_notebook:
            # a Python module's other spark.sql strings, a notebook's other cells: run in any order
            keyed = _keyed(name, text, len(text))
        else:
            keyed = _keyed(name, self.ctx.unit.text, self.ctx.statement.start)
        if keyed:
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
        elif preview:
            why = (f"`INSERT INTO {name}` appends: a rerun of this script writes its rows a second time, unless "
                   "each run reads only new rows (the text does not show it)")
            help = ("`INSERT OVERWRITE` of the run's partition, `MERGE INTO` on a key, or a `DELETE` of the run's "
                    "slice before the insert")
        else:
            return
        self.ctx.report(self, table.this, why, help=help)
