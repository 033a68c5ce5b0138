from typing import Optional

import libcst as cst

from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import method_name

_CACHES = ("cache", "persist")
_FILTERS = ("filter", "where")
# A condition that draws new values on every evaluation gives other rows on the cached and the filtered plan.
_NONDETERMINISTIC = ("rand", "uuid", "shuffle", "monotonically_increasing_id", "spark_partition_id", "now(")
_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\nevents = spark.table('events')\n"
)


class _Cached:
    """A cached DataFrame and what the rest of its scope does with it."""

    __slots__ = ("node", "call", "names", "label", "conditions", "kept", "other", "depth", "cond", "loops", "judged")

    def __init__(self, node, call, scopes: list, loops: int):
        self.node = node  # the `x.cache()` call, or the chained `.filter(...)` that reads it first
        self.call = call  # the cache() / persist() call
        self.names: set = set()  # the names that hold it (`x = events.cache()`: `x` and `events`)
        self.label = ""  # the name a message calls it (`x`)
        self.conditions: list = []  # the text of each filter a read applies
        self.kept = False  # a filtered read is assigned (`y = x.filter(c)`): later actions read the cache through it
        self.other = False  # a read that is not that filter, or one this rule cannot follow
        self.depth = len(scopes)  # a read in more scopes (a lambda, a comprehension) is not followed
        self.cond = scopes[-1].cond  # the if/loop depth of the cache in its scope
        self.loops = loops  # a read inside a loop the cache is not in may filter by another value each time
        self.judged = False


