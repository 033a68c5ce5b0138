from checks.run._log import log, task
from linter.registry import ConfigRule, Invalid, Valid
from linter.sources.sparkconf import Setting

KEY = "spark.serializer"
_JAVA = "org.apache.spark.serializer.JavaSerializer"
_SHARE = 0.5  # of the run's task time in RDD jobs
_SCALA_JOB = "org.apache.spark.deploy.SparkSubmit --master yarn --class com.example.Sessionize sessionize.jar"
_PYTHON_JOB = "org.apache.spark.deploy.SparkSubmit --master yarn sessionize.py pyspark-shell"


def _run(command, sql=False, **properties):
    return log([("reduceByKey at Sessionize.scala:41", [task(duration=30_000, shuffle_read=1 << 28)] * 8)],
               properties=properties, sql=sql, java_command=command)


class JavaSerializerForRddJobs(ConfigRule):
    """
    ## What it does
    Reads a run's event log: finds a JVM application (its driver ran a class
    of a jar, or the Scala shell) that spent at least half of its task time
    in RDD jobs (stages of no SQL execution) with `spark.serializer` left at
    Java serialization, the default. DataFrame and SQL jobs are not
    concerned (their rows are Spark's own binary format, whatever the
    serializer), nor PySpark applications: Python pickles RDD records itself
    and the JVM moves them as byte arrays. Only an event log tells how much of
    a run is RDD work, and which kind of application it is: job code and
    configuration files are not reported by this rule (SPK810 judges Kryo
    without registration where the code uses RDDs).

    ## Why is this bad?
    Java serialization writes every object with its class description and
    field names; Spark's tuning guide measures Kryo at up to ten times faster
    and more compact, and recommends it for any network-intensive
    application. Shuffled and cached RDD records, and closures' captured data,
    all go through the serializer.

    ## Example
    ```text
    application sessionize (com.example.Sessionize, a jar): 100% of task time in RDD jobs,
    spark.serializer left at org.apache.spark.serializer.JavaSerializer
    ```

    ## Use instead
    ```text
    spark.serializer              org.apache.spark.serializer.KryoSerializer
    spark.kryo.classesToRegister  com.example.Click,com.example.Session
    ```

    ## Fix safety
    No fix: a run is read, not written.

    ## References
    - Spark tuning guide, "Data Serialization".
    """

    code = "SPK824"
    name = "java-serializer-for-rdd-jobs"
    summary = "a JVM application's RDD jobs serialized with Java serialization, the default"
    default_reason = ("a JVM application spending at least half its task time in RDD jobs pays for Java "
                      "serialization; Spark's tuning guide measures Kryo at up to ten times faster")
    invalid = (
        Invalid(_run(_SCALA_JOB), path="app.log"),
        Invalid(_run(_SCALA_JOB, **{KEY: _JAVA}), path="app.log"),
    )
    valid = (
        Valid(_run(_SCALA_JOB, **{KEY: "org.apache.spark.serializer.KryoSerializer"}), path="app.log"),
        Valid(_run(_PYTHON_JOB), path="app.log"),
        Valid(_run(_SCALA_JOB, sql=True), path="app.log"),
        Valid(f"{KEY}  {_JAVA}\n", path="spark-defaults.conf"),
    )

    def check(self, conf) -> None:
        if not conf.jvm_application or conf.rdd_share < _SHARE:
            return
        setting = conf.get(KEY)
        if setting is not None and setting.value.strip() != _JAVA:
            return
        what = f"`{KEY}={_JAVA}`" if setting is not None else f"`{KEY}` left at Java serialization"
        if setting is None:
            setting = Setting(KEY, _JAVA, line=conf.line)
        self.ctx.report(
            self, setting,
            f"{what} in a JVM application that spent {conf.rdd_share:.0%} of its task time in RDD jobs: every "
            "shuffled and cached record is written with its class description",
            help="set `spark.serializer` to `org.apache.spark.serializer.KryoSerializer` and register the "
                 "record classes (`spark.kryo.classesToRegister`)")
