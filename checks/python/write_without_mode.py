import re

import libcst as cst

from checks.python._driver import shown
from checks.python._rerun_safety import (
    _MODELESS_FORMATS,
    emptied_before,
    fresh_each_run,
    record_assignment,
    record_emptied,
    target_key,
    write_info,
)
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic.paths import assigns, parameter_names
from linter.sources import NOTEBOOK_KINDS

_SETUP = (
    "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
    "orders = spark.table('sales.orders')\n"
)


_MAKES_NEW = re.compile(r"_*(?:copy|clone|Copy|Clone)(?:_|[A-Z]|$)")  # `copy_table`, `clone_to`, `copyTable`
_REPLACES = re.compile(r"(?i)replace|overwrite|update|refresh")
# A test of whether a table or path is there: `tableExists`, `is_exists_table`, `os.path.exists`, `isDeltaTable`.
_EXISTS = re.compile(r"(?i)exist|isDeltaTable")


class WriteWithoutMode(PythonRule):
    """
    ## What it does
    Finds a DataFrame write (`df.write...save()`, `parquet()`, `csv()`,
    `json()`, `orc()`, `text()`, `jdbc()`, `saveAsTable()`) that sets no save
    mode: no `.mode(...)` in the chain and no `mode=` argument.

    Not reported: `insertInto` (it appends by default), `df.writeTo(...)`
    (its methods name what they do), a `save()` with no path to a connector
    whose format is not a literal, writers held in a variable (their mode
    may be set elsewhere), Kafka, console, memory and noop sinks, a path made
    new for each run (from `uuid4()`, `now()`, `tempfile.mkdtemp()`, a `tmp_path` ...), a path or
    table the same function deletes first (SPK322 reports that), a path a
    notebook removes in a clean-up cell (`%fs rm -r /tmp/out`,
    `dbutils.fs.rm("/tmp/out", True)`: run top to bottom, each run starts
    without it), a target that is a parameter of a function named for
    copying (`copy_table(df, target_path)`, `clone_*`, `copyTable`; not
    one whose name says it replaces, nor a parameter the function rebinds:
    the caller names a new place, and `errorifexists` is what keeps the
    function from replacing a table the caller did not mean to),
    a write in the branch an existence test takes when the target is not
    there (`if spark.catalog.tableExists(t): ... else:
    df.write.saveAsTable(t)`, `if not DeltaTable.isDeltaTable(spark, p):`),
    and test modules, whose outputs live in fresh temporary directories.

    ## Why is this bad?
    The default save mode is `errorifexists`: the first run works, and every
    later run, including the rerun after a failure half-way, fails with
    `PATH_ALREADY_EXISTS` / `TABLE_OR_VIEW_ALREADY_EXISTS`. A scheduled job
    must say what a second run does: replace the output (`overwrite`), add to
    it (`append`), or leave it alone (`ignore`).

    ## Example
    ```python
    orders.write.partitionBy("order_date").parquet("s3://curated/orders/")
    ```

    ## Use instead
    ```python
    orders.write.mode("overwrite").partitionBy("order_date").parquet("s3://curated/orders/")
    ```

    ## Fix safety
    No fix: whether a second run replaces or adds to the output is the author's choice.

    ## References
    - Spark SQL guide, "Generic Load/Save Functions", "Save Modes" (`errorifexists` is the default).
    - PySpark API: `DataFrameWriter.mode`.
    """

    code = "SPK323"
    skip_in_tests = True
    name = "write-without-mode"
    summary = "a write with no save mode fails on the second run (`errorifexists`)"
    default_reason = ("the default save mode `errorifexists` lets the first run work and fails every later "
                      "one, the rerun after a failure included; paths made new for each run are not reported")
    triggers = ("write",)
    doc_setup = 'orders = spark.table("sales.orders")\n'

    invalid = (
        Invalid(_SETUP + "def publish(df, table):\n    if spark.catalog.tableExists(table):\n"
                "        df.write.saveAsTable(table)\n"),
        Invalid(_SETUP + "orders.write.parquet('s3://curated/orders/')\n"),
        Invalid(_SETUP + "orders.write.format('delta').partitionBy('day').saveAsTable('curated.orders')\n"),
        Invalid("from pyspark.sql import DataFrame\n\ndef export(df, path):\n    df.write.option('header', True).csv(path)\n"),
        # a copy whose target the function fixes itself (a rerun fails on its own last output), one that says it
        # replaces, and a `create_*` (a job's step, rerun every day)
        Invalid("from pyspark.sql import DataFrame\n\ndef copy_latest(df: DataFrame, target_path: str):\n"
                "    target_path = 's3://backup/latest'\n    df.write.format('delta').save(target_path)\n"),
        Invalid("from pyspark.sql import DataFrame\n\ndef copy_or_replace_table(df: DataFrame, name: str):\n"
                "    df.write.format('delta').saveAsTable(name)\n"),
        Invalid("from pyspark.sql import DataFrame\n\ndef create_features(df: DataFrame, output_path: str):\n"
                "    df.groupBy('user_id').count().write.parquet(output_path)\n"),
        Invalid("from pyspark.sql import DataFrame\n\ndef copy_orders(df: DataFrame):\n"
                "    df.write.format('delta').save('s3://backup/orders')\n"),
        Invalid(_SETUP + "orders.write.jdbc(url, 'public.orders', properties=props)\n"),
        # a job (not a notebook) that removes the output at its end: a rerun after a failure finds it there
        Invalid(_SETUP + "orders.write.csv('/tmp/wordcounts.csv')\ndbutils.fs.rm('/tmp/wordcounts.csv', True)\n"),
    )
    valid = (
        Valid(_SETUP + "def publish(df, table):\n    if spark.catalog.tableExists(table):\n"
              "        df.write.insertInto(table, overwrite=True)\n    else:\n"
              "        df.write.partitionBy('dt').saveAsTable(table)\n"),
        Valid(_SETUP + "from delta.tables import DeltaTable\ndef first_load(df, path):\n"
              "    if not DeltaTable.isDeltaTable(spark, path):\n        df.write.format('delta').save(path)\n"),
        Valid(_SETUP + "orders.write.mode('overwrite').parquet('s3://curated/orders/')\n"),
        Valid(_SETUP + "orders.write.parquet('s3://curated/orders/', mode='append')\n"),
        Valid(_SETUP + "orders.write.saveAsTable('curated.orders', 'delta', 'overwrite')\n"),
        Valid(_SETUP + "orders.write.insertInto('curated.orders')\n"),
        Valid(_SETUP + "orders.writeTo('curated.orders').append()\n"),
        Valid(_SETUP + "writer = orders.write.format('delta')\nwriter.mode('append')\nwriter.save('s3://x')\n"),
        Valid(_SETUP + "orders.write.format(BIGTABLE).options(catalog=catalog).save()\n"),
        Valid(_SETUP + "orders.write.format('kafka').option('topic', 'orders').save()\n"),
        Valid(_SETUP + "import uuid\norders.write.parquet(f's3://scratch/{uuid.uuid4()}')\n"),
        Valid(_SETUP + "import os, tempfile\ndata = tempfile.mkdtemp()\norders.write.parquet(os.path.join(data, 'o'))\n"),
        Valid(_SETUP + "dbutils.fs.rm('/mnt/out/orders', True)\norders.write.parquet('/mnt/out/orders')\n"),
        Valid(_SETUP + "import shutil\nshutil.rmtree('/tmp/out/orders', ignore_errors=True)\n"
              "orders.write.parquet('/tmp/out/orders')\n"),
        Valid(_SETUP + "orders.write.parquet(tmp_path)\n", path="tests/test_export.py"),
        # a function that makes a new table or copy where its caller says: it must not replace one
        Valid("from pyspark.sql import DataFrame\n\ndef copy_table(df: DataFrame, target_path: str):\n"
              "    df.write.format('delta').save(target_path)\n"),
        Valid("from pyspark.sql import DataFrame\n\ndef cloneTable(df: DataFrame, name):\n"
              "    df.write.saveAsTable(name)\n"),
        Valid("import pandas as pd\nframe = pd.DataFrame()\nframe.write.parquet('out')\n"),
        # a notebook's clean-up cell removes the output: the next run starts without it
        Valid("# Databricks notebook source\n" + _SETUP + "orders.write.csv('/tmp/wordcounts.csv')\n\n"
              "# COMMAND ----------\n\n# MAGIC %fs rm -r /tmp/wordcounts.csv\n", path="wordcount.py"),
    )

    def _cleaned_up(self, key: str) -> bool:
        """A notebook that removes the path anywhere (`%fs rm -r /tmp/out`, `dbutils.fs.rm("/tmp/out", True)`,
        in a clean-up cell): run top to bottom, each run starts without the output."""
        document = self.ctx.unit.document
        if document.kind not in NOTEBOOK_KINDS or "/" not in key:
            return False
        path = re.escape(key.rstrip("/")) + r"/?"
        return re.search(rf"%fs\s+rm\s+(?:-r\s+)?(?:dbfs:)?{path}(?=[\s\\\"']|$)"
                         rf"|\.fs\.rm\(\s*\\?[\"']{path}\\?[\"']\s*,\s*(?:recurse\s*=\s*)?True",
                         document.text) is not None

    def _new_target(self, target) -> bool:
        """The target is a parameter of the function around the write, whose name says it copies (`copy_*`,
        `clone_*`, `copyTable`): the caller names a new place, and `errorifexists` keeps the caller's data from
        being replaced when the place is taken."""
        if target is None or target.__class__ is not cst.Name:
            return False
        function = self.ctx.function
        if function is None or not _MAKES_NEW.match(function.name.value) or _REPLACES.search(function.name.value):
            return False  # (`copy_or_replace_table` says it replaces)
        names = parameter_names(function)
        # the caller's place, as given: a parameter the function rebinds (`target = "s3://backup/x"`) is its own
        return target.value in names and not assigns(function, target.value)

    def _when_absent(self) -> bool:
        """Whether the write runs only when its target does not exist: in the `else` of an `if` that tests for it
        (`if spark.catalog.tableExists(t):`, `if is_exists_table:`, `if os.path.exists(p):`), or in the body of
        one that tests for its absence (`if not DeltaTable.isDeltaTable(spark, p):`)."""
        ancestors = self.ctx.ancestors
        for i in range(len(ancestors) - 2, -1, -1):
            branch = ancestors[i]
            if not isinstance(branch, cst.If):
                continue
            test = branch.test
            negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
            if not _EXISTS.search(self.ctx.code_for(test.expression if negated else test)):
                continue
            inside = ancestors[i + 1]
            in_else = isinstance(inside, cst.Else) or (isinstance(inside, cst.If) and inside is branch.orelse)
            return in_else != negated
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        record_assignment(self.ctx, node)

    def visit_Call(self, node: cst.Call) -> None:
        record_emptied(self.ctx, node)
        info = write_info(self.ctx, node)
        if info is None or info.v2 or info.method == "insertInto" or info.dataframe is None:
            return
        if info.mode() is not None or info.format() in _MODELESS_FORMATS:
            return
        target = info.target()
        if target is None and info.format() is None:
            return  # `format(CONNECTOR).options(...).save()`: the connector decides what a mode means
        if fresh_each_run(self.ctx, target):
            return  # `f"s3://scratch/{uuid4()}"`: a new place each run
        key = target_key(self.ctx, target)
        if emptied_before(self.ctx, key) is not None:
            return  # deleted just before: no longer there on a rerun (SPK322's concern)
        if key is not None and self._cleaned_up(key):
            return  # a notebook whose clean-up cell removes the output: the next run writes it afresh
        if self._new_target(target):
            return  # `def copy_table(df, target_path)`: refusing a target that exists is the function's promise
        if self._when_absent():
            return  # `if table_exists(...): ... else: df.write.saveAsTable(t)`: written only where nothing is
        where = f"`{shown(self.ctx, target)}`" if target is not None else "the output"
        kind = "table" if info.method == "saveAsTable" or info.method == "jdbc" else "path"
        self.ctx.report(
            self,
            node,
            f"`{info.method}` with no save mode: the default `errorifexists` fails once {where} exists, "
            f"so a second run of the job (or a rerun after a failure) stops here",
            help=f"say what a rerun does to the {kind}: `.mode(\"overwrite\")`, `.mode(\"append\")` or `.mode(\"ignore\")`",
            start=node.func.attr,
        )
