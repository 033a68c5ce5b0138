from checks.config._conf import TRUE
from linter.registry import ConfigRule, Invalid, Valid


class EventLogNotDurable(ConfigRule):
    """
    ## What it does
    Finds cluster configurations (not `local` masters) that switch event
    logging off (`spark.eventLog.enabled=false`) or write the event log to a
    local path (`file:/tmp/...`, `/tmp/...`).

    ## Why is this bad?
    The event log is what the History Server, `sparkcheck diagnose` and every
    other tool read after the application ended. Off, there is nothing to
    read; on a node's local disk, it disappears with the container or the
    node, exactly when a failed run needs explaining.

    ## Example
    ```python
    spark = (SparkSession.builder.master("yarn")
             .config("spark.eventLog.dir", "file:/tmp/spark-events").getOrCreate())
    ```

    ## Use instead
    ```python
    spark = (SparkSession.builder.master("yarn")
             .config("spark.eventLog.dir", "hdfs:///spark-history").getOrCreate())
    ```
    Enable event logging to durable storage (`hdfs://`, `s3a://`, `gs://`, `abfss://`).

    ## Fix safety
    No fix.

    ## References
    - Spark monitoring guide, "Viewing After the Fact" (`spark.eventLog.enabled`, `spark.eventLog.dir`).
    """

    code = "SPK809"
    name = "event-log-not-durable"
    summary = "event logging off, or written to a local path, on a cluster"
    default_reason = ("without a durable event log the History Server and `sparkcheck diagnose` have nothing "
                      "to read, exactly when a failed run needs explaining; local masters are not reported")
    doc_setup = "from pyspark.sql import SparkSession\n"
    invalid = (Invalid("spark.master yarn\nspark.eventLog.enabled true\nspark.eventLog.dir file:/tmp/spark-events\n",
                       path="spark-defaults.conf"),
               Invalid("spark-submit --master k8s://https://api:6443 --conf spark.eventLog.enabled=false job.py\n",
                       path="submit.sh"))
    valid = (Valid("spark.master yarn\nspark.eventLog.enabled true\nspark.eventLog.dir hdfs:///spark-history\n",
                   path="spark-defaults.conf"),
             Valid("spark.master local[4]\nspark.eventLog.dir file:/tmp/spark-events\n", path="spark-defaults.conf"))

    def check(self, conf) -> None:
        if conf.master is None or conf.local:
            return  # a laptop or a test: the log is for the moment
        enabled = conf.get("spark.eventLog.enabled")
        if enabled is not None and enabled.value.strip().lower() not in TRUE:
            self.ctx.report(self, enabled, "event logging is off: nothing will explain this run after it ends",
                            help="spark.eventLog.enabled=true with spark.eventLog.dir on durable storage")
            return
        directory = conf.get("spark.eventLog.dir")
        if directory is not None and directory.value.strip().startswith(("file:", "/")):
            self.ctx.report(self, directory, f"the event log goes to a local path ({directory.value.strip()}): it is "
                            "lost with the node or container", help="write it to hdfs://, s3a://, gs:// or abfss://")
