import re

import libcst as cst

from checks.python._driver import shown
from checks.python._fixes import replace, source
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import NA
from linter.semantic.paths import assigns
from linter.sources import NOTEBOOK_KINDS
from linter.sources.notebook import is_cell_marker

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('sales.orders')\n"
)

# DataFrame methods that return a new DataFrame and change nothing in place. Not here: `cache`/`persist`
# (they mark the frame itself), `transform` (its function may write), `alias`, `hint` (no one calls them alone).
_TRANSFORMATIONS = frozenset((
    "withColumn", "withColumns", "withColumnRenamed", "withColumnsRenamed", "drop", "dropDuplicates",
    "drop_duplicates", "dropna", "fillna", "filter", "where", "select", "selectExpr", "join", "crossJoin",
    "union", "unionAll", "unionByName", "distinct", "orderBy", "sort", "sortWithinPartitions", "limit",
    "repartition", "repartitionByRange", "coalesce", "toDF", "replace", "sample", "withWatermark", "exceptAll",
    "subtract", "intersect", "intersectAll", "checkpoint", "localCheckpoint",
))
_NA = frozenset(("fill", "drop", "replace"))  # `df.na.fill(...)`
_CHECKPOINTS = frozenset(("checkpoint", "localCheckpoint"))
_RAISES = re.compile(r"(?i)raises")  # `pytest.raises(...)`, `self.assertRaises(...)`


