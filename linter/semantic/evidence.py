"""Evidence: a name nothing proves is known from how its scope uses it.

Real code passes DataFrames around unannotated (a parameter ``df``, a helper's
result, ``self.df``).  A reader knows them by what is done to them, and so does
sparkcheck:

- **for**: a method or attribute only a Spark DataFrame has (``withColumn``,
  ``toPandas``, ``createOrReplaceTempView``, ``.write``, ``.rdd``, ``.na`` ...:
  ``DATAFRAME_ONLY``, chosen from pyspark's API without the names pandas,
  polars, dask, ibis or an ORM share), or a Column of ``pyspark.sql.functions``
  given to ``filter``/``where``/``select``/``join``/``agg``/... (``COLUMN_TAKING``),
  or a SQL condition string given to ``filter``/``where`` (``"active = true"``;
  a bare name such as ``"is_active"`` is no evidence: polars takes those too);
- **an RDD**: a member only RDDs have (``groupByKey``, ``reduceByKey``,
  ``mapValues``, ``zipWithIndex`` ...: ``RDD_ONLY``);
- **a name nothing in the file binds** (a snippet, a name a Databricks ``%run``
  notebook defines), in a file importing no other frame library: also the
  members other objects share (``collect``, ``count``, ``join``, ``cache`` ...:
  ``_FREE_NAME_MEMBERS``). In real modules such names hardly exist;
- **against**, and it wins: a method or attribute only those other libraries
  have (``FOREIGN_ONLY``: ``iterrows``, ``loc``, ``with_columns``, ``lazy``,
  ``compute``, ``objects`` ...), a pandas-only keyword (``inplace=``, ``axis=``),
  ``collect``/``count`` called with an argument (a Spark DataFrame's take none),
  or an assignment from one of their modules (``pd.read_csv``, ``pl.scan_csv``,
  ``dd.read_parquet`` ...).  ``LazyFrame.collect()`` is the classic false alarm.

Evidence is per scope (a function, a class for ``self.x``, or the module's own
statements) and read lazily: only when a rule asks about a name that nothing
proves, and only in a scope whose text mentions that name with one of the
methods above (a regex over the file, so most scopes are never scanned).  One
scan of a scope answers every later question about it.
"""

from __future__ import annotations

import builtins
import re
from typing import Optional

import libcst as cst

from linter.semantic.api import _SAME_ROWS
from linter.semantic.bounds import UNBOUNDED
from linter.sources.python import child_nodes
from linter.semantic.values import COLUMN, DATAFRAME, IMPORT, INSTANCE, RDD, Value, dotted_name, literal_string, target_names

