import libcst as cst

from checks.python._jdbc import jdbc_read
from linter.registry import Invalid, PythonRule, Valid

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\nurl = 'jdbc:postgresql://db/sales'\n"


class JdbcReadWithoutFetchsize(PythonRule):
    """
    ## What it does
    Finds partitioned JDBC reads (`spark.read.jdbc(url, table, column=...)`,
    `predicates=...`, or `format("jdbc")` with `partitionColumn`) that do not
    set `fetchsize`. A read without a partition column is SPK414's
    (jdbc-read-without-partitioning), whose message says the fetch size too.
    Not reported: options or properties passed from a variable (anything may
    be in them), and a `query`/`dbtable` subquery proven small.

    A rule of its own, not a case of SPK414: a read can be partitioned and
    still trickle, and a team that sets the fetch size in the JDBC URL or the
    driver's defaults can turn this one off alone.

    ## Why is this bad?
    `fetchsize` decides how many rows each round trip to the database brings.
    Drivers default to 10 (Oracle), which makes a large read a long trickle
    of round trips in every partition, or to the whole result at once
    (PostgreSQL, MySQL without cursor fetch), which holds a partition's rows
    in the executor's memory before Spark sees the first.

    ## Example
    ```python
    orders = spark.read.jdbc(url, "public.orders", column="order_id", lowerBound=1, upperBound=50_000_000,
                             numPartitions=32)
    ```

    ## Use instead
    ```python
    orders = spark.read.jdbc(url, "public.orders", column="order_id", lowerBound=1, upperBound=50_000_000,
                             numPartitions=32, properties={"fetchsize": "10000"})
    ```

    ## Fix safety
    No fix: the right size depends on the row width and the executors' memory.

    ## References
    - Spark SQL guide, "JDBC To Other Databases" (`fetchsize`: "can help performance on JDBC drivers which
      default to low fetch size (e.g. Oracle with 10 rows)").
    """

    code = "SPK429"
    name = "jdbc-read-without-fetchsize"
    summary = "a partitioned JDBC read at the driver's default fetch size"
    default_reason = ("at the driver's default fetch size a partitioned JDBC read trickles 10 rows a "
                      "round trip (Oracle) or holds a partition in executor memory (PostgreSQL, MySQL)")
    skip_in_tests = True
    triggers = ("jdbc",)
    doc_setup = "url = 'jdbc:postgresql://db/sales'\n"

    invalid = (
        Invalid(_SETUP + "orders = (spark.read.format('jdbc').option('url', url).option('dbtable', 'orders')\n"
                "          .option('partitionColumn', 'id').option('lowerBound', 1).option('upperBound', 10**7)\n"
                "          .option('numPartitions', 16).load())\n"),
        Invalid(_SETUP + "orders = spark.read.jdbc(url, 'orders', 'id', 1, 1000000, 8)\n"),
        Invalid(_SETUP + "orders = spark.read.jdbc(url, 'orders', column='id', lowerBound=0, upperBound=10**6,\n"
                "                         numPartitions=20, properties={'user': 'etl'})\n"),
    )
    valid = (
        Valid(_SETUP + "orders = spark.read.jdbc(url, 'orders', column='id', lowerBound=1, upperBound=10**7,\n"
              "                         numPartitions=16, properties={'fetchsize': '10000'})\n"),
        Valid(_SETUP + "orders = spark.read.jdbc(url, 'orders', properties={'user': 'etl'})\n"),  # SPK414's
        Valid(_SETUP + "def read(props):\n    return spark.read.jdbc(url, 'orders', column='id', lowerBound=1,\n"
              "                           upperBound=10, numPartitions=2, properties=props)\n"),
        Valid(_SETUP + "orders = (spark.read.format('jdbc').option('url', url).option('dbtable', 'orders')\n"
              "          .option('partitionColumn', 'id').option('lowerBound', 1).option('upperBound', 10**7)\n"
              "          .option('numPartitions', 16).option('fetchsize', 5000).load())\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        read = jdbc_read(self.ctx.semantic, node)
        if read is None or not read.partitioned or read.fetch:
            return
        self.ctx.report(
            self, node,
            "partitioned JDBC read without `fetchsize`: each partition's rows come at the driver's default (10 per "
            "round trip on Oracle, the whole result at once on PostgreSQL and MySQL)",
            help="set `fetchsize` (e.g. `option(\"fetchsize\", 10000)` or `properties={\"fetchsize\": \"10000\"}`)",
            start=node.func.attr,
        )
