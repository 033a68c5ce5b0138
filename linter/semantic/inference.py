"""Inference: the kind and row bound of an expression, from what the scopes hold."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from linter.semantic.api import (
    AGGREGATES, CACHES, SHUFFLES, WRITER_CONFIG, _BUILDER_CONFIG, _COMBINE, _CONTEXT_FILES, _DF_ATTRIBUTES,
    _GROUPED_RESULT, _GROUPING, _READER_CONFIG, _READER_LOAD, _RDD_SAME, _SAME_COLUMNS, _SAME_ROWS, DLT_READS,
    GLUE_CONTEXT, GLUE_DYNAMIC_FRAME, SESSION_ATTRIBUTES, SQL_CONTEXTS,
)
from linter.semantic.bounds import BOUNDED, UNBOUNDED, _combine_bounds, declared_small, source_bound, sql_bound
from linter.semantic.templates import template_parts
from linter.semantic.neighbours import neighbour_bound
from linter.semantic.scopes import _written_key, written_spellings
from linter.semantic.evidence import is_foreign
from linter.sources.python import child_nodes
from linter.semantic.values import (
    DELTA_TABLE, DYNAMICFRAME, FOREIGN, GLUE, GLUE_READER, MODEL, BUILDER, CLASS, COLUMN, CONTEXT, DATAFRAME, DATAFRAMES, FUNCTION, FUNCTIONS, GROUPED, IMPORT, INSTANCE, NA,
    PANDAS, RDD, READER, ROWS, SESSION, STRING, UDF, WINDOW, WRITER, Schema, Value, _normalise, dotted_name,
    literal_int, literal_string, literal_type, merge, method_name, normalise_type, parse_ddl, positional_args,
    keyword_arg,
)


class Inference:
    """What an expression is; mixed into ``Semantic`` with the scopes it reads."""

    def qualified_name(self, node) -> Optional[str]:
        value = self.infer(node)
        if value is not None and value.kind == IMPORT:
            return value.detail
        return None

    def is_function(self, node, names) -> Optional[str]:
        """The pyspark.sql.functions name a call's callee resolves to, if in ``names``."""
        if node.__class__ is cst.Attribute and node.attr.value not in names:
            return None  # `F.x`: the attribute is the function's own name (cheap test first)
        q = self.qualified_name(node)
        if q and q.startswith(FUNCTIONS + "."):
            short = q[len(FUNCTIONS) + 1 :]
            if short in names:
                return short
        return None

    def infer(self, node) -> Optional[Value]:
        try:
            return self._infer(node)
        except RecursionError:
            return None

    def _infer(self, node) -> Optional[Value]:
        # Exact classes, not isinstance (libcst's classes are ABCs, slow to test, and none has subclasses); the
        # most frequent first.
        cls = node.__class__
        if cls is cst.Name:
            name = node.value
            value = self.narrowed.get(name) or self.lookup(name)
            if value is None:
                scope = self.binding_scope(name)
                if scope is not None:
                    value = self.evidence_value(name, scope.node)
                    if value is not None and value.bound == UNBOUNDED and isinstance(scope.node, cst.FunctionDef):
                        value = self._with_callers_bound(value, scope.node, name)
            elif value.bound == UNBOUNDED and value.kind == DATAFRAME and (self.call_sites or self.package_callers):
                value = self._with_call_sites(value, name)
            elif value.kind == IMPORT and value.detail in self.project_sessions:
                return Value(SESSION)  # `from jobs.base import spark`: the session that module builds
            return value
        if cls is cst.Call:
            return self._call(node)
        if cls is cst.Attribute:
            return self._attribute(node)
        if cls is cst.Subscript:
            base = self._infer(node.value)
            if base is None:
                return None
            if base.kind == DATAFRAME and len(node.slice) == 1:
                index = node.slice[0].slice
                if isinstance(index, cst.Index):
                    if literal_string(index.value) is not None:
                        return Value(COLUMN)
                    if isinstance(index.value, (cst.List, cst.Tuple)):
                        return Value(DATAFRAME, base.bound, node=node)
            if base.kind == DATAFRAMES:
                return Value(DATAFRAME, base.bound, node=node)
            return None
        if cls is cst.IfExp:
            return merge(self._infer(node.body), self._infer(node.orelse))
        if cls is cst.ListComp or cls is cst.SetComp or cls is cst.DictComp:
            source = self._infer(node.for_in.iter)  # built from collected rows: as big as they are
            return Value(ROWS, node=node) if source is not None and source.kind == ROWS else None
        if cls is cst.SimpleString or cls is cst.ConcatenatedString:
            text = literal_string(node)
            return Value(STRING, detail=text, node=node) if text is not None else None
        if cls is cst.FormattedString:
            return Value(STRING, node=node)  # text unknown: `template_text(node)` reads its fields as names
        if cls is cst.BinaryOperation:
            left, right = self._infer(node.left), self._infer(node.right)
            if (left is not None and left.kind == COLUMN) or (right is not None and right.kind == COLUMN):
                return Value(COLUMN)
            if isinstance(node.operator, (cst.Add, cst.Modulo)) and any(
                    v is not None and v.kind == STRING for v in (left, right)):
                # `"SELECT (" + expr + ") AS OUTPUT"`, `"... %s" % x`: text built from a string, read as a template
                return Value(STRING, node=node)
            return None
        if cls is cst.Comparison:
            # `is`, `is not`, `in` and `not in` are Python's own: always a bool.
            if any(isinstance(t.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for t in node.comparisons):
                return None
            if self.is_column(node.left) or any(self.is_column(t.comparator) for t in node.comparisons):
                return Value(COLUMN)
            return None
        if cls is cst.UnaryOperation and isinstance(node.operator, (cst.BitInvert, cst.Minus, cst.Not)):
            # `not col` fails at run time, but is about a Column all the same (see SPK303)
            return Value(COLUMN) if self.is_column(node.expression) else None
        if cls is cst.BooleanOperation:
            return Value(COLUMN) if self.is_column(node.left) or self.is_column(node.right) else None
        return None

    def is_column(self, node) -> bool:
        value = self.infer(node)
        return value is not None and value.kind == COLUMN

    def is_dataframe(self, node) -> bool:
        value = self.infer(node)
        return value is not None and value.kind == DATAFRAME

    def text_of(self, node, depth: int = 0) -> Optional[str]:
        """The text a string expression holds when the file proves it: a literal, a name bound to one, an f-string
        whose fields are such names (`f"Tables/{table_name}"` after `table_name = "df_clean"`), or a `+` of them."""
        if depth > 8:
            return None  # `q = q + "..."` reads its own binding: not followed around
        if isinstance(node, cst.FormattedString):
            out = []
            for part in node.parts:
                if isinstance(part, cst.FormattedStringText):
                    out.append(part.value)
                elif part.format_spec is None and part.conversion is None:
                    text = self.text_of(part.expression, depth + 1)
                    if text is None:
                        return None
                    out.append(text)
                else:
                    return None
            return "".join(out)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            left = self.text_of(node.left, depth + 1)
            right = self.text_of(node.right, depth + 1) if left is not None else None
            return left + right if right is not None else None  # `"jdbc:sqlite:" + path`
        if isinstance(node, (cst.Name, cst.Attribute)):
            value = self.lookup(node.value) if isinstance(node, cst.Name) else self._infer(node)
            if value is not None and value.kind == STRING:
                return value.detail if isinstance(value.detail, str) else self.text_of(value.node, depth + 1)
            if value is not None and value.kind == IMPORT:  # `constants.CSV_HEADER` of a module of the project
                return self.project_constants.get(value.detail)
            return None
        return literal_string(node)

    def written_bound(self, target: Optional[str]):
        """The bound of a table, path or view this file wrote from a frame proven small (see Scopes._write), or,
        when the file writes nothing there, that the project declares small (`small-tables`); None when it wrote
        a frame not proven small there (a temp view of a big frame hides the table of that name), or nothing is
        known."""
        if target is None:
            return None
        spellings = written_spellings(_written_key(target))
        tainted = self.written_small["\0tainted"]
        # (None: a write the file cannot name, or SQL that may write anything, came first)
        unsure = None in tainted or any(spelling in tainted for spelling in spellings)
        if len(self.written_small) > 1:  # (the one entry is the set of tainted targets)
            if unsure:
                return None
            for spelling in spellings:
                bound = self.written_small.get(spelling)
                if bound is not None:
                    return None if bound == UNBOUNDED else bound
        if self.small_tables and declared_small(target, self.small_tables):
            return BOUNDED
        if self.neighbours and not unsure:
            return neighbour_bound(self.bundled_source[0], self.bundled_source[1], spellings)
        return None

    def target_key(self, node) -> Optional[str]:
        """How a table, path or view is named, to match a write with a read: the text when the file proves it,
        else the expression itself for an item (also nested) or attribute of a module-level constant bound once and
        never changed in place (`CONFIG["source"]`, `config["tables"]["ind"]`, `cfg.TABLE`), written
        `{CONFIG["source"]}`. A plain name the file
        does not prove is not a key: it may hold another value by then."""
        text = self.text_of(node)
        if text is not None:
            return text
        if isinstance(node, cst.Subscript):
            # `CONFIG["source"]`, also nested (`config["tables"]["ind"]`): literal keys all the way down
            items, base = [], node
            while isinstance(base, cst.Subscript) and len(base.slice) == 1 and isinstance(base.slice[0].slice, cst.Index):
                item = literal_string(base.slice[0].slice.value)
                if item is None:
                    return None
                items.append(item)
                base = base.value
            if items and isinstance(base, cst.Name) and self.constant_container(base.value):
                return "{" + base.value + "".join(f'["{item}"]' for item in reversed(items)) + "}"
            return None
        if isinstance(node, cst.Attribute):
            name = dotted_name(node)
            root = name.split(".", 1)[0] if name is not None else None
            if root is not None and root != "self" and self.constant_container(root):
                return f"{{{name}}}"
        return None

    def constant_container(self, name: str) -> bool:
        """A module-level name bound once (or never: a notebook's `%run` defines it), not rebound in the scopes
        around (a parameter, a local), and never changed in place by the file (`CONFIG["k"] = ...`,
        `CONFIG.update(...)`, `cfg.TABLE = ...`)."""
        if any(name in scope.names for scope in self.scopes[1:]):
            return False
        if self.module_assignment(name) is None and self.bindings(name) != 0:
            return False  # (a name the file never binds: a `%run` notebook's configuration, read the same way)
        return not self.changed_in_place(name)

    def changed_in_place(self, name: str) -> bool:
        """Whether the file changes what ``name`` holds without rebinding it: an item or attribute assigned, at
        any depth (`config["tables"]["ind"] = ...`), a mutating method (`update`, `append`, `extend`, ...), or
        `name += ...`."""
        changed = self.__dict__.setdefault("_changed_in_place", {})  # name -> answer: one text scan a name
        if name not in changed:
            pattern = re.compile(rf"(?<![\w.]){re.escape(name)}(?:\s*(?:\[[^\]\n]*\]|\.\w+))+\s*(?:[-+*/|&]?=(?!=))"
                                 rf"|(?<![\w.]){re.escape(name)}(?:\s*\[[^\]\n]*\])*\.(?:update|setdefault|pop|popitem"
                                 rf"|clear|__setitem__|append|extend|insert|remove)\s*\("
                                 rf"|(?<![\w.]){re.escape(name)}\s*[-+*/|&]=")
            changed[name] = pattern.search(self.text or "") is not None
        return changed[name]

    def _self_attribute(self, attr: str) -> Optional[Value]:
        """``self.attr`` in a method: what the class assigns it, or what its use in the class says."""
        cls = self.class_scope()
        if cls is None:
            return None
        value = cls.attrs.get(attr)
        if value is None:
            value = self.evidence_value("self." + attr, cls.node)
        return value

    def _attribute(self, node: cst.Attribute) -> Optional[Value]:
        base = self._infer(node.value)
        attr = node.attr.value
        if base is None:
            value = None
            if isinstance(node.value, cst.Name) and node.value.value == "self":
                value = self._self_attribute(attr)
            if value is None and attr in SESSION_ATTRIBUTES:
                value = Value(SESSION)
            return value
        kind = base.kind
        if kind == GLUE:
            if attr == "spark_session":
                return Value(SESSION)
            if attr in ("create_dynamic_frame", "create_data_frame"):
                return Value(GLUE_READER, detail=DYNAMICFRAME if attr == "create_dynamic_frame" else DATAFRAME)
            return None
        if kind == IMPORT:
            q = _normalise(f"{base.detail}.{attr}")
            if q.endswith("SparkSession.builder") or q == "databricks.connect.DatabricksSession.builder":
                return Value(BUILDER)  # Databricks Connect's builder makes a Spark Connect session
            if q in self.project_sessions:
                return Value(SESSION)  # `import jobs.base as base`, then `base.spark`
            return Value(IMPORT, detail=q)
        if kind == SESSION:
            if attr in ("read", "readStream"):
                return Value(READER, UNBOUNDED)
            if attr == "sparkContext":
                return Value(CONTEXT)
            return None
        if kind == DATAFRAME:
            if attr == "na":
                return Value(NA, base.bound, node=base.node)
            if attr == "rdd":  # flagged: a DataFrame's rows as Python objects (SPK108 follows a name holding it)
                return Value(RDD, base.bound, node=base.node, flags={"of-dataframe"})
            if attr == "sparkSession":
                return Value(SESSION)
            if attr in ("write", "writeTo"):
                return Value(WRITER, node=node)
            if attr in _DF_ATTRIBUTES or attr in _SAME_ROWS or attr in _COMBINE or attr.startswith("_"):
                return None  # methods, properties and private attributes are not columns
            return Value(COLUMN)
        return None

    def _call(self, node: cst.Call) -> Optional[Value]:
        func = node.func
        if isinstance(func, cst.Attribute):
            receiver = self._infer(func.value)
            method = func.attr.value
            if receiver is None:
                if isinstance(func.value, cst.Name) and func.value.value == "self":
                    cls = self.class_scope()
                    known = cls.names.get(method) if cls is not None else None
                    if known is not None and known.kind == FUNCTION and isinstance(known.detail, Value):
                        result = known.detail
                        passed = _sql_passed(known.node, node, 1) if result.kind == DATAFRAME else None
                        if passed is not None:
                            return self._sql_frame(passed, node)  # `self.run_sql("SHOW TABLES ...")`
                        return Value(result.kind, result.bound, result.detail, node, result.flags, result.why)
                if method in ("toDF", "to_spark"):
                    # RDD, Glue DynamicFrame, DeltaTable, pandas-on-Spark frames: all make DataFrames
                    return Value(DATAFRAME, UNBOUNDED, node=node)
                if method in ("transform", "fit") and node.args and node.args[0].keyword is None:
                    # an ML transformer's transform(dataset): a DataFrame in, a DataFrame out, but how many
                    # rows (a model keeps them, a statistics transformer makes one) only a fitted model says
                    dataset = self._infer(node.args[0].value)
                    if dataset is not None and dataset.kind == DATAFRAME:
                        if method == "fit":
                            return Value(MODEL, node=node)
                        return Value(DATAFRAME, None, node=node, flags=dataset.flags, why=dataset.why)
                if isinstance(func.value, cst.Name):
                    scope = self.binding_scope(func.value.value)
                    if scope is not None and self.refuted(func.value.value, scope.node):
                        return None  # `frame.loc[...]` elsewhere: pandas, whatever else is called on it
                receiver = self.receiver_evidence(method, node)
                if receiver is None:
                    return None
                receiver = self._through_chain(func.value, receiver)
            if receiver.kind == IMPORT:
                return self._function_call(_normalise(f"{receiver.detail}.{func.attr.value}"), node)
            return self._method_call(receiver, func.attr.value, node)
        if isinstance(func, cst.Name):
            value = self.lookup(func.value)
            if value is None:
                if func.value in ("dict", "list", "set", "sorted", "tuple"):
                    # a container built from collected rows is as big as they are
                    args = positional_args(node)
                    inner = self._infer(args[0]) if len(args) == 1 else None
                    if inner is not None and inner.kind == ROWS:
                        return Value(ROWS, node=node)
                return None
            if value.kind == IMPORT:
                return self._function_call(value.detail, node)
            if value.kind == FUNCTION:
                result = value.detail
                if isinstance(result, Value):
                    passed = _sql_passed(value.node, node, 0) if result.kind == DATAFRAME else None
                    if passed is not None:
                        return self._sql_frame(passed, node)  # `run_sql("SELECT current_user()")`
                    return Value(result.kind, result.bound, result.detail, node)
            if value.kind == CLASS:
                return Value(INSTANCE, detail=value.detail, node=node)
        return None

    def _function_call(self, q: str, node: cst.Call) -> Optional[Value]:
        if q in self.extra_dataframe_functions or q in DLT_READS:
            return Value(DATAFRAME, UNBOUNDED, node=node)
        if q == "pyspark.sql.DataFrame":
            # `DataFrame(jdf, sql_ctx)`: a frame a library wraps from the JVM, metrics or data, nobody here knows
            return Value(DATAFRAME, None, node=node)
        if q in SQL_CONTEXTS:
            return Value(SESSION)
        if q.startswith("pyspark.ml.evaluation.") and q.endswith("Evaluator"):
            return Value(INSTANCE, detail=q, node=node)  # its evaluate(df) is an action on df
        if q == GLUE_CONTEXT:
            return Value(GLUE)
        if q == GLUE_DYNAMIC_FRAME + ".fromDF" or (q.startswith("awsglue.transforms.") and q.endswith(".apply")):
            return Value(DYNAMICFRAME, node=node)
        if q.endswith(("DeltaTable.forPath", "DeltaTable.forName", "DeltaTable.convertToDelta")):
            return Value(DELTA_TABLE, node=node)
        if q.startswith(FUNCTIONS + "."):
            name = q[len(FUNCTIONS) + 1 :]
            if name == "broadcast":
                args = positional_args(node)
                return self._infer(args[0]) if args else None
            if name in ("udf", "pandas_udf"):
                args = positional_args(node)
                target = self._udf_target(args[0]) if args else None
                return Value(UDF, detail=target, node=node)
            if name == "lit":
                args = positional_args(node)
                return Value(COLUMN, detail=literal_type(args[0]) if args else None, node=node)
            return Value(COLUMN)
        if q.startswith(("pyspark.sql.Window.", "pyspark.sql.window.Window.")):
            return Value(WINDOW)
        if q in ("pandas.DataFrame", "pandas.concat") or q.startswith("pandas.read_"):
            return Value(PANDAS, node=node)
        if is_foreign(q):
            return Value(FOREIGN, detail=q, node=node)
        if q.endswith(("SparkSession.getActiveSession", "SparkSession.active")):
            return Value(SESSION)
        if q in ("pyspark.SparkContext", "pyspark.SparkContext.getOrCreate"):
            return Value(CONTEXT)
        return None

    def _through_chain(self, expr, assumed: Value) -> Value:
        """``x.limit(10)`` as a DataFrame when ``x`` is taken for one: the chain's own methods still count."""
        calls = []
        while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            calls.append(expr)
            expr = expr.func.value
        if not calls or not isinstance(expr, (cst.Name, cst.Attribute)):
            return assumed
        value = assumed
        for call in reversed(calls):
            value = self._method_call(value, call.func.attr.value, call)
            if value is None or value.kind != DATAFRAME:
                return assumed
        return value

    def _sql_frame(self, arg, node) -> Value:
        """``spark.sql(arg)``: its row bound from the text when it is known (a template's fields read as names),
        and {"shuffle"} when the text joins, groups, sorts, dedups or windows (recomputing it is expensive)."""
        text = self.sql_text(arg)
        if text is None:
            return Value(DATAFRAME, UNBOUNDED, node=node)  # unknown SQL: nothing bounds it
        flags = {"shuffle"} if _SQL_SHUFFLE.search(text) else None
        bound = sql_bound(text)
        if bound == UNBOUNDED and (len(self.written_small) > 1 or self.small_tables or self.neighbours):
            bound = self._sql_over_written(arg) or bound
        return Value(DATAFRAME, bound, node=node, flags=flags)

    def _sql_over_written(self, arg):
        """``spark.sql`` over one view or table this file made from a small frame (see ``written_bound``): a
        query that reads only it, or keeps only its rows (`LEFT ANTI`/`LEFT SEMI JOIN`), has at most its rows."""
        parts = self._sql_parts(arg)
        if parts is None:
            return None
        names, text = {}, []
        for part in parts:
            if isinstance(part, str):
                text.append(part)
                continue
            key = self.target_key(part[1]) if part[1] is not None else None
            if key is None:
                return None
            placeholder = f"__sparkcheck_{len(names)}__"
            names[placeholder] = key
            text.append(placeholder)
        return source_bound("".join(text), lambda table: self.written_bound(names.get(table, table)))

    def _sql_parts(self, arg) -> Optional[list]:
        """``spark.sql``'s argument as text and ``("field", expr)`` parts (``templates.sql_template``)."""
        first = self._infer(arg)
        if first is not None and first.kind == STRING:
            if first.detail is not None:
                return [first.detail]
            arg = first.node
        parts = template_parts(arg)
        if parts is None and isinstance(arg, cst.Name):
            bound = self.lookup(arg.value)
            parts = template_parts(bound.node) if bound is not None and bound.node is not None else None
        return parts

    def sql_text(self, arg) -> Optional[str]:
        """The text of ``spark.sql``'s argument when the file shows it (a literal, a constant, a template whose
        fields are read as names ``x``)."""
        parts = self._sql_parts(arg)
        return None if parts is None else "".join(p if isinstance(p, str) else " x " for p in parts)

    def _schema_of(self, node) -> Optional[Schema]:
        if node is None:
            return None
        text = literal_string(node)
        if text is None:
            value = self._infer(node)
            text = value.detail if value is not None and value.kind == STRING else None
        if text is not None:
            return parse_ddl(text)
        if isinstance(node, cst.List) and all(literal_string(e.value) for e in node.elements):
            return Schema([(literal_string(e.value), None) for e in node.elements])
        return None

    def _udf_target(self, node):
        """The FunctionDef or Lambda a UDF wraps, when it is in this file."""
        if isinstance(node, cst.Lambda):
            return node
        if isinstance(node, cst.Name):
            value = self.lookup(node.value)
            if value is not None and value.kind == FUNCTION and isinstance(value.node, cst.FunctionDef):
                return value.node
        return None

    def _method_call(self, receiver: Value, method: str, node: cst.Call) -> Optional[Value]:
        kind = receiver.kind
        if kind in (PANDAS, FOREIGN):
            # a pandas/polars/dask/ORM object's methods give more of the same, never a Spark DataFrame,
            # except pandas-on-Spark's way out
            if method == "to_spark":
                return Value(DATAFRAME, UNBOUNDED, node=node)
            return Value(FOREIGN, detail=receiver.detail, node=node)
        if kind == MODEL:
            if method == "transform" and node.args:
                dataset = self._infer(node.args[0].value)
                if dataset is not None and dataset.kind == DATAFRAME:
                    # {"model"}: every action on the result scores every row with the fitted model again
                    flags = set(dataset.flags or ()) | {"model"}
                    return Value(DATAFRAME, dataset.bound, node=node, flags=flags, why=dataset.why)
            return None
        if kind == INSTANCE and isinstance(receiver.detail, str) and receiver.detail.startswith("pyspark.ml.") \
                and method.startswith("set"):
            return receiver  # ML params' setters return the object itself (`evaluator.setMetricName("mae")`)
        if kind == UDF and method == "asNondeterministic" and not node.args:
            return receiver  # the same UDF, marked so that Spark does not deduplicate or reorder its calls
        if kind in (DYNAMICFRAME, DELTA_TABLE):
            if method == "toDF":
                return Value(DATAFRAME, UNBOUNDED, node=node)
            return Value(DYNAMICFRAME, node=node) if kind == DYNAMICFRAME else None
        if kind == GLUE:
            if method.startswith("create_dynamic_frame_from"):
                return Value(DYNAMICFRAME, node=node)
            if method.startswith("create_data_frame_from"):
                return Value(DATAFRAME, UNBOUNDED, node=node)
            return None
        if kind == GLUE_READER:
            if method.startswith("from_"):
                made = receiver.detail
                return Value(made, UNBOUNDED if made == DATAFRAME else None, node=node)
            return None
        if kind == DATAFRAME:
            return self._dataframe_method(receiver, method, node)
        if kind == SESSION:
            if method == "table":
                args = positional_args(node)
                written = self.written_bound(self.target_key(args[0])) if args else None
                return Value(DATAFRAME, UNBOUNDED if written is None else written, node=node)
            if method == "sql":
                args = positional_args(node)
                return self._sql_frame(args[0], node) if args else Value(DATAFRAME, UNBOUNDED, node=node)
            if method == "createDataFrame":
                args = positional_args(node)
                schema_arg = args[1] if len(args) > 1 else keyword_arg(node, "schema")
                # rows from the driver are as many as the driver already holds; an RDD's are the RDD's
                data = self._infer(args[0]) if args else None
                bound = data.bound if data is not None and data.kind == RDD else BOUNDED
                return Value(DATAFRAME, bound, self._schema_of(schema_arg), node=node)
            if method == "range":
                args = [literal_int(a) for a in positional_args(node)]
                if len(args) == 1 and args[0] is not None:
                    return Value(DATAFRAME, max(args[0], 0), node=node)
                if len(args) >= 2 and args[0] is not None and args[1] is not None:
                    return Value(DATAFRAME, max(args[1] - args[0], 0), node=node)
                return Value(DATAFRAME, UNBOUNDED, node=node)  # spark.range(n): as many as n, which nothing bounds
            if method == "newSession":
                return Value(SESSION)
            return None
        if kind == BUILDER:
            if method in _BUILDER_CONFIG:
                return Value(BUILDER)
            if method in ("getOrCreate", "create"):
                return Value(SESSION)
            return None
        if kind == READER:
            if method == "schema":
                args = positional_args(node)
                text = literal_string(args[0]) if args else None
                if text is None and args:
                    value = self._infer(args[0])
                    text = value.detail if value is not None and value.kind == STRING else None
                return Value(READER, UNBOUNDED, parse_ddl(text) if text else None)
            if method in _READER_CONFIG:
                return receiver
            if method in _READER_LOAD:
                args = positional_args(node)
                data = self._infer(args[0]) if args and not isinstance(args[0], cst.SimpleString) else None
                if data is not None and data.kind == RDD:  # read.json(sc.parallelize([text])): the RDD's rows
                    return Value(DATAFRAME, data.bound, receiver.detail, node=node)
                # every path of the read (`parquet(a, b)`, `load([a, b])`) must be small for the read to be
                paths = (list(args[0].elements) if len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple))
                         else args)
                paths = [p.value if isinstance(p, cst.Element) else p for p in paths]
                if paths and all(self.local_sample(p) for p in paths):
                    return Value(DATAFRAME, BOUNDED, receiver.detail, node=node)  # sample data beside the code
                bounds = [self.written_bound(self.target_key(p)) for p in paths]
                written = (None if not paths or any(b is None for b in bounds)
                           else bounds[0] if len(bounds) == 1 else _combine_bounds(bounds))
                return Value(DATAFRAME, UNBOUNDED if written is None else written, receiver.detail, node=node)
            return None
        if kind == GROUPED:
            if method == "pivot":
                return receiver
            if method in _GROUPED_RESULT:
                bound = receiver.bound
                if method in ("applyInPandas", "apply", "applyInArrow"):
                    # the function returns any number of rows per group: the groups bound nothing, the frame does
                    bound = receiver.detail if receiver.detail is not None else UNBOUNDED
                return Value(DATAFRAME, bound, node=node, flags=set(receiver.flags or ()) | {"shuffle"})
            return None
        if kind == NA:
            if method in ("fill", "drop", "replace"):
                return Value(DATAFRAME, receiver.bound, node=receiver.node)
            return None
        if kind == COLUMN:
            return Value(COLUMN)  # Column methods return Columns (alias, cast, isNull, over, ...)
        if kind == WRITER:
            if method in WRITER_CONFIG:
                return Value(WRITER, node=receiver.node)
            return None
        if kind == WINDOW:
            return Value(WINDOW)
        if kind == UDF:
            return Value(COLUMN)  # calling a UDF builds a Column expression
        if kind == RDD:
            if method == "toDF":
                return Value(DATAFRAME, receiver.bound, node=node)
            if method in _RDD_SAME:
                return Value(RDD, receiver.bound, node=receiver.node)
            if method in ("collect", "collectAsMap") and receiver.bound != BOUNDED:
                return Value(ROWS, node=node)  # the RDD's rows (or pairs, as a dict) on the driver
            return None
        if kind == CONTEXT:
            if method in _CONTEXT_FILES:
                return Value(RDD, UNBOUNDED, node=node)
            if method in ("parallelize", "range", "emptyRDD"):
                return Value(RDD, BOUNDED, node=node)
            return None
        return None

    def _dataframe_method(self, receiver: Value, method: str, node: cst.Call) -> Optional[Value]:
        result = self._dataframe_method_value(receiver, method, node)
        if result is None or result.kind not in (DATAFRAME, GROUPED, DATAFRAMES):
            return result
        flags = set(receiver.flags or ())
        if "cached" in flags and method not in CACHES:
            # built on a cached frame: what made the receiver expensive is read from memory; only what follows counts
            flags = (flags - _COSTS) | {"on-cache"}
        if method in SHUFFLES:
            flags.add("shuffle")
        elif method == "limit" and "shuffle" in flags and self._sorts_only(node.func.value):
            # `sort(...).limit(n)` is a top-k (Spark's TakeOrderedAndProject: each task keeps its n first rows,
            # n per task are merged): not the full shuffle of a sort, when nothing before the sort shuffled
            flags.discard("shuffle")
        if method in CACHES:
            flags.add("cached")
        elif method in _UDF_CARRIERS and "udf" not in flags and self._calls_udf(node):
            flags.add("udf")  # a Python UDF's column: each action calls it again on every row
        schema = self._columns_after(receiver, method, node)
        bound = result.bound
        if method in ("distinct", "dropDuplicates", "drop_duplicates") and not node.args and not isinstance(bound, int):
            # `select("sentiment").distinct()` of a column of few values, or of one the file pivots or samples by
            bound = self.few_rows(receiver) or self.stratum_bound(node.func.value) or bound
        return Value(result.kind, bound, schema, result.node, flags, receiver.why,
                     self.few_after(receiver, method, node))

    def _sorts_only(self, node) -> bool:
        """Whether ``node`` is a sort (`x.sort(...)`, `x.orderBy(...)`) of a frame whose plan has no shuffle (after
        its cache, if it has one)."""
        if node.__class__ is not cst.Call or method_name(node) not in ("sort", "orderBy") or \
                node.func.__class__ is not cst.Attribute:
            return False
        before = self.infer(node.func.value)
        if before is None or before.kind != DATAFRAME:
            return False
        flags = set(before.flags or ())
        return "cached" in flags and not flags & {"model", "udf"} or not flags & {"shuffle", "model", "udf"}

    def _calls_udf(self, node: cst.Call) -> bool:
        """Whether the arguments of a DataFrame method call a Python UDF (`withColumn("s", score_udf("x"))`)."""
        stack = [a.value for a in node.args]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Lambda):
                continue
            if isinstance(current, cst.Call) and isinstance(current.func, (cst.Name, cst.Attribute)):
                called = self._infer(current.func)
                if called is not None and called.kind == UDF:
                    return True
            stack.extend(child_nodes(current))
        return False

    def _columns_after(self, receiver: Value, method: str, node: cst.Call) -> Optional[Schema]:
        schema = receiver.detail if isinstance(receiver.detail, Schema) else None
        args = positional_args(node)
        if method in _SAME_COLUMNS:
            return schema
        if method in ("select", "toDF"):
            out = []
            for arg in args:
                name, col_type = self._column_name(arg, schema)
                if name is None:
                    return None
                out.append((name, col_type))
            return Schema(out) if out else None
        if method == "withColumn" and schema is not None and len(args) == 2 and literal_string(args[0]):
            name = literal_string(args[0])
            col_type = self._cast_type(args[1])
            kept = [(n, t) for n, t in schema if n != name]
            if len(kept) == len(schema):
                return Schema([*schema, (name, col_type)])
            return Schema([(n, col_type if n == name else t) for n, t in schema])
        if method == "selectExpr":
            out = [_sql_select_item(literal_string(a)) if literal_string(a) is not None else (None, None)
                   for a in args]
            return Schema(out) if out and all(name is not None for name, _ in out) else None
        if method == "drop" and schema is not None:
            gone = {literal_string(a) for a in args}
            return Schema([(n, t) for n, t in schema if n not in gone])
        if method == "withColumnRenamed" and schema is not None and len(args) == 2:
            old, new = literal_string(args[0]), literal_string(args[1])
            return Schema([(new if n == old else n, t) for n, t in schema])
        return None

    def _column_name(self, arg, schema) -> tuple:
        """Output name and type of a select item, when plain."""
        text = literal_string(arg)
        if text is not None:
            if text == "*":
                return None, None
            return text, schema.type_of(text) if schema else None
        if isinstance(arg, cst.Call) and method_name(arg) in ("alias", "name"):
            alias_args = positional_args(arg)
            name = literal_string(alias_args[0]) if alias_args else None
            return name, self._cast_type(arg.func.value)
        if isinstance(arg, cst.Call) and self.is_function(arg.func, {"col", "column"}):
            col_args = positional_args(arg)
            name = literal_string(col_args[0]) if col_args else None
            return name, (schema.type_of(name) if schema and name else None)
        return None, None

    def _cast_type(self, node) -> Optional[str]:
        if self._boolean_column(node):
            return "bool"
        if isinstance(node, cst.Call) and method_name(node) in ("cast", "astype"):
            cast_args = positional_args(node)
            if cast_args:
                text = literal_string(cast_args[0])
                if text is None and isinstance(cast_args[0], cst.Call):
                    text = dotted_name(cast_args[0].func)
                return normalise_type(text) if text else None
        return None

    def _with_callers_bound(self, value: Value, function: cst.FunctionDef, name: str) -> Value:
        """A parameter taken for a DataFrame from its use: the rows its callers in this file pass.

        Unbounded unless every call of the function in the file passes a DataFrame known to be small, or
        known to be a DataFrame whose rows nobody can tell (a transformer's output): then the callers show
        it is not the whole table (a notebook's plotting helper given a 10-row feature table).
        """
        cache = self.__dict__.setdefault("_callers_bounds", {})
        key = (id(function), name)
        if key not in cache:
            cache[key] = UNBOUNDED  # in progress: a recursive call proves nothing
            cache[key] = self._callers_bound(function, name)
        bound = cache[key]
        if bound == UNBOUNDED:
            return value
        return Value(value.kind, bound, value.detail, value.node, value.flags, value.why)

    def _with_call_sites(self, value: Value, name: str) -> Value:
        """A parameter known as a DataFrame (by annotation) in a module function that every one of its calls in
        the file, all met before it, passes a frame the caller knows is small on every way through (`if
        partial: filtered = filtered.limit(n)` alone does not: the other way passes every row): that bound."""
        for scope in reversed(self.scopes):
            if name in scope.names:
                break
        else:
            return value
        function = scope.node
        if not isinstance(function, cst.FunctionDef) or scope.params.get(name) is not value:
            return value  # not a parameter, or rebound since
        if function.name.value in self.package_callers:
            position = next(i for i, sc in enumerate(self.scopes) if sc is scope)
            in_class = position > 0 and self.scopes[position - 1].kind == "class"
            return self._with_package_callers(value, function, name, in_class)
        sites = self.call_sites.get(function.name.value)
        if not sites or self.later_defs.get(function.name.value) is not function:
            return value
        if len(sites) != len(self._calls_by_name().get(function.name.value, ())):
            return value  # a call not met yet: it may pass anything
        passed = [site.get(name) for site in sites]
        bounds = [v.bound if v is not None and v.kind == DATAFRAME else UNBOUNDED for v in passed]
        if any(b == UNBOUNDED for b in bounds):
            return value
        ints = [b for b in bounds if isinstance(b, int)]
        bound = None if any(b is None for b in bounds) else max(ints) if len(ints) == len(bounds) else BOUNDED
        return Value(value.kind, bound, value.detail, value.node, value.flags, value.why)

    def _with_package_callers(self, value: Value, function: cst.FunctionDef, name: str, in_class: bool) -> Value:
        """A DataFrame parameter of a function that this file never names again and that the other modules of
        its package call (linter/callers.py): small when every one of those calls passes a frame its module
        shows to be small (`createDataFrame` of literal rows, `limit(n)`), else as it was."""
        fname = function.name.value
        named = self.__dict__.setdefault("_names_once", {})  # asked for every read of the parameter: counted once
        if fname not in named:
            named[fname] = len(re.findall(rf"(?<![\w]){re.escape(fname)}(?![\w])", self.text or "")) == 1
        if not named[fname]:
            return value  # named here again (a call, a callback, a second def): the file's own uses decide
        params = function.params
        positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        index = positional.index(name) if name in positional else None
        if index is not None and in_class and not _static(function):
            index -= 1  # `obj.method(df)`, `cls.method(df)`: the instance or class is not among the arguments
        sizes = []
        for passed, keywords in self.package_callers[fname]:
            size = dict(keywords).get(name)
            if size is None and index is not None and 0 <= index < len(passed):
                size = passed[index]
            if size is None or size == "unknown":
                return value  # one caller passes something not shown small (or passes nothing: the default)
            sizes.append(size)
        if not sizes:
            return value
        ints = [n for n in sizes if isinstance(n, int)]
        bound = max(ints) if len(ints) == len(sizes) else BOUNDED
        return Value(value.kind, bound, value.detail, value.node, value.flags, value.why)

    def _callers_bound(self, function: cst.FunctionDef, name: str):
        params = function.params
        positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        if name not in positional and name not in [p.name.value for p in params.kwonly_params]:
            return UNBOUNDED
        index = positional.index(name) if name in positional else None
        if index is not None and positional[:1] in (["self"], ["cls"]):
            index -= 1  # called as `self.method(df)`: not a plain name call, and not read here
        calls = self._calls_by_name().get(function.name.value, ())
        if not calls:
            return UNBOUNDED
        arguments = []
        for call in calls:
            argument = None
            for i, arg in enumerate(a for a in call.args if a.keyword is None and not a.star):
                if i == index:
                    argument = arg.value
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == name:
                    argument = arg.value
            if argument is None:
                return UNBOUNDED
            arguments.append(argument)
        saved = self.scopes
        self.scopes = saved[:1]  # the callers' names as the module binds them, not the function's own
        try:
            values = [self._infer(self._later_value(argument)) for argument in arguments]
        finally:
            self.scopes = saved
        bounds = [v.bound if v is not None and v.kind == DATAFRAME else UNBOUNDED for v in values]
        if any(b == UNBOUNDED for b in bounds):
            return UNBOUNDED
        if any(b is None for b in bounds):
            return None
        ints = [b for b in bounds if isinstance(b, int)]
        return max(ints) if len(ints) == len(bounds) else BOUNDED

    def _later_value(self, argument):
        """A module name the walk has not bound yet (`output = ice.transform(df)` in a later notebook cell):
        the one top-level statement that assigns it; else the argument itself."""
        if not isinstance(argument, cst.Name) or argument.value in self.scopes[0].names:
            return argument
        value = self.module_assignment(argument.value)
        return value if value is not None else argument

    def _calls_by_name(self) -> dict:
        """Every call of a plain name in the module (`plot(df)`), by the name: found once, when first asked."""
        calls = self.__dict__.get("_name_calls")
        if calls is None:
            calls = self.__dict__["_name_calls"] = {}
            module = self.scopes[0].node
            stack = [module] if module is not None else []
            while stack:
                node = stack.pop()
                if node.__class__ is cst.Call and node.func.__class__ is cst.Name:
                    calls.setdefault(node.func.value, []).append(node)
                stack.extend(child_nodes(node))
        return calls

    def _boolean_column(self, node) -> bool:
        """A Column expression that is a condition: `F.col("a") > 1`, `(x == 1) & (y < 2)`, `~c`, `c.isNull()`."""
        if isinstance(node, cst.Comparison):
            return any(self.is_column(part) for part in (node.left, *(c.comparator for c in node.comparisons)))
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr)):
            return self._boolean_column(node.left) or self._boolean_column(node.right)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            return self._boolean_column(node.expression)
        if isinstance(node, cst.Call) and method_name(node) in _CONDITION_METHODS:
            return self.is_column(node.func.value)
        return False

    def _dataframe_method_value(self, receiver: Value, method: str, node: cst.Call) -> Optional[Value]:
        bound = receiver.bound
        if method == "limit":
            args = positional_args(node)
            n = literal_int(args[0]) if args else None
            if n is None:
                bound = bound if isinstance(bound, int) else BOUNDED
            else:
                bound = min(bound, n) if isinstance(bound, int) else n
            return Value(DATAFRAME, bound, node=node)
        if method in ("select", "selectExpr") and self._all_aggregates(node, method == "selectExpr"):
            return Value(DATAFRAME, min(bound, 1) if isinstance(bound, int) else 1, node=node)
        if method == "sample" and _small_fraction(node):
            # `sample(True, 0.001)` for a plot: the author chose a few rows in a thousand, a bound by intent
            return Value(DATAFRAME, BOUNDED, node=node)
        if method in _SAME_ROWS:
            return Value(DATAFRAME, bound, node=receiver.node)
        if method == "agg":
            return Value(DATAFRAME, 1, node=node)
        if method in ("describe", "summary"):
            return Value(DATAFRAME, BOUNDED, node=node)
        if method in _GROUPING:
            if not node.args:  # groupBy() with no keys: a global aggregate
                grouped = 1
            elif (few := self.few_keys(receiver, node)) is not None:
                grouped = few  # keys of few values: `groupBy("is_glass").count()` holds true, false and null at most
            elif bound is None or bound == UNBOUNDED:
                grouped = bound
            else:
                grouped = bound  # groups of a bounded frame are bounded too
            return Value(GROUPED, grouped, detail=bound, node=node)  # detail: the frame's own bound
        if method in _COMBINE:
            args = positional_args(node)
            other = self._infer(args[0]) if args else None
            if other is None or other.kind != DATAFRAME:
                # joined with something unknown: as unbounded as the receiver, else unknown
                return Value(DATAFRAME, UNBOUNDED if bound == UNBOUNDED else None, node=node)
            return Value(DATAFRAME, _combine_bounds([bound, other.bound]), node=node)
        if method == "randomSplit":
            return Value(DATAFRAMES, bound, node=node)
        if method == "transform":
            # df.transform(func): func's DataFrame, as a step of the chain (as unbounded as its receiver)
            return Value(DATAFRAME, bound, node=node)
        if method == "toPandas":
            return Value(PANDAS, node=node)
        if method == "writeTo":
            return Value(WRITER, node=node)  # the V2 writer: df.writeTo("t").append()
        if method in ("collect", "take", "tail", "head") and (method == "collect" or node.args):
            return Value(ROWS, node=node)
        return None

    def _all_aggregates(self, node: cst.Call, texts: bool = False) -> bool:
        """Every item of a `select` is an aggregate (`F.max("id")`, `F.expr("percentile_approx(x, 0.5)")`), or, with
        ``texts`` (`selectExpr`), every string is one: a global aggregation, one row."""
        args = positional_args(node)
        if len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple)):
            args = [e.value for e in args[0].elements]  # select([F.max("id")])
        if not args:
            return False
        for arg in args:
            if texts:
                if not _aggregate_text(literal_string(arg)):
                    return False
                continue
            while isinstance(arg, cst.Call) and isinstance(arg.func, cst.Attribute) and arg.func.attr.value == "alias":
                arg = arg.func.value
            if isinstance(arg, cst.Name):
                arg = self.assigned_expression(arg.value) or arg  # `median = F.expr("...")`, then `median.alias(...)`
            if not isinstance(arg, cst.Call):
                return False
            if self.is_function(arg.func, {"expr"}) and arg.args and _aggregate_text(_template_text(arg.args[0].value)):
                continue
            if self.is_function(arg.func, AGGREGATES) is None:
                return False
        return True




