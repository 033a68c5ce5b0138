import libcst as cst

from linter.registry import Invalid, Option, PythonRule, Valid
from linter.semantic import method_name

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)
_PROJECTIONS = frozenset({"withColumn", "withColumnRenamed", "select", "selectExpr", "drop"})


class WithcolumnInLoop(PythonRule):
    """
    ## What it does
    Finds a DataFrame rebuilt with `withColumn`, `withColumnRenamed`, `select`,
    `selectExpr` or `drop` inside a loop (`df = df.withColumn(c, ...)` for each
    column), and chains of more than `max-chain` consecutive `withColumn` /
    `withColumnRenamed` calls.

    ## Why is this bad?
    Every call adds a projection to the logical plan and is analysed on its
    own. A loop over a hundred columns makes a plan a hundred levels deep:
    analysis and optimisation become slow (minutes in the driver before any
    task runs) and very deep plans end in a `StackOverflowError`. PySpark's
    own documentation of `withColumn` warns about exactly this.

    ## Example
    ```python
    for c in ["price", "tax", "discount"]:
        orders = orders.withColumn(c, F.col(c).cast("double"))
    ```

    ## Use instead
    ```python
    orders = orders.withColumns({c: F.col(c).cast("double") for c in ["price", "tax", "discount"]})
    ```
    Before Spark 3.3: one `select` with all the columns.

    ## Fix safety
    No fix yet; merging the calls into one `withColumns` is unsafe when a later
    column reads one defined earlier in the chain, and will be offered only
    where they are independent.

    ## Options
    - `max-chain` (int, default 10): the longest chain of `withColumn` calls
      that is not reported.

    ## References
    - PySpark API: `DataFrame.withColumn` ("calling it multiple times, for
      instance, via loops ... can generate big plans which can cause
      performance issues and even StackOverflowException").
    """

    code = "SPK401"
    name = "withcolumn-in-loop"
    summary = "a DataFrame rebuilt with `withColumn` in a loop or a long chain"
    min_spark = "3.3"
    triggers = ("withColumn", "select", "drop")
    options = {"max-chain": Option(10, "The longest `withColumn` chain that is not reported.")}
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "for c in ['price', 'tax']:\n    orders = orders.withColumn(c, F.col(c).cast('double'))\n"),
        Invalid(_SETUP + "for old, new in [('a', 'b')]:\n    orders = orders.withColumnRenamed(old, new)\n"),
        Invalid(_SETUP + "out = orders" + "".join(f".withColumn('c{i}', F.lit({i}))" for i in range(12)) + "\n"),
        Invalid(
            "from pyspark.sql import DataFrame\n"
            "def add(df: DataFrame, names):\n    i = 0\n    while i < len(names):\n"
            "        df = df.withColumn(names[i], df.x + i)\n        i += 1\n    return df\n"
        ),
    )
    valid = (
        Valid(_SETUP + "orders = orders.withColumns({c: F.col(c).cast('double') for c in ['price', 'tax']})\n"),
        Valid(_SETUP + "out = orders" + "".join(f".withColumn('c{i}', F.lit({i}))" for i in range(5)) + "\n"),
        Valid(_SETUP + "for t in ['a', 'b']:\n    df = spark.table(t).withColumn('src', F.lit(t))\n    df.write.saveAsTable(t + '_x')\n"),
        Valid("rows = []\nfor r in items:\n    rows = rows.select(r)\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.loops: list = []

    def _enter(self, node) -> None:
        self.loops.append(node)

    def _leave(self, node) -> None:
        self.loops.pop()

    visit_For = visit_While = _enter
    leave_For = leave_While = _leave

    def visit_FunctionDef(self, node) -> None:
        self.loops.append(None)

    def leave_FunctionDef(self, node) -> None:
        self.loops.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self.loops or self.loops[-1] is None or len(node.targets) != 1:
            return
        target = node.targets[0].target
        call = node.value
        if not isinstance(target, cst.Name) or not isinstance(call, cst.Call):
            return
        method = method_name(call)
        if method not in _PROJECTIONS:
            return
        root = call.func.value
        while isinstance(root, cst.Call) and method_name(root) in _PROJECTIONS:
            root = root.func.value
        if not (isinstance(root, cst.Name) and root.value == target.value):
            return
        if not self.ctx.semantic.is_dataframe(root):
            return
        self.ctx.report(
            self,
            call,
            f"`{target.value} = {target.value}.{method}(...)` in a loop adds one projection to the plan per "
            "iteration: deep plans analyse slowly and can overflow the stack",
            help=self._advice(),
            start=call.func.attr,
        )

    def _advice(self) -> str:
        if self.ctx.settings.target_spark >= (3, 3):
            return "build the columns first and apply them at once with `withColumns({...})` (or one `select`)"
        return "build the columns first and apply them in one `select` (`withColumns` needs Spark 3.3)"

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) not in ("withColumn", "withColumnRenamed"):
            return
        parent = self.ctx.parent_of(node)
        if isinstance(parent, cst.Attribute) and parent.attr.value in ("withColumn", "withColumnRenamed"):
            return  # not the outermost call of the chain
        length, inner = 0, node
        while isinstance(inner, cst.Call) and method_name(inner) in ("withColumn", "withColumnRenamed"):
            length += 1
            inner = inner.func.value
        if length <= self.opts["max-chain"] or not self.ctx.semantic.is_dataframe(inner):
            return
        self.ctx.report(
            self,
            node,
            f"a chain of {length} `withColumn` calls adds {length} projections to the plan",
            help=self._advice(),
        )
