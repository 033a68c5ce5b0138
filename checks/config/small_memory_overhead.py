from checks.config._conf import builder
from checks.config._config_ranges import MIB, on_a_cluster, shown_size
from linter.registry import ConfigRule, Invalid, Valid
from linter.sources.sparkconf import bytes_of

_FLOOR = 384 * MIB
# The overhead settings of executors and of the driver (the spark.yarn.* names are the ones before Spark 2.3,
# still read when the new one is not set).
EXECUTOR = ("spark.executor.memoryOverhead", "spark.yarn.executor.memoryOverhead")
DRIVER = ("spark.driver.memoryOverhead", "spark.yarn.driver.memoryOverhead")


class SmallMemoryOverhead(ConfigRule):
    """
    ## What it does
    Finds a memory overhead set below 384 MiB: `spark.executor.memoryOverhead`,
    `spark.driver.memoryOverhead`, and their names before Spark 2.3
    (`spark.yarn.executor.memoryOverhead`, `spark.yarn.driver.memoryOverhead`),
    wherever the configuration is written. A number without a unit is MiB,
    as Spark reads it.

    Not reported for a `local` master (no containers), nor for the driver's
    overhead where it cannot count: in the session's own code (the driver is
    already running) or with `spark.submit.deployMode=client`.

    ## Why is this bad?
    The overhead is the part of a YARN container or Kubernetes pod outside the
    JVM heap: thread stacks, metaspace, direct buffers of the shuffle, and the
    Python workers of PySpark. Left alone, Spark reserves 10% of the memory
    and never less than 384 MiB; a value set explicitly replaces that, floor
    included. Below 384 MiB the process soon outgrows its container, and
    YARN ("Container killed by YARN for exceeding memory limits") or
    Kubernetes (OOMKilled) kills the executor with all its tasks.

    ## Example
    ```python
    spark = SparkSession.builder.config("spark.executor.memoryOverhead", "256m").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.config("spark.executor.memoryOverhead", "1g").getOrCreate()
    ```

    ## Fix safety
    No fix: remove the setting (10% of the memory, at least 384 MiB) or choose the size; either changes
    what the cluster grants.

    ## References
    - Spark configuration, `spark.executor.memoryOverhead` and `spark.driver.memoryOverhead`
      ("executorMemory * spark.executor.memoryOverheadFactor, with minimum of 384"; the floor is
      `spark.executor.minMemoryOverhead` since Spark 4.0).
    - Running Spark on YARN, "Debugging your Application" (containers killed for exceeding memory limits).
    """

    code = "SPK815"
    name = "small-memory-overhead"
    summary = "executor or driver memory overhead set below Spark's own 384 MiB floor"
    default_reason = ("an overhead below Spark's 384 MiB floor lets the process outgrow its container, and "
                      "YARN or Kubernetes kills the executor with all its tasks; local masters are left alone")
    doc_setup = "from pyspark.sql import SparkSession\n"
    invalid = (Invalid(builder(("spark.executor.memoryOverhead", "256m"))),
               Invalid(builder(("spark.executor.memoryOverhead", "0.1g"))),
               Invalid("spark.master  yarn\nspark.yarn.executor.memoryOverhead  200\n", path="spark-defaults.conf"),
               Invalid("spark-submit --master yarn --deploy-mode cluster \\\n"
                       "  --conf spark.driver.memoryOverhead=128m \\\n"
                       "  --conf spark.executor.memoryOverhead=300m job.py\n", path="run.sh", count=2))
    valid = (Valid(builder(("spark.executor.memoryOverhead", "384m"))),
             Valid(builder(("spark.executor.memoryOverhead", "1024"))),
             Valid(builder(("spark.executor.memoryOverhead", "2g"))),
             Valid("spark.master  local[4]\nspark.executor.memoryOverhead  128m\n", path="spark-defaults.conf"),
             Valid(builder(("spark.driver.memoryOverhead", "128m"))),
             Valid("spark-submit --master yarn --deploy-mode client --conf spark.driver.memoryOverhead=128m "
                   "job.py\n", path="run.sh"))

    def check(self, conf) -> None:
        if not on_a_cluster(conf):
            return
        driver_counts = conf.kind != "python" and (conf.value("spark.submit.deployMode") or "").lower() != "client"
        for key in EXECUTOR + (DRIVER if driver_counts else ()):
            setting = conf.get(key)
            size = bytes_of(setting.value, "m") if setting is not None else None  # a bare number is MiB here
            if size is None or size >= _FLOOR:
                continue
            process = "executor" if key in EXECUTOR else "driver"
            self.ctx.report(self, setting, f"`{key}={setting.value.strip()}` leaves the {process} {shown_size(size)} "
                            "outside its heap, under the 384 MiB Spark never goes below by itself: the container "
                            "is killed when native memory and Python processes outgrow it",
                            help="remove it (10% of the memory, at least 384 MiB) or set at least 384m")
