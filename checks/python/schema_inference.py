import re

import libcst as cst

from checks.python._literals_and_reads import falsy, reader_chain, reader_options, truthy
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import DATAFRAME, RDD, READER, UNBOUNDED, literal_string, method_name, positional_args
from linter.semantic.paths import own_nodes
from linter.semantic.scopes import _written_key, written_spellings
from linter.sources.python import child_nodes

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"


# How the Fabric and Databricks tutorials fetch their sample before reading it.
_DOWNLOAD = (
    "import os, requests\nremote_url = '{url}'\ndownload_path = '{folder}'\nos.makedirs(download_path, exist_ok=True)\n"
    "for fname in ['churn.csv']:\n    r = requests.get(f'{{remote_url}}/{{fname}}', timeout=30)\n"
    "    with open(f'{{download_path}}/{{fname}}', 'wb') as f:\n        f.write(r.content)\n"
)


_WHOLE = object()  # a read brought whole to the driver in its own chain


def _to_driver(name: str):
    """`name.toPandas(` or `name.select(...).collect(` on a line of code, not in a comment (a `limit` or `filter`
    first is a peek, not the whole frame)."""
    return re.compile(rf"(?m)^[^#\n]*(?<![\w.]){re.escape(name)}\s*(?:\.\s*(?:select|cache|persist)"
                      rf"\s*\([^()]*\)\s*)*\.\s*(?:toPandas|collect)\s*\(")


def _read_into(read: cst.Call, parents: dict):
    """What becomes of a read of a place: _WHOLE when its chain brings it to the driver
    (`spark.table("x").toPandas()`), the name it is assigned to, or None."""
    node = read
    while True:
        parent = parents.get(id(node))
        call = parents.get(id(parent))
        if isinstance(parent, cst.Attribute) and isinstance(call, cst.Call) and call.func is parent:
            if parent.attr.value in ("toPandas", "collect"):
                return _WHOLE
            if parent.attr.value not in ("select", "cache", "persist"):
                return None
            node = call
            continue
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
            return parent.targets[0].target.value
        return None


def _text(semantic, node, strings: dict):
    """The text a write's destination holds where it is written: names (alone or in an f-string) as last assigned
    a string above it (`table_name = "a"` in one cell, "b" in a later one), other parts as ``text_of`` proves."""
    if isinstance(node, cst.Name) and node.value in strings:
        return strings[node.value]
    if not isinstance(node, cst.FormattedString):
        return semantic.text_of(node)
    out = []
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            out.append(part.value)
            continue
        if part.format_spec is not None or part.conversion is not None:
            return None
        text = _text(semantic, part.expression, strings)
        if text is None:
            return None
        out.append(text)
    return "".join(out)


def _places(text) -> frozenset:
    """The spellings a table or path written or read goes by, as the model matches writes with reads
    (`Tables/x` is the lakehouse table `x`; table names in any case); empty when the text is not known."""
    return frozenset(written_spellings(_written_key(text))) if text else frozenset()