# Methods and attributes only a Spark DataFrame has, among the frame libraries a
# Python job may use: none of pandas, polars, dask, ibis, SQLAlchemy or Django
# has a member of this name.  (`groupBy`/`orderBy` are camelCase: pandas and
# polars spell theirs `groupby`/`group_by`/`sort`; `rollup`/`cube` are SQL grouping
# sets, which only SQLAlchemy has, and as functions, not as members.)
DATAFRAME_ONLY = frozenset(
    "withColumn withColumns withColumnRenamed withColumnsRenamed withMetadata toPandas createOrReplaceTempView "
    "createTempView createGlobalTempView createOrReplaceGlobalTempView registerTempTable printSchema unionByName "
    "unionAll selectExpr dropDuplicates dropDuplicatesWithinWatermark crossJoin writeTo writeStream write rdd na "
    "stat groupBy rollup cube groupingSets orderBy sortWithinPartitions repartitionByRange localCheckpoint withWatermark toLocalIterator "
    "foreachPartition mapInPandas mapInArrow sameSemantics semanticHash inputFiles isStreaming unpersist colRegex "
    "exceptAll intersectAll toJSON approxQuantile sampleBy freqItems crosstab storageLevel".split()
)
# Methods that take Columns: a `pyspark.sql.functions` Column given to one of them
# says the receiver is a Spark DataFrame.
COLUMN_TAKING = frozenset("filter where select join agg groupby groupBy orderBy sort drop withColumn".split())
# Members only the other frame and query libraries have.
FOREIGN_ONLY = frozenset(
    # pandas (and pandas-on-Spark, which is not a Spark DataFrame either)
    "iterrows itertuples iteritems loc iloc at iat to_dict to_csv to_excel to_json to_parquet to_records to_numpy "
    "to_sql to_string shape set_index reset_index sort_values sort_index value_counts nunique "
    "applymap apply astype rename pivot_table assign insert append pipe query nlargest nsmallest "
    # polars
    "with_columns with_column with_row_count with_row_index lazy collect_schema group_by n_unique "
    "to_pandas to_arrow write_csv write_parquet write_delta write_json sink_parquet iter_rows glimpse "
    # dask, ibis
    "compute map_partitions npartitions to_delayed visualize execute mutate aggregate order_by "
    # Django and SQLAlchemy
    "objects values_list select_related prefetch_related annotate get_or_create bulk_create scalars scalar "
    "fetchall fetchone filter_by one_or_none".split()
)
FOREIGN_KEYWORDS = frozenset({"inplace", "axis", "ignore_index"})
FOREIGN_MODULES = (
    "pandas", "polars", "dask", "ibis", "modin", "vaex", "cudf", "duckdb", "sqlalchemy", "django", "pyarrow",
    "geopandas", "numpy", "pyspark.pandas", "databricks.koalas", "koalas",
)

# The opening of a callback-taking call, `foreachBatch(` / `foreachRDD(` (and `func=`), then what follows it:
_OPEN = r"\b{}\s*\(\s*(?:func\s*=\s*)?"
_NAMED = r"(?:self\.)?([A-Za-z_]\w*)"  # a function by name, or a method of the instance
_FORWARD = r"\s*:\s*" + _NAMED + r"\s*\(([^()]*)\)"  # a lambda's body calling a function with its arguments
# `writeStream.foreachBatch(fn)`, AWS Glue's `glueContext.forEachBatch(frame=..., batch_function=fn, ...)`, and
# `foreachBatch(functools.partial(fn, table="t"))` (keywords only: a bound positional would shift the batch)
_BATCH_FUNCTION = re.compile(
    _OPEN.format("foreachBatch") + r"(?:(?:functools\s*\.\s*)?partial\s*\(\s*)?" + _NAMED
    + r"\s*(?:\)|,\s*\w+\s*=)|\bbatch_function\s*=\s*" + _NAMED
)
# `foreachBatch(lambda df, epoch: upsert(spark, df, epoch))`: the function the lambda hands its batch to, at a place
_BATCH_LAMBDA = re.compile(_OPEN.format("foreachBatch") + r"lambda\s+(\w+\s*,\s*\w+)" + _FORWARD)
# `def upsert(micro_df, batch_id)`: foreachBatch's signature, by the name of its second parameter
_STARTS_BATCH = re.compile(r"\bforeachBatch\s*\(")  # (Glue's `forEachBatch` names its `batch_function=`)
_BATCH_IDS = frozenset({"batch_id", "batchId", "batchID", "batch_idx", "epoch_id", "epochId", "epochID"})
# `foreachBatch(make_upsert(spark, "t"))`: a factory whose returned inner function is the callback
_BATCH_FACTORY = re.compile(_OPEN.format("foreachBatch") + _NAMED + r"\s*\(")
# DStream's `foreachRDD(fn)` / `foreachRDD(lambda rdd: self.process(rdd))`: fn's last parameter (`(rdd)` or
# `(time, rdd)`), or the place the lambda hands its last parameter to, is each micro-batch's RDD
_RDD_CALLBACK = re.compile(_OPEN.format("foreachRDD") + _NAMED + r"\s*\)")
_RDD_LAMBDA = re.compile(_OPEN.format("foreachRDD") + r"lambda\s+([\w\s,]+?)" + _FORWARD)
# Calls whose argument is a Spark DataFrame (qualified names after imports are resolved).
DATAFRAME_TAKING = frozenset({"awsglue.dynamicframe.DynamicFrame.fromDF", "pyspark.sql.functions.broadcast"})
_MEMBER = None  # compiled on first use: `.` and the name of a watched member, one alternation (scanned in C)
_WORD_BEFORE = re.compile(r"\s*(\w+)")  # in the reversed text: the blanks and the word before a place
_SELF_BEFORE = re.compile(r"\s*\.\s*fles(?!\w)")  # in the reversed text: `self .` before a place


