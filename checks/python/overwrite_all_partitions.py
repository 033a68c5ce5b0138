import libcst as cst

from checks.python._driver import shown
from checks.python._rerun_safety import record_assignment, sets_overwrite_mode, slice_on, write_info
from checks.sql._sql import normalise, partitioned_tables
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import keyword_arg, literal_string, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\nevents = spark.table('raw.events')\n"
)


class OverwriteAllPartitions(PythonRule):
    """
    ## What it does
    Finds `mode("overwrite")` writes of a partitioned output (`partitionBy(...)`,
    or `insertInto(t, overwrite=True)` of a table the file creates
    `PARTITIONED BY`) whose DataFrame holds only a slice of the partition
    column: it is filtered on it (`filter(F.col("ds") == run_date)`, SQL with
    `WHERE ds = ...`) or gets it as a constant (`withColumn("ds", F.lit(run_date))`).

    `saveAsTable` in overwrite mode replaces the whole table whatever the
    mode (except on Delta Lake, which honours `partitionOverwriteMode`): the
    help says to use `insertInto` there. Hive tables (`STORED AS`) are not
    looked at: their inserts replace only the partitions written.

    Not reported: a file that sets `partitionOverwriteMode` anywhere (session
    configuration or writer option) to anything but `static` (an explicit
    `.option("partitionOverwriteMode", "static")` on the write is the
    default written out, and is reported), a write with `replaceWhere`, and a full
    refresh (a DataFrame not restricted on the partition column), where
    replacing everything is what is meant.

    ## Why is this bad?
    With the default `spark.sql.sources.partitionOverwriteMode=static`, an
    overwrite of a partitioned path or table first deletes *every*
    partition, then writes the ones the DataFrame holds. A daily job that
    writes one day this way leaves only that day: the history is gone on the
    first run, and a rerun of an old day deletes all the others. Dynamic
    partition overwrite replaces only the partitions present in the
    DataFrame, which also makes the rerun of a day idempotent.

    ## Example
    ```python
    day = events.filter(F.col("ds") == "2024-06-01")
    day.write.mode("overwrite").partitionBy("ds").parquet("s3://lake/events/")
    ```

    ## Use instead
    ```python
    day = events.filter(F.col("ds") == "2024-06-01")
    (day.write.mode("overwrite").option("partitionOverwriteMode", "dynamic")
        .partitionBy("ds").parquet("s3://lake/events/"))
    ```
    With Delta Lake, `.option("replaceWhere", "ds = '2024-06-01'")` also
    checks that every row written belongs to the slice.

    ## Fix safety
    No fix: the session may set the mode elsewhere (spark-defaults.conf, the cluster).

    ## References
    - Spark SQL configuration: `spark.sql.sources.partitionOverwriteMode` ("static" replaces all
      partitions matching the partition spec, none given here; "dynamic" only those written), Spark 2.3+.
    - Delta Lake documentation, "Selectively overwrite data with replaceWhere" and "dynamic partition overwrites".
    """

    code = "SPK321"
    name = "overwrite-all-partitions"
    summary = "an overwrite of a partitioned output replaces every partition, not just the slice written"
    default_reason = ("under the default static overwrite, writing one slice of a partitioned output deletes "
                      "every other partition; a file that sets `partitionOverwriteMode` is not reported")
    severity = "error"
    min_spark = "2.3"
    triggers = ("overwrite", "OVERWRITE", "Overwrite")
    doc_setup = 'events = spark.table("raw.events")\n'

    invalid = (
        Invalid(_SETUP + "day = events.filter(F.col('ds') == run_date)\n"
                "day.write.mode('overwrite').partitionBy('ds').parquet('s3://lake/events/')\n"),
        Invalid(_SETUP + "def load(df, run_date):\n"
                "    out = df.withColumn('ds', F.lit(run_date))\n"
                "    out.write.format('delta').mode('overwrite').partitionBy('ds').save('/mnt/lake/events')\n"),
        Invalid(_SETUP + "daily = spark.sql(f\"SELECT * FROM raw.events WHERE ds = '{run_date}'\")\n"
                "daily.write.partitionBy('ds').saveAsTable('lake.events', mode='overwrite')\n"),
        Invalid(_SETUP + "day = events.filter(F.col('ds') == run_date)\n"
                "(day.write.mode('overwrite').option('partitionOverwriteMode', 'STATIC').partitionBy('ds')\n"
                "    .parquet('s3://lake/events/'))\n"),
        Invalid(_SETUP + "spark.conf.set('spark.sql.sources.partitionOverwriteMode', 'static')\n"
                "day = events.filter(F.col('ds') == run_date)\n"
                "day.write.mode('overwrite').partitionBy('ds').parquet('s3://lake/events/')\n"),
        Invalid(_SETUP + "spark.sql('CREATE TABLE IF NOT EXISTS lake.events (id BIGINT, ds STRING) "
                "USING parquet PARTITIONED BY (ds)')\n"
                "events.where(\"ds = '2024-06-01'\").write.insertInto('lake.events', overwrite=True)\n"),
    )
    valid = (
        Valid(_SETUP + "events.write.mode('overwrite').partitionBy('ds').parquet('s3://lake/events/')\n"),
        Valid(_SETUP + "spark.conf.set('spark.sql.sources.partitionOverwriteMode', 'dynamic')\n"
              "day = events.filter(F.col('ds') == run_date)\n"
              "day.write.mode('overwrite').partitionBy('ds').parquet('s3://lake/events/')\n"),
        Valid(_SETUP + "day = events.filter(F.col('ds') == run_date)\n"
              "day.write.format('delta').mode('overwrite').option('replaceWhere', f\"ds = '{run_date}'\")"
              ".partitionBy('ds').save('/mnt/lake/events')\n"),
        Valid(_SETUP + "day = events.filter(F.col('amount') > 0)\n"
              "day.write.mode('overwrite').partitionBy('ds').parquet('s3://lake/events/')\n"),
        Valid(_SETUP + "day = events.filter(F.col('ds') == run_date)\n"
              "day.write.mode('append').partitionBy('ds').parquet('s3://lake/events/')\n"),
        Valid(_SETUP + "day = events.filter(F.col('ds') == run_date)\n"
              "day.write.mode('overwrite').parquet(f's3://lake/events/ds={run_date}/')\n"),
        Valid(_SETUP + "events.where(\"ds = '2024-06-01'\").write.insertInto('lake.events', overwrite=True)\n"),
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        record_assignment(self.ctx, node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        record_assignment(self.ctx, node)

    def visit_Call(self, node: cst.Call) -> None:
        info = write_info(self.ctx, node)
        if info is None or info.v2 or info.dataframe is None:
            return
        if info.method == "insertInto":
            overwrite = keyword_arg(node, "overwrite")
            args = positional_args(node)
            if overwrite is None and len(args) > 1:
                overwrite = args[1]
            if not (isinstance(overwrite, cst.Name) and overwrite.value == "True") and info.mode() != "overwrite":
                return
            target = info.target()
            name = literal_string(target) if target is not None else None
            columns = partitioned_tables(self.ctx.unit.document.text).get(normalise(name)) if name else None
            how = f"`insertInto({shown(self.ctx, target)}, overwrite=True)` of a partitioned table"
        else:
            if info.mode() != "overwrite":
                return
            columns = info.partition_columns(self.ctx.semantic)
            how = f"`mode(\"overwrite\")` with `partitionBy({', '.join(repr(c) for c in columns or ())})`"
        mode_option = info.option("partitionOverwriteMode")
        static = mode_option is not None and (literal_string(mode_option) or "").lower() == "static"
        if not columns or info.option("replaceWhere") is not None or (mode_option is not None and not static):
            return
        if not static and sets_overwrite_mode(self.ctx.unit.document.text):
            return  # the session's mode is set in this file: trust it
        found = slice_on(self.ctx, info.dataframe, columns)
        if found is None:
            return
        column, _ = found
        mode_call = info.config("mode")
        if info.method == "saveAsTable":
            help = ("`saveAsTable` in overwrite mode replaces the whole table whatever the session's mode: use "
                    "`insertInto(table, overwrite=True)` with `partitionOverwriteMode=dynamic`; with Delta, "
                    "`.option(\"replaceWhere\", ...)` or `.option(\"partitionOverwriteMode\", \"dynamic\")`")
        else:
            help = ("replace only the partitions written: `.option(\"partitionOverwriteMode\", \"dynamic\")` or "
                    "`spark.sql.sources.partitionOverwriteMode=dynamic`; with Delta, `.option(\"replaceWhere\", ...)`")
        self.ctx.report(
            self,
            node,
            f"{how} deletes every partition first, but `{shown(self.ctx, info.dataframe)}` holds only some "
            f"values of `{column}`: the other partitions are lost (static partition overwrite is the default)",
            help=help,
            start=mode_call.func.attr if mode_call is not None else node.func.attr,
        )
