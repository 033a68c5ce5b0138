from checks.config._conf import TRUE
from linter.registry import ConfigRule, Invalid, Valid

_JOB = '''from pyspark.sql import SparkSession

spark = SparkSession.builder.config("spark.speculation", "true").getOrCreate()
spark.read.parquet("s3a://lake/raw/orders").write.mode("overwrite").parquet("s3a://lake/clean/orders")
'''


class SpeculationObjectStore(ConfigRule):
    """
    ## What it does
    Finds `spark.speculation=true` in a job, script or log that writes to an
    object store (`s3://`, `s3a://`, `gs://`, `abfss://`, `wasbs://` ...).

    ## Why is this bad?
    Speculation starts a second copy of a slow task and keeps whichever ends
    first. On HDFS the loser's output is discarded by a rename; object stores
    have no atomic rename, and with the classic file committers both copies
    can leave files behind: duplicated or partial output, silently. (Table
    formats and the S3A magic committer are built for this, but the setting
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
    """

    code = "SPK805"
    name = "speculation-object-store"
    summary = "speculative tasks writing to an object store"
    doc_setup = "from pyspark.sql import SparkSession\ndf = SparkSession.builder.getOrCreate().range(1)\n"
    invalid = (Invalid(_JOB),)
    valid = (Valid(_JOB.replace("s3a://", "hdfs:///")), Valid(_JOB.replace('"true"', '"false"')))

    def check(self, conf) -> None:
        setting = conf.get("spark.speculation")
        if setting is not None and setting.value.strip().lower() in TRUE and conf.object_store_writes:
            self.ctx.report(self, setting, "speculative tasks and an object store: both copies of a task can "
                            "leave output behind (no atomic rename)",
                            help="switch speculation off for this job, or write through a committer made for "
                                 "the store (S3A magic committer, Delta, Iceberg)")
