import libcst as cst

from checks.python._driver import COMPARISONS, FLIPPED, counted_frame, shown
from checks.python._fixes import atom, replace
from linter.registry import Invalid, Option, PythonRule, Valid
from linter.semantic import literal_int, method_name

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"


class CountThresholdCheck(PythonRule):
    """
    ## What it does
    Finds `count()` of a DataFrame compared with a threshold and thrown
    away: `if df.count() < 100: raise ...`, `df.count() > n`, `5 <=
    df.count()`, where the threshold is an int literal, or a name the
    module binds once to one (`MIN_ROWS = 1_000`), up to `max-threshold`.
    Whether there are fewer than `k` rows shows in the first `k` rows:
    `df.limit(k).count() < k` gives the same answer (`limit(k + 1)` for
    `>`, `<=`, `==` and `!=`).

    Not reported: a count whose number is kept (`n = df.count()`, printed,
    logged); a threshold the file does not fix (a parameter, a name bound
    more than once) or above `max-threshold` (see below); a count already
    limited (`df.limit(k).count() < k`); and the comparisons with 0 or 1
    that test for rows at all (`df.count() > 0`, `< 1`), which are SPK103's
    (count-emptiness-check), with `isEmpty()` as their replacement.

    Preview (`--preview`): it changes a habit more than it mends a mistake.
    The threshold of a data-quality gate reads well as written, and on a
    small table the full count costs nothing.

    Not reported in test modules (`test_*.py`, `*_test.py`, `conftest.py`, files under `tests/`): they run on
    a handful of rows, where what this rule is about costs nothing.

    ## Why is this bad?
    `count()` runs the DataFrame's whole lineage over every row of every
    partition, to compare the number with `k` and throw it away. With a
    limit, each partition's task stops after `k` rows and one task counts
    what they send. On local Spark 4.3 (2 cores, 8 partitions of 2.5
    million rows hashed with `sha2` and filtered), `df.count() > 1000` took
    2.8 s and `df.limit(1001).count() > 1000` 0.28 s. The saving shrinks as
    the threshold grows, since every partition sends up to `k` rows to one
    task: at 100,000, 2.95 s against 0.70 s; at 1,000,000, 2.70 s against
    2.09 s; at 5,000,000 the limit was slower (3.29 s). Hence
    `max-threshold`.

    ## Example
    ```python
    if orders.count() < 1000:
        raise SystemExit("today's orders are not complete yet")
    ```

    ## Use instead
    ```python
    if orders.limit(1000).count() < 1000:
        raise SystemExit("today's orders are not complete yet")
    ```

    ## Fix safety
    Unsafe: the limit is inserted before `count()` (`df.count() < 100`
    becomes `df.limit(100).count() < 100`, `df.count() > n` becomes
    `df.limit(n + 1).count() > n`). The test has the same value for every
    DataFrame, on any Spark, but the rows after the first `k` are no longer
    read: a bad record there (`mode="FAILFAST"`), an accumulator or a
    cache the count was also filling no longer sees them. A frame cached
    before the count is not reported at all: counting is how a cache is
    filled.

    ## Options
    - `max-threshold` (int, default 100000): the largest threshold whose
      count is reported.

    ## References
    - PySpark API: `DataFrame.limit`, `DataFrame.count`.
    """

    code = "SPK112"
    name = "count-threshold-check"
    summary = "`df.count() < 1000` counts every row where the first 1,000 give the same answer"
    preview = True
    skip_in_tests = True
    triggers = ("count",)
    fix = "unsafe"
    doc_setup = 'orders = spark.table("orders")\n'
    options = {"max-threshold": Option(100_000, "The largest threshold a count is compared with that is reported.")}

    invalid = (
        Invalid(_SETUP + "if orders.count() > 1000:\n    print('big')\n",
                fixed=_SETUP + "if orders.limit(1001).count() > 1000:\n    print('big')\n", unsafe=True),
        Invalid(_SETUP + "MIN_ROWS = 100\n\ndef gate(df):\n    if df.dropDuplicates().count() < MIN_ROWS:\n"
                "        raise ValueError('too few rows')\n",
                fixed=_SETUP + "MIN_ROWS = 100\n\ndef gate(df):\n    if df.dropDuplicates().limit(MIN_ROWS).count() "
                "< MIN_ROWS:\n        raise ValueError('too few rows')\n", unsafe=True),
        Invalid(_SETUP + "n = 10\nsmall = orders.count() <= n\n",
                fixed=_SETUP + "n = 10\nsmall = orders.limit(n + 1).count() <= n\n", unsafe=True),
        Invalid(_SETUP + "ok = 5 <= orders.filter('amount > 0').count()\n",
                fixed=_SETUP + "ok = 5 <= orders.filter('amount > 0').limit(5).count()\n", unsafe=True),
        Invalid(_SETUP + "if orders.count() == 1:\n    pass\n",
                fixed=_SETUP + "if orders.limit(2).count() == 1:\n    pass\n", unsafe=True),
    )
    valid = (
        Valid(_SETUP + "if orders.count() > 0:\n    pass\n"),
        Valid(_SETUP + "if orders.count() < 1:\n    pass\n"),
        Valid(_SETUP + "if orders.count() > 10_000_000:\n    print('big')\n"),
        Valid(_SETUP + "def gate(df, minimum):\n    if df.count() < minimum:\n        raise ValueError(minimum)\n"),
        Valid(_SETUP + "MIN_ROWS = 100\nif orders.limit(MIN_ROWS).count() < MIN_ROWS:\n    raise ValueError()\n"),
        Valid(_SETUP + "MIN_ROWS = 100\nMIN_ROWS = 200\nif orders.count() < MIN_ROWS:\n    raise ValueError()\n"),
        Valid(_SETUP + "MIN_ROWS = 100\nMIN_ROWS *= 1.5\nif orders.count() < MIN_ROWS:\n    raise ValueError()\n"),
        Valid(_SETUP + "CAP = 10\nfor CAP in (10, 20_000_000):\n    print(orders.count() > CAP)\n"),
        Valid(_SETUP + "cached = orders.cache()\nif cached.count() < 1000:\n    raise ValueError()\n"),
        Valid(_SETUP + "n = orders.count()\nif n > 1000:\n    print(n)\n"),
        Valid(_SETUP + "if orders.limit(5).count() > 3:\n    pass\n"),
        Valid("items = [1, 2, 2]\nif items.count(2) > 1:\n    pass\n"),
        Valid("import pandas as pd\npdf = pd.read_csv('x.csv')\nif pdf.count() > 5:\n    pass\n"),
    )

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        op = COMPARISONS.get(type(node.comparisons[0].operator))
        if op is None:
            return
        call, other = node.left, node.comparisons[0].comparator
        receiver = counted_frame(self.ctx, call)
        if receiver is None:
            call, other, op = other, call, FLIPPED[op]
            receiver = counted_frame(self.ctx, call)
        if receiver is None or (isinstance(receiver, cst.Call) and method_name(receiver) == "limit"):
            return  # (`df.limit(n).count() < n` of a name `n`: the bounded form, with no bound the model knows)
        value = self.ctx.semantic.infer(receiver)
        if value is not None and "cached" in (value.flags or ()):
            return  # the count also fills the cache (the idiom): a limited count would leave it mostly empty
        k = literal_int(other)
        if k is None and isinstance(other, cst.Name) and self.ctx.semantic.constant_container(other.value) \
                and self.ctx.semantic.bindings(other.value) == 1:
            # `MIN_ROWS = 100`, and nothing else anywhere binds it (no `+=`, loop, `with`, `global` write)
            k = literal_int(self.ctx.semantic.module_assignment(other.value))
        if k is None or k < 1 or k > self.opts["max-threshold"] or (k == 1 and op in ("<", ">=")):
            return  # (`< 1`, `>= 1`: a test for rows at all, SPK103's)
        threshold = self.ctx.code_for(other)
        # fewer than k rows (or at least k) shows in the first k; more than k (or exactly k) in the first k + 1
        if op in ("<", ">="):
            rows = threshold
        else:
            rows = str(k + 1) if literal_int(other) is not None else f"{threshold} + 1"
        name = shown(self.ctx, receiver)
        self.ctx.report(
            self, call, f"`{name}.count()` reads every row only to compare the number with `{threshold}`",
            help=f"`{name}.limit({rows}).count()` gives the same answer from at most {rows} rows of each partition",
            fix=replace(call, f"{atom(self.ctx, receiver)}.limit({rows}).count()", "Count up to the threshold"))
