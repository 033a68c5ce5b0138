import libcst as cst

from checks.python._callees import (
    ACTIONS,
    assigned_self_attributes,
    callee_actions,
    callee_definition,
)
from checks.python._driver import shown
from checks.python._literals_and_reads import reader_chain, reader_options
from checks.python._udf import walk_expression
from checks.python._loops import chain_root
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import (
    CACHES,
    DATAFRAME,
    FUNCTION,
    INSTANCE,
    UDF,
    WRITER,
    WRITES,
    Value,
    method_name,
)
from linter.semantic.bounds import UNBOUNDED
from linter.semantic.evidence import callback_params
from linter.semantic.values import MODEL

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\ncustomers = spark.table('customers')\n"
)
_BLOCKS = (cst.IndentedBlock, cst.SimpleStatementSuite)


# Actions that compute only as many partitions as their few rows need.
_PARTIAL = frozenset(("show", "first", "take", "head", "isEmpty"))


# Steps whose output rows depend on column values: a Python UDF's column read there is computed even by a
# `count()`. Elsewhere Spark prunes the UDF's column from a plan that only counts rows (measured on local Spark:
# `df.withColumn("a", udf(...)).count()` calls the UDF 0 times).
_ROW_DECIDING = frozenset(("filter", "where", "dropna", "explode", "explode_outer", "posexplode",
                           "posexplode_outer", "inline", "inline_outer"))


def _row_deciding_name(node) -> bool:
    """``explode`` / ``F.explode`` and the like inside an argument (a generator changes the rows)."""
    if isinstance(node, cst.Attribute):
        node = node.attr
    return isinstance(node, cst.Name) and node.value in _ROW_DECIDING


