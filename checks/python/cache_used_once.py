import re

import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import method_name

_CACHES = ("cache", "persist")  # not checkpoint/localCheckpoint: those cut lineage, worth it even if read once
# builtins that read a frame given to them once (`display(df)`: one job) or not at all (`print(df)`: its schema)
_ONE_READ = frozenset(("print", "display", "repr", "str", "type", "isinstance", "id"))
_NO_READ = _ONE_READ - {"display"}  # (they show the plan's schema, no rows)
_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
# DataFrame methods that return a DataFrame without running a job: a read through them alone computes nothing
_TRANSFORMS = frozenset((
    "select selectExpr filter where withColumn withColumns withColumnRenamed withColumnsRenamed drop "
    "dropDuplicates distinct join crossJoin union unionByName unionAll intersect intersectAll subtract exceptAll "
    "groupBy groupby rollup cube agg orderBy sort sortWithinPartitions limit alias hint repartition coalesce "
    "sample fillna dropna replace na toDF").split())
_GROUPINGS = frozenset(("groupBy", "groupby", "rollup", "cube", "pivot"))
_GROUPED = frozenset(("agg", "count", "sum", "avg", "mean", "max", "min", "pivot", "applyInPandas"))


class CacheUsedOnce(PythonRule):
    """
    ## What it does
    Finds a variable assigned (with or without an annotation) a `cache()`d
    or `persist()`ed DataFrame (or cached in place by a bare `df.cache()`
    statement) that the rest of its
    function (or module) reads at most once, and, inside a function, one that
    is never `unpersist()`ed (unless the function returns it). An instance's
    frame (`self.lookup = spark.table("dim").cache()`, or `self.lookup.cache()`)
    is reported when the whole file reads `.lookup` at most once; that no
    method releases it is not reported, since the instance may hold it on
    purpose for later calls. A cached frame handed to a function whose body
    is not known to read it once (`process(df)`, `self.publish(df)`: any call
    but a DataFrame method, a `pyspark` function or `print`/`display`) is not
    reported at all: that body may read it many times, and release it.
    Only reads that run a job count: `by_day = df.groupBy("day").count()`
    reads the cache when `by_day` is used, and a statement of
    transformations alone reads nothing; a cache no job reads stores
    nothing, so one released with `unpersist()` is not reported, and one
    that is not is reported as a `cache()` that does nothing.
    `checkpoint()` and `localCheckpoint()` are not caches here: they cut a
    plan's lineage (in iterative loops above all), which pays off even when
    the result is read once. Preview rule (`--preview`).

    ## Why is this bad?
    Caching pays off only when the cached data is read again. Read once, it
    costs executor memory (evicting other cached data) and a serialization
    pass for nothing; the first action is also slower, because it computes
    and stores. A cache nobody releases keeps that memory for the rest of
    the application, crowding out shuffles and later caches.

    ## Example
    ```python
    daily = orders.groupBy("day").count().cache()
    daily.write.parquet("s3://reports/daily/")
    ```

    ## Use instead
    ```python
    daily = orders.groupBy("day").count()
    daily.write.parquet("s3://reports/daily/")
    ```

    ## Fix safety
    No fix.

    ## References
    - Spark RDD programming guide, "Which Storage Level to Choose?".
    """

    code = "SPK410"
    name = "cache-used-once"
    summary = "a cached DataFrame is read only once, or never released"
    preview = True
    triggers = ("cache", "persist")
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "daily = orders.groupBy('day').count().cache()\ndaily.write.parquet('s3://reports/daily/')\n"),
        Invalid(_SETUP + "def f():\n    x = orders.persist()\n    return x.count()\n"),
        Invalid(_SETUP + "def f():\n    x = orders.cache()\n    print(x.count())\n    x.show()\n"),
        Invalid(_SETUP + "daily = orders.groupBy('day').count()\ndaily.cache()\ndaily.write.parquet('s3://r/')\n"),
        Invalid(_SETUP + "daily = orders.groupBy('day').count()\ndaily = daily.cache()\ndaily.write.parquet('s3://r/')\n"),
        Invalid(_SETUP + "from pyspark.sql import DataFrame\ndaily: DataFrame = orders.groupBy('day').count().cache()\n"
                "daily.write.parquet('s3://r/')\n"),
        Invalid(_SETUP + "class Job:\n    def load(self):\n        self.daily = orders.groupBy('day').count().cache()\n"
                "        self.daily.write.parquet('s3://r/')\n"),
        Invalid(_SETUP + "class Job:\n    def load(self):\n        self.daily = orders.groupBy('day').count()\n"
                "        self.daily.persist()\n        return self.daily.count()\n"),
        Invalid(_SETUP + "daily = orders.groupBy('day').count().cache()\nprint(daily.count())\n"),
        Invalid(_SETUP + "daily = orders.groupBy('day').count().cache()\nprint(daily)\ndaily.write.parquet('s3://r/')\n"),
        # a transformation bound to a name reads the cache when that name runs a job
        Invalid(_SETUP + "def f():\n    x = orders.cache()\n    by_day = x.groupBy('day').count()\n"
                "    by_day.show()\n    x.unpersist()\n"),
        Invalid(_SETUP + "def f():\n    x = orders.cache()\n    x.groupBy('day').count()\n"),
    )
    valid = (
        Valid(_SETUP + "daily = orders.groupBy('day').count().cache()\ndaily.count()\ndaily.write.parquet('s3://r/')\n"),
        Valid(_SETUP + "daily = orders.groupBy('day').count()\ndaily.write.parquet('s3://r/')\n"),
        Valid(_SETUP + "def f():\n    x = orders.cache()\n    return x\n\ndef g(y):\n    return y\n"),
        Valid(_SETUP + "def f():\n    x = orders.cache()\n    print(x.count())\n    x.show()\n    x.unpersist()\n"),
        Valid(_SETUP + "daily = orders.groupBy('day').count()\ndaily.cache()\ndaily.count()\ndaily.write.parquet('s3://r/')\n"),
        Valid(_SETUP + "def g(edges):\n    for i in range(10):\n        edges = orders.join(edges, 'k').localCheckpoint()\n"
              "    return edges.count()\n"),
        Valid(_SETUP + "def g():\n    x = orders.localCheckpoint()\n    return x.count()\n"),
        Valid(_SETUP + "from pyspark.sql import DataFrame\ndaily: DataFrame = orders.groupBy('day').count().cache()\n"
              "daily.count()\ndaily.write.parquet('s3://r/')\n"),
        # handed to a function the file does not show: it may read the cache many times, and release it
        Valid(_SETUP + "from jobs import publish\ndaily = orders.groupBy('day').count().cache()\ntry:\n"
              "    publish(daily)\nfinally:\n    daily.unpersist()\n"),
        Valid(_SETUP + "def f(self):\n    daily = orders.groupBy('day').count().cache()\n    self.report(daily)\n"),
        # the instance's cache is read by another method too (and may be kept for later calls)
        Valid(_SETUP + "class Job:\n    def load(self):\n        self.daily = orders.groupBy('day').count().cache()\n"
              "        self.daily.write.parquet('s3://r/')\n\n    def size(self):\n        return self.daily.count()\n"),
        Valid(_SETUP + "class Job:\n    def load(self):\n        self.daily = orders.groupBy('day').count().cache()\n"
              "        self.publish(self.daily)\n"),
        # read by methods written before the one that caches it, in a loop, or through a local name
        Valid(_SETUP + "class Job:\n    def size(self):\n        return self.daily.count()\n\n    def top(self):\n"
              "        return self.daily.limit(5).collect()\n\n    def load(self):\n"
              "        self.daily = orders.groupBy('day').count().cache()\n"),
        Valid(_SETUP + "class Job:\n    def load(self, days):\n        self.daily = orders.groupBy('day').count().cache()\n"
              "        for d in days:\n            self.daily.filter(self.daily.day == d).write.parquet(f's3://r/{d}')\n"),
        Valid(_SETUP + "class Job:\n    def load(self):\n        self.daily = orders.groupBy('day').count().cache()\n"
              "        daily = self.daily\n        daily.count()\n        daily.write.parquet('s3://r/')\n"),
        # read in every round of a loop (through a name bound there, used above its binding too)
        Valid(_SETUP + "def f(days):\n    x = orders.cache()\n    prev = None\n    for d in days:\n"
              "        if prev is not None:\n            prev.write.parquet(f's3://r/{d}')\n"
              "        prev = x.where(f\"day = '{d}'\")\n    x.unpersist()\n"),
        Valid(_SETUP + "def f(days):\n    x = orders.cache()\n    for d in days:\n"
              "        x.filter(x.day == d).write.parquet(f's3://r/{d}')\n    x.unpersist()\n"),
        Valid(_SETUP + "def f():\n    x = orders.cache()\n    by_day = x.groupBy('day').count()\n"
              "    by_day.show()\n    by_day.write.parquet('s3://r/')\n    x.unpersist()\n"),
        # cached and released around transformations no job runs (a peer's negatives): nothing is ever stored
        Valid(_SETUP + "df = orders.cache()\nresult = df.groupBy('date').count()\ndf.unpersist()\n"),
        Valid(_SETUP + "class Job:\n    def run(self):\n        self.df = spark.table('orders')\n        self.df.cache()\n"
              "        result = self.df.groupBy('date').count()\n        self.df.unpersist()\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        # per function (the module first): name -> [assign node, reads, unpersisted, returned (or handed to a call
        # whose body may read it any number of times)]
        self.frames: list = [{}]
        # `self.x` cached anywhere in the file: "x" -> [assign node, reads of `.x` anywhere, _, handed to a call]
        self.attributes: dict = {}
        self.frame_attributes: set = set()  # the `x` of each `self.x = <a DataFrame>` seen so far
        # every use of `.x` for an `x` the file may cache on an instance, wherever it is (a method before the one
        # that caches it included): x -> [(node, how it is used, inside a loop)], counted at the module's end
        self.watched = set(re.findall(r"self\s*\.\s*(\w+)\s*(?:=(?!=)|\.\s*(?:cache|persist)\s*\()",
                                      ctx.unit.text))
        self.uses: dict = {}
        self.loops = 0
        # `result = df.groupBy("day").count()` computes nothing: that read counts only once `result` is used;
        # name -> [what to count then]
        self.pending: dict = {}
        self.cached_in_loops: dict = {}  # id(frame entry) -> the loop depth at its cache

    def visit_For(self, node) -> None:
        self.loops += 1

    def leave_For(self, node) -> None:
        self.loops -= 1

    def visit_While(self, node) -> None:
        self.loops += 1

    def leave_While(self, node) -> None:
        self.loops -= 1

    def visit_FunctionDef(self, node) -> None:
        self.frames.append({})

    def leave_FunctionDef(self, node) -> None:
        self._flush(self.frames.pop(), in_function=True)

    def leave_Module(self, node) -> None:
        self._flush(self.frames.pop(), in_function=False)
        # an instance's cache: read once in the whole file is reported; unreleased is not (the instance may keep it)
        for name, entry in self.attributes.items():
            entry[1] = 0
            for use, how, looped in self.uses.get(name, ()):
                if use is entry[4]:
                    continue  # the attribute the cache was assigned to or called on
                if how == "handed":
                    entry[3] = True  # `daily = self.daily`, `self.publish(self.daily)`: read where it goes
                elif how == "unpersisted":
                    entry[2] = True
                elif how == "read":
                    entry[1] += 2 if looped else 1  # a read in a loop runs once per round
        self._flush({f"self.{name}": entry[:4] for name, entry in self.attributes.items()}, in_function=False)

    def _flush(self, frame: dict, in_function: bool) -> None:
        for name, (assign, reads, unpersisted, returned) in frame.items():
            if returned:
                continue  # the caller reads it, and owns the cache
            if reads == 0:
                if unpersisted:
                    continue  # cached and released around no job: nothing is ever stored (a placeholder, or dead)
                # no job reads it, so nothing is stored either: only a misleading line (measured on local Spark:
                # `cache()`, a grouping nothing materialises, `unpersist()` ran no job and cached nothing)
                message = f"`{name}` is cached but no job here reads it: the `cache()` stores nothing and does nothing"
                help = "drop the `cache()`"
            elif reads == 1:
                message = f"`{name}` is cached but read once: caching costs memory and a slower first action for nothing"
                help = "drop the `cache()`; cache only what two or more actions read"
            elif in_function and not unpersisted:
                # At module level the application's end releases it; in a function it outlives its use.
                message = f"`{name}` is cached and never unpersisted: it holds executor memory after the function returns"
                help = f"call `{name}.unpersist()` after its last use"
            else:
                continue
            self.ctx.report(self, assign.value, message, help=help, start=assign.value.func.attr)

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1:
            self._assigned(node, node.targets[0].target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        """`daily: DataFrame = orders.cache()`, as `daily = orders.cache()`."""
        if node.value is not None:
            self._assigned(node, node.target, node.value)

    def _assigned(self, node, target, value) -> None:
        if _self_attribute(target) and self.ctx.semantic.is_dataframe(value):
            self.frame_attributes.add(target.attr.value)
        if not (isinstance(value, cst.Call) and method_name(value) in _CACHES and not value.args
                and self.ctx.semantic.is_dataframe(value.func.value)):
            return
        if isinstance(target, cst.Name):
            self.frames[-1][target.value] = entry = [node, 0, False, False]
            self.cached_in_loops[id(entry)] = self.loops
        elif _self_attribute(target) and len(self.frames) > 1:
            self.attributes[target.attr.value] = [node, 0, False, False, target]

    def visit_Expr(self, node: cst.Expr) -> None:
        """`df.cache()` as a statement: `df` is cached in place."""
        value = node.value
        if not (isinstance(value, cst.Call) and method_name(value) in _CACHES and not value.args):
            return
        receiver = value.func.value
        if isinstance(receiver, cst.Name) and self.ctx.semantic.is_dataframe(receiver):
            self.frames[-1][receiver.value] = entry = [node, 0, False, False]
            self.cached_in_loops[id(entry)] = self.loops
        elif _self_attribute(receiver) and len(self.frames) > 1 and self._self_frame(receiver):
            self.attributes[receiver.attr.value] = [node, 0, False, False, receiver]

    def _self_frame(self, node: cst.Attribute) -> bool:
        """Whether `self.x` holds a DataFrame (`self.x = spark.table(...)`, then `self.x.cache()`)."""
        return node.attr.value in self.frame_attributes or self.ctx.semantic.is_dataframe(node)

    def _opaque_call(self, call: cst.Call) -> bool:
        """Whether a frame given to ``call`` goes where the file does not count its reads: any call but a
        DataFrame method (`a.join(df)`: one read), a pyspark function (`F.broadcast(df)`) or a builtin that
        reads it once or not at all."""
        func = call.func
        if isinstance(func, cst.Name) and func.value in _ONE_READ:
            return False
        if isinstance(func, cst.Attribute) and self.ctx.semantic.is_dataframe(func.value):
            return False
        name = self.ctx.semantic.qualified_name(func) or ""
        return not name.startswith("pyspark")

    def _lazy(self, node):
        """How a read that runs no job ends: "discarded" (a statement of transformations only), the name a
        transformation's result is bound to, or None when the read may run a job (an action, a write, a call
        the file does not know, a frame handed on)."""
        grouped, top = False, node
        while True:
            parent = self.ctx.parent_of(top)
            if isinstance(parent, cst.Attribute) and parent.value is top:
                member = parent.attr.value
                if grouped and member in _GROUPED:
                    grouped = False
                elif member in _TRANSFORMS or member in _GROUPINGS:
                    grouped = grouped or member in _GROUPINGS
                else:
                    return None  # an action (`count`, `write`, `collect`) or a member the rule does not know
                top = parent
                call = self.ctx.parent_of(top)
                if isinstance(call, cst.Call) and call.func is top:
                    top = call
                continue
            if isinstance(parent, cst.Expr) and top is not node:
                return "discarded"
            if isinstance(parent, cst.Assign) and top is not node and len(parent.targets) == 1 \
                    and isinstance(parent.targets[0].target, cst.Name):
                return parent.targets[0].target.value
            return None

    def _read(self, node, entry, later=None) -> None:
        """A read of a cached frame's name (or `.x` attribute) ``node``; ``later`` counts it when a read that
        binds a transformation's result to a name turns out to be used (the default: in ``entry``)."""
        # (in a loop the walk's order is not the run's: a use above the binding runs after it, so a read
        # there counts as it is)
        lazy = self._lazy(node) if self.loops == 0 else None
        if lazy == "discarded":
            return  # `df.groupBy("day").count()` as a statement: no job reads the cache
        if lazy is not None:
            self.pending.setdefault(lazy, []).append(later or (lambda: entry.__setitem__(1, entry[1] + 1)))
            return  # `result = df.groupBy("day").count()`: a read when `result` is
        parent = self.ctx.parent_of(node)
        if isinstance(parent, cst.AssignTarget) or isinstance(parent, cst.AnnAssign) and parent.target is node:
            return
        if isinstance(parent, cst.Return):
            entry[3] = True
            return
        if isinstance(parent, cst.Attribute) and parent.attr.value == "unpersist":
            entry[2] = True
            return
        if isinstance(parent, cst.Attribute) and parent.attr.value in _CACHES:
            return  # the cache call itself (`df.cache()`, `df = df.cache()`), not a read
        if isinstance(parent, cst.Arg):
            call = self.ctx.parent_of(parent)
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in _NO_READ:
                return  # `print(df)`: the frame's schema, not its rows
            if isinstance(call, cst.Call) and self._opaque_call(call):
                entry[3] = True  # `process(df)`: its body may read it many times, and release it
                return
        # a read in a loop the cache is outside of runs once per round
        entry[1] += 2 if self.loops > self.cached_in_loops.get(id(entry), self.loops) else 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        """A use of `.x` (`self.x`, or `job.x` from outside the class: any `.x` counts), noted with how it is
        used; counted when the module ends, the cache being known by then."""
        name = node.attr.value
        if name not in self.watched:
            return
        probe = [None, 0, False, False]
        looped = self.loops > 0
        self._read(node, probe, later=lambda: self.uses.setdefault(name, []).append((node, "read", looped)))
        parent = self.ctx.parent_of(node)
        if probe[3] or (isinstance(parent, cst.Assign) and parent.value is node):
            how = "handed"  # given to an opaque call, returned, or bound to another name
        elif probe[2]:
            how = "unpersisted"
        elif probe[1]:
            how = "read"
        else:
            how = "other"  # assigned, cached, unpersisted
        self.uses.setdefault(name, []).append((node, how, self.loops > 0))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.pending:
            parent = self.ctx.parent_of(node)
            if isinstance(parent, cst.AssignTarget):
                del self.pending[node.value]  # bound anew: later uses read something else
            if not (isinstance(parent, cst.AssignTarget) or isinstance(parent, cst.Attribute) and parent.attr is node):
                for count in self.pending[node.value]:
                    count()  # each use of the transformation's result may run a job that reads the cache
        frame = self.frames[-1]
        entry = frame.get(node.value)
        if entry is None:
            return
        parent = self.ctx.parent_of(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return  # `other.df`, not the name `df`
        self._read(node, entry)


def _self_attribute(node) -> bool:
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"

