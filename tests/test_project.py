"""What a file takes from its own project's modules (linter/project.py): constants and DataFrame functions."""
import json

from conftest import codes_and_rows, write
from linter.project import NO_FACTS, imported_modules, project_facts

CONSTANTS = '''"""Names of reader options, as dataproc-templates keeps them."""
FORMAT_CSV = "csv"
CSV_HEADER = "header"
CSV_INFER_SCHEMA: str = "inferSchema"
CHANGED = "inferSchema"
CHANGED = "samplingRatio"
COMPUTED = "infer" + "Schema"


class Names:
    INFER = "inferSchema"
'''

IO = '''from pyspark.sql import DataFrame, SparkSession


def load_orders(spark: SparkSession,
                path: str) -> "DataFrame":
    return spark.read.parquet(path)


def count_rows(frame) -> int:
    return frame.count()


def _undecided(path):
    return path
'''

JOB = '''import jobs.util.constants as constants
from jobs.util.constants import CSV_INFER_SCHEMA
from jobs.util.io import count_rows, load_orders


def run(spark, path):
    a = spark.read.format(constants.FORMAT_CSV).option(constants.CSV_HEADER, True) \\
        .option(constants.CSV_INFER_SCHEMA, True).load(path)
    b = spark.read.option(CSV_INFER_SCHEMA, "true").csv(path)
    c = spark.read.option(constants.CHANGED, "true").csv(path)
    d = spark.read.option(constants.COMPUTED, "true").csv(path)
    rows = load_orders(spark, path).collect()
    n = count_rows(a)
    return a, b, c, d, rows, n
'''


def _project(tmp_path):
    write(tmp_path / "jobs" / "__init__.py", "")
    write(tmp_path / "jobs" / "util" / "__init__.py", "")
    write(tmp_path / "jobs" / "util" / "constants.py", CONSTANTS)
    write(tmp_path / "jobs" / "util" / "io.py", IO)
    return write(tmp_path / "jobs" / "job.py", JOB)


def _found(run, path, *args):
    return codes_and_rows(run, path, "SPK405,SPK101", *args)


def test_constants_and_dataframe_functions_of_the_project_are_known(tmp_path, run):
    job = _project(tmp_path)
    # rows 7-8 and 9: inferSchema through the module's constants; 12: a function annotated `-> DataFrame`.
    # Not row 10 (CHANGED is assigned twice), not row 11 (COMPUTED is not a literal).
    assert _found(run, job, "--no-cache") == [("SPK101", 12), ("SPK405", 7), ("SPK405", 9)]


def test_a_one_file_run_sees_the_same_facts(tmp_path, run):
    job = _project(tmp_path)
    write(tmp_path / "unrelated.py", "x = 1\n")
    assert _found(run, job, "--no-cache") == _found(run, tmp_path, "--no-cache")


def test_an_edit_of_the_constants_module_rechecks_its_importers(tmp_path, run):
    job = _project(tmp_path)
    cache = tmp_path / ".cache"
    assert ("SPK405", 9) in _found(run, job, "--cache-dir", cache)
    write(tmp_path / "jobs" / "util" / "constants.py", CONSTANTS.replace('"inferSchema"\nCHANGED', '"header2"\nCHANGED'))
    assert ("SPK405", 9) not in _found(run, job, "--cache-dir", cache)
    # a module created where none was: `jobs.util.names` did not exist when the cache entry was written
    write(job, JOB.replace("from jobs.util.constants import CSV_INFER_SCHEMA", "from jobs.util.names import CSV_INFER_SCHEMA"))
    assert ("SPK405", 9) not in _found(run, job, "--cache-dir", cache)
    write(tmp_path / "jobs" / "util" / "names.py", 'CSV_INFER_SCHEMA = "inferSchema"\n')
    assert ("SPK405", 9) in _found(run, job, "--cache-dir", cache)


def test_what_is_not_read(tmp_path):
    job = _project(tmp_path)
    facts = project_facts(str(job), JOB)
    assert facts.constants["jobs.util.constants.CSV_INFER_SCHEMA"] == "inferSchema"
    assert "jobs.util.constants.CHANGED" not in facts.constants  # assigned twice
    assert "jobs.util.constants.COMPUTED" not in facts.constants  # not a literal
    assert "jobs.util.constants.INFER" not in facts.constants  # a class attribute
    assert facts.dataframe_functions == {"jobs.util.io.load_orders"}
    # relative imports, the standard library and pyspark are not looked up
    assert project_facts(str(job), "from .util import constants\n").constants == {}
    assert project_facts(str(job), "import os\nimport pyspark.sql.functions as F\n") is NO_FACTS
    assert "jobs.util.constants" in imported_modules("from jobs.util.constants import (\n    A,\n    B as C,\n)\n")


