import libcst as cst

from checks.python._fixes import statement_and_indent
from checks.python._udf import function_node, shipped_function, site_for_def, walk_expression
from linter.diagnostics import UNSAFE, Fix, NodeEdit
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import INSTANCE
from linter.semantic.paths import parameter_names

_SETUP = (
    "from pyspark.sql import SparkSession, DataFrame\nfrom pyspark.sql import functions as F\n"
    "from pyspark.sql.functions import udf\nspark = SparkSession.builder.getOrCreate()\n"
)


def _self_reference(function, semantic=None):
    """The first ``self`` (or ``self.attr``) the function reads without owning ``self``;
    with ``semantic``, also ``obj.attr`` of an object of a class defined in the file."""
    if isinstance(function, cst.FunctionDef):
        owned = set(parameter_names(function))
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
    Unsafe: the fix copies each `self.attr` the function reads into a local
    just before the statement that ships it (a lambda) or before the decorated
    UDF, and reads the local instead. The attribute is then read once, on the
    driver, when that statement runs, rather than from the pickled object in
    every task: the same value unless the object changes in between. No fix
    when `self` itself is used or a local of that name exists.

    ## References
    - Spark RDD programming guide, "Passing Functions to Spark" (referencing a
      field of an object sends the whole object).
    """

    code = "SPK203"
    name = "closure-captures-self"
    summary = "a function shipped to executors reads `self`, so the whole object is serialized"
    default_reason = ("reading `self` in a shipped function pickles the whole object into every task, and "
                      "fails the job if it holds a SparkContext or a lock; a value copied to a local is fine")
    triggers = ("self", "class ")
    fix = "unsafe"
    doc_setup = "from pyspark.sql import DataFrame\n"

    invalid = (
        Invalid(_SETUP + "class Job:\n    def run(self, df: DataFrame):\n        return df.rdd.map(lambda r: r.x * self.factor)\n",
                unsafe=True,
                fixed=_SETUP + "class Job:\n    def run(self, df: DataFrame):\n        factor = self.factor\n"
                "        return df.rdd.map(lambda r: r.x * factor)\n"),
        Invalid(
            _SETUP + "class Cleaner:\n    def build(self):\n"
            "        @udf('string')\n        def clean(s):\n            return s.replace(self.sep, self.fill)\n        return clean\n",
            unsafe=True,
            fixed=_SETUP + "class Cleaner:\n    def build(self):\n        sep = self.sep\n        fill = self.fill\n"
            "        @udf('string')\n        def clean(s):\n            return s.replace(sep, fill)\n        return clean\n",
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

    def _hoist(self, function, owner: str):
        """Copy each `owner.attr` the function reads into a local before the statement."""
        if owner != "self":
            return None
        own = set(parameter_names(function))
        attrs, edits = [], []
        nodes = list(walk_expression(function.body))
        through_attribute = {id(n.value) for n in nodes if isinstance(n, cst.Attribute)}
        for node in nodes:
            if isinstance(node, cst.Name) and node.value == "self" and id(node) not in through_attribute:
                return None  # `self` itself is used: there is nothing to copy instead
            if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
                attr = node.attr.value
                if attr in own or (attr not in attrs and self.ctx.semantic.is_bound(attr)):
                    return None  # the local's name is taken
                if attr not in attrs:
                    attrs.append(attr)
                edits.append(NodeEdit(node, attr))
        anchor, indent = statement_and_indent(self.ctx)
        if anchor is None or not attrs:
            return None
        hoisted = "".join(f"{a} = self.{a}\n{indent}" for a in attrs)
        return Fix(f"Copy {', '.join(f'`self.{a}`' for a in attrs)} to a local first",
                   (NodeEdit(anchor, hoisted, before=True), *edits), UNSAFE)

    def _report(self, reference, where: str, function=None) -> None:
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
            fix=self._hoist(function, owner) if function is not None else None,
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
                self._report(reference, where, function if isinstance(function, cst.Lambda) else None)

    def visit_Call(self, node: cst.Call) -> None:
        shipped = shipped_function(self.ctx, node)
        if shipped is not None:
            self._shipped(*shipped)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        site = site_for_def(self.ctx, node)
        if site is not None:
            reference = _self_reference(node)
            if reference is not None:
                self._report(reference, f"UDF `{site.name}`", node)
