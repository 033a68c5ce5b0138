from checks.config._conf import builder
from linter.registry import ConfigRule, Invalid, Valid
from linter.sources.sparkconf import millis_of


class HeartbeatTimeout(ConfigRule):
    """
    ## What it does
    Finds `spark.executor.heartbeatInterval` that is not well below
    `spark.network.timeout`: over a third of it (defaults 10s and 120s; a
    setting left out counts at its default).

    ## Why is this bad?
    The driver declares an executor lost when no heartbeat arrived for the
    network timeout. With the interval close to the timeout, one delayed
    heartbeat (a GC pause, a busy network) loses a healthy executor and all its
    work; Spark refuses to start only when the interval is not below the timeout
    at all.

    ## Example
    ```python
    spark = (SparkSession.builder.config("spark.executor.heartbeatInterval", "60s")
             .config("spark.network.timeout", "120s").getOrCreate())
    ```

    ## Use instead
    ```python
    spark = (SparkSession.builder.config("spark.executor.heartbeatInterval", "10s")
             .config("spark.network.timeout", "300s").getOrCreate())
    ```

    ## Fix safety
    No fix.

    ## References
    - Spark configuration, `spark.executor.heartbeatInterval` ("should be significantly less than
      spark.network.timeout").
    """

    code = "SPK807"
    name = "heartbeat-timeout"
    summary = "the executor heartbeat interval is not well below the network timeout"
    doc_setup = "from pyspark.sql import SparkSession\n"
    invalid = (Invalid(builder(("spark.executor.heartbeatInterval", "60s"), ("spark.network.timeout", "120s"))),
               Invalid(builder(("spark.network.timeout", "20s"))))
    valid = (Valid(builder(("spark.executor.heartbeatInterval", "10s"), ("spark.network.timeout", "300s"))),)

    def check(self, conf) -> None:
        interval_setting = conf.get("spark.executor.heartbeatInterval")
        timeout_setting = conf.get("spark.network.timeout")
        if interval_setting is None and timeout_setting is None:
            return
        interval = millis_of(interval_setting.value, "ms") if interval_setting else 10_000.0
        timeout = millis_of(timeout_setting.value, "s") if timeout_setting else 120_000.0
        if interval is None or timeout is None or interval * 3 <= timeout:
            return
        where = interval_setting or timeout_setting
        self.ctx.report(self, where, f"heartbeats every {interval / 1000:g}s against a {timeout / 1000:g}s network "
                        "timeout: one late heartbeat loses a healthy executor",
                        help="keep spark.executor.heartbeatInterval well below spark.network.timeout (10s vs 120s)")