def _counts_only_rows(expressions: list, node, depth: int = 0) -> bool:
    """Whether a chain (and what the names it starts from were assigned, a few deep) has no step whose rows
    depend on a column. ``expressions``: per function being walked, name -> the expression last assigned it."""
    for _ in range(40):
        if isinstance(node, cst.Call):
            if method_name(node) in _ROW_DECIDING or any(_row_deciding_name(n) for a in node.args
                                                          for n in walk_expression(a.value)):
                return False
            node = node.func
        elif isinstance(node, cst.Attribute):
            node = node.value
        elif isinstance(node, cst.Name):
            made = next((scope[node.value] for scope in reversed(expressions) if node.value in scope), None)
            if made is None or depth >= 5:
                return True
            return _counts_only_rows(expressions, made, depth + 1)
        else:
            return True
    return False


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
    `evaluator.evaluate(df)`, which runs a job over `df`; the frame an evaluator
    scores holds a model's predictions even when the model is a parameter,
    `model.transform(data)`, since only a fitted model makes the prediction
    column it reads) with no `cache()` or
    `persist()` in between. A Python UDF's column (`withColumn("answer",
    ask_udf("question"))`) makes a DataFrame expensive too: each action calls
    the UDF on every row again (a model, a web service); on such a frame
    with no shuffle, `show()`, `first()`, `take(n)`, `head()` and
    `limit(n).collect()` are not counted (they compute a partition or so),
    nor is a `count()` that no `filter`/`where`/`dropna` or `explode` ties
    to a column: Spark prunes the UDF's column from a plan that only counts
    rows, so the UDF is not called (measured on local Spark). A frame built on a
    cached one counts only what was added after the cache; a sort that a
    `limit` follows (`orderBy(...).limit(n)`) is a top-k, which Spark runs
    without the sort's shuffle (each task keeps its first n rows), and adds
    no cost by itself. A call of a
    function this file defines whose body runs an action on what it is given,
    or on a DataFrame it reads from the caller's scope (a lambda
    `score = lambda m: evaluator.evaluate(predictions)`), is that action; so
    is an action in that body on a frame it makes from its parameter
    (`exploded = df.select(F.explode(...))`, then a `collect()` of its
    grouping; `df = df.withColumn(...)`; a writer kept in a variable, `w =
    df.write.mode("append")`, then `w.saveAsTable(...)`). A grouping's
    `count()` there is a transformation, not an action. An instance's frame
    counts as a variable does: `self.enriched`, assigned an expensive frame
    in a method and computed twice there, also through a method it calls
    (`self.publish()` counting `self.enriched`), unless a method called in
    between assigns it anew. Actions in methods no one method calls in order
    are not compared: which runs first is not in the file. Only the same variable holding the
    same DataFrame is considered (not re-assigned between the two actions),
    and only when the first action runs whenever the second does (not in
    different branches of an `if`). A frame is reported once, at its
    second action: a third or fourth (RMSE, then MAE, then R2 of the same
    predictions) is mended by the same `cache()`, and one finding per
    frame says so without repeating itself.

    The micro-batch a `foreachBatch` callback of this file is given (the
    function named there, the one a lambda or `functools.partial` hands the
    batch to, the inner function a factory called there returns, or, in a
    file that picks its callback at run time, a function with the callback's
    signature, `(batch_df, batch_id)`) counts as expensive too: each action on it reads the batch from the stream's
    source again (Kafka, files), so writing it to two places without
    `persist()` reads it twice, as Databricks' guide on `foreachBatch`
    warns.

    With `--preview`, a plain read of a row format made in this file (CSV,
    JSON, text, XML or Avro files, a JDBC query; with only filters and
    column changes after it) materialised by two full actions (`count`,
    `collect`, `toPandas`, a write; not `show()`, `first()` or a `limit`) is
    reported too: each action reads and parses the whole source again. A
    table or Parquet, ORC, Delta or Iceberg files are not: each action reads
    only the columns it uses (a count only file metadata), where a cache
    would read them all. Whether a cache pays for that is a
    judgement the file cannot settle (a JDBC or CSV source: usually; a
    Parquet table read twice: often not, the cache costs executor memory
    and a serialization), so it stays in preview.

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
    default_reason = ("each action recomputes an expensive plan from its sources, paying its joins, shuffles "
                      "or UDF calls again; only two actions that both certainly run on one frame count")
    triggers = (*ACTIONS, "write", "evaluate")
    doc_setup = 'orders = spark.table("orders")\ncustomers = spark.table("customers")\n'

    invalid = (
        Invalid(_SETUP + "enriched = orders.join(customers, 'customer_id')\nprint(enriched.count())\nenriched.show()\n"),
        Invalid(_SETUP + "totals = orders.groupBy('day').agg(F.sum('amount'))\na = totals.collect()\nb = totals.toPandas()\n"),
        Invalid(_SETUP + "enriched = orders.join(customers, 'customer_id')\nenriched.count()\nenriched.show()\n"
                "enriched.write.parquet('/x')\nenriched.toPandas()\n"),
        Invalid(_SETUP + "from pyspark.sql import DataFrame\ndef fan_out(batch_df: DataFrame, batch_id: int) -> None:\n"
                "    batch_df.write.mode('append').saveAsTable('lake.events')\n"
                "    batch_df.filter(\"type = 'error'\").write.mode('append').saveAsTable('lake.errors')\n\n"
                "events = spark.readStream.table('raw.events')\n"
                "events.writeStream.foreachBatch(fan_out).option('checkpointLocation', '/chk').start()\n"),
        Invalid(_SETUP + "t = orders.distinct()\nt.write.mode('overwrite').parquet('/x')\nprint(t.limit(5).collect())\n"),
        Invalid(_SETUP + "def upsert(spark, batch, epoch, table):\n"
                "    batch.write.mode('append').saveAsTable(table)\n"
                "    batch.write.mode('append').saveAsTable(table + '_audit')\n\n"
                "events = spark.readStream.table('raw.events')\n"
                "events.writeStream.foreachBatch(lambda df, i: upsert(spark, df, i, 'lake.events'))"
                ".option('checkpointLocation', '/chk').start()\n"),
        Invalid(_SETUP + "def upsert(micro_df, batch_id):\n"
                "    print(f'batch {batch_id}: {micro_df.count()} rows')\n"
                "    micro_df.write.mode('append').saveAsTable('lake.events')\n\n"
                "events = spark.readStream.table('raw.events')\n"
                "events.writeStream.foreachBatch(CALLBACKS[conf['sink']]).option('checkpointLocation', '/chk')"
                ".start()\n"),
        Invalid(_SETUP + "def make_upsert(table):\n    def upsert(micro, epoch):\n"
                "        micro.write.mode('append').saveAsTable(table)\n"
                "        micro.write.mode('append').saveAsTable(table + '_audit')\n    return upsert\n\n"
                "events = spark.readStream.table('raw.events')\n"
                "events.writeStream.foreachBatch(make_upsert('lake.events')).option('checkpointLocation', '/chk')"
                ".start()\n"),
        Invalid(_SETUP + "joined = orders.join(customers, 'customer_id').cache()\n"
                "daily = joined.groupBy('day').count()\ndaily.collect()\ndaily.toPandas()\n"),
        Invalid(_SETUP + "top = orders.join(customers, 'customer_id').orderBy('amount').limit(10)\n"
                "top.count()\ntop.collect()\n"),
        Invalid(_SETUP + "report = spark.sql('SELECT category, sum(price) AS sales FROM sales GROUP BY category')\n"
                "report.show(n=report.count())\nreport.write.mode('overwrite').saveAsTable('reports.sales')\n"),
        Invalid(_SETUP + "from pyspark.ml.evaluation import RegressionEvaluator\nfrom pyspark.ml.regression import GBTRegressor\n"
                "train, test = orders.randomSplit([0.8, 0.2])\nmodel = GBTRegressor(labelCol='amount').fit(train)\n"
                "predictions = model.transform(test)\nevaluator = RegressionEvaluator(labelCol='amount')\n"
                "rmse = evaluator.evaluate(predictions, {evaluator.metricName: 'rmse'})\n"
                "mae = evaluator.evaluate(predictions, {evaluator.metricName: 'mae'})\n"),
        Invalid(_SETUP + "from pyspark.ml.evaluation import RegressionEvaluator\n"
                "def evaluate(model, data):\n    predictions = model.transform(data)\n"
                "    evaluator = RegressionEvaluator(labelCol='amount')\n"
                "    metric = lambda name: evaluator.setMetricName(name).evaluate(predictions)\n"
                "    return metric('rmse'), metric('mae')\n"),
        Invalid(_SETUP + "orders = spark.read.json('s3://landing/orders/')\nn = orders.count()\nrows = orders.collect()\n"),
        Invalid(_SETUP + "orders = spark.read.jdbc(url, 'orders', properties=props)\nrows = orders.collect()\n"
                "orders.write.saveAsTable('copy')\n"),
        Invalid(_SETUP + "events = spark.read.format('csv').option('header', True).load('s3://in/events/')\n"
                "n = events.select('user_id').distinct().count()\nrows = events.collect()\n"),
        Invalid(_SETUP + "raw = spark.read.option('header', True).csv('s3://in/orders/')\npaid = raw.filter(F.col('paid'))\n"
                "paid.write.parquet('s3://out/paid/')\npaid.write.saveAsTable('sales.paid')\n"),
        Invalid(_SETUP + "from pyspark.sql.functions import udf\n@udf('string')\ndef ask(q):\n    return service.answer(q)\n\n"
                "answered = orders.withColumn('answer', ask('question'))\n"
                "print(answered.filter(F.col('answer') != '').count())\nanswered.write.parquet('/answers')\n"),
        Invalid(_SETUP + "from pyspark.sql.functions import udf\n@udf('string')\ndef ask(q):\n    return service.answer(q)\n\n"
                "answered = orders.withColumn('answer', ask('question')).where('answer is not null')\n"
                "print(answered.count())\nanswered.write.parquet('/answers')\n"),
        Invalid(_SETUP + "def publish(df):\n    df.write.mode('overwrite').saveAsTable('reports.daily')\n\n"
                "daily = orders.groupBy('day').count()\npublish(daily)\nprint(daily.count())\n"),
        Invalid(_SETUP + "class Writer:\n    def save(self, df, table, stats=False):\n        if not stats:\n"
                "            df = df.withColumn('run_id', F.lit(1))\n        writer = df.write.mode('append')\n"
                "        writer.saveAsTable(table)\n\n    def summarise(self, df):\n"
                "        exploded = df.select(F.explode('results').alias('r'))\n"
                "        return exploded.groupBy('r').count().collect()\n\n    def final(self, df):\n"
                "        errors = df.join(customers, 'customer_id').filter('size(results) > 0')\n"
                "        self.save(errors, 'dq.errors')\n        n = errors.count()\n        self.summarise(errors)\n"
                "        return n\n"),
        Invalid(_SETUP + "class Report:\n    def build(self):\n"
                "        self.enriched = orders.join(customers, 'customer_id')\n"
                "        self.enriched.write.mode('overwrite').saveAsTable('reports.enriched')\n"
                "        self.publish()\n        print(self.enriched.count())\n\n"
                "    def publish(self):\n        self.enriched.groupBy('country').count().show()\n"),
    )
    valid = (
        Valid(_SETUP + "from pyspark.sql import DataFrame\ndef fan_out(batch_df: DataFrame, batch_id: int) -> None:\n"
              "    batch_df.persist()\n    batch_df.write.mode('append').saveAsTable('lake.events')\n"
              "    batch_df.filter(\"type = 'error'\").write.mode('append').saveAsTable('lake.errors')\n"
              "    batch_df.unpersist()\n\nevents = spark.readStream.table('raw.events')\n"
              "events.writeStream.foreachBatch(fan_out).option('checkpointLocation', '/chk').start()\n"),
        Valid(_SETUP + "def upsert(micro_df, batch_id):\n"
              "    print(f'batch {batch_id}: {micro_df.count()} rows')\n"
              "    micro_df.write.mode('append').saveAsTable('lake.events')\n"),
        Valid(_SETUP + "def make_saver(table):\n    def save(micro, epoch):\n"
              "        micro.write.mode('append').saveAsTable(table)\n"
              "        micro.write.mode('append').saveAsTable(table + '_audit')\n    return save\n\n"
              "events = spark.readStream.table('raw.events')\n"
              "events.writeStream.foreachBatch(make_upsert('lake.events')).option('checkpointLocation', '/chk')"
              ".start()\n"),
        Valid(_SETUP + "from pyspark.sql import DataFrame\ndef save(df: DataFrame, path: str) -> None:\n"
              "    df.write.mode('append').parquet(path)\n    df.write.mode('append').json(path + '_json')\n"),
        Valid(_SETUP + "joined = orders.join(customers, 'customer_id').cache()\n"
              "top = joined.orderBy(F.desc('amount')).limit(5000)\n"
              "a = top.agg(F.max('amount')).collect()\nb = top.agg(F.min('amount')).collect()\n"),
        Valid(_SETUP + "from pyspark.sql.functions import udf\n@udf('string')\ndef ask(q):\n    return service.answer(q)\n\n"
              "answered = orders.withColumn('answer', ask('question')).cache()\nprint(answered.count())\n"
              "answered.write.parquet('/answers')\n"),
        # a count that no filter ties to the UDF's column: Spark prunes the column, the UDF runs in the write only
        Valid(_SETUP + "from pyspark.sql.functions import udf\n@udf('string')\ndef ask(q):\n    return service.answer(q)\n\n"
              "answered = orders.withColumn('answer', ask('question'))\nprint(answered.count())\n"
              "answered.write.parquet('/answers')\n"),
        Valid(_SETUP + "from pyspark.sql.functions import udf\n@udf('string')\ndef ask(q):\n    return service.answer(q)\n\n"
              "answered = orders.withColumn('answer', ask('question'))\nanswered.show()\n"
              "answered.write.parquet('/answers')\n"),
        Valid(_SETUP + "totals = orders.groupBy('day').count().cache()\nlabelled = totals.withColumn('k', totals.day)\n"
              "labelled.count()\nlabelled.show()\n"),
        Valid(_SETUP + "enriched = orders.join(customers, 'customer_id').cache()\nprint(enriched.count())\nenriched.show()\n"),
        Valid(_SETUP + "enriched = orders.join(customers, 'customer_id')\nenriched.persist()\nenriched.count()\nenriched.show()\n"),
        Valid(_SETUP + "print(orders.count())\norders.show()\n"),
        Valid(_SETUP + "orders = spark.table('orders')\nn = orders.count()\nrows = orders.collect()\n", preview=False),
        Valid(_SETUP + "orders = spark.table('orders')\nn = orders.count()\nrows = orders.collect()\n"),
        Valid(_SETUP + "orders = spark.read.parquet('s3://lake/orders/')\nrows = orders.collect()\n"
              "orders.write.saveAsTable('copy')\n"),
        Valid(_SETUP + "events = spark.read.format('delta').load('/lake/events')\nprint(events.count())\n"
              "events.write.parquet('/out/events')\n"),
        Valid(_SETUP + "def publish(df):\n    n = df.count()\n    df.write.saveAsTable('out')\n"),
        Valid(_SETUP + "small = spark.createDataFrame([(1, 'a')], ['id', 'v'])\nsmall.count()\nsmall.collect()\n"),
        Valid(_SETUP + "class Report:\n    def build(self):\n"
              "        self.enriched = orders.join(customers, 'customer_id')\n        self.enriched.cache()\n"
              "        self.enriched.write.saveAsTable('reports.enriched')\n        print(self.enriched.count())\n"),
        Valid(_SETUP + "class Report:\n    def build(self):\n"
              "        self.enriched = orders.join(customers, 'customer_id')\n"
              "        self.enriched.write.saveAsTable('reports.enriched')\n        self.reload()\n"
              "        print(self.enriched.count())\n\n    def reload(self):\n"
              "        self.enriched = spark.table('reports.enriched')\n"),
        Valid(_SETUP + "class Report:\n    def build(self):\n"
              "        self.enriched = orders.join(customers, 'customer_id')\n"
              "        self.enriched.write.saveAsTable('reports.enriched')\n"
              "        self.enriched = spark.table('reports.enriched')\n        print(self.enriched.count())\n"),
        Valid(_SETUP + "class Report:\n    def build(self):\n"
              "        self.enriched = orders.join(customers, 'customer_id')\n"
              "        self.enriched.write.saveAsTable('reports.enriched')\n\n    def size(self):\n"
              "        return self.enriched.count()\n"),
        Valid(_SETUP + "class Report:\n    def build(self, full):\n        self.enriched = orders\n"
              "        if full:\n            self.enriched = orders.join(customers, 'customer_id')\n"
              "        self.enriched.write.saveAsTable('reports.enriched')\n        print(self.enriched.count())\n"),
        Valid(_SETUP + "def by_day(df):\n    return df.groupBy('day').count()\n\n"
              "enriched = orders.join(customers, 'customer_id')\ndaily = by_day(enriched)\nprint(enriched.count())\n"),
        Valid(_SETUP + "def save(df, table, name=None):\n    if name:\n        df = spark.table(name)\n"
              "    df.write.saveAsTable(table)\n\nenriched = orders.join(customers, 'customer_id')\n"
              "save(enriched, 'out', 'other')\nprint(enriched.count())\n"),
        Valid(_SETUP + "recent = spark.sql('SELECT id, amount FROM sales WHERE day = current_date()')\n"
              "print(recent.count())\nrecent.show()\n"),
        Valid(_SETUP + "e = orders.join(customers, 'id')\nif flag:\n    e.show()\nelse:\n    e.count()\n"),
        Valid(_SETUP + "e = orders.join(customers, 'id')\ne.count()\ne = e.filter('x > 1')\ne.count()\n"),
        Valid(_SETUP + "from pyspark.ml.evaluation import RegressionEvaluator\nfrom pyspark.ml.regression import GBTRegressor\n"
              "model = GBTRegressor(labelCol='amount').fit(orders)\npredictions = model.transform(orders).cache()\n"
              "evaluator = RegressionEvaluator(labelCol='amount')\n"
              "rmse = evaluator.evaluate(predictions)\nmae = evaluator.evaluate(predictions, {evaluator.metricName: 'mae'})\n"),
        # a DataFrame's own transform(func) is no model's scoring; a lambda's body runs only when it is called
        Valid(_SETUP + "from pyspark.ml.evaluation import RegressionEvaluator\n"
              "def add_flag(df):\n    return df.withColumn('f', F.lit(1))\n\n"
              "def evaluate(data):\n    flagged = data.transform(add_flag)\n"
              "    evaluator = RegressionEvaluator(labelCol='amount')\n"
              "    return evaluator.evaluate(flagged), evaluator.setMetricName('mae').evaluate(flagged)\n"),
        Valid(_SETUP + "from pyspark.ml.evaluation import RegressionEvaluator\n"
              "def evaluate(model, data):\n    predictions = model.transform(data)\n"
              "    evaluator = RegressionEvaluator(labelCol='amount')\n"
              "    metric = lambda name: evaluator.setMetricName(name).evaluate(predictions)\n"
              "    return metric('rmse')\n"),
        Valid(_SETUP + "from pyspark.ml.feature import VectorAssembler\n"
              "features = VectorAssembler(inputCols=['a'], outputCol='f').transform(orders)\n"
              "features.count()\nfeatures.show()\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.seen: dict = {}  # id(Value) -> (method, blocks)
        self.reported: set = set()  # id(Value) of the frames reported: each once, at its first repeated action
        # per function being walked: `self.x` -> the DataFrame the function assigned it (a copy of its Value: a new
        # one per assignment, so a reassignment starts over), or None once it holds something else
        self.attributes: list[dict] = [{}]
        self.expressions: list[dict] = [{}]  # per function being walked: name -> the expression last assigned it

    def visit_FunctionDef(self, node) -> None:
        self.attributes.append({})
        self.expressions.append({})

    def leave_FunctionDef(self, node) -> None:
        self.attributes.pop()
        self.expressions.pop()

    def leave_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Name):
                self.expressions[-1][t.target.value] = node.value
        targets = [t.target for t in node.targets if _self_attribute(t.target)]
        if targets:
            value = self.ctx.semantic.infer(node.value)
            for target in targets:
                self._assigned(target.attr.value, value)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if _self_attribute(node.target):
            self._assigned(node.target.attr.value, self.ctx.semantic.infer(node.value) if node.value else None)

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        if _self_attribute(node.target):
            self._assigned(node.target.attr.value, None)

    def _assigned(self, attr: str, value) -> None:
        if value is None or value.kind != DATAFRAME or self._conditional():
            # something else, or a frame on some paths only (`if full: self.x = a.join(b)`): not followed
            self.attributes[-1][attr] = None
            return
        self.attributes[-1][attr] = Value(value.kind, value.bound, value.detail, value.node, set(value.flags or ()),
                                          value.why)

    def _conditional(self) -> bool:
        """Whether the statement being left runs on some paths of its function only (in an `if`, loop or `try`)."""
        for ancestor in reversed(self.ctx.ancestors):
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
                return False
            if isinstance(ancestor, (cst.If, cst.For, cst.While, cst.Try, cst.Match)):
                return True
        return True  # at module level: `self` is nobody's instance here

    def _attribute_value(self, computed):
        """`(name, Value)` when the chain `computed` starts from `self.x` that this function assigned a DataFrame."""
        node = computed
        while isinstance(node, (cst.Call, cst.Attribute, cst.Subscript)):
            if _self_attribute(node):
                value = self.attributes[-1].get(node.attr.value)
                return ("self." + node.attr.value, value) if value is not None else None
            node = node.func if isinstance(node, cst.Call) else node.value
        return None

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
            if _self_attribute(receiver):
                value = self.attributes[-1].get(receiver.attr.value)
            if value is not None and value.kind == DATAFRAME:
                value.flags = set(value.flags or ()) | {"cached"}
            return
        if method is not None and isinstance(node.func.value, cst.Name) and node.func.value.value == "self":
            # `self.refresh()` may assign the instance's frames anew: those it assigns are no longer known here
            definition, _ = callee_definition(self.ctx, node)
            if definition is not None:
                for attr in assigned_self_attributes(self.ctx, definition):
                    if attr in self.attributes[-1]:
                        self.attributes[-1][attr] = None
        if method in WRITES and method not in ACTIONS:
            writer = semantic.infer(node.func.value)
            if writer is not None and writer.kind == WRITER:
                self._action(node, node.func.value, f"{method}()")
                return
        elif method == "evaluate":
            computed = self._evaluated(node)
            if computed is not None:
                self._action(node, computed, f"{method}()", method)
                return
        elif method in ACTIONS and (semantic.is_dataframe(node.func.value) or self._attribute_value(node.func.value)):
            self._action(node, node.func.value, f"{method}()", method)
            return
        # a helper of this file that runs an action on what it is given, or on a name it reads from here
        for action in callee_actions(self.ctx, node):
            if semantic.is_dataframe(action.target) or self._attribute_value(action.target):
                self._action(node, action.target, f"{shown(self.ctx, node.func)}(...)", action.method)

    def _action(self, node: cst.Call, computed, what_ran: str, method: str = "") -> None:
        """Record that `node` computes the DataFrame `computed` (by `what_ran`, the action `method`); report it
        when it computed before."""
        semantic = self.ctx.semantic
        if any(isinstance(a, cst.Lambda) for a in self.ctx.ancestors):
            return  # a lambda's body runs when it is called, where its call is the action (`score("mae")`)
        # The action recomputes whatever DataFrame variable its chain starts from.
        receiver = chain_root(computed)
        value = semantic.lookup(receiver.value) if receiver is not None else None
        if value is None and method == "evaluate" and receiver is not None:
            value = semantic.infer(receiver)  # known from its use only: an evaluator's input is a DataFrame
        name = receiver.value if receiver is not None else None
        if receiver is not None and receiver.value == "self":
            found = self._attribute_value(computed)  # `self.errors`, as this method assigned it
            name, value = found if found is not None else (None, None)
        if value is None or value.kind != DATAFRAME:
            return
        flags = set(value.flags or ())
        if method == "evaluate" and not flags & {"shuffle", "model", "udf"} and \
                _scored(semantic, value.node or (semantic.assigned_expression(name) if name else None)):
            flags.add("model")
        plain = not ({"shuffle", "model", "udf"} & flags)
        if plain and "cached" not in flags and name is not None and self._batch_parameter(name):
            flags.add("batch")  # a foreachBatch callback's micro-batch: each action reads it from the source again
            plain = False
        if "cached" in flags or (plain and not (self.ctx.settings.preview and _read_here(value)
                                                and _row_format_source(self.ctx.semantic, value))):
            return
        if "shuffle" not in flags and (method in _PARTIAL or _limited(computed)):
            # `show()`, `first()`, `limit(n).collect()` of a plan with no shuffle compute a partition or so: they
            # neither pay for the scoring nor repeat it (with a shuffle, the whole map side runs first)
            return
        if method == "count" and "udf" in flags and not ({"shuffle", "model"} & set(flags)) and \
                _counts_only_rows(self.expressions, computed):
            return  # a count of a UDF-scored frame that no filter reads: Spark prunes the UDF's column
        blocks = self._blocks()
        first = self.seen.get(id(value))
        if first is None:
            self.seen[id(value)] = (what_ran, blocks, value)
            return
        first_ran, first_blocks, _ = first
        if not first_blocks <= blocks or id(value) in self.reported:
            return  # a third action of a reported frame: the one `cache()` the finding asks for mends it too
        self.reported.add(id(value))
        what = ("the shuffles after its `cache()` included" if "shuffle" in flags and "on-cache" in flags else
                "joins and shuffles included" if "shuffle" in flags else
                "the model's scoring of every row included" if "model" in flags else
                "every row's Python UDF call included" if "udf" in flags else
                "the micro-batch, read from the stream's source again" if "batch" in flags else
                "a plain read: its source is scanned again")
        self.ctx.report(
            self,
            node,
            f"`{what_ran}` recomputes `{name}` ({what}), which `{first_ran}` already computed above",
            help=f"`cache()` (or `persist()`) `{name}` before its first action, and `unpersist()` it after the last",
            start=node.func.attr if isinstance(node.func, cst.Attribute) else node.func,
        )

    def _batch_parameter(self, name: str) -> bool:
        """Whether ``name`` is the micro-batch parameter of the function being walked, a `foreachBatch` callback of
        this file (`def fan_out(batch_df, batch_id)` and `.foreachBatch(fan_out)`, a method and
        `.foreachBatch(self.fan_out)`, a function a lambda or `functools.partial` hands the batch to, or the inner
        function a factory returns)."""
        function = self.ctx.function
        if function is None:
            return False
        enclosing = next((a for a in reversed(self.ctx.ancestors) if isinstance(a, cst.FunctionDef)
                          and a is not function), None)
        place = self.ctx.semantic.batch_parameter(function, enclosing)
        params = callback_params(function)
        return place is not None and place < len(params) and params[place] == name

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


def _scored(semantic, node) -> bool:
    """Whether an ML evaluator's input was made by `transformer.transform(dataset)` of a transformer the file does
    not know (a parameter, `model` of `for model in cv_model.subModels`). An evaluator reads a prediction column,
    which only a fitted model's scoring makes, so each evaluation scores every row with that model again. Not
    `df.transform(func)`, a DataFrame's own method, which takes a function."""
    for _ in range(40):
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            return False
        if node.func.attr.value == "transform":
            args = node.args
            if len(args) != 1 or args[0].keyword is not None or not isinstance(args[0].value, (cst.Name, cst.Attribute)):
                return False
            dataset = semantic.infer(args[0].value)
            if dataset is not None and dataset.kind in (FUNCTION, UDF) or semantic.is_dataframe(node.func.value):
                return False
            transformer = semantic.infer(node.func.value)
            return transformer is None or transformer.kind == MODEL
        node = node.func.value
    return False


def _read_here(value) -> bool:
    """A DataFrame this file reads from a source itself (not a parameter, not known only from its use, not
    built on a cache, not a handful of rows)."""
    flags = value.flags or ()
    return isinstance(value.node, cst.Call) and not ({"inferred", "on-cache"} & set(flags)) and \
        value.bound == UNBOUNDED


_ROW_READS = frozenset({"csv", "json", "text", "textFile", "jdbc", "xml", "avro"})
_COLUMNAR_READS = frozenset({"parquet", "orc", "table", "sql", "delta"})
_ROW_FORMATS = frozenset({"csv", "json", "text", "jdbc", "xml", "avro", "com.databricks.spark.csv"})


def _row_format_source(semantic, value) -> bool:
    """Whether a plain frame is read from a row format (CSV, JSON, text, XML, Avro files, a JDBC query), which
    every action reads and parses whole again; False for tables and columnar files (Parquet, ORC, Delta,
    Iceberg: an action reads only the columns it uses, a count only file metadata) and when unknown (`load()`
    with no format reads the session's default, Parquet or Delta)."""
    node = value.node
    for _ in range(8):
        chain = reader_chain(node)
        for i, call in enumerate(chain):
            method = method_name(call)
            if method in _ROW_READS:
                return True
            if method in _COLUMNAR_READS:
                return False
            if method == "load":
                fmt = reader_options(chain[i:], semantic.text_of)[1]
                return (fmt or "").lower() in _ROW_FORMATS
        base = chain[-1].func.value if chain else node
        found = semantic.lookup(base.value) if isinstance(base, cst.Name) else None
        if found is None or found is value or found.node is None:
            return False
        value, node = found, found.node
    return False


def _self_attribute(node) -> bool:
    """`self.x`."""
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"
