import libcst as cst

from checks.python._driver import shown
from checks.python._fixes import source
from checks.python._redundant_shuffles import KEEP_ROWS, SORTS, down_chain
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import method_name

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)
_EARLIER = SORTS | {"sortWithinPartitions"}


class SortOverriddenByLaterSort(PythonRule):
    """
    ## What it does
    Finds a sort (`orderBy`, `sort`, `sortWithinPartitions`) followed in the
    same chain by a global `orderBy` / `sort`, with only row-keeping calls
    (`select`, `withColumn`, `filter`, `drop`, ...) between them. A `limit`
    between them makes the first sort meaningful (a top-N) and is not
    reported; nor is `orderBy(...).sortWithinPartitions(...)`, which sorts the
    ranges of the global sort locally.

    ## Why is this bad?
    Only the last sort counts. Spark's sort is not stable, so sorting by
    `day` and then by `amount` does not give "by amount, then by day": the
    rows come out ordered by `amount` alone, ties in any order. Spark's
    optimizer knows this and drops the earlier sort (`EliminateSorts`); where
    it cannot see through the calls between, the earlier sort is a full
    shuffle for nothing. Either way the code does not say what it does; the
    usual intent is one sort with several keys.

    ## Example
    ```python
    ranked = orders.orderBy("day").orderBy(F.desc("amount"))
    ```

    ## Use instead
    ```python
    ranked = orders.orderBy(F.desc("amount"), "day")
    ```

    ## Fix safety
    No fix: whether the earlier keys were meant as tie-breakers is for the
    author to say.

    ## References
    - Spark's optimizer rule `EliminateSorts` ("removes redundant sorts ...
      if the child of a sort is a sort").
    - PySpark API: `DataFrame.orderBy` (several columns, in priority order).
    """

    code = "SPK416"
    name = "sort-overridden-by-later-sort"
    summary = "a sort followed by another global sort in the same chain: only the last one counts"
    default_reason = ("Spark's sort is not stable: only the last global sort counts, and the earlier one is "
                      "dropped or a shuffle for nothing; a `limit` between them makes a top-N, not reported")
    triggers = ("orderBy", "sort")
    doc_setup = 'from pyspark.sql import functions as F\norders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "ranked = orders.orderBy('day').orderBy(F.desc('amount'))\n"),
        Invalid(_SETUP + "out = orders.sort('day').select('day', 'amount').filter('amount > 0').sort('amount')\n"),
        Invalid(_SETUP + "out = orders.orderBy('a').orderBy('b').orderBy('c')\n", count=2),
        Invalid("from pyspark.sql import DataFrame\n\ndef top(df):\n    return df.sortWithinPartitions('day').withColumn('x', df.a).orderBy('x')\n"),
    )
    valid = (
        Valid(_SETUP + "ranked = orders.orderBy(F.desc('amount'), 'day')\n"),
        Valid(_SETUP + "top = orders.orderBy('amount').limit(10).orderBy('day')\n"),
        Valid(_SETUP + "out = orders.orderBy('day').sortWithinPartitions('amount')\n"),
        Valid(_SETUP + "out = orders.orderBy('day').groupBy('day').count().orderBy('count')\n"),
        Valid("rows = [3, 1]\nrows.sort()\nx = sorted(rows)\n"),
        Valid("import pandas as pd\npdf = pd.read_csv('x.csv')\nout = pdf.sort('a').sort('b')\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) not in SORTS or not node.args:
            return
        earlier = down_chain(node.func.value, KEEP_ROWS)
        if not isinstance(earlier, cst.Call) or method_name(earlier) not in _EARLIER or not earlier.args:
            return
        if not self.ctx.semantic.is_dataframe(earlier):
            return
        later, first = method_name(node), method_name(earlier)
        args = list(node.args) + list(earlier.args)
        combined = "all keys in priority order"
        if all(a.keyword is None and not a.star for a in args):
            combined += f" (`{later}({', '.join(source(self.ctx, a.value) for a in args)})` if the earlier keys break ties)"
        self.ctx.report(
            self,
            earlier,
            f"`{first}({shown(self.ctx, earlier.args[0].value)}{', ...' if len(earlier.args) > 1 else ''})` is "
            f"undone by the later `{later}(...)`: Spark's sort is not stable, so only the last sort's order is kept",
            help=f"sort once with {combined}, or drop the earlier `{first}`",
            start=earlier.func.attr,
        )
