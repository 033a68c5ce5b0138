import libcst as cst

from checks.python._driver import shown, small_frame
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import GROUPED, GROUPED_MAPS, literal_string, method_name, positional_args

_SETUP = (
    "import pandas as pd\nfrom pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\nreadings = spark.table('iot.readings')\n"
)
_GROUPINGS = frozenset(("groupBy", "groupby"))


class GroupedMapOfOneGroup(PythonRule):
    """
    ## What it does
    Finds a grouped map (`applyInPandas`, `applyInArrow`, the legacy
    `groupBy(...).apply(grouped_map_udf)`) over a grouping that has one group:
    `groupBy()` with no keys, `groupBy(F.lit(1))`, or keys that are all a
    column the code set to one literal (`withColumn("all", F.lit(1))`, then
    `groupby("all")`). Such code puts the whole DataFrame through a pandas
    function, often to call a library that wants every row at once (a
    correlation matrix, a model fit).

    Not reported: a frame proven small (at most 100,000 rows, or built on the
    driver: `spark.createDataFrame(pdf)`), where one worker holding it is
    fine; a grouping by real keys, however few; pandas' own `groupby().apply`.

    On by default: one group is one task and one Python worker, whatever the
    size of the data, and Spark loads a group whole before calling the
    function.

    ## Why is this bad?
    A grouped map shuffles each group to one task and loads all of its rows
    into memory as one pandas DataFrame (Spark's documentation warns it "can
    lead to out of memory exceptions, especially if the group sizes are
    skewed"). With a single group that is the whole table, on one core of one
    executor: the job runs as fast as one task can, and fails when the data
    outgrows that worker's memory.

    ## Example
    ```python
    corr = (readings.withColumn("all", F.lit(1)).groupby("all")
            .applyInPandas(lambda pdf: pdf.corr(), "a double, b double"))
    ```

    ## Use instead
    ```python
    # compute the statistic with Spark over the whole frame
    corr = readings.select(F.corr("a", "b"))
    ```
    When the function really needs every row, sample first
    (`readings.sample(0.01)`), or group by a real key so that each worker
    holds one key's rows; `mapInPandas` runs a function over batches of
    every partition in parallel.

    ## Fix safety
    No fix: what to compute instead depends on the function.

    ## References
    - PySpark API: `GroupedData.applyInPandas` ("all data for a group will be
      loaded into memory before the function is applied").
    """

    code = "SPK213"
    name = "grouped-map-of-one-group"
    summary = "a grouped map (`applyInPandas`) over one group sends the whole DataFrame to one Python worker"
    default_reason = ("a grouping with one group is one task and one Python worker holding every row in memory, "
                      "whatever the data's size; frames proven small are left alone")
    triggers = ("applyInPandas", "applyInArrow", "apply")
    doc_setup = 'readings = spark.table("iot.readings")\n'

    invalid = (
        Invalid(_SETUP + "corr = (readings.withColumn('all', F.lit(1)).groupby('all')\n"
                "        .applyInPandas(lambda pdf: pdf.corr(), 'a double, b double'))\n"),
        Invalid(_SETUP + "fit = readings.groupBy(F.lit(1)).applyInPandas(lambda pdf: pdf.describe(), 'x double')\n"),
        Invalid(_SETUP + "fit = readings.groupBy().applyInPandas(lambda pdf: pdf.head(1), 'x double')\n"),
        Invalid(_SETUP + "from pyspark.sql.functions import PandasUDFType, pandas_udf\n\n"
                "@pandas_udf('a double, b double', PandasUDFType.GROUPED_MAP)\ndef corr(pdf):\n    return pdf.corr()\n\n"
                "grouped = readings.withColumn('g', F.lit('x')).groupby('g')\nout = grouped.apply(corr)\n"),
    )
    valid = (
        Valid(_SETUP + "per_device = readings.groupBy('device_id').applyInPandas(lambda pdf: pdf.head(1), 'x double')\n"),
        Valid(_SETUP + "small = spark.createDataFrame(pd.read_csv('stations.csv'))\n"
              "fit = small.groupBy(F.lit(1)).applyInPandas(lambda pdf: pdf.describe(), 'x double')\n"),
        Valid(_SETUP + "few = readings.limit(1000).groupBy(F.lit(1)).applyInPandas(lambda pdf: pdf, 'x double')\n"),
        Valid("import pandas as pd\npdf = pd.read_csv('x.csv')\nout = pdf.groupby('k').apply(len)\n"),
        Valid(_SETUP + "by_day = readings.withColumn('day', F.to_date('ts')).groupby('day')"
              ".applyInPandas(lambda pdf: pdf, 'x double')\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in GROUPED_MAPS or not isinstance(node.func, cst.Attribute):
            return
        grouped = node.func.value
        value = self.ctx.semantic.infer(grouped)
        if value is None or value.kind != GROUPED:
            return
        if isinstance(grouped, cst.Name):
            grouped = self.ctx.semantic.assigned_expression(grouped.value)
        if not (isinstance(grouped, cst.Call) and method_name(grouped) in _GROUPINGS):
            return
        frame = grouped.func.value
        if not self._one_group(grouped, frame) or small_frame(self.ctx, frame):
            return
        self.ctx.report(
            self,
            node,
            f"`{shown(self.ctx, grouped)}.{method}(...)` has one group: one task and one Python worker hold the "
            "whole DataFrame in memory as one pandas frame",
            help="compute it with Spark functions over the frame, sample it first, or group by a real key "
                 "(`mapInPandas` runs a function over every partition's batches in parallel)",
            start=node.func.attr,
        )

    def _one_group(self, grouping: cst.Call, frame) -> bool:
        """No keys, or keys that are each one value: `F.lit(...)`, or a column the frame holds one value of."""
        keys = positional_args(grouping)
        if len(keys) != len(grouping.args):
            return False  # keyword or starred keys: not read
        if not keys:
            return True
        few = None
        for key in keys:
            if isinstance(key, cst.Call) and self.ctx.semantic.is_function(key.func, {"lit"}):
                continue
            name = literal_string(key)
            if name is None:
                return False
            if few is None:
                value = self.ctx.semantic.infer(frame)
                few = (value.few if value is not None else None) or {}
            if few.get(name) != 1:
                return False
        return True
