from typing import Optional

import libcst as cst

from checks.python._driver import shown
from checks.python._driver_values import CLOCKS, clock_call, streaming
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import FUNCTIONS
from linter.sources.python import contains

_SETUP = (
    "from datetime import date, datetime, timedelta\n"
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\n"
)
_STREAM = _SETUP + "events = spark.readStream.format('kafka').option('subscribe', 'clicks').load()\n"
_BATCH = _SETUP + "orders = spark.table('sales.orders')\n"

# Calls a clock value passes through and stays a clock value: conversions and the datetime module's own helpers.
_PASS_THROUGH = frozenset({"str", "int", "float", "round"})
# Nodes a clock value passes through on its way into an expression.
# (Not f-strings: `run_id = f"run_{int(time.time())}"` is an identifier meant to be fixed.)
_CARRIERS = (cst.Arg, cst.UnaryOperation, cst.ComparisonTarget, cst.IfExp, cst.List, cst.Tuple, cst.Element,
             cst.Attribute, cst.Subscript, cst.SubscriptElement, cst.Index)


class DriverClockInExpression(PythonRule):
    """
    ## What it does
    Finds the driver's clock read in Python (`datetime.now()`,
    `datetime.utcnow()`, `date.today()`, `time.time()`, `pd.Timestamp.now()`)
    and put into a Spark Column expression: given to `F.lit`, `F.when` or
    another `pyspark.sql.functions` function, compared with or added to a
    Column (`F.col("ts") > datetime.now() - timedelta(hours=1)`), or given to
    a Column method (`between`, `isin`, `otherwise`), directly or through a
    variable (`cutoff = datetime.now() - ...` then `F.lit(cutoff)`).

    On by default where it is a bug: in a streaming query (a DataFrame from
    `readStream`, `dlt.read_stream` or `withWatermark`, or written with
    `writeStream`), and a value computed outside a `foreachBatch` function
    but used inside it. In batch code it is reported only with `--preview`:
    there the value is the moment the plan was built, which is often what
    was meant, and a run date taken once at the top of a job for paths and
    file names is not reported at all (only its use in a Column expression
    is, under `--preview`).

    ## Why is this bad?
    The Python call runs once, on the driver, while the plan is being built;
    the result is a constant in the plan. A streaming query keeps the plan it
    was started with, so every micro-batch, hours or weeks later, compares
    with the moment the query started: a "last hour" filter soon drops every
    row. `F.current_timestamp()` and `F.current_date()` are evaluated per
    query (per micro-batch in streaming) in `spark.sql.session.timeZone`.

    In batch code the constant is the driver's local time zone rather than
    the session's (`date.today()` is the driver's date; `datetime.utcnow()`
    is a naive UTC time that Spark reads as driver-local time, wrong by the
    driver's offset), and a rerun or backfill after midnight computes another
    day than the run it replaces: a scheduled job should take its run date as
    a parameter.

    ## Example
    ```python
    recent = events.filter(F.col("event_time") > datetime.now() - timedelta(hours=1))
    ```

    ## Use instead
    ```python
    recent = events.filter(F.col("event_time") > F.current_timestamp() - F.expr("INTERVAL 1 HOUR"))
    ```
    In a scheduled batch job, pass the run date in (a job argument, the
    orchestrator's `ds`) and use it everywhere, or `F.current_date()` /
    `F.date_sub(F.current_date(), 7)` where "today" is meant.

    ## Fix safety
    No fix: `F.current_timestamp()` is evaluated in the session time zone
    and at another moment, and in batch a run-date parameter is usually the
    right answer.

    ## References
    - PySpark API: `pyspark.sql.functions.current_timestamp` ("All calls of
      current_timestamp within the same query return the same value").
    - Structured Streaming Programming Guide: each trigger runs the query's
      plan on the new data; the plan's literals do not change.
    """

    code = "SPK317"
    name = "driver-clock-in-expression"
    summary = "the driver's clock read in Python becomes a constant in a Spark expression"
    default_reason = ("a streaming query keeps the driver's clock as read at its start, so a 'last hour' "
                      "filter soon drops every row; batch uses, often what was meant, are left to preview")
    triggers = ("now", "today", "time")
    doc_setup = "from datetime import datetime, timedelta\nevents = spark.readStream.table('clicks')\n"

    invalid = (
        Invalid(_STREAM + "recent = events.filter(F.col('event_time') > datetime.now() - timedelta(hours=1))\n"),
        Invalid(_STREAM + "cutoff = datetime.now() - timedelta(hours=1)\n"
                "recent = events.where(F.col('event_time') >= F.lit(cutoff))\n"),
        Invalid(_SETUP + "cutoff = date.today() - timedelta(days=1)\n\n"
                "def upsert(batch, batch_id):\n"
                "    batch.filter(F.col('day') >= F.lit(cutoff)).write.mode('append').saveAsTable('t')\n\n"
                "spark.readStream.table('src').writeStream.foreachBatch(upsert).start()\n"),
        # batch code: reported with --preview
        Invalid(_BATCH + "stamped = orders.withColumn('loaded_at', F.lit(datetime.now()))\n"),
        Invalid(_BATCH + "week = orders.filter(F.col('order_date') >= date.today() - timedelta(days=7))\n"),
        Invalid(_BATCH + "import datetime as dt\n"
                "flag = orders.withColumn('late', F.when(F.col('due') < F.lit(dt.datetime.utcnow()), True))\n"),
        Invalid(_BATCH + "run_date = date.today()\nday = orders.filter(F.col('order_date') == run_date)\n"),
    )
    valid = (
        Valid(_STREAM + "recent = events.filter(F.col('event_time') > F.current_timestamp() - F.expr('INTERVAL 1 HOUR'))\n"),
        Valid(_BATCH + "run_date = date.today().isoformat()\n"
                "orders.write.mode('overwrite').parquet(f's3://exports/orders/day={run_date}')\n"),
        Valid(_BATCH + "started = datetime.now()\norders.count()\nprint(datetime.now() - started)\n"),
        Valid(_BATCH + "week = orders.filter(F.col('order_date') >= F.date_sub(F.current_date(), 7))\n"),
        Valid(_BATCH + "def upsert(batch, batch_id):\n"
                "    now = datetime.now()\n"
                "    batch.withColumn('seen', F.lit(now)).write.mode('append').saveAsTable('t')\n\n"
                "spark.readStream.table('src').writeStream.foreachBatch(upsert).start()\n"),
        Valid(_BATCH + "import time\nt0 = time.time()\nrows = orders.limit(5).collect()\nlog = {'took': time.time() - t0}\n"),
        Valid(_BATCH + "stamped = orders.withColumn('cutoff', F.lit(datetime(2024, 6, 1)))\n"),
        Valid(_BATCH + "import time\nrun_id = f'run_{int(time.time())}'\ntagged = orders.withColumn('run_id', F.lit(run_id))\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        # variables holding a clock value: (owner scope node, name) -> the clock call
        self._vars: dict = {}

    # -- where a clock value goes ------------------------------------------------
    def _owner(self, upto: int):
        for node in reversed(self.ctx.ancestors[:upto]):
            if node.__class__ in _SCOPES:
                return node
        return self.ctx.module

    def _sink(self, start: int) -> Optional[tuple]:
        """Climb from ``ancestors[start]``: ("column", the call or comparison) when the value ends in a Column
        expression, ("var", [names]) when it is assigned, None when it goes elsewhere."""
        a = self.ctx.ancestors
        semantic = self.ctx.semantic
        for i in range(start - 1, -1, -1):
            parent, child = a[i], a[i + 1]
            if isinstance(parent, _CARRIERS):
                continue
            if isinstance(parent, cst.Call):
                if child is parent.func:
                    continue  # `datetime.now().date()`, `date.today().isoformat()`
                q = semantic.qualified_name(parent.func)
                if q and q.startswith(FUNCTIONS + "."):
                    return "column", parent
                if isinstance(parent.func, cst.Attribute) and semantic.is_column(parent.func.value):
                    return "column", parent  # `F.col("ts").between(start, datetime.now())`
                if (isinstance(parent.func, cst.Name) and parent.func.value in _PASS_THROUGH
                        and not semantic.is_bound(parent.func.value)) or (q and q.startswith("datetime.")):
                    continue
                if self._column_argument(i):
                    return "column", parent  # `df.withColumn("at", make_ts(now))`: whatever it makes is a Column
                return None
            if isinstance(parent, cst.BinaryOperation):
                other = parent.right if child is parent.left else parent.left
                if semantic.is_column(other):
                    return "column", parent
                continue
            if isinstance(parent, cst.Comparison):
                operands = [parent.left, *(t.comparator for t in parent.comparisons)]
                if any(o is not child and not contains(child, o) and semantic.is_column(o) for o in operands):
                    return "column", parent
                if self._column_argument(i, conditions=True):
                    return "column", parent  # `df.filter(col("day") > date.today())`: a filter takes Columns
                return None
            if isinstance(parent, (cst.Assign, cst.AnnAssign)) and child is parent.value:
                targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
                return "var", [t.value for t in targets if isinstance(t, cst.Name)]
            return None
        return None

    def _column_argument(self, index: int, conditions: bool = False) -> bool:
        """Whether ``ancestors[index]`` is given where a DataFrame method takes a Column: the value of
        `withColumn`, an argument of `select`, and (``conditions``) of `filter` / `where` through `&`, `|`, `~`."""
        a = self.ctx.ancestors
        node = a[index]
        for j in range(index - 1, 0, -1):
            parent = a[j]
            if conditions and isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)) and \
                    isinstance(getattr(parent, "operator", None), (cst.BitAnd, cst.BitOr, cst.BitInvert)):
                node = parent
                continue
            if isinstance(parent, cst.Arg) and parent.keyword is None:
                call = a[j - 1]
                if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
                    return False
                method = call.func.attr.value
                args = [x for x in call.args if x.keyword is None]
                if method == "withColumn":
                    ok = len(args) > 1 and args[1] is parent
                elif method == "select":
                    ok = True
                else:
                    ok = conditions and method in ("filter", "where")
                return ok and self.ctx.semantic.is_dataframe(call.func.value)
            return False
        return False

    def _consumer(self, sink) -> Optional[tuple]:
        """(the DataFrame the expression is given to, the method call) above ``sink``."""
        a = self.ctx.ancestors
        for i in range(len(a) - 1, -1, -1):
            if a[i] is sink:
                break
        else:
            return None
        for j in range(i - 1, -1, -1):
            node = a[j]
            if isinstance(node, (cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef)):
                return None
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                    self.ctx.semantic.is_dataframe(node.func.value):
                return node.func.value, node, j
        return None

    def _streamed(self, receiver, call, index) -> bool:
        if streaming(self.ctx, receiver):
            return True
        a = self.ctx.ancestors
        for node in reversed(a[:index]):  # `events.withColumn(...).writeStream`, `out = ...` then `out.writeStream`
            if isinstance(node, cst.Attribute) and node.attr.value == "writeStream":
                return True
            if isinstance(node, cst.Assign):
                return any(isinstance(t.target, cst.Name) and streaming(self.ctx, t.target) for t in node.targets)
            if isinstance(node, (cst.SimpleStatementLine, cst.FunctionDef)):
                return False
        return False

    def _in_batch_function(self, upto: int) -> bool:
        inner = self._owner(upto)
        return isinstance(inner, cst.FunctionDef) and self.ctx.semantic.batch_function(inner.name.value)

    # -- visits ------------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        owner = self._owner(len(self.ctx.ancestors))
        for t in node.targets:
            if isinstance(t.target, cst.Name):
                self._vars.pop((owner, t.target.value), None)  # rebound: a clock call on the right puts it back

    def visit_Call(self, node: cst.Call) -> None:
        clock = clock_call(self.ctx, node)
        if clock is None:
            return
        self._follow(node, CLOCKS[clock], clock, None)

    def visit_Name(self, node: cst.Name) -> None:
        if not self._vars:
            return
        name = node.value
        if not any(key[1] == name for key in self._vars):
            return  # no variable of this name holds a clock value, in any scope
        a = self.ctx.ancestors
        for scope in reversed(a):
            if scope.__class__ in _SCOPES or scope.__class__ is cst.Module or scope is self.ctx.module:
                made = self._vars.get((scope, node.value))
                if made is not None:
                    break
        else:
            made = self._vars.get((self.ctx.module, node.value))
        if made is None:
            return
        parent = a[-2] if len(a) >= 2 else None
        if isinstance(parent, (cst.AssignTarget, cst.Param)) or (isinstance(parent, cst.Attribute) and parent.attr is node):
            return
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            return
        self._follow(node, made[0], made[1], made)

    def _follow(self, node, shown_clock: str, clock: str, made) -> None:
        a = self.ctx.ancestors
        sink = self._sink(len(a) - 1)
        if sink is None:
            return
        if sink[0] == "var":
            owner = self._owner(len(a) - 1)
            for name in sink[1]:
                self._vars[(owner, name)] = (shown_clock, clock, owner)
            return
        consumer = self._consumer(sink[1])
        frozen_batch = None
        if made is not None:
            inner = self._owner(len(a) - 1)
            if isinstance(inner, cst.FunctionDef) and inner is not made[2] and \
                    self.ctx.semantic.batch_function(inner.name.value):
                frozen_batch = inner.name.value
        if frozen_batch is None and self._in_batch_function(len(a) - 1):
            return  # made inside a `foreachBatch` function: a new value for every micro-batch
        streamed = consumer is not None and self._streamed(*consumer)
        if not streamed and frozen_batch is None and not self.ctx.settings.preview:
            return
        via = f"`{node.value}` (`{shown_clock}`)" if made is not None else f"`{shown_clock}`"
        target = f" of `{shown(self.ctx, consumer[0])}`" if consumer is not None else ""
        if frozen_batch is not None:
            message = (f"{via} is computed once, outside `{frozen_batch}`: every micro-batch given to "
                       f"`foreachBatch` sees the same moment")
            help = "compute it inside the batch function, or use `F.current_timestamp()` / `F.current_date()`"
        elif streamed:
            message = (f"{via} is read once on the driver when the streaming query is defined: every micro-batch"
                       f"{target} uses that same moment")
            help = ("use `F.current_timestamp()` / `F.current_date()`, evaluated per micro-batch in the session "
                    "time zone (`F.current_timestamp() - F.expr('INTERVAL 1 HOUR')`)")
        else:
            if "utc" in clock:
                zone = "a naive UTC time that Spark reads as driver-local time"
            elif clock.startswith("time."):
                zone = "seconds since the epoch, as a number"
            else:
                zone = "in the driver's local time zone, not the session's"
            message = f"{via} in a Spark expression is a constant read on the driver when the plan is built ({zone})"
            help = ("in a scheduled job take the run date as a parameter (a rerun or backfill then computes the same "
                    "day); where 'now' is meant, use `F.current_timestamp()` / `F.current_date()`")
        self.ctx.report(self, node, message, help=help)


# libcst's node classes are ABCs (a slow isinstance on every Name visited) and have no subclasses
_SCOPES = (cst.FunctionDef, cst.Lambda)
