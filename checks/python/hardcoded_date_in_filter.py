from typing import Optional

import libcst as cst

from checks.python._driver import shown
from checks.python._literals_and_reads import date_text, filter_conditions, sql_date_predicates
from linter.registry import Invalid, Option, PythonRule, Valid
from linter.semantic import STRING, literal_int, literal_string, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('sales.orders')\n"
)
_RANGE_OPERATORS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
_DATE_CALLS = ("datetime.date", "datetime.datetime", "pandas.Timestamp", "pendulum.datetime", "pendulum.date")
# What a date constructor's name means when nothing in the file binds it (a snippet, a cell after the one
# that imports it): `date(...)` and `datetime(...)` are the classes, `datetime.` and `pendulum.` the modules.
_FREE_CALLS = {"date": "datetime.date", "datetime": "datetime.datetime"}
_FREE_MODULES = ("datetime", "pendulum")


class HardcodedDateInFilter(PythonRule):
    """
    ## What it does
    Finds a column compared with a hard-coded date or timestamp in a
    `filter` / `where` of a job: `F.col("day") == "2024-01-01"`,
    `== F.lit("2024-01-01")`, `== datetime.date(2024, 1, 1)`, `.isin(...)`
    of dates, `.eqNullSafe(...)`, a module constant holding a date, and the
    same in a SQL string filter (`.where("ds = '2024-01-01'")`). SQL given
    to `spark.sql(...)` and `.sql` files are read by SPK521.

    Only equality is reported by default: a filter on one fixed day is the
    classic leftover of a run tried by hand. A bound (`>= "2024-01-01"`,
    `between(...)`) is often meant ("everything since the launch"); the
    `ranges` option reports those too. Not reported: sentinel and open-end
    dates (before 1971 or after 2098: `valid_to == "9999-12-31"`), strings
    that only look like dates (`"2024-13-01"`), dates outside a filter
    (`withColumn`, `when`), notebooks (where a fixed day is how one looks at
    data), and test modules (`test_*.py`, `tests/`: fixed data, fixed
    dates). The compact form `"20240101"` counts only against a column
    named like a date (`ds`, `dt`, `day`, `..._date`). `date(...)`,
    `datetime(...)`, `datetime.date(...)` and `pendulum.datetime(...)` are
    read as the standard constructors when the file never binds the name
    (a snippet left without its imports), not when a parameter, an
    assignment or an import binds it to something else.

    With `--preview`, ranges are reported as with `ranges`: whether a fixed
    lower bound is meant is a judgement the file cannot settle.

    ## Why is this bad?
    A scheduled job runs every day with the code it was deployed with: a
    filter on a fixed date makes every run read the same partition, and the
    job succeeds while writing yesterday's (or last year's) numbers again.
    Nothing fails, so it is noticed when a dashboard stops moving. Backfills
    cannot target another day without a code change.

    ## Example
    ```python
    daily = orders.filter(F.col("order_date") == "2024-01-01")
    ```

    ## Use instead
    ```python
    import sys

    run_date = sys.argv[1]  # or spark.conf.get("spark.job.run_date"), a widget, the orchestrator's ds
    daily = orders.filter(F.col("order_date") == run_date)
    ```

    ## Fix safety
    No fix: where the date comes from is the job's to decide.

    ## Options
    - `ranges` (bool, default false): also report `<`, `<=`, `>`, `>=` and
      `between` with a hard-coded date.

    ## References
    - Apache Airflow, "Templates reference" (`ds`, `data_interval_start`);
      Databricks, "Pass context about job runs into job tasks".
    """

    code = "SPK330"
    skip_in_tests = True
    name = "hardcoded-date-in-filter"
    summary = "a filter on a hard-coded date makes every scheduled run read the same day"
    default_reason = ("a filter on one fixed day makes every scheduled run read the same partition and succeed "
                      "with stale numbers; only equality is reported, notebooks and tests are left alone")
    triggers = ("filter", "where")
    doc_setup = 'orders = spark.table("sales.orders")\n'
    options = {"ranges": Option(False, "Also report range comparisons (`>=`, `between`) with a hard-coded date.")}

    invalid = (
        Invalid(_SETUP + "daily = orders.filter(F.col('order_date') == '2024-01-01')\n"),
        Invalid(_SETUP + "daily = orders.where(orders.ds == F.lit('2024-01-01'))\n"),
        Invalid(_SETUP + "import datetime\ndaily = orders.filter(F.col('day') == datetime.date(2024, 1, 1))\n"),
        Invalid(_SETUP + "days = orders.filter(F.col('day').isin('2024-01-01', '2024-01-02'))\n"),
        Invalid(_SETUP + "daily = orders.where(\"status = 'PAID' AND ds = '2024-01-01'\")\n"),
        Invalid(_SETUP + "RUN_DAY = '2024-03-01'\ndaily = orders.filter((F.col('dt') == RUN_DAY) & (F.col('x') > 0))\n"),
        Invalid(_SETUP + "daily = orders.filter(F.col('ds') == '20240101')\n"),
        Invalid(_SETUP + "recent = orders.filter(F.col('order_date') >= '2024-01-01')\n",
                options={"ranges": True}),
        Invalid(_SETUP + "import pendulum\nlate = orders.filter(F.col('ts') > pendulum.datetime(2026, 1, 1, tz='UTC'))\n"),
        Invalid("from pyspark.sql import functions as F\n\ndef january(df):\n"
                "    return df.filter(F.col('d').between('2026-01-01', '2026-01-31'))\n"),
        Invalid("from pyspark.sql import functions as F\n\ndef daily(df):\n"
                "    return df.filter(F.col('event_ts') == '2024-01-01 00:00:00').withColumn('x', F.lit(1))\n"),
        Invalid("from pyspark.sql import functions as F\n\ndef launch_day(events):\n"
                "    return events.where(F.col('event_day') == date(2025, 3, 1))\n"),
    )
    valid = (
        Valid(_SETUP + "def daily(run_date):\n    return orders.filter(F.col('order_date') == run_date)\n"),
        Valid(_SETUP + "recent = orders.filter(F.col('order_date') >= '2024-01-01')\n", preview=False),
        Valid(_SETUP + "current = orders.where(F.col('valid_to') == '9999-12-31')\n"),
        Valid(_SETUP + "odd = orders.filter(F.col('batch') == '2024-13-01')\n"),
        Valid(_SETUP + "tagged = orders.withColumn('v', F.when(F.col('day') == '2024-01-01', 1))\n"),
        Valid(_SETUP + "ids = orders.filter(F.col('code') == '20240101')\n"),
        Valid(_SETUP + "last_week = orders.filter(F.col('day') >= F.date_sub(F.current_date(), 7))\n"),
        Valid(_SETUP + "daily = orders.filter(F.col('order_date') == '2024-01-01')\n", path="tests/test_daily.py"),
        Valid("# Databricks notebook source\n" + _SETUP + "display(orders.filter(F.col('day') == '2024-01-01'))\n",
              path="explore.py"),
        Valid("import pandas as pd\nframe = pd.read_csv('x.csv')\nday = frame.query('day == \"2024-01-01\"')\n"
              "spark = None\n"),
        Valid("from pyspark.sql import functions as F\n\ndef one_day(events, date):\n"
              "    return events.where(F.col('event_day') == date(2025, 3, 1))\n"),
    )

    def visit_Module(self, node: cst.Module) -> None:
        unit = self.ctx.unit
        self._off = unit.document.is_notebook
        self._ranges = self.opts["ranges"] or self.ctx.settings.preview

    def visit_Call(self, node: cst.Call) -> None:
        if self._off or method_name(node) not in ("filter", "where") or not node.args:
            return
        if not self.ctx.semantic.is_dataframe(node.func.value):
            return
        condition = node.args[0].value
        text = literal_string(condition)
        if text is not None:
            self._sql_filter(condition, text)
            return
        self._walk(condition)

    def _walk(self, node) -> None:
        if isinstance(node, (cst.Lambda, cst.FunctionDef)):
            return
        if isinstance(node, cst.Comparison):
            self._comparison(node)
        elif isinstance(node, cst.Call) and method_name(node) in ("isin", "eqNullSafe", "between"):
            self._method(node)
        for child in node.children:
            self._walk(child)

    def _comparison(self, node: cst.Comparison) -> None:
        left = node.left
        for target in node.comparisons:
            op, right = target.operator, target.comparator
            wanted = isinstance(op, cst.Equal) or (self._ranges and isinstance(op, _RANGE_OPERATORS))
            if wanted:
                for column, value in ((left, right), (right, left)):
                    text = self._date(value, column)
                    if text is not None and self._is_column(column):
                        self._report(value, column, text, "==" if isinstance(op, cst.Equal) else "a bound")
                        break
            left = right

    def _method(self, node: cst.Call) -> None:
        column = node.func.value
        method = method_name(node)
        if not self._is_column(column):
            return
        args = positional_args(node)
        if len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple, cst.Set)):
            args = [e.value for e in args[0].elements]
        if method == "between":
            if not self._ranges:
                return
            dates = [self._date(a, column) for a in args]
            found = [(a, d) for a, d in zip(args, dates) if d is not None]
        else:
            dates = [self._date(a, column) for a in args]
            found = list(zip(args, dates)) if args and all(d is not None for d in dates) else []
        if found:
            self._report(found[0][0], column, found[0][1], method)

    def _is_column(self, node) -> bool:
        return self._date(node, None) is None and self.ctx.semantic.is_column(node)

    def _date(self, node, column) -> Optional[str]:
        """The date a Python expression hard-codes, as text; None when it is anything else."""
        semantic = self.ctx.semantic
        text = literal_string(node)
        if text is not None:
            return text if date_text(text, _name_of(column)) else None
        if isinstance(node, cst.Name):
            value = semantic.lookup(node.value)
            if value is not None and value.kind == STRING and isinstance(value.node, cst.SimpleString) and \
                    date_text(value.detail, _name_of(column)):
                return value.detail
            return None
        if not isinstance(node, cst.Call):
            return None
        args = positional_args(node)
        if method_name(node) in ("cast", "astype", "alias"):
            return self._date(node.func.value, column)
        if semantic.is_function(node.func, {"lit", "to_date", "to_timestamp", "date_trunc"}) and args:
            if semantic.is_function(node.func, {"lit"}):
                return self._date(args[0], column)
            return self._date(args[-1] if len(args) == 1 else args[0], column) if isinstance(
                args[0], cst.Call) else None  # `to_date("day")` names a column; `to_date(F.lit(...))` is a value
        q = semantic.qualified_name(node.func) or self._free_call(node.func)
        if q in _DATE_CALLS and len(args) >= 3 and all(literal_int(a) is not None for a in args[:3]):
            y, m, d = (literal_int(a) for a in args[:3])
            text = f"{y:04d}-{m:02d}-{d:02d}"
            return text if date_text(text) else None
        return None

    def _free_call(self, func) -> Optional[str]:
        """`date`, `datetime`, `datetime.date`, `pendulum.datetime` ... as the standard names, when the file binds
        neither the name nor its module (a NameError in a whole program: only a fragment gets here)."""
        if isinstance(func, cst.Name) and func.value in _FREE_CALLS:
            root, q = func.value, _FREE_CALLS[func.value]
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in _FREE_MODULES:
            root, q = func.value.value, f"{func.value.value}.{func.attr.value}"
        else:
            return None
        if self.ctx.semantic.infer(cst.Name(root)) is not None or not self.ctx.semantic.free_name(root):
            return None
        return q

    def _sql_filter(self, node, text: str) -> None:
        import sqlglot
        from sqlglot.errors import SqlglotError

        from linter.sources.sql import _dialect

        try:
            tree = sqlglot.parse_one(f"SELECT 1 WHERE {text}", dialect=_dialect("spark"))
        except (SqlglotError, ValueError, RecursionError):
            return
        for condition in filter_conditions(tree):
            found = sql_date_predicates(condition, self._ranges)
            if found:
                literal, column, op = found[0]
                what = "day" if op in ("=", "NullSafeEQ", "IN") else "window"
                self.ctx.report(
                    self, node,
                    f"the filter compares `{column}` with the fixed date '{literal.this}': every scheduled run "
                    f"reads the same {what}",
                    help=_HELP)
                return

    def _report(self, value, column, text: str, how: str) -> None:
        self.ctx.report(
            self, value,
            f"`{shown(self.ctx, column)}` is compared with the fixed date '{text}': every scheduled run reads "
            "the same " + ("day" if how in ("==", "isin", "eqNullSafe") else "window"),
            help=_HELP)


_HELP = ("take the date from the run (a job argument, `spark.conf.get(...)`, the orchestrator's `ds`) or compute it "
         "(`F.current_date()`, `F.date_sub(...)`)")


def _name_of(column) -> Optional[str]:
    """The column's name, for the compact-date test: `F.col("ds")`, `df.ds`, `df["ds"]`."""
    if column is None:
        return None
    if isinstance(column, cst.Attribute):
        return column.attr.value
    if isinstance(column, cst.Call):
        args = positional_args(column)
        if args and literal_string(args[0]) is not None:
            return literal_string(args[0])
        if isinstance(column.func, cst.Attribute):
            return _name_of(column.func.value)
    if isinstance(column, cst.Subscript) and len(column.slice) == 1 and isinstance(column.slice[0].slice, cst.Index):
        return literal_string(column.slice[0].slice.value)
    return None
