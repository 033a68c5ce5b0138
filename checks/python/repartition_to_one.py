import libcst as cst

from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import BOUNDED, DATAFRAME, FEW_ROWS, literal_int, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
    "orders = spark.table('orders')\n"
)




# Actions that read only the first rows: after `coalesce(1)` (no shuffle) the single task stops when it has them.
_FEW_ROWS_READ = frozenset(("show", "take", "first", "head", "limit", "isEmpty"))


class RepartitionToOne(PythonRule):
    """
    ## What it does
    Finds `repartition(1)` and `coalesce(1)` on a DataFrame, and
    `repartition(1, "col")` (hashing by a column into one partition is still
    one partition), and says when the result is written out. The DataFrame may be known from its use (a parameter
    whose `coalesce(1).write` is called); one proven to hold at most 100,000
    rows (`limit(50)`, an aggregate) or made from rows the driver holds
    (`spark.createDataFrame([...])`) is not reported, nor `coalesce(1)` read
    only for its first rows (`coalesce(1).show()`, `.take(5)`, `.limit(10)`):
    the single task stops once it has them.

    ## Why is this bad?
    One partition is one task on one core: the whole dataset passes through a
    single executor, with its memory limits, while the rest of the cluster
    waits. `coalesce(1)` is worse than it looks: it avoids a shuffle by
    pulling the *upstream* stage down to one task too, so the whole
    computation before it runs without parallelism. It is usually there to get
    "one output file".

    ## Example
    ```python
    orders.coalesce(1).write.mode("overwrite").csv("s3://exports/orders")
    ```

    ## Use instead
    ```python
    orders.write.mode("overwrite").option("maxRecordsPerFile", 1_000_000).csv("s3://exports/orders")
    ```
    If a single file is really required and the data is small, `repartition(1)`
    at least keeps the upstream work parallel.

    ## Fix safety
    No fix.

    ## References
    - PySpark API: `DataFrame.coalesce` ("if you're doing a drastic coalesce,
      e.g. to numPartitions = 1, this may result in your computation taking
      place on fewer nodes than you like").
    """

    code = "SPK402"
    name = "repartition-to-one"
    summary = "`repartition(1)` / `coalesce(1)` funnels all data through one task"
    default_reason = ("`repartition(1)` or `coalesce(1)` runs the whole dataset through one task on one core, "
                      "and coalesce drags the stage before it down too; frames proven small are left alone")
    triggers = ("repartition", "coalesce")
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "orders.coalesce(1).write.mode('overwrite').csv('s3://exports/orders')\n"),
        Invalid(_SETUP + "one = orders.repartition(1)\n"),
        Invalid(_SETUP + "orders.repartition(1, 'customer_id').write.parquet('s3://exports/orders')\n"),
        Invalid("from pyspark.sql import functions as F\n\ndef load_data(df):\n"
                "    (df.coalesce(1).write.csv('out', header=True))\n"),
    )
    valid = (
        Valid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
              "def log_session(session_id, started, status):\n    rows = [(session_id, started, status)]\n"
              "    spark.createDataFrame(rows, 'id string, started timestamp, status string')"
              ".coalesce(1).write.mode('append').saveAsTable('aux.sessions')\n"),
        Valid(_SETUP + "sample = orders.limit(50).coalesce(1)\nsample.write.csv('s3://exports/sample')\n"),
        Valid(_SETUP + "orders.repartition(200, 'customer_id').write.parquet('s3://x')\n"),
        Valid(_SETUP + "small = orders.coalesce(8)\n"),
        Valid(_SETUP + "first = orders.coalesce(1).take(5)\n"),
        Valid(_SETUP + "by_day = orders.repartition(10, 'day')\n"),
        Valid("import pandas as pd\nframe = pd.DataFrame()\nx = frame.coalesce(1)\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in ("repartition", "coalesce"):
            return
        args = positional_args(node)
        if not args or literal_int(args[0]) != 1 or len(args) > 1 and method != "repartition":
            return  # `repartition(1, "col")` is one partition too; `coalesce` takes no columns
        value = self.ctx.semantic.infer(node.func.value)
        if value is None or value.kind != DATAFRAME or value.bound == BOUNDED or (
                isinstance(value.bound, int) and value.bound <= FEW_ROWS):
            return  # `limit(50).coalesce(1)`: fifty rows fit one task; rows the driver held fit one too
        parent = self.ctx.parent_of(node)
        if method == "coalesce" and isinstance(parent, cst.Attribute) and parent.attr.value in _FEW_ROWS_READ:
            return  # `coalesce(1).show()`: one task reads until it has the few rows shown, then stops
        written = isinstance(parent, cst.Attribute) and parent.attr.value in ("write", "writeTo")
        where = " before a write" if written else ""
        extra = " and, without a shuffle, the stages before it too" if method == "coalesce" else ""
        if len(args) > 1:
            extra = " (with one partition, partitioning by a column changes nothing)"
        self.ctx.report(
            self,
            node,
            f"`{method}(1{', ...' if len(args) > 1 else ''})`{where} puts all of `{shown(self.ctx, node.func.value)}` in one task on one core{extra}",
            help="write with many partitions (`maxRecordsPerFile` bounds file sizes); if one file is required, "
            "prefer `repartition(1)` on a small result",
            start=node.func.attr,
        )