class FilterAfterCache(PythonRule):
    """
    ## What it does
    Finds a DataFrame that is cached (`cache()` / `persist()`) and then read
    only through one and the same `filter` / `where`: a chain
    `events.cache().filter(...)` whose cached frame nothing else reads, or a
    name (`x = events.cache()`, or `x.cache()` as a statement) every later
    read of which in its function (or module) is `x.filter(<same
    condition>)`.

    It is quiet as soon as any read uses the unfiltered frame, or filters it
    another way, or hands it on (returned, passed to a function, used in a
    nested function, a lambda or a comprehension), or filters it inside a
    loop (the same text may hold another value each time), and when the
    condition is not deterministic (`F.rand()`). One read that keeps the
    filtered frame (`paid = x.filter(...)`, read by later actions) is
    reported too; one read that ends in an action (`x.filter(...).count()`)
    is SPK410's (cache-used-once). `checkpoint()` is not a cache here: it
    cuts the lineage, which may be the point.

    On by default: when every read filters the same way, filtering first
    computes the same rows.

    ## Why is this bad?
    The cache holds every row of the frame, in executor memory (evicting
    other cached data and leaving less for execution) or on disk, and the
    first action pays to compute and store all of them; yet every reader
    keeps only the rows the filter lets through. Filtering before caching
    stores only those, and Spark may push the filter down to the scan
    (partition pruning, Parquet row-group skipping), which a filter on a
    cached relation cannot.

    ## Example
    ```python
    recent = events.cache()
    recent.filter(F.col("day") >= "2024-06-01").groupBy("user_id").count().write.parquet("s3://marts/users/")
    recent.filter(F.col("day") >= "2024-06-01").groupBy("page").count().write.parquet("s3://marts/pages/")
    ```

    ## Use instead
    ```python
    recent = events.filter(F.col("day") >= "2024-06-01").cache()
    recent.groupBy("user_id").count().write.parquet("s3://marts/users/")
    recent.groupBy("page").count().write.parquet("s3://marts/pages/")
    ```

    ## Fix safety
    No fix: the filter has to move into each place the cache is built and
    out of every read.

    ## References
    - Spark RDD programming guide, "RDD Persistence".
    - Spark SQL performance tuning guide, "Caching Data In Memory".
    """

    code = "SPK428"
    name = "filter-after-cache"
    summary = "a cached DataFrame read only through the same `filter`: the cache holds rows no one reads"
    default_reason = ("when every read filters the cache the same way, filtering first computes "
                      "the same rows, stores fewer of them and lets the filter reach the scan")
    skip_in_tests = True
    triggers = ("cache", "persist")
    doc_setup = 'events = spark.table("events")\n'

    invalid = (
        Invalid(_SETUP + "n = events.cache().filter('active = true').count()\n"),
        Invalid(_SETUP + "out = spark.read.parquet('s3://raw/').persist().where(F.col('v') > 0).groupBy('k').count()\n"),
        Invalid(_SETUP + "def f():\n    x = events.cache()\n    a = x.filter(F.col('ok')).count()\n"
                "    b = x.filter(F.col('ok')).groupBy('k').count()\n    return a, b\n"),
        Invalid(_SETUP + "def f():\n    x = events.cache()\n    x = x.filter(F.col('ok'))\n    x.count()\n"
                "    x.write.parquet('s3://ok/')\n    x.unpersist()\n"),
        Invalid(_SETUP + "def f():\n    x = events.select('k', 'ok')\n    x.cache()\n    x.where('ok').count()\n"
                "    x.where('ok').show()\n    x.unpersist()\n"),
    )
    valid = (
        Valid(_SETUP + "n = events.filter('active = true').cache().count()\n"),
        Valid(_SETUP + "def f():\n    x = events.cache()\n    a = x.filter(F.col('ok')).count()\n    return x.count()\n"),
        Valid(_SETUP + "def f():\n    x = events.cache()\n    a = x.filter(F.col('ok')).count()\n"
              "    b = x.filter(~F.col('ok')).count()\n"),
        Valid(_SETUP + "def f():\n    x = events.cache()\n    a = x.filter(F.col('ok')).count()\n"
              "    b = x.filter(F.col('ok')).count()\n    return x\n"),
        Valid(_SETUP + "def f(days):\n    x = events.cache()\n    for d in days:\n"
              "        x.filter(F.col('day') == d).write.parquet(d)\n        x.filter(F.col('day') == d).count()\n"),
        Valid(_SETUP + "def f():\n    x = events.cache()\n    a = x.filter(F.rand() < 0.1).count()\n"
              "    b = x.filter(F.rand() < 0.1).count()\n"),
        Valid(_SETUP + "def f():\n    x = events.cache()\n    x.filter('ok').count()\n    x.filter('ok').count()\n"
              "    save(x)\n"),
        Valid(_SETUP + "def f():\n    x = events.cache()\n    x.filter('ok').count()\n"),  # SPK410's
        Valid(_SETUP + "events.cache().filter('ok').count()\nevents.groupBy('k').count().show()\n"),
        Valid(_SETUP + "events.cache().filter('a > 1').count()\nevents.persist().filter('b > 1').count()\n"),
        Valid(_SETUP + "def f():\n    x = events.cache()\n    x.filter('ok').count()\n    x.filter('ok').count()\n"
              "    events.count()\n"),
        Valid(_SETUP + "def f():\n    x = events.cache()\n    g = lambda: x.filter('ok').count()\n"
              "    x.filter('ok').count()\n    x.filter('ok').count()\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.frames: list = [{}]  # per function (the module first): name -> _Cached
        self.anonymous: list = [[]]  # per function: (the chained filter, the cache call) of frames no name holds

    # -- scopes ---------------------------------------------------------------------
    def visit_FunctionDef(self, node) -> None:
        self.frames.append({})
        self.anonymous.append([])

    def leave_FunctionDef(self, node) -> None:
        self._flush(self.frames.pop(), self.anonymous.pop())

    def leave_Module(self, node) -> None:
        self._flush(self.frames.pop(), self.anonymous.pop())

    # -- caches ---------------------------------------------------------------------
    def _cache_call(self, value) -> Optional[cst.Call]:
        if isinstance(value, cst.Call) and method_name(value) in _CACHES and isinstance(value.func, cst.Attribute) \
                and self.ctx.semantic.is_dataframe(value.func.value):
            return value
        return None

    def _start(self, target: Optional[str], receiver: Optional[str], node, call) -> _Cached:
        """The cached frame ``target`` (assigned) and ``receiver`` (cached in place) hold from here on."""
        semantic = self.ctx.semantic
        frame = self.frames[-1]
        entry = frame.get(receiver) if receiver else None
        if entry is None:
            entry = _Cached(node, call, semantic.scopes, semantic.loop_depth)
            entry.label = target or receiver
            if receiver:
                frame[receiver] = entry
                entry.names.add(receiver)
        elif len(semantic.scopes) != entry.depth or semantic.loop_depth != entry.loops:
            entry.other = True  # cached again where its reads are not followed
        if target and frame.get(target) is not entry:
            old = frame.get(target)
            if old is not None:
                self._forget(target, old)
            frame[target] = entry
            entry.names.add(target)
        return entry

    def visit_Assign(self, node: cst.Assign) -> None:
        call = self._cache_call(node.value)
        if call is not None and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            # `cache()` returns its receiver: `x = events.cache()` caches `events` too
            receiver = call.func.value.value if isinstance(call.func.value, cst.Name) else None
            self._start(node.targets[0].target.value, receiver, call, call)

    def visit_Expr(self, node: cst.Expr) -> None:
        call = self._cache_call(node.value)
        if call is not None and isinstance(call.func.value, cst.Name):
            self._start(None, call.func.value.value, call, call)

    def visit_Call(self, node: cst.Call) -> None:
        """`<frame>.cache().filter(c)`: a read of the cached frame, made with the cache."""
        if method_name(node) not in _FILTERS or not isinstance(node.func, cst.Attribute):
            return
        call = self._cache_call(node.func.value)
        if call is None or self.ctx.semantic.in_loop:
            return  # in a loop, the cache of the same plan is read again by the next iteration's filter
        receiver = call.func.value
        if isinstance(receiver, cst.Name):
            entry = self._start(None, receiver.value, node, call)
            entry.conditions.append(self._condition(node))
        elif isinstance(receiver, cst.Call):
            self.anonymous[-1].append((node, call))

    def leave_Assign(self, node: cst.Assign) -> None:
        frame = self.frames[-1]
        for target in node.targets:
            name = target.target.value if isinstance(target.target, cst.Name) else None
            entry = frame.get(name) if name else None
            if entry is None or entry.call is node.value:
                continue  # not tracked, or the cache's own assignment
            if self.ctx.semantic.scopes[-1].cond > entry.cond:
                entry.other = True  # assigned anew in one branch only: later reads may be of either
            self._forget(name, entry)

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        entry = self.frames[-1].get(node.target.value) if isinstance(node.target, cst.Name) else None
        if entry is not None:
            entry.other = True

    # -- reads ----------------------------------------------------------------------
    def visit_Name(self, node: cst.Name) -> None:
        name = node.value
        frames = self.frames
        entry = frames[-1].get(name)
        outer = False
        if entry is None:
            for frame in reversed(frames[:-1]):
                entry = frame.get(name)
                if entry is not None:
                    outer = True  # read by a nested function: not followed
                    break
        if entry is None:
            return
        parent = self.ctx.parent_of(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return  # `obj.x`: another name
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            return
        if isinstance(parent, (cst.Param, cst.ImportAlias, cst.FunctionDef, cst.ClassDef, cst.AssignTarget)):
            return
        if isinstance(parent, cst.Attribute) and parent.value is node and not outer:
            method = parent.attr.value
            if method in ("unpersist", "is_cached", "storageLevel"):
                return
            if method in _CACHES:
                return  # caching again (or the cache call itself) is not a read
            grand = self.ctx.parent_of(parent)
            if method in _FILTERS and isinstance(grand, cst.Call) and grand.func is parent:
                semantic = self.ctx.semantic
                if len(semantic.scopes) == entry.depth and semantic.loop_depth == entry.loops:
                    entry.conditions.append(self._condition(grand))
                    entry.kept = entry.kept or self._in_assignment()
                    return
        entry.other = True

    def _in_assignment(self) -> bool:
        for node in reversed(self.ctx.ancestors):
            if isinstance(node, (cst.Assign, cst.AnnAssign)):
                return True
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                return False
        return False

    def _forget(self, name: str, entry: _Cached) -> None:
        """``name`` holds another frame from here on; judged when no name holds the cached one."""
        self.frames[-1].pop(name, None)
        entry.names.discard(name)
        if not entry.names:
            self._judge(entry)

    def _condition(self, call: cst.Call) -> str:
        return " ".join(",".join(self.ctx.code_for(a) for a in call.args).split())

    # -- verdicts -------------------------------------------------------------------
    def _flush(self, frame: dict, anonymous: list) -> None:
        for entry in frame.values():
            self._judge(entry)
        for node, call in anonymous:
            self._report(call, None, self._condition(node))

    def _judge(self, entry: _Cached) -> None:
        if entry.judged:
            return
        entry.judged = True
        if entry.other or not entry.conditions or len(set(entry.conditions)) != 1:
            return
        chained = entry.node is not entry.call
        if len(entry.conditions) < 2 and not chained and not entry.kept:
            return  # read once, by an action: SPK410 (cache-used-once) says to drop the cache
        self._report(entry.call, entry.label, entry.conditions[0])

    def _report(self, call, name: Optional[str], condition: str) -> None:
        if any(word in condition for word in _NONDETERMINISTIC):
            return
        method = method_name(call)
        what = f"`{name}`" if name else f"`{shown(self.ctx, call.func.value)}`"
        shown_condition = condition if len(condition) <= 40 else condition[:37] + "..."
        self.ctx.report(
            self,
            call,
            f"{what} is cached with `{method}()` but only read through `filter({shown_condition})`: the cache holds "
            "rows no one reads",
            help=f"filter before caching (`.filter(...).{method}()`); if it is read once, drop the `{method}()`",
            start=call.func.attr,
        )
