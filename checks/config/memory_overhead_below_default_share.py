from checks.config._conf import builder
from checks.config._config_ranges import MIB, on_a_cluster, shown_size
from checks.config.small_memory_overhead import EXECUTOR
from linter.registry import ConfigRule, Invalid, Option, Valid
from linter.sources.sparkconf import bytes_of

_FLOOR = 384 * MIB


class MemoryOverheadBelowDefaultShare(ConfigRule):
    """
    ## What it does
    Finds an executor memory overhead (`spark.executor.memoryOverhead`, or
    `spark.yarn.executor.memoryOverhead` before Spark 2.3) set explicitly to
    less than 10% of the executor memory (`spark.executor.memory`) written in
    the same cluster definition: the same spark-defaults.conf, spark-submit
    line, session builder, EMR configuration list, Dataproc or Databricks
    cluster, or Kubernetes `SparkApplication` (`executor.memory` and
    `executor.memoryOverhead`). Both sizes must be written there; a missing one
    is not guessed. An overhead under 384 MiB is SPK815's.

    Not reported for a `local` master (no containers).

    ## Why is this bad?
    Left alone, Spark reserves `spark.executor.memoryOverheadFactor` (10%) of
    the executor memory, at least 384 MiB, for what lives outside the JVM heap:
    thread stacks, metaspace, the shuffle's direct buffers, and the Python
    workers of PySpark. Setting the overhead by hand replaces that share with
    a fixed size, and when the heap is raised later the overhead stays behind:
    a 48 GiB executor with 2 GiB of overhead (4%) is killed by YARN ("Container
    killed by YARN for exceeding memory limits") or by Kubernetes (OOMKilled)
    as soon as its native memory grows with the data.

    ## Example
    ```python
    spark = (SparkSession.builder.config("spark.executor.memory", "48g")
             .config("spark.executor.memoryOverhead", "2g").getOrCreate())
    ```

    ## Use instead
    ```python
    spark = (SparkSession.builder.config("spark.executor.memory", "48g")
             .config("spark.executor.memoryOverhead", "6g").getOrCreate())
    ```
    or leave `spark.executor.memoryOverhead` out, so that it follows the heap.

    ## Fix safety
    No fix: the size is what the cluster grants each container.

    ## Options
    - `min-share` (0.1): the least overhead, as a share of the executor memory, not reported.

    ## References
    - Spark configuration, `spark.executor.memoryOverhead` ("executorMemory *
      spark.executor.memoryOverheadFactor, with minimum of 384") and
      `spark.executor.memoryOverheadFactor` (0.10).
    - Running Spark on YARN, "Debugging your Application" (containers killed for exceeding memory limits).
    """

    code = "SPK820"
    name = "memory-overhead-below-default-share"
    summary = "executor memory overhead set below the 10% of the executor memory that Spark would reserve"
    default_reason = ("an overhead below 10% of the heap stays behind when the heap is raised, and YARN or "
                      "Kubernetes kills the executor as its native memory grows; both sizes must be written")
    doc_setup = "from pyspark.sql import SparkSession\n"
    options = {"min-share": Option(0.1, "The least overhead, as a share of the executor memory, not reported.")}
    invalid = (Invalid(builder(("spark.executor.memory", "48g"), ("spark.executor.memoryOverhead", "2g"))),
               Invalid("spark.master  yarn\nspark.executor.memory  20g\nspark.yarn.executor.memoryOverhead  1024\n",
                       path="spark-defaults.conf"),
               Invalid("spark-submit --master yarn --executor-memory 32g --conf spark.executor.memoryOverhead=1g "
                       "job.py\n", path="run.sh"))
    valid = (Valid(builder(("spark.executor.memory", "48g"), ("spark.executor.memoryOverhead", "6g"))),
             Valid(builder(("spark.executor.memory", "4g"), ("spark.executor.memoryOverhead", "512m"))),
             Valid(builder(("spark.executor.memoryOverhead", "2g"))),
             Valid(builder(("spark.executor.memory", "48g"))),
             Valid(builder(("spark.executor.memory", "48g"), ("spark.executor.memoryOverhead", "256m"))),
             Valid("spark.master  local[4]\nspark.executor.memory  48g\nspark.executor.memoryOverhead  1g\n",
                   path="spark-defaults.conf"),
             Valid(builder(("spark.executor.memory", "48g"), ("spark.executor.memoryOverhead", "4g")),
                   options={"min-share": 0.08}))

    def check(self, conf) -> None:
        if not on_a_cluster(conf):
            return
        memory = conf.get("spark.executor.memory")
        heap = bytes_of(memory.value, "m") if memory is not None else None  # a bare number is MiB here
        setting = next((conf.get(key) for key in EXECUTOR if conf.get(key) is not None), None)
        overhead = bytes_of(setting.value, "m") if setting is not None else None
        if not heap or overhead is None or overhead < _FLOOR:
            return
        share = overhead / heap
        if share >= self.opts["min-share"]:
            return
        self.ctx.report(self, setting, f"`{setting.key}={setting.value.strip()}` is {share:.1%} of the "
                        f"{memory.value.strip()} executor memory, under the {self.opts['min-share']:.0%} Spark "
                        "reserves by itself: native memory and Python workers outgrow the container",
                        help=f"at least {shown_size(heap * self.opts['min-share'])}, or remove it so that it "
                             "follows spark.executor.memory")
