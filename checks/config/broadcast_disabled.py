from checks.config._conf import builder
from linter.registry import ConfigRule, Invalid, Valid


class BroadcastDisabled(ConfigRule):
    """
    ## What it does
    Finds `spark.sql.autoBroadcastJoinThreshold` set to `-1` (or any negative
    value) in any configuration source.

    ## Why is this bad?
    With the threshold at -1 Spark never broadcasts a table on its own: every
    join of a ten-row dimension table shuffles and sorts both sides. It is
    usually set once to work around a broadcast timeout or a driver
    out-of-memory error and then left for every job (sparkcheck's SPK604 finds
    the resulting sort-merge joins in plans).

    ## Example
    ```python
    spark = SparkSession.builder.config("spark.sql.autoBroadcastJoinThreshold", "-1").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.config("spark.sql.autoBroadcastJoinThreshold", "10MB").getOrCreate()
    ```
    Keep the default (10 MB); for the one join whose broadcast misbehaves, hint
    `MERGE` or `SHUFFLE_HASH` on that join.

    ## Fix safety
    No fix: removing the setting changes plans.

    ## References
    - Spark SQL performance tuning guide, `spark.sql.autoBroadcastJoinThreshold` and "Join Strategy Hints".
    """

    code = "SPK802"
    skip_in_tests = True  # a test session switches broadcasts off on purpose, to test sort-merge plans
    name = "broadcast-disabled"
    summary = "automatic broadcast joins switched off (threshold -1)"
    default_reason = ("with the threshold at -1 Spark never broadcasts by itself, so every join of a ten-row "
                      "dimension table shuffles and sorts both sides, often left behind by an old workaround")
    doc_setup = "from pyspark.sql import SparkSession\n"
    invalid = (Invalid(builder(("spark.sql.autoBroadcastJoinThreshold", "-1"))),
               Invalid("spark.sql.autoBroadcastJoinThreshold=-1\n", path="spark-defaults.conf"))
    valid = (Valid(builder(("spark.sql.autoBroadcastJoinThreshold", "50MB"))),
             Valid(builder(("spark.sql.autoBroadcastJoinThreshold", "-1")), path="tests/conftest.py"))

    def check(self, conf) -> None:
        setting = conf.get("spark.sql.autoBroadcastJoinThreshold")
        if setting is not None and setting.value.strip().startswith("-"):
            self.ctx.report(self, setting, f"`spark.sql.autoBroadcastJoinThreshold={setting.value.strip()}` stops "
                            "every automatic broadcast join: small tables are shuffled and sorted",
                            help="keep the default (10MB); hint the one join that must not broadcast")
