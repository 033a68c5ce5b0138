import libcst as cst

from checks.python._literals_and_reads import reader_chain, reader_options, truthy
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import READER, keyword_arg, literal_string, method_name, positional_args

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
_LOADS = ("load", "parquet", "orc")


class MergeSchemaOnRead(PythonRule):
    """
    ## What it does
    Finds Parquet and ORC reads with `mergeSchema` switched on:
    `option("mergeSchema", "true")`, `options(mergeSchema=True)`,
    `parquet(path, mergeSchema=True)`, on `spark.read` or `readStream`,
    including `load()` with no format (Parquet by default). On a Delta read
    the option does nothing (the table's log holds its schema) and is
    reported as such. A read that declares its schema (`.schema(...)`) is not
    reported, nor is `mergeSchema` on a write (Delta's schema evolution).

    ## Why is this bad?
    Schema merging makes every read open the footer of every file under the
    path and reconcile them before the query starts: a Spark job of its own,
    whose cost grows with the number of files, not with the data the query
    needs. Spark turned it off by default in 1.5 because it "is a relatively
    expensive operation, and is not a necessity in most cases". Where the
    files really differ (columns added over time), declaring the final schema
    reads them all the same way, without the merge.

    ## Example
    ```python
    events = spark.read.option("mergeSchema", "true").parquet("s3://lake/events/")
    ```

    ## Use instead
    ```python
    events = spark.read.schema("id BIGINT, ts TIMESTAMP, country STRING").parquet("s3://lake/events/")
    ```

    ## Fix safety
    No fix: without the option, columns that only newer files have would
    be missing unless a schema is declared.

    ## References
    - Spark SQL guide, "Parquet Files", "Schema Merging"
      (`spark.sql.parquet.mergeSchema`); "ORC Files" (`mergeSchema`).
    """

    code = "SPK413"
    name = "merge-schema-on-read"
    summary = "`mergeSchema` on a read reconciles every file's footer before each query"
    default_reason = ("schema merging opens every file's footer before each query, a cost growing with the "
                      "file count that Spark turned off by default in 1.5; a declared schema is not reported")
    skip_in_tests = True
    triggers = ("mergeSchema", "mergeschema", "MERGESCHEMA")

    invalid = (
        Invalid(_SETUP + "events = spark.read.option('mergeSchema', 'true').parquet('s3://lake/events/')\n"),
        Invalid(_SETUP + "events = spark.read.parquet('s3://lake/events/', mergeSchema=True)\n"),
        Invalid(_SETUP + "events = spark.read.format('orc').options(mergeSchema='true').load('/lake/events')\n"),
        Invalid(_SETUP + "events = spark.read.options(**{'mergeSchema': 'true'}).load('/lake/events')\n"),
        Invalid(_SETUP + "t = spark.read.format('delta').option('mergeSchema', True).load('/lake/t')\n"),
    )
    valid = (
        Valid(_SETUP + "events = spark.read.option('mergeSchema', 'false').parquet('s3://lake/events/')\n"),
        Valid(_SETUP + "events = spark.read.schema('id BIGINT').option('mergeSchema', 'true').parquet('s3://x/')\n"),
        Valid(_SETUP + "df = spark.table('t')\ndf.write.format('delta').option('mergeSchema', 'true').save('/t')\n"),
        Valid(_SETUP + "rows = spark.read.option('mergeSchema', 'true').json('s3://raw/')\n"),
        Valid(_SETUP + "events = spark.read.option('mergeSchema', 'true').parquet('fixtures/e')\n",
              path="tests/test_events.py"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in _LOADS:
            return
        receiver = self.ctx.semantic.infer(node.func.value)
        if receiver is None or receiver.kind != READER:
            return
        chain = reader_chain(node)
        options, fmt = reader_options(chain, self.ctx.semantic.text_of)
        if not truthy(options.get("mergeschema")) or any(method_name(c) == "schema" for c in chain) or \
                keyword_arg(node, "schema") is not None:
            return
        if method != "load":
            fmt = "parquet" if method == "table" and fmt is None else (fmt if method == "table" else method)
        fmt = (fmt or "parquet").lower().rsplit(".", 1)[-1]
        where = self._setter(chain) or node
        start = where.func.attr if isinstance(where, cst.Call) and isinstance(where.func, cst.Attribute) else None
        if fmt == "delta" or "delta" in fmt:
            self.ctx.report(self, where, "`mergeSchema` does nothing on a Delta read: the table's log holds its schema",
                            help="remove it (on a Delta *write* it allows schema evolution)", start=start)
            return
        if fmt not in ("parquet", "orc"):
            return
        self.ctx.report(
            self, where,
            f"`mergeSchema` makes every read of this {fmt.capitalize()} data open each file's footer and reconcile "
            "the schemas before the query starts",
            help="declare the schema (`.schema(...)`) the files should be read with, or drop the option",
            start=start)

    @staticmethod
    def _setter(chain):
        for c in chain:
            m, args = method_name(c), positional_args(c)
            if m == "option" and args and (literal_string(args[0]) or "").lower() == "mergeschema":
                return c
            if m == "options" and "mergeschema" in reader_options([c])[0]:
                return c
        return None
