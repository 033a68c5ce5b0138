import libcst as cst

from checks.python._udf import function_node, shipped_function, site_for_def, walk_expression
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import INSTANCE

_SETUP = (
    "from pyspark.sql import SparkSession, DataFrame\nfrom pyspark.sql import functions as F\n"
    "from pyspark.sql.functions import udf\nspark = SparkSession.builder.getOrCreate()\n"
)


def _self_reference(function, semantic=None):
    """The first ``self`` (or ``self.attr``) the function reads without owning ``self``;
    with ``semantic``, also ``obj.attr`` of an object of a class defined in the file."""
    if isinstance(function, cst.FunctionDef):
        params = function.params
        owned = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        body = function.body
    else:
        owned = {p.name.value for p in function.params.params}
        body = function.body
    if "self" in owned:
        return None
    for node in walk_expression(body):
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            name = node.value.value
            if name == "self":
                return node
            if semantic is not None and name not in owned:
                value = semantic.lookup(name)
                if value is not None and value.kind == INSTANCE:
                    return node
        if isinstance(node, cst.Name) and node.value == "self":
            return node
    return None


class ClosureCapturesSelf(PythonRule):
    """
    ## What it does
    Finds functions shipped to executors that read `self`, or an attribute of
    another object of a class defined in the same file (`job.threshold` where
    `job = NightlyJob(...)` or a parameter annotated `job: NightlyJob`): the function or
    lambda of a UDF, of an RDD transformation (`map`, `flatMap`, `filter`,
    `foreach`, `mapPartitions`, `reduceByKey`, ...), of `applyInPandas`,
    `mapInPandas`, `mapInArrow`, `foreach`/`foreachPartition` on a DataFrame,
    and UDFs made from a bound method (`udf(self.clean)`). A value first copied
    to a local (`factor = self.factor`) and used through the local is fine and
    not reported. (`foreachBatch` runs its function on the driver and is not
    reported.)

    ## Why is this bad?
    To send the function to the executors, Python pickles it with everything it
    references: `self.factor` drags the whole object along, with its
    SparkSession, DataFrames, clients and caches. At best every task carries a
    large object; at worst the job fails with a pickling error (a SparkContext
    or a lock cannot be serialized).

    ## Example
    ```python
    class Scorer:
        def __init__(self, factor):
            self.factor = factor

        def score(self, df: DataFrame):
            return df.rdd.map(lambda r: r.amount * self.factor)
    ```

    ## Use instead
    ```python
    class Scorer:
        def __init__(self, factor):
            self.factor = factor

        def score(self, df: DataFrame):
            factor = self.factor
            return df.rdd.map(lambda r: r.amount * factor)
    ```

    ## Fix safety
    No fix yet; copying the attribute to a local will be offered as unsafe: it
    reads the attribute once, before the job, rather than when each task runs.

    ## References
    - Spark RDD programming guide, "Passing Functions to Spark" (referencing a
      field of an object sends the whole object).
    """

    code = "SPK203"
    name = "closure-captures-self"
    summary = "a function shipped to executors reads `self`, so the whole object is serialized"
    triggers = ("self",)
    doc_setup = "from pyspark.sql import DataFrame\n"

    invalid = (
        Invalid(_SETUP + "class Job:\n    def run(self, df: DataFrame):\n        return df.rdd.map(lambda r: r.x * self.factor)\n"),
        Invalid(
            _SETUP + "class Cleaner:\n    def build(self):\n"
            "        @udf('string')\n        def clean(s):\n            return s.replace(self.sep, ' ')\n        return clean\n"
        ),
        Invalid(_SETUP + "class Job:\n    def normalise(self, s):\n        return s\n"
                "    def udfs(self):\n        return udf(self.normalise, 'string')\n"),
        Invalid(_SETUP + "class Job:\n    def run(self, df: DataFrame):\n"
                "        return df.groupBy('k').applyInPandas(lambda pdf: pdf.head(self.n), df.schema)\n"),
        Invalid(_SETUP + "class Settings:\n    pass\n\ndef score(df: DataFrame, cfg: Settings):\n"
                "    return df.rdd.map(lambda r: r.x * cfg.factor)\n"),
    )
    valid = (
        Valid(_SETUP + "class Job:\n    def run(self, df: DataFrame):\n        factor = self.factor\n"
              "        return df.rdd.map(lambda r: r.x * factor)\n"),
        Valid(_SETUP + "class Job:\n    def run(self, df: DataFrame):\n        return df.withColumn('y', F.col('x') * self.factor)\n"),
        Valid(_SETUP + "class Job:\n    def run(self, df: DataFrame):\n"
              "        df.writeStream.foreachBatch(lambda b, i: self.sink(b)).start()\n"),
        Valid("class A:\n    def f(self, items):\n        return list(map(lambda x: x * self.k, items))\n"),
        Valid(_SETUP + "import math\ndef score(df: DataFrame, cfg: dict):\n"
              "    return df.rdd.map(lambda r: math.sqrt(r.x) * cfg['factor'])\n"),
    )

    def _report(self, reference, where: str) -> None:
        text = self.ctx.code_for(reference)
        attr = reference.attr.value if isinstance(reference, cst.Attribute) else None
        owner = reference.value.value if attr else "self"
        hint = f"copy it to a local first (`{attr} = {owner}.{attr}`) and use the local" if attr else \
            "copy the fields it needs to locals first"
        self.ctx.report(
            self,
            reference,
            f"`{text}` in {where} serializes the whole object (`{owner}`) into every task",
            help=hint,
        )

    def _shipped(self, function, where: str) -> None:
        if isinstance(function, cst.Attribute) and isinstance(function.value, cst.Name) and function.value.value == "self":
            self.ctx.report(
                self,
                function,
                f"`{self.ctx.code_for(function)}` is a bound method: {where} serializes the whole object (`self`)",
                help="make it a @staticmethod or a module-level function, and pass what it needs as arguments",
            )
            return
        function = function_node(self.ctx, function)
        if function is not None:
            reference = _self_reference(function, self.ctx.semantic)
            if reference is not None:
                self._report(reference, where)

    def visit_Call(self, node: cst.Call) -> None:
        shipped = shipped_function(self.ctx, node)
        if shipped is not None:
            self._shipped(*shipped)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        site = site_for_def(self.ctx, node)
        if site is not None:
            reference = _self_reference(node)
            if reference is not None:
                self._report(reference, f"UDF `{site.name}`")
