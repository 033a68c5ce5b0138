"""What a file takes from its own project's modules (linter/project.py): constants and DataFrame functions."""
import json

from conftest import write
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
    r = run("check", path, "--select", "SPK405,SPK101", "--output-format", "json", *args)
    assert r.code in (0, 1), r.err
    return sorted((f["code"], f["location"]["row"]) for f in json.loads(r.out))


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
