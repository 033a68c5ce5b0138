from linter.registry import ConfigRule, Invalid, Valid


class LegacyYarnMaster(ConfigRule):
    """
    ## What it does
    Finds the master written `yarn-cluster` or `yarn-client`
    (`--master yarn-cluster`, `spark.master`, `.master("yarn-client")`).

    ## Why is this bad?
    These forms were deprecated in Spark 2.0 and removed in 3.0: `spark-submit`
    fails with `Master must either be yarn or start with spark, mesos, k8s, or
    local`. Scripts copied from old tutorials still carry them.

    ## Example
    ```python
    spark = SparkSession.builder.master("yarn-cluster").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.master("yarn").getOrCreate()
    ```
    `--master yarn --deploy-mode cluster` (or `client`).

    ## Fix safety
    No fix: the deploy mode moves to its own option.

    ## References
    - Running Spark on YARN, "Launching Spark on YARN"; Spark 3.0 migration guide.
    """

    code = "SPK804"
    name = "legacy-yarn-master"
    summary = "`yarn-cluster` / `yarn-client` masters, removed in Spark 3"
    default_reason = ("these master forms were removed in Spark 3.0: "
                      "`spark-submit` fails on them before the job starts")
    severity = "error"
    doc_setup = "from pyspark.sql import SparkSession\n"
    invalid = (Invalid("spark-submit --master yarn-cluster --executor-memory 8g job.py\n", path="submit.sh"),
               Invalid('from pyspark.sql import SparkSession\nspark = SparkSession.builder.master("yarn-client")'
                       '.getOrCreate()\n'))
    valid = (Valid("spark-submit --master yarn --deploy-mode cluster job.py\n", path="submit.sh"),)

    def check(self, conf) -> None:
        for setting in conf.settings:
            if setting.key == "spark.master" and setting.value.strip() in ("yarn-cluster", "yarn-client"):
                mode = setting.value.strip().split("-")[1]
                self.ctx.report(self, setting, f"`{setting.value.strip()}` was removed in Spark 3.0",
                                help=f"--master yarn --deploy-mode {mode}")
