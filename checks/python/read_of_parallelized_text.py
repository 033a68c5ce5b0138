import libcst as cst

from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import READER, RDD, keyword_arg, method_name, positional_args

_SETUP = (
    "import json\nfrom pyspark.sql import SparkSession\n"
    "spark = SparkSession.builder.getOrCreate()\nsc = spark.sparkContext\n"
)
_FORMATS = frozenset({"csv", "json", "xml"})


class ReadOfParallelizedText(PythonRule):
    """
    ## What it does
    Finds text the driver holds turned into an RDD only to be parsed by a
    reader: `spark.read.json(sc.parallelize([payload]))`,
    `spark.read.csv(spark.sparkContext.parallelize(text.split("\\n")))`,
    `read.xml(...)`, directly or through a variable, and through `map` /
    `filter` on that RDD. An RDD read from storage (`sc.textFile(...)`) or
    made from a DataFrame (`df.rdd.map(...)`) is not reported. Preview rule
    (`--preview`): whether the text is big, and whether the job must run on
    Spark Connect, is not in the file.

    ## Why is this bad?
    The whole text is already in the driver's memory. `parallelize` pickles
    it and ships it to the executors as an RDD of Python strings, a Python
    worker pass re-encodes every string for the JVM, and only then is it
    parsed (JSON and CSV with schema inference parse it twice: one job to
    infer, one to read). For a big payload, the driver holding it whole is
    the bottleneck; for a small one, the detour costs a few jobs. RDDs and
    `SparkContext` do not exist under Spark Connect (Spark 3.4+ clients,
    Databricks serverless and shared clusters), so the code cannot move
    there.

    ## Example
    ```python
    report = spark.read.json(sc.parallelize([payload]))
    ```

    ## Use instead
    ```python
    report = spark.createDataFrame([json.loads(payload)], schema)
    ```
    If the text came from a file, read the file where it is:
    `spark.read.json("s3://bucket/report.json")` parses it on the
    executors. Since Spark 4.2 the readers also take a DataFrame of one
    string column (`spark.read.json(spark.createDataFrame([(payload,)],
    "value string"))`), which works on Spark Connect.

    ## Fix safety
    No fix: `createDataFrame` infers nested objects as maps where the JSON
    reader infers structs, and CSV options do not carry over.

    ## References
    - PySpark API: `DataFrameReader.json` / `csv` ("path: ... or RDD of
      Strings storing JSON objects, or a DataFrame with a single string
      column"; DataFrame input since 4.2.0), `SparkSession.createDataFrame`.
    - Spark Connect overview: "the RDD API is not supported".
    """

    code = "SPK111"
    name = "read-of-parallelized-text"
    summary = "text held by the driver is parallelized into an RDD only to be parsed by a reader"
    preview = True
    skip_in_tests = True
    triggers = ("parallelize",)
    doc_setup = "import json\nsc = spark.sparkContext\npayload = '{}'\nschema = 'id long'\n"

    invalid = (
        Invalid(_SETUP + "payload = open('/tmp/report.json').read()\nreport = spark.read.json(sc.parallelize([payload]))\n"),
        Invalid(_SETUP + "text = open('/tmp/rates.csv').read()\n"
                "lines = spark.sparkContext.parallelize(text.split('\\n'))\n"
                "rates = spark.read.csv(lines, header=True, sep=';')\n"),
        Invalid(_SETUP + "records = [{'id': 1}, {'id': 2}]\n"
                "frame = spark.read.json(sc.parallelize(records).map(json.dumps))\n"),
        Invalid("from pyspark.sql import SparkSession\n\n"
                "def load(spark: SparkSession, body: str):\n"
                "    return spark.read.option('multiLine', True).json(spark.sparkContext.parallelize([body]))\n"),
    )
    valid = (
        Valid(_SETUP + "logs = spark.read.json(sc.textFile('s3://logs/2024/'))\n"),
        Valid(_SETUP + "events = spark.table('raw.events')\n"
                "parsed = spark.read.json(events.rdd.map(lambda r: r.payload))\n"),
        Valid(_SETUP + "report = spark.read.json('s3://bucket/report.json')\n"),
        Valid(_SETUP + "rows = sc.parallelize(range(10)).map(lambda i: (i, i * i)).toDF(['n', 'square'])\n"),
        Valid(_SETUP + "report = spark.createDataFrame([json.loads('{\"id\": 1}')])\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in _FORMATS:
            return
        args = positional_args(node)
        data = args[0] if args else keyword_arg(node, "path")
        if data is None or isinstance(data, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return
        reader = self.ctx.semantic.infer(node.func.value)
        if reader is None or reader.kind != READER:
            return
        value = self.ctx.semantic.infer(data)
        made = value.node if value is not None and value.kind == RDD else None
        if not isinstance(made, cst.Call) or method_name(made) != "parallelize":
            return
        where = "" if made is data else f" (`{shown(self.ctx, made)}`)"
        self.ctx.report(
            self,
            node,
            f"`{method}` parses `{shown(self.ctx, data)}`{where}, text the driver already holds: it is pickled into "
            f"an RDD and shipped to the executors to be parsed, and RDDs do not exist on Spark Connect",
            help="parse it on the driver and use `spark.createDataFrame(rows, schema)`, or read the file from storage "
            f"(`spark.read.{method}(path)`); Spark 4.2+ readers also take a DataFrame of one string column",
            start=node.func.attr,
        )
