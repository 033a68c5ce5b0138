"""pyspark's API as the inference needs it: which methods keep rows, columns, shuffle, cache or write."""

from __future__ import annotations

# DataFrame methods whose result has at most as many rows as their receiver
# (or a fixed multiple, for unpivot): the bound carries over.
_SAME_ROWS = frozenset(
    "select filter where withColumn withColumns withColumnRenamed withColumnsRenamed drop "
    "dropDuplicates drop_duplicates dropDuplicatesWithinWatermark distinct orderBy sort "
    "sortWithinPartitions alias cache persist unpersist repartition repartitionByRange "
    "coalesce hint fillna dropna replace selectExpr toDF sample withWatermark localCheckpoint "
    "checkpoint exceptAll subtract intersect intersectAll unpivot melt withMetadata to observe "
    "offset where".split()
)
_COMBINE = frozenset("join crossJoin union unionAll unionByName".split())
_GROUPING = frozenset("groupBy groupby rollup cube".split())
# GroupedData's methods that hand each group's rows, whole, to a Python function (which returns any rows).
GROUPED_MAPS = frozenset(("applyInPandas", "applyInArrow", "apply", "applyInPandasWithState"))
_GROUPED_RESULT = frozenset("agg count sum avg mean min max applyInPandas apply".split())
_READER_CONFIG = frozenset("format option options schema".split())
_READER_LOAD = frozenset("load csv json parquet orc text table jdbc avro xml delta".split())
# (serverless ... userAgent: Databricks Connect's DatabricksSession.builder)
_BUILDER_CONFIG = frozenset(
    "master appName config enableHiveSupport remote serverless profile clusterId host token sdkConfig "
    "validateSession headers userAgent".split()
)
_RDD_SAME = frozenset(
    "map flatMap filter mapPartitions mapPartitionsWithIndex mapValues flatMapValues distinct "
    "reduceByKey groupByKey sortBy sortByKey keys values keyBy sample union join cache persist "
    "repartition coalesce zipWithIndex".split()
)
_CONTEXT_FILES = frozenset(
    "textFile wholeTextFiles sequenceFile hadoopFile newAPIHadoopFile binaryFiles pickleFile".split()
)
# DataFrame attributes that are not column accesses.
_DF_ATTRIBUTES = frozenset(
    "columns dtypes schema write writeStream na stat rdd sparkSession isStreaming storageLevel "
    "sql_ctx sqlContext".split()
)
AGGREGATES = frozenset(
    "count sum avg mean max min first last countDistinct count_distinct approx_count_distinct "
    "approxCountDistinct stddev stddev_samp stddev_pop variance var_samp var_pop collect_list "
    "collect_set sumDistinct sum_distinct kurtosis skewness corr covar_pop covar_samp "
    "percentile_approx percentile median mode max_by min_by any_value bool_and bool_or every "
    "some count_if array_agg histogram_numeric product".split()
)


# DataFrame methods that put a shuffle in the plan: recomputing their result is costly.
SHUFFLES = frozenset(
    "join crossJoin groupBy groupby rollup cube agg distinct dropDuplicates drop_duplicates orderBy sort "
    "repartition repartitionByRange intersect intersectAll subtract exceptAll".split()
)
CACHES = frozenset({"cache", "persist", "checkpoint", "localCheckpoint"})
WRITER_CONFIG = frozenset(
    "mode format option options partitionBy partitionedBy bucketBy sortBy clusterBy using tableProperty".split()
)
WRITES = frozenset("save saveAsTable insertInto parquet csv json orc text jdbc avro xml append overwrite create createOrReplace".split())
# Methods after which the columns are those of the receiver.
_SAME_COLUMNS = frozenset(
    "filter where orderBy sort sortWithinPartitions distinct dropDuplicates drop_duplicates limit cache persist "
    "unpersist repartition repartitionByRange coalesce sample hint alias localCheckpoint checkpoint fillna dropna "
    "replace offset".split()
)


# Platform entry points (qualified names after imports are resolved).
DLT_DATASETS = frozenset({"dlt.table", "dlt.view", "dlt.create_table", "dlt.create_view", "dlt.materialized_view"})
DLT_READS = frozenset({"dlt.read", "dlt.read_stream"})
SQL_CONTEXTS = frozenset({
    "pyspark.sql.SQLContext", "pyspark.sql.HiveContext", "pyspark.sql.SQLContext.getOrCreate",
    "pyspark.sql.context.SQLContext", "pyspark.sql.context.HiveContext",
})
GLUE_CONTEXT = "awsglue.context.GlueContext"
GLUE_DYNAMIC_FRAME = "awsglue.dynamicframe.DynamicFrame"
# Attributes that hold a SparkSession whatever object carries them (`self.spark`, `ctx.spark_session`).
SESSION_ATTRIBUTES = frozenset({"spark", "spark_session", "sparkSession"})