def _member_pattern():
    global _MEMBER
    if _MEMBER is None:
        names = "|".join(sorted(_WATCHED | FOREIGN_ONLY | _FREE_NAME_MEMBERS | RDD_ONLY, key=len, reverse=True))
        _MEMBER = re.compile(rf"\.\s*(?:{names})\b")
    return _MEMBER


def member_uses(text: str) -> list:
    r"""``(prefix, name)`` of each ``name.member`` and ``self.name.member`` of a watched member, as
    ``re.findall(r"\b(self\s*\.\s*)?([A-Za-z_]\w*)\s*\.\s*(?:members)\b", text)`` finds them (the prefix is
    the `self .` text or ""), without trying that pattern at every word of the text (a sixth of the time): the
    members' dots are found first, then the word before each and a `self .` before that word, and the matches
    are taken from the left, each starting past the end of the one before, `self .` first where both start."""
    hits = list(_member_pattern().finditer(text))
    if not hits:
        return []
    reversed_text = text[::-1]
    size = len(text)
    plain, prefixed = {}, {}  # where a match starts -> (where it ends, name[, prefix])
    for hit in hits:
        word = _WORD_BEFORE.match(reversed_text, size - hit.start())
        if word is None:
            continue
        name = word.group(1)[::-1]
        first = name[0]
        if not ("a" <= first <= "z" or "A" <= first <= "Z" or first == "_"):
            continue  # a word that starts with a digit (or a letter outside ASCII) starts no match
        start = size - word.end()
        plain[start] = (hit.end(), name)
        prefix = _SELF_BEFORE.match(reversed_text, size - start)
        if prefix is not None:
            prefixed[size - prefix.end()] = (hit.end(), name, text[size - prefix.end():start])
    out = []
    taken = 0
    for start in sorted(plain.keys() | prefixed.keys()):
        if start < taken:
            continue
        if start in prefixed:
            taken, name, prefix = prefixed[start]
            out.append((prefix, name))
        else:
            taken, name = plain[start]
            out.append(("", name))
    return out
_WATCHED = DATAFRAME_ONLY | COLUMN_TAKING | _SAME_ROWS
# A name nothing in the file binds (a snippet, a name a Databricks `%run` notebook defines) is taken for a
# DataFrame on these members too, which other objects share, when the file imports no other frame library.
_FREE_NAME_MEMBERS = frozenset(
    "collect count show take first head tail limit join cache persist explain toLocalIterator foreach isEmpty "
    "distinct filter where select drop sort orderBy repartition coalesce union agg display groupby".split()
)  # `groupby`: pyspark's alias of groupBy, which pandas shares (a file importing pandas has no free names)
# Members only a Spark RDD has (pair-RDD operations and the like): a name used with one is an RDD.
RDD_ONLY = frozenset(
    "groupByKey reduceByKey mapValues flatMapValues aggregateByKey combineByKey foldByKey sortByKey keyBy "
    "mapPartitionsWithIndex saveAsTextFile saveAsPickleFile saveAsSequenceFile zipWithIndex zipWithUniqueId "
    "countByKey countByValue collectAsMap cogroup subtractByKey leftOuterJoin rightOuterJoin fullOuterJoin "
    "glom".split()
)
# Members a Spark DataFrame (or RDD) has only without arguments: called with some, the object is something else.
# (`PandasConversionMixin.toPandas(df)`: a class's method called with the frame, not a frame's own)
_NO_ARGUMENTS = frozenset(("collect", "count", "isEmpty", "cache", "toPandas"))
# Names a notebook or Python itself provides: never a DataFrame of the user's.
_PROVIDED = frozenset(dir(builtins)) | frozenset(
    "spark sc sqlContext dbutils display displayHTML mssparkutils notebookutils glueContext get_ipython".split()
)
_FRAME_LIBRARY_IMPORT = re.compile(
    r"(?m)^[ \t]*(?:import|from)[ \t]+(?:pandas|polars|dask|modin|vaex|cudf|ibis|duckdb|databricks\.koalas|koalas"
    r"|pyspark\.pandas)\b"
)


