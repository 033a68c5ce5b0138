"""Columns of few values: how many distinct values a column can hold, as far as the code proves it.

A grouping by such columns has at most the product of their counts of rows: `groupBy("sentiment")` of a
column that a UDF fills with one of three literals holds four rows at most (null counted), whatever the
frame's size, and collecting it is safe. The proofs, each read from the code that makes the column:

- a condition (`F.col("a") > 1`, `c.isNull()`, a `selectExpr` item `x >= 1 AS flag`): true, false, null;
- `F.lit(x)` of a literal: one value;
- `F.when(c, "a").when(d, "b").otherwise("c")` whose values are literals or themselves few: their sum, and
  null when no `otherwise`;
- a Python UDF (`udf(f, ...)`, `@udf`, a lambda) whose every `return` gives a literal: those, and null;
- `cast`, `alias` and `astype` of a column of few values: as many.

A frame carries the counts it knows in ``Value.few`` (name -> count), kept by the methods that keep its
columns, moved by `withColumnRenamed`, and dropped by what changes them.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from linter.semantic.api import _SAME_COLUMNS
from linter.sources.python import child_nodes
from linter.semantic.values import BOUNDED, UDF, Schema, literal_string, literal_type, method_name, positional_args

# A column of more values than this is not "few": a grouping by it is no bound worth the name.
_MANY = 64
_KEEPS_VALUES = frozenset(("cast", "astype", "alias", "name"))


class FewValues:
    """Mixed into ``Semantic``: reads ``is_function``, ``_infer`` and ``_boolean_column`` of ``Inference``."""

    def few_values(self, node) -> Optional[int]:
        """How many distinct values (null counted) the Column expression ``node`` can take; None when not few."""
        if self._boolean_column(node):
            return 3
        if not isinstance(node, cst.Call):
            return None
        method = method_name(node)
        if method in _KEEPS_VALUES and isinstance(node.func, cst.Attribute):
            return self.few_values(node.func.value)
        if method in ("when", "otherwise") or self.is_function(node.func, {"when"}):
            return self._when_values(node)
        if self.is_function(node.func, {"lit"}):
            args = positional_args(node)
            return 1 if args and literal_type(args[0]) is not None else None
        called = self._infer(node.func) if isinstance(node.func, (cst.Name, cst.Attribute)) else None
        if called is not None and called.kind == UDF:
            return _returned_literals(called.detail)
        return None

    def _when_values(self, node: cst.Call) -> Optional[int]:
        """`F.when(c, v).when(d, w).otherwise(u)`: one value set per branch, null without `otherwise`."""
        total, otherwise, current = 0, False, node
        while True:
            args = positional_args(current)
            start = self.is_function(current.func, {"when"}) is not None
            if start and len(args) == 2:
                value = args[1]
            elif current is node and method_name(current) == "otherwise" and len(args) == 1:
                otherwise, value = True, args[0]
            elif not start and method_name(current) == "when" and len(args) == 2:
                value = args[1]
            else:
                return None
            count = self._branch_values(value)
            if count is None:
                return None
            total += count
            if start:
                break
            current = current.func.value
            if not isinstance(current, cst.Call):
                return None  # a `when` method of something that is not `F.when(...)`'s chain
        total += 0 if otherwise else 1
        return total if total <= _MANY else None

    def _branch_values(self, node) -> Optional[int]:
        if literal_type(node) is not None:
            return 1
        return self.few_values(node)

    def few_after(self, receiver, method: str, node: cst.Call) -> Optional[dict]:
        """The counts of few values the frame a DataFrame method returns knows, from its receiver's."""
        few = receiver.few
        args = positional_args(node)
        if method in _SAME_COLUMNS:
            return few
        if method == "withColumn" and len(args) == 2 and literal_string(args[0]) is not None:
            name = literal_string(args[0])
            out = {k: v for k, v in (few or {}).items() if k != name}
            count = self.few_values(args[1])
            if count is not None:
                out[name] = count
            return out or None
        if method == "withColumnRenamed" and few and len(args) == 2:
            old, new = literal_string(args[0]), literal_string(args[1])
            if old is None or new is None:
                return None
            return {(new if k == old else k): v for k, v in few.items() if k != new or old == new}
        if method == "drop" and few:
            gone = {literal_string(a) for a in args}
            if None in gone:
                return None  # a Column dropped: which name is unknown
            return {k: v for k, v in few.items() if k not in gone} or None
        if method == "select":  # exactly its items: the plain names keep their counts, aliases get theirs
            out = {}
            for arg in args:
                name = literal_string(arg)
                if name is None and isinstance(arg, cst.Call) and self.is_function(arg.func, {"col", "column"}):
                    inner = positional_args(arg)
                    name = literal_string(inner[0]) if inner else None
                if name is not None:
                    if few and name in few:
                        out[name] = few[name]
                elif isinstance(arg, cst.Call) and method_name(arg) in ("alias", "name"):
                    alias = positional_args(arg)
                    count = self.few_values(arg.func.value)
                    if alias and literal_string(alias[0]) is not None and count is not None:
                        out[literal_string(alias[0])] = count
            return out or None
        return None

    def few_keys(self, receiver, node: cst.Call) -> Optional[int]:
        """At most how many groups `groupBy(keys)` makes, when every key is a column of few values (`rollup` and
        `cube` add a subtotal, a null, per key)."""
        subtotals = 1 if method_name(node) in ("rollup", "cube") else 0
        schema = receiver.detail if isinstance(receiver.detail, Schema) else None
        few = receiver.few or {}
        total = 1
        for arg in node.args:
            if arg.keyword is not None or arg.star:
                return None
            name = literal_string(arg.value)
            if name is None and isinstance(arg.value, cst.Call) and self.is_function(arg.value.func, {"col", "column"}):
                col_args = positional_args(arg.value)
                name = literal_string(col_args[0]) if col_args else None
            if name is not None:
                count = few.get(name) or (3 if schema is not None and schema.type_of(name) == "bool" else None)
            else:
                count = self.few_values(arg.value)  # `groupBy(F.col("amount") > 100)`
            if count is None:
                return None
            total *= count + subtotals
        return total if total <= _MANY else None

    def stratum_bound(self, node):
        """BOUNDED for `select(c)` (the receiver of a `distinct()`) of a column the file pivots or samples by
        (`groupBy(...).pivot(c, values)`, `df.sampleBy(c, fractions)`): a pivot makes a column of each value (and
        Spark refuses more than `spark.sql.pivotMaxValues`, 10,000, when it finds them itself), `sampleBy` takes
        a fraction for each, so the code's own use says the values are few. Also of the input file's name
        (`F.input_file_name()`): one row per file read. None otherwise."""
        if node.__class__ is not cst.Call or method_name(node) != "select" or len(node.args) != 1:
            return None
        arg = node.args[0]
        if arg.keyword is not None or arg.star:
            return None
        if self._input_file_column(arg.value, node.func.value):
            return BOUNDED
        name = self._column_text(arg.value)
        return BOUNDED if name is not None and name in self._strata() else None

    def _input_file_column(self, column, frame) -> bool:
        """Whether ``column`` is the input file of each row: `F.input_file_name()`, or a column the chain below the
        `select` set to it (`withColumn("path", F.input_file_name())`). Its distinct values are the files the
        driver listed to plan the scan: a list it already holds."""
        if isinstance(column, cst.Call) and self.is_function(column.func, {"input_file_name"}):
            return True
        name = self._column_text(column)
        while name is not None and isinstance(frame, cst.Call) and isinstance(frame.func, cst.Attribute):
            if method_name(frame) == "withColumn":
                args = positional_args(frame)
                if len(args) == 2 and self.text_of(args[0]) == name:
                    value = args[1]
                    return isinstance(value, cst.Call) and self.is_function(value.func, {"input_file_name"}) is not None
            frame = frame.func.value
        return False

    def _column_text(self, node) -> Optional[str]:
        """The column a plain reference names: `"c"`, a constant holding it, `F.col("c")`."""
        if isinstance(node, cst.Call) and self.is_function(node.func, {"col", "column"}):
            args = positional_args(node)
            node = args[0] if len(args) == 1 else None
        return self.text_of(node) if node is not None else None

    def _strata(self) -> frozenset:
        """The columns the module pivots or samples by (see ``stratum_bound``), read once."""
        found = self.__dict__.get("_stratum_columns")
        if found is None:
            names = set()
            text = self.text or ""
            if ".pivot" in text or "sampleBy" in text:
                stack = [self.scopes[0].node]
                while stack:
                    current = stack.pop()
                    if current.__class__ is cst.Call and method_name(current) in ("pivot", "sampleBy"):
                        column = next((a.value for a in current.args if a.keyword is None
                                       or a.keyword.value in ("pivot_col", "col")), None)
                        name = self._column_text(column) if column is not None else None
                        if name is not None:
                            names.add(name)
                    stack.extend(child_nodes(current))
            found = self.__dict__["_stratum_columns"] = frozenset(names)
        return found

    def few_rows(self, receiver) -> Optional[int]:
        """`distinct()` of a frame whose every column is one of few values: at most their product of rows."""
        schema = receiver.detail if isinstance(receiver.detail, Schema) else None
        few = receiver.few or {}
        if not schema:
            return None
        total = 1
        for name, col_type in schema:
            count = few.get(name) or (3 if col_type == "bool" else None)
            if count is None:
                return None
            total *= count
        return total if total <= _MANY else None


