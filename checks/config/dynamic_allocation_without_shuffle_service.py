from checks.config._conf import TRUE, builder
from linter.registry import ConfigRule, Invalid, Valid

DYNAMIC = "spark.dynamicAllocation.enabled"
SERVICE = "spark.shuffle.service.enabled"
TRACKING = "spark.dynamicAllocation.shuffleTracking.enabled"
# Platforms whose clusters run Spark with a shuffle service of their own, set in a spark-defaults.conf that
# the definition read here does not show: EMR on EC2 (YARN), Dataproc and Yandex Data Processing (YARN),
# Databricks. ConfigSet.kind names them (linter/sources/clusters.py).
_MANAGED = ("emr", "cluster", "databricks")


_APPLICATION = """apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata:
  name: nightly
spec:
  type: Python
  mainApplicationFile: local:///opt/jobs/nightly.py
  dynamicAllocation:
    enabled: true
    maxExecutors: 20
"""


def _on(conf, key: str) -> bool:
    return (conf.value(key) or "").lower() in TRUE


class DynamicAllocationWithoutShuffleService(ConfigRule):
    """
    ## What it does
    Finds `spark.dynamicAllocation.enabled=true` where nothing keeps the
    shuffle files of the executors it removes: no external shuffle service
    (`spark.shuffle.service.enabled`), shuffle tracking
    (`spark.dynamicAllocation.shuffleTracking.enabled`) switched off, and no
    decommissioning of shuffle blocks (`spark.decommission.enabled` with
    `spark.storage.decommission.shuffleBlocks.enabled`). Shuffle tracking is
    on by default since Spark 3.4: left unset, it is reported only when the
    target Spark (`target-spark`) is older.

    Not reported for a `local` master, nor in the cluster definitions of
    platforms that run a shuffle service for their own clusters (EMR on EC2,
    Dataproc and Yandex Data Processing, Databricks): their own
    spark-defaults.conf, which sparkcheck does not see, sets it. A Spark
    operator `SparkApplication` whose `dynamicAllocation` leaves
    `shuffleTrackingEnabled` out has it on (the operator's default).

    ## Why is this bad?
    Dynamic allocation removes idle executors, and with them the shuffle
    files they wrote. Without a service, shuffle tracking or shuffle-block
    decommissioning to keep those files, Spark does not start the job at all:
    the SparkContext fails with "Dynamic allocation of executors requires one
    of the following conditions: 1) enabling external shuffle service ...".
    A cluster setting that passes review fails only when the job is deployed.

    ## Example
    ```python
    spark = (SparkSession.builder.config("spark.dynamicAllocation.enabled", "true")
             .config("spark.dynamicAllocation.shuffleTracking.enabled", "false").getOrCreate())
    ```

    ## Use instead
    ```python
    spark = (SparkSession.builder.config("spark.dynamicAllocation.enabled", "true")
             .config("spark.dynamicAllocation.shuffleTracking.enabled", "true").getOrCreate())
    ```
    or `spark.shuffle.service.enabled=true` where the cluster runs the service (YARN's `spark_shuffle`
    auxiliary service).

    ## Fix safety
    No fix: which of the two fits depends on the cluster manager.

    ## References
    - Spark job scheduling guide, "Dynamic Resource Allocation" (the external shuffle service or shuffle tracking).
    - Spark configuration, `spark.dynamicAllocation.shuffleTracking.enabled` (default true since 3.4).
    - Kubeflow Spark operator, `DynamicAllocation.shuffleTrackingEnabled` (set to true when left out).
    """

    code = "SPK821"
    name = "dynamic-allocation-without-shuffle-service"
    summary = "dynamic allocation with neither the external shuffle service nor shuffle tracking to keep shuffle files"
    default_reason = ("dynamic allocation with nothing to keep shuffle files stops the SparkContext "
                      "from starting: a setting that passes review fails only when the job is deployed")
    doc_setup = "from pyspark.sql import SparkSession\n"
    invalid = (Invalid(builder((DYNAMIC, "true"), (TRACKING, "false"))),
               Invalid(f"spark.master  yarn\n{DYNAMIC}  true\n{SERVICE}  false\n{TRACKING}  false\n",
                       path="spark-defaults.conf"),
               Invalid(_APPLICATION.replace("enabled: true", "enabled: true\n    shuffleTrackingEnabled: false"),
                       path="spark-app.yaml"))
    valid = (Valid(builder((DYNAMIC, "true"), (TRACKING, "true"))),
             Valid(builder((DYNAMIC, "true"), (SERVICE, "true"), (TRACKING, "false"))),
             Valid(builder((DYNAMIC, "true"))),
             Valid(builder((DYNAMIC, "false"), (TRACKING, "false"))),
             Valid(builder((DYNAMIC, "true"), (TRACKING, "false"), ("spark.decommission.enabled", "true"),
                           ("spark.storage.decommission.shuffleBlocks.enabled", "true"))),
             Valid(_APPLICATION, path="spark-app.yaml"),
             Valid(f"spark.master  local[4]\n{DYNAMIC}  true\n{TRACKING}  false\n", path="spark-defaults.conf"),
             Valid('[{"Classification": "spark-defaults", "Properties": {"' + DYNAMIC + '": "true", "' + TRACKING +
                   '": "false"}}]\n', path="configurations.json"))

    def check(self, conf) -> None:
        setting = conf.get(DYNAMIC)
        if setting is None or setting.value.strip().lower() not in TRUE or conf.local or conf.kind in _MANAGED:
            return
        if _on(conf, SERVICE) or _on(conf, "spark.decommission.enabled") and \
                _on(conf, "spark.storage.decommission.shuffleBlocks.enabled"):
            return
        tracking = conf.value(TRACKING)
        if tracking is None:
            if self.ctx.settings.target_spark >= (3, 4):
                return
            target = ".".join(str(p) for p in self.ctx.settings.target_spark)
            why = f"shuffle tracking is off by default before Spark 3.4 (target-spark {target})"
        elif tracking.lower() in TRUE:
            return
        else:
            why = "shuffle tracking is switched off"
        self.ctx.report(self, setting, f"dynamic allocation with no external shuffle service, and {why}: Spark "
                        "refuses to start, as the shuffle files of removed executors would be lost",
                        help=f"{TRACKING}=true, or {SERVICE}=true where the cluster runs the shuffle service")