# Libraries whose objects have a `persist()` of their own (dask collections, xarray's dask-backed arrays, Ray
# datasets' callers use dask-on-ray): in a pyspark file importing none of them, `x.persist()` is Spark's.
_PERSIST_LIBRARY_IMPORT = re.compile(r"(?m)^[ \t]*(?:import|from)[ \t]+(?:dask\w*|distributed|xarray|ray|modin)\b")


def persist_is_spark(text: Optional[str]) -> bool:
    """Whether a `persist()` whose receiver nothing else says can only be a Spark DataFrame's or RDD's: the file
    imports pyspark and no library whose objects persist too. `cache()` is not so telling (`tf.data`,
    `functools` and request caches have one)."""
    return bool(text) and "pyspark" in text and not _PERSIST_LIBRARY_IMPORT.search(text)


_FOREIGN_PACKAGES = tuple(m + "." for m in FOREIGN_MODULES)


def is_foreign(qualified: Optional[str]) -> bool:
    """Whether a qualified name belongs to pandas, polars, dask, an ORM ...: never a Spark object."""
    return qualified is not None and (qualified in FOREIGN_MODULES or qualified.startswith(_FOREIGN_PACKAGES))


def _usage_of(node) -> Optional[tuple]:
    """``(key, member)`` for ``x.member`` / ``self.x.member``: key ``x`` or ``self.x``.

    Through DataFrame transformations too: in ``df.coalesce(1).write`` the
    ``write`` is ``df``'s evidence, as ``coalesce`` keeps a DataFrame a DataFrame.
    """
    base = node.value
    while isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute) and base.func.attr.value in _SAME_ROWS:
        base = base.func.value
    if isinstance(base, cst.Name):
        return base.value, node.attr.value
    if isinstance(base, cst.Attribute) and isinstance(base.value, cst.Name) and base.value.value == "self":
        return "self." + base.attr.value, node.attr.value
    return None


def _body(node) -> list:
    """The statements directly inside a module, class or function."""
    if isinstance(node, cst.Module):
        return list(node.body)
    body = node.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else [body]


_NESTED = (cst.FunctionDef, cst.ClassDef)  # a nested function or class has scopes of its own: not read


def callback_params(node) -> list:
    """The names of a function's positional parameters, without a method's `self` or `cls`."""
    params = [p.name.value for p in node.params.params]
    return params[1:] if params and params[0] in ("self", "cls") else params


def _forwarded(places: dict, lambdas: list, first: bool) -> None:
    """From `lambda df, i: upsert(spark, df, i)` (the regexes' groups: the lambda's parameters, the function it
    calls, that call's arguments), the place where the function receives the lambda's batch (its first
    parameter, or with ``first`` False its last: `foreachRDD(lambda t, rdd: ...)`)."""
    for params, function, args in lambdas:
        batch = params.split(",")[0 if first else -1].strip()
        given = [a.strip() for a in args.split(",")]
        if batch in given:
            places.setdefault(function, given.index(batch))


