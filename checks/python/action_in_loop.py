import re

import libcst as cst

from checks.python._callees import ACTIONS, assigned_names, callee_actions
from checks.python._driver import shown
from checks.python._loops import chain_root
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import (
    DATAFRAME,
    SESSION,
    literal_string,
    method_name,
    positional_args,
)
from linter.semantic.bounds import template_text
from linter.semantic.values import target_names

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_LOOP_NAMES = {cst.For: "`for` loop", cst.While: "`while` loop", cst.ListComp: "list comprehension",
               cst.SetComp: "set comprehension", cst.DictComp: "dict comprehension", cst.GeneratorExp: "generator"}
# SQL commands Spark runs when `spark.sql(...)` is called, keeping their few rows on the driver.
_SHOW_WORDS = frozenset(
    ["CREATE", "TABLE", "TABLES", "DATABASES", "SCHEMAS", "COLUMNS", "PARTITIONS", "TBLPROPERTIES", "FUNCTIONS", "VIEWS", "CATALOGS", "EXTENDED"]
)
_COMMAND = re.compile(r"^\s*(?:SHOW|DESCRIBE|DESC|EXPLAIN)\b", re.IGNORECASE)

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\nevents = spark.table('events')\n"
)
# pydeequ's entry points whose `.onData(df)...run()` runs Spark jobs over `df` (a star import is the usual way in).
_DEEQU_RUNNERS = frozenset(("VerificationSuite", "AnalysisRunner", "ColumnProfilerRunner", "ConstraintSuggestionRunner"))


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
    a helper is not followed; inside it, frames made from the parameter by
    transformations count, a parameter rebound from something else does not).
    A comprehension or generator expression is a loop too: its element runs
    once per item (`[events.filter(F.col("day") == d).count() for d in
    days]`). One job per iteration is reported even on a frame made in the
    loop when nothing needs it: `.rdd` (then `map`, `collect` ...) of a SQL
    command (`spark.sql(f"SHOW CREATE TABLE {t}")`, `DESCRIBE`, `EXPLAIN`).
    Spark runs a command when `spark.sql` is called and keeps its rows on the
    driver: `collect()` or `first()` of that DataFrame runs no job, but the
    RDD conversion starts one (and Python workers) for each table of the loop.

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
    For a command per table, collect the command's own DataFrame:
    `spark.sql(f"SHOW CREATE TABLE {t}").collect()[0][0]` runs no job.

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
    default_reason = ("every action in the loop is a Spark job over the same data, one full scan per "
                      "iteration; frames made anew in the loop, and cached ones, are not reported")
    triggers = (*ACTIONS, "onData", "write", "evaluate")
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
        Invalid(_SETUP + "for field in events.schema.fields:\n    column_df = events.select(field.name).dropna()\n"
                "    if field.dataType.typeName() == 'string':\n"
                "        column_df = column_df.select(F.trim(field.name).alias(field.name))\n"
                "    print(field.name, column_df.count())\n"),
        Invalid(_SETUP + "def null_share(df, column):\n    return df.filter(F.col(column).isNull()).count() / df.count()\n\n"
                "for c in events.columns:\n    print(c, null_share(events, c))\n"),
        Invalid(_SETUP + "class Checks:\n    @staticmethod\n    def total(df, rule):\n"
                "        return df.agg(F.sum(rule)).collect()\n\n    def run(self, rules):\n"
                "        for rule in rules:\n            self.total(events, rule)\n"),
        Invalid(_SETUP + "counts = [events.filter(F.col('day') == d).count() for d in ['2024-01-01', '2024-01-02']]\n"),
        Invalid(_SETUP + "for d in ['2024-01-01', '2024-01-02']:\n    for row in events.filter(F.col('day') == d).collect():\n"
                "        print(row)\n"),
        Invalid(_SETUP + "shares = {c: events.filter(F.col(c).isNull()).count() for c in events.columns}\n"),
        Invalid(_SETUP + "def summarise(df, rule_type):\n    exploded = df.select(F.explode(rule_type).alias('r'))\n"
                "    totals = exploded.groupBy('r').count()\n    return totals.collect()\n\n"
                "for rule_type in ['row', 'agg']:\n    summarise(events, rule_type)\n"),
        Invalid(_SETUP + "def save(df, table, stats):\n    if not stats:\n        df = df.withColumn('run', F.lit(1))\n"
                "    writer = df.write.mode('append')\n    writer.saveAsTable(table)\n\n"
                "for t in ['a', 'b']:\n    save(events, t, False)\n"),
        Invalid(_SETUP + "def get_ddl(db, table):\n"
                "    return spark.sql(f'SHOW CREATE TABLE {db}.{table}').rdd.map(lambda r: r[0]).collect()[0]\n\n"
                "ddls = [get_ddl('sales', t) for t in spark.catalog.listTables('sales')]\n"),
        Invalid(_SETUP + "for t in ['a', 'b']:\n    cols = spark.sql(f'DESCRIBE {t}').rdd.map(lambda r: r.col_name).collect()\n"),
    )
    valid = (
        Valid(_SETUP + "for t in ['a', 'b']:\n    print(spark.table(t).count())\n"),
        Valid(_SETUP + "def size(df):\n    return df.count()\n\nfor t in ['a', 'b']:\n    print(size(spark.table(t)))\n"),
        Valid(_SETUP + "def size(df, name):\n    if name:\n        df = spark.table(name)\n    return df.count()\n\n"
              "for t in ['a', 'b']:\n    print(size(events, t))\n"),
        Valid(_SETUP + "def empty_like(df, table):\n    df = df.limit(0)\n    df.write.saveAsTable(table)\n\n"
              "for t in ['a', 'b']:\n    empty_like(events, t)\n    print(events.limit(0).count())\n"),
        Valid(_SETUP + "def by_key(df):\n    return df.groupBy('k').count()\n\nfor t in ['a', 'b']:\n"
              "    totals = by_key(events)\n"),
        Valid(_SETUP + "ddls = [spark.sql(f'SHOW CREATE TABLE {t}').collect()[0][0] for t in ['a', 'b']]\n"),
        Valid(_SETUP + "sizes = [spark.table(t).count() for t in ['a', 'b']]\n"),
        Valid(_SETUP + "totals = [r['n'] for r in events.groupBy('day').agg(F.count('*').alias('n')).collect()]\n"),
        Valid(_SETUP + "counts = [df.count() for df in [events, events.limit(5)]]\n"),
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
        self.reported_commands: set = set()  # id() of the command actions of called functions already reported
        self.current = None  # the index in `loops` of the loop the visited call runs in, per iteration

    def _enter(self, node, body) -> None:
        self.loops.append((node, None))  # names bound in the loop: computed when first needed

    def _bound_inside(self) -> set:
        loop, names = self.loops[self.current]
        if names is None:
            if isinstance(loop, _COMPREHENSIONS):
                names = set()
                comp = loop.for_in
                while comp is not None:
                    target_names(comp.target, names)
                    comp = comp.inner_for_in
            else:
                names = assigned_names([loop.body])
                if isinstance(loop, cst.For):
                    target_names(loop.target, names)
            self.loops[self.current] = (loop, names)
        return names

    def _enter_comprehension(self, node) -> None:
        self.loops.append((node, None))

    def _leave_comprehension(self, node) -> None:
        self.loops.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter_comprehension
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_comprehension

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
        self.current = self._repeating_loop()
        if self.current is None:
            return
        method = method_name(node)
        if method == "run":
            receiver = self._data_quality_run(node)
        elif method in ACTIONS:
            receiver = node.func.value
            if self._command_job(node, node, None):
                return
        else:
            # a helper of this file that runs an action on what it is given (`null_share(orders, c)`)
            for action in callee_actions(self.ctx, node):
                if action.call is not None and self._command_job(node, action.call, action.target):
                    return
                if self._check(node, action.target, f"`{shown(self.ctx, node.func)}(...)` (its `{action.method}()`)"):
                    return
            return
        if receiver is None:
            return
        shown_call = f"`{shown(self.ctx, receiver)}.{method}()`" if method != "run" else \
            f"a data quality run over `{shown(self.ctx, receiver)}`"
        self._check(node, receiver, shown_call)

    def _repeating_loop(self):
        """The index in ``self.loops`` of the innermost loop that runs the node being visited once per iteration:
        the node is in a loop's body (or a `while` loop's test), a comprehension's element, conditions or inner
        iterables. A `for` loop's iterable, or a comprehension's first one, runs once for the loop around it (`for
        t in tables: for row in spark.table(t).collect()`: per iteration of the outer loop). None: no loop does,
        up to the enclosing function."""
        ancestors = {id(a) for a in self.ctx.ancestors}
        for index in range(len(self.loops) - 1, -1, -1):
            entry = self.loops[index]
            if entry is None:
                return None  # a function or lambda defined in the loop: its body does not run per iteration
            loop = entry[0]
            if isinstance(loop, cst.For):
                repeated = [loop.body]
            elif isinstance(loop, cst.While):
                repeated = [loop.body, loop.test]
            else:
                repeated = [loop.key, loop.value] if isinstance(loop, cst.DictComp) else [loop.elt]
                comp = loop.for_in
                while comp is not None:
                    repeated += [i.test for i in comp.ifs]
                    if comp.inner_for_in is not None:
                        repeated.append(comp.inner_for_in.iter)
                    comp = comp.inner_for_in
            if any(id(r) in ancestors for r in repeated):
                return index
        return None

    def _command_job(self, node: cst.Call, action: cst.Call, session) -> bool:
        """Report `node` when `action` (the visited call, or the action a called function runs) is an action over
        `.rdd` of a SQL command's result (`spark.sql("SHOW CREATE TABLE t").rdd.map(...).collect()`): the command ran
        on the driver, and the RDD makes a job of its rows on every iteration. `session`: the caller's expression
        for the callee's session name, or None when the action is in the caller."""
        if method_name(action) not in ACTIONS:
            return False
        current, through_rdd = action.func.value, False
        while isinstance(current, (cst.Call, cst.Attribute, cst.Subscript)):
            if isinstance(current, cst.Attribute) and current.attr.value == "rdd":
                through_rdd = True
            if isinstance(current, cst.Call) and method_name(current) == "sql" and through_rdd:
                break
            current = current.func if isinstance(current, cst.Call) else current.value
        else:
            return False
        owner = current.func.value
        args = positional_args(current)
        if not args or not isinstance(owner, cst.Name):
            return False
        text = literal_string(args[0])
        if text is None and isinstance(args[0], cst.FormattedString):
            text = template_text(args[0])
        if text is None or not _COMMAND.match(text):
            return False
        if session is None:
            session = owner
        elif not (isinstance(session, cst.Name) and session.value == owner.value):
            return False
        value = self.ctx.semantic.infer(session)
        if value is None or value.kind != SESSION:
            return False
        words = text.upper().split()
        command = words[0]
        for word in words[1:]:  # `SHOW CREATE TABLE`, `SHOW TABLES`, not the names after them
            if word not in _SHOW_WORDS or command.split()[0] != "SHOW":
                break
            command += " " + word
        loop = _LOOP_NAMES[type(self.loops[self.current][0])]
        what = f"`.rdd` then `{method_name(action)}()` on `{owner.value}.sql(\"{command} ...\")`"
        if action is node:
            where, reported = f"{what} runs a Spark job on every iteration of the {loop}", node
        else:
            # reported in the function, where the fix goes, once however many loops call it
            if id(action) in self.reported_commands:
                return True
            self.reported_commands.add(id(action))
            where = (f"{what} runs a Spark job on every call of `{shown(self.ctx, node.func)}`, which a {loop} "
                     f"calls once per item")
            reported = action
        self.ctx.report(
            self, reported,
            f"{where}: Spark ran the `{command}` command when `spark.sql` was called and holds its few rows on the "
            f"driver; `.rdd` makes a job of them",
            help="collect the command's DataFrame itself (`spark.sql(...).collect()[0][0]`, `first()`): that runs no job",
            start=reported.func.attr if isinstance(reported.func, cst.Attribute) else reported.func)
        return True

    def _check(self, node: cst.Call, receiver, shown_call: str) -> bool:
        """Report `node` when the DataFrame `receiver` it acts on is scanned again on every iteration."""
        value = self.ctx.semantic.infer(receiver)
        if value is None or value.kind != DATAFRAME or value.bound == 0:
            return False  # (`df.limit(0)`: an empty relation, no scan)
        root = chain_root(receiver)
        if root is None:
            return False
        root_value = self.ctx.semantic.infer(root)
        if root_value is None or root_value.kind != DATAFRAME:
            return False
        if {"cached", "on-cache"} & set(root_value.flags or ()):
            return False  # cached before the loop: each iteration reads memory, what the help would advise
        loop = self.loops[self.current][0]
        rebuilt = root.value in self._bound_inside()
        if rebuilt and isinstance(loop, _COMPREHENSIONS):
            return False  # `[df.count() for df in frames]`: another frame per item
        if rebuilt and isinstance(loop, cst.For):
            outer = self._outer_source(root.value)
            if outer is None:
                return False  # a new batch each iteration (another table, another file): one job each is the point
            # `part = events.filter(...)` in the loop, then an action on `part`: a scan of `events` per iteration
            root = outer
            rebuilt = False
        kind = _LOOP_NAMES[type(loop)]
        if rebuilt:
            # an iterative algorithm: each round builds on the last, so the plan (and the job) grows too
            message = (f"{shown_call} runs a Spark job on every iteration of the "
                       f"`while` loop, over a `{root.value}` rebuilt each round: its plan grows with every iteration")
            help = (f"`checkpoint()` (or `localCheckpoint()`) `{root.value}` every few iterations to cut its lineage, "
                    "and test for convergence with a cheap action (`isEmpty()`, `limit(1)`)")
        else:
            message = (f"{shown_call} runs a Spark job over `{root.value}` on every "
                       f"iteration of the {kind}")
            help = (f"compute all iterations in one query (filter with `isin`, then `groupBy`), or `cache()` "
                    f"`{root.value}` before the loop")
        self.ctx.report(self, node, message, help=help,
                        start=node.func.attr if isinstance(node.func, cst.Attribute) else node.func)
        return True

    def _outer_source(self, name: str):
        """The DataFrame name, bound before the loop, from which every assignment of ``name`` earlier in the loop's
        body derives (`part = events.filter(...)`), or None (a new read per iteration, or anything else)."""
        loop = self.loops[self.current][0]
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
        if any(r is None for r in roots):
            return None
        # `column_df = df.select(c)`, then `if trim: column_df = column_df.select(...)`: still made from `df`
        roots = [r for r in roots if r.value != name]
        if not roots or len({r.value for r in roots}) != 1:
            return None
        root = roots[0]
        if root.value in self._bound_inside():
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
