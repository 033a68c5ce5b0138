from checks.config._conf import TRUE
from linter.registry import ConfigRule, Invalid, Valid

_JOB = '''from pyspark.sql import SparkSession

spark = SparkSession.builder.config("spark.speculation", "true").getOrCreate()
spark.read.parquet("s3a://lake/raw/orders").write.mode("overwrite").parquet("s3a://lake/clean/orders")
'''


_S3A_COMMITTERS = frozenset(("magic", "directory", "partitioned"))
_PROTOCOL_KEY = "spark.sql.sources.commitProtocolClass"
_S3A = (("spark.hadoop.fs.s3a.committer.name", "magic"),
        (_PROTOCOL_KEY, "org.apache.spark.internal.io.cloud.PathOutputCommitProtocol"),
        ("spark.sql.parquet.output.committer.class",
         "org.apache.spark.internal.io.cloud.BindingParquetOutputCommitter"))


def _with(*pairs) -> str:
    extra = "".join(f'.config("{k}", "{v}")' for k, v in pairs)
    return _JOB.replace('.config("spark.speculation", "true")', f'.config("spark.speculation", "true"){extra}')


class SpeculationObjectStore(ConfigRule):
    """
    ## What it does
    Finds `spark.speculation=true` in a job, script or log that writes to an
    object store (`s3://`, `s3a://`, `gs://`, `abfss://`, `wasbs://` ...).
    Not reported where the S3A committers are in use
    (`spark.hadoop.fs.s3a.committer.name` set to `magic`, `directory` or
    `partitioned`, with Spark's binding
    `spark.sql.sources.commitProtocolClass=...PathOutputCommitProtocol`):
    they support speculative execution, a task attempt's output staying
    invisible until the job commits. Named without the binding, Spark's
    writers do not use them, and the finding says what is missing.

    ## Why is this bad?
    Speculation starts a second copy of a slow task and keeps whichever ends
    first. On HDFS the loser's output is discarded by a rename; object stores
    have no atomic rename, and with the classic file committers both copies
    can leave files behind: duplicated or partial output, silently. (Table
    formats and the S3A committers are built for this, but the setting
    is usually switched on for a whole cluster.)

    ## Example
    ```python
    spark = SparkSession.builder.config("spark.speculation", "true").getOrCreate()
    df.write.parquet("s3a://lake/clean/orders")
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.config("spark.speculation", "false").getOrCreate()
    df.write.parquet("s3a://lake/clean/orders")
    ```
    Find why tasks straggle (SPK701) instead; or write through a committer
    made for the store (S3A magic committer, Delta, Iceberg).

    ## Fix safety
    No fix.

    ## References
    - Spark cloud integration guide, "Committing work into cloud storage safely and fast".
    - Hadoop S3A documentation, "Committing work to S3 with the S3A Committers" (speculative execution
      is supported by all three).
    """

    code = "SPK805"
    name = "speculation-object-store"
    summary = "speculative tasks writing to an object store"
    default_reason = ("object stores have no atomic rename, so two speculative copies of a task can both "
                      "leave files, duplicating output silently; S3A committers bound by Spark are exempt")
    doc_setup = "from pyspark.sql import SparkSession\ndf = SparkSession.builder.getOrCreate().range(1)\n"
    invalid = (Invalid(_JOB), Invalid(_with(_S3A[0])))
    valid = (Valid(_JOB.replace("s3a://", "hdfs:///")), Valid(_JOB.replace('"true"', '"false"')),
             Valid(_with(*_S3A)), Valid(_with(("spark.hadoop.fs.s3a.committer.name", "directory"), _S3A[1])))

    def check(self, conf) -> None:
        setting = conf.get("spark.speculation")
        if setting is None or setting.value.strip().lower() not in TRUE or not conf.object_store_writes:
            return
        committer = (conf.value("spark.hadoop.fs.s3a.committer.name") or conf.value("fs.s3a.committer.name")
                     or "").lower()
        bound = (conf.value(_PROTOCOL_KEY) or "").endswith("PathOutputCommitProtocol")
        if committer in _S3A_COMMITTERS and bound:
            return  # the S3A committers are built for speculation: a task attempt's output is never visible
        help = "switch speculation off for this job, or write through a committer made for the store (the S3A " \
               "committers, Delta, Iceberg)"
        if committer in _S3A_COMMITTERS:
            help = (f"the S3A `{committer}` committer is named but Spark does not use it: set `{_PROTOCOL_KEY}` to "
                    "`org.apache.spark.internal.io.cloud.PathOutputCommitProtocol` (and "
                    "`spark.sql.parquet.output.committer.class` to "
                    "`org.apache.spark.internal.io.cloud.BindingParquetOutputCommitter`)")
        self.ctx.report(self, setting, "speculative tasks and an object store: both copies of a task can "
                        "leave output behind (no atomic rename)", help=help)
