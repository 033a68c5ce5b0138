from checks.config._conf import builder
from linter.registry import ConfigRule, Invalid, Valid

LEGACY = ("spark.storage.memoryFraction", "spark.shuffle.memoryFraction", "spark.storage.unrollFraction",
          "spark.storage.safetyFraction", "spark.shuffle.safetyFraction")


class LegacyMemorySetting(ConfigRule):
    """
    ## What it does
    Finds the memory settings of Spark before 1.6:
    `spark.storage.memoryFraction`, `spark.shuffle.memoryFraction`,
    `spark.storage.unrollFraction`, `spark.storage.safetyFraction`,
    `spark.shuffle.safetyFraction`.

    ## Why is this bad?
    Since Spark 1.6 execution and storage share one unified region
    (`spark.memory.fraction`, `spark.memory.storageFraction`); these keys are
    ignored (the legacy mode that read them was removed in Spark 3.0). A
    team that tunes them believes it changed memory and did not.

    ## Example
    ```python
    spark = SparkSession.builder.config("spark.shuffle.memoryFraction", "0.6").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.config("spark.memory.fraction", "0.6").getOrCreate()
    ```

    ## Fix safety
    No fix: the unified settings mean something else; choose them on purpose.

    ## References
    - Spark tuning guide, "Memory Management Overview"; Spark 1.6 release notes (unified memory management).
    """

    code = "SPK803"
    name = "legacy-memory-setting"
    summary = "a memory setting Spark ignores since 1.6"
    default_reason = ("Spark ignores these keys since 1.6, so a team that "
                      "tunes them believes it changed memory and did not")
    doc_setup = "from pyspark.sql import SparkSession\n"
    invalid = (Invalid(builder(("spark.storage.memoryFraction", "0.5"), ("spark.shuffle.memoryFraction", "0.3")),
                       count=2),
               Invalid("spark.storage.memoryFraction 0.4\n", path="spark-defaults.conf"))
    valid = (Valid(builder(("spark.memory.fraction", "0.6"))),)

    def check(self, conf) -> None:
        for setting in conf.settings:
            if setting.key in LEGACY:
                self.ctx.report(self, setting, f"`{setting.key}` is ignored since Spark 1.6 (unified memory)",
                                help="use spark.memory.fraction and spark.memory.storageFraction, or remove it")
