import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import BOUNDED, RDD, method_name

_SETUP = "from pyspark import SparkContext\nsc = SparkContext.getOrCreate()\npairs = sc.textFile('/logs').map(lambda l: (l[:3], 1))\n"
_REDUCERS = {"sum": "lambda a, b: a + b", "len": "lambda a, b: a + b (after mapping values to 1)",
             "max": "max", "min": "min"}


class RddGroupbykeyAggregation(PythonRule):
    """
    ## What it does
    Finds `rdd.groupByKey()` followed by `mapValues(...)` that reduces each
    group to one value with `sum`, `len`, `max`, `min`, `functools.reduce` or a
    lambda calling one of them, or by `map(lambda kv: (kv[0], <the same>(kv[1])))`
    written on the (key, values) pair. An RDD of values the driver already
    holds (`sc.parallelize([...])`) is not reported.

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
    default_reason = ("`groupByKey` before a sum or count shuffles every value and holds each key's list in "
                      "memory, so one hot key can take an executor down, where `reduceByKey` combines first")
    triggers = ("groupByKey",)
    doc_setup = 'pairs = spark.sparkContext.textFile("/logs").map(lambda l: (l[:3], 1))\n'

    invalid = (
        Invalid(_SETUP + "totals = pairs.groupByKey().mapValues(sum)\n"),
        Invalid(_SETUP + "counts = pairs.groupByKey().mapValues(len).collectAsMap()\n"),
        Invalid(_SETUP + "top = pairs.groupByKey().mapValues(lambda vs: max(vs))\n"),
        Invalid(_SETUP + "from functools import reduce\n"
                "totals = pairs.groupByKey().map(lambda row: (row[0], reduce(lambda a, b: a + b, row[1])))\n"),
        Invalid(_SETUP + "totals = pairs.groupByKey().map(lambda kv: (kv[0], sum(kv[1])))\n"),
    )
    valid = (
        Valid("from pyspark import SparkContext\nsc = SparkContext.getOrCreate()\n"
              "letters = sc.parallelize(list('spark')).map(lambda c: (c, 1))\n"
              "counts = letters.groupByKey().mapValues(sum)\n"),
        Valid(_SETUP + "totals = pairs.reduceByKey(lambda a, b: a + b)\n"),
        Valid(_SETUP + "lists = pairs.groupByKey().mapValues(list)\n"),
        Valid("groups = store.groupByKey().mapValues(sum)\n"),
        Valid(_SETUP + "firsts = pairs.groupByKey().map(lambda kv: (kv[0], sorted(kv[1])[0]))\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in ("mapValues", "map") or len(node.args) != 1:
            return
        inner = node.func.value
        if not (isinstance(inner, cst.Call) and method_name(inner) == "groupByKey"):
            return
        value = self.ctx.semantic.infer(inner.func.value)
        if value is None or value.kind != RDD or value.bound == BOUNDED:
            return  # an RDD of the driver's own values (`sc.parallelize(words)`): nothing to shuffle at scale
        func = node.args[0].value
        found = self._reducer(func) if method == "mapValues" else self._pair_reducer(func)
        if found is None:
            return
        reducer, use = found
        self.ctx.report(
            self,
            node,
            f"`groupByKey().{method}(...{reducer}...)` shuffles every value and holds each key's list in memory",
            help=f"use `reduceByKey({use})`, which combines values before the shuffle",
            start=inner.func.attr,
        )

    def _reducer(self, func, values: str = None):
        """(reducer shown, what reduceByKey takes) for `sum`, `lambda vs: max(vs)`, `lambda vs: reduce(f, vs)`."""
        if values is None:
            if isinstance(func, cst.Name) and func.value in _REDUCERS and not self.ctx.semantic.is_bound(func.value):
                return func.value, _REDUCERS[func.value]
            if not (isinstance(func, cst.Lambda) and len(func.params.params) == 1):
                return None
            values, func = func.params.params[0].name.value, func.body
        if not isinstance(func, cst.Call) or not isinstance(func.func, cst.Name):
            return None
        args = [a.value for a in func.args]
        name = func.func.value
        if name in _REDUCERS and len(args) == 1 and _is(args[0], values) and not self.ctx.semantic.is_bound(name):
            return name, _REDUCERS[name]
        if name == "reduce" and len(args) == 2 and _is(args[1], values):
            bound = self.ctx.semantic.qualified_name(func.func)
            if bound in (None, "functools.reduce") and (bound or not self.ctx.semantic.is_bound("reduce")):
                return "reduce", self.ctx.code_for(args[0])
        return None

    def _pair_reducer(self, func):
        """``map(lambda kv: (kv[0], sum(kv[1])))``: the same, written on the (key, values) pair."""
        if not (isinstance(func, cst.Lambda) and len(func.params.params) == 1 and isinstance(func.body, cst.Tuple)):
            return None
        pair = func.params.params[0].name.value
        elements = [e.value for e in func.body.elements]
        if len(elements) != 2 or not _item(elements[0], pair, 0):
            return None
        body = elements[1]
        if isinstance(body, cst.Call) and body.args and _item(body.args[-1].value, pair, 1):
            renamed = body.with_changes(args=[*body.args[:-1], body.args[-1].with_changes(value=cst.Name("_values"))])
            return self._reducer(renamed, "_values")
        return None


def _is(node, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _item(node, name: str, index: int) -> bool:
    """``name[index]``."""
    if not (isinstance(node, cst.Subscript) and _is(node.value, name) and len(node.slice) == 1):
        return False
    element = node.slice[0].slice
    return isinstance(element, cst.Index) and isinstance(element.value, cst.Integer) and element.value.value == str(index)
