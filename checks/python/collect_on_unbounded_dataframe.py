import libcst as cst

from checks.python._driver import aggregated, origin, shown, unbounded_receiver
from checks.python.collect_first_row import first_row_index
from linter.registry import Invalid, Option, PythonRule, Valid
from linter.semantic import RDD, keyword_arg, literal_int, method_name, positional_args

_SETUP = """\
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("job").getOrCreate()
"""


class CollectOnUnboundedDataFrame(PythonRule):
    """
    ## What it does
    Finds `collect()` and `toLocalIterator()` on a DataFrame (or an RDD made from
    files or from a DataFrame) whose number of rows nothing bounds, and
    `show(n=df.count())` (or a literal `n` above `max-rows`), which brings
    every row to the driver to print it. Not that of an aggregation's
    result (`groupBy(...).agg(...)` with no join, union or `explode` after
    it, SQL whose outermost query has a `GROUP BY`): printing every
    row of a grouped report into the job's log is what the report is for,
    and an author who asks for all its rows knows how many keys it has; a
    table printed whole, or its `distinct()`, is reported.

    A DataFrame is known where it is made (`spark.read...`, `spark.table`,
    `spark.sql`, AWS Glue's `toDF()`, Delta, DLT, pyspark annotations, DataFrame
    methods on those, followed through assignments, returns and `self.x`) and
    from how the code uses it: a parameter `df` on which `withColumn`,
    `toPandas`, `.write`... are called, or that `filter` is given a pyspark
    Column, is a DataFrame (the message says which evidence). pandas, polars,
    dask, ibis and ORM objects never are, whatever else is called on them, so
    `LazyFrame.collect()` and `gc.collect()` are left alone.

    Rows are unbounded unless something proves them few: `limit(n)` (with `n`
    up to `max-rows`), a global aggregate (`agg(...)`, `groupBy().agg(...)`, a
    `select` of aggregate functions only), `describe()`, a `sample` of 1% or
    less (`sample(0.001)`: a few rows by intent; `sample(0.5)` is half the
    table), rows built on the driver (`createDataFrame`, a small `spark.range`), groups of
    keys the file shows to have few values, and `distinct()` of such columns
    only: a condition (`selectExpr("x >= 1 as flag").groupBy("flag")`: three
    rows at most), an `F.when(...)` chain of literals, `F.lit`, a Python UDF
    whose every `return` gives a literal (`withColumn("band", band_udf("x"))`,
    `band` returning `"low"`, `"mid"` or `"high"`), the distinct values of a
    column the file pivots or samples by (`select("month").distinct()`
    collected for `pivot("month", months)` or the fractions of
    `sampleBy("rating", ...)`: a pivot makes a column of each value, and Spark
    refuses more than `spark.sql.pivotMaxValues` when it finds them itself),
    the distinct input files of a read (`select(F.input_file_name()).distinct()`:
    a row per file, which the driver listed to plan the scan), SQL with a
    `LIMIT`, without `FROM` (`SELECT current_user()`), of aggregates only, or
    that is not a query (`SHOW`, `DESCRIBE`, `SET`). SQL built with an f-string
    is read with its fields as names. SQL over a temp view (or a table, a
    path) the file made from a small frame has its rows when it reads only
    that view or keeps only its rows (`LEFT ANTI`/`LEFT SEMI JOIN`), the view
    named by the same text or the same constant's item
    (`createOrReplaceTempView(CONFIG["source"])` and `{CONFIG['source']}` in
    the query); another join, a set operation or a generator (`explode`)
    is not bounded by it. A notebook of a series in one folder may read a
    table another file of that folder wrote from a small frame (`3-train`
    loading `Tables/df_clean`, which `2-explore` wrote with
    `spark.createDataFrame(pandas_df)...save("Tables/df_clean")`, or with
    sempy's `to_lakehouse_table`, a pandas frame saved as a table; a Fabric
    workspace's `NAME.Notebook/notebook-content.py` folders alike): its rows
    are bounded when every file there that writes the table wrote it, each
    time, from a frame proven small, and none of them appends to it, writes
    under a condition, writes it under another spelling or through an API
    the model does not read (`writeTo`, `toTable`, a Delta merge), or runs
    SQL or writes whose name it cannot spell (linter/neighbours.py says
    exactly what vouches for nothing); `lakehouse.table` reads
    `Tables/table` back. Those files are part of the notebook's cache key. A limit on one branch only (`if debug: df =
    df.limit(100)`, then `df.collect()` after the `if`) is no bound: on the
    other way through every row is collected, and the message says so; a
    collect inside that branch, or after an `if`/`else` that limits on
    both branches, is bounded (by the larger limit). A module flag assigned
    once decides the branch: `IS_SAMPLE = False` at the top of the module
    and `if IS_SAMPLE: df = df.limit(5000)` leave every row, `IS_SAMPLE =
    True` keeps the limit.
    A parameter taken for a DataFrame has the rows its callers in the file
    pass: quiet when every call passes a small frame (a notebook's plotting
    helper given a 20-row table), reported when one passes a whole table or
    when nothing in the file calls it. A parameter annotated `DataFrame` of a
    function or method the file never calls, in a package, has the rows the
    package's other modules pass it (test modules left out): quiet when every
    call there passes a frame its module shows to be small
    (`self.context.set_stats(spark.createDataFrame(rows))`), reported when one
    passes anything else or none calls it. Those modules are part of the
    file's cache key. A function whose whole body is `return df.collect()`
    of its own parameter (a library's conversion helper,
    `def rows(df): return df.collect()`) that the file never calls is not
    reported: its callers, elsewhere, choose what they bring back; one the
    file calls is judged by what the calls pass.
    `collect()[0]` is left to SPK105 (collect-first-row).

    ## Why is this bad?
    `collect()` ships every row to the driver and holds them all in its memory
    at once. On a production table this is the classic driver OutOfMemoryError
    (or `spark.driver.maxResultSize` exceeded) that kills the whole application.
    `toLocalIterator()` avoids holding everything at once but still moves every
    row through the driver, one partition (and one Spark job) at a time.

    ## Example
    ```python
    events = spark.read.parquet("s3://lake/events")
    rows = events.collect()
    ```

    ## Use instead
    ```python
    events = spark.read.parquet("s3://lake/events")
    rows = events.limit(100).collect()
    ```
    Or aggregate on the cluster (`events.agg(F.count("*")).first()[0]`), or write
    the result out (`events.write.parquet(...)`) instead of collecting it.

    ## Fix safety
    No fix: how many rows are enough is the author's decision.

    ## Options
    - `max-rows` (int, default 100000): a `limit(n)` above this does not count
      as a bound.

    ## References
    - Spark SQL guide, "Performance Tuning"; Spark RDD programming guide,
      "Printing elements of an RDD" (collect brings the entire RDD to the driver).
    """

    code = "SPK101"
    skip_in_tests = True
    name = "collect-on-unbounded-dataframe"
    summary = "`collect()` or `toLocalIterator()` on a DataFrame whose rows nothing bounds"
    default_reason = ("an unbounded `collect()` on a production table is the classic driver OutOfMemoryError "
                      "that kills the application; a limit, a global aggregate or a few literal rows keep it quiet")
    triggers = ("collect", "toLocalIterator", "show")
    options = {"max-rows": Option(100_000, "A `limit(n)` above this does not count as a bound.")}

    invalid = (
        Invalid(_SETUP + 'doubled = spark.table("orders").selectExpr("amount * 2 AS doubled").collect()\n'),
        Invalid(_SETUP + 'ranks = spark.table("orders").selectExpr("rank() OVER (ORDER BY amount) AS r").collect()\n'),
        Invalid(_SETUP + "def run_sql(query: str) -> DataFrame:\n    \"\"\"Run a query.\"\"\"\n    return spark.sql(query)\n\n"
                "rows = run_sql('SELECT * FROM sales.orders').collect()\n"),
        Invalid(_SETUP + 'df = spark.table("sales")\ndf.show(n=df.count(), truncate=False)\n'),
        Invalid(_SETUP + "class Parser:\n    def __init__(self):\n        self.dataframe = None\n\n"
                "    def load(self, path):\n        self.dataframe = spark.read.parquet(path)\n\n"
                "    def evidence(self):\n        return self.dataframe.rdd.map(lambda r: r.asDict()).collect()\n"),
        Invalid("from pyspark.streaming import StreamingContext\n"
                "class Job:\n    def run_microbatch(self, rdd):\n        collected = rdd.collect()\n"
                "        print(len(collected))\n\n    def run(self, ssc):\n"
                "        events = ssc.socketTextStream('localhost', 9999)\n"
                "        events.foreachRDD(lambda rdd: self.run_microbatch(rdd))\n        ssc.start()\n"),
        Invalid(_SETUP + 'df = spark.table("sales").select("customer_id").distinct()\ndf.show(df.count())\n'),
        # pivoted by another column than the one collected
        Invalid(_SETUP + 'sales = spark.table("sales")\nids = [r[0] for r in sales.select("customer_id").distinct().collect()]\n'
                'wide = sales.groupBy("store").pivot("month").sum("amount")\n'),
        # rows again after the grouping (a join back, an explode of the groups' lists), or a subquery's GROUP BY
        Invalid(_SETUP + 'e = spark.table("events")\nper_event = e.groupBy("user_id").count().join(e, "user_id")\n'
                'per_event.show(per_event.count())\n'),
        Invalid(_SETUP + 'e = spark.table("events")\nflat = e.groupBy("u").agg(F.collect_list("p").alias("p"))'
                '.select(F.explode("p"))\nflat.show(n=flat.count())\n'),
        Invalid(_SETUP + 'again = spark.sql("SELECT * FROM events WHERE user_id IN (SELECT user_id FROM events '
                'GROUP BY user_id HAVING count(*) > 1)")\nagain.show(again.count())\n'),
        # a one-line helper the file itself calls with a whole table
        Invalid(_SETUP + 'def rows_of(frame: DataFrame):\n    return frame.collect()\n\n'
                'rows = rows_of(spark.table("events"))\n'),
        Invalid(_SETUP + 'IS_SAMPLE = False  # True: train on a sample\ndf = spark.table("orders")\n'
                'if IS_SAMPLE:\n    df = df.limit(5000)\nrows = df.collect()\n'),
        Invalid(_SETUP + 'events = spark.read.parquet("s3://lake/events")\nrows = events.collect()\n'),
        # limited on one branch only: the other collects every row
        Invalid(_SETUP + 'df = spark.table("orders")\nif debug:\n    df = df.limit(100)\nrows = df.collect()\n'),
        Invalid(_SETUP + 'IS_SAMPLE = False\ndf = spark.table("orders")\nif IS_SAMPLE:\n    df = df.limit(100)\n'
                'IS_SAMPLE = True\nrows = df.collect()\n'),
        # a grouped SQL result: a row per key (the message says so)
        Invalid(_SETUP + 'report = spark.sql("SELECT category, sum(amount) AS total FROM sales GROUP BY category")\n'
                'rows = report.collect()\n'),
        Invalid(_SETUP + "def active(df: DataFrame):\n    return df.filter(F.col('active')).collect()\n"),
        Invalid(_SETUP + 'for row in spark.table("orders").toLocalIterator():\n    print(row)\n'),
        Invalid(_SETUP + 'rows = spark.table("orders").limit(5_000_000).collect()\n'),
        Invalid(_SETUP + 'rows = spark.sql("SELECT * FROM sales WHERE day = current_date()").collect()\n'),
        Invalid(_SETUP + 'rows = spark.sql(f"SELECT * FROM {table}").collect()\n'),
        Invalid(_SETUP + 'lines = spark.sparkContext.textFile("hdfs:///logs/app.log").collect()\n'),
        Invalid(
            _SETUP
            + "def load(path) -> DataFrame:\n    return spark.read.json(path)\n\n"
            + "for r in load('/data/in').select('id').collect():\n    print(r)\n"
        ),
        Invalid("rows = spark.table('customers').collect()\n", path="notebook_cell.py"),
        Invalid("from pyspark.sql import functions as F\n\ndef positives(df):\n"
                "    return df.filter(F.col('amount') > 0).collect()\n"),
        Invalid("from pyspark.sql import SparkSession\n\ndef subtotals(df):\n"
                "    return df.rollup('region', 'store').agg({'amount': 'sum'}).collect()\n"),
        Invalid("from databricks.connect import DatabricksSession\n\n"
                "session = DatabricksSession.builder.serverless().getOrCreate()\n"
                "rows = session.table('samples.tpch.orders').collect()\n"),
        Invalid("from pyspark.sql import SparkSession\n\ndf = df  # the notebook's frame\nrows = df.collect()\n"),
        # a key of few values beside one of many: a row per user
        Invalid(_SETUP + 'events = spark.table("events").withColumn("late", F.col("delay") > 60)\n'
                'rows = events.groupBy("late", "user_id").count().collect()\n'),
        Invalid(_SETUP + 'events = spark.table("events").withColumn("day", F.to_date("ts"))\n'
                'days = events.select("day").distinct().collect()\n'),
        # the view is registered again, from a whole table, before the query reads it
        Invalid(_SETUP + 'spark.createDataFrame([(1, "a")], ["id", "v"]).createOrReplaceTempView("lookup")\n'
                'spark.table("events").createOrReplaceTempView("lookup")\n'
                'rows = spark.sql("SELECT id FROM lookup").collect()\n'),
        # a function that may run later registers the view again, from a whole table
        Invalid(_SETUP + 'def refresh():\n    spark.table("events").createOrReplaceTempView("lookup")\n\n'
                'spark.createDataFrame([(1, "a")], ["id", "v"]).createOrReplaceTempView("lookup")\nrefresh()\n'
                'rows = spark.sql("SELECT id FROM lookup").collect()\n'),
        # SQL that writes into the view's name (or that the file does not show) forgets what it held
        Invalid(_SETUP + 'spark.createDataFrame([(1, "a")], ["id", "v"]).createOrReplaceTempView("lookup")\n'
                'spark.sql("CREATE OR REPLACE TEMP VIEW lookup AS SELECT * FROM events")\n'
                'rows = spark.sql("SELECT id FROM lookup").collect()\n'),
        # one branch keeps a column of few values, the other puts any name there
        Invalid(_SETUP + 'import sys\ndf = spark.table("orders").withColumn("band", F.lit("a"))\n'
                'if len(sys.argv) > 1:\n    df = df.withColumn("band", F.col("name"))\n'
                'rows = df.groupBy("band").count().collect()\n'),
        # applyInPandas returns any number of rows per group: the groups bound nothing
        Invalid(_SETUP + 'events = spark.table("events").withColumn("late", F.col("delay") > 60)\n'
                'rows = events.groupBy("late").applyInPandas(lambda pdf: pdf, "late boolean, delay long").collect()\n'),
        # an inner join can hold more rows than the small view
        Invalid(_SETUP + 'CONFIG = {"source": f"src_{user}", "target": f"tgt_{user}"}\n'
                'spark.createDataFrame([(1,), (2,)], ["id"]).createOrReplaceTempView(CONFIG["source"])\n'
                'rows = spark.sql(f"SELECT * FROM {CONFIG[\'source\']} s JOIN {CONFIG[\'target\']} t ON s.id = t.id")'
                '.collect()\n'),
    )
    valid = (
        Valid(_SETUP + "df = spark.read.parquet('s3://lake/orders/day=2024-06-01/')\n"
              "files = df.withColumn('path', F.input_file_name()).select(F.col('path')).distinct().collect()\n"),
        Valid(_SETUP + "files = spark.read.parquet('s3://lake/orders/').select(F.input_file_name()).distinct().collect()\n"),
        Valid("from pyspark.streaming import StreamingContext\n"
              "def peek(time, rdd):\n    print(time, rdd.take(5))\n\n"
              "def run(ssc):\n    ssc.socketTextStream('localhost', 9999).foreachRDD(peek)\n    ssc.start()\n"),
        Valid(_SETUP + 'top = spark.table("orders").selectExpr("max(amount) AS top").collect()\n'),
        # a wrapper of `spark.sql` reads as `spark.sql` of what it is given: SHOW returns the matching names
        Valid(_SETUP + "class Catalog:\n    def __init__(self, session):\n        self.spark = session\n\n"
              "    def has_table(self, db, name):\n"
              "        return len(self._run(f\"SHOW TABLES FROM {db} LIKE '{name}'\").collect()) > 0\n\n"
              "    def _run(self, query: str) -> DataFrame:\n        return self.spark.sql(query)\n"),
        # a grouped report printed whole, on purpose
        Valid(_SETUP + 'report = spark.sql("SELECT category, sum(price) AS total FROM sales GROUP BY category")\n'
              'report.show(n=report.count(), truncate=False)\n'),
        Valid(_SETUP + 'by_day = spark.table("sales").groupBy("day").agg(F.sum("price"))\nby_day.show(by_day.count())\n'),
        Valid(_SETUP + 'df = spark.table("orders")\nrows = df.limit(10).collect()\n'),
        Valid(_SETUP + 'sales = spark.table("sales")\nmonths = [r[0] for r in sales.select("month").distinct().collect()]\n'
              'wide = sales.groupBy("store").pivot("month", months).sum("amount")\n'),
        Valid(_SETUP + 'RATING = "rating"\nratings = spark.table("ratings")\n'
              'levels = [r[0] for r in ratings.select(F.col(RATING)).distinct().collect()]\n'
              'train = ratings.sampleBy(RATING, fractions={v: 0.8 for v in levels})\n'),
        Valid(_SETUP + 'from pyspark.sql import DataFrame\n\ndef rows_of(frame: DataFrame):\n    return frame.collect()\n'),
        Valid("from databricks.connect import DatabricksSession\n\n"
              "session = DatabricksSession.builder.profile('dev').getOrCreate()\n"
              "rows = session.table('samples.tpch.orders').limit(20).collect()\n"),
        Valid(_SETUP + 'IS_SAMPLE = True\ndf = spark.table("orders")\nif IS_SAMPLE:\n    df = df.limit(100)\n'
              'rows = df.collect()\n'),
        Valid(_SETUP + 'df = spark.table("orders")\nif preview:\n    df = df.limit(100)\n'
              'else:\n    df = df.limit(1000)\nrows = df.collect()\n'),
        Valid(_SETUP + 'df = spark.table("orders")\nif debug:\n    df = df.limit(100)\n    rows = df.collect()\n'),
        Valid(_SETUP + 'top = spark.table("orders").agg(F.max("amount")).collect()[0][0]\n'),
        Valid(_SETUP + 'n = spark.table("orders").select(F.count("*").alias("n")).collect()[0].n\n'),
        Valid(_SETUP + 'total = spark.table("orders").groupBy().sum("amount").collect()\n'),
        Valid(_SETUP + 'n = spark.sql("SELECT count(*) AS n FROM orders").collect()[0].n\n'),
        Valid(_SETUP + 'n = spark.sql(f"SELECT count(*) AS n FROM {table}").collect()\n'),
        Valid(_SETUP + 'user = spark.sql("SELECT current_user() AS u").collect()\n'),
        Valid(_SETUP + 'rows = spark.createDataFrame([(1, "a")], ["id", "v"]).collect()\n'),
        Valid(_SETUP + "rows = spark.range(10).collect()\n"),
        Valid(_SETUP + 'df = spark.table("sales")\ndf.show(50, truncate=False)\n'),
        Valid(_SETUP + "rows = (spark.read.csv('/data/retail.csv', header=True)\n"
              "        .selectExpr(\"instr(Description, 'GLASS') >= 1 as is_glass\").groupBy('is_glass').count().collect())\n"),
        Valid(_SETUP + 'banded = spark.table("orders").withColumn(\n'
              '    "band", F.when(F.col("amount") > 1000, "high").when(F.col("amount") > 100, "mid").otherwise("low"))\n'
              'bands = banded.select("band").distinct().collect()\n'
              'per_band = banded.groupBy("band", F.col("amount") > 0).count().collect()\n'),
        # SQL over a view of literal rows, or keeping only its rows (an anti join against any table)
        Valid(_SETUP + 'spark.createDataFrame([(1, "a")], ["id", "v"]).createOrReplaceTempView("lookup")\n'
              'rows = spark.sql("SELECT id FROM lookup WHERE v = \'a\' ORDER BY id").collect()\n'),
        # SQL that neither writes nor defines (a `USE`, a commented `SHOW`) leaves the view as it was
        Valid(_SETUP + 'spark.createDataFrame([(1, "a")], ["id", "v"]).createOrReplaceTempView("lookup")\n'
              'spark.sql("USE sales")\nspark.sql("-- what is there\\nSHOW TABLES")\n'
              'rows = spark.sql("SELECT id FROM lookup").collect()\n'),
        Valid(_SETUP + 'CONFIG = {"source": f"src_{user}", "target": f"tgt_{user}"}\n'
              'spark.createDataFrame([(1,), (2,)], ["id"]).createOrReplaceTempView(CONFIG["source"])\n'
              'missing = spark.sql(f"SELECT s.* FROM {CONFIG[\'source\']} s LEFT ANTI JOIN {CONFIG[\'target\']} t "\n'
              '                    "ON s.id = t.id").collect()\n'),
        Valid("import gc\ngc.collect()\n"),
        Valid("class Metrics:\n    def collect(self):\n        return []\n\nMetrics().collect()\n"),
        Valid("import pandas as pd\ndf = pd.DataFrame({'a': [1]})\nresult = df.collect()\n"),
        Valid("def helper(x):\n    return x.collect()\n"),
        Valid(_SETUP + 'head = spark.table("orders").take(5)\nfirst = spark.table("orders").first()\n'),
        Valid(_SETUP + 'def test_totals():\n    assert spark.table("orders").collect() == []\n', path="tests/test_orders.py"),
        Valid("import polars as pl\nfrom pyspark.sql import functions as F\nlf = pl.scan_csv('x.csv')\nrows = lf.collect()\n"),
    )

    def visit_Call(self, node) -> None:
        if first_row_index(self.ctx, node) is not None:
            return  # `collect()[0]`: SPK105 (collect-first-row) says it better
        if method_name(node) == "show":
            self._show_everything(node)
            return
        found = unbounded_receiver(self, node, ("collect", "toLocalIterator"))
        if found is None:
            return
        receiver, value, why = found
        method = node.func.attr.value
        what = "RDD" if value.kind == RDD else "DataFrame"
        name = shown(self.ctx, receiver)
        if method == "collect" and value.kind == RDD:
            message = f"`{name}.collect()` brings every row of the {what} to the driver: {why}"
            rdd_of = isinstance(receiver, cst.Attribute) and receiver.attr.value == "rdd"
            frame = receiver.value if rdd_of else None
            if frame is not None:
                # `df.rdd.collect()`: the RDD adds a conversion of every row to Python and has no `limit`
                frame_name = shown(self.ctx, frame)
                help = (f"bound the DataFrame instead (`{frame_name}.limit(n).collect()` or `{frame_name}.take(n)`, "
                        f"without the RDD conversion), aggregate on the cluster, or write it out with "
                        f"`{frame_name}.write`")
            else:
                help = (f"bound it first (`{name}.take(n)`), aggregate on the cluster (`reduce`, `aggregate`), "
                        f"or write it out (`{name}.saveAsTextFile(...)`) instead of collecting it")
        elif method == "collect":
            message = f"`{name}.collect()` brings every row of the {what} to the driver: {why}"
            help = (
                f"bound it first (`{name}.limit(n).collect()` or `{name}.take(n)`), aggregate on the "
                f"cluster, or write it out with `{name}.write` instead of collecting it"
            )
        else:
            message = f"`{name}.toLocalIterator()` still moves every row through the driver: {why}"
            help = "iterate over a bounded DataFrame, or process the rows on the executors (`foreachPartition`, a write)"
        self.ctx.report(self, node, message + origin(self, value, receiver), help=help, start=node.func.attr)

    def _show_everything(self, node: cst.Call) -> None:
        """`df.show(n=df.count())`, `df.show(10_000_000)`: every row to the driver, to print them."""
        n = keyword_arg(node, "n")
        if n is None:
            args = positional_args(node)
            n = args[0] if args else None
        counted = isinstance(n, cst.Call) and method_name(n) == "count" and not n.args
        many = literal_int(n) if n is not None else None
        if not counted and (many is None or many <= self.opts["max-rows"]):
            return
        found = unbounded_receiver(self, node, ("show",))
        if found is None:
            return
        receiver, value, why = found
        if counted and aggregated(self.ctx, receiver, value):
            return  # printing every row of a grouped report is what the report is for (see the manual)
        name = shown(self.ctx, receiver)
        rows = shown(self.ctx, n) if counted else f"{many:_}"
        self.ctx.report(
            self, node,
            f"`{name}.show({rows})` brings every row of the DataFrame to the driver to print it: {why}"
            + origin(self, value, receiver),
            help=f"print a sample (`{name}.show(20)`), or write the rows out with `{name}.write`",
            start=node.func.attr,
        )
