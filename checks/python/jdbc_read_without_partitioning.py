import libcst as cst

from checks.python._jdbc import jdbc_read
from linter.registry import Invalid, PythonRule, Valid

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\nurl = 'jdbc:postgresql://db/sales'\n"


class JdbcReadWithoutPartitioning(PythonRule):
    """
    ## What it does
    Finds JDBC reads that one task does alone: `spark.read.jdbc(url, table)`
    without `column`/`lowerBound`/`upperBound`/`numPartitions` or
    `predicates`, and `format("jdbc")` (or `.jdbc`-less `options(url=...,
    dbtable=...)`) reads without `partitionColumn` (a partitioned read without
    `fetchsize` is SPK429's, jdbc-read-without-fetchsize). Not reported:
    options passed from a variable
    (`options(**conf)`: anything may be in it), a `query`/`dbtable`
    subquery proven small (`SELECT max(id) ...`, `LIMIT 10`), and one the
    database aggregates itself (`(SELECT DISTINCT country FROM flights) q`,
    `GROUP BY`): it sends the reduced rows, and a partitioned read would run
    the aggregation once per partition. Nor a read of a SQLite file
    (`jdbc:sqlite:...`, the url spelt out in the file): an embedded database
    on the reading host, a demo's or a small reference table.

    ## Why is this bad?
    Without a partition column Spark opens one connection and one task pulls
    the whole table through it: one core works, the others wait, and that
    executor holds or spills everything. Every later stage starts from that
    single partition unless something reshuffles it. `fetchsize` decides how
    many rows each round trip brings: drivers default to 10 (Oracle), which
    makes a large read a long trickle, or to the whole result at once
    (PostgreSQL, MySQL), which can run the executor out of memory.

    ## Example
    ```python
    orders = spark.read.jdbc(url, "public.orders", properties={"user": "etl"})
    ```

    ## Use instead
    ```python
    orders = spark.read.jdbc(url, "public.orders", column="order_id", lowerBound=1, upperBound=50_000_000,
                             numPartitions=32, properties={"user": "etl", "fetchsize": "10000"})
    ```
    With the `query` option, partitioning is not allowed: put the query in
    `dbtable` as a subquery (`"(SELECT ...) AS q"`) and partition that.

    ## Fix safety
    No fix: the partition column and its bounds come from the data.

    ## References
    - Spark SQL guide, "JDBC To Other Databases" (`partitionColumn`,
      `lowerBound`, `upperBound`, `numPartitions`, `fetchsize`).
    """

    code = "SPK414"
    name = "jdbc-read-without-partitioning"
    summary = "a JDBC read without a partition column pulls the whole table through one task"
    default_reason = ("a JDBC read without a partition column pulls the whole table through one connection and "
                      "one task while other cores wait; small or database-aggregated queries are left alone")
    skip_in_tests = True
    triggers = ("jdbc",)
    doc_setup = "url = 'jdbc:postgresql://db/sales'\n"

    invalid = (
        Invalid(_SETUP + "orders = spark.read.jdbc(url, 'public.orders', properties={'user': 'etl'})\n"),
        Invalid(_SETUP + "orders = spark.read.format('jdbc').option('url', url).option('dbtable', 'orders').load()\n"),
        Invalid(_SETUP + "orders = spark.read.format('jdbc').options(url=url, dbtable='orders', fetchsize='1000').load()\n"),
    )
    valid = (
        Valid(_SETUP + "orders = spark.read.jdbc(url, 'orders', column='id', lowerBound=1, upperBound=10**7,\n"
              "                         numPartitions=16, properties={'fetchsize': '10000'})\n"),
        Valid(_SETUP + "days = ['2024-01-01', '2024-01-02']\n"
              "orders = spark.read.jdbc(url, 'orders', predicates=[f\"day = '{d}'\" for d in days],\n"
              "                         properties={'fetchsize': '5000'})\n"),
        Valid(_SETUP + "def read(conf):\n    return spark.read.format('jdbc').options(**conf).load()\n"),
        Valid(_SETUP + "top = spark.read.format('jdbc').option('url', url)\\\n"
              "    .option('query', 'SELECT max(id) AS id FROM orders').load()\n"),
        Valid(_SETUP + "orders = spark.read.jdbc(url, 'orders')\n", path="tests/test_read.py"),
        Valid(_SETUP + "events = spark.read.format('delta').load('/lake/events')\n"),
        Valid(_SETUP + "orders = spark.read.jdbc(url, 'orders', column='id', lowerBound=0, upperBound=10**6,\n"
              "                         numPartitions=20)\n"),
        Valid(_SETUP + "countries = spark.read.jdbc(url, '(SELECT DISTINCT(dest_country) FROM flights) AS f')\n"),
        Valid(_SETUP + "query = '(SELECT dest, count(*) AS n FROM flights GROUP BY dest) AS f'\n"
              "counts = spark.read.format('jdbc').option('url', url).option('dbtable', query).load()\n"),
        Valid(_SETUP + "path = '/data/flight-data/jdbc/my-sqlite.db'\nurl = 'jdbc:sqlite:' + path\n"
              "flights = spark.read.format('jdbc').option('url', url).option('dbtable', 'flight_info').load()\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        read = jdbc_read(self.ctx.semantic, node)
        if read is None or read.partitioned or read.reduced or read.embedded:
            return  # a partitioned read without `fetchsize` is SPK429's
        message = "JDBC read without a partition column: one task pulls the whole table through one connection"
        if not read.fetch:
            message += ", at the driver's default fetch size"
        help = ("set `partitionColumn`, `lowerBound`, `upperBound` and `numPartitions` (or `predicates`), "
                "and `fetchsize`")
        if read.query:
            help += "; `query` cannot be partitioned: use `dbtable=\"(SELECT ...) AS q\"`"
        self.ctx.report(self, node, message, help=help, start=node.func.attr)