def test_a_module_without_pyspark_declares_no_dataframe_function(tmp_path):
    write(tmp_path / "frames.py", "import polars as pl\n\ndef load(path) -> DataFrame:\n    return pl.read_csv(path)\n")
    job = write(tmp_path / "job.py", "from frames import load\nrows = load('x').collect()\n")
    assert project_facts(str(job), "from frames import load\n").dataframe_functions == frozenset()


def test_a_session_another_module_builds_is_a_session(tmp_path, run):
    """`from alertas.base import spark`: the name is the SparkSession that module builds, so `spark.table(...)` is a
    table and `spark.createDataFrame([...])` rows the driver holds (MinisterioPublicoRJ's Alertas)."""
    write(tmp_path / "alertas" / "__init__.py", "")
    write(tmp_path / "alertas" / "base.py", "from pyspark.sql import SparkSession\n\n"
          "spark = (\n    SparkSession.builder.appName('alertas')\n    .enableHiveSupport()\n    .getOrCreate()\n)\n")
    job = write(tmp_path / "alertas" / "jobs.py",
                "from alertas.base import spark\nimport alertas.base as base\n\n"
                "rows = spark.table('exadata.alertas').collect()\n"
                "log = spark.createDataFrame([(1, 'done')], 'id int, status string')\n"
                "log.coalesce(1).write.mode('append').saveAsTable('aux.sessions')\n"
                "more = base.spark.table('exadata.docs').collect()\n")
    assert codes_and_rows(run, job, "SPK101,SPK402", "--no-cache") == [("SPK101", 4), ("SPK101", 7)]
    with open(job, encoding="utf-8") as f:
        text = f.read()
    assert project_facts(str(job), text).sessions == {"alertas.base.spark"}
    # a name bound twice, or a module without pyspark, is no session
    write(tmp_path / "alertas" / "base.py", "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
          "spark = None\n")
    assert project_facts(str(job), text).sessions == frozenset()
    # nothing known of `spark` now: its tables are unknown, and the coalesced frame is a DataFrame by its `.write`
    assert codes_and_rows(run, job, "SPK101,SPK402", "--no-cache") == [("SPK402", 6)]


CONTEXT = '''from pyspark.sql import DataFrame


class Context:
    def set_stats(self, df: DataFrame) -> None:
        self.stats = [row.asDict() for row in df.collect()]
'''

WRITER_SMALL = '''from pyspark.sql import SparkSession


class Writer:
    def __init__(self, context):
        self.spark = SparkSession.builder.getOrCreate()
        self.context = context

    def write_stats(self, run_id):
        rows = [(run_id, 1, 2)]
        df = self.spark.createDataFrame(rows, ["run", "input", "output"])
        df = df.withColumn("ratio", df.output / df.input)
        self.context.set_stats(df)
'''

WRITER_TABLE = WRITER_SMALL.replace('df = self.spark.createDataFrame(rows, ["run", "input", "output"])',
                                    'df = self.spark.table("stats")')


def _library(tmp_path, writer=WRITER_SMALL):
    write(tmp_path / "lib" / "__init__.py", "")
    write(tmp_path / "lib" / "core" / "__init__.py", "")
    write(tmp_path / "lib" / "sinks" / "__init__.py", "")
    write(tmp_path / "lib" / "sinks" / "writer.py", writer)
    return write(tmp_path / "lib" / "core" / "context.py", CONTEXT)


def test_a_method_whose_callers_in_the_package_pass_small_frames_is_quiet(tmp_path, run):
    context = _library(tmp_path)
    assert _found(run, context, "--no-cache") == []
    # a test module's call is not a caller of the library: it passes what a test needs
    write(tmp_path / "lib" / "tests" / "test_context.py",
          "from lib.core.context import Context\n\ndef test_it(spark):\n    Context().set_stats(spark.table('t'))\n")
    assert _found(run, context, "--no-cache") == []


def test_one_caller_passing_a_whole_table_keeps_the_finding(tmp_path, run):
    context = _library(tmp_path, WRITER_TABLE)
    assert _found(run, context, "--no-cache") == [("SPK101", 6)]
    # no caller at all: nothing bounds the parameter
    (tmp_path / "lib" / "sinks" / "writer.py").unlink()
    assert _found(run, context, "--no-cache") == [("SPK101", 6)]


def test_a_caller_edited_or_added_rechecks_the_callee(tmp_path, run):
    context = _library(tmp_path)
    cache = tmp_path / ".cache"
    assert _found(run, context, "--cache-dir", cache) == []
    write(tmp_path / "lib" / "sinks" / "writer.py", WRITER_TABLE)
    assert _found(run, context, "--cache-dir", cache) == [("SPK101", 6)]
    write(tmp_path / "lib" / "sinks" / "writer.py", WRITER_SMALL)
    assert _found(run, context, "--cache-dir", cache) == []
    # a module that starts calling it with a whole table
    write(tmp_path / "lib" / "report.py", "def report(spark, context):\n    context.set_stats(spark.table('t'))\n")
    assert _found(run, context, "--cache-dir", cache) == [("SPK101", 6)]