class DiscardedTransformation(PythonRule):
    """
    ## What it does
    Finds a DataFrame transformation whose result is thrown away: a statement
    that is only `df.withColumn(...)`, `df.filter(...)`, `df.dropDuplicates()`,
    `df.na.fill(...)`, `df.checkpoint()` and the like, on a frame the model
    knows to be a Spark DataFrame (not a pandas one, whose `inplace=True`
    does change it).

    Not reported: in a notebook, the last statement of a cell without a `;`
    (the notebook shows what it makes: looking at it is the point); a
    statement alone in a `try` body, or in one that catches
    `AnalysisException`, or in a `with` block that expects an error (`with
    pytest.raises(AnalysisException): df.select("missing")`: the analysis
    error is what is wanted); test
    modules; `cache()` / `persist()` (they mark the frame itself) and
    `transform(f)` (its function may write).

    ## Why is this bad?
    DataFrames are immutable: every transformation returns a new frame and
    leaves the one it was called on as it was. A `df.withColumn("day",
    ...)` on its own line changes nothing, and the job goes on with `df`
    as it was: the column is missing downstream, the filter filters
    nothing, the duplicates stay. A bare `df.checkpoint()` is worse: it
    runs a job to save the checkpoint, and `df` keeps the whole lineage the
    checkpoint was meant to cut.

    ## Example
    ```python
    orders.dropDuplicates(["order_id"])
    orders.write.mode("overwrite").saveAsTable("mart.orders")
    ```

    ## Use instead
    ```python
    orders = orders.dropDuplicates(["order_id"])
    orders.write.mode("overwrite").saveAsTable("mart.orders")
    ```

    ## Fix safety
    Unsafe: assigning the result back to the name it was called on
    (`orders = orders.dropDuplicates(...)`) changes what the rest of the
    code computes, which is the point, and only the author knows that the
    name, not a new one, was meant. Offered when the frame is a plain name
    the current function binds (a parameter or a local; not a module's
    name, which the assignment would make local, nor a loop's item) and the
    call is not wrapped in parentheses.

    ## References
    - PySpark API: `DataFrame` ("a distributed collection of data ...";
      every transformation "returns a new DataFrame").
    """

    code = "SPK318"
    name = "discarded-transformation"
    skip_in_tests = True
    summary = "a DataFrame transformation on its own line returns a new frame that is thrown away"
    default_reason = ("DataFrames are immutable: `df.withColumn(...)` alone changes nothing and the job goes on "
                      "without the column; a notebook cell's last line, which shows the frame, is left alone")
    triggers = tuple(sorted(_TRANSFORMATIONS | _NA))
    fix = "unsafe"
    doc_setup = 'orders = spark.table("sales.orders")\n'

    invalid = (
        Invalid(_SETUP + "orders.dropDuplicates(['order_id'])\norders.write.mode('overwrite').saveAsTable('mart.orders')\n",
                unsafe=True,
                fixed=_SETUP + "orders = orders.dropDuplicates(['order_id'])\n"
                "orders.write.mode('overwrite').saveAsTable('mart.orders')\n"),
        Invalid(_SETUP + "def clean(df):\n    df.na.fill({'country': 'unknown'})\n    return df\n"),
        Invalid(_SETUP + "def clean(df):\n    df.filter(F.col('amount') > 0).dropDuplicates(['order_id'])\n    return df\n"),
        # in parentheses: reported, with no fix (`(orders = ...)` would not parse)
        Invalid(_SETUP + "(orders\n    .dropDuplicates(['order_id']))\n"),
        # a module's frame in a function: reported, and no fix (the assignment would make `orders` local)
        Invalid(_SETUP + "def publish():\n    orders.dropDuplicates(['order_id'])\n    orders.write.saveAsTable('x')\n",
                unsafe=True, fixed=None),
        Invalid(_SETUP + "def run():\n    try:\n        orders.dropDuplicates(['order_id'])\n"
                "        orders.write.mode('overwrite').saveAsTable('mart.orders')\n    except Exception:\n        raise\n"),
        Invalid(_SETUP + "def add_day(df):\n    df.withColumn('day', F.to_date('ts'))\n    return df.groupBy('day').count()\n"),
        Invalid(_SETUP + "import mlflow\nwith mlflow.start_run():\n    orders.withColumn('score', F.lit(1.0))\n"
                "    orders.write.saveAsTable('scored')\n"),
        Invalid(_SETUP + "spark.sparkContext.setCheckpointDir('/tmp/cp')\nfor i in range(10):\n"
                "    orders = orders.join(orders.select('id'), 'id')\n    orders.checkpoint()\n"),
        # a notebook: a transformation that is not its cell's last statement shows nothing
        Invalid("# Databricks notebook source\n" + _SETUP + "orders.filter('amount > 0')\nprint('done')\n",
                path="clean_orders.py"),
    )
    valid = (
        Valid(_SETUP + "orders = orders.dropDuplicates(['order_id'])\n"),
        Valid(_SETUP + "orders.cache()\norders.count()\n"),
        Valid("import pandas as pd\nframe = pd.read_csv('orders.csv')\nframe.drop(columns=['x'], inplace=True)\n"
              "frame.fillna(0, inplace=True)\n"),
        Valid(_SETUP + "from pyspark.sql.utils import AnalysisException\ntry:\n    orders.select('discount')\n"
              "except AnalysisException:\n    orders = orders.withColumn('discount', F.lit(0.0))\n"),
        Valid(_SETUP + "def test_missing_column_fails(spark):\n    import pytest\n    with pytest.raises(Exception):\n"
              "        spark.table('t').select('nope')\n", path="tests/test_orders.py"),
        # a notebook cell's last statement: the notebook displays it
        Valid("# Databricks notebook source\n" + _SETUP + "orders.filter('amount > 0')\n\n"
              "# COMMAND ----------\n\nprint('next cell')\n", path="explore_orders.py"),
        Valid(_SETUP + "orders.transform(lambda df: df.write.saveAsTable('x'))\n"),
        Valid(_SETUP + "import unittest\nclass T(unittest.TestCase):\n    def check(self):\n"
              "        with self.assertRaises(Exception):\n            orders.select('nope')\n"),
    )

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return
        method = call.func.attr.value
        receiver = call.func.value
        semantic = self.ctx.semantic
        if method in _NA and isinstance(receiver, cst.Attribute) and receiver.attr.value == "na":
            value = semantic.infer(receiver)
            if value is None or value.kind != NA:
                return
            frame = receiver.value
        elif method in _TRANSFORMATIONS and semantic.is_dataframe(receiver):
            frame = receiver
        else:
            return
        if any(a.keyword is not None and a.keyword.value == "inplace" for a in call.args):
            return  # pandas' way of changing a frame in place: not a Spark DataFrame whatever the model says
        if self._guarded() or self._shown():
            return
        root = frame
        while isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute):  # `df` of `df.filter(...).x()`
            root = root.func.value
        name = shown(self.ctx, root)  # `df`, `self.orders`
        called = f"{shown(self.ctx, receiver)}.{method}"
        if method in _CHECKPOINTS:
            message = (f"`{called}()` runs a job to save a checkpoint and returns the frame that reads it, "
                       f"which is thrown away: `{name}` keeps the whole lineage the checkpoint was to cut")
        else:
            message = (f"`{called}({'...' if call.args else ''})` returns a new DataFrame, which is thrown away: "
                       f"DataFrames are immutable, so `{name}` is unchanged")
        fix = None
        # (in parentheses, `(df = ...)` would not parse; a name of an enclosing scope or a loop's item would
        # be rebound here, not there: `orders = orders...` in a function makes a module's `orders` local)
        if isinstance(frame, cst.Name) and not call.lpar and self._own_name(frame.value):
            fix = replace(call, f"{frame.value} = {source(self.ctx, call)}", f"Assign the result to `{frame.value}`",
                          safe=False)
        self.ctx.report(self, call, message, help=f"assign the result: `{name} = {called}(...)`", fix=fix,
                        start=call.func.attr)

    def _own_name(self, name: str) -> bool:
        """Whether assigning ``name`` here rebinds the variable the code reads: bound in this function (or at
        module level, outside any function), and not the item of an enclosing `for` loop."""
        function = None
        for ancestor in self.ctx.ancestors:
            if isinstance(ancestor, cst.For) and isinstance(ancestor.target, cst.Name) and ancestor.target.value == name:
                return False
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
                function = ancestor
        if function is None:
            return True
        if isinstance(function, cst.Lambda):
            return False
        if any(p.name.value == name for p in (*function.params.params, *function.params.kwonly_params,
                                               *function.params.posonly_params)):
            return True
        return assigns(function, name)

    def _guarded(self) -> bool:
        """In a `try` body or a `with` block that expects an error (`pytest.raises`, `assertRaises`): evaluated
        for the error it may raise."""
        ancestors = self.ctx.ancestors
        for i, ancestor in enumerate(ancestors):
            if isinstance(ancestor, cst.With) and any(_RAISES.search(self.ctx.code_for(item.item))
                                                      for item in ancestor.items):
                return True
            if isinstance(ancestor, cst.Try) and i + 1 < len(ancestors) and ancestors[i + 1] is ancestor.body:
                # a probe: the `try` holds this statement alone, or catches the analysis error it may raise
                # (a job's entry point wrapped whole in `try` is not one)
                handlers = " ".join(self.ctx.code_for(h.type) for h in ancestor.handlers if h.type is not None)
                if len(ancestor.body.body) == 1 or "AnalysisException" in handlers:
                    return True
        return False

    def _shown(self) -> bool:
        """In a notebook, the last statement of its cell (at module level): the notebook displays its value."""
        unit = self.ctx.unit
        if unit.document.kind not in NOTEBOOK_KINDS or len(self.ctx.ancestors) < 3:
            return False
        module, line = self.ctx.ancestors[0], self.ctx.ancestors[1]
        body = list(module.body)
        index = next((i for i, s in enumerate(body) if s is line), None)
        if index is None:
            return False  # inside a function or a block: nothing is displayed
        if not isinstance(self.ctx.ancestors[2], cst.Expr) or not isinstance(line, cst.SimpleStatementLine) \
                or line.body[-1] is not self.ctx.ancestors[2] or isinstance(self.ctx.ancestors[2].semicolon, cst.Semicolon):
            return False  # `df.limit(3);`: the semicolon hides the value
        if index == len(body) - 1:
            return True
        # a source notebook (Databricks, Fabric): the next statement starts a cell when a marker comes before it
        if any(line.comment is not None and is_cell_marker(line.comment.value)
               for line in getattr(body[index + 1], "leading_lines", ())):
            return True
        cells = unit.line_map  # a Jupyter notebook's cells joined: each row's cell
        if not cells:
            return False
        rows = _statement_rows(self.ctx, module)
        this, after = rows[index], rows[index + 1]
        return this < len(cells) and after < len(cells) and cells[this][0] != cells[after][0]


def _statement_rows(ctx, module) -> list:
    """The 0-based row of the unit each top-level statement starts on (its first line of code, after its leading
    blank and comment lines); made once per file, and only for a notebook with a bare transformation in it."""
    rows = ctx.memo.get("\0statement rows")
    if rows is None:
        rows = []
        row = len(module.header)
        for statement in module.body:
            leading = len(getattr(statement, "leading_lines", ()))
            rows.append(row + leading)
            row += module.code_for_node(statement).count("\n")
        ctx.memo["\0statement rows"] = rows
    return rows