# SQL whose plan has a shuffle: a join, a grouping, a sort, a dedup, a window, a set operation.
# DataFrame methods whose arguments may call a Python UDF that then runs in every action over the result.
_UDF_CARRIERS = frozenset(("withColumn", "withColumns", "select", "filter", "where"))
# The flags saying what recomputing a DataFrame repeats, and "cached", which ends them.
_COSTS = frozenset(("shuffle", "model", "udf", "cached"))
_SQL_SHUFFLE = re.compile(r"\b(?:JOIN|GROUP\s+BY|ORDER\s+BY|SORT\s+BY|DISTINCT|OVER\s*\(|UNION|INTERSECT|EXCEPT)\b",
                          re.IGNORECASE)

# Column methods whose result is a condition (a boolean Column).
_CONDITION_METHODS = frozenset((
    "isNull", "isNotNull", "isin", "like", "rlike", "ilike", "contains", "startswith", "endswith", "between",
    "eqNullSafe", "isNaN",
))


def _template_text(node):
    """A string literal's text, or an f-string's with each field as `x` (enough to see what it calls)."""
    if isinstance(node, cst.FormattedString):
        return "".join(p.value if isinstance(p, cst.FormattedStringText) else "x" for p in node.parts)
    return literal_string(node)


def _aggregate_text(text) -> bool:
    """SQL text of an aggregate over the whole frame (`percentile_approx(ms, 0.5) AS median`, `count(*)`), not a
    window (`... OVER (...)`): what `sql_bound` says of the SELECT it would be, one row."""
    return bool(text) and sql_bound(f"SELECT {text} FROM spk_frame") == 1


