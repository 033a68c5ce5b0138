from checks.config._conf import builder
from linter.registry import ConfigRule, Invalid, Option, Valid
from linter.sources.sparkconf import bytes_of

_GIB = 1 << 30


class ExecutorSizing(ConfigRule):
    """
    ## What it does
    Finds executors sized against the guides: under 1 GiB of heap per core
    (`spark.executor.memory` / `spark.executor.cores`), or a heap over 64 GiB.
    Only settings written in the same place are compared; a missing one is not
    guessed.

    ## Why is this bad?
    Every core runs one task at a time, and the tasks share the heap: at
    512 MiB per task, sorts and aggregations spill, GC runs constantly and
    executors die of memory (SPK702, SPK703, SPK704 at run time). At the
    other end, heaps over about 64 GiB make full garbage collections last
    seconds; several smaller executors do better.

    ## Example
    ```python
    spark = (SparkSession.builder.config("spark.executor.memory", "4g")
             .config("spark.executor.cores", "8").getOrCreate())
    ```

    ## Use instead
    ```python
    spark = (SparkSession.builder.config("spark.executor.memory", "16g")
             .config("spark.executor.cores", "4").getOrCreate())
    ```

    ## Fix safety
    No fix: sizing depends on the cluster's nodes.

    ## Options
    - `min-gib-per-core` (1.0) and `max-heap-gib` (64.0).

    ## References
    - Spark tuning guide, "Memory Tuning"; Spark on YARN and Kubernetes guides, executor sizing.
    """

    code = "SPK806"
    name = "executor-sizing"
    summary = "too little heap per core, or a heap too large for the GC"
    default_reason = ("under 1 GiB of heap per core tasks spill and executors die of memory, and over 64 "
                      "GiB full GCs last seconds; only settings written in the same place are compared")
    doc_setup = "from pyspark.sql import SparkSession\n"
    options = {"min-gib-per-core": Option(1.0, "The least heap (GiB) per executor core."),
               "max-heap-gib": Option(64.0, "The largest executor heap (GiB) not reported.")}
    invalid = (Invalid(builder(("spark.executor.memory", "4g"), ("spark.executor.cores", "8"))),
               Invalid("spark-submit --executor-memory 96g --executor-cores 8 job.py\n", path="run.sh"))
    valid = (Valid(builder(("spark.executor.memory", "16g"), ("spark.executor.cores", "4"))),
             Valid(builder(("spark.executor.memory", "4g"))))

    def check(self, conf) -> None:
        memory = conf.get("spark.executor.memory")
        heap = bytes_of(memory.value, "m") if memory is not None else None  # a bare number is MiB here
        if heap is None:
            return
        cores_setting = conf.get("spark.executor.cores")
        cores = int(cores_setting.value) if cores_setting is not None and cores_setting.value.strip().isdigit() else None
        if heap > self.opts["max-heap-gib"] * _GIB:
            self.ctx.report(self, memory, f"a {heap / _GIB:.0f} GiB executor heap: full garbage collections of "
                            "this size last seconds", help="several smaller executors (16-64 GiB each)")
        elif cores and heap / cores < self.opts["min-gib-per-core"] * _GIB:
            self.ctx.report(self, memory, f"{heap / cores / _GIB:.2f} GiB of heap per core ({memory.value.strip()} "
                            f"for {cores} cores): each concurrent task gets too little memory",
                            help="more spark.executor.memory or fewer spark.executor.cores (1-4 GiB per core)")
