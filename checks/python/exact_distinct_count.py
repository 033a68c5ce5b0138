import libcst as cst

from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import DATAFRAME, method_name

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\nevents = spark.table('events')\n"
)
_DEDUP = ("distinct", "dropDuplicates", "drop_duplicates")
_FEW_ROWS = 10_000


class ExactDistinctCount(PythonRule):
    """
    ## What it does
    Finds `df.distinct().count()` (and `dropDuplicates().count()` without a
    subset) on a DataFrame, and says when the same scope counts distinct
    values of the same DataFrame more than once that way. A DataFrame proven
    to hold few rows (`limit(100)`) is not reported, nor a count compared
    with `==` / `!=` (a uniqueness test: only the exact number will do).

    Preview (`--preview`): whether an exact count is needed is a question
    about the job's purpose, which the file does not answer. Where it is
    needed, `distinct().count()` of one column is as good as it gets.

    ## Why is this bad?
    An exact distinct count shuffles every distinct row across the cluster
    (one aggregation by all the selected columns) before a second
    aggregation counts them. `approx_count_distinct` (HyperLogLog++, within
    5% by default) keeps a small sketch per partition and shuffles only the
    sketches: one pass, no exchange of the values. And every
    `distinct().count()` is its own job over the source: counting the
    distinct values of three columns that way reads the data three times,
    where one `agg` with three `countDistinct` reads it once.

    ## Example
    ```python
    users = events.select("user_id").distinct().count()
    ```

    ## Use instead
    ```python
    users = events.agg(F.approx_count_distinct("user_id").alias("users")).first()["users"]
    ```
    If the exact number is needed and several columns are counted, one
    aggregation: `events.agg(F.countDistinct("user_id"), F.countDistinct("session_id"))`.
    `countDistinct` ignores nulls, where `distinct().count()` counts a null
    as one more value.

    ## Fix safety
    No fix: an estimate is not the exact number, and `countDistinct` differs
    on nulls.

    ## References
    - PySpark API: `pyspark.sql.functions.approx_count_distinct` ("maximum
      relative standard deviation allowed (default = 0.05)").
    """

    code = "SPK415"
    name = "exact-distinct-count"
    summary = "`distinct().count()` shuffles every distinct row where an estimate or one aggregation serves"
    preview = True
    skip_in_tests = True
    triggers = _DEDUP
    doc_setup = 'from pyspark.sql import functions as F\nevents = spark.table("events")\n'

    invalid = (
        Invalid(_SETUP + "users = events.select('user_id').distinct().count()\n"),
        Invalid(_SETUP + "n = events.dropDuplicates().count()\n"),
        Invalid(_SETUP + "def stats(df):\n    users = df.select('user_id').distinct().count()\n"
                "    sessions = df.select('session_id').distinct().count()\n"
                "    df.write.parquet('s3://x/')\n    return users, sessions\n", count=2),
    )
    valid = (
        Valid(_SETUP + "users = events.agg(F.approx_count_distinct('user_id')).first()[0]\n"),
        Valid(_SETUP + "n = events.dropDuplicates(['user_id']).count()\n"),
        Valid(_SETUP + "n = events.limit(100).distinct().count()\n"),
        Valid(_SETUP + "unique = events.select('id').distinct().count() == events.count()\n"),
        Valid("items = [1, 1, 2]\nn = items.distinct().count()\n"),
        Valid("import pandas as pd\npdf = pd.read_csv('x.csv')\nn = pdf.drop_duplicates().count()\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.frames: list = [{}]  # per function (the module first): base source -> times counted

    def visit_FunctionDef(self, node) -> None:
        self.frames.append({})

    def leave_FunctionDef(self, node) -> None:
        self.frames.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "count" or node.args or not isinstance(node.func.value, cst.Call):
            return
        dedup = node.func.value
        method = method_name(dedup)
        if method not in _DEDUP or dedup.args:
            return
        value = self.ctx.semantic.infer(dedup.func.value)
        if value is None or value.kind != DATAFRAME:
            return
        if isinstance(value.bound, int) and value.bound <= _FEW_ROWS:
            return
        parent = self.ctx.parent_of(node)
        if isinstance(parent, cst.Comparison) and any(
                isinstance(c.operator, (cst.Equal, cst.NotEqual)) for c in parent.comparisons):
            return  # `distinct().count() == df.count()`: a uniqueness test, where only the exact number will do
        base = dedup.func.value
        root = base
        while isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute):
            root = root.func.value
        key = shown(self.ctx, root) if isinstance(root, (cst.Name, cst.Attribute)) else None
        frame = self.frames[-1]
        again = ""
        if key is not None:
            frame[key] = frame.get(key, 0) + 1
            if frame[key] > 1:
                again = f"; this is distinct count number {frame[key]} of `{key}` here, each one more job over it"
        self.ctx.report(
            self,
            node,
            f"`{shown(self.ctx, base)}.{method}().count()` shuffles every distinct row to count them exactly{again}",
            help="if an estimate serves, use `F.approx_count_distinct(...)` (one pass, no shuffle of the values); "
            "if the exact number is needed, compute all the distinct counts of one DataFrame in one "
            "`agg(F.countDistinct(...), ...)` (which ignores nulls)",
            start=dedup.func.attr,
        )
