import re

import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_string, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\nevents = spark.table('events')\n"
)
_SEEDED = frozenset({"rand", "randn", "shuffle", "random"})  # quiet when given a seed
_ALWAYS = frozenset({"uuid", "monotonically_increasing_id", "spark_partition_id"})
_SQL = re.compile(r"\b(rand|randn|random|uuid|shuffle|monotonically_increasing_id|spark_partition_id)\s*\(\s*\)", re.I)


class NondeterministicFilter(PythonRule):
    """
    ## What it does
    Finds `filter` / `where` on a DataFrame whose condition calls
    `F.rand()`, `F.randn()`, `F.shuffle(...)` or `F.random()` without a seed,
    `F.expr("uuid()")`, `F.uuid()`, `F.monotonically_increasing_id()` or
    `F.spark_partition_id()`, as a Column or in SQL text
    (`filter("rand() < 0.1")`).

    A seeded `F.rand(42)` is not reported: the same seed over the same input
    partitions gives the same rows, which is what a hand-made train/test split
    (`rand(42) < 0.8` / `>= 0.8`) relies on. On by default: the rows kept are
    not a function of the data.

    ## Why is this bad?
    The value of these functions depends on the partition a row is in and its
    position there, and each `rand()` call draws its own seed. Which rows pass
    the filter then changes whenever the partitions are computed again: a
    second action on the result, a retried task or a lost executor
    recomputing a stage, or a different upstream partitioning. Two filters on
    `rand()` meant as complements overlap and miss rows, and downstream joins
    see different rows than the ones written. Catalyst also stops pushing
    other predicates below a non-deterministic filter.

    ## Example
    ```python
    sample = events.filter(F.rand() < 0.1)
    ```

    ## Use instead
    ```python
    sample = events.sample(fraction=0.1, seed=42)
    ```
    `randomSplit([0.8, 0.2], seed=42)` for complementary sets; for a subset
    that stays the same across runs and code changes, filter on a hash of a
    key: `F.abs(F.xxhash64("user_id")) % 10 == 0`.

    ## Fix safety
    No fix: a sample with a seed is still another set of rows.

    ## References
    - Spark SQL built-in functions: `rand`, `uuid`,
      `monotonically_increasing_id` ("The function is non-deterministic because
      its result depends on partition IDs").
    - PySpark API: `DataFrame.sample`, `DataFrame.randomSplit`.
    """

    code = "SPK312"
    name = "nondeterministic-filter"
    summary = "a filter on `rand()`, `uuid()` or a partition-dependent id keeps other rows each time it is computed"
    default_reason = ("the rows a filter on `rand()` or partition ids keeps change whenever partitions are "
                      "recomputed, by a second action or a retried task; a seeded `rand(42)` is not reported")
    triggers = ("rand", "uuid", "shuffle", "random", "monotonically_increasing_id", "spark_partition_id")
    doc_setup = 'events = spark.table("events")\n'

    invalid = (
        Invalid(_SETUP + "sample = events.filter(F.rand() < 0.1)\n"),
        Invalid(_SETUP + "sample = events.where((F.col('kind') == 'click') & (F.randn() > 1.5))\n"),
        Invalid(_SETUP + "first_rows = events.filter(F.monotonically_increasing_id() < 1000)\n"),
        # a snippet (or a notebook cell) whose `uuid` nothing binds: pyspark's, as the cell that imports it says
        Invalid("events = spark.table('events')\nsample = events.where(uuid() != 'x')\n"),
        Invalid(_SETUP + "sample = events.filter('rand() < 0.05')\n"),
        Invalid(_SETUP + "sample = events.filter(F.expr('uuid()') > 'a')\n"),
        Invalid("from pyspark.sql.functions import rand\n\ndef sample(df):\n"
                "    return df.where(rand() <= 0.2).withColumn('s', rand())\n"),
    )
    valid = (
        Valid(_SETUP + "sample = events.sample(fraction=0.1, seed=42)\n"),
        Valid(_SETUP + "train = events.filter(F.rand(42) < 0.8)\n"),
        Valid(_SETUP + "noisy = events.withColumn('noise', F.rand())\n"),
        Valid("from uuid import uuid4 as uuid\nevents = spark.table('events')\nsample = events.where(F.col('id') != str(uuid()))\n"),
        Valid(_SETUP + "stable = events.filter(F.abs(F.xxhash64('user_id')) % 10 == 0)\n"),
        Valid(_SETUP + "kept = events.filter(\"operand = 'rand()'\")\n"),
        Valid("import random\nrows = [r for r in range(10)]\npicked = filter(lambda r: random.random() < 0.5, rows)\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) not in ("filter", "where") or not node.args:
            return
        if not self.ctx.semantic.is_dataframe(node.func.value):
            return
        found = self._nondeterministic(node.args[0].value)
        if found is None:
            return
        self.ctx.report(
            self,
            node,
            f"`{found}` in `{method_name(node)}`: which rows pass changes each time the partitions are computed "
            "(another action, a retried task, another upstream partitioning)",
            help="use `sample(fraction, seed)` / `randomSplit(weights, seed)`, or filter on a hash of a key "
            "(`F.abs(F.xxhash64('id')) % 10 == 0`) for a subset that stays the same",
            start=node.func.attr,
        )

    def _nondeterministic(self, expr):
        semantic = self.ctx.semantic
        text = literal_string(expr)
        if text is not None:
            return self._in_sql(text)
        stack = [expr]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Call):
                name = semantic.is_function(current.func, _SEEDED | _ALWAYS | {"expr"})
                if name == "expr":
                    args = positional_args(current)
                    found = self._in_sql(literal_string(args[0]) or "") if args else None
                    if found:
                        return found
                elif name in _ALWAYS:
                    return self._called(current)
                elif name is not None:
                    args = positional_args(current)
                    seeded = len(args) > (1 if name == "shuffle" else 0) or any(
                        a.keyword is not None and a.keyword.value == "seed" for a in current.args)
                    if not seeded:
                        return self._called(current)
            if isinstance(current, cst.Lambda):
                continue
            stack.extend(current.children)
        return None

    def _called(self, call: cst.Call) -> str:
        """``F.rand()`` / ``rand()`` as the user spelled the function."""
        return " ".join(self.ctx.code_for(call.func).split()) + "()"

    @staticmethod
    def _in_sql(text: str):
        # string literals inside the SQL are not calls
        bare = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "''", text)
        m = _SQL.search(bare)
        return f"{m.group(1).lower()}()" if m else None
