import libcst as cst

from checks.python.action_in_loop import ACTIONS
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import CACHES, method_name

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"


class CacheUsedOnce(PythonRule):
    """
    ## What it does
    Finds a variable assigned a `cache()`d or `persist()`ed DataFrame that the
    rest of its function (or module) reads at most once. Preview rule
    (`--preview`).

    ## Why is this bad?
    Caching pays off only when the cached data is read again. Read once, it
    costs executor memory (evicting other cached data) and a serialization
    pass for nothing; the first action is also slower, because it computes
    and stores.

    ## Example
    ```python
    daily = orders.groupBy("day").count().cache()
    daily.write.parquet("s3://reports/daily/")
    ```

    ## Use instead
    ```python
    daily = orders.groupBy("day").count()
    daily.write.parquet("s3://reports/daily/")
    ```

    ## Fix safety
    No fix.

    ## References
    - Spark RDD programming guide, "Which Storage Level to Choose?".
    """

    code = "SPK410"
    name = "cache-used-once"
    summary = "a cached DataFrame is read only once"
    preview = True
    triggers = tuple(CACHES)
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "daily = orders.groupBy('day').count().cache()\ndaily.write.parquet('s3://reports/daily/')\n"),
        Invalid(_SETUP + "def f():\n    x = orders.persist()\n    return x.count()\n"),
    )
    valid = (
        Valid(_SETUP + "daily = orders.groupBy('day').count().cache()\ndaily.count()\ndaily.write.parquet('s3://r/')\n"),
        Valid(_SETUP + "daily = orders.groupBy('day').count()\ndaily.write.parquet('s3://r/')\n"),
        Valid(_SETUP + "def f():\n    x = orders.cache()\n    return x\n\ndef g(y):\n    return y\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.frames: list = [{}]  # per function: name -> [assign node, reads]

    def visit_FunctionDef(self, node) -> None:
        self.frames.append({})

    def leave_FunctionDef(self, node) -> None:
        self._flush(self.frames.pop())

    def leave_Module(self, node) -> None:
        self._flush(self.frames.pop())

    def _flush(self, frame: dict) -> None:
        for name, (assign, reads) in frame.items():
            if reads <= 1:
                self.ctx.report(
                    self,
                    assign.value,
                    f"`{name}` is cached but read {'once' if reads == 1 else 'never'}: caching costs memory and a slower first action for nothing",
                    help="drop the `cache()`; cache only what two or more actions read",
                    start=assign.value.func.attr,
                )

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if (len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and isinstance(value, cst.Call)
                and method_name(value) in CACHES and not value.args
                and self.ctx.semantic.is_dataframe(value.func.value)):
            self.frames[-1][node.targets[0].target.value] = [node, 0]

    def visit_Name(self, node: cst.Name) -> None:
        frame = self.frames[-1]
        entry = frame.get(node.value)
        if entry is None:
            return
        parent = self.ctx.parent_of(node)
        if isinstance(parent, cst.AssignTarget):
            return
        if isinstance(parent, cst.Return):
            entry[1] += 2  # handed to the caller: it may read it many times
            return
        if isinstance(parent, cst.Attribute) and parent.attr.value == "unpersist":
            return
        entry[1] += 1