class Evidence:
    """Mixed into ``Semantic``: ``evidence_value`` for names the bindings do not know."""

    def __init__(self):
        self._scanned: dict = {}  # id(scope node) -> {key: Value or False}
        self._watched: Optional[set] = None  # keys the file's text uses with a watched member
        self._batch_functions: Optional[tuple] = None  # see _batch_callbacks
        self._rdd_callbacks: Optional[dict] = None  # see rdd_callback_parameter
        self._file_names: Optional[frozenset] = None  # every name the file binds; None until asked

    def _batch_callbacks(self) -> tuple:
        """The file's `foreachBatch` callbacks, read from its text once: {function name: the position of its
        micro-batch parameter}, the names of the factories whose returned function is one, and whether the file
        starts a `foreachBatch` with a callback none of these forms names (chosen at run time)."""
        if self._batch_functions is None:
            text = self.text or ""
            places, factories, unnamed = {}, set(), False
            if "achBatch" in text or "batch_function" in text:
                for a, b in _BATCH_FUNCTION.findall(text):
                    places.setdefault(a or b, 0)
                _forwarded(places, _BATCH_LAMBDA.findall(text), first=True)
                factories = set(_BATCH_FACTORY.findall(text)) - {"partial", "functools"}
                unnamed = any(not any(p.match(text, m.start()) for p in (_BATCH_FUNCTION, _BATCH_LAMBDA, _BATCH_FACTORY))
                              for m in _STARTS_BATCH.finditer(text))
            self._batch_functions = (places, factories, unnamed)
        return self._batch_functions

    def batch_function(self, name: str) -> bool:
        """Whether ``name`` is given to ``writeStream.foreachBatch`` (directly, through ``functools.partial`` or a
        lambda): one of its parameters is each micro-batch's DataFrame."""
        return name in self._batch_callbacks()[0]

    def batch_parameter(self, node, enclosing=None) -> Optional[int]:
        """The position (after ``self``) of the micro-batch among the parameters of function ``node`` if it is a
        `foreachBatch` callback of this file, else None. ``enclosing`` is the function it is defined in, if any: the
        inner function a factory returns (`def make_upsert(t): def upsert(df, i): ...; return upsert` and
        `foreachBatch(make_upsert("t"))`) is a callback too, and so is a function with foreachBatch's signature,
        `(batch_df, batch_id)` by the name of its second parameter, in a file that starts a `foreachBatch` with a
        callback it chooses at run time (`foreachBatch(get_function(name)(settings))`) and never calls itself."""
        places, factories, unnamed = self._batch_callbacks()
        name = node.name.value
        if name in places:
            return places[name]
        params = callback_params(node)
        if len(params) == 2 and params[1] in _BATCH_IDS and unnamed and \
                re.search(rf"(?<!def )(?<![\w.]){re.escape(name)}\s*\(", self.text or "") is None:
            return 0  # `def upsert(micro_df, batch_id)` in a file that starts a `foreachBatch`: chosen at run time
        if isinstance(enclosing, cst.FunctionDef) and enclosing.name.value in factories and any(
                isinstance(line, cst.SimpleStatementLine) and isinstance(line.body[0], cst.Return)
                and isinstance(line.body[0].value, cst.Name) and line.body[0].value.value == name
                for line in _body(enclosing)):
            return 0
        return None

    def rdd_callback_parameter(self, node) -> Optional[int]:
        """The position (after ``self``) of the RDD among the parameters of function ``node`` if DStream's
        `foreachRDD` is given it (by name, or through a lambda), else None."""
        if self._rdd_callbacks is None:
            text = self.text or ""
            self._rdd_callbacks = {}
            if "foreachRDD" in text:
                for name in _RDD_CALLBACK.findall(text):
                    self._rdd_callbacks.setdefault(name, -1)  # the last parameter: `(rdd)` or `(time, rdd)`
                _forwarded(self._rdd_callbacks, _RDD_LAMBDA.findall(text), first=False)
        place = self._rdd_callbacks.get(node.name.value)
        if place == -1:
            count = len(callback_params(node))
            place = count - 1 if count in (1, 2) else None
        return place

    def _watched_keys(self) -> set:
        if self._watched is None:
            keys = set()
            text = self.text or ""
            for prefix, name in member_uses(text):
                keys.add("self." + name if prefix else name)
            if "fromDF" in text or "broadcast" in text:
                keys.update(re.findall(r"\b(?:fromDF|broadcast)\s*\(\s*([A-Za-z_]\w*)", text))
            if ".evaluate" in text:
                keys.update(re.findall(r"\.\s*evaluate\s*\(\s*([A-Za-z_]\w*)", text))
            self._watched = keys
        return self._watched

    def evidence_value(self, key: str, scope_node) -> Optional[Value]:
        """A DataFrame Value for ``key`` (a name or ``self.attr``) when its scope's use says so."""
        return self._evidence(key, scope_node) or None

    def refuted(self, key: str, scope_node) -> bool:
        """Whether the scope's use of ``key`` says it is a pandas/polars/dask/ORM object (counter-evidence)."""
        return self._evidence(key, scope_node) is False

    def _evidence(self, key: str, scope_node):
        if scope_node is None or key not in self._watched_keys():
            return None
        found = self._scanned.get(id(scope_node))
        if found is None:
            self._scanned[id(scope_node)] = {}  # in progress: no evidence while scanning (Column args recurse)
            found = self._scanned[id(scope_node)] = self._scan(scope_node)
        return found.get(key)

    def _scan(self, scope_node) -> dict:
        out: dict = {}
        stack = [s for s in _body(scope_node) if not isinstance(s, (cst.FunctionDef, cst.ClassDef))]
        if isinstance(scope_node, cst.ClassDef):
            # `self.x` in a class: every method's body is read, nested classes are not
            stack += [s for m in _body(scope_node) if isinstance(m, cst.FunctionDef) for s in _body(m)]
        # Exact classes, not isinstance: libcst's node classes are ABCs, whose isinstance is slow on every node.
        attribute, call, assign, nested = cst.Attribute, cst.Call, cst.Assign, _NESTED
        pop, extend = stack.pop, stack.extend
        while stack:
            node = pop()
            cls = node.__class__
            if cls is attribute:
                usage = _usage_of(node)
                if usage is not None:
                    self._judge(out, usage[0], usage[1], node)
            elif cls is call:
                self._judge_call(out, node)
            elif cls is assign and node.value.__class__ is call:
                if is_foreign(self._callee_module(node.value)) or _foreign_chain(node.value):
                    for target in node.targets:
                        key = _target_key(target.target)
                        if key is not None:
                            out[key] = False
            extend([c for c in child_nodes(node) if c.__class__ not in nested])
        return out

    def _callee_module(self, call: cst.Call) -> Optional[str]:
        """The qualified name a call's callee (or its chain's root) resolves to through imports."""
        func = call.func
        while True:
            if isinstance(func, cst.Attribute):
                inner = func.value
                if isinstance(inner, cst.Call):
                    func = inner.func
                    continue
                name = dotted_name(func)
            elif isinstance(func, cst.Name):
                name = func.value
            else:
                return None
            break
        if name is None:
            return None
        root, _, rest = name.partition(".")
        value = self.lookup(root)
        if value is None or value.kind != IMPORT:
            return None
        return f"{value.detail}.{rest}" if rest else value.detail

    def _judge(self, out: dict, key: str, member: str, node) -> None:
        if out.get(key) is False:
            return
        if member in FOREIGN_ONLY:
            out[key] = False
        elif member in DATAFRAME_ONLY and key not in out:
            out[key] = _inferred(f"`{key}.{member}` is used on it")
        elif member in RDD_ONLY and key not in out:
            out[key] = Value(RDD, UNBOUNDED, flags={"inferred"}, why=f"`{key}.{member}` is used on it (an RDD's)")
        elif member in _FREE_NAME_MEMBERS and key not in out and self.free_name(key):
            out[key] = _inferred(f"nothing in this file binds `{key}` (a snippet, or a name another notebook "
                                 f"defines) and `{key}.{member}` is used on it")

    def free_name(self, key: str) -> bool:
        """A name the file never binds (no assignment, import, parameter, definition or loop target), in a file
        importing no other frame library and no star import but pyspark's."""
        if "." in key or key in _PROVIDED:
            return False
        if self._file_names is None:
            self._file_names = self._bound_names()
        return key not in self._file_names

    def _bound_names(self) -> frozenset:
        text = self.text or ""
        module = self.scopes[0].node
        if module is None or _FRAME_LIBRARY_IMPORT.search(text):
            return _EVERYTHING
        names = set()
        stack = [module]
        while stack:
            node = stack.pop()
            cls = node.__class__
            if cls is cst.Name:
                pass
            elif cls in (cst.FunctionDef, cst.ClassDef):
                names.add(node.name.value)
            elif cls is cst.Param:
                names.add(node.name.value)
            elif cls in (cst.Import, cst.ImportFrom):
                if cls is cst.ImportFrom and isinstance(node.names, cst.ImportStar):
                    module_name = dotted_name(node.module) if node.module is not None else ""
                    if not (module_name or "").startswith("pyspark"):
                        return _EVERYTHING  # anything may come from it
                else:
                    for alias in node.names:
                        bound = alias.asname.name if alias.asname is not None else alias.name
                        name = dotted_name(bound) if not isinstance(bound, cst.Name) else bound.value
                        if name:
                            names.add(name.split(".")[0])
            elif cls is cst.Assign and _self_derived(node):
                # `df = df.join(lookup, "id")`: the name still comes from elsewhere (a snippet, another cell)
                stack.append(node.value)
                continue
            elif cls in (cst.MatchAs, cst.MatchStar) and node.name is not None:
                names.add(node.name.value)  # `case {"udf": udf}:` captures a name
            elif cls is cst.MatchMapping and node.rest is not None:
                names.add(node.rest.value)
            elif cls in (cst.AssignTarget, cst.For, cst.CompFor, cst.AugAssign, cst.AnnAssign, cst.NamedExpr,
                         cst.AsName, cst.Global, cst.Nonlocal):
                target = getattr(node, "target", None) or getattr(node, "name", None)
                if cls in (cst.Global, cst.Nonlocal):
                    names.update(n.name.value for n in node.names)
                else:
                    target_names(target, names)
            stack.extend(child_nodes(node))
        return frozenset(names)

    def _judge_call(self, out: dict, node: cst.Call) -> None:
        func = node.func
        if node.args and node.args[0].keyword is None:
            root = _chain_root(node.args[0].value)  # fromDF(df) or fromDF(df.coalesce(1), ...)
            if root is not None and root not in out and _normalise_name(self, func) in DATAFRAME_TAKING:
                out[root] = _inferred(f"`{dotted_name(func)}({root}...)` takes a DataFrame")
            elif root is not None and root not in out and func.__class__ is cst.Attribute and \
                    func.attr.value == "evaluate" and _ml_evaluator(self.infer(func.value)):
                out[root] = _inferred(f"an ML evaluator's `evaluate({root})` takes a DataFrame")
        if not isinstance(func, cst.Attribute):
            return
        usage = _usage_of(func)
        if usage is None:
            return
        key, member = usage
        if out.get(key) is False:
            return
        if any(a.keyword is not None and a.keyword.value in FOREIGN_KEYWORDS for a in node.args):
            out[key] = False
        elif member in _NO_ARGUMENTS and node.args and key not in out and func.value.__class__ is cst.Name:
            out[key] = False  # `stats.collect(5)`, `items.count(x)`: a Spark DataFrame's takes no argument
        elif member in COLUMN_TAKING and key not in out and self._takes_spark_column(node):
            out[key] = _inferred(f"`{key}.{member}(...)` is given a pyspark Column")
        elif member in ("filter", "where") and key not in out and _sql_condition(node):
            out[key] = _inferred(f"`{key}.{member}(...)` is given a SQL condition")

    def _takes_spark_column(self, node: cst.Call) -> bool:
        for arg in node.args:
            value = arg.value
            if isinstance(value, (cst.List, cst.Tuple)):
                items = [e.value for e in value.elements]
            else:
                items = [value]
            for item in items:
                inferred = self.infer(item)
                if inferred is not None and inferred.kind == COLUMN:
                    return True
        return False

    def receiver_evidence(self, method: str, node: cst.Call) -> Optional[Value]:
        """A DataFrame Value for an unknown receiver expression of ``node`` (``load().withColumn(...)``)."""
        if method in DATAFRAME_ONLY or (method in COLUMN_TAKING and self._takes_spark_column(node)) \
                or (method in ("filter", "where") and _sql_condition(node)):
            if any(a.keyword is not None and a.keyword.value in FOREIGN_KEYWORDS for a in node.args):
                return None
            return _inferred(f"`{method}` is called on it")
        return None


