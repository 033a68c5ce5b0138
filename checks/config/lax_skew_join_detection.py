from checks.config._conf import builder
from checks.config._config_ranges import MIB, number, shown_size, skew_join_active
from linter.registry import ConfigRule, Invalid, Option, Valid
from linter.sources.sparkconf import bytes_of

THRESHOLD = "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes"
FACTOR = "spark.sql.adaptive.skewJoin.skewedPartitionFactor"


class LaxSkewJoinDetection(ConfigRule):
    """
    ## What it does
    Finds adaptive skew-join handling set so that it seldom fires:
    `spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes` above
    1 GiB (default 256MB), or `spark.sql.adaptive.skewJoin.skewedPartitionFactor`
    above 10 (default 5), wherever the configuration is written. A number
    without a unit is bytes.

    Not reported where skew joins are not handled anyway: AQE off or
    `spark.sql.adaptive.skewJoin.enabled=false` (SPK801 and SPK812 report
    those), a target Spark (`target-spark`) before 3.2 with AQE not turned
    on, or a `local` master.

    ## Why is this bad?
    AQE splits a join partition only when it is larger than the threshold and
    also larger than the factor times the median partition. Raised this far,
    a partition of a gigabyte, or twenty times its neighbours, runs as one
    task: the stage waits for that straggler (it spills, and may be lost to
    memory), which is what skew-join handling exists to prevent. It is the
    switch turned mostly off without saying so.

    ## Example
    ```python
    spark = SparkSession.builder.config(
        "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "2g").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.config(
        "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "512m").getOrCreate()
    ```

    ## Fix safety
    No fix: remove the setting, or choose a lower one.

    ## Options
    - `max-threshold-mib` (1024): the largest threshold (MiB) not reported.
    - `max-factor` (10): the largest factor not reported.

    ## References
    - Spark SQL performance tuning guide, "Adaptive Query Execution", "Optimizing Skew Join"
      (`skewedPartitionFactor` 5, since 3.3 written 5.0; `skewedPartitionThresholdInBytes` 256MB).
    """

    code = "SPK817"
    name = "lax-skew-join-detection"
    summary = "skew-join thresholds raised so far that skewed partitions are not split"
    default_reason = ("thresholds raised this far leave gigabyte partitions unsplit, the straggler skew-join "
                      "handling exists to prevent; where skew joins are off anyway, it is not reported")
    doc_setup = "from pyspark.sql import SparkSession\n"
    options = {"max-threshold-mib": Option(1024, "The largest skewed-partition threshold (MiB) not reported."),
               "max-factor": Option(10.0, "The largest skewed-partition factor not reported.")}
    invalid = (Invalid(builder((THRESHOLD, "2g"))),
               Invalid(builder((THRESHOLD, "2G"))),
               Invalid(builder((FACTOR, "20"))),
               Invalid(f"spark.sql.adaptive.enabled  true\n{THRESHOLD}  4294967296\n", path="spark-defaults.conf"),
               Invalid(f"spark-submit --master yarn --conf {THRESHOLD}=1536m --conf {FACTOR}=50 job.py\n",
                       path="run.sh", count=2))
    valid = (Valid(builder((THRESHOLD, "256m"))),
             Valid(builder((THRESHOLD, "1g"))),
             Valid(builder((FACTOR, "5"))),
             Valid(builder((FACTOR, "10"))),
             Valid(builder(("spark.sql.adaptive.skewJoin.enabled", "false"), (THRESHOLD, "10g"))),
             Valid(builder(("spark.sql.adaptive.enabled", "false"), (FACTOR, "100"))),
             Valid(f"spark.master  local[4]\n{THRESHOLD}  8g\n", path="spark-defaults.conf"),
             Valid(builder((THRESHOLD, "2g")), options={"max-threshold-mib": 4096}))

    def check(self, conf) -> None:
        if not skew_join_active(conf, self.ctx.settings):
            return
        threshold = conf.get(THRESHOLD)
        size = bytes_of(threshold.value, "b") if threshold is not None else None
        if size is not None and size > self.opts["max-threshold-mib"] * MIB:
            self.ctx.report(self, threshold, f"skew joins split only partitions over {shown_size(size)} "
                            f"(`{THRESHOLD.rsplit('.', 1)[1]}`, default 256 MiB): a skewed partition below that "
                            "runs as one straggling task", help="remove it (256m), or keep it at 1g or below")
        factor = conf.get(FACTOR)
        value = number(factor)
        if value is not None and value > self.opts["max-factor"]:
            self.ctx.report(self, factor, f"skew joins split only partitions over {value:g} times the median "
                            "(`skewedPartitionFactor`, default 5): a partition a few times larger than the rest "
                            "runs as one straggling task", help=f"remove it (5), or keep it at "
                            f"{self.opts['max-factor']:g} or below")
