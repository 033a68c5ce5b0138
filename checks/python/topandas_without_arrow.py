import re

import libcst as cst

from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import (
    DATAFRAME,
    keyword_arg,
    literal_string,
    method_name,
    positional_args,
)

_SETUP = (
    "from pyspark.sql import SparkSession\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)
ARROW = "spark.sql.execution.arrow.pyspark.enabled"  # Spark 3.0+
LEGACY = "spark.sql.execution.arrow.enabled"  # Spark 2.3-2.4; a deprecated fallback of ARROW since 3.0
_FEW_ROWS = 10_000
_SET = re.compile(r"^\s*SET\s+(spark\.sql\.execution\.arrow(?:\.pyspark)?\.enabled)\s*=\s*(\w+)\s*;?\s*$", re.IGNORECASE)


def _value(node):
    text = literal_string(node)
    if text is not None:
        return text.strip().lower()
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value.lower()
    return None


class TopandasWithoutArrow(PythonRule):
    """
    ## What it does
    Finds `toPandas()` of a DataFrame in a file that switches Arrow off
    (`spark.sql.execution.arrow.pyspark.enabled` set to `false`, or, without
    it, Spark 2's `spark.sql.execution.arrow.enabled` set to `false`), in the
    session builder, `spark.conf.set`, `SparkConf().set` or a
    `spark.sql("SET ...")`. When the target Spark (`target-spark`) is older
    than 3.0 it also reports a `toPandas()` in a file that never switches
    Arrow on with the key Spark 2 reads (`spark.sql.execution.arrow.enabled`),
    where Arrow is off by default. A DataFrame proven to hold few rows
    (`limit(100)`) is not reported.

    With `--preview`, and a `target-spark` from 3.0 to 4.1, a `toPandas()` in
    a file that never sets `spark.sql.execution.arrow.pyspark.enabled` is
    reported too: Arrow is off by default in Apache Spark before 4.2 (4.2
    switches it on; PySpark's migration guide). It stays in preview because
    the setting usually lives outside the file (`spark-defaults.conf`, the
    cluster's configuration) and Databricks runtimes switch it on by default
    (a file that mentions Databricks, a Databricks notebook above all, is
    not reported for it).

    On by default: a setting written in the same file is evidence enough, and
    the older-Spark case applies only when `target-spark` says so. A file
    that only reads these keys from a variable is not reported for not
    switching Arrow on.

    ## Why is this bad?
    Without Arrow, `toPandas()` collects every row as pickled Python `Row`
    objects, which the driver then unpickles and turns into a pandas frame
    one value at a time: often ten to a hundred times slower than Arrow's
    columnar batches, and with several copies of the data in driver memory
    at once. With Arrow on, the executors send column batches that pandas
    adopts almost as they are.

    ## Example
    ```python
    spark.conf.set("spark.sql.execution.arrow.pyspark.enabled", "false")
    report = orders.groupBy("day").count().toPandas()
    ```

    ## Use instead
    ```python
    spark.conf.set("spark.sql.execution.arrow.pyspark.enabled", "true")
    report = orders.groupBy("day").count().toPandas()
    ```
    Keep `spark.sql.execution.arrow.pyspark.fallback.enabled` (on by
    default) for the column types Arrow does not convert. On Spark 2.3-2.4
    the key is `spark.sql.execution.arrow.enabled`.

    ## Fix safety
    No fix: Arrow converts some types differently (timestamps to the session
    time zone, nested types), which a job may depend on.

    ## References
    - PySpark user guide, "Apache Arrow in PySpark" ("Enabling for
      Conversion to/from Pandas").
    """

    code = "SPK110"
    name = "topandas-without-arrow"
    summary = "`toPandas()` with Arrow switched off converts every row through pickled Python objects"
    default_reason = ("with Arrow switched off, `toPandas()` moves every row to the driver as pickled objects, "
                      "often ten to a hundred times slower; the setting in the same file is the evidence")
    skip_in_tests = True
    triggers = ("toPandas",)
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "spark.conf.set('spark.sql.execution.arrow.pyspark.enabled', 'false')\n"
                "pdf = orders.groupBy('day').count().toPandas()\n"),
        Invalid("from pyspark.sql import SparkSession\n\ndef report(df):\n    return df.toPandas()\n\n"
                "spark = SparkSession.builder.config('spark.sql.execution.arrow.enabled', False).getOrCreate()\n"),
        Invalid(_SETUP + "spark.sql('SET spark.sql.execution.arrow.pyspark.enabled=false')\npdf = orders.toPandas()\n"),
        # Arrow is off by default before Spark 4.2 (preview: the setting usually lives outside the file)
        Invalid(_SETUP + "pdf = orders.toPandas()\n", preview=True),
    )
    valid = (
        Valid(_SETUP + "spark.conf.set('spark.sql.execution.arrow.pyspark.enabled', 'true')\npdf = orders.toPandas()\n"),
        Valid(_SETUP + "pdf = orders.toPandas()\n", preview=False),  # by default: only a setting in the file
        Valid(_SETUP + "spark.conf.set('spark.sql.execution.arrow.pyspark.enabled', 'false')\n"
              "pdf = orders.limit(100).toPandas()\n"),
        Valid(_SETUP + "spark.conf.set('spark.sql.execution.arrow.enabled', 'false')\n"
              "spark.conf.set('spark.sql.execution.arrow.pyspark.enabled', 'true')\npdf = orders.toPandas()\n"),
        Valid("import pandas as pd\nimport pyspark\nspark_conf = {'spark.sql.execution.arrow.pyspark.enabled': 'false'}\n"
              "pdf = pd.read_csv('x.csv')\nrows = pdf.toPandas()\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.settings: dict = {}  # key -> last literal value written in the file
        self.calls: list = []

    def _setting(self, key_node, value_node) -> None:
        key = literal_string(key_node)
        if key in (ARROW, LEGACY):
            value = _value(value_node)
            self.settings[key] = value if value is not None else "?"

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        args = positional_args(node)
        if method in ("config", "set") and len(args) >= 2:
            self._setting(args[0], args[1])
        elif method == "config" and keyword_arg(node, "key") is not None and keyword_arg(node, "value") is not None:
            self._setting(keyword_arg(node, "key"), keyword_arg(node, "value"))
        elif method == "config" and isinstance(keyword_arg(node, "map"), cst.Dict):
            for element in keyword_arg(node, "map").elements:
                if isinstance(element, cst.DictElement):
                    self._setting(element.key, element.value)
        elif method == "setAll" and args and isinstance(args[0], (cst.List, cst.Tuple)):
            for element in args[0].elements:
                if isinstance(element.value, cst.Tuple) and len(element.value.elements) == 2:
                    self._setting(element.value.elements[0].value, element.value.elements[1].value)
        elif method == "sql" and args:
            m = _SET.match(literal_string(args[0]) or "")
            if m:
                self.settings[m.group(1).lower()] = m.group(2).lower()
        elif method == "toPandas" and not node.args:
            value = self.ctx.semantic.infer(node.func.value)
            if value is not None and value.kind == DATAFRAME and \
                    not (isinstance(value.bound, int) and value.bound <= _FEW_ROWS):
                self.calls.append(node)

    def leave_Module(self, node) -> None:
        if not self.calls:
            return
        spark2 = self.ctx.settings.target_spark < (3, 0)
        arrow, legacy = self.settings.get(ARROW), self.settings.get(LEGACY)
        if spark2:
            if legacy == "false":
                why = f"`{LEGACY}` is set to false in this file"
            elif legacy is None and not re.search(r"arrow\.(?:pyspark\.)?enabled", self.ctx.code_for(node)):
                why = f"Arrow is off by default before Spark 3.0 and this file never sets `{LEGACY}`"
                if arrow is not None:
                    why += f" (`{ARROW}` is Spark 3's key)"
            else:
                return
            help = f"set `{LEGACY}` to true (Spark 2.3+; `{ARROW}` from Spark 3.0)"
        else:
            effective, key = (arrow, ARROW) if arrow is not None else (legacy, LEGACY)
            help = f"set `{ARROW}` to true (the fallback to the non-Arrow path stays on for unsupported types)"
            if effective == "false":
                why = f"`{key}` is set to false in this file"
            elif (effective is None and self.ctx.settings.preview and self.ctx.settings.target_spark < (4, 2)
                  and not re.search(r"arrow\.(?:pyspark\.)?enabled", self.ctx.code_for(node))
                  and "databricks" not in self.ctx.unit.document.text.lower()):  # Databricks switches it on
                why = (f"Arrow is off by default before Spark 4.2 and this file never sets `{ARROW}`; "
                       "Databricks runtimes switch it on")
                help += ", in the session's configuration or `spark-defaults.conf`"
            else:
                return
        for call in self.calls:
            self.ctx.report(
                self,
                call,
                f"`{shown(self.ctx, call.func.value)}.toPandas()` without Arrow ({why}): every row is pickled, "
                "shipped and unpickled one value at a time",
                help=help,
                start=call.func.attr,
            )