def test_what_the_package_callers_read(tmp_path):
    from linter.callers import SMALL, UNKNOWN, dataframe_functions_defined, package_callers
    from linter.project import _module_data, clear_caches

    context = _library(tmp_path)
    assert dataframe_functions_defined(CONTEXT) == {"set_stats"}
    assert dataframe_functions_defined("def f(x) -> DataFrame:\n    y: DataFrame = x\n") == frozenset()
    seen, calls = package_callers(str(context), CONTEXT, _module_data)
    assert calls == {"set_stats": (((SMALL,), ()),)}
    assert len(seen) == 1 and seen[0].startswith("calls:sinks/writer.py=")
    write(tmp_path / "lib" / "more.py", "def a(spark, c, rdd, n):\n    c.set_stats(spark.createDataFrame(rdd))\n"
          "    c.set_stats(df=spark.range(10))\n    c.set_stats(spark.range(n))\n"
          "    c.set_stats(spark.table('t').limit(5))\n    c.set_stats(spark.table('t').limit(50_000_000))\n"
          "    c.set_stats(spark.range(0, 10_000_000_000, 1))\n    c.set_stats(*frames)\n")
    clear_caches()  # the package's modules are listed once per run
    _, calls = package_callers(str(context), CONTEXT, _module_data)
    assert sorted(calls["set_stats"], key=repr) == sorted([
        ((SMALL,), ()), ((UNKNOWN,), ()), ((), (("df", 10),)), ((UNKNOWN,), ()), ((5,), ()), ((UNKNOWN,), ()),
        ((UNKNOWN,), ()), ((UNKNOWN,), ()),
    ], key=repr)
    # a file outside any package has no package to search
    loose = write(tmp_path / "loose.py", CONTEXT)
    assert package_callers(str(loose), CONTEXT, _module_data) == ((), {})


def _sizes(tmp_path, caller):
    from linter.callers import package_callers
    from linter.project import _module_data, clear_caches

    context = _library(tmp_path)
    write(tmp_path / "lib" / "sinks" / "writer.py", caller)
    clear_caches()
    return package_callers(str(context), CONTEXT, _module_data)[1].get("set_stats")


def test_only_a_straight_line_binding_is_followed(tmp_path):
    from linter.callers import SMALL, UNKNOWN

    small = "def f(spark, c):\n    df = spark.createDataFrame([(1,)], ['a'])\n    df = df.withColumn('b', df.a)\n" \
            "    c.set_stats(df)\n    if spark:\n        df = spark.table('t')\n"
    assert _sizes(tmp_path, small) == (((SMALL,), ()),)  # a binding after the call, outside a loop, cannot reach it
    branches = "def f(spark, c, big):\n    if big:\n        df = spark.table('t')\n    else:\n" \
               "        df = spark.createDataFrame([(1,)], ['a'])\n    c.set_stats(df)\n"
    assert _sizes(tmp_path, branches) == (((UNKNOWN,), ()),)
    rebound = "def f(spark, c):\n    df = spark.createDataFrame([(1,)], ['a'])\n    df, n = load()\n    c.set_stats(df)\n"
    assert _sizes(tmp_path, rebound) == (((UNKNOWN,), ()),)
    looped = "def f(spark, c):\n    df = spark.createDataFrame([(1,)], ['a'])\n    for t in ts:\n" \
             "        c.set_stats(df)\n        df = spark.table(t)\n"
    assert _sizes(tmp_path, looped) == (((UNKNOWN,), ()),)
    from_call = "def f(spark, c):\n    c.set_stats(spark.createDataFrame(events_rdd()))\n"
    assert _sizes(tmp_path, from_call) == (((UNKNOWN,), ()),)


def test_a_mention_that_is_not_a_call_is_an_unknown_caller(tmp_path):
    from linter.callers import UNKNOWN

    for caller in ("def f(stream, c):\n    stream.writeStream.foreachBatch(c.set_stats).start()\n",
                   "from lib.core.context import set_stats as report\n",
                   "HANDLERS = {'s': getattr(ctx, 'set_stats')}\n",
                   "print 'python 2'\nc.set_stats(spark.table('t'))\n"):  # a module that does not parse
        found = _sizes(tmp_path, caller)
        assert found and all(p[0] == UNKNOWN for p, _ in found), (caller, found)


def test_odd_modules_beside_the_callee(tmp_path):
    import os

    context = _library(tmp_path)
    os.mkfifo(tmp_path / "lib" / "pipe.py")  # a FIFO named like a module is never opened (it would block)
    write(tmp_path / "lib" / "deep.py", "c.set_stats(spark.table('t'))\nx = " + "+".join(["1"] * 5000) + "\n")
    from linter.project import clear_caches

    clear_caches()
    assert ("SPK101", 6) in _found_at(context)


def _found_at(path):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "linter", "check", str(path), "--select", "SPK101", "--no-cache",
                        "--output-format", "json"], capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return sorted((f["code"], f["location"]["row"]) for f in json.loads(r.stdout))
