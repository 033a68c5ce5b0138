"""What sparkcheck proves about expressions: kinds and row bounds."""
import libcst as cst
import pytest

from linter.semantic import BOUNDED, COLUMN, DATAFRAME, GROUPED, RDD, SESSION, UNBOUNDED, Semantic
from linter.sources.python import walk


def infer_last(code):
    """Walk `code` and infer the value of its last expression statement."""
    module = cst.parse_module(code)
    sem = Semantic()
    visit, leave = sem.hooks()
    walk(module, {k: [v] for k, v in visit.items()}, {k: [v] for k, v in leave.items()}, [])
    last = module.body[-1].body[0]
    # Re-enter the module scope state as it is at the end of the file.
    return sem.infer(last.value)


PRELUDE = "from pyspark.sql import SparkSession, DataFrame\nfrom pyspark.sql import functions as F\nspark = SparkSession.builder.getOrCreate()\n"


@pytest.mark.parametrize("code, kind, bound", [
    ("spark", SESSION, None),
    ("spark.table('t')", DATAFRAME, UNBOUNDED),
    ("spark.read.format('delta').option('a', 1).load('p')", DATAFRAME, UNBOUNDED),
    ("spark.table('t').limit(5)", DATAFRAME, 5),
    ("spark.table('t').limit(n)", DATAFRAME, BOUNDED),
    ("spark.table('t').limit(5).filter('x > 1').select('a')", DATAFRAME, 5),
    ("spark.table('t').agg(F.max('x'))", DATAFRAME, 1),
    ("spark.table('t').select(F.count('*').alias('n'), F.max('x'))", DATAFRAME, 1),
    ("spark.table('t').select('a', F.max('x'))", DATAFRAME, UNBOUNDED),
    ("spark.table('t').groupBy('k')", GROUPED, UNBOUNDED),
    ("spark.table('t').groupBy().count()", DATAFRAME, 1),
    ("spark.table('t').groupBy('k').agg(F.sum('x'))", DATAFRAME, UNBOUNDED),
    ("spark.table('t').join(spark.table('u'), 'id')", DATAFRAME, UNBOUNDED),
    ("spark.table('t').limit(1).join(spark.createDataFrame([], 'a int'), 'id')", DATAFRAME, BOUNDED),
    ("spark.sql('SELECT * FROM t')", DATAFRAME, UNBOUNDED),
    ("spark.sql('SELECT a FROM t LIMIT 3')", DATAFRAME, 3),
    ("spark.sql('SELECT count(*), max(a) FROM t')", DATAFRAME, 1),
    ("spark.sql('SELECT k, count(*) FROM t GROUP BY k')", DATAFRAME, UNBOUNDED),
    ("spark.sql('SHOW TABLES')", DATAFRAME, BOUNDED),
    # rows are unbounded unless proven small: SQL nothing can read is a query over tables
    ("spark.sql(query)", DATAFRAME, UNBOUNDED),
    ("spark.sql(f'SELECT * FROM {table}')", DATAFRAME, UNBOUNDED),
    ("spark.sql(f'SELECT count(*) FROM {table}')", DATAFRAME, 1),
    ("spark.sql('SELECT * FROM {} LIMIT {}'.format(t, n))", DATAFRAME, BOUNDED),
    ("spark.sql('SELECT * FROM %s WHERE d = %s' % (t, d))", DATAFRAME, UNBOUNDED),
    ("spark.sql('SELECT current_user()')", DATAFRAME, 1),
    ("spark.sql('SET spark.sql.shuffle.partitions')", DATAFRAME, BOUNDED),
    ("spark.sql('DESCRIBE TABLE t')", DATAFRAME, BOUNDED),
    ("spark.sql('EXPLAIN SELECT * FROM t')", DATAFRAME, BOUNDED),
    ("spark.range(10)", DATAFRAME, 10),
    ("spark.table('t').writeTo('u').partitionedBy(F.col('d'))", "DataFrameWriter", None),
    # what the value is made of beats its annotation
    ("r: DataFrame = spark.read.format('csv')\nr.load('p')", DATAFRAME, UNBOUNDED),
    ("spark.read.json(spark.sparkContext.parallelize([text]))", DATAFRAME, BOUNDED),
    ("spark.createDataFrame(spark.sparkContext.textFile('/logs'))", DATAFRAME, UNBOUNDED),
    ("spark.createDataFrame(rows, 'a int')", DATAFRAME, BOUNDED),
    ("spark.table('t').rdd.map(lambda r: r)", RDD, UNBOUNDED),
    ("spark.table('t')['a']", COLUMN, None),
    ("spark.table('t').amount", COLUMN, None),
    ("spark.table('t')[['a', 'b']]", DATAFRAME, UNBOUNDED),
    ("import functools\n@functools.lru_cache\ndef load() -> DataFrame:\n    return spark.table('t')\nload()",
     DATAFRAME, UNBOUNDED),
])
def test_inference(code, kind, bound):
    value = infer_last(PRELUDE + code + "\n")
    assert value is not None and value.kind == kind and value.bound == bound, value


