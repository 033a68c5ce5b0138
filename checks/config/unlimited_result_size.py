from checks.config._conf import builder
from linter.registry import ConfigRule, Invalid, Valid


class UnlimitedResultSize(ConfigRule):
    """
    ## What it does
    Finds `spark.driver.maxResultSize` set to `0` (unlimited).

    ## Why is this bad?
    The limit (1g by default) makes a job that collects too much fail with a
    clear message. Without it the driver keeps receiving task results until
    it runs out of memory and the whole application dies, usually far from the
    line that collected.

    ## Example
    ```python
    spark = SparkSession.builder.config("spark.driver.maxResultSize", "0").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.config("spark.driver.maxResultSize", "4g").getOrCreate()
    ```
    Keep a limit that fits the driver; do not collect large results (SPK101, SPK710).

    ## Fix safety
    No fix.

    ## References
    - Spark configuration, `spark.driver.maxResultSize`.
    """

    code = "SPK808"
    name = "unlimited-result-size"
    summary = "no limit on results collected to the driver"
    default_reason = ("with `maxResultSize` at 0 a job that collects too much no longer fails with "
                      "a clear message: the driver runs out of memory and the whole application dies")
    doc_setup = "from pyspark.sql import SparkSession\n"
    invalid = (Invalid(builder(("spark.driver.maxResultSize", "0"))),
               Invalid("spark.driver.maxResultSize 0\n", path="spark-defaults.conf"))
    valid = (Valid(builder(("spark.driver.maxResultSize", "2g"))),)

    def check(self, conf) -> None:
        setting = conf.get("spark.driver.maxResultSize")
        if setting is not None and setting.value.strip().lower() in ("0", "0b", "0m", "0g"):
            self.ctx.report(self, setting, "`spark.driver.maxResultSize=0` lets a large collect kill the driver "
                            "instead of failing the job", help="keep a limit that fits the driver's memory")
