import libcst as cst

from checks.python._driver import COMPARISONS, FLIPPED, counted_frame, shown
from checks.python._fixes import atom, replace
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import DATAFRAME, RDD, literal_int, method_name, positional_args

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"

# (operator, literal) pairs that test for "empty" / "not empty" against count().
_EMPTY = {("==", 0), ("<", 1), ("<=", 0)}
_NOT_EMPTY = {(">", 0), ("!=", 0), (">=", 1)}
# Actions that fetch `n` rows and stop there: a test for rows of one of them costs what `isEmpty()` does at n = 1.
_FETCHES = ("take", "head", "tail")


class CountEmptinessCheck(PythonRule):
    """
    ## What it does
    Finds `count()` of a DataFrame used only to learn whether it has rows:
    `df.count() > 0`, `== 0`, `>= 1`, `!= 0`, `< 1`, `if df.count():`,
    `not df.count()`, `bool(df.count())`, `if ready and df.count():` (each
    operand of `and` / `or` is a test), `n = df.count()` whose only use is
    `n > 0` (or `if not n:`), `df.rdd.isEmpty()`, and `len(df.collect()) > 0`;
    also an RDD's `rdd.count() > 0` (`rdd.isEmpty()` takes one row, in any Spark version).
    A `count()` whose number is used (printed, logged, stored) is not
    reported.

    It also finds the same test made with more rows than one:
    `len(df.take(n)) == 0`, `len(df.head(n)) > 0`, `not df.tail(n)` (or
    `df.take(n)` tested for truth) where `n` is more than 1 or not a literal,
    and `len(df.limit(n).collect())` of the same kind.

    Not reported: the one-row forms, `len(df.take(1)) == 0`,
    `len(df.head(1)) > 0`, `not df.tail(1)`, `df.first() is None`,
    `len(df.limit(1).collect()) == 0`, `df.limit(1).count() > 0`. They stop
    at the first row they find, as `isEmpty()` does, and cost no more (see
    below): rewriting them changes style, not work. A count compared with
    another threshold (`df.count() < 100`) is SPK112's
    (count-threshold-check, preview).

    ## Why is this bad?
    `count()` runs a job that reads every row of every partition to produce a
    number that is then thrown away. `isEmpty()` (Spark 3.3+) reads at most
    one row of each partition; `len(df.collect())` is worse than `count()`,
    as it also ships every row to the driver. `df.rdd.isEmpty()` stops early
    too, but through the RDD API: rows are serialised to Python objects to
    answer a yes/no question that `isEmpty()` answers in the JVM.

    `take(n)`, `head(n)` and `tail(n)` stop early as well: they read one
    partition (the last one for `tail`), then more only while fewer than `n`
    rows have been found. With `n = 1` that is the cheapest test there is:
    on local Spark 4.3, over 40 partitions with rows in each, `take(1)`,
    `head(1)`, `tail(1)` and `limit(1).collect()` each ran 1 task, and
    `isEmpty()` ran 41 (one row from every partition, then one task to
    gather them). With a larger `n`, the test waits for `n` rows instead of
    one, reads the partitions it takes to find them and ships them all to
    the driver, to be thrown away.

    ## Example
    ```python
    if orders.count() > 0:
        orders.write.parquet("s3://lake/orders")
    ```

    ## Use instead
    ```python
    if not orders.isEmpty():
        orders.write.parquet("s3://lake/orders")
    ```
    Before Spark 3.3: `len(orders.head(1)) > 0`.

    ## Fix safety
    Safe, when the target Spark is 3.3 or newer (`target-spark`; no fix
    otherwise): `df.count() > 0` becomes `not df.isEmpty()`, `== 0` becomes
    `df.isEmpty()`, `if df.count():` becomes `if not df.isEmpty():`, and
    `len(df.collect()) > 0` becomes `not df.isEmpty()`, `df.rdd.isEmpty()`
    becomes `df.isEmpty()`; an RDD's `rdd.count() > 0` becomes `not
    rdd.isEmpty()` on any Spark. A literal `n` of `take(n)`, `head(n)` or
    `tail(n)` becomes `1`, on any Spark: at least one row of `n` exists
    exactly when one row does. The test's value is the same for every
    DataFrame; only the work to compute it shrinks. `take(n)` of a variable
    `n` has no fix (`take(0)` is always empty).

    ## References
    - PySpark API: `DataFrame.isEmpty` (new in 3.3.0), `DataFrame.take`,
      `DataFrame.tail`.
    - Spark source, `SparkPlan.executeTake` (the partitions read per try
      grow by `spark.sql.limit.scaleUpFactor` while too few rows are found).
    """

    code = "SPK103"
    skip_in_tests = True
    name = "count-emptiness-check"
    summary = "`count()` (or `len(collect())`) used only to test for rows"
    default_reason = ("a `count()` used only as a yes/no test reads every row of every partition to "
                      "throw the number away; the one-row forms that already stop early are not reported")
    triggers = ("count", "collect", "take", "head", "tail", "isEmpty")
    fix = "safe"
    min_spark = "3.3"
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid("from pyspark import SparkContext\nsc = SparkContext()\npings = sc.textFile('s3://pings/2020/*')\n"
                "assert pings.count() > 0\n"),
        Invalid(_SETUP + "if orders.count() > 0:\n    print('rows')\n",
                fixed=_SETUP + "if not orders.isEmpty():\n    print('rows')\n"),
        Invalid(_SETUP + "empty = orders.filter('amount < 0').count() == 0\n",
                fixed=_SETUP + "empty = orders.filter('amount < 0').isEmpty()\n"),
        Invalid(_SETUP + "if not orders.count():\n    raise SystemExit(1)\n",
                fixed=_SETUP + "if orders.isEmpty():\n    raise SystemExit(1)\n"),
        Invalid(_SETUP + "if orders.count():\n    pass\n", fixed=_SETUP + "if not orders.isEmpty():\n    pass\n"),
        Invalid(_SETUP + "assert 0 < orders.count()\n", fixed=_SETUP + "assert not orders.isEmpty()\n"),
        Invalid(_SETUP + "if len(orders.collect()) > 0:\n    pass\n",
                fixed=_SETUP + "if not orders.isEmpty():\n    pass\n"),
        Invalid(_SETUP + "has_rows = orders.count() >= 1\n", fixed=_SETUP + "has_rows = not orders.isEmpty()\n"),
        Invalid(_SETUP + "while orders.count() != 0:\n    break\n",
                fixed=_SETUP + "while not orders.isEmpty():\n    break\n"),
        Invalid(_SETUP + "ok = flag and not orders.count()\n", fixed=_SETUP + "ok = flag and orders.isEmpty()\n"),
        Invalid(_SETUP + "def load(data):\n    count = data.where('ok').count()\n    if not count:\n"
                "        raise SystemExit('empty')\n    data.write.parquet('out')\n"),
        Invalid(_SETUP + "if not orders.tail(5):\n    pass\n", fixed=_SETUP + "if not orders.tail(1):\n    pass\n"),
        Invalid(_SETUP + "if len(orders.take(1000)) == 0:\n    pass\n",
                fixed=_SETUP + "if len(orders.take(1)) == 0:\n    pass\n"),
        Invalid(_SETUP + "found = len(orders.filter('amount < 0').head(20)) > 0\n",
                fixed=_SETUP + "found = len(orders.filter('amount < 0').head(1)) > 0\n"),
        Invalid(_SETUP + "def load(data, n):\n    if len(data.take(n)) == 0:\n        return\n"
                "    data.write.parquet('out')\n"),
        Invalid(_SETUP + "if len(orders.limit(50).collect()) > 0:\n    pass\n"),
        Invalid(_SETUP + "def load(data):\n    n = data.where('ok').count()\n    if n > 0:\n"
                "        data.write.parquet('out')\n"),
        Invalid(_SETUP + "def load(data, ready):\n    if ready and data.where('ok').count():\n"
                "        data.write.parquet('out')\n",
                fixed=_SETUP + "def load(data, ready):\n    if ready and not data.where('ok').isEmpty():\n"
                "        data.write.parquet('out')\n"),
        Invalid(_SETUP + "if orders.rdd.isEmpty():\n    raise SystemExit(1)\n",
                fixed=_SETUP + "if orders.isEmpty():\n    raise SystemExit(1)\n"),
        Invalid(_SETUP + "if not orders.count() > 0:\n    pass\n", fixed=_SETUP + "if orders.isEmpty():\n    pass\n"),
        Invalid(_SETUP + "if len(orders.collect()) > 1:\n    pass\n", fixed=_SETUP + "if orders.count() > 1:\n    pass\n",
                preview=False),  # (with --preview, SPK112 then limits the count: `orders.limit(2).count() > 1`)
        Invalid(_SETUP + "def process(batch, batch_id):\n    if batch.count() > 0:\n        batch.write.save()\n\n"
                "orders.writeStream.foreachBatch(process).start()\n",
                fixed=_SETUP + "def process(batch, batch_id):\n    if not batch.isEmpty():\n        batch.write.save()\n\n"
                "orders.writeStream.foreachBatch(process).start()\n"),
    )
    valid = (
        Valid(_SETUP + "print('rows:', orders.count())\n"),
        Valid(_SETUP + "n = orders.count()\nif n > 0:\n    print(n)\n"),
        Valid(_SETUP + "if orders.count() > 1000:\n    print('big')\n"),
        Valid(_SETUP + "if not orders.isEmpty():\n    pass\n"),
        Valid("items = [1, 2]\nif items.count(1) > 0:\n    pass\n"),
        Valid(_SETUP + "if len(orders.head(1)) > 0:\n    pass\n"),
        # one row fetched: as cheap as `isEmpty()` (cheaper in tasks on Spark 4.3), so a rewrite changes nothing
        Valid(_SETUP + "if len(orders.take(1)) == 0:\n    pass\n"),
        Valid(_SETUP + "from pyspark.sql import Window, functions as F\nw = Window.partitionBy('customer_id')\n"
              "dups = orders.withColumn('n', F.count('*').over(w)).filter(F.col('n') > 1)\n"
              "unique = len(dups.take(1)) == 0\n"),
        Valid(_SETUP + "if not orders.tail(1):\n    pass\n"),
        Valid(_SETUP + "if not orders.take(1):\n    pass\n"),
        Valid(_SETUP + "if len(orders.limit(1).collect()) == 0:\n    pass\n"),
        Valid(_SETUP + "if orders.head() is None:\n    pass\n"),
        Valid(_SETUP + "if len(orders.limit(5).collect()) > 1:\n    pass\n"),
        Valid(_SETUP + "def load(data):\n    count = data.count()\n    if not count:\n        return 0\n    return count\n"),
        Valid(_SETUP + "if len(orders.take(5)) > 3:\n    pass\n"),
        Valid(_SETUP + "def load(data):\n    n = data.count()\n    if n > 1000:\n        data.write.parquet('out')\n"),
        Valid(_SETUP + "if ready and not orders.isEmpty():\n    pass\n"),
        Valid("rdd = sc.parallelize([1])\nif rdd.isEmpty():\n    pass\n"),
        Valid("import polars as pl\nlf = pl.scan_csv('x.csv')\nif lf.collect().height > 0:\n    pass\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self._counts: dict = {}  # name -> (found, the count() call, the scope node) for `n = df.count()`

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            found = self._counted(node.value)
            if found is not None and method_name(node.value) == "count":
                self._counts[node.targets[0].target.value] = (found, node.value, self._scope_node())

    def _scope_node(self):
        for parent in reversed(self.ctx.ancestors):
            if isinstance(parent, (cst.FunctionDef, cst.Module)):
                return parent
        return None

    def _assigned_count(self, test) -> bool:
        """``if not n`` where ``n = df.count()`` and the test is the number's only use: reported at the count."""
        if not isinstance(test, cst.Name) or test.value not in self._counts:
            return False
        found, call, scope = self._counts[test.value]
        if scope is not self._scope_node() or _uses(scope, test.value) != 2:
            return False
        receiver, text = found[0], found[1]
        self.ctx.report(self, call, f"`{text}` reads every row only to test whether `{shown(self.ctx, receiver)}` "
                        "has any (the number is used only in that test)",
                        help=f"test `{shown(self.ctx, receiver)}.isEmpty()` instead, which stops at the first row")
        return True

    def _counted(self, node, truth: bool = False):
        """What ``x.count()`` / ``len(x.collect())`` / ``len(x.take(n))`` fetches to test for rows; else None.

        The answer is (x, call text, rows, the fetching call): ``rows`` is ``"count"`` (every row read for a
        number), ``"all"`` (every row shipped), an int (at most that many rows shipped) or None (``take(n)`` of an
        unknown ``n``).  A fetch of one row at most (``take(1)``, ``head(1)``, ``tail(1)``, a ``limit(1)``
        collected) is None: it stops at the first row it finds, as ``isEmpty()`` does, and costs no more.
        ``truth``: the node is tested for truth, where ``x.take(n)`` / ``x.head(n)`` / ``x.tail(n)`` is a test too.
        """
        if not isinstance(node, cst.Call):
            return None
        receiver = counted_frame(self.ctx, node, rdds=True)
        if receiver is not None:
            return receiver, f"{shown(self.ctx, receiver)}.count()", "count", node
        if method_name(node) in _FETCHES and truth and self.ctx.semantic.is_dataframe(node.func.value):
            return self._fetched(node, f"{shown(self.ctx, node)}")
        if isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1:
            inner = node.args[0].value
            if isinstance(inner, cst.Call) and method_name(inner) in ("collect", *_FETCHES) \
                    and not self.ctx.semantic.is_bound("len"):
                value = self.ctx.semantic.infer(inner.func.value)
                if value is not None and value.kind == DATAFRAME:
                    return self._fetched(inner, f"len({shown(self.ctx, inner)})")
        return None

    def _fetched(self, call: cst.Call, text: str):
        """``x.collect()`` / ``x.take(n)`` / ``x.head(n)`` / ``x.tail(n)`` as ``_counted`` answers; None for one row."""
        receiver = call.func.value
        value = self.ctx.semantic.infer(receiver)
        bound = value.bound if value is not None and isinstance(value.bound, int) else None
        if method_name(call) == "collect":
            rows = "all" if bound is None else bound
        else:
            args = positional_args(call)
            if len(args) != 1 or len(call.args) != 1:
                return None  # `head()` is one Row or None
            n = literal_int(args[0])
            rows = n if bound is None else bound if n is None else min(n, bound)
        if isinstance(rows, int) and rows <= 1:
            return None
        return receiver, text, rows, call

    def _report(self, node, found, empty: bool, replaced=None):
        """``empty``: the test is true when there are no rows; ``replaced``: the node the fix rewrites."""
        receiver, text, rows, call = found
        name = shown(self.ctx, receiver)
        fix = None
        if rows not in ("count", "all"):
            # `take(n)` stops early too: what it wastes is the rows after the first, and the partitions read for them
            args = positional_args(call)
            if method_name(call) in _FETCHES and literal_int(args[0]) is not None:
                fix = replace(args[0], "1", "Fetch one row")  # a test for rows of `take(n)` is one of `take(1)`
            shipped = f"up to {rows} rows" if isinstance(rows, int) else "rows"
            self.ctx.report(self, node, f"`{text}` brings {shipped} to the driver only to test whether `{name}` "
                            "has any", help=f"fetch one row (`len({name}.take(1)) == 0`): it stops at the first "
                            "row, as `isEmpty()` does", fix=fix)
            return
        value = self.ctx.semantic.infer(receiver)
        if self.ctx.settings.target_spark >= (3, 3) or value is not None and value.kind == RDD:
            # (an RDD has had `isEmpty()` since Spark 1.3: `take(1)` in one job)
            help = f"use `{name}.isEmpty()`, which stops at the first row"
            test = f"{atom(self.ctx, receiver)}.isEmpty()"
            fix = replace(replaced if replaced is not None else node, test if empty else f"not {test}",
                          "Use `isEmpty()`")
        else:
            help = f"use `len({name}.head(1)) == 0` (`isEmpty()` needs Spark 3.3; target-spark is older)"
        what = "reads every row" if rows == "count" else "brings every row to the driver"
        self.ctx.report(self, node, f"`{text}` {what} only to test whether `{name}` has any",
                        help=help, fix=fix)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        target = node.comparisons[0]
        op = COMPARISONS.get(type(target.operator))
        if op is None:
            return
        left, right = node.left, target.comparator
        found, number, counted = self._counted(left), literal_int(right), left
        if found is None and self._counted(right) is not None:
            found, number, op, counted = self._counted(right), literal_int(left), FLIPPED[op], right
        if found is None:
            # `n > 0` where `n = df.count()` is used only there
            name, number, op = (left, literal_int(right), op) if literal_int(right) is not None else \
                (right, literal_int(left), FLIPPED[op])
            if number is not None and ((op, number) in _EMPTY or (op, number) in _NOT_EMPTY):
                self._assigned_count(name)
            return
        if number is None:
            return
        if (op, number) in _EMPTY or (op, number) in _NOT_EMPTY:
            empty = (op, number) in _EMPTY
            parent = self.ctx.parent_of(node)
            if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
                # `not df.count() > 0` is `df.isEmpty()`, not `not not df.isEmpty()`
                self._report(node, found, empty=not empty, replaced=parent)
            else:
                self._report(node, found, empty=empty)
        elif found[2] == "all":
            receiver = found[0]
            self.ctx.report(self, counted, f"`{found[1]}` brings every row to the driver to count them",
                            help=f"count on the cluster: `{shown(self.ctx, receiver)}.count()`",
                            fix=replace(counted, f"{atom(self.ctx, receiver)}.count()", "Use `count()`"))

    def _truthiness(self, test) -> None:
        if isinstance(test, cst.BooleanOperation):
            # `if ready and df.count():`: each operand is tested for truth (a `not` operand is visit_UnaryOperation's)
            for operand in (test.left, test.right):
                if not (isinstance(operand, cst.UnaryOperation) and isinstance(operand.operator, cst.Not)):
                    self._truthiness(operand)
            return
        whole, negated = test, False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, True
        if isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "bool" and len(test.args) == 1:
            test = test.args[0].value
        found = self._counted(test, truth=True)
        if found is not None:
            self._report(test, found, empty=negated, replaced=whole)
        else:
            self._assigned_count(test)

    def visit_If(self, node: cst.If) -> None:
        self._truthiness(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._truthiness(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._truthiness(node.test)

    def visit_Assert(self, node: cst.Assert) -> None:
        self._truthiness(node.test)

    def visit_Call(self, node: cst.Call) -> None:
        """`df.rdd.isEmpty()`: the same test through the RDD API."""
        rdd = node.func.value if isinstance(node.func, cst.Attribute) else None
        if method_name(node) != "isEmpty" or node.args or not (isinstance(rdd, cst.Attribute) and rdd.attr.value == "rdd"):
            return
        frame = rdd.value
        if not self.ctx.semantic.is_dataframe(frame):
            return
        name = shown(self.ctx, frame)
        fix = None
        if self.ctx.settings.target_spark >= (3, 3):
            help = f"use `{name}.isEmpty()`, which answers in the JVM with a one-row limit"
            fix = replace(node, f"{atom(self.ctx, frame)}.isEmpty()", "Use `DataFrame.isEmpty()`")
        else:
            help = f"use `len({name}.head(1)) == 0` (`isEmpty()` needs Spark 3.3; target-spark is older)"
        self.ctx.report(self, node, f"`{name}.rdd.isEmpty()` turns rows into Python objects only to test whether "
                        f"`{name}` has any", help=help, fix=fix, start=rdd.attr)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        parent = self.ctx.parent_of(node)
        if isinstance(node.operator, cst.Not) and not isinstance(parent, (cst.If, cst.While, cst.IfExp, cst.Assert)):
            found = self._counted(node.expression, truth=True)
            if found is not None:
                self._report(node.expression, found, empty=True, replaced=node)


def _uses(scope, name: str) -> int:
    """How many times ``name`` occurs as a name in a function or module (nested scopes included)."""
    count, stack = 0, [scope]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            count += node.value == name
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)  # `x.count`: the attribute's own name is not a use of `count`
        else:
            stack.extend(node.children)
    return count
