"""Knowing a DataFrame from evidence (DESIGN.md, "Knowing a DataFrame"), end to end and in the model.

Each kind of evidence for a Spark DataFrame, and each kind of counter-evidence
that wins over it, has cases that must be reported and cases that must not,
checked through the engine with one selected rule (SPK101 collect, SPK102
toPandas, SPK103 count-emptiness, SPK401 withColumn-in-loop, SPK402
repartition-to-one).  In a snippet, every line that must carry a finding ends
with ``# <-``; a snippet without that marker must produce no finding at all.
Every snippet mentions pyspark or spark, so the engine does not skip it: a trap
that is never parsed would prove nothing.

The model cases at the end walk a module the way the engine does (the module's
text is given to ``Semantic``, as the evidence pre-filter needs it) and read
what ``probe(expr)`` sees at that point of the walk.
"""
import textwrap

import libcst as cst
import pytest

from conftest import write
from linter.config import Resolver
from linter.engine import check_source
from linter.semantic import BOUNDED, DATAFRAME, FOREIGN, PANDAS, SESSION, UNBOUNDED, Semantic
from linter.sources.python import walk

MARK = "# <-"


def _code(text):
    return textwrap.dedent(text).lstrip("\n")


def _findings(tmp_path, rule, code, name="job.py"):
    path = tmp_path / name
    settings = Resolver({"select": [rule]}, cwd=str(tmp_path)).for_path(str(path))
    return [f for f in check_source(str(path), code.encode(), settings) if f.code == rule]


def _expected_rows(code):
    return [i for i, line in enumerate(code.splitlines(), 1) if line.rstrip().endswith(MARK)]


def case(kind, name, rule, code, xfail=None):
    """One end-to-end case: ``kind/name`` is its id; ``# <-`` marks the lines that must be reported."""
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(rule, _code(code), id=f"{kind}/{name}", marks=marks)