def _sql_passed(function, call: cst.Call, skip: int):
    """The argument of ``call`` that a wrapper of `spark.sql` runs: `def run_sql(self, query): return
    self.spark.sql(query)` (its whole body, past a docstring, is that `return`); None for any other function.
    ``skip``: the parameters the call does not pass (`self`)."""
    if not isinstance(function, cst.FunctionDef) or not isinstance(function.body, cst.IndentedBlock):
        return None
    body = [s for s in function.body.body if not (isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1
                                                  and isinstance(s.body[0], cst.Expr)
                                                  and isinstance(s.body[0].value, (cst.SimpleString,
                                                                                   cst.ConcatenatedString)))]
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
        return None
    ret = body[0].body[0]
    value = ret.value if isinstance(ret, cst.Return) else None
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "sql"
            and len(value.args) == 1 and value.args[0].keyword is None and isinstance(value.args[0].value, cst.Name)):
        return None
    name = value.args[0].value.value
    params = [p.name.value for p in function.params.params]
    if name not in params or params.index(name) < skip:
        return None
    index = params.index(name) - skip
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    return positional[index] if index < len(positional) else None


def _static(function: cst.FunctionDef) -> bool:
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in function.decorators)


def _small_fraction(node: cst.Call) -> bool:
    """`sample(0.001)`, `sample(True, 0.01, seed)`, `sample(fraction=0.005)`: a literal fraction of 1% or less."""
    fraction = keyword_arg(node, "fraction")
    if fraction is None:
        args = positional_args(node)
        if args and isinstance(args[0], cst.Name) and args[0].value in ("True", "False"):
            args = args[1:]  # withReplacement first
        fraction = args[0] if args else None
    if not isinstance(fraction, (cst.Float, cst.Integer)):
        return False
    try:
        return 0 < float(fraction.value.replace("_", "")) <= 0.01
    except ValueError:
        return False


def _sql_select_item(text: str) -> tuple:
    """(output name, type when it is a condition) of a `selectExpr` item such as `"instr(d, 'GLASS') >= 1 as
    is_glass"`; (None, None) when it cannot be read."""
    try:
        import sqlglot
        from sqlglot import exp

        item = sqlglot.parse_one(f"SELECT {text}", read="spark").expressions[0]
    except Exception:  # noqa: BLE001 - not readable: nothing known about it
        return None, None
    name = item.alias_or_name or None
    body = item.this if isinstance(item, exp.Alias) else item
    conditions = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike, exp.RegexpLike, exp.In,
                  exp.Is, exp.Between, exp.And, exp.Or, exp.Not, exp.Boolean, exp.NullSafeEQ)
    return name, ("bool" if isinstance(body, conditions) else None)
