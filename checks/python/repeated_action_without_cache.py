import libcst as cst

from checks.python.action_in_loop import ACTIONS, chain_root
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import CACHES, DATAFRAME, WRITER, WRITES, method_name

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\ncustomers = spark.table('customers')\n"
)
_BLOCKS = (cst.IndentedBlock, cst.SimpleStatementSuite)


class RepeatedActionWithoutCache(PythonRule):
    """
    ## What it does
    Finds a DataFrame variable whose plan contains a shuffle (a join, an
    aggregation, a `distinct`, a sort) materialised by two or more actions
    (`count`, `collect`, `show`, `toPandas`, `first`, `take`, a write, also on
    a DataFrame derived from it, such as `df.limit(10).collect()`) with no
    `cache()` or `persist()` in between. Only the same variable holding the
    same DataFrame is considered (not re-assigned between the two actions),
    and only when the first action runs whenever the second does (not in
    different branches of an `if`).

    ## Why is this bad?
    DataFrames are lazy: each action recomputes the whole plan from the
    sources, joins and shuffles included. Two actions on an expensive
    DataFrame pay for it twice.

    ## Example
    ```python
    enriched = orders.join(customers, "customer_id")
    print(enriched.count())
    enriched.show()
    ```

    ## Use instead
    ```python
    enriched = orders.join(customers, "customer_id").cache()
    print(enriched.count())
    enriched.show()
    enriched.unpersist()
    ```

    ## Fix safety
    No fix: caching costs executor memory, which is the author's trade-off.

    ## References
    - Spark RDD programming guide, "RDD Persistence".
    """

    code = "SPK109"
    skip_in_tests = True
    name = "repeated-action-without-cache"
    summary = "an expensive DataFrame is recomputed by each of several actions"
    triggers = (*ACTIONS, "write")
    doc_setup = 'orders = spark.table("orders")\ncustomers = spark.table("customers")\n'

    invalid = (
        Invalid(_SETUP + "enriched = orders.join(customers, 'customer_id')\nprint(enriched.count())\nenriched.show()\n"),
        Invalid(_SETUP + "totals = orders.groupBy('day').agg(F.sum('amount'))\na = totals.collect()\nb = totals.toPandas()\n"),
        Invalid(_SETUP + "t = orders.distinct()\nt.write.mode('overwrite').parquet('/x')\nprint(t.limit(5).collect())\n"),
    )
    valid = (
        Valid(_SETUP + "enriched = orders.join(customers, 'customer_id').cache()\nprint(enriched.count())\nenriched.show()\n"),
        Valid(_SETUP + "enriched = orders.join(customers, 'customer_id')\nenriched.persist()\nenriched.count()\nenriched.show()\n"),
        Valid(_SETUP + "print(orders.count())\norders.show()\n"),
        Valid(_SETUP + "e = orders.join(customers, 'id')\nif flag:\n    e.show()\nelse:\n    e.count()\n"),
        Valid(_SETUP + "e = orders.join(customers, 'id')\ne.count()\ne = e.filter('x > 1')\ne.count()\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.seen: dict = {}  # id(Value) -> (method, blocks)

    def _blocks(self) -> set:
        return {id(a) for a in self.ctx.ancestors if isinstance(a, _BLOCKS)}

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method is None:
            return
        semantic = self.ctx.semantic
        if method in CACHES:
            receiver = node.func.value
            value = semantic.lookup(receiver.value) if isinstance(receiver, cst.Name) else None
            if value is not None and value.kind == DATAFRAME:
                value.flags = set(value.flags or ()) | {"cached"}
            return
        if method in WRITES:
            writer = semantic.infer(node.func.value)
            if writer is None or writer.kind != WRITER:
                return
        elif method not in ACTIONS or not semantic.is_dataframe(node.func.value):
            return
        # The action recomputes whatever DataFrame variable its chain starts from.
        receiver = chain_root(node.func.value)
        value = semantic.lookup(receiver.value) if receiver is not None else None
        if value is None or value.kind != DATAFRAME:
            return
        flags = value.flags or ()
        if "shuffle" not in flags or "cached" in flags:
            return
        blocks = self._blocks()
        first = self.seen.get(id(value))
        if first is None:
            self.seen[id(value)] = (method, blocks, value)
            return
        first_method, first_blocks, _ = first
        if not first_blocks <= blocks:
            return
        name = receiver.value
        self.ctx.report(
            self,
            node,
            f"`{method}()` recomputes `{name}` (joins and shuffles included), which "
            f"`{first_method}()` already computed above",
            help=f"`cache()` (or `persist()`) `{name}` before its first action, and `unpersist()` it after the last",
            start=node.func.attr,
        )