# --------------------------------------------------------------------------------------------------
# Evidence for: each must be reported where the frame is a DataFrame, and not where it is not.
# --------------------------------------------------------------------------------------------------
EVIDENCE = [
    # -- a session named `spark` made by a helper of the project ------------------------------------
    case("session-helper", "report-spark-from-any-helper", "SPK101", """
        from pyspark.sql import DataFrame
        from examples.scripts.base_setup import set_up_delta

        spark = set_up_delta()
        rows = spark.table("lake.orders").collect()  # <-
    """),
    case("session-helper", "quiet-spark-from-a-builtin-or-foreign-call", "SPK101", """
        import pandas as pd

        spark = dict(read=None)
        rows = spark.table("lake.orders").collect()
        spark = pd.DataFrame({"a": [1]})
        rows = spark.collect()
    """),
    # -- a DataFrame-only method used on the name anywhere in its scope ----------------------------
    case("dataframe-only-method", "report-temp-view-then-collect", "SPK101", """
        from pyspark.sql import functions as F

        def export(events):
            events.createOrReplaceTempView("events")
            rows = events.collect()  # <-
            return rows
    """),
    case("dataframe-only-method", "report-write-after-the-count", "SPK103", """
        from pyspark.sql import functions as F

        def publish(frame, path):
            if frame.count() > 0:  # <-
                frame.write.mode("overwrite").parquet(path)
    """),
    case("dataframe-only-method", "report-write-through-coalesce-chain", "SPK402", """
        import pyspark.sql.functions as F

        def save_report(report, path):
            report.coalesce(1).write.mode("overwrite").csv(path, header=True)  # <-
    """),
    case("dataframe-only-method", "report-withcolumn-loop-on-parameter", "SPK401", """
        from pyspark.sql import functions as F

        def cast_all(df, names):
            for name in names:
                df = df.withColumn(name, F.col(name).cast("double"))  # <-
            return df
    """),
    case("dataframe-only-method", "report-unbound-global-in-notebook", "SPK102", """
        # Databricks notebook: `df` comes from an earlier %run cell
        df.printSchema()
        pdf = df.toPandas()  # <-
        spark.catalog.clearCache()
    """),
    case("dataframe-only-method", "report-groupBy-camelcase", "SPK101", """
        from pyspark.sql import functions as F

        def per_region(sales):
            return sales.groupBy("region").agg(F.sum("amount")).collect()  # <-
    """),
    case("dataframe-only-method", "report-unknown-helper-result-with-evidence", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        orders = load_orders(spark, "2024-01-01")
        orders.printSchema()
        rows = orders.collect()  # <-
    """),
    case("dataframe-only-method", "quiet-no-evidence-on-parameter", "SPK103", """
        from pyspark.sql import functions as F

        def publish(frame, sink):
            if frame.count() > 0:
                sink.send(frame)
    """),
    case("dataframe-only-method", "quiet-evidence-is-in-another-function", "SPK101", """
        from pyspark.sql import functions as F

        def stage(df):
            df.createOrReplaceTempView("staged")

        def drain(df):
            return df.collect()
    """),
    case("dataframe-only-method", "quiet-evidence-is-on-another-name", "SPK101", """
        from pyspark.sql import functions as F

        def run(events, metrics):
            events.createOrReplaceTempView("events")
            return metrics.collect()
    """),
    case("dataframe-only-method", "quiet-gc-collect-next-to-spark", "SPK101", """
        import gc
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        spark.table("t").write.saveAsTable("u")
        gc.collect()
    """),

    # -- a pyspark.sql.functions Column given to filter/where/select/join/agg/... -----------------
    case("column-argument", "report-filter-F-col", "SPK101", """
        from pyspark.sql import functions as F

        def active(users):
            return users.filter(F.col("active")).collect()  # <-
    """),
    case("column-argument", "report-where-imported-col-comparison", "SPK103", """
        from pyspark.sql.functions import col

        def has_adults(people):
            return people.where(col("age") >= 18).count() > 0  # <-
    """),
    case("column-argument", "report-select-list-of-columns-then-toPandas", "SPK102", """
        import pyspark.sql.functions as F

        def to_frame(raw):
            return raw.select([F.col("id"), F.upper(F.col("name")).alias("name")]).toPandas()  # <-
    """),
    case("column-argument", "report-column-on-name-used-later", "SPK101", """
        from pyspark.sql import functions as F

        def recent(events, day):
            latest = events.filter(F.col("day") == day)
            return events.collect()  # <-
    """),
    case("column-argument", "quiet-polars-col-is-not-a-pyspark-column", "SPK101", """
        from polars import col
        from pyspark.sql import SparkSession

        def adults(lf):
            return lf.filter(col("age") >= 18).collect()
    """),
    case("column-argument", "quiet-polars-pl-col", "SPK101", """
        import polars as pl
        from pyspark.sql import functions as F

        def adults(lazy):
            return lazy.filter(pl.col("age") >= 18).select(pl.col("name")).collect()
    """),
    case("column-argument", "quiet-django-F-expression", "SPK103", """
        from django.db.models import F
        from pyspark.sql import SparkSession

        def overdue(invoices):
            return invoices.filter(paid__lt=F("amount")).count() > 0
    """),

    # -- AWS Glue ----------------------------------------------------------------------------------
    case("glue", "report-dynamic-frame-toDF-collect", "SPK101", """
        from awsglue.context import GlueContext
        from pyspark.context import SparkContext

        glueContext = GlueContext(SparkContext.getOrCreate())
        dyf = glueContext.create_dynamic_frame.from_catalog(database="sales", table_name="orders")
        rows = dyf.toDF().collect()  # <-
    """),
    case("glue", "report-create-data-frame-count", "SPK103", """
        from awsglue.context import GlueContext
        from pyspark.context import SparkContext

        glueContext = GlueContext(SparkContext.getOrCreate())
        df = glueContext.create_data_frame.from_catalog(database="sales", table_name="orders")
        if df.count() == 0:  # <-
            raise SystemExit("no input")
    """),
    case("glue", "report-fromDF-argument-is-a-dataframe", "SPK101", """
        from awsglue.dynamicframe import DynamicFrame
        from pyspark.sql import functions as F

        def to_dynamic(df, glue_context):
            sample = df.collect()  # <-
            return DynamicFrame.fromDF(df, glue_context, "out")
    """),
    case("glue", "report-fromDF-of-coalesced-frame", "SPK402", """
        from awsglue.dynamicframe import DynamicFrame
        from pyspark.sql import functions as F

        def single_file(df, glue_context):
            return DynamicFrame.fromDF(df.coalesce(1), glue_context, "single")  # <-
    """),
    case("glue", "report-glue-spark-session-table", "SPK101", """
        from awsglue.context import GlueContext
        from pyspark.context import SparkContext

        glueContext = GlueContext(SparkContext.getOrCreate())
        spark_session = glueContext.spark_session
        rows = spark_session.table("sales.orders").collect()  # <-
    """),
    case("glue", "quiet-toDF-limited", "SPK101", """
        from awsglue.context import GlueContext
        from pyspark.context import SparkContext

        glueContext = GlueContext(SparkContext.getOrCreate())
        dyf = glueContext.create_dynamic_frame.from_catalog(database="sales", table_name="orders")
        rows = dyf.toDF().limit(20).collect()
    """),
    case("glue", "quiet-dynamic-frame-count-has-no-isEmpty", "SPK103", """
        from awsglue.context import GlueContext
        from pyspark.context import SparkContext

        glueContext = GlueContext(SparkContext.getOrCreate())
        dyf = glueContext.create_dynamic_frame.from_catalog(database="sales", table_name="orders")
        if dyf.count() == 0:
            raise SystemExit("no input")
    """),
    case("glue", "quiet-dynamic-frame-coalesce", "SPK402", """
        from awsglue.context import GlueContext
        from pyspark.context import SparkContext

        glueContext = GlueContext(SparkContext.getOrCreate())
        dyf = glueContext.create_dynamic_frame.from_catalog(database="sales", table_name="orders")
        glueContext.write_dynamic_frame.from_options(frame=dyf.coalesce(1), connection_type="s3")
    """),

    # -- Delta Lake --------------------------------------------------------------------------------
    case("delta", "report-forPath-toDF-collect", "SPK101", """
        from delta.tables import DeltaTable
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        rows = DeltaTable.forPath(spark, "s3://lake/orders").toDF().collect()  # <-
    """),
    case("delta", "report-forName-assigned-then-toPandas", "SPK102", """
        from delta.tables import DeltaTable
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        table = DeltaTable.forName(spark, "lake.orders")
        pdf = table.toDF().toPandas()  # <-
    """),
    case("delta", "quiet-toDF-aggregated", "SPK101", """
        from delta.tables import DeltaTable
        from pyspark.sql import SparkSession, functions as F

        spark = SparkSession.builder.getOrCreate()
        latest = DeltaTable.forPath(spark, "s3://lake/orders").toDF().agg(F.max("updated_at")).collect()
    """),
    case("delta", "quiet-history-of-one-version", "SPK101", """
        from delta.tables import DeltaTable
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        last = DeltaTable.forPath(spark, "s3://lake/orders").history(1).collect()
    """),

    # -- Delta Live Tables -------------------------------------------------------------------------
    case("dlt", "report-dlt-read-collect", "SPK101", """
        import dlt
        from pyspark.sql import functions as F

        countries = dlt.read("dim_countries").collect()  # <-
    """),
    case("dlt", "report-dlt-read-stream-repartition-1", "SPK402", """
        import dlt
        from pyspark.sql import functions as F

        @dlt.table
        def events_silver():
            return dlt.read_stream("events_bronze").repartition(1)  # <-
    """),
    case("dlt", "report-dlt-table-function-result", "SPK101", """
        import dlt
        from pyspark.sql import functions as F

        @dlt.table(comment="cleaned orders")
        def orders_clean():
            return normalise(spark.readStream.table("orders_raw"))

        def debug_dump():
            return orders_clean().collect()  # <-
    """),
    case("dlt", "quiet-dlt-read-limited", "SPK101", """
        import dlt
        from pyspark.sql import functions as F

        sample = dlt.read("dim_countries").limit(50).collect()
    """),
    case("dlt", "quiet-other-module-named-dlt", "SPK101", """
        from pyspark.sql import functions as F
        from etl import dlt_helpers as dlt

        rows = dlt.read("config").collect()
    """),
    case("dlt", "quiet-function-without-dlt-decorator", "SPK101", """
        import functools
        from pyspark.sql import functions as F

        @functools.lru_cache(maxsize=None)
        def orders_clean():
            return normalise(load("orders_raw"))

        def debug_dump():
            return orders_clean().collect()
    """),

    # -- spark.readStream --------------------------------------------------------------------------
    case("readStream", "report-stream-coalesce-1", "SPK402", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        events = spark.readStream.format("kafka").option("subscribe", "events").load()
        query = events.coalesce(1).writeStream.format("console").start()  # <-
    """),
    case("readStream", "report-stream-table-withcolumn-loop", "SPK401", """
        from pyspark.sql import SparkSession, functions as F

        spark = SparkSession.builder.getOrCreate()
        stream = spark.readStream.table("events")
        for c in stream.columns:
            stream = stream.withColumn(c, F.trim(c))  # <-
    """),
    case("readStream", "quiet-stream-coalesce-many", "SPK402", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        events = spark.readStream.format("kafka").option("subscribe", "events").load()
        query = events.coalesce(8).writeStream.format("console").start()
    """),
    case("readStream", "quiet-readStream-of-a-local-object", "SPK402", """
        from pyspark.sql import functions as F

        class Feed:
            def __init__(self):
                self.readStream = self

            def load(self):
                return self

            def coalesce(self, n):
                return self

        feed = Feed()
        batch = feed.readStream.load().coalesce(1)
    """),

    # -- pandas-on-Spark to_spark() ----------------------------------------------------------------
    case("pandas-on-spark", "report-to_spark-collect", "SPK101", """
        import pyspark.pandas as ps

        psdf = ps.read_csv("s3://lake/orders.csv")
        sdf = psdf.to_spark()
        rows = sdf.collect()  # <-
    """),
    case("pandas-on-spark", "report-ps-sql-to_spark-coalesce", "SPK402", """
        import pyspark.pandas as ps

        ps.sql("SELECT * FROM orders").to_spark().coalesce(1).write.parquet("s3://out")  # <-
    """),
    case("pandas-on-spark", "quiet-to_spark-limited", "SPK101", """
        import pyspark.pandas as ps

        rows = ps.read_csv("s3://lake/orders.csv").to_spark().limit(10).collect()
    """),
    case("pandas-on-spark", "quiet-psdf-count-is-a-series", "SPK103", """
        import pyspark.pandas as ps

        psdf = ps.read_parquet("s3://lake/orders")
        non_null = psdf.count() > 0
    """),
    case("pandas-on-spark", "quiet-psdf-drop-in-loop", "SPK401", """
        import pyspark.pandas as ps

        psdf = ps.read_parquet("s3://lake/orders")
        for c in ["tmp_a", "tmp_b"]:
            psdf = psdf.drop(columns=c)
    """),

    # -- SQLContext / HiveContext / sqlContext -----------------------------------------------------
    case("sqlcontext", "report-SQLContext-sql-collect", "SPK101", """
        from pyspark import SparkContext
        from pyspark.sql import SQLContext

        sc = SparkContext.getOrCreate()
        sqlContext = SQLContext(sc)
        rows = sqlContext.sql("SELECT * FROM logs").collect()  # <-
    """),
    case("sqlcontext", "report-HiveContext-table-toPandas", "SPK102", """
        from pyspark import SparkContext
        from pyspark.sql import HiveContext

        hive = HiveContext(SparkContext.getOrCreate())
        pdf = hive.table("warehouse.orders").toPandas()  # <-
    """),
    case("sqlcontext", "report-notebook-sqlContext-global", "SPK101", """
        from pyspark.sql import functions as F

        rows = sqlContext.table("logs").collect()  # <-
    """),
    case("sqlcontext", "report-notebook-sqlContext-only", "SPK101", """
        logs = sqlContext.sql("SELECT * FROM logs")
        rows = logs.collect()  # <-
    """),
    case("sqlcontext", "quiet-show-tables", "SPK101", """
        from pyspark.sql import SQLContext

        sqlContext = SQLContext(sc)
        tables = sqlContext.sql("SHOW TABLES").collect()
    """),
    case("sqlcontext", "quiet-local-sqlContext-is-something-else", "SPK101", """
        from pyspark.sql import functions as F

        sqlContext = connect_warehouse("dsn")
        rows = sqlContext.sql("SELECT * FROM logs").collect()
    """),

    # -- self.spark --------------------------------------------------------------------------------
    case("self-spark", "report-self-spark-table-collect", "SPK101", """
        from pyspark.sql import functions as F

        class Job:
            def __init__(self, spark):
                self.spark = spark

            def run(self):
                return self.spark.table("events").collect()  # <-
    """),
    case("self-spark", "report-self-spark-from-base-class", "SPK102", """
        from pyspark.sql import functions as F

        class Export(BaseJob):
            def run(self):
                return self.spark.sql("SELECT * FROM events").toPandas()  # <-
    """),
    case("self-spark", "report-context-spark-session-attribute", "SPK101", """
        from pyspark.sql import functions as F

        def task(ctx):
            return ctx.spark_session.read.parquet("s3://lake/events").collect()  # <-
    """),
    case("self-spark", "quiet-self-spark-is-a-local-client", "SPK101", """
        from pyspark.sql import functions as F

        class Client:
            def table(self, name):
                return Rows(name)

        class Job:
            def __init__(self):
                self.spark = Client()

            def run(self):
                return self.spark.table("events").collect()
    """),
    case("self-spark", "quiet-self-spark-limited", "SPK101", """
        from pyspark.sql import functions as F

        class Job:
            def run(self):
                return self.spark.table("events").limit(10).collect()
    """),

    # -- methods of the same class -----------------------------------------------------------------
    case("same-class-method", "report-annotated-method-defined-after", "SPK101", """
        from pyspark.sql import DataFrame

        class Pipeline:
            def run(self):
                return self.load().collect()  # <-

            def load(self) -> DataFrame:
                return read_somehow(self.path)
    """),
    case("same-class-method", "report-returning-method-defined-before", "SPK101", """
        from pyspark.sql import functions as F

        class Pipeline:
            def load(self):
                return self.spark.read.parquet(self.path)

            def run(self):
                return self.load().collect()  # <-
    """),
    case("same-class-method", "report-returning-method-defined-after", "SPK101", """
        from pyspark.sql import functions as F

        class Pipeline:
            def run(self):
                return self.load().collect()  # <-

            def load(self):
                return self.spark.read.parquet(self.path)
    """),
    case("same-class-method", "quiet-later-method-returns-a-local-that-shadows-a-frame", "SPK101", """
        import pandas as pd

        df = spark.table("lake.orders")

        class Pipeline:
            def run(self):
                return self.load().collect()

            def load(self):
                df = pd.read_csv(self.path)
                return df
    """),
    case("same-class-method", "quiet-later-method-returns-what-its-caller-passes", "SPK101", """
        from pyspark.sql import functions as F

        class Pipeline:
            def run(self):
                return self.pick(None).collect()

            def pick(self, frame):
                return frame
    """),
    case("same-class-method", "quiet-method-returns-limited", "SPK101", """
        from pyspark.sql import functions as F

        class Pipeline:
            def load(self):
                return self.spark.table("events").limit(10)

            def run(self):
                return self.load().collect()
    """),
    case("same-class-method", "quiet-method-annotated-polars", "SPK101", """
        import polars as pl
        from pyspark.sql import functions as F

        class Pipeline:
            def load(self) -> pl.LazyFrame:
                return pl.scan_parquet(self.path)

            def run(self):
                return self.load().collect()
    """),
    case("same-class-method", "quiet-method-of-another-class", "SPK101", """
        from pyspark.sql import DataFrame

        class Reader:
            def load(self) -> DataFrame:
                return read_somehow(self.path)

        class Report:
            def run(self):
                return self.load().collect()
    """),

    # -- self.x attributes -------------------------------------------------------------------------
    case("self-attribute", "report-assigned-dataframe-in-init", "SPK101", """
        from pyspark.sql import SparkSession

        class Job:
            def __init__(self, spark: SparkSession):
                self.orders = spark.table("orders")

            def run(self):
                return self.orders.collect()  # <-
    """),
    case("self-attribute", "report-used-with-dataframe-only-method", "SPK101", """
        from pyspark.sql import functions as F

        class Job:
            def __init__(self, df):
                self.df = df

            def register(self):
                self.df.createOrReplaceTempView("input")

            def dump(self):
                return self.df.collect()  # <-
    """),
    case("self-attribute", "report-assigned-in-a-later-method", "SPK101", """
        from pyspark.sql import SparkSession

        class Job:
            def run(self):
                return self.orders.collect()  # <-

            def setup(self, spark: SparkSession):
                self.orders = spark.table("orders")
    """),
    case("self-attribute", "quiet-later-method-assigns-a-polars-lazyframe", "SPK101", """
        import polars as pl
        from pyspark.sql import functions as F

        class Job:
            def run(self):
                return self.frame.collect()

            def setup(self, path):
                self.frame = pl.scan_csv(path)
    """),
    case("self-attribute", "quiet-attribute-is-a-polars-lazyframe", "SPK101", """
        import polars as pl
        from pyspark.sql import functions as F

        class Job:
            def __init__(self, path):
                self.frame = pl.scan_csv(path)

            def run(self):
                return self.frame.collect()
    """),
    case("self-attribute", "quiet-attribute-is-limited", "SPK101", """
        from pyspark.sql import SparkSession

        class Job:
            def __init__(self, spark: SparkSession):
                self.sample = spark.table("orders").limit(100)

            def run(self):
                return self.sample.collect()
    """),
    case("self-attribute", "quiet-attribute-with-pandas-member", "SPK103", """
        from pyspark.sql import functions as F

        class Report:
            def __init__(self, frame):
                self.frame = frame

            def clean(self):
                self.frame.dropna(inplace=True)

            def ready(self):
                return self.frame.count() > 0
    """),

    # -- isinstance narrowing ----------------------------------------------------------------------
    case("isinstance", "report-inside-isinstance-block", "SPK101", """
        from pyspark.sql import DataFrame

        def to_records(data):
            if isinstance(data, DataFrame):
                return [r.asDict() for r in data.collect()]  # <-
            return list(data)
    """),
    case("isinstance", "report-isinstance-of-aliased-class", "SPK102", """
        from pyspark.sql import DataFrame as SparkDataFrame

        def to_pandas(obj):
            if isinstance(obj, SparkDataFrame):
                obj = obj.toPandas()  # <-
            return obj
    """),
    case("isinstance", "quiet-outside-the-isinstance-block", "SPK101", """
        from pyspark.sql import DataFrame

        def to_records(data):
            if isinstance(data, DataFrame):
                return [r.asDict() for r in data.limit(1000).collect()]
            return data.collect()
    """),
    case("isinstance", "quiet-isinstance-of-polars-lazyframe", "SPK101", """
        import polars as pl
        from pyspark.sql import DataFrame

        def materialise(data):
            if isinstance(data, pl.LazyFrame):
                data = data.collect()
            return data
    """),

    # -- foreachBatch functions' first parameter ---------------------------------------------------
    case("foreachBatch", "report-batch-collect", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()

        def upsert(batch_df, batch_id):
            for row in batch_df.collect():  # <-
                send(row)

        spark.readStream.table("events").writeStream.foreachBatch(upsert).start()
    """),
    case("foreachBatch", "report-glue-forEachBatch-count", "SPK103", """
        from awsglue.context import GlueContext
        from pyspark.context import SparkContext

        glueContext = GlueContext(SparkContext.getOrCreate())

        def processBatch(data_frame, batchId):
            if data_frame.count() > 0:  # <-
                glueContext.write_dynamic_frame.from_options(frame=data_frame)

        glueContext.forEachBatch(frame=stream, batch_function=processBatch, options={"windowSize": "100 seconds"})
    """),
    case("foreachBatch", "report-bound-method-as-batch-function", "SPK103", """
        from pyspark.sql import SparkSession

        class Sink:
            def process(self, batch, batch_id):
                if batch.count() > 0:  # <-
                    self.write(batch)

            def start(self, spark: SparkSession):
                spark.readStream.table("events").writeStream.foreachBatch(self.process).start()
    """),
    case("foreachBatch", "quiet-same-shape-not-given-to-foreachBatch", "SPK103", """
        from pyspark.sql import SparkSession

        def process(batch, batch_id):
            if batch.count() > 0:
                send(batch)

        for i, batch in enumerate(queue_batches()):
            process(batch, i)
    """),
    case("foreachBatch", "quiet-batch-limited", "SPK101", """
        from pyspark.sql import SparkSession

        def upsert(batch_df, batch_id):
            preview = batch_df.limit(5).collect()

        spark.readStream.table("events").writeStream.foreachBatch(upsert).start()
    """),

    # -- ML model.transform(df) --------------------------------------------------------------------
    case("ml-transform", "report-pipeline-model-transform", "SPK101", """
        from pyspark.ml import Pipeline
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        test = spark.table("features_test")
        model = pipeline.fit(spark.table("features_train"))
        scored = model.transform(test)
        rows = scored.collect()  # <-
    """),
    case("ml-transform", "report-transform-of-fitted-model-on-inferred-frame", "SPK102", """
        from pyspark.sql import functions as F

        def score(pipeline, df):
            model = pipeline.fit(df)
            return model.transform(df.withColumn("x2", F.col("x") * 2)).toPandas()  # <-
    """),
    # a transformer nobody saw fitted may aggregate (SynapseML's ComputeModelStatistics gives one row)
    case("ml-transform", "quiet-transform-of-unknown-transformer", "SPK102", """
        from pyspark.sql import functions as F

        def score(model, df):
            return model.transform(df.withColumn("x2", F.col("x") * 2)).toPandas()
    """),
    case("ml-transform", "quiet-transform-of-driver-data", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        probe = spark.createDataFrame([(1.0, 2.0)], ["a", "b"])
        rows = model.transform(probe).collect()
    """),
    case("ml-transform", "quiet-transform-of-unknown-argument", "SPK101", """
        from pyspark.sql import functions as F

        def predict(model, batch):
            return model.transform(batch).collect()
    """),
    case("ml-transform", "quiet-sklearn-transform-of-pandas", "SPK103", """
        import pandas as pd
        from pyspark.sql import SparkSession

        pdf = pd.read_csv("features.csv")
        scaled = scaler.transform(pdf)
        ok = scaled.count() > 0
    """),

    # -- DataFrame.transform(func) (a DataFrame in, a DataFrame out) -------------------------------
    case("dataframe-transform", "report-transform-with-local-function", "SPK101", """
        from pyspark.sql import SparkSession, functions as F

        spark = SparkSession.builder.getOrCreate()

        def add_tax(df):
            return df.withColumn("tax", F.col("amount") * 0.2)

        rows = spark.table("orders").transform(add_tax).collect()  # <-
    """),
]


# --------------------------------------------------------------------------------------------------
# Counter-evidence: pandas, polars, dask, ibis and ORM objects, which win over evidence for.
# --------------------------------------------------------------------------------------------------
COUNTER = [
    # -- pandas ------------------------------------------------------------------------------------
    case("pandas", "quiet-loc-wins-over-groupBy", "SPK401", """
        from pyspark.sql import functions as F

        def clean(frame, cols):
            frame.loc[frame["qty"] < 0, "qty"] = 0
            totals = frame.groupBy("region")
            for c in cols:
                frame = frame.drop(c)
            return frame
    """),
    case("pandas", "report-groupBy-alone-is-evidence", "SPK401", """
        from pyspark.sql import functions as F

        def clean(frame, cols):
            totals = frame.groupBy("region")
            for c in cols:
                frame = frame.drop(c)  # <-
            return frame
    """),
    case("pandas", "quiet-loc-and-groupby-realistic", "SPK401", """
        import pandas as pd
        from pyspark.sql import SparkSession

        def summarize(frame, helpers):
            frame.loc[frame.amount < 0, "amount"] = 0
            by_region = frame.groupby("region").agg({"amount": "sum"})
            for c in helpers:
                frame = frame.drop(columns=c)
            return frame.sort_values("amount")
    """),
    case("pandas", "quiet-read-csv-origin", "SPK401", """
        import pandas as pd
        from pyspark.sql import SparkSession

        pdf = pd.read_csv("orders.csv")
        for c in ["tmp_a", "tmp_b"]:
            pdf = pdf.drop(c, axis=1)
    """),
    case("pandas", "quiet-axis-keyword-wins-over-withColumn-like-use", "SPK401", """
        from pyspark.sql import functions as F

        def tidy(frame, cols):
            frame.dropna(inplace=True)
            frame.printSchema()
            for c in cols:
                frame = frame.drop(c, axis=1)
            return frame
    """),
    case("pandas", "quiet-toPandas-result-is-pandas", "SPK401", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        pdf = spark.table("orders").limit(1000).toPandas()
        for c in ["a", "b"]:
            pdf = pdf.drop(columns=c)
    """),
    case("pandas", "quiet-series-count", "SPK103", """
        import pandas as pd
        from pyspark.sql import SparkSession

        def has_emails(frame):
            frame.loc[:, "email"] = frame["email"].str.lower()
            return frame["email"].count() > 0
    """),

    # -- polars ------------------------------------------------------------------------------------
    case("polars", "quiet-scan-csv-collect", "SPK101", """
        import polars as pl
        from pyspark.sql import SparkSession

        orders = pl.scan_csv("orders.csv").collect()
    """),
    case("polars", "quiet-scan-parquet-filter-collect", "SPK101", """
        import polars as pl
        from pyspark.sql import functions as F

        lf = pl.scan_parquet("orders/*.parquet").filter(pl.col("amount") > 0)
        frame = lf.collect()
    """),
    case("polars", "quiet-lazyframe-annotated-parameter", "SPK101", """
        import polars as pl
        from pyspark.sql import functions as F

        def materialise(lf: pl.LazyFrame):
            return lf.collect()
    """),
    case("polars", "quiet-lazyframe-known-by-with_columns", "SPK101", """
        import polars as pl
        from pyspark.sql import functions as F

        def enrich(lf):
            lf = lf.with_columns(pl.col("amount").alias("total"))
            return lf.collect()
    """),
    case("polars", "quiet-lazy-then-collect-chain", "SPK101", """
        import polars as pl
        from pyspark.sql import functions as F

        def totals(frame):
            return frame.lazy().group_by("k").agg(pl.col("v").sum()).collect()
    """),
    case("polars", "quiet-len-of-polars-collect", "SPK103", """
        import polars as pl
        from pyspark.sql import SparkSession

        if len(pl.scan_csv("orders.csv").collect()) > 0:
            print("rows")
    """),
    case("polars", "quiet-polars-frame-toPandas-name", "SPK102", """
        import polars as pl
        from pyspark.sql import SparkSession

        frame = pl.DataFrame({"a": [1, 2]})
        pdf = frame.toPandas()
    """),
    case("polars", "report-spark-frame-next-to-polars", "SPK101", """
        import polars as pl
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        local = pl.scan_csv("dims.csv").collect()
        rows = spark.table("orders").collect()  # <-
    """),

    # -- dask --------------------------------------------------------------------------------------
    case("dask", "quiet-read-parquet-origin-drop-loop", "SPK401", """
        import dask.dataframe as dd
        from pyspark.sql import SparkSession

        ddf = dd.read_parquet("s3://lake/orders")
        for c in ["tmp_a", "tmp_b"]:
            ddf = ddf.drop(columns=c)
        result = ddf.compute()
    """),
    case("dask", "quiet-compute-frame-parameter", "SPK401", """
        from pyspark.sql import functions as F

        def prune(ddf, cols):
            for c in cols:
                ddf = ddf.drop(c)
            return ddf.compute()
    """),
    case("dask", "quiet-compute-wins-over-dataframe-only-name", "SPK401", """
        from pyspark.sql import functions as F

        def prune(ddf, cols):
            ddf.unpersist()
            for c in cols:
                ddf = ddf.drop(c)
            return ddf.compute()
    """),

    # -- ibis --------------------------------------------------------------------------------------
    case("ibis", "quiet-ibis-table-select-loop", "SPK401", """
        import ibis
        from pyspark.sql import SparkSession

        con = ibis.duckdb.connect("warehouse.db")
        t = con.table("orders")
        for c in ["a", "b"]:
            t = t.drop(c)
        frame = t.execute()
    """),
    case("ibis", "quiet-ibis-mutate-parameter", "SPK401", """
        from pyspark.sql import functions as F

        def project(t, cols):
            t = t.mutate(total=t.amount * 2)
            for c in cols:
                t = t.select(c)
            return t.execute()
    """),

    # -- Django / SQLAlchemy -----------------------------------------------------------------------
    case("orm", "quiet-django-queryset-count", "SPK103", """
        from pyspark.sql import SparkSession
        from shop.models import Order

        def has_open_orders():
            qs = Order.objects.filter(status="open")
            return qs.count() > 0
    """),
    case("orm", "quiet-django-inline-queryset-count", "SPK103", """
        from pyspark.sql import SparkSession
        from shop.models import Order

        if Order.objects.filter(status="open").count() > 0:
            submit_spark_job()
    """),
    case("orm", "quiet-django-queryset-with-spark-column-like-use", "SPK103", """
        from pyspark.sql import functions as F
        from shop.models import Order

        def ready(orders):
            orders = orders.select_related("customer")
            return orders.count() > 0
    """),
    case("orm", "quiet-sqlalchemy-query-count", "SPK103", """
        from pyspark.sql import SparkSession
        from sqlalchemy.orm import Session

        def has_users(session: Session):
            q = session.query(User).filter_by(active=True)
            return q.count() > 0
    """),
    case("orm", "quiet-parameter-shadows-module-dataframe", "SPK103", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        orders = spark.table("orders")

        def has_rows(orders):
            return orders.count() > 0
    """),

    # -- a Spark column named like a pandas/polars member is not counter-evidence --------------------
    case("column-named-like-foreign-member", "report-height-column-attribute", "SPK101", """
        from pyspark.sql import functions as F

        def tall(people):
            people = people.withColumn("bmi", people.weight / (people.height * people.height))
            return people.collect()  # <-
    """),
]


# --------------------------------------------------------------------------------------------------
# Rows are unbounded unless proven small.
# --------------------------------------------------------------------------------------------------
BOUNDS = [
    case("bounds", "report-inferred-frame-unbounded-message", "SPK101", """
        from pyspark.sql import functions as F

        def dump(orders):
            orders.createOrReplaceTempView("o")
            return orders.collect()  # <-
    """),
    case("bounds", "quiet-inferred-frame-limit", "SPK101", """
        from pyspark.sql import functions as F

        def top(orders):
            orders.createOrReplaceTempView("o")
            return orders.limit(10).collect()
    """),
    case("bounds", "quiet-inferred-receiver-chain-limited-first", "SPK101", """
        from pyspark.sql import functions as F

        def preview(orders):
            return orders.limit(10).withColumn("one", F.lit(1)).collect()
    """),
    case("bounds", "report-limit-above-max-rows", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        rows = spark.table("orders").limit(5_000_000).collect()  # <-
    """),
    case("bounds", "quiet-take-and-first", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        head = spark.table("orders").take(20)
        one = spark.table("orders").first()
    """),
    case("bounds", "quiet-limit-1-count", "SPK103", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        found = spark.table("orders").limit(1).count() > 0
    """),
    case("bounds", "quiet-global-agg", "SPK101", """
        from pyspark.sql import functions as F

        def stats(orders):
            return orders.agg(F.max("amount"), F.min("amount")).collect()
    """),
    case("bounds", "quiet-global-groupBy-count", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        total = spark.table("orders").groupBy().count().collect()
    """),
    case("bounds", "quiet-select-of-aggregates", "SPK102", """
        from pyspark.sql import SparkSession, functions as F

        spark = SparkSession.builder.getOrCreate()
        pdf = spark.table("orders").select(F.count("*").alias("n"), F.sum("amount")).toPandas()
    """),
    case("bounds", "report-keyed-groupBy-agg", "SPK101", """
        from pyspark.sql import SparkSession, functions as F

        spark = SparkSession.builder.getOrCreate()
        rows = spark.table("orders").groupBy("customer").agg(F.sum("amount")).collect()  # <-
    """),
    case("bounds", "quiet-literal-createDataFrame", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        rows = spark.createDataFrame([(1, "a"), (2, "b")], "id int, v string").collect()
    """),
    case("bounds", "report-createDataFrame-of-file-rdd", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        lines = spark.sparkContext.textFile("hdfs:///logs/app.log").map(lambda l: l.split(","))
        rows = spark.createDataFrame(lines, "a string, b string").collect()  # <-
    """),
    case("bounds", "report-createDataFrame-of-dataframe-rdd", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        events = spark.table("events")
        rows = spark.createDataFrame(events.rdd.map(fix), events.schema).collect()  # <-
    """),
    case("bounds", "quiet-small-range", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        ids = spark.range(100).collect()
    """),
    case("bounds", "report-huge-range", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        ids = spark.range(1_000_000_000).collect()  # <-
    """),
    case("bounds", "report-range-of-unknown-size", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        ids = spark.range(num_rows).collect()  # <-
    """),
    case("bounds", "quiet-sql-without-from", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        today = spark.sql("SELECT current_date() AS d, current_user() AS u").collect()
    """),
    case("bounds", "quiet-sql-values-without-from", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        codes = spark.sql("VALUES (1, 'a'), (2, 'b')").collect()
    """),
    case("bounds", "report-sql-with-cte-from-table", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        rows = spark.sql("WITH recent AS (SELECT * FROM events) SELECT * FROM recent").collect()  # <-
    """),
    case("bounds", "quiet-set-show-describe-explain", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        conf = spark.sql("SET spark.sql.shuffle.partitions").collect()
        tables = spark.sql("SHOW TABLES IN lake").collect()
        cols = spark.sql("DESCRIBE TABLE lake.orders").collect()
        plan = spark.sql("EXPLAIN SELECT * FROM lake.orders").collect()
    """),
    case("bounds", "report-sql-select-star", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        rows = spark.sql("SELECT * FROM lake.orders WHERE day = current_date()").collect()  # <-
    """),
    case("bounds", "report-join-of-unbounded-with-unknown-size", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()

        def check(values, maybe):
            orders = spark.table("lake.orders")
            allowed = maybe.get("values")
            try:
                allowed = spark.createDataFrame(values, "value STRING")
            except TypeError:
                pass
            joined = orders.join(allowed, orders["status"] == allowed["value"], "left")
            return joined.collect()  # <-
    """),
    case("bounds", "quiet-join-of-bounded-frames", "SPK101", """
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        codes = spark.createDataFrame([("a", 1)], "code STRING, n INT")
        names = spark.table("lake.names").limit(10)
        rows = codes.join(names, "code").collect()
    """),
    # -- a table or path the file itself wrote (overwrite) from a frame proven small ------------------
    case("bounds", "quiet-read-back-of-own-small-write", "SPK102", """
        import pandas as pd

        churn = pd.read_csv("churn.csv")
        table_name = "df_clean"
        spark.createDataFrame(churn).write.mode("overwrite").format("delta").save(f"Tables/{table_name}")
        back = spark.read.format("delta").load("Tables/df_clean").toPandas()
        same = spark.table("df_clean").toPandas()
        spark.table("lake.orders").limit(0).write.mode("overwrite").saveAsTable("lake.empty")
        none = spark.table("lake.empty").toPandas()
    """),
    case("bounds", "report-read-back-of-append-or-other-table", "SPK102", """
        import pandas as pd

        churn = pd.read_csv("churn.csv")
        spark.createDataFrame(churn).write.mode("append").saveAsTable("lake.churn")
        back = spark.table("lake.churn").toPandas()  # <-
        spark.createDataFrame(churn).write.mode("overwrite").saveAsTable("lake.small")
        other = spark.table("lake.other").toPandas()  # <-
    """),
    case("bounds", "report-read-back-of-big-write", "SPK102", """
        orders = spark.table("lake.orders")
        orders.write.mode("overwrite").parquet("/tmp/orders")
        back = spark.read.parquet("/tmp/orders").toPandas()  # <-
    """),
]


@pytest.mark.parametrize("rule, code", EVIDENCE + COUNTER + BOUNDS)
def test_engine(tmp_path, rule, code):
    found = _findings(tmp_path, rule, code)
    assert sorted(f.location.row for f in found) == _expected_rows(code), (code, [f.message for f in found])


def test_every_engine_case_mentions_spark():
    """A snippet the engine skips would make a trap pass for nothing (the sqlContext-only case is the point)."""
    from linter.engine import _SPARK_HINT

    for param in EVIDENCE + COUNTER + BOUNDS:
        if param.id != "sqlcontext/report-notebook-sqlContext-only":
            assert _SPARK_HINT.search(param.values[1]), param.id


def test_every_kind_has_both_outcomes():
    by_kind: dict = {}
    for param in EVIDENCE + COUNTER + BOUNDS:
        kind, _, name = param.id.partition("/")
        by_kind.setdefault(kind, set()).add(name.split("-")[0])
    one_sided = {"column-named-like-foreign-member", "dataframe-transform"}
    for kind, outcomes in by_kind.items():
        if kind in one_sided:
            continue
        assert "quiet" in outcomes, kind
        if kind not in ("dask", "ibis", "orm"):  # pure counter-evidence: nothing there is a DataFrame
            assert "report" in outcomes, kind


def test_inferred_message_names_evidence_and_unknown_origin(tmp_path):
    code = _code("""
        from pyspark.sql import functions as F

        def dump(orders):
            orders.createOrReplaceTempView("o")
            return orders.collect()
    """)
    [finding] = _findings(tmp_path, "SPK101", code)
    assert "nothing in this function bounds its rows" in finding.message
    assert "`orders` is taken for a DataFrame" in finding.message
    assert "`orders.createOrReplaceTempView` is used on it" in finding.message
    top = _code("""
        from pyspark.sql import functions as F

        orders.createOrReplaceTempView("o")
        rows = orders.collect()
    """)
    [finding] = _findings(tmp_path, "SPK101", top)
    assert "nothing in this file bounds its rows" in finding.message  # not "function": it is at the top level


@pytest.mark.parametrize("code, evidence", [
    pytest.param("def f(df):\n    df.filter(F.col('a') > 1)\n    return df.collect()\n",
                 "`df.filter(...)` is given a pyspark Column", id="column-argument"),
    pytest.param("def f(df, gc):\n    dyf = DynamicFrame.fromDF(df, gc, 'x')\n    return df.collect()\n",
                 "`DynamicFrame.fromDF(df...)` takes a DataFrame", id="fromDF"),
    pytest.param("def f(batch, i):\n    return batch.collect()\n\nq = s.writeStream.foreachBatch(f)\n",
                 "`foreachBatch` gives it each micro-batch", id="foreachBatch"),
    pytest.param("def f(data):\n    if isinstance(data, DataFrame):\n        return data.collect()\n",
                 "`isinstance` says so", id="isinstance"),
])
def test_inferred_message_per_evidence(tmp_path, code, evidence):
    prelude = "from awsglue.dynamicframe import DynamicFrame\nfrom pyspark.sql import DataFrame, functions as F\n"
    [finding] = _findings(tmp_path, "SPK101", prelude + code)
    assert evidence in finding.message, finding.message


def test_cli_reports_evidence_and_spares_traps(tmp_path, run):
    """The command line over a small project: DataFrames known from evidence are reported, the traps are not."""
    write(tmp_path / "jobs" / "export.py", _code("""
        from pyspark.sql import functions as F

        def export(events):
            events.createOrReplaceTempView("events")
            return events.collect()
    """))
    write(tmp_path / "jobs" / "glue_job.py", _code("""
        from awsglue.context import GlueContext
        from pyspark.context import SparkContext

        glueContext = GlueContext(SparkContext.getOrCreate())
        rows = glueContext.create_dynamic_frame.from_catalog(database="d", table_name="t").toDF().collect()
    """))
    write(tmp_path / "jobs" / "local.py", _code("""
        import polars as pl
        import dask.dataframe as dd
        from pyspark.sql import SparkSession

        orders = pl.scan_csv("orders.csv").collect()
        lazy = pl.scan_parquet("x.parquet")
        frame = lazy.collect()
        totals = dd.read_parquet("s3://x").groupby("k").v.sum().compute()
    """))
    write(tmp_path / "jobs" / "web.py", _code("""
        from pyspark.sql import SparkSession
        from shop.models import Order

        def has_open():
            return Order.objects.filter(status="open").count() > 0
    """))
    r = run("check", tmp_path, "--no-cache", "--output-format", "concise", "--select", "SPK101,SPK103")
    lines = sorted(line.split(" ")[0] + " " + line.split(" ")[1] for line in r.out.splitlines() if ": SPK" in line)
    assert r.code == 1, r
    assert [line.replace(str(tmp_path) + "/", "").replace("\\", "/") for line in lines] == [
        "jobs/export.py:5:19: SPK101",
        "jobs/glue_job.py:5:91: SPK101",
    ], r.out


# --------------------------------------------------------------------------------------------------
# The model: what `probe(expr)` sees, with the module's text given to Semantic as the engine does.
# --------------------------------------------------------------------------------------------------
def _probed(sem, code) -> list:
    """Walk ``code`` like the engine and return the Values of every ``probe(expr)`` argument, in order."""
    visit, leave = sem.hooks()
    seen = []

    def on_call(node):
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            seen.append(sem.infer(node.args[0].value))

    visits = {k: [fn] for k, fn in visit.items()}
    visits.setdefault(cst.Call, []).append(on_call)
    walk(cst.parse_module(code), visits, {k: [fn] for k, fn in leave.items()}, [])
    return seen


def probe(code):
    """The Value of the last ``probe(expr)`` argument of ``code``."""
    code = _code(code)
    seen = _probed(Semantic(frozenset(), code), code)
    assert seen, "no probe() in the code"
    return seen[-1]


def model(kind, name, code, expect_kind, bound=None, why=None, xfail=None):
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(code, expect_kind, bound, why, id=f"{kind}/{name}", marks=marks)


NOT_SPARK = "not spark"  # expected: None or a kind that is no Spark object

MODEL = [
    model("dataframe-only-method", "parameter", """
        from pyspark.sql import functions as F
        def f(df):
            probe(df)
            df.unionByName(other)
    """, DATAFRAME, UNBOUNDED, "`df.unionByName` is used on it"),
    model("dataframe-only-method", "through-same-rows-chain", """
        from pyspark.sql import functions as F
        def f(df):
            df.filter("x > 0").dropDuplicates(["id"]).write.saveAsTable("t")
            probe(df)
    """, DATAFRAME, UNBOUNDED),
    model("dataframe-only-method", "no-evidence", """
        from pyspark.sql import functions as F
        def f(df):
            df.head(5)
            probe(df)
    """, NOT_SPARK),
    model("column-argument", "join-condition", """
        from pyspark.sql import functions as F
        def f(left, right):
            probe(left)
            return left.join(right, F.col("a") == F.col("b"))
    """, DATAFRAME, UNBOUNDED, "`left.join(...)` is given a pyspark Column"),
    model("column-argument", "broadcast-argument", """
        from pyspark.sql import functions as F
        def f(facts, dim):
            probe(dim)
            return facts.join(F.broadcast(dim), "id")
    """, DATAFRAME, UNBOUNDED, "takes a DataFrame"),
    model("column-argument", "polars-expression", """
        import polars as pl
        from pyspark.sql import functions as F
        def f(lf):
            probe(lf)
            return lf.filter(pl.col("a") > 1)
    """, NOT_SPARK),
    model("glue", "dynamic-frame", """
        from awsglue.context import GlueContext
        gc = GlueContext(sc)
        probe(gc.create_dynamic_frame.from_options(connection_type="s3"))
    """, "DynamicFrame"),
    model("glue", "toDF", """
        from awsglue.context import GlueContext
        gc = GlueContext(sc)
        probe(gc.create_dynamic_frame.from_catalog(database="d", table_name="t").toDF())
    """, DATAFRAME, UNBOUNDED),
    model("glue", "create-data-frame", """
        from awsglue.context import GlueContext
        gc = GlueContext(sc)
        probe(gc.create_data_frame.from_catalog(database="d", table_name="t"))
    """, DATAFRAME, UNBOUNDED),
    model("glue", "transforms-apply", """
        from awsglue.transforms import ApplyMapping
        probe(ApplyMapping.apply(frame=dyf, mappings=[]).toDF())
    """, DATAFRAME, UNBOUNDED),
    model("delta", "forPath-toDF", """
        from delta.tables import DeltaTable
        probe(DeltaTable.forPath(spark, "/p").toDF())
    """, DATAFRAME, UNBOUNDED),
    model("delta", "forName-is-a-table-not-a-frame", """
        from delta.tables import DeltaTable
        probe(DeltaTable.forName(spark, "t"))
    """, "DeltaTable"),
    model("dlt", "read", """
        import dlt
        probe(dlt.read("bronze"))
    """, DATAFRAME, UNBOUNDED),
    model("dlt", "table-decorated-function", """
        import dlt
        @dlt.table
        def silver():
            return transform_somehow()
        probe(silver())
    """, DATAFRAME, UNBOUNDED),
    model("dlt", "unrelated-module-named-dlt", """
        import mylib.dlt as dlt
        probe(dlt.read("bronze"))
    """, NOT_SPARK),
    model("readStream", "load", """
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.getOrCreate()
        probe(spark.readStream.format("rate").load())
    """, DATAFRAME, UNBOUNDED),
    model("pandas-on-spark", "read-is-foreign", """
        import pyspark.pandas as ps
        probe(ps.read_csv("x.csv"))
    """, FOREIGN),
    model("pandas-on-spark", "to_spark", """
        import pyspark.pandas as ps
        probe(ps.read_csv("x.csv").to_spark())
    """, DATAFRAME, UNBOUNDED),
    model("pandas-on-spark", "pandas_api-round-trip", """
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.getOrCreate()
        probe(spark.table("t").pandas_api().to_spark())
    """, DATAFRAME, UNBOUNDED),
    model("sqlcontext", "SQLContext", """
        from pyspark.sql import SQLContext
        probe(SQLContext(sc))
    """, SESSION),
    model("sqlcontext", "HiveContext-sql", """
        from pyspark.sql import HiveContext
        probe(HiveContext(sc).sql("SELECT * FROM t"))
    """, DATAFRAME, UNBOUNDED),
    model("sqlcontext", "notebook-global", """
        probe(sqlContext.table("t"))
    """, DATAFRAME, UNBOUNDED),
    model("self-spark", "self-spark", """
        class Job:
            def run(self):
                probe(self.spark)
    """, SESSION),
    model("self-spark", "local-client-instance", """
        class Client:
            pass
        class Job:
            def __init__(self):
                self.spark = Client()
            def run(self):
                probe(self.spark.table("t"))
    """, NOT_SPARK),
    model("same-class-method", "annotated", """
        from pyspark.sql import DataFrame
        class Job:
            def run(self):
                probe(self.load())
            def load(self) -> DataFrame:
                ...
    """, DATAFRAME, UNBOUNDED),
    model("same-class-method", "returning", """
        class Job:
            def load(self):
                return self.spark.table("t").limit(7)
            def run(self):
                probe(self.load())
    """, DATAFRAME, 7),
    model("self-attribute", "assigned", """
        class Job:
            def __init__(self, spark):
                self.df = spark.read.parquet("p")
            def run(self):
                probe(self.df)
    """, DATAFRAME, UNBOUNDED),
    model("self-attribute", "used", """
        from pyspark.sql import functions as F
        class Job:
            def run(self):
                probe(self.df)
            def show(self):
                self.df.printSchema()
    """, DATAFRAME, UNBOUNDED, "`self.df.printSchema` is used on it"),
    model("self-attribute", "pandas-assigned", """
        import pandas as pd
        class Job:
            def __init__(self):
                self.df = pd.read_csv("x.csv")
            def run(self):
                probe(self.df)
    """, PANDAS),
    model("isinstance", "narrowed", """
        from pyspark.sql import DataFrame
        def f(x):
            if isinstance(x, DataFrame):
                probe(x)
    """, DATAFRAME, UNBOUNDED, "`isinstance` says so"),
    model("isinstance", "not-after-the-block", """
        from pyspark.sql import DataFrame
        def f(x):
            if isinstance(x, DataFrame):
                pass
            probe(x)
    """, NOT_SPARK),
    model("isinstance", "mixed-tuple-does-not-narrow", """
        import pandas as pd
        from pyspark.sql import DataFrame
        def f(x):
            if isinstance(x, (pd.DataFrame, DataFrame)):
                probe(x)
    """, NOT_SPARK),
    model("foreachBatch", "first-parameter", """
        def handle(batch, epoch):
            probe(batch)
        spark.readStream.table("t").writeStream.foreachBatch(handle).start()
    """, DATAFRAME, UNBOUNDED, "`foreachBatch` gives it each micro-batch"),
    model("foreachBatch", "second-parameter", """
        def handle(batch, epoch):
            probe(epoch)
        spark.readStream.table("t").writeStream.foreachBatch(handle).start()
    """, NOT_SPARK),
    model("ml-transform", "transform-of-dataframe", """
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.getOrCreate()
        probe(model.transform(spark.table("t")))
    """, DATAFRAME, None),
    model("ml-transform", "fitted-model-transform-keeps-rows", """
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.getOrCreate()
        model = pipeline.fit(spark.table("train"))
        probe(model.transform(spark.table("t")))
    """, DATAFRAME, UNBOUNDED),
    model("ml-transform", "transform-keeps-bound", """
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.getOrCreate()
        model = pipeline.fit(spark.table("train"))
        probe(model.transform(spark.table("t").limit(3)))
    """, DATAFRAME, 3),
    model("ml-transform", "transform-of-pandas", """
        import pandas as pd
        probe(scaler.transform(pd.read_csv("x.csv")))
    """, NOT_SPARK),
    # counter-evidence
    model("pandas", "read-csv", """
        import pandas as pd
        probe(pd.read_csv("x.csv"))
    """, PANDAS),
    model("pandas", "loc-wins-over-groupBy", """
        from pyspark.sql import functions as F
        def f(frame):
            frame.groupBy("k")
            frame.loc[0, "a"] = 1
            probe(frame)
    """, NOT_SPARK),
    model("pandas", "loc-first-then-groupBy", """
        from pyspark.sql import functions as F
        def f(frame):
            frame.loc[0, "a"] = 1
            frame.groupBy("k")
            probe(frame)
    """, NOT_SPARK),
    model("pandas", "refuted-receiver-evidence", """
        from pyspark.sql import functions as F
        def f(frame):
            frame.iloc[0]
            probe(frame.withColumn("a", F.lit(1)))
    """, NOT_SPARK),
    model("pandas", "inplace-keyword", """
        from pyspark.sql import functions as F
        def f(frame):
            frame.printSchema()
            frame.fillna(0, inplace=True)
            probe(frame)
    """, NOT_SPARK),
    model("pandas", "assigned-from-pandas-in-a-branch", """
        import pandas as pd
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.getOrCreate()
        def f(local):
            if local:
                df = pd.read_csv("x.csv")
            else:
                df = spark.read.csv("x.csv")
            df.printSchema()
            probe(df)
    """, NOT_SPARK),
    model("polars", "scan-csv-collect", """
        import polars as pl
        probe(pl.scan_csv("x.csv").collect())
    """, FOREIGN),
    model("polars", "lazyframe-from-import", """
        from polars import scan_parquet
        def f():
            lf = scan_parquet("x")
            lf.createOrReplaceTempView("v")
            probe(lf)
    """, NOT_SPARK),
    model("polars", "with_columns-wins", """
        from pyspark.sql import functions as F
        def f(lf):
            lf.with_columns(a=1)
            lf.toPandas()
            probe(lf)
    """, NOT_SPARK),
    model("dask", "compute-wins", """
        from pyspark.sql import functions as F
        def f(ddf):
            ddf.withColumn("a", F.lit(1))
            ddf.compute()
            probe(ddf)
    """, NOT_SPARK),
    model("dask", "read-parquet", """
        import dask.dataframe as dd
        probe(dd.read_parquet("x"))
    """, FOREIGN),
    model("ibis", "execute-wins", """
        from pyspark.sql import functions as F
        def f(t):
            t.printSchema()
            t.execute()
            probe(t)
    """, NOT_SPARK),
    model("ibis", "connection-table", """
        import ibis
        con = ibis.duckdb.connect()
        probe(con.table("t"))
    """, FOREIGN),
    model("orm", "objects-refutes-the-model", """
        from pyspark.sql import functions as F
        def f(Order):
            Order.objects.filter(a=1)
            Order.printSchema()
            probe(Order)
    """, NOT_SPARK),
    model("orm", "queryset-origin", """
        from pyspark.sql import functions as F
        from shop.models import Order
        def f():
            qs = Order.objects.filter(status="open")
            qs.printSchema()
            probe(qs)
    """, NOT_SPARK),
    model("orm", "sqlalchemy-query-origin", """
        from pyspark.sql import functions as F
        def f(session):
            q = session.query(User).filter_by(active=True)
            q.printSchema()
            probe(q)
    """, NOT_SPARK),
    model("pandas", "query-origin", """
        from pyspark.sql import functions as F
        def f(pdf):
            recent = pdf.query("day > 5")
            recent.withColumn("x", F.lit(1))
            probe(recent)
    """, NOT_SPARK),
    model("spark", "chain-of-spark-members-origin", """
        from pyspark.sql import functions as F
        def f(df):
            slim = df.select("a").dropDuplicates(["a"])
            slim.printSchema()
            probe(slim)
    """, DATAFRAME, UNBOUNDED),
    model("orm", "sqlalchemy-scalars", """
        from pyspark.sql import functions as F
        def f(result):
            result.scalars()
            result.unpersist()
            probe(result)
    """, NOT_SPARK),
]


_SPARK_KINDS = {DATAFRAME, SESSION, "Column", "RDD", "GroupedData", "DataFrameReader"}


@pytest.mark.parametrize("code, expect_kind, bound, why", MODEL)
def test_model(code, expect_kind, bound, why):
    value = probe(code)
    if expect_kind == NOT_SPARK:
        assert value is None or value.kind not in _SPARK_KINDS, value
        return
    assert value is not None and value.kind == expect_kind, value
    if bound is not None:
        assert value.bound == bound, value
    if why is not None:
        assert value.why and why in value.why, value.why


def test_evidence_is_read_lazily_and_once():
    """Only scopes whose text uses a name with a watched member are scanned, and each at most once."""
    code = _code("""
        from pyspark.sql import functions as F
        def a(df):
            df.printSchema()
            probe(df)
            probe(df)
        def b(x):
            probe(x)
    """)
    sem = Semantic(frozenset(), code)
    scans = []
    original = sem._scan
    sem._scan = lambda node: scans.append(node) or original(node)
    seen = _probed(sem, code)
    assert [v.kind if v else None for v in seen] == [DATAFRAME, DATAFRAME, None]
    assert len(scans) == 1  # `x` is never used with a watched member: function b is not scanned


def test_bounded_constant_is_what_inferred_limits_give():
    value = probe("""
        from pyspark.sql import functions as F
        def f(df, n):
            df.printSchema()
            probe(df.limit(n))
    """)
    assert value.kind == DATAFRAME and value.bound == BOUNDED


_FLAGGED = """
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.getOrCreate()
    IS_SAMPLE = False  # if True, use only SAMPLE_ROWS rows
    df = spark.table("transactions")
    if IS_SAMPLE:
        df = df.limit(5000)
"""


@pytest.mark.parametrize("tail, bound", [
    ("probe(df)", "unbounded"),                          # the limit never runs: every row reaches toPandas
    ("IS_SAMPLE = True\nprobe(df)", "unbounded"),        # the flag changes: the limit may not run
    ("def f(IS_SAMPLE):\n    d = spark.table('x')\n    if IS_SAMPLE:\n        d = d.limit(3)\n    probe(d)",
     "unbounded"),                                        # a parameter: either way, and one collects every row
], ids=["dead-branch", "flag-reassigned", "parameter-shadows-flag"])
def test_a_module_flag_assigned_false_once_makes_its_branch_dead(tail, bound):
    value = probe(textwrap.dedent(_FLAGGED) + tail + "\n")
    assert value is not None and value.kind == DATAFRAME and value.bound == bound, value


@pytest.mark.parametrize("expr, bound", [
    ("spark.read.csv('x').selectExpr(\"instr(Description, 'GLASS') >= 1 as is_glass\").groupBy('is_glass').count()", 3),
    ("spark.table('t').select((F.col('amount') > 100).alias('big')).groupBy(F.col('big')).count()", 3),
    ("spark.table('t').select((F.col('a').isNull()).alias('missing'), 'b').groupBy('missing', 'b').count()",
     "unbounded"),
    ("spark.table('t').selectExpr('amount + 1 as big').groupBy('big').count()", "unbounded"),
    ("spark.table('t').groupBy('is_glass').count()", "unbounded"),  # a name is no proof of a type
], ids=["selectExpr-comparison", "select-alias-comparison", "one-key-not-boolean", "arithmetic", "name-only"])
def test_groups_of_boolean_keys_are_bounded(expr, bound):
    code = ("from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
            "spark = SparkSession.builder.getOrCreate()\n" f"probe({expr})\n")
    value = probe(code)
    assert value is not None and value.kind == DATAFRAME and value.bound == bound, value


_CALLERS = ("from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
            "spark = SparkSession.builder.getOrCreate()\n")


@pytest.mark.parametrize("code, bound", [
    ("imp = spark.table('t').limit(10)\ndef plot(df):\n    probe(df)\n    df.toPandas()\nplot(imp)\n", 10),
    ("out = Explainer().transform(spark.table('t'))\ndef plot(df):\n    probe(df)\n    df.toPandas()\nplot(out)\n",
     None),
    ("imp = spark.table('t')\ndef plot(df):\n    probe(df)\n    df.toPandas()\nplot(imp)\n", "unbounded"),
    ("def plot(df):\n    probe(df)\n    df.toPandas()\n", "unbounded"),
    ("def plot(df):\n    probe(df)\n    df.toPandas()\nplot(load())\n", "unbounded"),
    ("imp = spark.table('t').limit(10)\ndef plot(df):\n    probe(df)\n    df.toPandas()\nplot(imp)\n"
     "plot(spark.table('u'))\n", "unbounded"),
    ("def plot(x, df=None):\n    probe(df)\n    df.toPandas()\nplot(1, df=spark.table('u').limit(3))\n", 3),
    ("df = spark.table('big')\ndef plot(df):\n    probe(df)\n    df.toPandas()\nplot(df)\n", "unbounded"),
    ("def plot(df):\n    probe(df)\n    df.toPandas()\nout = spark.table('t').limit(5)\nplot(out)\n", 5),
], ids=["small-caller", "caller-passes-an-unknown-size", "big-caller", "no-caller", "caller-passes-unknown-value",
        "one-big-caller", "keyword", "caller-name-shadowed-by-parameter", "argument-assigned-after-the-def"])
def test_a_parameter_taken_for_a_dataframe_has_the_rows_its_callers_pass(code, bound):
    value = probe(_CALLERS + code)
    assert value is not None and value.kind == DATAFRAME and value.bound == bound, value


@pytest.mark.parametrize("call, kind", [
    ("df.filter('active = true').count()", DATAFRAME),
    ("df.where(\"amount > 0 AND day IS NOT NULL\").count()", DATAFRAME),
    ("df.filter('is_active').count()", None),             # a column name: polars and others take it too
    ("df.filter(lambda r: r > 0).count()", None),         # an RDD's filter
    ("df.filter(like='amount').count()", None),           # pandas
], ids=["sql-equality", "sql-and", "bare-name", "function", "pandas-keyword"])
def test_a_sql_condition_given_to_filter_is_evidence(call, kind):
    value = probe(f"from pyspark.sql import functions as F\ndef f(df):\n    probe(df)\n    {call}\n")
    assert (value.kind if value is not None else None) == kind, value


@pytest.mark.parametrize("code, kind", [
    ("from pyspark.sql import functions as F\nrows = orders.collect()\nprobe(orders)\n", DATAFRAME),
    ("from pyspark.sql import functions as F\nrows = orders.join(items, 'id').count()\nprobe(orders)\n", DATAFRAME),
    ("from pyspark.sql import functions as F\nrows = orders.groupby('k').agg({'v': 'sum'}).collect()\n"
     "probe(orders)\n", DATAFRAME),
    ("import pandas as pd\nfrom pyspark.sql import functions as F\n"
     "totals = orders.groupby('k').agg({'v': 'sum'})\nprobe(orders)\n", None),
    ("from pyspark.sql import functions as F\nvalues = stats.collect(5)\nprobe(stats)\n", None),
    ("import pandas as pd\nfrom pyspark.sql import functions as F\nrows = orders.count()\nprobe(orders)\n", None),
    ("from helpers import *\nfrom pyspark.sql import functions as F\nrows = orders.collect()\nprobe(orders)\n", None),
    ("from pyspark.sql import functions as F\nx = str.join(',', ['a'])\nprobe(str)\n", None),
    ("from pyspark.sql import functions as F\ndef f():\n    probe(orders)\n    return orders.collect()\norders = load()\n",
     None),
], ids=["free-name-collect", "free-name-join", "free-name-groupby", "groupby-with-pandas-imported",
        "collect-with-an-argument", "pandas-imported", "star-import",
        "builtin", "bound-later-in-the-file"])
def test_a_name_the_file_never_binds_is_judged_by_its_members(code, kind):
    value = probe(code)
    assert (value.kind if value is not None else None) == kind, value


@pytest.mark.parametrize("code, kind", [
    ("from .conversion import PandasConversionMixin\ndef f(spark_df):\n    probe(PandasConversionMixin)\n"
     "    return PandasConversionMixin.toPandas(spark_df)\n", None),
    ("def f(spark_df):\n    probe(spark_df)\n    return spark_df.toPandas()\n", DATAFRAME),
], ids=["class-method-given-the-frame", "the-frame-itself"])
def test_to_pandas_given_an_argument_is_not_a_frames_own(code, kind):
    value = probe(code)
    assert (value.kind if value is not None else None) == kind, value


@pytest.mark.parametrize("code, kind", [
    ("from pyspark import SparkContext\ndef totals(pairs):\n    probe(pairs)\n    return pairs.groupByKey().mapValues(sum)\n",
     "RDD"),
    ("from pyspark import SparkContext\ndef index(lines):\n    probe(lines)\n    return lines.zipWithIndex()\n", "RDD"),
    ("from pyspark import SparkContext\ndef f(frame):\n    probe(frame)\n    return frame.groupby('k').sum()\n", None),
], ids=["pair-rdd-operation", "zip-with-index", "groupby-is-not-rdd-evidence"])
def test_members_only_an_rdd_has_make_an_rdd(code, kind):
    value = probe(code)
    assert (value.kind if value is not None else None) == kind, value


@pytest.mark.parametrize("query, bound", [
    ("'SELECT (' + str(rule['expectation']) + ') AS OUTPUT'", 1),   # no FROM: one row, whatever the expression
    ("'SELECT * FROM ' + table", "unbounded"),
    ("'SELECT count(*) FROM %s' % table", 1),
], ids=["plus-no-from", "plus-table", "percent-aggregate"])
def test_sql_built_with_plus_or_percent_is_read_as_a_template(query, bound):
    code = ("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
            f"def f(rule, table):\n    q = {query}\n    probe(spark.sql(q))\n")
    value = probe(code)
    assert value is not None and value.bound == bound, value


_BRANCHES = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\ndf = spark.table('t')\n"


@pytest.mark.parametrize("code, bound", [
    ("if debug:\n    df = df.limit(10)\nprobe(df)\n", "unbounded"),                     # the other way: every row
    ("if debug:\n    df = df.limit(10)\n    probe(df)\n", 10),                           # inside the branch
    ("if a:\n    df = df.limit(10)\nelse:\n    df = df.limit(30)\nprobe(df)\n", 30),      # both: the larger
    ("if a:\n    df = df.limit(10)\nelif b:\n    df = df.limit(30)\nprobe(df)\n", "unbounded"),
    ("if a:\n    df = df.limit(10)\nelif b:\n    df = df.limit(30)\nelse:\n    df = df.limit(5)\nprobe(df)\n", 30),
    ("if a:\n    df = df.limit(10)\nelse:\n    probe(df)\n", "unbounded"),                # else starts from before
    ("if a:\n    if b:\n        df = df.limit(10)\n    else:\n        df = df.limit(20)\nelse:\n"
     "    df = df.limit(40)\nprobe(df)\n", 40),                                             # nested
    ("if a:\n    if b:\n        df = df.limit(10)\nelse:\n    df = df.limit(40)\nprobe(df)\n", "unbounded"),
    ("for t in tables:\n    df = spark.table(t).limit(10)\n    probe(df)\n", 10),          # inside the loop body
    ("for t in tables:\n    df = spark.table(t).limit(10)\nprobe(df)\n", "unbounded"),     # the loop may not run
    ("small = df.limit(10)\nfor t in tables:\n    small = small.union(spark.table(t).limit(5))\nprobe(small)\n",
     "bounded"),                                                                            # a union of limits
    ("try:\n    df = df.limit(10)\n    probe(df)\nexcept ValueError:\n    pass\n", 10),     # inside the try body
    ("try:\n    df = df.limit(10)\nexcept ValueError:\n    pass\nprobe(df)\n", "unbounded"),  # it may stop first
    ("try:\n    df = df.limit(10)\nexcept ValueError:\n    df = df.limit(3)\nprobe(df)\n", 10),
    ("try:\n    df = df.limit(10)\nexcept ValueError:\n    probe(df)\n", "unbounded"),    # the body may stop first
    ("try:\n    x = 1\nexcept ValueError:\n    pass\nelse:\n    df = df.limit(7)\n    probe(df)\n", 7),
    ("try:\n    df = df.limit(10)\nfinally:\n    pass\nprobe(df)\n", 10),              # no handler: the body ran
    ("def f(a):\n    x = spark.table('t').limit(5)\n    if a:\n        x = x.limit(3)\n    probe(x)\n", 5),
    ("try:\n    x = load()\nfinally:\n    df = df.limit(10)\nprobe(df)\n", 10),               # finally runs last
    ("df = df.limit(10)\ntry:\n    df = df.limit(5)\nfinally:\n    df = spark.table('t')\nprobe(df)\n", "unbounded"),
    ("try:\n    log()\nexcept Exception:\n    df = df.limit(10)\nprobe(df)\n", "unbounded"),  # a body binding nothing
    ("if (df := df.limit(100)) is not None:\n    pass\nelse:\n    probe(df)\n", 100),       # the test's walrus
    ("def f(n, df):\n    df = spark.table('t')\n    if n:\n        df = df.limit(n)\n    else:\n"
     "        raise ValueError(n)\n    probe(df)\n", "bounded"),                                # a branch that raises
    ("def f(n, df):\n    df = spark.table('t')\n    if not n:\n        return None\n    df = df.limit(3)\n"
     "    probe(df)\n", 3),
    ("if full: df = spark.table('t')\nelse: df = spark.table('t').limit(10)\nprobe(df)\n", "unbounded"),
    ("try: df = df.limit(10)\nexcept Exception: pass\nprobe(df)\n", "unbounded"),        # one-line suites
], ids=["if-no-else", "inside-branch", "if-else", "elif-no-else", "elif-else", "else-starts-fresh",
        "nested-all-bounded", "nested-one-unbounded", "loop-body", "after-loop", "loop-union", "try-body", "after-try",
        "try-handler", "in-handler", "try-else", "try-finally", "both-limits", "finally-binds",
        "finally-rebinds", "try-body-binds-nothing", "walrus-in-test", "branch-raises", "early-return",
        "one-line-if", "one-line-try"])
def test_a_limit_bounds_a_name_on_every_way_through_or_not_at_all(code, bound):
    value = probe(_BRANCHES + code)
    assert value is not None and value.kind == DATAFRAME and value.bound == bound, (value, value and value.bound)


def test_member_uses_are_what_the_one_pattern_finds():
    """``member_uses`` finds, from the members' dots, what trying one pattern at every word finds (the
    fixtures' Python, sparkcheck's own, and the corner cases of a prefix, a chain, a word that is no name)."""
    import glob
    import os
    import re

    from linter.semantic import evidence

    members = evidence._WATCHED | evidence.FOREIGN_ONLY | evidence._FREE_NAME_MEMBERS | evidence.RDD_ONLY
    names = "|".join(sorted(members, key=len, reverse=True))
    pattern = re.compile(rf"\b(self\s*\.\s*)?([A-Za-z_]\w*)\s*\.\s*(?:{names})\b")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    texts = [open(p, encoding="utf-8", errors="replace").read() for folder in ("fixtures", "linter", "checks")
             for p in glob.glob(os.path.join(root, folder, "**", "*.py"), recursive=True)]
    texts += ["self.x.count", "self . x . count", "self.count.filter", "a.b.withColumn", "x\n.count", "1abc.count",
              "\u00e9x.count", "x\u00e9.count", "self.self.count", "myself.x.count", "self.x.collect_schema",
              "self.\u00e9.count", "_self.x.count", "self.  \n x .count  .filter", "a.count.count.count",
              "x.countx", "x . \t count(", "self.x.y.count", ".count", "self.count"]
    assert len(texts) > 300
    for text in texts:
        assert evidence.member_uses(text) == pattern.findall(text), text[:200]