# A SQL condition as `filter`/`where` take it (`"active = true"`, `"amount > 0 AND day IS NOT NULL"`): an RDD's
# filter takes a function, pandas' takes `items`/`like`/`regex`, polars' takes expressions or a column name.
_SQL_CONDITION = re.compile(
    r"[<>!]=?|(?<![=<>!])=(?!=)|\b(?:is\s+(?:not\s+)?null|in\s*\(|between|like|rlike|and|or|not)\b",
    re.IGNORECASE,
)


def _ml_evaluator(value) -> bool:
    """A `pyspark.ml.evaluation` evaluator (`RegressionEvaluator(...)`, also through its setters)."""
    return value is not None and value.kind == INSTANCE and isinstance(value.detail, str) and \
        value.detail.startswith("pyspark.ml.evaluation.")


def _sql_condition(node: cst.Call) -> bool:
    """The call's only argument is a string literal holding a SQL condition, not a bare name."""
    if len(node.args) != 1 or node.args[0].keyword is not None:
        return False
    value = node.args[0].value
    if not isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
        return False
    text = literal_string(value)
    return text is not None and _SQL_CONDITION.search(text) is not None


class _Everything(frozenset):
    """Every name: the file may bind any (a star import, or another frame library is in play)."""

    def __contains__(self, name) -> bool:
        return True


