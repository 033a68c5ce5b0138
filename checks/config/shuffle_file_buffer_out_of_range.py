from checks.config._conf import builder
from checks.config._config_ranges import bare, shown_size
from linter.registry import ConfigRule, Invalid, Option, Valid
from linter.sources.sparkconf import bytes_of

_KIB = 1 << 10


class ShuffleFileBufferOutOfRange(ConfigRule):
    """
    ## What it does
    Finds `spark.shuffle.file.buffer` set below its default of 32 KiB, or
    above 8 MiB, wherever the configuration is written. A number without a
    unit is KiB, as Spark reads it: `32768` is 32 MiB, not 32 KiB.

    Values between the default and 8 MiB are not reported: raising the buffer
    to 64k-1m is a tuning choice that trades heap for fewer system calls (the
    1 MiB some guides recommend included), not a mistake.

    ## Why is this bad?
    Every shuffle file a task writes goes through a buffer of this size. A
    smaller buffer than the default turns each shuffle write into more system
    calls and disk seeks, for a few kilobytes of heap saved. A very large one
    is multiplied: a map task that takes the bypass-merge path keeps one file,
    and one buffer, open per reduce partition (up to
    `spark.shuffle.sort.bypassMergeThreshold`, 200), so 32 MiB buffers are
    over 6 GiB of heap per task, and the executor runs out of memory.

    ## Example
    ```python
    spark = SparkSession.builder.config("spark.shuffle.file.buffer", "32768").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.config("spark.shuffle.file.buffer", "1m").getOrCreate()
    ```

    ## Fix safety
    No fix: the size meant is not known (`32768` may mean 32k or 32m).

    ## Options
    - `min-kib` (32) and `max-kib` (8192): the range of buffer sizes, in KiB, not reported.

    ## References
    - Spark configuration, "Shuffle Behavior": `spark.shuffle.file.buffer` (32k, "in KiB unless
      otherwise specified") and `spark.shuffle.sort.bypassMergeThreshold` (200).
    """

    code = "SPK816"
    name = "shuffle-file-buffer-out-of-range"
    summary = "a shuffle file buffer below its 32 KiB default, or so large that open buffers exhaust the heap"
    default_reason = ("a buffer below 32 KiB costs more system calls per shuffle write, and one over 8 MiB, "
                      "multiplied by the open files, exhausts the heap; tuning in between is not reported")
    doc_setup = "from pyspark.sql import SparkSession\n"
    options = {"min-kib": Option(32, "The smallest buffer (KiB) not reported."),
               "max-kib": Option(8192, "The largest buffer (KiB) not reported.")}
    invalid = (Invalid(builder(("spark.shuffle.file.buffer", "16k"))),
               Invalid(builder(("spark.shuffle.file.buffer", "32768"))),
               Invalid("spark.shuffle.file.buffer  64m\n", path="spark-defaults.conf"),
               Invalid("spark-submit --master yarn --conf spark.shuffle.file.buffer=8 job.py\n", path="run.sh"))
    valid = (Valid(builder(("spark.shuffle.file.buffer", "32k"))),
             Valid(builder(("spark.shuffle.file.buffer", "1m"))),
             Valid(builder(("spark.shuffle.file.buffer", "4m"))),
             Valid(builder(("spark.shuffle.file.buffer", "512"))),
             Valid(builder(("spark.shuffle.file.buffer", "16k")), options={"min-kib": 16}))

    def check(self, conf) -> None:
        setting = conf.get("spark.shuffle.file.buffer")
        size = bytes_of(setting.value, "k") if setting is not None else None  # a bare number is KiB here
        if size is None:
            return
        written = f"`spark.shuffle.file.buffer={setting.value.strip()}`"
        if size < self.opts["min-kib"] * _KIB:
            self.ctx.report(self, setting, f"{written} is a {shown_size(size)} buffer, smaller than the 32 KiB "
                            "default: more system calls and disk seeks on every shuffle write",
                            help="remove it (32k), or raise it")
        elif size > self.opts["max-kib"] * _KIB:
            unit = " (a number without a unit is KiB)" if bare(setting) else ""
            self.ctx.report(self, setting, f"{written} is a {shown_size(size)} buffer per open shuffle file{unit}: "
                            "a task writing 200 reduce partitions holds 200 of them on the heap",
                            help="32k (the default) to 1m")
