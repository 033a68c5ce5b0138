import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from checks.python._driver import for_a_driver_frame
from linter.semantic import method_name

_SETUP = (
    "from pyspark.sql import SparkSession, Window\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)
_WINDOW = ("pyspark.sql.Window", "pyspark.sql.window.Window")


# Nodes whose names are bound or declared there, not read.
_NAMING = frozenset((cst.Param, cst.FunctionDef, cst.ClassDef, cst.ImportAlias, cst.AsName))

class WindowWithoutPartition(PythonRule):
    """
    ## What it does
    Finds window specifications built from `Window` without a
    `partitionBy(...)` of at least one column: `Window.orderBy("ts")`,
    `Window.rowsBetween(...)`, `Window.partitionBy()`. A window assigned to a
    name and partitioned later in the same function (`w = Window.orderBy("ts")`
    then `w = w.partitionBy("country")`) is not reported, nor one assigned to
    a name that nothing in the file reads: a window specification is only a
    description, and moves no row until an `over(...)` of it runs. Nor is a
    window used only for frames the driver built (`spark.createDataFrame(pdf)`,
    literal rows): their rows fit on the driver, and one task sorts them.

    ## Why is this bad?
    A window without partitions puts every row into a single partition and a
    single task, to be sorted and scanned on one core. Spark says so in its
    log ("No Partition Defined for Window operation! Moving all data to a
    single partition, this can cause serious performance degradation").

    ## Example
    ```python
    ranked = orders.withColumn("rank", F.row_number().over(Window.orderBy(F.desc("amount"))))
    ```

    ## Use instead
    ```python
    ranked = orders.withColumn(
        "rank", F.row_number().over(Window.partitionBy("country").orderBy(F.desc("amount")))
    )
    ```
    For a global top-N use `orderBy(...).limit(n)`; for a global row id,
    `F.monotonically_increasing_id()`. For quantile bins of the whole frame
    (`ntile(n)`, `percent_rank()`, or `row_number()` divided by `count()`, a
    pandas `qcut` written in Spark), no key can partition the window: take
    the cut points from `df.approxQuantile(col, probabilities, error)` or
    `QuantileDiscretizer`, one pass over the data in parallel, and bin with
    `when(...)` or `Bucketizer`.

    ## Fix safety
    No fix: the partitioning is a change of meaning.

    ## References
    - Spark's `WindowExec` warning, quoted above.
    """

    code = "SPK404"
    name = "window-without-partition"
    summary = "a window without `partitionBy` moves all rows into one partition"
    default_reason = ("a window without `partitionBy` moves every row into one partition, sorted on one core, "
                      "as Spark's own log warns; a window partitioned later in the function is left alone")
    triggers = ("Window",)
    doc_setup = 'from pyspark.sql import Window\norders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "r = orders.limit(50_000_000).withColumn('n', F.row_number().over(Window.orderBy('ts')))\n"),
        Invalid(_SETUP + "w = Window.orderBy('ts')\nr = orders.withColumn('prev', F.lag('amount').over(w))\n"),
        Invalid(_SETUP + "w = Window.partitionBy().orderBy('ts').rowsBetween(-1, 0)\n"
                "r = orders.withColumn('s', F.sum('amount').over(w))\n"),
        Invalid(_SETUP + "w = Window.orderBy('ts')\n\ndef ranked(df):\n    return df.withColumn('n', F.row_number().over(w))\n"),
        Invalid(_SETUP + "r = orders.withColumn('n', F.row_number().over(Window.orderBy(F.desc('amount'))))\n"),
        Invalid(_SETUP + "w = Window.orderBy('ts')\nv = w.rowsBetween(-1, 0)\n"),
        Invalid(_SETUP + "import pandas as pd\nw = Window.orderBy('ts')\n"
                "small = spark.createDataFrame(pd.read_csv('x.csv')).withColumn('n', F.row_number().over(w))\n"
                "big = orders.withColumn('n', F.row_number().over(w))\n"),
    )
    valid = (
        Valid(_SETUP + "w = Window.partitionBy('country').orderBy('ts')\n"),
        Valid(_SETUP + "w = Window.orderBy('ts').partitionBy('country')\n"),
        Valid(_SETUP + "def ranked(df, keys):\n    w = Window.orderBy('ts')\n    if keys:\n"
              "        w = w.partitionBy(*keys)\n    return df.withColumn('n', F.row_number().over(w))\n"),
        # defined and never read: no `over()` runs it (a snippet, or code left behind)
        Valid(_SETUP + "w = Window.orderBy('ts')\n"),
        Valid(_SETUP + "def f(df):\n    w = Window.orderBy('ts')\n    return df.count()\n"),
        Valid("class Window:\n    @staticmethod\n    def orderBy(x):\n        return x\nw = Window.orderBy('a')\n"),
        Valid(_SETUP + "import pandas as pd\npdf = pd.read_csv('indicators.csv')\n"
              "w = Window.orderBy(F.col('date').cast('long')).rangeBetween(-90 * 86400, 0)\n"
              "vol = spark.createDataFrame(pdf).select('date', F.avg('x').over(w).alias('m'))\n"),
        Valid(_SETUP + "rows = spark.createDataFrame([(1, 'a'), (2, 'b')], 'n int, s string')\n"
              "r = rows.withColumn('k', F.row_number().over(Window.orderBy('n')))\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.frames: list = [{}]  # per function (the module first): name -> the windows assigned to it, unpartitioned
        self.reads: list = [set()]  # per function (the module first): the names read in it and in what it nests
        # (but in `.over(name)` of a column made for a frame built on the driver: one that fits there sorts there)

    def visit_FunctionDef(self, node) -> None:
        self.frames.append({})
        self.reads.append(set())

    def leave_FunctionDef(self, node) -> None:
        reads = self.reads.pop()
        self._flush(self.frames.pop(), reads)
        self.reads[-1] |= reads  # a closure reading the module's window uses it

    def leave_Module(self, node) -> None:
        self._flush(self.frames.pop(), self.reads.pop())

    def _flush(self, frame: dict, reads: set) -> None:
        for name, nodes in frame.items():
            if name not in reads:
                continue  # never read: a specification no `over()` runs moves no row
            for node in nodes:
                self._report(node)

    def visit_Name(self, node: cst.Name) -> None:
        parent = self.ctx.parent_of(node)
        cls = parent.__class__  # exact classes: libcst's are ABCs, slow to test, and none has subclasses
        if cls is cst.AssignTarget and parent.target is node or cls is cst.Attribute and parent.attr is node or \
                cls is cst.Arg and parent.keyword is node or cls in _NAMING:
            return
        if cls is cst.Arg and self._over_a_driver_frame(parent):
            return
        self.reads[-1].add(node.value)

    def _over_a_driver_frame(self, arg: cst.Arg) -> bool:
        """Whether ``arg`` is the window of an `.over(...)` whose column is made for a frame the driver built."""
        over = self.ctx.parent_of(arg)
        return isinstance(over, cst.Call) and method_name(over) == "over" and for_a_driver_frame(self.ctx, over)

    def visit_Assign(self, node: cst.Assign) -> None:
        """`w = w.partitionBy(...)`: the window assigned to `w` earlier is partitioned after all."""
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        name, inner = node.targets[0].target.value, node.value
        partitioned = False
        while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute):
            partitioned = partitioned or method_name(inner) == "partitionBy" and bool(inner.args)
            inner = inner.func.value
        if partitioned and isinstance(inner, cst.Name) and inner.value == name and name in self.frames[-1]:
            self.frames[-1][name] = []

    def _report(self, node) -> None:
        self.ctx.report(
            self,
            node,
            "a window without `partitionBy` sends every row to one partition, sorted and scanned by one task",
            help="partition the window by a key (`Window.partitionBy(key).orderBy(...)`); "
            "for a global top-N use `orderBy(...).limit(n)`; for quantile bins of the whole frame (`ntile`, "
            "`percent_rank`, `row_number()` over `count()`) take the cut points from `approxQuantile` or "
            "`QuantileDiscretizer` and bin with `when` or `Bucketizer`",
        )

    def visit_Call(self, node: cst.Call) -> None:
        parent = self.ctx.parent_of(node)
        if isinstance(parent, cst.Attribute) and isinstance(self.ctx.parent_of(parent), cst.Call) \
                and self.ctx.parent_of(parent).func is parent:
            return  # not the outermost call of the chain
        partitioned, inner = False, node
        while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute):
            if method_name(inner) == "partitionBy" and inner.args:
                partitioned = True
            inner = inner.func.value
        if inner is node or self.ctx.semantic.qualified_name(inner) not in _WINDOW or partitioned:
            return
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
            # `w = Window.orderBy(...)`: reported at the end of the scope unless `w = w.partitionBy(...)` follows
            self.frames[-1].setdefault(parent.targets[0].target.value, []).append(node)
            return
        if isinstance(parent, cst.Arg) and self._over_a_driver_frame(parent):
            return
        self._report(node)
