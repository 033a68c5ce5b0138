from checks.config._conf import builder
from linter.registry import ConfigRule, Invalid, Valid


class AdaptiveDisabled(ConfigRule):
    """
    ## What it does
    Finds `spark.sql.adaptive.enabled` set to `false`, wherever the
    configuration is written: the session builder, `spark.conf.set`,
    `SparkConf`, `spark-defaults.conf`, `spark-submit --conf` in scripts and
    YAML, or an event log's environment.

    ## Why is this bad?
    Adaptive query execution re-plans each query with the sizes measured at
    run time: it coalesces small shuffle partitions, splits skewed ones, and
    turns sort-merge joins into broadcast joins when a side is small. It is on
    by default since Spark 3.2; turning it off brings back fixed partition
    counts and unhandled skew (sparkcheck's SPK609 finds such plans).

    ## Example
    ```python
    spark = SparkSession.builder.config("spark.sql.adaptive.enabled", "false").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.config("spark.sql.adaptive.enabled", "true").getOrCreate()
    ```

    ## Fix safety
    No fix: the setting may be deliberate for one query; remove it where it is not.

    ## References
    - Spark SQL performance tuning guide, "Adaptive Query Execution".
    """

    code = "SPK801"
    name = "adaptive-disabled"
    summary = "adaptive query execution switched off"
    default_reason = ("switching AQE off brings back fixed shuffle partition counts, unhandled skew "
                      "and no run-time broadcast joins, for every query run with that configuration")
    doc_setup = "from pyspark.sql import SparkSession\n"
    invalid = (Invalid(builder(("spark.sql.adaptive.enabled", "false"))),
               Invalid("spark.sql.adaptive.enabled  false\n", path="spark-defaults.conf"),
               Invalid("spark-submit --master yarn \\\n  --conf spark.sql.adaptive.enabled=false job.py\n",
                       path="run.sh"))
    valid = (Valid(builder(("spark.sql.adaptive.enabled", "true"))),
             Valid("spark.sql.adaptive.enabled  true\n", path="spark-defaults.conf"))

    def check(self, conf) -> None:
        setting = conf.get("spark.sql.adaptive.enabled")
        if setting is not None and setting.value.strip().lower() == "false":
            self.ctx.report(self, setting, "`spark.sql.adaptive.enabled=false` switches adaptive query execution off: "
                            "fixed partition counts, no skew handling, no runtime broadcast joins",
                            help="remove it (on by default since Spark 3.2)")
