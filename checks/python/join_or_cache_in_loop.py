import libcst as cst

from checks.python._driver import shown
from checks.python._loops import LoopTracker, chain_root, made_afresh_before
from linter.sources.python import child_nodes
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import method_name, persist_is_spark

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\nedges = spark.table('edges')\n"
)
_SHORT = 8  # a `for` over a literal list of at most this many items is a written-out chain, not a growing plan
_CUTS = ("checkpoint", "localCheckpoint")


def _calls_in(node, names) -> bool:
    """Whether ``node`` calls a method of one of these names anywhere (nested functions excluded)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        if isinstance(current, cst.Call) and method_name(current) in names:
            return True
        stack.extend(current.children)
    return False


def _counted(loop: cst.While) -> bool:
    """A `while` whose test compares a name the body steps (`while i < n: ... i += 1`)."""
    test = loop.test
    if not isinstance(test, cst.Comparison):
        return False
    names = {n.value for n in (test.left, *(c.comparator for c in test.comparisons)) if isinstance(n, cst.Name)}
    stack = [loop.body]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.AugAssign) and isinstance(current.target, cst.Name) \
                and current.target.value in names and isinstance(current.operator, (cst.AddAssign, cst.SubtractAssign)):
            return True
        stack.extend(child_nodes(current))
    return False


class JoinOrCacheInLoop(LoopTracker, PythonRule):
    """
    ## What it does
    Finds, inside a `for` or `while` loop:

    - a DataFrame joined onto itself round after round (`acc = acc.join(...)`),
      unless the loop cuts the lineage (`checkpoint()`, `localCheckpoint()`)
      or is a `for` over a short literal list (a chain of joins written as a
      loop), and unless the round first makes it afresh (`out =
      a.filter(a.d == d).join(b, "k")`, then `out = out.join(c, "k2")`: each
      round's plan has two joins, whatever the number of rounds);
    - in a `while` loop, a DataFrame rebuilt from itself by any transformation
      (`df = df.filter(...)`, `withColumn`, `union`), unless the loop cuts
      the lineage or counts its rounds (`while depth > 1: ... depth -= 1`, a
      `for` loop in disguise): a `for` loop's rounds are as many as its items
      (over columns, SPK401's case), a `while` loop's as many as its
      condition takes, which the code does not bound; a round that starts
      from a fresh frame (`df = spark.table(t)`, then `df = df.filter(...)`)
      grows nothing;
    - `cache()` / `persist()` of a DataFrame when nothing in the loop calls
      `unpersist()`. A `persist()` of what nothing else identifies
      (`df = model_step(df).persist()`) counts in a file that imports
      pyspark and no library whose objects persist too (dask, xarray, Ray):
      there it can only be a Spark DataFrame's or RDD's. `cache()` is not so
      telling (`tf.data` datasets and memoizers have one).

    Loops inside functions defined in the loop body do not count, nor a
    cache that runs once in the loop: under a lazy start on its own name
    (`if df is None or df.rdd.isEmpty(): df = spark.read...; df.cache()`)
    or under a test of the loop's item against a literal (`if table_name
    == "issue":`, one item of the list).

    ## Why is this bad?
    `acc = acc.join(...)` in a loop adds a join, and a shuffle, to one plan
    per iteration: the plan every later action analyses and runs grows
    without bound, and analysis alone takes minutes, or ends in a
    `StackOverflowError`, after a few dozen rounds.

    A `while` loop that refines a DataFrame until a condition holds (an
    iterative algorithm) adds a step to its plan each round: Catalyst merges
    consecutive filters when it optimises, but each round analyses the whole
    plan again, and a few thousand rounds overflow the stack.

    A `cache()` in a loop caches a new plan each iteration (the cache is
    keyed by the plan), and without `unpersist()` every iteration's data
    stays in executor memory until the end of the application, evicting what
    is actually reused and pushing shuffles to disk. Caching a DataFrame that
    does not change in the loop belongs before the loop.

    ## Example
    ```python
    reached = edges.select("dst")
    for _ in range(depth):
        reached = reached.join(edges, reached.dst == edges.src).select(edges.dst).cache()
    ```

    ## Use instead
    ```python
    reached = edges.select("dst")
    for i in range(depth):
        reached = reached.join(edges, reached.dst == edges.src).select(edges.dst)
        if i % 5 == 4:
            reached = reached.localCheckpoint()  # cut the lineage every few rounds
    ```

    ## Fix safety
    No fix.

    ## References
    - PySpark API: `DataFrame.localCheckpoint` ("truncate the logical plan
      of this DataFrame, which is especially useful in iterative
      algorithms where the plan may grow exponentially").
    - Spark RDD programming guide, "Removing Data".
    """

    code = "SPK419"
    name = "join-or-cache-in-loop"
    summary = ("a join, or a `while` loop's rebuilt frame, that grows one plan on every iteration, or a cache "
               "never released")
    default_reason = ("a join per round (or any step per round of a `while` loop) grows one plan until analysis "
                      "takes minutes or overflows the stack, and a cache never unpersisted keeps every round's data "
                      "in executor memory")
    skip_in_tests = True
    triggers = ("join", "cache", "persist", "while")
    doc_setup = 'edges = spark.table("edges")\ndepth = 10\n'

    invalid = (
        Invalid(_SETUP + "acc = spark.table('base')\nfor d in [r[0] for r in spark.table('days').take(400)]:\n"
                "    tmp = acc.join(edges.filter(edges.d == d), 'k')\n    acc = tmp\n    acc = acc.join(edges, 'k2')\n"),
        # a snippet (or a notebook cell) whose frame comes from elsewhere: `df` is only ever rebound from itself
        Invalid("from pyspark.sql import functions as F\nfor lookup in lookups:\n    df = df.join(lookup, 'id')\n"),
        Invalid(_SETUP + "reached = edges.select('dst')\nfor _ in range(10):\n"
                "    reached = reached.join(edges, reached.dst == edges.src).select(edges.dst)\n"),
        Invalid(_SETUP + "frontier = edges\nwhile frontier.count() > 0:\n"
                "    frontier = frontier.join(edges, 'src').cache()\n", count=2),
        Invalid(_SETUP + "for day in days:\n    if day != '2024-01-01':\n"
                "        batch = spark.table('events').where(F.col('day') == day).cache()\n"
                "        batch.write.parquet('s3://x/' + day)\n"),
        Invalid(_SETUP + "for day in days:\n    batch = spark.table('events').where(F.col('day') == day).cache()\n"
                "    batch.write.parquet('s3://x/' + day)\n    batch.groupBy('k').count().show()\n"),
        Invalid(_SETUP + "def expand(df, steps):\n    for s in steps:\n        df = df.join(edges, 'src', 'left')\n"
                "    return df\n"),
        # a convergence loop refining a frame that comes from elsewhere (a Column argument makes it a DataFrame)
        Invalid("from pyspark.sql import functions as F\nwhile condition:\n"
                "    df = df.filter(F.col('status') != 'done')\n"),
        Invalid(_SETUP + "frontier = edges\nwhile frontier.count() > 0:\n"
                "    frontier = frontier.filter(F.col('depth') < 10).withColumn('depth', F.col('depth') + 1)\n"),
        Invalid(_SETUP + "def train(df, model_transform):\n    for epoch in range(100):\n"
                "        df = model_transform(df).persist()\n    return df\n"),
    )
    valid = (
        Valid(_SETUP + "nodes = spark.table('nodes')\nfor d in [r[0] for r in spark.table('dates').take(40)]:\n"
              "    out = edges.filter(edges.d == d).join(nodes, 'src')\n    out = out.join(nodes, 'dst')\n"
              "    out.write.mode('overwrite').parquet('s3://out/' + d)\n"),
        Valid(_SETUP + "reached = edges\nfor i in range(10):\n    reached = reached.join(edges, 'src')\n"
              "    if i % 5 == 4:\n        reached = reached.localCheckpoint()\n"),
        Valid(_SETUP + "out = edges\nfor name in ['a', 'b', 'c']:\n    out = out.join(spark.table(name), 'id', 'left')\n"),
        Valid(_SETUP + "for t in tables:\n    joined = spark.table(t).join(edges, 'src')\n"
              "    joined.write.saveAsTable(t + '_x')\n"),
        Valid(_SETUP + "for day in days:\n    batch = spark.table('events').where(F.col('day') == day).cache()\n"
              "    batch.write.parquet('s3://x/' + day)\n    batch.unpersist()\n"),
        Valid(_SETUP + "for i in range(3):\n    def helper(df):\n        return df.join(df, 'k').cache()\n"),
        Valid("parts = []\nfor p in paths:\n    parts = parts.join(p)\n"),
        Valid(_SETUP + "for sep in [',', ';']:\n    line = sep.join(['a', 'b'])\n"),
        Valid(_SETUP + "import dask.dataframe as dd\nfor step in steps:\n    frame = step(frame).persist()\n"),
        Valid(_SETUP + "for epoch in range(10):\n    ds = make_dataset(epoch).cache()\n"),
        Valid(_SETUP + "df = None\nfor table in ['fact', 'entity', 'issue']:\n"
              "    if df is None or df.rdd.isEmpty():\n        df = spark.read.csv('s3://in/', header=True)\n"
              "        df.cache()\n    elif table == 'issue':\n        df = spark.read.csv('s3://issues/', header=True)\n"
              "        df.cache()\n    df.write.mode('overwrite').parquet('s3://out/' + table)\n"),
        # a counted `while` (as many rounds as the nesting is deep), a cut lineage, a fresh frame each round
        Valid(_SETUP + "depth = 3\nwhile depth > 1:\n    edges = edges.withColumn('a', F.flatten('a'))\n    depth -= 1\n"),
        Valid(_SETUP + "while edges.count() > 0:\n    edges = edges.filter(F.col('w') > 1).localCheckpoint()\n"),
        Valid(_SETUP + "while pending:\n    batch = spark.table(pending.pop())\n"
              "    batch = batch.filter(F.col('ok'))\n    batch.write.saveAsTable('out')\n"),
        Valid(_SETUP + "while line:\n    line = line.strip()\n"),
        Valid(_SETUP + "class Checkpointer:\n    def persist(self):\n        print('saved')\n\n"
              "ckpt = Checkpointer()\nfor epoch in range(10):\n    ckpt.persist()\n"),
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        loop = self.repeated_loop()
        if loop is None or len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        target = node.targets[0].target.value
        call = node.value
        join = call
        while isinstance(join, cst.Call) and isinstance(join.func, cst.Attribute) and method_name(join) != "join":
            join = join.func.value
        if not (isinstance(join, cst.Call) and method_name(join) == "join") or getattr(chain_root(join), "value", None) != target:
            if isinstance(loop, cst.While):
                self._rebuilt_in_while(loop, target, call)
            return
        other = join.args[0].value if join.args and join.args[0].keyword is None else None
        if not (self.ctx.semantic.is_dataframe(join.func.value) or other is not None and self.ctx.semantic.is_dataframe(other)):
            return  # (joined with a DataFrame: a DataFrame too)
        if _calls_in(loop, _CUTS):
            return
        if isinstance(loop, cst.For) and isinstance(loop.iter, (cst.List, cst.Tuple)) and len(loop.iter.elements) <= _SHORT:
            return
        if made_afresh_before(loop.body, target, join):
            return  # `out = a.filter(...).join(b, "k")` earlier in the round: each round joins a fresh frame
        kind = "for" if isinstance(loop, cst.For) else "while"
        self.ctx.report(
            self,
            join,
            f"`{target} = {target}.join(...)` in a `{kind}` loop adds a join and a shuffle to the same plan on every "
            "iteration: analysis and execution grow with each round",
            help=f"cut the lineage every few iterations (`{target} = {target}.localCheckpoint()`, or `checkpoint()` "
            "with a checkpoint directory), or build the inputs first and join once",
            start=join.func.attr,
        )

    def _rebuilt_in_while(self, loop: cst.While, target: str, call) -> None:
        """`df = df.filter(...)` in a `while` loop: the plan gains a step per round, for as many rounds as the
        condition takes, which nothing in the code bounds (a `for` over columns has as many rounds as
        columns: SPK401's case)."""
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)) or getattr(chain_root(call), "value", None) != target:
            return
        if method_name(call) in _CUTS or not self.ctx.semantic.is_dataframe(call) or _calls_in(loop, _CUTS):
            return
        if made_afresh_before(loop.body, target, call):
            return  # the round starts from a fresh frame (`df = spark.table(t)` ... `df = df.filter(...)`)
        if _counted(loop):
            return  # `while depth > 1: ...; depth -= 1`: a `for` loop written as a `while`, as many rounds as counted
        self.ctx.report(
            self,
            call,
            f"`{target} = {target}.{method_name(call)}(...)` in a `while` loop adds to the same plan on every "
            "round, for as many rounds as the loop runs: analysis grows with each one, until a "
            "`StackOverflowError`",
            help=f"cut the lineage every few rounds (`{target} = {target}.localCheckpoint()`, or `checkpoint()` "
            "with a checkpoint directory)",
            start=call.func.attr,
        )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in ("cache", "persist"):
            return
        loop = self.repeated_loop()
        if loop is None or not (self.ctx.semantic.is_dataframe(node.func.value) or self._spark_persist(node)):
            return
        if _calls_in(loop, ("unpersist",)):
            return
        root = getattr(chain_root(node.func.value), "value", None)
        if self._once_in(loop, root):
            return  # `if df is None: df = ...cache()`, `if name == "issue": ...`: not a cache per iteration
        what = f"`{shown(self.ctx, node.func.value)}`"
        kind = "for" if isinstance(loop, cst.For) else "while"
        self.ctx.report(
            self,
            node,
            f"`{method}()` of {what} in a `{kind}` loop caches a new plan on every iteration and nothing unpersists "
            "it: each iteration's data stays in executor memory",
            help="call `unpersist()` on the previous iteration's DataFrame once the new one is computed, or cache "
            f"once before the loop{f' if `{root}` does not change in it' if root else ''}",
            start=node.func.attr,
        )

    def _once_in(self, loop, root) -> bool:
        """Whether the node being visited sits in the body of an `if` (or `elif`) of ``loop`` that lets it run once:
        a lazy start on the cached name (`if df is None ...`), or the loop's item equal to a literal (`if
        table_name == "issue":`, one item of the list)."""
        target = loop.target.value if isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) else None
        ancestors = self.ctx.ancestors
        start = next((i for i, a in enumerate(ancestors) if a is loop), None)
        if start is None:
            return False
        for i in range(start + 1, len(ancestors) - 1):
            branch = ancestors[i]
            if not isinstance(branch, cst.If) or ancestors[i + 1] is not branch.body:
                continue
            for comparison in _comparisons(branch.test):
                left = comparison.left
                for part in comparison.comparisons:
                    right = part.comparator
                    if isinstance(part.operator, cst.Is) and _named(left, root) and _named(right, "None"):
                        return True
                    if isinstance(part.operator, cst.Equal) and target is not None and (
                            _named(left, target) and _literal(right) or _named(right, target) and _literal(left)):
                        return True
        return False

    def _spark_persist(self, node: cst.Call) -> bool:
        """`f(df).persist()` on what nothing else says: in a pyspark file importing no library whose objects
        persist too (dask), a Spark DataFrame's or RDD's, both of which hold a cache until unpersisted."""
        if method_name(node) != "persist" or not persist_is_spark(self.ctx.unit.text):
            return False
        return self.ctx.semantic.infer(node.func.value) is None  # (an object of the file's own class: its own)


def _comparisons(test) -> list:
    """The comparisons of an `if` test, through `or` / `and` and parentheses."""
    if isinstance(test, cst.BooleanOperation):
        return _comparisons(test.left) + _comparisons(test.right)
    return [test] if isinstance(test, cst.Comparison) else []


def _named(node, name) -> bool:
    return name is not None and isinstance(node, cst.Name) and node.value == name


def _literal(node) -> bool:
    return isinstance(node, (cst.SimpleString, cst.Integer, cst.ConcatenatedString))
