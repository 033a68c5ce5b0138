from checks.config._conf import builder
from checks.config.adaptive_feature_disabled import adaptive_on
from linter.registry import ConfigRule, Invalid, Valid

KEY = "spark.sql.shuffle.partitions"
_FEW = 8  # at most this many: a test or laptop session (the usual advice for local tests), not a cluster job
_DEFAULT = 200  # Spark's own default: written out, it changes nothing


class ShufflePartitionsWithAqe(ConfigRule):
    """
    ## What it does
    Finds `spark.sql.shuffle.partitions` set to a number in job code (the
    session builder, `spark.conf.set`, `SparkConf().set`) while adaptive
    query execution coalesces shuffle partitions: AQE on (set to true, or
    left alone with a target Spark of 3.2 or newer, where it is the
    default), `spark.sql.adaptive.coalescePartitions.enabled` not off, and
    no `spark.sql.adaptive.coalescePartitions.initialPartitionNum`. Sessions
    with a `local` master, and counts of 8 or fewer (tests, a laptop, where a
    small fixed count is the usual advice) are not reported, nor a file that
    runs a streaming query (`readStream`, `writeStream`, `dlt.read_stream`):
    AQE does not apply to streaming, and there the count fixes the number of
    state partitions for good, so setting it is the right thing to do. Nor is
    Spark's default, 200, written out: unless the deployment sets another
    count (which the code would then override), every shuffle starts from
    the count it would have had anyway.

    Preview (`--preview`): whether the number is wrong depends on the data's
    size, which the file does not hold, and a deliberately generous starting
    count is good practice.

    ## Why is this bad?
    With AQE coalescing, Spark sizes each shuffle's partitions from the data
    at run time (toward `spark.sql.adaptive.advisoryPartitionSizeInBytes`,
    64 MB). The hard-coded number is then only the count every shuffle starts
    from and the most it can ever have: AQE merges partitions, it never
    splits them (apart from skewed join partitions). A count tuned in the
    code for last year's volume caps this year's shuffles at partitions too
    big for memory, which spill or fail; and because it is in the code, the
    cluster's configuration cannot correct it.

    ## Example
    ```python
    spark = SparkSession.builder.config("spark.sql.shuffle.partitions", "64").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.getOrCreate()
    ```
    Tune the partition size (`spark.sql.adaptive.advisoryPartitionSizeInBytes`)
    rather than the count, and if a starting count must be set, set a
    generous one in the deployment's configuration
    (`spark.sql.adaptive.coalescePartitions.initialPartitionNum`).

    ## Fix safety
    No fix.

    ## References
    - Spark SQL performance tuning guide, "Adaptive Query Execution:
      Coalescing Post Shuffle Partitions".
    """

    code = "SPK813"
    name = "shuffle-partitions-with-aqe"
    summary = "a hard-coded `spark.sql.shuffle.partitions` in job code caps the partitions AQE would size from the data"
    preview = True
    doc_setup = "from pyspark.sql import SparkSession\n"
    invalid = (Invalid(builder((KEY, "64"))),
               Invalid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
                       f"spark.conf.set('{KEY}', 2000)\n"),
               Invalid(builder(("spark.sql.adaptive.enabled", "true"), (KEY, "400"))))
    valid = (Valid("from pyspark.sql import SparkSession\n"
                   f"spark = SparkSession.builder.config('{KEY}', '64').getOrCreate()\n"
                   "events = spark.readStream.format('kafka').option('subscribe', 'clicks').load()\n"),
             Valid(builder((KEY, "64"), ("spark.sql.adaptive.enabled", "false"))),
             Valid(builder((KEY, "64"), ("spark.sql.adaptive.coalescePartitions.enabled", "false"))),
             Valid(builder((KEY, "64"), ("spark.sql.adaptive.coalescePartitions.initialPartitionNum", "2000"))),
             Valid('from pyspark.sql import SparkSession\nspark = SparkSession.builder.master("local[2]")'
                   f'.config("{KEY}", "4").getOrCreate()\n'),
             Valid(builder((KEY, "4"))),
             Valid(builder((KEY, "200"))),
             Valid(f"{KEY}  400\n", path="spark-defaults.conf"),
             Valid(f"spark-submit --conf {KEY}=400 job.py\n", path="run.sh"))

    def check(self, conf) -> None:
        if conf.kind != "python" or conf.local or conf.streaming or \
                not adaptive_on(conf, self.ctx.settings):
            return
        coalescing = conf.value("spark.sql.adaptive.coalescePartitions.enabled")
        if (coalescing or "true").lower() != "true" or conf.get(
                "spark.sql.adaptive.coalescePartitions.initialPartitionNum") is not None:
            return
        setting = conf.get(KEY)
        if setting is None or not setting.value.strip().isdigit():
            return
        n = int(setting.value.strip())
        if n <= _FEW or n == _DEFAULT:
            return  # the count of a test or single-machine session, where there is nothing to size; or the default
        self.ctx.report(self, setting, f"`{KEY}={n}` hard-coded while AQE coalesces shuffle partitions: every "
                        f"shuffle starts from {n} partitions and can never have more, whatever the data's size",
                        help="remove it and tune `spark.sql.adaptive.advisoryPartitionSizeInBytes`; set a generous "
                        "starting count in the deployment's configuration if needed "
                        "(`spark.sql.adaptive.coalescePartitions.initialPartitionNum`)")
