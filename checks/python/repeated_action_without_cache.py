import libcst as cst

from checks.python._callees import ACTIONS, callee_actions
from checks.python._driver import shown
from checks.python.action_in_loop import chain_root
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import CACHES, DATAFRAME, INSTANCE, WRITER, WRITES, method_name

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\ncustomers = spark.table('customers')\n"
)
_BLOCKS = (cst.IndentedBlock, cst.SimpleStatementSuite)


# Actions that compute only as many partitions as their few rows need.
_PARTIAL = frozenset(("show", "first", "take", "head", "isEmpty"))


def _limited(node) -> bool:
    """Whether a chain goes through `limit(n)` (`df.limit(10).collect()`)."""
    while isinstance(node, (cst.Call, cst.Attribute)):
        if isinstance(node, cst.Call) and method_name(node) == "limit":
            return True
        node = node.func if isinstance(node, cst.Call) else node.value
    return False


class RepeatedActionWithoutCache(PythonRule):
    """
    ## What it does
    Finds a DataFrame variable whose plan contains a shuffle (a join, an
    aggregation, a `distinct`, a sort, also in the text of `spark.sql(...)`:
    `JOIN`, `GROUP BY`, `ORDER BY`, `DISTINCT`, a window) or a fitted ML model's `transform`
    materialised by two or more actions (`count`, `collect`, `show`,
    `toPandas`, `first`, `take`, a write, also on a DataFrame derived from it,
    such as `df.limit(10).collect()`, and an ML evaluator's
    `evaluator.evaluate(df)`, which runs a job over `df`) with no `cache()` or
    `persist()` in between. A Python UDF's column (`withColumn("answer",
    ask_udf("question"))`) makes a DataFrame expensive too: each action calls
    the UDF on every row again (a model, a web service); on such a frame
    with no shuffle, `show()`, `first()`, `take(n)`, `head()` and
    `limit(n).collect()` are not counted (they compute a partition or so). A frame built on a
    cached one counts only what was added after the cache. A call of a
    function this file defines whose body runs an action on what it is given,
    or on a DataFrame it reads from the caller's scope (a lambda
    `score = lambda m: evaluator.evaluate(predictions)`), is that action. Only the same variable holding the
    same DataFrame is considered (not re-assigned between the two actions),
    and only when the first action runs whenever the second does (not in
    different branches of an `if`).

    ## Why is this bad?
    DataFrames are lazy: each action recomputes the whole plan from the
    sources, joins and shuffles included. Two actions on an expensive
    DataFrame pay for it twice; model predictions evaluated for RMSE and then
    for MAE score every row with the model twice.

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
    triggers = (*ACTIONS, "write", "evaluate")
    doc_setup = 'orders = spark.table("orders")\ncustomers = spark.table("customers")\n'

    invalid = (
        Invalid(_SETUP + "enriched = orders.join(customers, 'customer_id')\nprint(enriched.count())\nenriched.show()\n"),
        Invalid(_SETUP + "totals = orders.groupBy('day').agg(F.sum('amount'))\na = totals.collect()\nb = totals.toPandas()\n"),
        Invalid(_SETUP + "t = orders.distinct()\nt.write.mode('overwrite').parquet('/x')\nprint(t.limit(5).collect())\n"),
        Invalid(_SETUP + "report = spark.sql('SELECT category, sum(price) AS sales FROM sales GROUP BY category')\n"
                "report.show(n=report.count())\nreport.write.mode('overwrite').saveAsTable('reports.sales')\n",
                count=2),
        Invalid(_SETUP + "from pyspark.ml.evaluation import RegressionEvaluator\nfrom pyspark.ml.regression import GBTRegressor\n"
                "train, test = orders.randomSplit([0.8, 0.2])\nmodel = GBTRegressor(labelCol='amount').fit(train)\n"
                "predictions = model.transform(test)\nevaluator = RegressionEvaluator(labelCol='amount')\n"
                "rmse = evaluator.evaluate(predictions, {evaluator.metricName: 'rmse'})\n"
                "mae = evaluator.evaluate(predictions, {evaluator.metricName: 'mae'})\n"),
        Invalid(_SETUP + "from pyspark.sql.functions import udf\n@udf('string')\ndef ask(q):\n    return service.answer(q)\n\n"
                "answered = orders.withColumn('answer', ask('question'))\nprint(answered.count())\n"
                "answered.write.parquet('/answers')\n"),
        Invalid(_SETUP + "def publish(df):\n    df.write.mode('overwrite').saveAsTable('reports.daily')\n\n"
                "daily = orders.groupBy('day').count()\npublish(daily)\nprint(daily.count())\n"),
    )
    valid = (
        Valid(_SETUP + "from pyspark.sql.functions import udf\n@udf('string')\ndef ask(q):\n    return service.answer(q)\n\n"
              "answered = orders.withColumn('answer', ask('question')).cache()\nprint(answered.count())\n"
              "answered.write.parquet('/answers')\n"),
        Valid(_SETUP + "from pyspark.sql.functions import udf\n@udf('string')\ndef ask(q):\n    return service.answer(q)\n\n"
              "answered = orders.withColumn('answer', ask('question'))\nanswered.show()\n"
              "answered.write.parquet('/answers')\n"),
        Valid(_SETUP + "totals = orders.groupBy('day').count().cache()\nlabelled = totals.withColumn('k', totals.day)\n"
              "labelled.count()\nlabelled.show()\n"),
        Valid(_SETUP + "enriched = orders.join(customers, 'customer_id').cache()\nprint(enriched.count())\nenriched.show()\n"),
        Valid(_SETUP + "enriched = orders.join(customers, 'customer_id')\nenriched.persist()\nenriched.count()\nenriched.show()\n"),
        Valid(_SETUP + "print(orders.count())\norders.show()\n"),
        Valid(_SETUP + "recent = spark.sql('SELECT id, amount FROM sales WHERE day = current_date()')\n"
              "print(recent.count())\nrecent.show()\n"),
        Valid(_SETUP + "e = orders.join(customers, 'id')\nif flag:\n    e.show()\nelse:\n    e.count()\n"),
        Valid(_SETUP + "e = orders.join(customers, 'id')\ne.count()\ne = e.filter('x > 1')\ne.count()\n"),
        Valid(_SETUP + "from pyspark.ml.evaluation import RegressionEvaluator\nfrom pyspark.ml.regression import GBTRegressor\n"
              "model = GBTRegressor(labelCol='amount').fit(orders)\npredictions = model.transform(orders).cache()\n"
              "evaluator = RegressionEvaluator(labelCol='amount')\n"
              "rmse = evaluator.evaluate(predictions)\nmae = evaluator.evaluate(predictions, {evaluator.metricName: 'mae'})\n"),
        Valid(_SETUP + "from pyspark.ml.feature import VectorAssembler\n"
              "features = VectorAssembler(inputCols=['a'], outputCol='f').transform(orders)\n"
              "features.count()\nfeatures.show()\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.seen: dict = {}  # id(Value) -> (method, blocks)

    def _blocks(self) -> set:
        return {id(a) for a in self.ctx.ancestors if isinstance(a, _BLOCKS)}

    def leave_Call(self, node: cst.Call) -> None:
        # On leaving: a call's arguments run before it (`df.show(n=df.count())` counts first), as Python does.
        method = method_name(node)
        semantic = self.ctx.semantic
        if method is None:
            pass  # a plain call: a helper of this file, below
        elif method in CACHES:
            receiver = node.func.value
            value = semantic.lookup(receiver.value) if isinstance(receiver, cst.Name) else None
            if value is not None and value.kind == DATAFRAME:
                value.flags = set(value.flags or ()) | {"cached"}
            return
        if method in WRITES and method not in ACTIONS:
            writer = semantic.infer(node.func.value)
            if writer is not None and writer.kind == WRITER:
                self._action(node, node.func.value, f"{method}()")
                return
        elif method == "evaluate":
            computed = self._evaluated(node)
            if computed is not None:
                self._action(node, computed, f"{method}()")
                return
        elif method in ACTIONS and semantic.is_dataframe(node.func.value):
            self._action(node, node.func.value, f"{method}()", method)
            return
        # a helper of this file that runs an action on what it is given, or on a name it reads from here
        for action in callee_actions(self.ctx, node):
            if semantic.is_dataframe(action.target):
                self._action(node, action.target, f"{shown(self.ctx, node.func)}(...)", action.method)

    def _action(self, node: cst.Call, computed, what_ran: str, method: str = "") -> None:
        """Record that `node` computes the DataFrame `computed` (by `what_ran`, the action `method`); report it
        when it computed before."""
        semantic = self.ctx.semantic
        # The action recomputes whatever DataFrame variable its chain starts from.
        receiver = chain_root(computed)
        value = semantic.lookup(receiver.value) if receiver is not None else None
        if value is None or value.kind != DATAFRAME:
            return
        flags = value.flags or ()
        if not ({"shuffle", "model", "udf"} & set(flags)) or "cached" in flags:
            return
        if "shuffle" not in flags and (method in _PARTIAL or _limited(computed)):
            # `show()`, `first()`, `limit(n).collect()` of a plan with no shuffle compute a partition or so: they
            # neither pay for the scoring nor repeat it (with a shuffle, the whole map side runs first)
            return
        blocks = self._blocks()
        first = self.seen.get(id(value))
        if first is None:
            self.seen[id(value)] = (what_ran, blocks, value)
            return
        first_ran, first_blocks, _ = first
        if not first_blocks <= blocks:
            return
        name = receiver.value
        what = ("joins and shuffles included" if "shuffle" in flags else
                "the model's scoring of every row included" if "model" in flags else
                "every row's Python UDF call included")
        self.ctx.report(
            self,
            node,
            f"`{what_ran}` recomputes `{name}` ({what}), which `{first_ran}` already computed above",
            help=f"`cache()` (or `persist()`) `{name}` before its first action, and `unpersist()` it after the last",
            start=node.func.attr if isinstance(node.func, cst.Attribute) else node.func,
        )

    def _evaluated(self, node: cst.Call):
        """The DataFrame an ML evaluator's `evaluate(df)` runs a job over, or None."""
        if not node.args or node.args[0].keyword is not None:
            return None
        value = self.ctx.semantic.infer(node.func.value)
        evaluator = value.detail if value is not None and value.kind == INSTANCE else None
        if not isinstance(evaluator, str) or not evaluator.startswith("pyspark.ml.evaluation."):
            return None
        dataset = node.args[0].value
        return dataset if self.ctx.semantic.is_dataframe(dataset) else None
