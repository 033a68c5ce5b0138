import libcst as cst

from checks.python._driver import shown
from checks.python._rerun_safety import (
    emptied_before,
    record_emptied,
    stream_write_calls,
    target_key,
    write_info,
)
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import keyword_arg, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
    "daily = spark.table('sales.orders').groupBy('day').count()\n"
)
_TABLE_WRITES = frozenset({"saveAsTable", "insertInto"})
# formats whose overwrite also deletes the old files before writing the new ones: no atomic alternative to offer
_PLAIN_FILES = frozenset({"parquet", "csv", "json", "orc", "text", "avro", "xml"})


class DropBeforeWrite(PythonRule):
    """
    ## What it does
    Finds `spark.sql("DROP TABLE t")`, a recursive `dbutils.fs.rm(path, True)` or `shutil.rmtree(path)`
    (`mssparkutils`, `notebookutils` too) followed, in the same function, by a
    DataFrame write to the same table or path: the same literal, the same
    variable, or the same f-string (a constant field read as its text). A
    streaming query's `toTable(t)` counts too: its checkpoint resumes after the
    batches already written, so a table dropped at each start keeps only the
    new ones.

    A deleted path written as plain files (`write.parquet(path)`, `.csv`,
    `.json`, `format("orc").save(path)`) is not reported: an overwrite of
    such a path deletes its files before writing too, so nothing safer is
    on offer (two hand-judged samples found these findings wrong). A path
    written as Delta, Iceberg or Hudi, or with no format named (Databricks
    writes Delta by default), and every dropped table, are reported.

    ## Why is this bad?
    The old data is deleted before the new data exists. If the write fails
    (a bad row, a lost executor, a timeout), the job ends with no table at
    all, and every reader fails until a rerun succeeds; `DROP TABLE` also
    loses the table's properties, comments and grants. An overwrite does the
    same job in one step: with Delta Lake, Iceberg or Hudi it is one atomic
    commit, and readers keep seeing the old version until the new one is
    complete (and an earlier version can be restored).

    ## Example
    ```python
    spark.sql("DROP TABLE IF EXISTS sales.daily")
    daily.write.format("delta").saveAsTable("sales.daily")
    ```

    ## Use instead
    ```python
    daily.write.format("delta").mode("overwrite").option("overwriteSchema", "true").saveAsTable("sales.daily")
    ```

    ## Fix safety
    No fix: the write's mode and schema options need choosing.

    ## References
    - Delta Lake documentation, "Table batch reads and writes" ("Overwrite", atomic replacement).
    - Databricks documentation, "Best practices: Delta Lake" ("Replace the content or schema of a table").
    """

    code = "SPK322"
    name = "drop-before-write"
    summary = "a table or path deleted right before a write to it is gone if the write fails"
    default_reason = ("a table or path deleted just before its write is gone when the write fails, and every "
                      "reader fails until a rerun; plain-file paths, with nothing safer, are not reported")
    triggers = ("DROP", "drop", "rm(", "rmtree")
    doc_setup = 'daily = spark.table("sales.orders").groupBy("day").count()\n'

    invalid = (
        Invalid(_SETUP + "spark.sql('DROP TABLE IF EXISTS lake.events')\n"
                "raw = spark.readStream.format('kafka').option('subscribe', 'events').load()\n"
                "q = raw.writeStream.format('delta').option('checkpointLocation', 's3://ck/events').toTable('lake.events')\n"),
        Invalid(_SETUP + "SUMMARY = 'glue_catalog.db.summary'\nspark.sql(f'DROP TABLE IF EXISTS {SUMMARY}')\n"
                "daily.writeTo(SUMMARY).append()\n"),
        Invalid(_SETUP + "spark.sql('DROP TABLE IF EXISTS sales.daily')\n"
                "daily.write.format('delta').saveAsTable('sales.daily')\n"),
        Invalid(_SETUP + "import shutil\nshutil.rmtree('/dbfs/mnt/curated/daily')\n"
                "daily.write.format('delta').save('/dbfs/mnt/curated/daily')\n"),
        Invalid(_SETUP + "out = '/mnt/curated/daily'\ndbutils.fs.rm(out, True)\n"
                "daily.write.mode('overwrite').save(out)\n"),
        Invalid(_SETUP + "def publish(df, table):\n    spark.sql(f'DROP TABLE IF EXISTS {table}')\n"
                "    df.write.mode('overwrite').saveAsTable(table)\n"),
        Invalid(_SETUP + "spark.sql('drop table daily')\ndaily.write.insertInto('sales.daily')\n"),
    )
    valid = (
        Valid(_SETUP + "daily.write.format('delta').mode('overwrite').saveAsTable('sales.daily')\n"),
        Valid(_SETUP + "spark.sql('DROP TABLE IF EXISTS sales.daily_tmp')\n"
              "daily.write.mode('overwrite').saveAsTable('sales.daily')\n"),
        Valid(_SETUP + "import shutil\nshutil.rmtree('/data/curated/daily')\n"
              "daily.write.parquet('/data/curated/daily')\n"),
        Valid(_SETUP + "out = '/mnt/curated/daily'\ndbutils.fs.rm(out, True)\n"
              "daily.write.mode('overwrite').format('csv').save(out)\n"),
        Valid(_SETUP + "dbutils.fs.rm('/mnt/checkpoints/daily', True)\n"
              "daily.write.mode('overwrite').parquet('/mnt/curated/daily')\n"),
        Valid(_SETUP + "dbutils.fs.rm('/mnt/curated/daily/_SUCCESS')\n"
              "daily.write.mode('overwrite').parquet('/mnt/curated/daily')\n"),
        Valid(_SETUP + "def clean(table):\n    spark.sql(f'DROP TABLE IF EXISTS {table}')\n\n"
              "def publish(df, table):\n    df.write.mode('overwrite').saveAsTable(table)\n"),
        Valid(_SETUP + "daily.write.mode('overwrite').saveAsTable('sales.daily')\n"
              "spark.sql('DROP TABLE IF EXISTS sales.daily')\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self._reported: set = set()

    def visit_Call(self, node: cst.Call) -> None:
        record_emptied(self.ctx, node)
        info = write_info(self.ctx, node)
        if info is None:
            target = _streamed_table(node)
            if target is None:
                return
            method, table = "toTable", True
        else:
            method, table, target = info.method, info.v2 or info.method in _TABLE_WRITES, info.target()
        found = emptied_before(self.ctx, target_key(self.ctx, target), table=table)
        if found is None or id(found.call) in self._reported:
            return
        if not found.table and info is not None and info.format() in _PLAIN_FILES:
            return  # an overwrite of plain files deletes them first as well: the delete changes nothing
        self._reported.add(id(found.call))
        written = f"{method}({shown(self.ctx, target)})"
        if found.table:
            help = ("write with `.mode(\"overwrite\")` (add `.option(\"overwriteSchema\", \"true\")` for a new schema), "
                    "or `CREATE OR REPLACE TABLE ... AS SELECT`: one atomic replacement on Delta and Iceberg")
            gone = "the table is gone"
        else:
            help = "drop the delete and write with `.mode(\"overwrite\")`: on Delta, readers keep the old version " \
                   "until the new one commits"
            gone = "the data is gone"
        message = f"`{found.what}` deletes what `{written}` below rewrites: if the write fails, {gone} until a " \
            "rerun succeeds"
        if method == "toTable":
            # a stream resumes from its checkpoint: what it wrote before the drop is not written again
            message = (f"`{found.what}` deletes what the streaming query's `{written}` below has written: its "
                       "checkpoint resumes after the batches already done, so each run leaves only the new ones")
            help = "drop the `DROP TABLE`: the stream appends to the table, and its checkpoint makes restarts safe"
        self.ctx.report(self, found.call, message, help=help, start=found.call.func.attr)


def _streamed_table(node: cst.Call):
    """The table a streaming query writes (`df.writeStream...toTable("db.events")`), or None."""
    if method_name(node) != "toTable" or stream_write_calls(node) is None:
        return None
    args = positional_args(node)
    return args[0] if args else keyword_arg(node, "tableName")
