from checks.config._conf import builder
from checks.config._config_ranges import number
from linter.registry import ConfigRule, Invalid, Option, Valid

# Where whole-node executors are the norm and the storage is not HDFS: the guidance does not apply.
_NOT_HDFS_PREFIXES = ("spark.kubernetes.", "spark.databricks.")


class ManyExecutorCores(ConfigRule):
    """
    ## What it does
    Finds `spark.executor.cores` (or `spark-submit --executor-cores`) above
    five, wherever the configuration is written.

    Not reported where the configuration shows the guidance does not apply:
    a `k8s://` or `local` master, a Databricks cluster definition,
    `spark.kubernetes.*` or `spark.databricks.*` settings beside it, or an object-store path
    (`s3://`, `gs://`, `abfss://` ...) in the same file.

    Preview: the five-core ceiling is advice for executors that read and
    write HDFS, and a configuration seldom says which storage the job uses.
    On Kubernetes, Databricks and EMR-on-S3 clusters whole-node executors of
    8 to 16 cores are normal and run well; reporting them by default would be
    noise.

    ## Why is this bad?
    Every core runs one task at a time, and all of an executor's tasks go
    through its one HDFS client: past about five concurrent tasks its write
    throughput stops growing (the figure in Cloudera's executor-sizing guide).
    One large JVM also means long garbage-collection pauses that stall every
    task at once. Several executors of four or five cores keep the HDFS
    client busy without a queue. SPK806 compares the heap with the cores.

    ## Example
    ```python
    spark = SparkSession.builder.config("spark.executor.cores", "8").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.config("spark.executor.cores", "4").getOrCreate()
    ```

    ## Fix safety
    No fix: fewer cores per executor means more executors, sized on the cluster's nodes.

    ## Options
    - `max-cores` (5): the most cores per executor not reported.

    ## References
    - Spark configuration, `spark.executor.cores`.
    - Cloudera, "How-to: Tune Your Apache Spark Jobs (Part 2)" (the HDFS client and five tasks per executor).
    """

    code = "SPK814"
    name = "many-executor-cores"
    summary = "more than five cores per executor, past what one HDFS client serves well"
    preview = True
    doc_setup = "from pyspark.sql import SparkSession\n"
    options = {"max-cores": Option(5, "The most cores per executor not reported.")}
    invalid = (Invalid(builder(("spark.executor.cores", "8"))),
               Invalid("spark.master  yarn\nspark.executor.cores  12\n", path="spark-defaults.conf"),
               Invalid("spark-submit --master yarn --executor-cores 6 --executor-memory 24g job.py\n",
                       path="run.sh"))
    valid = (Valid(builder(("spark.executor.cores", "5"))),
             Valid(builder(("spark.executor.cores", "auto"))),
             Valid(builder(("spark.executor.cores", "8")), options={"max-cores": 8}),
             Valid("spark.master  k8s://https://10.0.0.1:6443\nspark.executor.cores  16\n",
                   path="spark-defaults.conf"),
             Valid(builder(("spark.kubernetes.namespace", "etl"), ("spark.executor.cores", "8"))),
             Valid(builder(("spark.databricks.delta.optimizeWrite.enabled", "true"),
                           ("spark.executor.cores", "16"))),
             Valid(builder(("spark.executor.cores", "8")) + 'spark.table("t").write.parquet("s3a://lake/t")\n'))

    def check(self, conf) -> None:
        setting = conf.get("spark.executor.cores")
        cores = number(setting)
        if cores is None or cores <= self.opts["max-cores"]:
            return
        master = (conf.master or "").strip().lower()
        if master.startswith(("k8s://", "local")) or conf.object_store_writes or conf.kind == "databricks" or \
                any(s.key.startswith(_NOT_HDFS_PREFIXES) for s in conf.settings):
            return
        self.ctx.report(self, setting, f"{cores:g} cores per executor: past about {self.opts['max-cores']} concurrent "
                        "tasks one executor's HDFS client stops writing faster, and one GC pause stalls them all",
                        help=f"more executors of at most {self.opts['max-cores']} cores each (same total cores)")
