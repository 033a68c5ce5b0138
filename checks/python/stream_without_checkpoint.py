import re

import libcst as cst

from checks.python._rerun_safety import stream_write_calls
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_string, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
    "events = spark.readStream.format('kafka').option('subscribe', 'events').load()\n"
)

# Sinks Spark gives a temporary checkpoint of its own, meant for looking at a stream: not reported.
_DEBUG_SINKS = frozenset(("console", "memory", "noop"))
_SESSION_CHECKPOINT = re.compile(r"spark\.sql\.streaming\.checkpointLocation", re.IGNORECASE)
# `spark.readStream....option("checkpointLocation", ...)....load()`: the option inside the reader's own chain
_READER_CHECKPOINT = re.compile(r"readStream\b(?:(?!writeStream|\.load\(|\.table\(|\.start\(|\.toTable\()[\s\S])"
                                r"{0,600}?checkpointLocation", re.IGNORECASE)


class StreamWithoutCheckpoint(PythonRule):
    """
    ## What it does
    Finds a streaming query started (`df.writeStream...start()`,
    `.toTable(...)`) with no `checkpointLocation`: not in an `option`,
    `options(...)` or a keyword of `start`/`toTable`, and no
    `spark.sql.streaming.checkpointLocation` anywhere in the file. The
    console, memory and noop sinks, which are for looking at a stream, are
    not reported; nor a writer whose options come from elsewhere
    (`options(**conf)`, an option named by a variable), nor test modules.
    When the file sets `checkpointLocation` on a `readStream`, the message
    says so: it is a writer's option, and a reader ignores it.

    ## Why is this bad?
    The checkpoint is where a query keeps the offsets it has processed and
    its state. A file, table or Kafka sink refuses to start without one
    (`checkpointLocation must be specified ...`): the job fails on its first
    run. A `foreachBatch` or `foreach` sink starts anyway, on a temporary
    checkpoint Spark deletes when the query stops: every restart begins
    again from `startingOffsets`, so the batches since the last run are
    written twice (`earliest`) or never (`latest`), and stateful aggregations
    start from nothing. Measured on local Spark 4.3: a parquet sink and
    `toTable` fail at `start()`, `foreachBatch` starts.

    ## Example
    ```python
    query = events.writeStream.foreachBatch(upsert).start()
    ```

    ## Use instead
    ```python
    query = (events.writeStream.foreachBatch(upsert)
             .option("checkpointLocation", "s3://lake/_checkpoints/events_upsert")
             .start())
    ```
    One fixed directory per query, kept between runs.

    ## Fix safety
    No fix: where the checkpoint lives is the author's to choose, and it
    must not move once the query has run.

    ## References
    - Structured Streaming programming guide, "Recovering from Failures with
      Checkpointing".
    """

    code = "SPK324"
    name = "stream-without-checkpoint"
    skip_in_tests = True
    summary = "a streaming query started with no `checkpointLocation`: it fails, or restarts from scratch"
    default_reason = ("without a checkpoint a file, table or Kafka sink fails at start, and a foreachBatch "
                      "query restarts from its starting offsets, writing batches twice or skipping them")
    triggers = ("writeStream",)
    doc_setup = ("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
                 "events = spark.readStream.format('kafka').option('subscribe', 'events').load()\n"
                 "def upsert(batch, batch_id):\n    batch.write.mode('append').saveAsTable('lake.events')\n")

    invalid = (
        Invalid(_SETUP + "def upsert(batch, batch_id):\n    batch.write.mode('append').saveAsTable('lake.events')\n\n"
                "query = events.writeStream.foreachBatch(upsert).start()\n"),
        Invalid(_SETUP + "query = (events.selectExpr('CAST(value AS STRING) AS json')\n"
                "         .writeStream.format('parquet').option('path', 's3://lake/raw/events').start())\n"),
        Invalid(_SETUP + "events.writeStream.outputMode('append').toTable('lake.events')\n"),
        Invalid(_SETUP + "def upsert(batch, batch_id):\n    batch.write.mode('append').saveAsTable('lake.events')\n\n"
                "(events.writeStream.format('delta').foreachBatch(upsert).outputMode('update').start())\n"),
        Invalid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
                "raw = (spark.readStream.format('kafka').option('subscribe', 'events')\n"
                "       .option('checkpointLocation', '/chk/events').load())\n"
                "raw.writeStream.foreachBatch(lambda df, i: df.write.mode('append').parquet('/out')).start()\n"),
    )
    valid = (
        Valid(_SETUP + "events.writeStream.format('delta').option('checkpointLocation', 's3://lake/_chk/events')"
              ".toTable('lake.events')\n"),
        Valid(_SETUP + "events.writeStream.format('parquet').start('s3://lake/raw', checkpointLocation='s3://lake/_chk')\n"),
        Valid(_SETUP + "events.writeStream.options(checkpointLocation='/chk/e', path='/out').format('json').start()\n"),
        Valid(_SETUP + "events.writeStream.format('console').outputMode('append').start()\n"),
        Valid(_SETUP + "SINK = 'console'\nevents.writeStream.format(SINK).start()\n"),
        Valid(_SETUP + "spark.conf.set('spark.sql.streaming.checkpointLocation', 's3://lake/_chk')\n"
              "events.writeStream.queryName('events').toTable('lake.events')\n"),
        Valid(_SETUP + "def start(conf):\n    return events.writeStream.options(**conf).toTable('lake.events')\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in ("start", "toTable"):
            return
        chain = stream_write_calls(node)
        if chain is None:
            return
        keys = _keywords(node)
        if keys is None:
            return
        sink = None
        for call in chain:  # from the last call to the first: the last `format` or `foreachBatch` is the sink
            name = method_name(call)
            if name == "option":
                args = positional_args(call)
                key = literal_string(args[0]) if args else None
                if key is None:
                    return  # an option named by a variable: it may be the checkpoint
                keys.add(key.lower())
            elif name == "options":
                more = _keywords(call)
                if more is None:
                    return
                keys |= more
            elif name == "format" and sink is None:
                args = positional_args(call)
                sink = (self.ctx.semantic.text_of(args[0]) or "?").lower() if args else "?"  # `FORMAT = "console"`
            elif name in ("foreachBatch", "foreach") and sink is None:
                sink = name
        if method == "start" and positional_args(node) and sink is None:
            sink = "parquet"  # `start(path)`: spark.sql.sources.default, a file sink
        text = self.ctx.unit.text or ""
        if "checkpointlocation" in keys or sink in _DEBUG_SINKS or _SESSION_CHECKPOINT.search(text):
            return
        reader = (" (the `checkpointLocation` this file sets on a `readStream` is ignored there: it is a writer's "
                  "option)" if _READER_CHECKPOINT.search(text) else "")
        if sink in ("foreachBatch", "foreach"):
            message = (f"streaming query with `{sink}` and no `checkpointLocation`: it runs on a temporary checkpoint "
                       "deleted when it stops, so each restart begins again from its starting offsets, writing "
                       f"batches twice or skipping them{reader}")
        else:
            message = (f"streaming query `{method}()` with no `checkpointLocation` in the file: unless the cluster "
                       "sets `spark.sql.streaming.checkpointLocation`, a file, table or Kafka sink refuses to start "
                       f"(`checkpointLocation must be specified`){reader}")
        self.ctx.report(self, node, message, start=node.func.attr,
                        help="set one fixed directory per query: `.option(\"checkpointLocation\", "
                             "\"s3://.../_checkpoints/<query>\")`, kept between runs")


def _keywords(call: cst.Call):
    """The lower-cased keyword names of a call (`options(checkpointLocation=...)`), None with `**kwargs`."""
    keys = set()
    for arg in call.args:
        if arg.star == "**":
            return None
        if arg.keyword is not None:
            keys.add(arg.keyword.value.lower())
    return keys
