from typing import Optional

import libcst as cst

from checks.python._determinism_and_joins import receiver_chain
from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import (
    DATAFRAME,
    GROUPED,
    WINDOW,
    keyword_arg,
    literal_string,
    method_name,
    positional_args,
)

_SETUP = (
    "from pyspark.sql import SparkSession, Window\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\nevents = spark.table('events')\n"
)
_PICKS = frozenset({"first", "last", "first_value", "last_value"})
_ORDERS = frozenset({"orderBy", "sort"})
# Calls after a sort that keep it as far as `dropDuplicates` is concerned (rows and their order untouched).
_KEEP_ORDER = frozenset({"select", "withColumn", "withColumns", "withColumnRenamed", "drop", "filter", "where",
                         "alias", "selectExpr"})
# Column methods a pick may pass through on its way to `agg(...)` / `over(...)`.
_COLUMN_METHODS = frozenset({"alias", "name", "cast", "astype"})


class FirstLastWithoutOrder(PythonRule):
    """
    ## What it does
    Finds `F.first` / `F.last` (and `first_value` / `last_value`) used as an
    aggregate: in `groupBy(...).agg(...)`, in a global `df.agg(...)` or
    `df.select(...)`, in the dictionary form `agg({"col": "first"})`, or over
    a window whose specification has no `orderBy`. Also finds
    `orderBy(...).dropDuplicates([...])`, which relies on the same order, also
    through a name every branch assigns a sorted frame (`ordered =
    df.sort(...)`, then `ordered.dropDuplicates(subset=[...])`).

    `first(col, ignorenulls=True)` is not reported: it is the idiom that merges
    rows in which each column is set at most once per group. Pivots
    (`groupBy(...).pivot(...).agg(F.first(...))`) are not reported either: a
    pivot cell usually holds one row. On by default: which row is picked is
    undefined in Spark, whatever the data.

    ## Why is this bad?
    An aggregation sees the rows of a group in the order they arrive from the
    shuffle, which depends on the partitioning, on which task finished first
    and on retries. Spark documents `first` and `last` as non-deterministic for
    that reason: the same job on the same data can return another value. Sorting
    before the `groupBy` (or before `dropDuplicates`) does not help: the shuffle
    that groups the rows does not keep the sort.

    ## Example
    ```python
    latest = events.orderBy("ts").groupBy("user_id").agg(F.last("status").alias("status"))
    ```

    ## Use instead
    ```python
    latest = events.groupBy("user_id").agg(F.max_by("status", "ts").alias("status"))
    ```
    `F.max_by` / `F.min_by` (PySpark 3.3+; SQL `max_by` since 3.0) pick by an
    ordering column; a `row_number()` window ordered by a unique tiebreaker
    keeps whole rows. When every row of a group holds the same value, say so
    with `F.any_value` (Spark 3.5+) or put the column in the `groupBy` keys.

    ## Fix safety
    No fix: the ordering column is the user's choice.

    ## References
    - Spark SQL built-in functions: `first` ("The function is non-deterministic
      because its results depends on the order of the rows which may be
      non-deterministic after a shuffle"), `last`, `max_by`, `min_by`, `any_value`.
    - PySpark API: `DataFrame.dropDuplicates`.
    """

    code = "SPK311"
    name = "first-last-without-order"
    summary = "`first` / `last` in an aggregation picks whichever row happens to come first or last: the result changes between runs"
    default_reason = ("the row `first` or `last` picks in an aggregation is undefined in Spark whatever the "
                      "data, so a rerun may return another; `ignorenulls=True` and pivots are not reported")
    triggers = ("first", "last", "dropDuplicates", "drop_duplicates")
    doc_setup = 'events = spark.table("events")\n'

    invalid = (
        Invalid(_SETUP + "by_user = events.groupBy('user_id').agg(F.first('country').alias('country'))\n"),
        Invalid(_SETUP + "latest = events.orderBy('ts').groupBy('user_id').agg(F.last('status'))\n"),
        Invalid(_SETUP + "one = events.agg(F.first('ts'))\n"),
        Invalid(_SETUP + "one = events.select(F.first('ts'), F.last('ts'))\n", count=2),
        Invalid(_SETUP + "by_user = events.groupBy('user_id').agg({'country': 'first'})\n"),
        Invalid(_SETUP + "w = Window.partitionBy('user_id')\nx = events.withColumn('f', F.first('page').over(w))\n"),
        Invalid(_SETUP + "kept = events.orderBy(F.desc('ts')).dropDuplicates(['user_id'])\n"),
        Invalid(_SETUP + "def latest(df, has_inserted):\n    if has_inserted:\n"
                "        ordered = df.sort(df.InsertedDate.desc())\n    else:\n"
                "        ordered = df.sort(df.export_end_date.desc())\n"
                "    return ordered.dropDuplicates(subset=['record_id'])\n"),
        Invalid("from pyspark.sql.functions import first\n\ndef users(df):\n"
                "    return df.groupBy('id').agg(first('name'))\n"),
    )
    valid = (
        Valid(_SETUP + "w = Window.partitionBy('user_id').orderBy('ts')\n"
              "x = events.withColumn('f', F.first('page').over(w))\n"),
        Valid(_SETUP + "x = events.withColumn('f', F.last('page', True).over(Window.partitionBy('u').orderBy('ts')))\n"),
        Valid(_SETUP + "merged = events.groupBy('user_id').agg(F.first('email', ignorenulls=True))\n"),
        Valid(_SETUP + "wide = events.groupBy('user_id').pivot('kind').agg(F.first('value'))\n"),
        Valid(_SETUP + "latest = events.groupBy('user_id').agg(F.max_by('status', 'ts'))\n"),
        Valid(_SETUP + "row = events.first()\n"),
        Valid(_SETUP + "kept = events.dropDuplicates(['user_id'])\n"),
        Valid(_SETUP + "def latest(df, by_time):\n    ordered = df.sort('ts') if by_time else df\n"
              "    return ordered.dropDuplicates(['user_id'])\n"),
        Valid(_SETUP + "ordered = events.orderBy('ts')\nordered = ordered.groupBy('user_id').count()\n"
              "kept = ordered.dropDuplicates(['user_id'])\n"),
        Valid("import pandas as pd\nframe = pd.DataFrame()\nx = frame.groupby('a').agg({'b': 'first'})\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.windows = {}  # name -> whether the window spec assigned to it is ordered

    def leave_Assign(self, node: cst.Assign) -> None:
        value = self.ctx.semantic.infer(node.value)
        ordered = self._window_ordered(node.value) if value is not None and value.kind == WINDOW else None
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.windows[target.target.value] = ordered

    def _window_ordered(self, node):
        """True / False for a window spec this file builds; None when it is not known."""
        base, calls = receiver_chain(node) if isinstance(node, cst.Call) else (node, [])
        if any(method_name(c) in _ORDERS for c in calls):
            return True
        if isinstance(base, cst.Name):
            if base.value in self.windows:
                return self.windows[base.value]
            if base.value == "Window" or (self.ctx.semantic.qualified_name(base) or "").endswith("Window"):
                return False if calls else None
        if isinstance(base, cst.Attribute) and (self.ctx.semantic.qualified_name(base) or "").endswith("Window"):
            return False if calls else None
        return None

    def _context(self, node):
        """("agg", call) / ("window", call) for where the pick's value goes; None when it is not followed."""
        ancestors = self.ctx.ancestors
        i = len(ancestors) - 1
        while ancestors[i] is not node:
            i -= 1
        current = node
        while i > 0:
            parent = ancestors[i - 1]
            if isinstance(parent, cst.Attribute) and parent.value is current and i > 1 \
                    and isinstance(ancestors[i - 2], cst.Call) and ancestors[i - 2].func is parent:
                method = parent.attr.value
                call = ancestors[i - 2]
                if method == "over":
                    return "window", call
                if method not in _COLUMN_METHODS:
                    return None
                current, i = call, i - 2
                continue
            if isinstance(parent, cst.Arg) and i > 1 and isinstance(ancestors[i - 2], cst.Call):
                call = ancestors[i - 2]
                method = method_name(call)
                if method in ("agg", "select"):
                    return "agg", call
                if method is not None and not self.ctx.semantic.is_function(call.func, {"coalesce", "struct"}):
                    return None
                current, i = call, i - 2
                continue
            if isinstance(parent, (cst.List, cst.Tuple, cst.Element, cst.StarredElement)):
                current, i = parent, i - 1
                continue
            return None
        return None

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method in ("dropDuplicates", "drop_duplicates"):
            self._drop_duplicates(node)
            return
        if method == "agg":
            self._dict_agg(node)
        semantic = self.ctx.semantic
        pick = semantic.is_function(node.func, _PICKS)
        if pick is None:
            return
        args = positional_args(node)
        ignore = keyword_arg(node, "ignorenulls") or keyword_arg(node, "ignoreNulls") or (args[1] if len(args) > 1 else None)
        if isinstance(ignore, cst.Name) and ignore.value == "True":
            return
        context = self._context(node)
        if context is None:
            return
        where, call = context
        if where == "window":
            window = positional_args(call)
            if not window or self._window_ordered(window[0]) is not False:
                return
            self._report(node, f"`{shown(self.ctx, node)}` over a window without `orderBy`",
                         "add an `orderBy` (with a unique tiebreaker) to the window")
            return
        receiver = semantic.infer(call.func.value)
        if receiver is None or receiver.kind not in (DATAFRAME, GROUPED):
            return
        if method_name(call) == "select" and receiver.kind != DATAFRAME:
            return
        _, chain = receiver_chain(call)
        names = [method_name(c) for c in chain]
        if "pivot" in names:
            return
        self._report(node, f"`{shown(self.ctx, node)}` in an aggregation{self._sorted_before(names)}",
                     "pick by an ordering column: `F.max_by(value, ts)` / `F.min_by` (or a `row_number()` window); "
                     "`F.any_value` (Spark 3.5+) says any row will do")

    @staticmethod
    def _sorted_before(names) -> str:
        if "groupBy" in names or "groupby" in names:
            grouping = names.index("groupBy") if "groupBy" in names else names.index("groupby")
            if any(n in _ORDERS for n in names[:grouping]):
                return " (the sort before `groupBy` does not survive its shuffle)"
        return ""

    def _report(self, node, what: str, help: str) -> None:
        self.ctx.report(
            self, node, f"{what} takes whichever row happens to arrive {_end(node)}, "
            "which changes with partitioning and retries",
            help=help, start=node.func.attr if isinstance(node.func, cst.Attribute) else None,
        )

    def _dict_agg(self, node: cst.Call) -> None:
        args = positional_args(node)
        if len(args) != 1 or not isinstance(args[0], cst.Dict):
            return
        receiver = self.ctx.semantic.infer(node.func.value)
        if receiver is None or receiver.kind not in (DATAFRAME, GROUPED):
            return
        for element in args[0].elements:
            if isinstance(element, cst.DictElement) and literal_string(element.value) in ("first", "last"):
                column = literal_string(element.key) or shown(self.ctx, element.key)
                self.ctx.report(
                    self, element,
                    f"`{literal_string(element.value)}` of `{column}` in an aggregation takes whichever row arrives "
                    "first, which changes with partitioning and retries",
                    help="pick by an ordering column: `F.max_by(value, ts)` / `F.min_by`, or `F.any_value` (Spark 3.5+)",
                )

    def _drop_duplicates(self, node: cst.Call) -> None:
        receiver = node.func.value
        if not node.args:
            return
        sort = self._sorted(receiver)
        if sort is None or not self.ctx.semantic.is_dataframe(receiver):
            return
        self.ctx.report(
            self, node,
            f"`{sort}` before `{method_name(node)}` does not decide which row is kept: "
            "the shuffle that removes duplicates does not keep the sort",
            help="keep the row you mean with a `row_number()` window ordered by a tiebreaker, then filter `== 1`",
            start=node.func.attr,
        )


    def _sorted(self, receiver) -> Optional[str]:
        """The sort (`orderBy` / `sort`) a frame ends with: in its chain, or, for a name, in every value the
        function assigns it (`if ...: ordered = df.sort(a.desc())` / `else: ordered = df.sort(b.desc())`),
        with only row-keeping calls (`select`, `filter`, `withColumn`...) after it; None otherwise."""
        candidates = [receiver]
        if isinstance(receiver, cst.Name):
            candidates = self.ctx.semantic.assigned_expressions(receiver.value)
            if not candidates:
                return None
        sorts = set()
        for candidate in candidates:
            while isinstance(candidate, cst.Call) and method_name(candidate) in _KEEP_ORDER:
                candidate = candidate.func.value
            if not isinstance(candidate, cst.Call) or method_name(candidate) not in _ORDERS:
                return None
            sorts.add(method_name(candidate))
        return sorts.pop() if len(sorts) == 1 else None


def _end(node: cst.Call) -> str:
    """"last" for `last(...)` / `last_value(...)`, else "first"."""
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return "last" if name.startswith("last") else "first"
