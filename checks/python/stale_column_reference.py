import libcst as cst

from checks.python import _determinism_and_joins as lineage
from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import GROUPED, keyword_arg, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\n"
    "orders = spark.table('sales.orders')\ncustomers = spark.table('crm.customers')\n"
)
_PROJECTING = frozenset({"select", "withColumn", "groupBy", "groupby"})
_RESCUED = frozenset({"filter", "where", "orderBy", "sort"})


def _distinct(root) -> bool:
    """A source read here (`spark.table`, `spark.read...`): never the same DataFrame as another such source."""
    return root[0] in ("node", "table")


class StaleColumnReference(PythonRule):
    """
    ## What it does
    Finds a column named through a DataFrame variable (`customers.id`,
    `orders["amount"]`) used on another DataFrame that does not carry that
    column: after a `select` or `drop` removed it, after `withColumn` /
    `withColumnRenamed` replaced it, after a `groupBy` that does not keep it,
    or on a DataFrame not made from that variable at all. Checked in
    `select`, `withColumn`, `groupBy`, `agg` and join conditions; in
    `filter`/`where`/`orderBy`/`sort` only when the DataFrame is not made from
    the variable at all (there Spark can reach a column a `select` dropped).

    Lineage is followed through the assignments of this file; a DataFrame a
    helper returns, or one assigned in a branch, is not judged. On by
    default: what it reports fails when the job runs.

    ## Why is this bad?
    `customers.id` is resolved when the Python line runs, to one attribute of
    `customers`' plan. A DataFrame that no longer has that attribute (a
    `select` left it out, a `drop` removed it, a `withColumn` of the same name
    made a new one) cannot evaluate it: the job fails with "Resolved
    attribute(s) id#12 missing from ..." (`[MISSING_ATTRIBUTES]`), usually
    far from where the column was dropped.

    ## Example
    ```python
    joined = orders.join(customers, orders.customer_id == customers.id)
    slim = joined.select("order_id", "amount")
    report = slim.withColumn("country", customers.country)
    ```

    ## Use instead
    ```python
    joined = orders.join(customers, orders.customer_id == customers.id)
    slim = joined.select("order_id", "amount", customers.country)
    ```
    Keep the column in the `select`, or refer to columns of the DataFrame at
    hand by name (`F.col("country")`).

    ## Fix safety
    No fix.

    ## References
    - Spark error conditions: `MISSING_ATTRIBUTES` ("Resolved attribute(s) ...
      missing from ... in operator ...").
    - PySpark API: `DataFrame.__getattr__` / `DataFrame.__getitem__` (a Column
      of this DataFrame).
    """

    code = "SPK315"
    name = "stale-column-reference"
    summary = "`df.col` used on a DataFrame that no longer carries that column: the job fails with missing attributes"
    default_reason = ("a column taken from a DataFrame that no longer carries it fails the job with missing "
                      "attributes, far from the drop; frames from helpers or branches are not judged")
    severity = "error"
    triggers = ("select", "drop", "withColumn", "join", "groupBy", "groupby", "agg", "filter", "where", "sort", "orderBy")
    doc_setup = 'orders = spark.table("sales.orders")\ncustomers = spark.table("crm.customers")\n'

    invalid = (
        Invalid(_SETUP + "joined = orders.join(customers, orders.customer_id == customers.id)\n"
                "slim = joined.select('order_id', 'amount')\nreport = slim.withColumn('country', customers.country)\n"),
        Invalid(_SETUP + "joined = orders.join(customers, orders.customer_id == customers.id).drop(customers.id)\n"
                "keys = joined.select(orders.order_id, customers.id)\n"),
        Invalid(_SETUP + "doubled = orders.withColumn('amount', orders.amount * 2)\n"
                "out = doubled.select(orders.amount)\n"),
        Invalid(_SETUP + "totals = orders.groupBy('customer_id').agg(F.sum('amount').alias('total'))\n"
                "big = totals.select(totals.total, orders.status)\n"),
        Invalid(_SETUP + "out = customers.filter(orders.amount > 10)\n"),
        Invalid(_SETUP + "slim = orders.select('order_id', 'customer_id')\n"
                "counts = slim.groupBy('customer_id').agg(F.max(orders.amount))\n"),
    )
    valid = (
        Valid(_SETUP + "joined = orders.join(customers, orders.customer_id == customers.id)\n"
              "slim = joined.select('order_id', 'amount', customers.country)\n"),
        Valid(_SETUP + "joined = orders.join(customers, orders.customer_id == customers.id)\n"
              "out = joined.drop(customers.id).select(orders.order_id, customers.name)\n"),
        Valid(_SETUP + "slim = orders.select('order_id', 'status')\nopen_ = slim.filter(orders.amount > 10)\n"),
        Valid(_SETUP + "totals = orders.groupBy('customer_id').agg(F.sum('amount').alias('total'))\n"
              "out = totals.select(orders.customer_id, totals.total)\n"),
        Valid(_SETUP + "joined = orders.join(customers, 'customer_id')\nout = joined.select(customers.customer_id)\n"),
        Valid(_SETUP + "def enrich(df):\n    return df\n\nrich = enrich(orders)\nout = rich.select(orders.amount)\n"),
        Valid("from pyspark.sql import functions as F\n\ndef enrich(df, base):\n"
              "    return df.withColumn('x', base.amount)\n"),
        Valid(_SETUP + "import os\nif os.environ.get('FULL'):\n    orders = orders.select('order_id')\n"
              "out = orders.select(orders.order_id)\n"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        lineage.enter_function(self.ctx, node)

    def leave_Assign(self, node: cst.Assign) -> None:
        lineage.leave_assign(self.ctx, node)

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method is None:
            return
        ctx = self.ctx
        receiver = node.func.value
        if method == "agg":
            value = ctx.semantic.infer(receiver)
            if value is None or value.kind != GROUPED or not isinstance(receiver, cst.Call) \
                    or method_name(receiver) not in ("groupBy", "groupby"):
                return
            frame = lineage.frame_of(ctx, receiver.func.value)
            self._check(node, [frame] if frame is not None else None, node.args, related_ok=False)
            return
        if method not in _PROJECTING and method not in _RESCUED and method != "join":
            return
        if not ctx.semantic.is_dataframe(receiver):
            return
        frame = lineage.frame_of(ctx, receiver)
        if frame is None:
            return
        if method == "join":
            args = positional_args(node)
            other = lineage.frame_of(ctx, args[0]) if args else None
            on = lineage.join_condition(node)
            if other is None or on is None:
                return
            self._check(node, [frame, other], [cst.Arg(on)], related_ok=False)
            return
        args = list(node.args)
        if method == "withColumn":
            args = args[1:2]
        self._check(node, [frame], args, related_ok=method in _RESCUED)

    def _check(self, node, frames, args, related_ok: bool) -> None:
        if not frames or any(f.opaque for f in frames):
            return
        ctx = self.ctx
        for arg in args:
            for ref_node, (owner, name) in lineage.column_refs(ctx, arg.value):
                owner_frame = lineage.name_frame(ctx, owner)
                if owner_frame is None or owner_frame.opaque:
                    continue
                tokens = owner_frame.tokens(name)
                if not tokens or any(name in f.uncertain for f in frames):
                    continue
                if any(f.carries(t) for f in frames for t in tokens):
                    continue
                related = any(owner_frame.roots & f.roots for f in frames)
                if related and related_ok:
                    continue
                if not related and not all(_distinct(r) for f in (owner_frame, *frames) for r in f.roots):
                    continue  # a parameter may be passed a DataFrame made from the other one
                where = " or ".join(f"`{shown(ctx, n)}`" for n in self._sides(node))
                if related:
                    why = f"is no longer a column of {where} (a `select`, `drop`, `groupBy` or a replacing " \
                        "`withColumn` on the way removed it)"
                else:
                    why = f"is used on {where}, which is not made from `{owner}`"
                ctx.report(
                    self,
                    ref_node,
                    f"`{shown(ctx, ref_node)}` {why}: the job fails with missing attributes",
                    help="keep the column where it is dropped, or name a column of this DataFrame (`F.col(...)`)",
                )
                return

    @staticmethod
    def _sides(node):
        if method_name(node) == "join":
            args = positional_args(node)
            return [node.func.value, args[0] if args else keyword_arg(node, "other")]
        receiver = node.func.value
        if method_name(node) == "agg" and isinstance(receiver, cst.Call):
            return [receiver.func.value]
        return [receiver]
