import libcst as cst

from checks.python._literals_and_reads import reader_chain, reader_options
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import READER, UNBOUNDED, literal_string, method_name, sql_bound

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\nurl = 'jdbc:postgresql://db/sales'\n"
_UNKNOWN = "\0unknown"
_FEW_ROWS = 100_000
# spark.read.jdbc(url, table, column, lowerBound, upperBound, numPartitions, predicates, properties)
_JDBC_PARAMS = ("url", "table", "column", "lowerBound", "upperBound", "numPartitions", "predicates", "properties")


class JdbcReadWithoutPartitioning(PythonRule):
    """
    ## What it does
    Finds JDBC reads that one task does alone: `spark.read.jdbc(url, table)`
    without `column`/`lowerBound`/`upperBound`/`numPartitions` or
    `predicates`, and `format("jdbc")` (or `.jdbc`-less `options(url=...,
    dbtable=...)`) reads without `partitionColumn`. Also finds partitioned
    reads without `fetchsize`. Not reported: options passed from a variable
    (`options(**conf)`: anything may be in it), and a `query`/`dbtable`
    subquery proven small (`SELECT max(id) ...`, `LIMIT 10`).

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
    skip_in_tests = True
    triggers = ("jdbc",)
    doc_setup = "url = 'jdbc:postgresql://db/sales'\n"

    invalid = (
        Invalid(_SETUP + "orders = spark.read.jdbc(url, 'public.orders', properties={'user': 'etl'})\n"),
        Invalid(_SETUP + "orders = spark.read.format('jdbc').option('url', url).option('dbtable', 'orders').load()\n"),
        Invalid(_SETUP + "orders = spark.read.format('jdbc').options(url=url, dbtable='orders', fetchsize='1000').load()\n"),
        Invalid(_SETUP + "orders = (spark.read.format('jdbc').option('url', url).option('dbtable', 'orders')\n"
                "          .option('partitionColumn', 'id').option('lowerBound', 1).option('upperBound', 10**7)\n"
                "          .option('numPartitions', 16).load())\n"),
        Invalid(_SETUP + "orders = spark.read.jdbc(url, 'orders', 'id', 1, 1000000, 8)\n"),
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
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in ("jdbc", "load"):
            return
        receiver = self.ctx.semantic.infer(node.func.value)
        if receiver is None or receiver.kind != READER:
            return
        chain = reader_chain(node)
        options, fmt = reader_options(chain)
        if method == "jdbc":
            self._jdbc_call(node, options)
            return
        if (fmt or "").lower() != "jdbc" or _UNKNOWN in options:
            return
        table = options.get("dbtable", options.get("query"))
        if self._small(table):
            return
        partitioned = "partitioncolumn" in options
        self._report(node, partitioned, "fetchsize" in options, "query" in options and "dbtable" not in options)

    def _jdbc_call(self, node: cst.Call, options: dict) -> None:
        given = {}
        for i, a in enumerate(node.args):
            if a.star:
                return  # `jdbc(*args)` / `jdbc(**kw)`: not known here
            name = a.keyword.value if a.keyword is not None else (_JDBC_PARAMS[i] if i < len(_JDBC_PARAMS) else None)
            if name is not None:
                given[name] = a.value
        if _UNKNOWN in options or self._small(given.get("table")):
            return
        partitioned = "column" in given or "predicates" in given or "partitioncolumn" in options
        properties = given.get("properties")
        fetch = "fetchsize" in options
        if isinstance(properties, cst.Dict):
            keys = [literal_string(e.key) for e in properties.elements if isinstance(e, cst.DictElement)]
            if any(k is None for k in keys) or len(keys) != len(properties.elements):
                return
            fetch = fetch or any(k.lower() == "fetchsize" for k in keys)
        elif properties is not None:
            return  # properties from a variable may set fetchsize
        self._report(node, partitioned, fetch, False)

    @staticmethod
    def _small(table) -> bool:
        text = literal_string(table) if table is not None else None
        if text is None or "select" not in text.lower():
            return False
        inner = text.strip()
        if inner.startswith("("):
            inner = inner[1:inner.rfind(")")]
        bound = sql_bound(inner)
        return bound != UNBOUNDED and (not isinstance(bound, int) or bound <= _FEW_ROWS)

    def _report(self, node: cst.Call, partitioned: bool, fetch: bool, query: bool) -> None:
        if partitioned and fetch:
            return
        if partitioned:
            message = ("JDBC read without `fetchsize`: rows come at the driver's default (10 per round trip on "
                       "Oracle, the whole result at once on PostgreSQL and MySQL)")
            help = "set `fetchsize` (e.g. `option(\"fetchsize\", 10000)`)"
        else:
            message = "JDBC read without a partition column: one task pulls the whole table through one connection"
            if not fetch:
                message += ", at the driver's default fetch size"
            help = ("set `partitionColumn`, `lowerBound`, `upperBound` and `numPartitions` (or `predicates`), "
                    "and `fetchsize`")
            if query:
                help += "; `query` cannot be partitioned: use `dbtable=\"(SELECT ...) AS q\"`"
        self.ctx.report(self, node, message, help=help, start=node.func.attr)