class SchemaInference(PythonRule):
    """
    ## What it does
    Finds reads that leave the schema to the data: CSV with `inferSchema` (as
    an option or an argument), `read.json(...)` / `format("json").load(...)`
    without `.schema(...)`, and CSV without a schema at all (every column a
    string), unless `inferSchema` is set to false explicitly: strings are then
    the author's stated choice (a raw landing copy, a text-only staging table).
    A JSON read of a Delta table's `_delta_log` (looking at its commits, whose
    records mix several kinds of action) is not reported, nor a read of
    records the code itself holds (`read.json(sc.parallelize([text]))`), nor
    one of a file the code finds next to itself (a path built from
    `__file__`: `os.path.join(os.path.dirname(__file__), "resources",
    "orders.csv")`, `Path(__file__).parent / "data.json"`, also when a
    function of the module returns it: `sample_path("orders.csv")`), nor one of files
    the repository holds, at most 10 MB in all, named by a literal path
    (relative to the file or the repository's root, or absolute where the
    data is mounted: `/data/flight-data/csv/2015-summary.csv` read from a
    repository with `data/flight-data/csv/2015-summary.csv`): sample data,
    small and fixed, where an inference pass costs nothing and no type can
    drift. Nor is a read of the folder the same file downloads a fixed URL
    into (`requests.get(f"{URL}/{name}")` saved with `open(f"{folder}/{name}",
    "wb")`, or `urlretrieve(URL, path)`; `/lakehouse/default/Files/x`, the
    local mount, is Spark's `Files/x`), when the file also brings the frame
    read whole to the driver (`df.toPandas()`, `df.select("text").collect()`,
    also after a round trip through a table: `df.write...save("Tables/x")`,
    then `data = spark.read.format("delta").load("Tables/x")` and
    `data.toPandas()`): the tutorials' way with their published samples, a
    fixed file its author knows to fit in the driver. In a notebook, the download may be in another
    notebook of the same folder (a tutorial series whose first notebook fetches
    the sample the later ones read). A fixed download that is not brought to the
    driver is still reported, and its message says only what is true of it:
    its types cannot drift, but the inference pass over a file of millions
    of rows is a real cost.

    The all-strings case is reported only with `--preview`: hand-judged
    samples of real code found it wrong more often than right (a CSV copied
    raw, masked as text or only displayed, where no column is ever cast), and
    whether a column is used as a number is not something a read can show.

    ## Why is this bad?
    Inference reads the input once more just to guess the types (all of it
    for JSON unless `samplingRatio` is set), and the guess changes with the
    data: a column that held only integers yesterday is a string today, and
    the job, or the table it writes, breaks without a code change. CSV read
    without any schema is all strings, cast implicitly (and silently to null
    where a value does not parse) by every later comparison and sum. A
    declared schema is read once and fails loudly on bad data.

    ## Example
    ```python
    orders = spark.read.option("header", True).option("inferSchema", True).csv("s3://raw/orders/")
    ```

    ## Use instead
    ```python
    orders = spark.read.option("header", True).schema("id BIGINT, amount DOUBLE, day DATE").csv("s3://raw/orders/")
    ```

    ## Fix safety
    No fix: the schema is the author's to write.

    ## References
    - Spark SQL guide, "CSV Files" and "JSON Files" (`inferSchema`,
      `samplingRatio`).
    """

    code = "SPK405"
    skip_in_tests = True
    name = "schema-inference"
    summary = "reading CSV or JSON with an inferred schema: an extra pass and types that drift"
    default_reason = ("inference reads the input once more to guess types that drift with the data, breaking "
                      "the job with no code change; the all-strings CSV case, often meant, stays in preview")
    triggers = ("inferSchema", "json", "csv")

    invalid = (
        Invalid(_SETUP + "def load_json(paths, **kwargs):\n    reader = spark.read.format('json')\n"
                "    reader.options(**kwargs)\n    return reader.load(paths)\n"),
        Invalid(_SETUP + "df = spark.read.format('csv').option('inferSchema', 'true').load('/data/*.csv').coalesce(5)\n"),
        Invalid(_SETUP + "orders = spark.read.option('header', True).option('inferSchema', True).csv('s3://raw/orders/')\n"),
        Invalid(_SETUP + "orders = spark.read.csv('s3://raw/orders/', header=True, inferSchema=True)\n"),
        Invalid(_SETUP + "events = spark.read.json('s3://raw/events/')\n"),
        Invalid(_SETUP + "events = spark.read.format('json').load('s3://raw/events/')\n"),
        Invalid(_SETUP + "orders = spark.read.options(inferSchema='true', header='true').csv('/in')\n"),
        Invalid(_SETUP + "trips = spark.read.format('csv').option('inferschema', 'true').option('header', 'true')"
                ".load('Files/yellow_tripdata.csv')\n"),
        Invalid(_SETUP + "orders = spark.read.option('header', True).csv('s3://raw/orders/')\n"),
        # a path that only ends beside the code, or a name rebound: not shipped data
        Invalid(_SETUP + "import os\nevents = spark.read.json(os.path.join(LAKE, os.path.basename(__file__)))\n"),
        Invalid(_SETUP + "import os\ndef load(base):\n    return spark.read.json(os.path.join(base, 'events'))\n"),
        Invalid(_SETUP + "import os\nHERE = os.path.dirname(__file__)\nHERE = 's3://lake'\n"
                "events = spark.read.json(HERE + '/events')\n"),
        # a download into another folder than the one read, from an address the file does not spell out, or
        # of a sample the file never holds whole on the driver (13 million rows: the extra pass is a real cost)
        Invalid(_SETUP + _DOWNLOAD.format(url="https://example.org/data", folder="/lakehouse/default/Files/raw")
                + "df = spark.read.csv('Files/landing/churn.csv', header=True, inferSchema=True)\ndf.toPandas()\n"),
        Invalid(_SETUP + _DOWNLOAD.format(url="{base_url}", folder="/lakehouse/default/Files/raw")
                + "df = spark.read.csv('Files/raw/churn.csv', header=True, inferSchema=True)\ndf.toPandas()\n"),
        Invalid(_SETUP + _DOWNLOAD.format(url="https://example.org/data", folder="/lakehouse/default/Files/raw")
                + "raw_df = spark.read.csv('Files/raw/churn.csv', header=True, inferSchema=True)\n"
                "raw_df.write.saveAsTable('criteo')\n"),
        # a round trip through a table whose read-back stays on the cluster, or that reads another table
        Invalid(_SETUP + _DOWNLOAD.format(url="https://example.org/data", folder="/lakehouse/default/Files/raw")
                + "df = spark.read.csv('Files/raw/churn.csv', header=True, inferSchema=True)\n"
                "df.write.mode('overwrite').format('delta').save('Tables/churn')\n"
                "data = spark.read.format('delta').load('Tables/churn')\ndata.write.saveAsTable('gold.churn')\n"),
        Invalid(_SETUP + _DOWNLOAD.format(url="https://example.org/data", folder="/lakehouse/default/Files/raw")
                + "df = spark.read.csv('Files/raw/churn.csv', header=True, inferSchema=True)\n"
                "df.write.mode('overwrite').saveAsTable('churn_raw')\n"
                "data = spark.read.table('churn_clean')\npdf = data.toPandas()\n"),
    )
    valid = (
        Valid(_SETUP + "def load_json(paths, schema):\n    reader = spark.read.format('json')\n"
              "    reader.schema(schema)\n    return reader.load(paths)\n"),
        # a published sample the notebook fetches itself, read from where it saved it
        # ... and brings whole to the driver: small and fixed
        Valid(_SETUP + _DOWNLOAD.format(url="https://example.org/data", folder="/lakehouse/default/Files/raw")
              + "df = spark.read.csv('Files/raw/churn.csv', header=True, inferSchema=True).cache()\n"
              "display(df)\ndf = df.toPandas()\n"),
        # ... or writes to a table that a later cell reads back whole onto the driver (Fabric's tutorials)
        Valid(_SETUP + _DOWNLOAD.format(url="https://example.org/data", folder="/lakehouse/default/Files/raw")
              + "table_name = 'churn_data'\n"
              "df = spark.read.option('header', True).option('inferSchema', True).csv('Files/raw/churn.csv').cache()\n"
              "df.write.mode('overwrite').format('delta').save(f'Tables/{table_name}')\n"
              "data = spark.read.format('delta').load('Tables/churn_data')\npdf = data.toPandas()\n"),
        Valid(_SETUP + _DOWNLOAD.format(url="https://example.org/data", folder="/lakehouse/default/Files/raw")
              + "df = spark.read.csv('Files/raw/churn.csv', header=True, inferSchema=True)\n"
              "df.write.mode('overwrite').saveAsTable('churn')\nrows = spark.table('churn').collect()\n"),
        Valid(_SETUP + "import urllib.request\nurllib.request.urlretrieve('https://example.org/t.json', '/tmp/demo/t.json')\n"
              "trips = spark.read.json('file:/tmp/demo/t.json')\nwords = trips.select('text').collect()\n"),
        Valid(_SETUP + "events = spark.read.schema('id BIGINT, ts TIMESTAMP').json('s3://raw/events/')\n"),
        Valid(_SETUP + "orders = spark.read.option('header', True).schema('id BIGINT, amount DOUBLE').csv('s3://raw/')\n"),
        Valid(_SETUP + "events = spark.read.json('fixtures/events.json')\n", path="tests/test_events.py"),
        Valid("import json\ndata = json.loads('{}')\n"),
        Valid(_SETUP + "trips = spark.read.load('Tables/green_trips', inferSchema=True, header=True)\n"),
        Valid(_SETUP + "trips = spark.read.format('delta').option('inferSchema', True).load('/lake/trips')\n"),
        Valid(_SETUP + "raw = spark.read.option('header', True).option('inferSchema', 'false').csv('s3://landing/orders/')\n"),
        Valid(_SETUP + "raw = spark.read.csv('s3://landing/orders/', header=True, inferSchema=False)\n"),
        Valid(_SETUP + "spark.read.json('/lake/online_retail/_delta_log/').show()\n"),
        # sample data shipped beside the code: small and fixed
        Valid(_SETUP + "import os\norders = spark.read.option('header', True).option('inferSchema', True)"
              ".csv(os.path.join(os.path.dirname(__file__), '..', 'resources', 'orders.csv'))\n"),
        Valid(_SETUP + "from pathlib import Path\nHERE = Path(__file__).resolve().parent\n"
              "events = spark.read.json(str(HERE / 'data' / 'events.json'))\n"),
        Valid(_SETUP + "import os\nRESOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'resources')\n"
              "def load():\n    return spark.read.json(f'{RESOURCES}/events.json')\n"),
        Valid(_SETUP + "import os\nHERE = os.path.dirname(os.path.abspath(__file__))\n"
              "def read_orders():\n    return spark.read.option('inferSchema', 'true').csv(sample_path('order.csv'))\n"
              "def sample_path(name):\n    return os.path.join(HERE, '..', 'resources', name)\n"),
        Valid(_SETUP + "doc = '{\"a\": 1, \"b\": [1, 2]}'\n"
              "parsed = spark.read.json(spark.sparkContext.parallelize([doc]))\n"),
    )

    def _held_reader(self, chain: list) -> list:
        """A reader chain continued through the name it starts from, when one assignment gives it a reader
        (`reader = spark.read.format("json")`, then `reader.load(p)`), with the calls statements of their own
        make on it (`reader.option(...)`: a reader's options change the reader itself)."""
        root = chain[-1].func.value if chain else None
        if not isinstance(root, cst.Name):
            return chain
        made = self.ctx.semantic.assigned_expression(root.value)
        if not isinstance(made, cst.Call):
            return chain
        function = self.ctx.function
        nodes = own_nodes(function) if function is not None else (
            small for line in self.ctx.module.body if isinstance(line, cst.SimpleStatementLine) for small in line.body)
        extra = []
        for statement in nodes:
            if isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call):
                calls = reader_chain(statement.value)
                start = calls[-1].func.value if calls else None
                if isinstance(start, cst.Name) and start.value == root.value:
                    extra += calls  # `reader.options(**kwargs)` on a line of its own
        return chain + extra + reader_chain(made)

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in ("csv", "json", "load"):
            return
        receiver = self.ctx.semantic.infer(node.func.value)
        if receiver is None or receiver.kind != READER:
            return
        # options by name in any case (Spark's are case-insensitive), the last one set winning; option names and
        # the format may be constants of the project (`constants.CSV_INFER_SCHEMA`)
        chain = self._held_reader(reader_chain(node))
        options, given = reader_options(chain, self.ctx.semantic.text_of)
        has_schema = any(method_name(c) == "schema" for c in chain) or "schema" in options
        setting = options.get("inferschema")
        infer, strings = truthy(setting), falsy(setting)  # `inferSchema=False`: strings, said out loud
        format_given = method != "load" or given is not None
        fmt = method if given in (None, "\0unknown") else given.rsplit(".", 1)[-1]  # "com.databricks.spark.csv"
        if has_schema or not format_given or fmt.lower() not in ("csv", "json", "load"):
            # `load()` with no format reads spark.sql.sources.default (Parquet); Delta, Parquet, ORC... are typed
            return
        args = positional_args(node)
        path = literal_string(args[0]) if args else None
        if fmt == "json" and path is not None and "_delta_log" in path:
            return  # Delta's own transaction log, read to look at its commits: mixed actions, inference is the tool
        if args and self.ctx.semantic.local_sample(args[0]):
            return  # sample data beside the code or in the repository: small and fixed, nothing drifts
        downloaded = bool(args) and self.ctx.semantic.downloaded_sample(args[0])
        if downloaded and self._brought_to_driver(node):
            return  # a published sample the file fetches itself and then holds whole on the driver: small and fixed
        data = self.ctx.semantic.infer(args[0]) if args and path is None else None
        if data is not None and data.kind == RDD and data.bound not in (None, UNBOUNDED):
            return  # `read.json(sc.parallelize([text]))`: records the code holds, read once; nothing to drift
        # a fixed download cannot drift: its finding is the pass alone
        drift = ("; the file is a fixed download, but the pass reads all of it on every run" if downloaded else
                 ", and the guess drifts with the data")
        if infer and fmt != "json":  # JSON ignores the option and always infers: its own message below
            self._report(node, f"`inferSchema` reads the data an extra time to guess column types{drift}")
        elif fmt == "json":
            self._report(node, "reading JSON without a schema makes Spark scan the input to infer one"
                         + ("; the file is a fixed download, but the scan reads all of it on every run" if downloaded
                            else ", and the types drift with the data"))
        elif fmt == "csv" and not strings and self.ctx.settings.preview:
            self._report(node, "reading CSV without a schema makes every column a string: numbers and dates are cast implicitly downstream")

    def _brought_to_driver(self, read: cst.Call) -> bool:
        """Whether the name the read's chain is assigned to (`df = spark.read...csv(...).cache()`) is brought
        whole to the driver somewhere in the file (`df.toPandas()`, `df.select("text").collect()`): the author
        knows it fits there, so an inference pass over it costs next to nothing."""
        target = None
        for parent in reversed(self.ctx.ancestors[:-1]):
            cls = parent.__class__
            if cls is cst.Call or cls is cst.Attribute:
                continue  # the chain around the read: `.cache()`, `.repartition(8)`
            if cls is cst.Assign and len(parent.targets) == 1 and parent.targets[0].target.__class__ is cst.Name:
                target = parent.targets[0].target.value
            break
        if target is None:
            return False
        text = self.ctx.semantic.text or ""
        if _to_driver(target).search(text):
            return True
        # written where a later read takes it back whole (the tutorials' round trip through a table)
        written, reads = self._round_trips()
        places = written.get(target, frozenset())
        return any(name is _WHOLE or name is not None and _to_driver(name).search(text)
                   for spellings, name in reads if spellings & places)

    def _round_trips(self):
        """(name -> the places its frame is written to, [(place, what becomes of a read of it: see _read_into)])
        of the module: `df.write...save("Tables/x")` / `saveAsTable("x")`, `data = spark.read...load("Tables/x")` /
        `spark.table("x")`. A place is the set of its spellings (see ``_places``)."""
        found = self.ctx.memo.get("\0round trips")
        if found is not None:
            return found
        semantic = self.ctx.semantic
        written: dict = {}
        strings: dict = {}  # name -> the string literal last assigned it, in the order of the source
        parents: dict = {}
        found_reads: list = []
        stack = [self.ctx.module]
        while stack:  # in the order of the source: a name's string is the one last assigned above the write
            node = stack.pop()
            children = child_nodes(node)
            for child in children:
                parents[id(child)] = node
            stack.extend(reversed(children))
            if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                text = literal_string(node.value)
                if text is not None:
                    strings[node.targets[0].target.value] = text
                else:
                    strings.pop(node.targets[0].target.value, None)
            elif isinstance(node, cst.Call) and method_name(node) in ("save", "saveAsTable"):
                args = positional_args(node) or [a.value for a in node.args if a.keyword and a.keyword.value in
                                                 ("path", "name")]
                root = node.func.value
                while isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute):
                    root = root.func.value
                if args and isinstance(root, cst.Attribute) and root.attr.value == "write" and \
                        isinstance(root.value, cst.Name):
                    place = _places(_text(semantic, args[0], strings))
                    if place:
                        written[root.value.value] = written.get(root.value.value, frozenset()) | place
            elif isinstance(node, cst.Call) and method_name(node) in ("load", "table"):
                args = positional_args(node)
                value = semantic.infer(node) if args else None
                place = _places(semantic.text_of(args[0])) if args else None
                if place and value is not None and value.kind == DATAFRAME:
                    found_reads.append((place, node))
        reads = [(place, _read_into(read, parents)) for place, read in found_reads]
        found = self.ctx.memo["\0round trips"] = (written, reads)
        return found

    def _report(self, node, message: str) -> None:
        self.ctx.report(self, node, message, help="declare the schema: `.schema(StructType(...))` or a DDL string "
                        "`.schema('id BIGINT, amount DOUBLE')`")
