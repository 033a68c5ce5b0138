import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import RDD, method_name

_SETUP = "from pyspark import SparkContext\nsc = SparkContext.getOrCreate()\npairs = sc.textFile('/logs').map(lambda l: (l[:3], 1))\n"
_REDUCERS = {"sum": "lambda a, b: a + b", "len": "lambda a, b: a + b (after mapping values to 1)",
             "max": "max", "min": "min"}


class RddGroupbykeyAggregation(PythonRule):
    """
    ## What it does
    Finds `rdd.groupByKey()` followed by `mapValues(...)` that reduces each
    group to one value with `sum`, `len`, `max`, `min` or a lambda calling one
    of them.

    ## Why is this bad?
    `groupByKey` shuffles every value and builds each key's full list in
    memory before the reduction runs; a hot key can take an executor down.
    `reduceByKey` (or `aggregateByKey`) combines values on the map side first,
    so only one partial result per key and partition crosses the network.

    ## Example
    ```python
    totals = pairs.groupByKey().mapValues(sum)
    ```

    ## Use instead
    ```python
    totals = pairs.reduceByKey(lambda a, b: a + b)
    ```

    ## Fix safety
    No fix: the reducing function must be associative and commutative, which
    is for the author to confirm.

    ## References
    - Spark RDD programming guide, "Shuffle operations"; `groupByKey` API notes
      ("use reduceByKey or aggregateByKey ... for each key").
    """

    code = "SPK106"
    name = "rdd-groupbykey-aggregation"
    summary = "`groupByKey().mapValues(sum)` where `reduceByKey` combines before the shuffle"
    triggers = ("groupByKey",)
    doc_setup = 'pairs = spark.sparkContext.textFile("/logs").map(lambda l: (l[:3], 1))\n'

    invalid = (
        Invalid(_SETUP + "totals = pairs.groupByKey().mapValues(sum)\n"),
        Invalid(_SETUP + "counts = pairs.groupByKey().mapValues(len).collectAsMap()\n"),
        Invalid(_SETUP + "top = pairs.groupByKey().mapValues(lambda vs: max(vs))\n"),
    )
    valid = (
        Valid(_SETUP + "totals = pairs.reduceByKey(lambda a, b: a + b)\n"),
        Valid(_SETUP + "lists = pairs.groupByKey().mapValues(list)\n"),
        Valid("groups = store.groupByKey().mapValues(sum)\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "mapValues" or len(node.args) != 1:
            return
        inner = node.func.value
        if not (isinstance(inner, cst.Call) and method_name(inner) == "groupByKey"):
            return
        value = self.ctx.semantic.infer(inner.func.value)
        if value is None or value.kind != RDD:
            return
        func = node.args[0].value
        reducer = None
        if isinstance(func, cst.Name) and func.value in _REDUCERS:
            reducer = func.value
        elif isinstance(func, cst.Lambda) and len(func.params.params) == 1:
            body = func.body
            param = func.params.params[0].name.value
            if (isinstance(body, cst.Call) and isinstance(body.func, cst.Name) and body.func.value in _REDUCERS
                    and len(body.args) == 1 and isinstance(body.args[0].value, cst.Name)
                    and body.args[0].value.value == param):
                reducer = body.func.value
        if reducer is None or self.ctx.semantic.is_bound(reducer):
            return
        self.ctx.report(
            self,
            node,
            f"`groupByKey().mapValues({reducer})` shuffles every value and holds each key's list in memory",
            help=f"use `reduceByKey({_REDUCERS[reducer]})`, which combines values before the shuffle",
            start=inner.func.attr,
        )
