import libcst as cst

from checks.python import _joins as joins
from checks.python import _determinism_and_joins as lineage
from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import BOUNDED, literal_string, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\n"
    "events = spark.table('web.events')\nsessions = spark.table('web.sessions')\n"
)
_RANGE = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.NotEqual)
# Column methods that make a predicate Spark cannot turn into a join key.
_NON_EQUI_METHODS = frozenset(
    "between like rlike ilike contains startswith endswith isin isNull isNotNull isNaN".split()
)
_NON_EQUI_FUNCTIONS = frozenset({"array_contains", "arrays_overlap"})
_LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)

EQUI, NON_EQUI, CONSTANT, UNKNOWN = "equi", "non-equi", "constant", "unknown"


class NonEquiJoin(joins.JoinLineage, PythonRule):
    """
    ## What it does
    Finds a DataFrame `join` whose condition has no equality between the two
    sides: only `<`, `>`, `<=`, `>=`, `!=`, `between`, `like`, `contains`
    and the like, an OR of conditions (`(a.k == b.k) | (a.j == b.j)`), or a
    constant (`F.lit(True)`). A condition with at least one equality
    conjunct (`(a.k == b.k) & a.ts.between(b.start, b.end)`) is a range join
    with a key and is not reported; nor is a condition this file cannot
    decompose (a variable, a helper's result, `F.expr(...)`), a join whose
    other side is broadcast or hinted (`F.broadcast(b)`, `b.hint(...)`,
    a deliberate nested-loop join), or a side proven small (`limit`, a global
    aggregate, data built on the driver). Joins without any condition are
    SPK403's; non-equi joins in SQL text are SPK523's (sql-non-equi-join),
    and SPK602 finds the nested-loop join in a plan.

    ## Why is this bad?
    Spark's hash and sort-merge joins need equality keys: they bring rows with
    the same key together and compare only those. Without one, the only
    strategies left are `BroadcastNestedLoopJoin` and `CartesianProduct`,
    which evaluate the condition for every pair of rows, n times m: a
    million events against a hundred thousand sessions is a hundred billion
    comparisons. An OR of equalities is no better: neither equality alone
    decides a match, so neither can be the key.

    ## Example
    ```python
    hits = events.join(sessions, events.ts.between(sessions.start_ts, sessions.end_ts))
    ```

    ## Use instead
    ```python
    hits = events.join(
        sessions,
        (events.user_id == sessions.user_id) & events.ts.between(sessions.start_ts, sessions.end_ts),
    )
    ```
    Give the join an equality key: a key both sides share, or a bucket of the
    range (the day, `F.floor(F.col("ts") / 3600)` for the hour, with ranges
    that cross a bucket exploded into each bucket they cover), keeping the
    range as an extra condition. If one side is really small, broadcast it
    explicitly (`events.join(F.broadcast(sessions), ...)`): the nested loop
    then runs without a shuffle, and the hint records that it was meant.
    An OR of equalities becomes a `union` of one equi-join per equality.

    ## Fix safety
    No fix: the key depends on the data.

    ## References
    - Spark SQL guide, "Join Strategy Hints" (a nested-loop join is chosen
      when there are no equi-join keys).
    - Spark source: `JoinSelection` in `SparkStrategies.scala`.
    """

    code = "SPK422"
    name = "non-equi-join"
    summary = "a join condition without an equality between the sides runs as a nested-loop or cartesian join"
    default_reason = ("without an equality key Spark must test the condition on every pair of rows, n times "
                      "m; broadcast or proven-small sides and conditions it cannot decompose are left alone")
    triggers = ("join",)
    skip_in_tests = True
    doc_setup = "events = spark.table('web.events')\nsessions = spark.table('web.sessions')\n"

    invalid = (
        Invalid(_SETUP + "hits = events.join(sessions, events.ts.between(sessions.start_ts, sessions.end_ts))\n"),
        Invalid(_SETUP + "late = events.join(sessions, events['ts'] > sessions['end_ts'], 'left')\n"),
        Invalid(_SETUP + "x = events.join(sessions, (events.user_id == sessions.user_id) | "
                "(events.device_id == sessions.device_id))\n"),
        Invalid(_SETUP + "x = events.join(sessions, on=F.lit(True), how='inner')\n"),
        Invalid(_SETUP + "x = events.join(sessions, [events.ts >= sessions.start_ts, events.ts < sessions.end_ts])\n"),
        Invalid(_SETUP + "x = events.join(sessions, events.url.contains(sessions.path) & (events.ts > 0))\n"),
        Invalid(_SETUP + "x = events.join(sessions, F.expr('array_contains(sessions.pages, events.page)'))\n"),
        Invalid("from pyspark.sql import functions as F\n\ndef tag(clicks, campaigns):\n"
                "    return clicks.withColumn('d', F.to_date('ts')).join(\n"
                "        campaigns, F.col('d').between(F.col('start_day'), F.col('end_day')))\n"),
    )
    valid = (
        Valid(_SETUP + "hits = events.join(sessions, (events.user_id == sessions.user_id) & "
              "events.ts.between(sessions.start_ts, sessions.end_ts))\n"),
        Valid(_SETUP + "hits = events.join(sessions, 'user_id')\n"),
        Valid(_SETUP + "hits = events.join(sessions, on=['user_id', 'day'], how='left')\n"),
        Valid(_SETUP + "hits = events.join(F.broadcast(sessions), events.ts.between(sessions.start_ts, "
              "sessions.end_ts))\n"),
        Valid(_SETUP + "hits = events.join(sessions.hint('range_join', 60), events.ts > sessions.start_ts)\n"),
        Valid(_SETUP + "ranges = spark.createDataFrame([(0, 10), (10, 99)], ['lo', 'hi'])\n"
              "b = events.join(ranges, events.score.between(ranges.lo, ranges.hi))\n"),
        Valid(_SETUP + "cond = events.ts > sessions.start_ts\nhits = events.join(sessions, cond)\n"),
        Valid(_SETUP + "hits = events.join(sessions, F.expr('events.user_id = sessions.user_id'))\n"),
        Valid(_SETUP + "hits = events.join(sessions, events.user_id.eqNullSafe(sessions.user_id) & "
              "(events.ts < sessions.end_ts))\n"),
        Valid(_SETUP + "pairs = events.join(sessions)\npairs = events.crossJoin(sessions)\n"),
        Valid("import pandas as pd\nleft = pd.DataFrame()\nright = pd.DataFrame()\n"
              "x = left.join(right, left.a > right.b)\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "join":
            return
        ctx = self.ctx
        other = joins.right_side(node)
        on = lineage.join_condition(node)
        if other is None or on is None or lineage.using_keys(on) is not None or joins.join_how(node) == "cross":
            return
        left = node.func.value
        if not ctx.semantic.is_dataframe(left) or not joins.may_be_dataframe(ctx, other):
            return
        if self._deliberate(left) or self._deliberate(other):
            return
        kinds = [self._kind(c) for c in joins.conjuncts(on)]
        if not kinds or any(k in (EQUI, UNKNOWN) for k in kinds):
            return
        a, b = shown(ctx, left), shown(ctx, other)
        if all(k == CONSTANT for k in kinds):
            what = f"the join condition `{shown(ctx, on)}` is constant: a cartesian product of `{a}` and `{b}`"
        elif len(kinds) == 1 and isinstance(on, cst.BinaryOperation) and isinstance(on.operator, cst.BitOr):
            what = (f"the join condition `{shown(ctx, on)}` is an OR: no equality alone decides a match, so none "
                    f"is a join key, and every row of `{a}` is compared with every row of `{b}`")
        else:
            what = (f"the join condition `{shown(ctx, on)}` has no equality between the sides: Spark runs it "
                    f"as a nested-loop or cartesian join, comparing every row of `{a}` with every row of `{b}`")
        self.ctx.report(
            self,
            node,
            what,
            help="add an equality key (a shared key, or a bucket of the range such as the day or "
            "`floor(ts / 3600)`) and keep the range as an extra condition; if one side is small, broadcast it "
            "explicitly (`F.broadcast(...)`); an OR of equalities becomes a union of equi-joins",
            start=node.func.attr,
        )

    def _deliberate(self, side, depth: int = 0) -> bool:
        """A broadcast, a hint, or a side proven small: a nested loop there is cheap, or chosen."""
        if isinstance(side, cst.Call):
            if self.ctx.semantic.is_function(side.func, {"broadcast"}):
                return True
            if method_name(side) == "hint":
                return True
        value = self.ctx.semantic.infer(side)
        if value is not None and (value.bound == BOUNDED or isinstance(value.bound, int)):
            return True
        if isinstance(side, cst.Name):
            entry = joins.entry_of(self.ctx, side.value)
            if entry is not None and entry.node is not None and depth < 8:
                return self._deliberate(entry.node, depth + 1)
        return False

    def _kind(self, node) -> str:
        ctx = self.ctx
        if isinstance(node, cst.Comparison):
            if len(node.comparisons) != 1:
                return UNKNOWN  # a chained comparison is another rule's mistake
            op = node.comparisons[0].operator
            right = node.comparisons[0].comparator
            if isinstance(op, cst.Equal):
                return NON_EQUI if self._constant(node.left) or self._constant(right) else EQUI
            return NON_EQUI if isinstance(op, _RANGE) else UNKNOWN
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            parts = joins.disjuncts(node)
            # `(k & x) | (k & y)`: Spark's optimizer factors the common `k` out of the OR
            common = None
            for part in parts:
                texts = {ctx.code_for(c).strip() for c in joins.conjuncts(part) if self._kind(c) == EQUI}
                common = texts if common is None else common & texts
            return UNKNOWN if common else NON_EQUI
        if isinstance(node, cst.Name) and node.value == "True":
            return CONSTANT
        if isinstance(node, cst.Call):
            lit = node.func.attr.value if isinstance(node.func, cst.Attribute) else getattr(node.func, "value", None)
            unresolved_lit = lit == "lit" and ctx.semantic.qualified_name(node.func) is None  # a snippet's `F.lit`
            if ctx.semantic.is_function(node.func, {"lit"}) or unresolved_lit:
                args = positional_args(node)
                return CONSTANT if args and isinstance(args[0], cst.Name) and args[0].value == "True" else UNKNOWN
            if ctx.semantic.is_function(node.func, _NON_EQUI_FUNCTIONS):
                return NON_EQUI
            if ctx.semantic.is_function(node.func, {"expr"}):
                args = positional_args(node)
                text = literal_string(args[0]) if len(args) == 1 else None
                return _sql_kind(text) if text is not None else UNKNOWN
            method = method_name(node)
            if method == "eqNullSafe":
                return EQUI
            if method in _NON_EQUI_METHODS and ctx.semantic.is_column(node.func.value):
                return NON_EQUI
        return UNKNOWN

    def _constant(self, node) -> bool:
        if isinstance(node, _LITERALS) or isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
            return True
        return isinstance(node, cst.Call) and bool(self.ctx.semantic.is_function(node.func, {"lit"})) \
            and bool(positional_args(node)) and isinstance(positional_args(node)[0], _LITERALS)


def _sql_kind(text: str) -> str:
    """The kind of a condition written as SQL (`F.expr("...")`): every conjunct must be a known non-equality."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(text, read="spark")
    except Exception:  # sqlglot's errors, whatever the text holds
        return UNKNOWN
    parts = list(tree.flatten()) if isinstance(tree, exp.And) else [tree]
    non_equi = (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NEQ, exp.Between, exp.Like, exp.ILike, exp.RegexpLike,
                exp.Or, exp.ArrayContains, exp.In)
    kinds = []
    for part in parts:
        while isinstance(part, exp.Paren):
            part = part.this
        if isinstance(part, (exp.EQ, exp.NullSafeEQ)):
            constant = any(isinstance(side, (exp.Literal, exp.Boolean, exp.Null)) for side in (part.left, part.right))
            kinds.append(NON_EQUI if constant else EQUI)
        elif isinstance(part, exp.Boolean) and part.this is True:
            kinds.append(CONSTANT)
        else:
            kinds.append(NON_EQUI if isinstance(part, non_equi) and not _or_with_common_key(part) else UNKNOWN)
    if all(k == CONSTANT for k in kinds):
        return CONSTANT
    return NON_EQUI if all(k in (NON_EQUI, CONSTANT) for k in kinds) else (EQUI if EQUI in kinds else UNKNOWN)


def _or_with_common_key(part) -> bool:
    """`(k AND x) OR (k AND y)`: Spark factors `k` out of the OR."""
    from sqlglot import exp

    if not isinstance(part, exp.Or):
        return False
    common = None
    for branch in part.flatten():
        while isinstance(branch, exp.Paren):
            branch = branch.this
        conj = list(branch.flatten()) if isinstance(branch, exp.And) else [branch]
        texts = {c.sql() for c in conj if isinstance(c, exp.EQ)}
        common = texts if common is None else common & texts
    return bool(common)
