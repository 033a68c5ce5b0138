import libcst as cst

from checks.python._callees import callee_definition, module_function
from checks.python._driver import shown
from checks.python._fixes import replace, source
from linter.diagnostics import UNSAFE, Fix, NodeEdit
from checks.python._udf import walk_expression
from checks.python._loops import LoopTracker, made_afresh_before
from linter.sources.python import child_nodes
from linter.registry import Invalid, Option, PythonRule, Valid
from linter.semantic import literal_string, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)
_PROJECTIONS = frozenset({"withColumn", "withColumnRenamed", "select", "selectExpr", "drop"})
_ROW_FILTERS = frozenset({"filter", "where"})


def _mentions(ctx, expression, names: set) -> bool:
    """Whether an expression may read one of these columns (by name in a string, attribute or key)."""
    for node in walk_expression(expression):
        if isinstance(node, cst.Attribute) and node.attr.value in names:
            return True
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            text = literal_string(node) or ctx.code_for(node)
            if any(n in text for n in names):
                return True
        if isinstance(node, cst.FormattedString):
            return True
    return False


def _checkpoints(loop) -> bool:
    """Whether a loop's body calls ``checkpoint()`` / ``localCheckpoint()``, cutting the plan it grows."""
    stack = [loop.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and method_name(node) in ("checkpoint", "localCheckpoint"):
            return True
        stack.extend(child_nodes(node))
    return False


# The calls of a `withColumn` chain: a `drop` between two of them does not end it.
_CHAIN = frozenset(("withColumn", "withColumnRenamed", "drop"))


class WithcolumnInLoop(LoopTracker, PythonRule):
    """
    ## What it does
    Finds a DataFrame rebuilt with `withColumn`, `withColumnRenamed`, `select`,
    `selectExpr` or `drop` inside a loop (`df = df.withColumn(c, ...)` for each
    column, also with `filter`s in the chain), unless the same round first makes
    it afresh (`column_df = df.select(c)`, then `column_df = column_df.select(...)`:
    each round's plan is short), and, with `--preview`, chains of more than `max-chain`
    consecutive `withColumn` / `withColumnRenamed` calls (a `drop` between
    them does not end the chain; such a chain gets no fix). A chain written
    once is preview: the optimizer collapses its projections, and the
    hand-judged samples of real code found every such finding harmless; the
    loop, whose plan grows with the data's columns, is what goes wrong.

    A `for` over a literal list of at most `max-chain` names (`for c in
    ["start_date", "end_date"]`) is a short chain written as a loop: its
    plan is only as deep as the list is long, and the message says so (the
    other PySpark linters report it too, and `withColumns` is still one
    projection where the loop makes several).

    A function of the file that returns its first argument with a column
    added (`def add_col(df, c): return df.withColumn(c, ...)`), called as
    `df = add_col(df, c)` in a loop, is the same loop one call away.

    ## Why is this bad?
    Every call adds a projection to the logical plan and is analysed on its
    own. A loop over a hundred columns makes a plan a hundred levels deep:
    analysis and optimisation become slow (minutes in the driver before any
    task runs) and very deep plans end in a `StackOverflowError`. PySpark's
    own documentation of `withColumn` warns about exactly this.

    ## Example
    ```python
    for c in amount_columns:
        orders = orders.withColumn(c, F.col(c).cast("double"))
    ```

    ## Use instead
    ```python
    orders = orders.withColumns({c: F.col(c).cast("double") for c in amount_columns})
    ```
    Before Spark 3.3: one `select` with all the columns.

    ## Fix safety
    Unsafe, offered only when the target Spark is 3.3 or newer, and only where
    the columns are independent: a chain of `withColumn` calls with literal,
    distinct names, none of whose expressions mentions a column defined
    earlier in the chain, becomes one `withColumns({...})`; a `for` loop whose
    whole body is `df = df.withColumn(name, expr)`, with `expr` not reading
    `df`, becomes `df = df.withColumns({name: expr for name in ...})`. Where a
    later column reads an earlier one, `withColumns` would read the old value:
    no fix is offered then. The result is the same rows and schema; the fix is
    marked unsafe because the dependency test reads names, not meaning (a
    column reached through a variable holding its name is not seen).

    ## Options
    - `max-chain` (int, default 5): the longest chain of `withColumn` calls
      that is not reported; a loop over a literal list up to this long is
      reported as the short chain it is.

    ## References
    - PySpark API: `DataFrame.withColumn` ("calling it multiple times, for
      instance, via loops ... can generate big plans which can cause
      performance issues and even StackOverflowException").
    """

    code = "SPK401"
    skip_in_tests = True
    name = "withcolumn-in-loop"
    summary = "a DataFrame rebuilt with `withColumn` in a loop or a long chain"
    default_reason = ("`withColumn` in a loop adds one projection per round to a single plan: minutes of "
                      "analysis on the driver, or a StackOverflowError; a chain written once stays in preview")
    min_spark = "3.3"
    triggers = ("withColumn", "select", "drop")
    fix = "unsafe"
    options = {"max-chain": Option(5, "The longest `withColumn` chain that is not reported.")}
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "def normalize(df):\n    return df.dropna()\n\nfor c in ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']:\n"
                "    orders = normalize(orders)\n    orders = orders.withColumn(c, F.trim(c))\n"),
        Invalid(_SETUP + "for path in spark.table('compacted_files').toPandas()['path']:\n"
                "    orders = orders.withColumn('file', F.input_file_name()).filter(F.col('file') != path).drop('file')\n"),
        Invalid(_SETUP + "for field in orders.schema.fields:\n    trimmed = orders.select(field.name)\n"
                "    orders = orders.withColumn(field.name, F.trim(field.name))\n"),
        Invalid(_SETUP + "def add_matching_col(df, ref, name):\n    kind = dict(ref.dtypes)[name]\n"
                "    return df.withColumn(name, F.lit(None).cast(kind))\n\n"
                "reference = spark.table('orders_v2')\nfor name in set(reference.columns) - set(orders.columns):\n"
                "    orders = add_matching_col(orders, reference, name)\n"),
        Invalid(_SETUP + "out = (orders.withColumn('a', F.lit(1)).withColumn('b', F.lit(2)).withColumn('c', F.lit(3))\n"
                "       .drop('x').withColumn('d', F.lit(4)).withColumn('e', F.lit(5)).withColumn('f', F.lit(6)))\n"),
        Invalid(_SETUP + "for c in amount_columns:\n    orders = orders.withColumn(c, F.col(c).cast('double'))\n",
                unsafe=True,
                fixed=_SETUP + "orders = orders.withColumns({c: F.col(c).cast('double') for c in amount_columns})\n"),
        Invalid(_SETUP + "for old, new in renames.items():\n    orders = orders.withColumnRenamed(old, new)\n"),
        Invalid(_SETUP + "for c in ['a', 'b', 'c', 'd', 'e', 'f']:\n    orders = orders.withColumn(c, F.trim(c))\n"),
        # a loop over a short literal list: reported as the short chain it is
        Invalid(_SETUP + "DATE_COLUMNS = ('start_date', 'end_date')\nfor c in DATE_COLUMNS:\n"
                "    orders = orders.withColumn(c, F.to_date(c))\n"),
        Invalid(_SETUP + "out = orders" + "".join(f".withColumn('c{i}', F.lit({i}))" for i in range(12)) + "\n",
                unsafe=True,
                fixed=_SETUP + "out = orders.withColumns({\n" + "".join(f"    'c{i}': F.lit({i}),\n" for i in range(12))
                + "})\n"),
        Invalid(_SETUP + "out = orders" + "".join(f".withColumn('c{i}', F.col('c{i - 1}') + 1)" for i in range(1, 12))
                + "\n", unsafe=True),
        Invalid(
            "from pyspark.sql import DataFrame\n"
            "def add(df: DataFrame, names):\n    i = 0\n    while i < len(names):\n"
            "        df = df.withColumn(names[i], df.x + i)\n        i += 1\n    return df\n"
        ),
    )
    valid = (
        Valid(_SETUP + "df = orders\nfor i, c in enumerate(df.columns):\n    df = df.withColumn(c, F.col(c).cast('int'))\n"
              "    if i % 10 == 9:\n        df = df.localCheckpoint()\n"),
        Valid(_SETUP + "orders = orders.withColumns({c: F.col(c).cast('double') for c in ['price', 'tax']})\n"),
        Valid(_SETUP + "out = orders" + "".join(f".withColumn('c{i}', F.lit({i}))" for i in range(5)) + "\n"),
        Valid(_SETUP + "for t in ['a', 'b']:\n    df = spark.table(t).withColumn('src', F.lit(t))\n    df.write.saveAsTable(t + '_x')\n"),
        Valid("rows = []\nfor r in items:\n    rows = rows.select(r)\n"),
        Valid(_SETUP + "for field in orders.schema.fields:\n    column_df = orders.select(field.name).dropna()\n"
              "    if field.dataType.typeName() == 'string':\n"
              "        column_df = column_df.select(F.trim(F.col(field.name)).alias(field.name))\n"
              "    print(field.name, column_df.count())\n"),
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self.loops or self.loops[-1] is None or len(node.targets) != 1:
            return
        target = node.targets[0].target
        call = node.value
        if not isinstance(target, cst.Name) or not isinstance(call, cst.Call):
            return
        method, root = None, call
        # the chain down to the name: projections, and the filters between them (which grow the plan too)
        while isinstance(root, cst.Call) and method_name(root) in _PROJECTIONS | _ROW_FILTERS:
            if method_name(root) in _PROJECTIONS:
                method = method_name(root)  # the first of the chain, as it reads: `df = df.withColumn(...)...`
            root = root.func.value
        if method is None:
            self._helper_in_loop(node, target, call)
            return
        if not (isinstance(root, cst.Name) and root.value == target.value):
            return
        if not self.ctx.semantic.is_dataframe(root) or _checkpoints(self.loops[-1]):
            return  # a loop that checkpoints every few rounds keeps its plan short on purpose
        if made_afresh_before(self.loops[-1].body, target.value, node):
            return  # `column_df = df.select(c)` earlier in the same round: the plan starts again every round
        items = self._short_literal_loop()
        if items in (0, 1):
            return  # `for c in ["a"]`, `for c in []`: one projection or none, nothing to merge
        if items > 1:  # `for c in ["start", "end"]`: a fixed chain of projections written as a loop
            message = (f"`{target.value} = {target.value}.{method}(...)` in a loop over {items} fixed names adds "
                       f"{items} projections to the plan where one would do")
        else:
            message = (f"`{target.value} = {target.value}.{method}(...)` in a loop adds one projection to the plan "
                       "per iteration: deep plans analyse slowly and can overflow the stack")
        self.ctx.report(
            self,
            call,
            message,
            help=self._advice(),
            start=call.func.attr,
            fix=self._loop_fix(node, target.value, call),
        )

    def _short_literal_loop(self) -> int:
        """How many items a `for` over a literal list, tuple or set (or a name bound once to one) of at most
        `max-chain` items goes through; -1 for any other loop."""
        loop = self.loops[-1]
        if not isinstance(loop, cst.For):
            return -1
        items = loop.iter
        if isinstance(items, cst.Name):
            items = self.ctx.semantic.assigned_expression(items.value)
        if isinstance(items, (cst.List, cst.Tuple, cst.Set)) and len(items.elements) <= self.opts["max-chain"] \
                and all(isinstance(e, cst.Element) for e in items.elements):
            return len(items.elements)
        return -1

    def _helper_in_loop(self, assign: cst.Assign, target: cst.Name, call: cst.Call) -> None:
        """`df = add_column(df, c)` in a loop, where this file's `add_column` returns its first parameter with a
        column added (`return df.withColumn(...)`): the same projection per round, one call away."""
        args = positional_args(call)
        if not args or not isinstance(args[0], cst.Name) or args[0].value != target.value:
            return
        definition, skipped = callee_definition(self.ctx, call)
        name = call.func.value if isinstance(call.func, cst.Name) else None
        if definition is None and name is not None and self.ctx.semantic.bindings(name) <= 1:
            definition = module_function(self.ctx, name)  # defined further down, bound when the call runs
        if not isinstance(definition, cst.FunctionDef) or skipped:
            return
        params = definition.params.params
        if not params or not self.ctx.semantic.is_dataframe(target) or _checkpoints(self.loops[-1]):
            return
        method = _returned_projection(definition, params[0].name.value)
        if method is None:
            return
        name = target.value
        self.ctx.report(
            self,
            call,
            f"`{name} = {shown(self.ctx, call.func)}({name}, ...)` in a loop adds a `{method}` projection to the plan "
            "per iteration (the function returns its argument with a column changed): deep plans analyse slowly "
            "and can overflow the stack",
            help=self._advice(),
        )

    def _loop_fix(self, assign: cst.Assign, name: str, call: cst.Call):
        loop = self.loops[-1]
        if self.ctx.settings.target_spark < (3, 3) or not isinstance(loop, cst.For) or loop.orelse is not None:
            return None
        if method_name(call) != "withColumn" or call.func.value is not None and not (
                isinstance(call.func.value, cst.Name) and call.func.value.value == name):
            return None
        body = loop.body
        if not isinstance(body, cst.IndentedBlock) or len(body.body) != 1 or "#" in self.ctx.code_for(loop.body):
            return None
        statement = body.body[0]
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1 or statement.body[0] is not assign:
            return None
        args = positional_args(call)
        if len(args) != 2 or len(call.args) != 2 or not isinstance(loop.target, cst.Name):
            return None
        column, expression = args
        if _mentions(self.ctx, expression, set()) or any(
            isinstance(n, cst.Name) and n.value == name for n in walk_expression(expression)
        ):
            return None  # the expression reads the DataFrame being built: order matters
        var = source(self.ctx, loop.target)
        content = (f"{name} = {name}.withColumns({{{source(self.ctx, column)}: {source(self.ctx, expression)} "
                   f"for {var} in {source(self.ctx, loop.iter)}}})")
        return replace(loop, content, "Use one `withColumns` with a dict comprehension", safe=False)

    def _advice(self) -> str:
        if self.ctx.settings.target_spark >= (3, 3):
            return "build the columns first and apply them at once with `withColumns({...})` (or one `select`)"
        return "build the columns first and apply them in one `select` (`withColumns` needs Spark 3.3)"

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) not in _CHAIN:
            return
        parent = self.ctx.parent_of(node)
        if isinstance(parent, cst.Attribute) and parent.attr.value in _CHAIN:
            return  # not the outermost call of the chain
        length, dropped, inner = 0, False, node
        while isinstance(inner, cst.Call) and method_name(inner) in _CHAIN:
            if method_name(inner) == "drop":
                dropped = True  # `.drop(...)` between them: still one projection after another
            else:
                length += 1
            inner = inner.func.value
        if length <= self.opts["max-chain"] or not self.ctx.settings.preview or \
                not self.ctx.semantic.is_dataframe(inner):
            return  # a chain written once: reported only with --preview (see the manual)
        self.ctx.report(
            self,
            node,
            f"a chain of {length} `withColumn` calls adds {length} projections to the plan",
            help=self._advice(),
            fix=None if dropped else self._chain_fix(node, inner),
        )

    def _chain_fix(self, node: cst.Call, base):
        if self.ctx.settings.target_spark < (3, 3):
            return None
        calls, inner = [], node
        while isinstance(inner, cst.Call) and inner is not base:
            calls.append(inner)
            inner = inner.func.value
        calls.reverse()
        entries, defined = [], set()
        for call in calls:
            args = positional_args(call)
            name = literal_string(args[0]) if len(args) == 2 and len(call.args) == 2 else None
            if method_name(call) != "withColumn" or name is None or name in defined:
                return None
            if defined and _mentions(self.ctx, args[1], defined):
                return None  # reads a column defined earlier in the chain
            defined.add(name)
            entries.append(f"{source(self.ctx, args[0])}: {source(self.ctx, args[1])}")
        body = "".join(f"    {e},\n" for e in entries)  # indented from the line the chain starts on
        content = f"{source(self.ctx, base)}.withColumns({{\n{body}}})"
        return Fix("Merge the chain into one `withColumns`", (NodeEdit(node, content, from_start_line=True),), UNSAFE)


def _returned_projection(function: cst.FunctionDef, param: str):
    """The projection method when every `return` of ``function`` is ``param.withColumn(...)`` (or another
    projection of it, chained), else None."""
    found, stack = [], [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Return):
            call = node.value
            if not isinstance(call, cst.Call) or method_name(call) not in _PROJECTIONS:
                return None
            root = call.func.value
            while isinstance(root, cst.Call) and method_name(root) in _PROJECTIONS:
                root = root.func.value
            if not (isinstance(root, cst.Name) and root.value == param):
                return None
            found.append(method_name(call))
        stack.extend(child_nodes(node))
    return found[0] if found else None
