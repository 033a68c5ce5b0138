from checks.config._conf import builder
from checks.config._config_ranges import number, skew_join_active
from checks.config.lax_skew_join_detection import FACTOR
from linter.registry import ConfigRule, Invalid, Option, Valid


class AggressiveSkewJoinDetection(ConfigRule):
    """
    ## What it does
    Finds `spark.sql.adaptive.skewJoin.skewedPartitionFactor` set below 2
    (default 5; 5.0 since Spark 3.3), wherever the configuration is written.

    Not reported where skew joins are not handled anyway: AQE off or
    `spark.sql.adaptive.skewJoin.enabled=false`, a target Spark
    (`target-spark`) before 3.2 with AQE not turned on, or a `local` master
    (tests lower it to provoke a split on a few rows).

    ## Why is this bad?
    A join partition counts as skewed when it is larger than this factor
    times the median partition (and than
    `skewedPartitionThresholdInBytes`). Below 2, partitions barely larger
    than the median are "skewed": AQE splits them, and reads the matching
    partition of the other side once for every split. That is extra tasks
    and repeated reads for partitions that were never a straggler; at 1 or
    below, nearly every partition over the size threshold is split.

    ## Example
    ```python
    spark = SparkSession.builder.config("spark.sql.adaptive.skewJoin.skewedPartitionFactor", "1").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.config("spark.sql.adaptive.skewJoin.skewedPartitionFactor", "5").getOrCreate()
    ```

    ## Fix safety
    No fix: remove the setting (5), or choose a larger factor.

    ## Options
    - `min-factor` (2.0): the smallest factor not reported.

    ## References
    - Spark SQL performance tuning guide, "Adaptive Query Execution", "Optimizing Skew Join"
      (`skewedPartitionFactor`: 5 in Spark 3.0-3.2, 5.0 since 3.3).
    """

    code = "SPK819"
    name = "aggressive-skew-join-detection"
    summary = "a skew-join factor so low that ordinary partitions are split and the other side re-read"
    default_reason = ("a factor below 2 splits partitions barely larger than the median and re-reads the "
                      "other side for each split, with no straggler to fix; local masters are not reported")
    doc_setup = "from pyspark.sql import SparkSession\n"
    options = {"min-factor": Option(2.0, "The smallest skewed-partition factor not reported.")}
    invalid = (Invalid(builder((FACTOR, "1"))),
               Invalid(builder((FACTOR, "1.5"))),
               Invalid(f"spark.sql.adaptive.enabled  true\n{FACTOR}  0.5\n", path="spark-defaults.conf"))
    valid = (Valid(builder((FACTOR, "2"))),
             Valid(builder((FACTOR, "5"))),
             Valid(builder((FACTOR, "5.0"))),
             Valid(builder(("spark.sql.adaptive.skewJoin.enabled", "false"), (FACTOR, "1"))),
             Valid("from pyspark.sql import SparkSession\n\nspark = SparkSession.builder.master(\"local[2]\")"
                   f".config(\"{FACTOR}\", \"1\").getOrCreate()\n"))

    def check(self, conf) -> None:
        if not skew_join_active(conf, self.ctx.settings):
            return
        setting = conf.get(FACTOR)
        value = number(setting)
        if value is None or value >= self.opts["min-factor"]:
            return
        which = "any partition over the size threshold and above the median is split" if value <= 1 else \
            f"partitions only {value:g} times the median are split"
        self.ctx.report(self, setting, f"a skewed-partition factor of {value:g} (default 5): {which}, and the other "
                        "join side is read again for each piece",
                        help=f"remove it (5), or keep it at {self.opts['min-factor']:g} or above")
