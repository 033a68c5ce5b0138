from checks.config._conf import TRUE, builder
from linter.registry import ConfigRule, Invalid, Valid

_KEYS = {
    "spark.sql.parquet.mergeSchema": "Parquet",
    "spark.sql.orc.mergeSchema": "ORC",
}


class MergeSchemaByDefault(ConfigRule):
    """
    ## What it does
    Finds `spark.sql.parquet.mergeSchema` or `spark.sql.orc.mergeSchema`
    set to `true`, wherever the configuration is written: the session
    builder, `spark.conf.set`, `SparkConf`, `spark-defaults.conf`,
    `spark-submit --conf` in scripts and YAML, or an event log's environment.
    The same option on one read (`option("mergeSchema", "true")`) is SPK413.
    Not reported in test modules, where a session may switch it on to test
    schema evolution on a handful of files.

    On by default: nothing in a job needs every read of a session to merge
    schemas; the one dataset whose files differ is read with its own option
    or, better, its declared schema.

    ## Why is this bad?
    With the setting on, every Parquet (or ORC) read of the session merges
    schemas: before each query starts, Spark opens the footer of every file
    under the path and reconciles them, a job of its own whose cost grows
    with the number of files. Spark turned it off by default in 1.5 because
    it "is a relatively expensive operation, and is not a necessity in most
    cases". Switched on for the whole session, it costs every read, also
    the many whose files all share one schema.

    ## Example
    ```python
    spark = SparkSession.builder.config("spark.sql.parquet.mergeSchema", "true").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.getOrCreate()
    events = spark.read.schema("id BIGINT, ts TIMESTAMP, country STRING").parquet("s3://lake/events/")
    ```
    Declare the schema of the one dataset whose files really differ.

    ## Fix safety
    No fix: reads of data whose files differ would lose the newer columns
    unless their schema is declared.

    ## References
    - Spark SQL guide, "Parquet Files", "Schema Merging" and "Configuration"
      (`spark.sql.parquet.mergeSchema`); "ORC Files" (`spark.sql.orc.mergeSchema`).
    """

    code = "SPK822"
    skip_in_tests = True
    name = "merge-schema-by-default"
    summary = "schema merging switched on for every Parquet or ORC read of the session"
    default_reason = ("nothing in a job needs every read of a session to merge schemas, each opening every "
                      "file's footer first; the one dataset whose files differ gets its own option or schema")
    doc_setup = "from pyspark.sql import SparkSession\n"
    invalid = (Invalid(builder(("spark.sql.parquet.mergeSchema", "true"))),
               Invalid("spark.sql.orc.mergeSchema  true\n", path="spark-defaults.conf"),
               Invalid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
                       "spark.conf.set('spark.sql.parquet.mergeSchema', True)\n"))
    valid = (Valid(builder(("spark.sql.parquet.mergeSchema", "false"))),
             Valid("spark.sql.parquet.mergeSchema  false\n", path="spark-defaults.conf"),
             Valid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
                   "events = spark.read.option('mergeSchema', 'true').parquet('s3://lake/events/')\n"))

    def check(self, conf) -> None:
        for key, fmt in _KEYS.items():
            setting = conf.get(key)
            if setting is None or setting.value.strip().lower() not in TRUE:
                continue
            self.ctx.report(self, setting, f"`{key}=true` makes every {fmt} read of the session open each file's "
                            "footer and reconcile the schemas before the query starts",
                            help="remove it; declare the schema (`.schema(...)`) of the one dataset whose files differ")