@pytest.mark.parametrize("code", [
    "import pandas as pd\npd.DataFrame({'a': [1]})",
    "from pandas import DataFrame\ndef f(df: DataFrame):\n    return df\nf(x)",
    "spark = object()\nspark.table('t')",
    "gc.collect",
    "def f(df):\n    return df\nf(1)",
    # a decorator of its own may return anything: `-> DataFrame` no longer says what a call gives
    "@se.with_expectations(target_table='t')\ndef build() -> DataFrame:\n    return spark.table('t')\nbuild()",
])
def test_not_spark_is_never_spark(code):
    value = infer_last(code + "\n")
    assert value is None or value.kind not in (DATAFRAME, COLUMN, SESSION, RDD, GROUPED)


def test_assignments_functions_and_branches():
    code = PRELUDE + (
        "def load(path) -> DataFrame:\n    return spark.read.parquet(path)\n"
        "def small():\n    return spark.table('t').limit(3)\n"
        "a = load('x')\nb = small()\nc = spark.table('t')\nif flag:\n    c = c.limit(10)\n"
        "d, e = spark.table('t').randomSplit([0.5, 0.5])\n"
    )
    for name, kind, bound in (("a", DATAFRAME, UNBOUNDED), ("b", DATAFRAME, 3), ("c", DATAFRAME, UNBOUNDED),
                              ("e", DATAFRAME, UNBOUNDED)):
        value = infer_last(code + name + "\n")
        assert (value.kind, value.bound) == (kind, bound), name


def test_schema_flags_and_results():
    from linter.semantic import PANDAS, ROWS

    value = infer_last(PRELUDE + "spark.read.schema('id BIGINT, name STRING').csv('x').filter('id > 1')\n")
    assert value.detail == (("id", "int"), ("name", "str"))
    value = infer_last(PRELUDE + "spark.table('t').select('b', F.col('a'), F.col('c').cast('int').alias('d'))\n")
    assert value.detail.names() == ["b", "a", "d"] and value.detail.type_of("d") == "int"
    value = infer_last(PRELUDE + "spark.createDataFrame([], 'a int, b double').withColumnRenamed('a', 'x').drop('b')\n")
    assert value.detail == (("x", "int"),)
    assert infer_last(PRELUDE + "spark.table('t').join(spark.table('u'), 'id').filter('x')\n").flags == {"shuffle"}
    assert infer_last(PRELUDE + "spark.table('t').groupBy('k').count().cache()\n").flags == {"shuffle", "cached"}
    assert infer_last(PRELUDE + "spark.table('t').toPandas()\n").kind == PANDAS
    assert infer_last(PRELUDE + "spark.table('t').collect()\n").kind == ROWS


def test_scopes_shadow():
    code = PRELUDE + "df = spark.table('t')\ndef f(df):\n    return df\nclass A:\n    df = 1\nf\n"
    assert infer_last(code).kind == "function"
    module_level = infer_last(PRELUDE + "df = spark.table('t')\n[df for df in range(3)]\ndf\n")
    assert module_level.kind == DATAFRAME


def test_a_star_import_of_functions_binds_only_what_it_exports():
    # `from pyspark.sql.functions import *` makes `col` a function, not every unbound name
    assert infer_last("from pyspark.sql.functions import *\ncol").kind == "import"
    assert infer_last("from pyspark.sql.functions import *\norders_df") is None


def _bound_in(code: str, function: str, name: str):
    """The bound of `name` as the walk sees it at the last statement of `function` (a module-level def)."""
    module = cst.parse_module(code)
    sem = Semantic()
    visit, leave = sem.hooks()
    seen = {}

    def probe(node):
        if isinstance(node, cst.FunctionDef) and node.name.value == function:
            value = sem.infer(cst.Name(name))
            seen["bound"] = value.bound if value is not None else "unknown"

    leave_probe = dict(leave)
    original = leave_probe[cst.FunctionDef]
    leave_probe[cst.FunctionDef] = lambda n: (probe(n), original(n))
    walk(module, {k: [v] for k, v in visit.items()}, {k: [v] for k, v in leave_probe.items()}, [])
    return seen["bound"]


CALLER_BOUNDED = PRELUDE + """
def report(filtered: DataFrame, partial: bool):
    if partial:
        filtered = filtered.limit(20)
    return rows(filtered=filtered)


def rows(filtered: DataFrame):
    return filtered
"""


def test_a_parameter_knows_the_bound_every_earlier_call_passes():
    # bounded on one branch of the only caller: the other passes every row
    assert _bound_in(CALLER_BOUNDED, "rows", "filtered") == UNBOUNDED
    both = CALLER_BOUNDED.replace(
        "        filtered = filtered.limit(20)\n",
        "        filtered = filtered.limit(20)\n    else:\n        filtered = filtered.limit(5)\n")
    assert _bound_in(both, "rows", "filtered") == 20


def test_a_parameter_stays_unbounded_when_one_caller_passes_everything_or_a_call_comes_later():
    two_callers = CALLER_BOUNDED.replace("def rows(", "def everything(df: DataFrame):\n    return rows(df)\n\n\n"
                                         "def rows(")
    assert _bound_in(two_callers, "rows", "filtered") == UNBOUNDED
    later = CALLER_BOUNDED + "\n\nprint(rows(spark.table('t')))\n"  # met after the body: it may pass anything
    assert _bound_in(later, "rows", "filtered") == UNBOUNDED
    rebound = CALLER_BOUNDED.replace("    return filtered\n", "    filtered = spark.table('t')\n    return filtered\n")
    assert _bound_in(rebound, "rows", "filtered") == UNBOUNDED
