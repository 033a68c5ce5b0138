from checks.config._conf import TRUE
from linter.registry import ConfigRule, Invalid, Valid

_JOB = '''from pyspark import SparkConf, SparkContext

conf = SparkConf().set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
sc = SparkContext(conf=conf)
counts = sc.textFile("hdfs:///logs").map(lambda line: (line.split()[0], 1)).reduceByKey(lambda a, b: a + b)
'''


class KryoUnregistered(ConfigRule):
    """
    ## What it does
    Finds Kryo selected as the serializer without registering classes
    (`spark.kryo.classesToRegister`, `spark.kryo.registrator`, or
    `spark.kryo.registrationRequired=true`) where RDDs are used: in a Python
    file that uses the RDD API, or an event log with RDD jobs outside SQL.

    ## Why is this bad?
    Kryo writes the full class name before every object of an unregistered
    class, which makes shuffled and cached RDD data larger than necessary and
    can make Kryo slower than advertised; `registrationRequired` turns a
    forgotten class into an error instead of a silent cost. (DataFrames do not
    use it for their rows.)

    ## Example
    ```python
    conf = SparkConf().set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
    pairs = sc.parallelize(records).map(to_pair)
    ```

    ## Use instead
    ```python
    conf = (SparkConf().set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
            .set("spark.kryo.classesToRegister", "com.example.Order,com.example.Customer"))
    pairs = sc.parallelize(records).map(to_pair)
    ```

    ## Fix safety
    No fix: only the job knows its classes.

    ## References
    - Spark tuning guide, "Data Serialization".
    """

    code = "SPK810"
    name = "kryo-unregistered"
    summary = "Kryo without registered classes where RDDs are used"
    default_reason = ("Kryo writes the full class name before every object of an unregistered class, "
                      "bloating shuffled and cached RDD data; reported only where RDDs are used")
    doc_setup = ("from pyspark import SparkConf, SparkContext\nsc = SparkContext.getOrCreate()\nrecords = []\n"
                 "def to_pair(r):\n    return r, 1\n")
    invalid = (Invalid(_JOB),)
    valid = (Valid(_JOB.replace('KryoSerializer")', 'KryoSerializer").set("spark.kryo.registrationRequired", '
                                '"true")')),
             Valid(_JOB.replace('sc.textFile("hdfs:///logs").map(lambda line: (line.split()[0], 1))'
                                '.reduceByKey(lambda a, b: a + b)', '1')))

    def check(self, conf) -> None:
        serializer = conf.get("spark.serializer")
        if serializer is None or "KryoSerializer" not in serializer.value or not conf.uses_rdd:
            return
        if conf.get("spark.kryo.classesToRegister") or conf.get("spark.kryo.registrator") or \
                (conf.value("spark.kryo.registrationRequired") or "").lower() in TRUE:
            return
        self.ctx.report(self, serializer, "Kryo without registered classes writes every object's class name: "
                        "larger shuffles and caches of RDD data",
                        help="spark.kryo.classesToRegister (or a registrator), and registrationRequired=true")