_EVERYTHING = _Everything()


def _chain_root(node) -> Optional[str]:
    """``df`` of ``df`` or of ``df.coalesce(1).select(...)`` (through DataFrame transformations)."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _SAME_ROWS:
        node = node.func.value
    return node.value if isinstance(node, cst.Name) else None


def _normalise_name(semantic, func) -> Optional[str]:
    if not isinstance(func, (cst.Name, cst.Attribute)):
        return None
    value = semantic.infer(func)
    return value.detail if value is not None and value.kind == IMPORT else None


def _target_key(target) -> Optional[str]:
    if isinstance(target, cst.Name):
        return target.value
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
        return "self." + target.attr.value
    return None


def _foreign_chain(call: cst.Call) -> bool:
    """A call chain through a member only another library has (`Order.objects.filter(...)`, `session.query(User)
    .filter_by(...)`, `pdf.query(...)`): what it returns is that library's object, not a Spark one."""
    func = call.func
    while func.__class__ is cst.Attribute:
        if func.attr.value in FOREIGN_ONLY:
            return True
        inner = func.value
        func = inner.func if inner.__class__ is cst.Call else inner
    return False


def _inferred(why: str) -> Value:
    return Value(DATAFRAME, UNBOUNDED, flags={"inferred"}, why=why)


def _self_derived(node: cst.Assign) -> bool:
    """`df = df.<calls and attributes>` (or `df = df`): one name, rebound from a chain that starts at itself."""
    if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
        return False
    value = node.value
    while isinstance(value, (cst.Call, cst.Attribute)):
        value = value.func if isinstance(value, cst.Call) else value.value
    return isinstance(value, cst.Name) and value.value == node.targets[0].target.value
