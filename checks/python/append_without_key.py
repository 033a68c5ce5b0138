import re

import libcst as cst

from checks.python._driver import shown
from checks.python._rerun_safety import (
    _MODELESS_FORMATS,
    derivation,
    fresh_each_run,
    record_assignment,
    target_key,
    write_info,
)
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import keyword_arg, literal_string, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\n"
    "orders = spark.read.parquet('s3://landing/orders/').withColumn('ingested_at', F.current_timestamp())\n"
)
_ANTI = frozenset({"left_anti", "leftanti", "anti"})
# Delta's idempotent writes: a (txnAppId, txnVersion) pair already committed is skipped.
_KEYED_OPTIONS = ("txnVersion", "txnAppId", "replaceWhere")


class AppendWithoutKey(PythonRule):
    """
    ## What it does
    Finds appends: `mode("append")` (or `mode="append"`), `insertInto(t)`
    without `overwrite=True`, and `df.writeTo(t).append()`, into a table or
    path that nothing in the file keys. Preview rule (`--preview`).

    Not reported: Delta idempotent writes (`txnAppId` / `txnVersion` options)
    and `replaceWhere`; a DataFrame that an anti-join, `subtract` or
    `exceptAll` has already stripped of the rows the target holds; a target
    the file also deletes from, merges into or truncates (`DELETE FROM t`,
    `MERGE INTO t`, `TRUNCATE TABLE t`, `DeltaTable.forName(spark, t)`),
    unless only after the append in the same block (a rerun appends again
    before that delete runs); Kafka and console sinks; a
    path made new for each run (from `uuid4()`, `now()`, `tempfile.mkdtemp()` ...);
    test modules.

    Preview: many appends are correct by design (each run reads only new
    input, an audit log wants every attempt), which the file cannot show.

    ## Why is this bad?
    Pipelines are rerun: a scheduler retries a failed task, an engineer
    reruns yesterday's job after a fix. An append has no key, so the rows of
    the earlier attempt (or of the part that had committed before the
    failure) are written a second time, and every count and sum downstream
    is silently doubled.

    ## Example
    ```python
    orders.write.mode("append").partitionBy("order_date").saveAsTable("sales.orders")
    ```

    ## Use instead
    ```python
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    orders.write.mode("overwrite").insertInto("sales.orders")
    ```
    or a `MERGE INTO` on the business key (Delta's `DeltaTable.merge`), or,
    for a streaming `foreachBatch`, Delta's `txnAppId` / `txnVersion` options.

    ## Fix safety
    No fix: the key and the replacement strategy are the author's choice.

    ## References
    - Delta Lake documentation, "Idempotent table writes in foreachBatch" and "Upsert into a table using merge".
    - Spark SQL configuration: `spark.sql.sources.partitionOverwriteMode`.
    """

    code = "SPK320"
    skip_in_tests = True
    name = "append-without-key"
    summary = "an append with no key writes the rows again when the job is rerun"
    preview = True
    triggers = ("append", "APPEND", "Append", "insertInto")
    doc_setup = _SETUP.split("\n", 3)[3]

    invalid = (
        Invalid(_SETUP + "orders.write.mode('append').partitionBy('order_date').saveAsTable('sales.orders')\n"),
        Invalid(_SETUP + "orders.write.insertInto('sales.orders')\n"),
        Invalid(_SETUP + "orders.write.parquet('s3://curated/orders/', mode='append')\n"),
        Invalid(_SETUP + "orders.write.mode(saveMode='APPEND').parquet('s3://curated/orders/')\n"),
        Invalid(_SETUP + "orders.writeTo('sales.orders').append()\n"),
        Invalid(_SETUP + "orders.write.mode('append').saveAsTable('sales.orders')\n"
                "spark.sql(\"DELETE FROM sales.orders WHERE status = 'void'\")\n"),
        Invalid("from pyspark.sql import DataFrame\n\ndef save_batch(batch_df, batch_id):\n"
                "    batch_df.write.format('delta').mode('append').save('/mnt/lake/orders')\n"),
    )
    valid = (
        Valid(_SETUP + "orders.write.mode('overwrite').insertInto('sales.orders')\n"),
        Valid(_SETUP + "orders.write.insertInto('sales.orders', overwrite=True)\n"),
        Valid(_SETUP + "def save_batch(batch_df, batch_id):\n"
              "    (batch_df.write.format('delta').option('txnAppId', 'orders').option('txnVersion', batch_id)\n"
              "        .mode('append').save('/mnt/lake/orders'))\n"),
        Valid(_SETUP + "known = spark.table('sales.orders')\n"
              "new = orders.join(known, 'order_id', 'left_anti')\n"
              "new.write.mode('append').saveAsTable('sales.orders')\n"),
        Valid(_SETUP + "spark.sql(f\"DELETE FROM sales.orders WHERE order_date = '{run_date}'\")\n"
              "orders.write.mode('append').saveAsTable('sales.orders')\n"),
        Valid(_SETUP + "def load():\n    orders.write.mode('append').saveAsTable('sales.orders')\n\n"
              "def clear(run_date):\n    spark.sql(f\"DELETE FROM sales.orders WHERE order_date = '{run_date}'\")\n"),
        Valid(_SETUP + "import uuid\norders.write.mode('append').parquet(f's3://scratch/{uuid.uuid4()}')\n"),
        Valid(_SETUP + "orders.write.mode(write_mode).saveAsTable('sales.orders')\n"),
        Valid(_SETUP + "orders.write.mode('append').saveAsTable('sales.orders')\n", path="tests/test_load.py"),
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        record_assignment(self.ctx, node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        record_assignment(self.ctx, node)

    def visit_Call(self, node: cst.Call) -> None:
        info = write_info(self.ctx, node)
        if info is None:
            return
        mode = info.mode()
        if info.v2:
            if info.method != "append":
                return
            how = "`writeTo(...).append()`"
        elif info.method == "insertInto":
            overwrite = keyword_arg(node, "overwrite")
            args = positional_args(node)
            if overwrite is None and len(args) > 1:
                overwrite = args[1]
            if overwrite is not None and not (isinstance(overwrite, cst.Name) and overwrite.value == "False"):
                return
            if mode not in (None, "append"):
                return
            how = "`insertInto` (it appends)" if mode is None else "`mode(\"append\")`"
        elif mode == "append":
            how = "`mode(\"append\")`"
        else:
            return
        if any(info.option(key) is not None for key in _KEYED_OPTIONS) or info.format() in _MODELESS_FORMATS:
            return  # Kafka and the like are append-only by nature: consumers dedupe
        target = info.target()
        if fresh_each_run(self.ctx, target):
            return  # a new place each run
        if self._keyed_elsewhere(target) or self._deduplicated(info.dataframe):
            return
        where = f"`{shown(self.ctx, target)}`" if target is not None else "the output"
        self.ctx.report(
            self,
            node,
            f"{how} into {where} with no key: a rerun of the job (or a retried task) writes the same rows again",
            help="make the write idempotent: overwrite the partitions it produces (`partitionOverwriteMode=dynamic`), "
            "`MERGE` on a key, or Delta's `txnAppId`/`txnVersion` in `foreachBatch`",
            start=node.func.attr if info.config("mode") is None else info.config("mode").func.attr,
        )

    def _keyed_elsewhere(self, target) -> bool:
        """Whether the file deletes from, merges into or truncates the target too, other than after the write in
        the same block (`append` then `DELETE FROM t`: the rerun's append comes before its delete, the rows stay
        twice)."""
        key = target_key(self.ctx, target)
        if key is None:
            return False
        name = key if not key.startswith("{") else None
        variable = key[1:-1] if key.startswith("{") and key.endswith("}") else None
        spelled = re.escape(name) if name else r"\{\s*" + re.escape(variable) + r"\s*\}"
        handle = re.escape(variable) if variable else r"['\"]" + re.escape(name) + r"['\"]"
        keyed = re.compile(rf"(?:DELETE\s+FROM|MERGE\s+INTO|TRUNCATE\s+TABLE|REPLACE\s+WHERE)\s+`?{spelled}"
                           rf"|DeltaTable\.for(?:Name|Path)\(\s*\w+\s*,\s*{handle}", re.IGNORECASE)
        found = len(keyed.findall(self.ctx.unit.document.text))
        if not found:
            return False
        after = sum(len(keyed.findall(self.ctx.code_for(s))) for s in self._later_statements())
        return found > after

    def _later_statements(self) -> list:
        """The statements after the one being visited, in the block (or module) that holds it."""
        a = self.ctx.ancestors
        for i in range(len(a) - 2, -1, -1):
            owner = a[i]
            if owner.__class__ is cst.Module or owner.__class__ is cst.IndentedBlock:
                body = list(owner.body)
                for j, statement in enumerate(body):
                    if statement is a[i + 1]:
                        return body[j + 1:]
                return []
        return []

    def _deduplicated(self, dataframe) -> bool:
        """Whether the rows already written were taken out: an anti-join, `subtract`, `exceptAll`."""
        if dataframe is None:
            return False
        for call in derivation(self.ctx, dataframe):
            method = method_name(call)
            if method in ("subtract", "exceptAll"):
                return True
            if method == "join":
                how = keyword_arg(call, "how")
                args = positional_args(call)
                if how is None and len(args) > 2:
                    how = args[2]
                if (literal_string(how) or "").lower() in _ANTI:
                    return True
        return False
