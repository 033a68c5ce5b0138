import libcst as cst

from checks.python._callees import ACTIONS, assigned_names, callee_actions
from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import DATAFRAME, method_name
from linter.semantic.values import target_names

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\nevents = spark.table('events')\n"
)
# pydeequ's entry points whose `.onData(df)...run()` runs Spark jobs over `df` (a star import is the usual way in).
_DEEQU_RUNNERS = frozenset(("VerificationSuite", "AnalysisRunner", "ColumnProfilerRunner", "ConstraintSuggestionRunner"))


def chain_root(node):
    """The Name at the bottom of ``a.b(...).c(...)``, or None."""
    while True:
        if isinstance(node, cst.Call):
            node = node.func
        elif isinstance(node, cst.Attribute):
            node = node.value
        elif isinstance(node, cst.Subscript):
            node = node.value
        else:
            return node if isinstance(node, cst.Name) else None


class ActionInLoop(PythonRule):
    """
    ## What it does
    Finds DataFrame actions (`collect`, `count`, `toPandas`, `show`, `first`,
    `take`, `head`, `tail`, `toLocalIterator`, `isEmpty`) inside a `for` or
    `while` loop when the DataFrame they act on comes from a variable defined
    before the loop: the same data is scanned once per iteration. Actions on
    DataFrames made inside a `for` loop (`spark.table(name)` for each table
    name, a new batch each time) are not reported, unless every one of them is
    derived from a DataFrame defined before the loop (`part =
    events.filter(...)` in the loop, then `part.count()`: still a scan of
    `events` per iteration). A pydeequ run (`VerificationSuite(spark)
    .onData(df)...run()`, and its analysis, profiling and suggestion runners)
    is an action on `df`. A DataFrame cached before the loop (`df = df.cache()`)
    is not reported: each iteration reads memory. In a `while` loop an action
    on a DataFrame rebuilt each round is reported too: that is an iterative
    algorithm whose plan grows by one round per iteration (the classic
    convergence loop `while nested.count() > 0`), which wants a `checkpoint()`.
    The DataFrame may be known from how the code uses it (a parameter on which
    `join`, `withColumn`, `.write`... are called). A call, in the loop, of a
    function or method this file defines whose body runs an action on the
    parameter it is given (`null_share(events, c)` counting `df`) is that
    action, over the caller's DataFrame (one level is read: a helper calling
    a helper is not followed; a parameter the body rebinds is not).

    ## Why is this bad?
    Every action is a Spark job: planning, scheduling, and a full read of the
    source unless it is cached. A loop over 365 days that filters and counts
    one DataFrame runs 365 jobs over the same table, where one `groupBy("day")`
    job answers them all.

    ## Example
    ```python
    events = spark.table("events")
    for day in days:
        print(day, events.filter(F.col("day") == day).count())
    ```

    ## Use instead
    ```python
    events = spark.table("events")
    daily = events.where(F.col("day").isin(days)).groupBy("day").count()
    daily.write.mode("overwrite").saveAsTable("reports.daily_counts")
    ```

    ## Fix safety
    No fix: the single query depends on what the loop computes.

    ## References
    - Spark RDD programming guide, "RDD Operations" (each action runs a job;
      persist what is reused).
    """

    code = "SPK104"
    skip_in_tests = True
    name = "action-in-loop"
    summary = "a DataFrame action runs a Spark job on every iteration of a loop"
    triggers = (*ACTIONS, "onData")
    doc_setup = 'days = ["2024-01-01", "2024-01-02"]\n'

    invalid = (
        Invalid(_SETUP + "for day in ['2024-01-01', '2024-01-02']:\n    n = events.filter(F.col('day') == day).count()\n"),
        Invalid(_SETUP + "for c in ['a', 'b']:\n    events.select(c).distinct().show()\n"),
        Invalid(_SETUP + "i = 0\nwhile i < 3:\n    rows = events.limit(10).collect()\n    i += 1\n"),
        Invalid(
            "from pyspark.sql import DataFrame\n"
            "def report(df: DataFrame, keys):\n    for k in keys:\n        df.where(df.key == k).toPandas()\n"
        ),
        Invalid(
            "from pyspark.sql import functions as F\n"
            "def closure(cl, pg):\n    while True:\n"
            "        nested = cl.join(pg, cl.child == pg.parent).select(F.col('a')).distinct()\n"
            "        if nested.count() == 0:\n            break\n        cl = cl.unionByName(nested)\n"
        ),
        Invalid(
            "from pyspark.sql import functions as F\n"
            "def per_key(df, keys):\n    for k in keys:\n        print(df.filter(F.col('k') == k).count())\n"
        ),
        Invalid(_SETUP + "for day in ['2024-01-01', '2024-01-02']:\n    part = events.filter(F.col('day') == day)\n"
                "    print(part.count())\n"),
        Invalid(_SETUP + "from pydeequ.verification import *\nfrom pydeequ.checks import *\n"
                "for month in range(1, 13):\n    part = events.filter(F.month('ts') == month)\n"
                "    result = VerificationSuite(spark).onData(part).addCheck(Check(spark, CheckLevel.Warning, 'c')"
                ".isComplete('id')).run()\n"),
        Invalid(_SETUP + "def null_share(df, column):\n    return df.filter(F.col(column).isNull()).count() / df.count()\n\n"
                "for c in events.columns:\n    print(c, null_share(events, c))\n"),
        Invalid(_SETUP + "class Checks:\n    @staticmethod\n    def total(df, rule):\n"
                "        return df.agg(F.sum(rule)).collect()\n\n    def run(self, rules):\n"
                "        for rule in rules:\n            self.total(events, rule)\n"),
    )
    valid = (
        Valid(_SETUP + "for t in ['a', 'b']:\n    print(spark.table(t).count())\n"),
        Valid(_SETUP + "def size(df):\n    return df.count()\n\nfor t in ['a', 'b']:\n    print(size(spark.table(t)))\n"),
        Valid(_SETUP + "def size(df):\n    df = df.limit(0)\n    return df.count()\n\nfor t in ['a', 'b']:\n"
              "    print(size(events))\n"),
        Valid(_SETUP + "for path in ['/a', '/b']:\n    batch = spark.read.parquet(path)\n    print(batch.count())\n"),
        Valid(_SETUP + "for path in ['/a', '/b']:\n    batch = spark.read.parquet(path).filter('x > 1')\n"
              "    print(batch.count())\n"),
        Valid(_SETUP + "from pydeequ.verification import *\nresult = VerificationSuite(spark).onData(events).run()\n"),
        Valid(_SETUP + "for suite in suites:\n    suite.run()\n"),
        Valid(_SETUP + "tokens = events.select('label', 'token').cache()\nfor label in ['a', 'b']:\n"
              "    top = tokens.where(F.col('label') == label).groupBy('token').count().limit(50).collect()\n"),
        Valid(_SETUP + "n = events.count()\nfor i in range(n):\n    print(i)\n"),
        Valid(_SETUP + "for i in range(3):\n    def helper():\n        return events.count()\n"),
        Valid("for job in jobs:\n    job.count()\n"),
        Valid("import pandas as pd\nfrom pyspark.sql import functions as F\n"
              "def per_key(pdf, keys):\n    pdf = pd.read_csv('x.csv')\n    for k in keys:\n"
              "        print(pdf.query('k == @k').count())\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.loops: list = []  # (loop node, names bound inside it)

    def _enter(self, node, body) -> None:
        self.loops.append((node, None))  # names bound in the loop: computed when first needed

    def _bound_inside(self) -> set:
        loop, names = self.loops[-1]
        if names is None:
            names = assigned_names([loop.body])
            if isinstance(loop, cst.For):
                target_names(loop.target, names)
            self.loops[-1] = (loop, names)
        return names

    def visit_For(self, node: cst.For) -> None:
        self._enter(node, node.body)

    def leave_For(self, node: cst.For) -> None:
        self.loops.pop()

    def visit_While(self, node: cst.While) -> None:
        self._enter(node, node.body)

    def leave_While(self, node: cst.While) -> None:
        self.loops.pop()

    def visit_FunctionDef(self, node) -> None:
        self.loops.append(None)  # a function defined in a loop does not run per iteration

    def leave_FunctionDef(self, node) -> None:
        self.loops.pop()

    def visit_Lambda(self, node) -> None:
        self.loops.append(None)

    def leave_Lambda(self, node) -> None:
        self.loops.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if not self.loops or self.loops[-1] is None:
            return
        method = method_name(node)
        if method == "run":
            receiver = self._data_quality_run(node)
        elif method in ACTIONS:
            receiver = node.func.value
        else:
            # a helper of this file that runs an action on what it is given (`null_share(orders, c)`)
            for action in callee_actions(self.ctx, node):
                if self._check(node, action.target, f"`{shown(self.ctx, node.func)}(...)` (its `{action.method}()`)"):
                    return
            return
        if receiver is None:
            return
        shown_call = f"`{shown(self.ctx, receiver)}.{method}()`" if method != "run" else \
            f"a data quality run over `{shown(self.ctx, receiver)}`"
        self._check(node, receiver, shown_call)

    def _check(self, node: cst.Call, receiver, shown_call: str) -> bool:
        """Report `node` when the DataFrame `receiver` it acts on is scanned again on every iteration."""
        value = self.ctx.semantic.infer(receiver)
        if value is None or value.kind != DATAFRAME:
            return False
        root = chain_root(receiver)
        if root is None:
            return False
        root_value = self.ctx.semantic.infer(root)
        if root_value is None or root_value.kind != DATAFRAME:
            return False
        if {"cached", "on-cache"} & set(root_value.flags or ()):
            return False  # cached before the loop: each iteration reads memory, what the help would advise
        loop = self.loops[-1][0]
        # Per iteration: the body, and a while loop's test; not a for loop's iterable.
        repeated = (loop.body,) if isinstance(loop, cst.For) else (loop.body, loop.test)
        if not any(a is r for a in self.ctx.ancestors for r in repeated):
            return False
        rebuilt = root.value in self._bound_inside()
        if rebuilt and isinstance(loop, cst.For):
            outer = self._outer_source(root.value)
            if outer is None:
                return False  # a new batch each iteration (another table, another file): one job each is the point
            # `part = events.filter(...)` in the loop, then an action on `part`: a scan of `events` per iteration
            root = outer
            rebuilt = False
        kind = "for" if isinstance(loop, cst.For) else "while"
        if rebuilt:
            # an iterative algorithm: each round builds on the last, so the plan (and the job) grows too
            message = (f"{shown_call} runs a Spark job on every iteration of the "
                       f"`while` loop, over a `{root.value}` rebuilt each round: its plan grows with every iteration")
            help = (f"`checkpoint()` (or `localCheckpoint()`) `{root.value}` every few iterations to cut its lineage, "
                    "and test for convergence with a cheap action (`isEmpty()`, `limit(1)`)")
        else:
            message = (f"{shown_call} runs a Spark job over `{root.value}` on every "
                       f"iteration of the `{kind}` loop")
            help = (f"compute all iterations in one query (filter with `isin`, then `groupBy`), or `cache()` "
                    f"`{root.value}` before the loop")
        self.ctx.report(self, node, message, help=help,
                        start=node.func.attr if isinstance(node.func, cst.Attribute) else node.func)
        return True

    def _outer_source(self, name: str):
        """The DataFrame name, bound before the loop, from which every assignment of ``name`` earlier in the loop's
        body derives (`part = events.filter(...)`), or None (a new read per iteration, or anything else)."""
        loop = self.loops[-1][0]
        roots = []
        # the loop's statements before the one holding the action (in order), where `name` got its value
        on_path = {id(a) for a in self.ctx.ancestors}
        before = []
        for statement in getattr(loop.body, "body", ()):
            if id(statement) in on_path:
                break
            before.append(statement)
        stack = before
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            if isinstance(node, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                    for t in node.targets):
                roots.append(chain_root(node.value) if isinstance(node.value, cst.Call) else None)
            stack.extend(node.children)
        if not roots or any(r is None for r in roots) or len({r.value for r in roots}) != 1:
            return None
        root = roots[0]
        if root.value == name or root.value in self._bound_inside():
            return None
        outer = self.ctx.semantic.infer(root)
        return root if outer is not None and outer.kind == DATAFRAME else None

    def _data_quality_run(self, node: cst.Call):
        """pydeequ's `VerificationSuite(spark).onData(df)...run()` (and its analysis and profiling runners):
        the DataFrame `df` the run scans, or None."""
        data = None
        current = node.func.value
        while isinstance(current, cst.Call) and isinstance(current.func, cst.Attribute):
            if current.func.attr.value == "onData" and current.args:
                data = current.args[0].value
            current = current.func.value
        if data is None or not isinstance(current, cst.Call) or not isinstance(current.func, cst.Name) \
                or current.func.value not in _DEEQU_RUNNERS:
            return None
        q = self.ctx.semantic.qualified_name(current.func)
        if q is not None and not q.startswith("pydeequ."):
            if not (q == current.func.value and "pydeequ" in self.ctx.unit.text):
                return None  # a class of the same name from somewhere else
        elif q is None and "pydeequ" not in self.ctx.unit.text:
            return None
        return data
