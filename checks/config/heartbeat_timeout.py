from checks.config._conf import builder
from linter.registry import ConfigRule, Invalid, Option, Valid
from linter.sources.sparkconf import millis_of


class HeartbeatTimeout(ConfigRule):
    """
    ## What it does
    Finds `spark.executor.heartbeatInterval` that is not well below
    `spark.network.timeout`: over a third of it (defaults 10s and 120s; a
    setting left out counts at its default). Also finds
    `spark.network.timeout` itself set below its 120s default (a number
    without a unit is seconds), except for a `local` master, where there is
    no executor to lose. One configuration gets one finding: the interval's
    when both apply.

    ## Why is this bad?
    The driver declares an executor lost when no heartbeat arrived for the
    network timeout. With the interval close to the timeout, one delayed
    heartbeat (a GC pause, a busy network) loses a healthy executor and all its
    work; Spark refuses to start only when the interval is not below the timeout
    at all. The network timeout is also the default of the shuffle
    connection timeout, the RPC ask timeout and the block manager's heartbeat
    timeout: below 120s a full garbage collection or a busy shuffle server
    fails fetches and loses executors, and the stages that read from them run
    again. Raising it (300s-800s for large shuffles) is the usual treatment;
    lowering it speeds up nothing in a batch job.

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

    ## Options
    - `min-network-timeout-seconds` (120): the shortest `spark.network.timeout` not reported.

    ## References
    - Spark configuration, `spark.executor.heartbeatInterval` ("should be significantly less than
      spark.network.timeout") and `spark.network.timeout` (120s, "Default timeout for all network
      interactions").
    """

    code = "SPK807"
    name = "heartbeat-timeout"
    summary = "the executor heartbeat interval is not well below the network timeout, or that timeout is cut short"
    default_reason = ("a heartbeat interval close to the network timeout, or a timeout cut short, "
                      "lets one GC pause or busy network lose a healthy executor and all its work")
    doc_setup = "from pyspark.sql import SparkSession\n"
    options = {"min-network-timeout-seconds": Option(120.0, "The shortest spark.network.timeout (s) not reported.")}
    invalid = (Invalid(builder(("spark.executor.heartbeatInterval", "60s"), ("spark.network.timeout", "120s"))),
               Invalid(builder(("spark.network.timeout", "20s"))),
               Invalid(builder(("spark.network.timeout", "60s"))),
               Invalid(builder(("spark.network.timeout", "60000ms"))),
               Invalid(builder(("spark.executor.heartbeatInterval", "5s"), ("spark.network.timeout", "90"))),
               Invalid("spark.master  yarn\nspark.network.timeout  30s\n", path="spark-defaults.conf"),
               Invalid("spark-submit --master yarn --conf spark.network.timeout=1min job.py\n", path="run.sh"))
    valid = (Valid(builder(("spark.executor.heartbeatInterval", "10s"), ("spark.network.timeout", "300s"))),
             Valid(builder(("spark.network.timeout", "120s"))),
             Valid(builder(("spark.network.timeout", "60000"))),  # a bare number is seconds: 60000s
             Valid("spark.master  local[2]\nspark.network.timeout  60s\n", path="spark-defaults.conf"),
             Valid(builder(("spark.network.timeout", "60s")), options={"min-network-timeout-seconds": 60}))

    def check(self, conf) -> None:
        interval_setting = conf.get("spark.executor.heartbeatInterval")
        timeout_setting = conf.get("spark.network.timeout")
        if interval_setting is None and timeout_setting is None:
            return
        interval = millis_of(interval_setting.value, "ms") if interval_setting else 10_000.0
        timeout = millis_of(timeout_setting.value, "s") if timeout_setting else 120_000.0
        if interval is None or timeout is None:
            return
        if interval * 3 > timeout:
            where = interval_setting or timeout_setting
            self.ctx.report(self, where, f"heartbeats every {interval / 1000:g}s against a {timeout / 1000:g}s "
                            "network timeout: one late heartbeat loses a healthy executor",
                            help="keep spark.executor.heartbeatInterval well below spark.network.timeout (10s vs 120s)")
        elif timeout_setting is not None and timeout < self.opts["min-network-timeout-seconds"] * 1000 and \
                not conf.local:
            self.ctx.report(self, timeout_setting, f"`spark.network.timeout={timeout_setting.value.strip()}` is below "
                            "its 120s default: a GC pause or a busy shuffle server longer than that fails fetches "
                            "and loses healthy executors", help="remove it (120s), or raise it")
