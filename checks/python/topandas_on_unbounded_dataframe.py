from checks.python._driver import origin, shown, unbounded_receiver
from linter.registry import Invalid, Option, PythonRule, Valid

_SETUP = """\
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
"""


class ToPandasOnUnboundedDataFrame(PythonRule):
    """
    ## What it does
    Finds `toPandas()` on a DataFrame whose number of rows nothing bounds.

    It knows a DataFrame and a bound exactly as SPK101
    (collect-on-unbounded-dataframe) does: only provable DataFrames are
    reported, and a `limit(n)` within `max-rows`, a global aggregate, rows
    built on the driver or a grouping by columns of few values count as
    bounded: a Python UDF whose every `return` gives a literal (a sentiment of
    `'Positive'`, `'Negative'` or `'Neutral'`), an `F.when(...)` chain of
    literals, a condition. A grouping by a column of any other values has a
    row per value, and is reported. Nor is a function whose whole body is
    `return df.toPandas()` of its own parameter that the file never calls
    (a conversion helper of a library, `def to_pandas(df): return
    df.toPandas()`): its callers, elsewhere, choose what they convert; one
    the file calls, or that also selects or filters, is reported.

    ## Why is this bad?
    `toPandas()` collects every row to the driver and then builds a pandas
    DataFrame from them: the driver holds the data at least twice (Arrow
    batches or Rows, and the pandas copy). On a real table it ends in a driver
    OutOfMemoryError or `spark.driver.maxResultSize` exceeded.

    ## Example
    ```python
    sales = spark.table("sales")
    pdf = sales.toPandas()
    ```

    ## Use instead
    ```python
    sales = spark.table("sales")
    pdf = sales.limit(10_000).toPandas()
    ```
    Or aggregate first and convert the small result, or keep the work in Spark
    (the pandas API on Spark, `applyInPandas`, `mapInPandas`).

    ## Fix safety
    No fix: how many rows are enough is the author's decision.

    ## Options
    - `max-rows` (int, default 1000000): a `limit(n)` above this does not count
      as a bound.

    ## References
    - PySpark user guide, "Apache Arrow in PySpark": `toPandas` collects all
      records to the driver and should be done on a small subset of the data.
    """

    code = "SPK102"
    skip_in_tests = True
    name = "topandas-on-unbounded-dataframe"
    summary = "`toPandas()` on a DataFrame whose rows nothing bounds"
    default_reason = ("`toPandas()` of an unbounded table holds the data at least twice on the driver and "
                      "ends in a driver out of memory; a limit, a global aggregate or a few literal rows keep it quiet")
    triggers = ("toPandas",)
    options = {"max-rows": Option(1_000_000, "A `limit(n)` above this does not count as a bound.")}

    invalid = (
        Invalid(_SETUP + "events = spark.table('events')\n"
                "corr = events.groupby(F.lit(1)).applyInPandas(lambda p: p.corr(), 'a double, b double').toPandas()\n"),
        Invalid(_SETUP + 'taxi = spark.read.format("delta").load("Tables/nyctaxi")\npdf = taxi.sample(0.5).toPandas()\n'),
        Invalid(_SETUP + 'sales = spark.table("sales")\npdf = sales.toPandas()\n'),
        Invalid(_SETUP + "def to_frame(df: DataFrame):\n    return df.select('a', 'b').toPandas()\n"),
        Invalid(_SETUP + 'pdf = spark.read.csv("/data/big.csv", header=True).toPandas()\n'),
        Invalid(_SETUP + 'pdf = spark.table("sales").limit(50_000_000).toPandas()\n'),
        # the UDF returns the text it is given: a row per distinct review
        Invalid(_SETUP + 'from pyspark.sql.functions import udf\n\n@udf("string")\ndef clean(text):\n'
                '    if text is None:\n        return "none"\n    return text.strip().lower()\n\n'
                'reviews = spark.table("reviews").withColumn("clean", clean("body"))\n'
                'pdf = reviews.groupBy("clean").count().toPandas()\n'),
        # another decorator may replace the function that returns the literal
        Invalid(_SETUP + 'import functools\nfrom pyspark.sql.functions import udf\n\ndef passthrough(fn):\n'
                '    @functools.wraps(fn)\n    def wrapper(x):\n        return x\n    return wrapper\n\n'
                '@udf("string")\n@passthrough\ndef label(text):\n    return "constant"\n\n'
                'pdf = spark.table("reviews").withColumn("l", label("body")).groupBy("l").count().toPandas()\n'),
    )
    valid = (
        Valid("# Databricks notebook source\n# MAGIC %run ./config/configure_notebook\n\n# COMMAND ----------\n\n"
              "import pandas as pd\npdf = pd.DataFrame({'date': [1, 2]})\n"
              "spark.createDataFrame(pdf).write.mode('overwrite').saveAsTable(config['tables']['indicators'])\n"
              "back = spark.table(config['tables']['indicators']).toPandas()\n"),
        Valid("import pandas as pd\nfrom pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
              "config = {'tables': {'ind': 'db.indicators'}}\npdf = pd.DataFrame({'date': [1, 2], 'x': [0.1, 0.2]})\n"
              "spark.createDataFrame(pdf).write.mode('overwrite').saveAsTable(config['tables']['ind'])\n"
              "back = spark.table(config['tables']['ind']).orderBy('date').toPandas()\n"),
        Valid(_SETUP + 'importance = spark.table("model_runs").limit(20)\n'
              'def plot_importance(df):\n    pdf = df.select("feature", "gain").toPandas()\n    return pdf\n'
              'plot_importance(importance)\n'),
        Valid(_SETUP + 'taxi = spark.read.format("delta").load("Tables/nyctaxi")\n'
              'pdf = taxi.sample(True, 0.001, seed=1234).toPandas()\n'),
        Valid(_SETUP + 'pdf = spark.table("sales").limit(10_000).toPandas()\n'),
        Valid(_SETUP + 'def to_pandas(spark_df: DataFrame):\n    """The frame as pandas."""\n    return spark_df.toPandas()\n'),
        Valid(_SETUP + 'pdf = spark.table("sales").groupBy().agg(F.sum("amount")).toPandas()\n'),
        Valid(_SETUP + 'pdf = spark.table("sales").describe().toPandas()\n'),
        # a lakehouse table the notebook wrote from literal rows, read back by its name in another case
        Valid(_SETUP + 'small = spark.createDataFrame([(1, 2.5)], ["id", "price"])\n'
              'small.write.format("delta").mode("overwrite").save("Tables/practiceData")\n'
              'pdf = spark.read.table("practicedata").toPandas()\n'),
        # sempy's FabricDataFrame (pandas, on the driver) saved as a lakehouse table, read back by its lakehouse
        Valid(_SETUP + 'import sempy.fabric as fabric\n\n'
              'fabric.read_table("Churn", "customers").to_lakehouse_table("churn_customers", mode="overwrite")\n'
              'pdf = spark.sql("SELECT * FROM my_lakehouse.churn_customers").toPandas()\n'),
        # a UDF of three literals: four groups at most (null counted), whatever the table holds
        Valid(_SETUP + 'from pyspark.sql.functions import udf\nfrom pyspark.sql.types import StringType\n\n'
              'def sentiment(text):\n    polarity = score(text)\n    if polarity > 0:\n        return "Positive"\n'
              '    elif polarity < 0:\n        return "Negative"\n    return "Neutral"\n\n'
              'sentiment_udf = udf(sentiment, StringType())\n'
              'scored = spark.table("reviews").withColumn("sentiment", sentiment_udf("body"))\n'
              'pdf = scored.groupBy("sentiment").count().toPandas()\n'),
        Valid("import polars as pl\nframe = pl.DataFrame({'a': [1]})\npdf = frame.toPandas()\n"),
        Valid("def convert(table):\n    return table.toPandas()\n"),
    )

    def visit_Call(self, node) -> None:
        found = unbounded_receiver(self, node, ("toPandas",))
        if found is None:
            return
        receiver, value, why = found
        name = shown(self.ctx, receiver)
        message = f"`{name}.toPandas()` copies every row of the DataFrame into the driver: {why}"
        help = (
            f"convert a bounded or aggregated result (`{name}.limit(n).toPandas()`), or keep the work "
            "on the executors (`applyInPandas`, `mapInPandas`, the pandas API on Spark)"
        )
        self.ctx.report(self, node, message + origin(self, value, receiver), help=help, start=node.func.attr)