def _returned_literals(function) -> Optional[int]:
    """The literals a UDF's Python function returns, null counted; None when a return gives anything else."""
    if isinstance(function, cst.Lambda):
        values = _conditional_literals(function.body)
        return None if values is None else len(values) + 1
    if not isinstance(function, cst.FunctionDef):
        return None
    for decorator in function.decorators:
        inner = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        name = inner.attr.value if isinstance(inner, cst.Attribute) else inner.value if isinstance(inner, cst.Name) \
            else None
        if name not in ("udf", "pandas_udf"):
            return None  # another decorator may return anything in place of the function's literals
    values = set()
    stack = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue  # a nested function's returns are its own
        if isinstance(node, (cst.Yield, cst.Await)):
            return None
        if isinstance(node, cst.Return):
            if node.value is None:
                continue  # a bare `return`: null, counted below
            found = _conditional_literals(node.value)
            if found is None:
                return None
            values |= found
            continue
        stack.extend(child_nodes(node))
    count = len(values) + 1
    return count if values and count <= _MANY else None


def _conditional_literals(node) -> Optional[set]:
    """`"a"`, `"a" if x else "b"`: the literals an expression gives (by their text); None otherwise."""
    if isinstance(node, cst.IfExp):
        body, orelse = _conditional_literals(node.body), _conditional_literals(node.orelse)
        return None if body is None or orelse is None else body | orelse
    if literal_type(node) is not None:
        return {_literal_key(node)}
    return None


def _literal_key(node) -> tuple:
    """A literal's value as a key: `"a"` and `'a'` alike; `-1` apart from `1`."""
    if isinstance(node, cst.UnaryOperation):
        return ("-", _literal_key(node.expression))
    text = literal_string(node)
    return (type(node).__name__, text if text is not None else getattr(node, "value", None))
