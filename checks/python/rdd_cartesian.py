import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import RDD, method_name

_SETUP = "from pyspark import SparkContext\nsc = SparkContext.getOrCreate()\nusers = sc.textFile('/users')\nitems = sc.textFile('/items')\n"


class RddCartesian(PythonRule):
    """
    ## What it does
    Finds `rdd.cartesian(other)` on RDDs.

    ## Why is this bad?
    A cartesian product has `len(a) * len(b)` rows: two tables of a million rows
    make a trillion pairs, computed partition pair by partition pair with no
    shuffle optimisation at all. It is almost always a join whose key was
    forgotten, or a job that should broadcast the small side.

    ## Example
    ```python
    pairs = users.cartesian(items)
    ```

    ## Use instead
    ```python
    small = sc.broadcast(items.collect())
    pairs = users.flatMap(lambda u: [(u, i) for i in small.value])
    ```
    Or join on a key: `users.keyBy(key).join(items.keyBy(key))`.

    ## Fix safety
    No fix.

    ## References
    - PySpark API: `RDD.cartesian`.
    """

    code = "SPK107"
    name = "rdd-cartesian"
    summary = "`rdd.cartesian()` builds every pair of two RDDs"
    default_reason = ("an RDD cartesian product has len(a) * len(b) rows, computed pair of partitions by pair "
                      "with no shuffle optimisation, and is almost always a join whose key was forgotten")
    triggers = ("cartesian",)
    doc_setup = 'sc = spark.sparkContext\nusers = sc.textFile("/users")\nitems = sc.textFile("/items")\n'

    invalid = (Invalid(_SETUP + "pairs = users.cartesian(items)\n"),)
    valid = (Valid(_SETUP + "pairs = users.keyBy(len).join(items.keyBy(len))\n"), Valid("x = itertools_like.cartesian(a)\n"))

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "cartesian":
            return
        value = self.ctx.semantic.infer(node.func.value)
        if value is None or value.kind != RDD:
            return
        self.ctx.report(
            self,
            node,
            "`cartesian()` pairs every element with every element of the other RDD",
            help="join on a key, or broadcast the small side and pair on the executors",
            start=node.func.attr,
        )
