"""Every fix, run on Spark: the original and the fixed snippet over the same small data.

Safe fixes of code that works keep the result exactly (rows, schema, nulls).
Safe fixes of code that is broken today (it raises, or keeps no rows) are
compared with the intended result, written out by hand. Unsafe fixes are run
on the input where they differ, and the difference asserted is the one their
manual documents.
"""
import pytest

from linter.config import Resolver
from linter.fixer import fix_source

pytestmark = pytest.mark.spark

SETUP = """\
from pyspark.sql import functions as F
people = spark.createDataFrame(
    [(1, "ann", "a@x.io", 30, True), (2, "bob", None, 41, False), (3, "cy", None, None, True), (4, "di", "d@x.io", 25, None)],
    "id INT, name STRING, email STRING, age INT, active BOOLEAN",
)
empty = people.filter("age > 100")
"""


def fixed(tmp_path, code, unsafe=False, target="3.5", only=None, preview=False):
    overrides = {"target-spark": target, **({"fixable": only} if only else {}), **({"preview": True} if preview else {})}
    settings = Resolver(overrides, cwd=str(tmp_path)).for_path(str(tmp_path / "job.py"))
    result = fix_source(str(tmp_path / "job.py"), code.encode(), settings, unsafe=unsafe)
    assert result.fixed is not None, "no fix was applied"
    return result.fixed.decode()


def run(spark, code):
    namespace = {"spark": spark}
    exec(compile(code, "<snippet>", "exec"), namespace)
    return namespace


def rows(df):
    return df.schema.simpleString(), sorted(map(tuple, df.collect()), key=repr)


def test_count_emptiness_keeps_the_answer(spark, tmp_path):
    code = SETUP + "a = people.count() > 0\nb = empty.count() == 0\nc = not people.filter('age > 100').count()\n"
    new = fixed(tmp_path, code)
    assert "isEmpty()" in new and ".count()" not in new.split("empty = ")[1]
    before, after = run(spark, code), run(spark, new)
    assert (before["a"], before["b"], before["c"]) == (after["a"], after["b"], after["c"]) == (True, True, True)


def test_count_emptiness_fetch_of_one_row_keeps_the_answer(spark, tmp_path):
    code = SETUP + "a = len(people.take(3)) > 0\nb = len(empty.head(10)) == 0\nc = not people.tail(2)\n"
    new = fixed(tmp_path, code, target="3.2")  # no `isEmpty()` involved: the fix holds on any Spark
    assert "take(1)" in new and "head(1)" in new and "tail(1)" in new
    before, after = run(spark, code), run(spark, new)
    assert (before["a"], before["b"], before["c"]) == (after["a"], after["b"], after["c"]) == (True, True, False)


def test_inner_join_on_deduplicated_keys_as_left_semi_keeps_rows_and_schema(spark, tmp_path):
    code = SETUP + ("orders = spark.createDataFrame([(1, 10), (1, 11), (3, 12), (9, 13)], 'id INT, amount INT')\n"
                    "ids = people.filter('active').select('id').distinct()\nkept = orders.join(ids, 'id')\n")
    new = fixed(tmp_path, code)
    assert "how='left_semi'" in new
    before, after = run(spark, code)["kept"], run(spark, new)["kept"]
    assert rows(before) == rows(after) and before.columns == after.columns == ["id", "amount"]
    assert sorted(r.amount for r in after.collect()) == [10, 11, 12]


def test_none_comparison_fix_gives_the_intended_rows(spark, tmp_path):
    code = SETUP + "missing = people.filter(F.col('email') == None)\nknown = people.filter(people.email != None)\n"
    new = fixed(tmp_path, code, unsafe=True)
    before, after = run(spark, code), run(spark, new)
    assert before["missing"].count() == 0 and before["known"].count() == 0  # today: never true
    assert rows(after["missing"]) == rows(run(spark, SETUP)["people"].where("email IS NULL"))
    assert rows(after["known"]) == rows(run(spark, SETUP)["people"].where("email IS NOT NULL"))


def test_boolean_operator_fix_gives_the_intended_rows(spark, tmp_path):
    code = SETUP + (
        "a = people.filter(F.col('age') > 26 and F.col('active'))\n"
        "b = people.filter(F.col('email').isNull() or not F.col('active'))\n"
        "c = people.filter(26 < F.col('age') < 35)\n"
    )
    new = fixed(tmp_path, code)
    with pytest.raises(ValueError, match="Cannot convert column into bool"):
        run(spark, code)
    after, base = run(spark, new), run(spark, SETUP)["people"]
    assert rows(after["a"]) == rows(base.where("age > 26 AND active"))
    assert rows(after["b"]) == rows(base.where("email IS NULL OR NOT active"))
    assert rows(after["c"]) == rows(base.where("age > 26 AND age < 35"))


def test_precedence_fix_gives_the_intended_rows(spark, tmp_path):
    code = SETUP + "a = people.filter(F.col('age') > 26 & F.col('id') < 3)\n"
    new = fixed(tmp_path, code, unsafe=True)  # the fix is unsafe: it changes what the job computes
    with pytest.raises(Exception):  # `26 & F.col('id')` then a chained comparison
        run(spark, code).get("a").collect()
    assert rows(run(spark, new)["a"]) == rows(run(spark, SETUP)["people"].where("age > 26 AND id < 3"))


def test_collect_first_row_fix_differs_only_when_empty(spark, tmp_path):
    # a frame whose rows nothing bounds (SPK105 is quiet on rows made on the driver): a function's DataFrame
    first = "from pyspark.sql import DataFrame\ndef first_of(df: DataFrame):\n    return df.orderBy('id').collect()[0]\n"
    code = SETUP + first + "row = first_of(people)\n"
    new = fixed(tmp_path, code, unsafe=True)
    assert "df.orderBy('id').first()" in new
    assert run(spark, code)["row"] == run(spark, new)["row"]
    on_empty = SETUP + first + "row = first_of(empty)\n"
    with pytest.raises(IndexError):
        run(spark, on_empty)
    assert run(spark, fixed(tmp_path, on_empty, unsafe=True))["row"] is None  # the documented difference


def test_union_by_name_fix_puts_values_in_their_columns(spark, tmp_path):
    code = SETUP + "both = people.select('id', 'age').union(people.select('age', 'id'))\n"
    new = fixed(tmp_path, code, unsafe=True)
    before, after = run(spark, code)["both"], run(spark, new)["both"]
    # by position, ages silently landed in `id`; by name, every id is an id (the documented change)
    assert {r.id for r in before.collect()} == {1, 2, 3, 4, 30, 41, 25, None}
    assert {r.id for r in after.collect()} == {1, 2, 3, 4} and after.count() == 8
    assert after.schema.simpleString() == "struct<id:int,age:int>"


def test_no_fix_offered_below_the_target_that_supports_it(tmp_path):
    code = SETUP + "a = people.count() > 0\n"
    settings = Resolver({"target-spark": "3.2"}, cwd=str(tmp_path)).for_path(str(tmp_path / "job.py"))
    assert fix_source(str(tmp_path / "job.py"), code.encode(), settings, unsafe=True).fixed is None


def test_udf_return_type_fixes_turn_text_and_nulls_into_numbers(spark, tmp_path):
    code = SETUP + (
        "from pyspark.sql.functions import udf\nfrom pyspark.sql.types import DoubleType\n"
        "words = udf(lambda s: len(s.split()))\n"
        "chars = udf(lambda s: len(s), DoubleType())\n"
        "out = people.select('id', words('name').alias('w'), chars('name').alias('c'))\n"
    )
    new = fixed(tmp_path, code, unsafe=True, only=["SPK202", "SPK207"])
    assert 'udf(lambda s: len(s.split()), "bigint")' in new and 'udf(lambda s: len(s), "bigint")' in new
    key = "spark.sql.execution.pythonUDF.arrow.enabled"
    # Pickled UDFs (the default without PyArrow): a value of the wrong type becomes null.
    spark.conf.set(key, "false")
    try:
        before, after = run(spark, code)["out"], run(spark, new)["out"]
        assert before.schema.simpleString() == "struct<id:int,w:string,c:double>"
        assert after.schema.simpleString() == "struct<id:int,w:bigint,c:bigint>"
        b, a = sorted(before.collect()), sorted(after.collect())
        assert [r.w for r in b] == ["1", "1", "1", "1"] and [r.w for r in a] == [1, 1, 1, 1]  # text became numbers
        assert [r.c for r in b] == [None] * 4 and [r.c for r in a] == [3, 3, 2, 2]  # nulls became values
        # Arrow-optimized UDFs (the default on Spark 4 with PyArrow installed) coerce int to double instead,
        # as the rule's manual says; the fixed declaration gives the body's own type either way.
        spark.conf.set(key, "true")
        b, a = sorted(run(spark, code)["out"].collect()), sorted(run(spark, new)["out"].collect())
        assert [r.c for r in b] == [3.0, 3.0, 2.0, 2.0] and [r.c for r in a] == [3, 3, 2, 2]
    finally:
        spark.conf.unset(key)


def test_hoisting_self_lets_the_job_run(spark, tmp_path):
    code = SETUP + (
        "from pyspark.sql import DataFrame\n"
        "class Scorer:\n"
        "    def __init__(self, spark, factor):\n"
        "        self.spark = spark\n"
        "        self.factor = factor\n"
        "    def score(self, df: DataFrame):\n"
        "        return df.rdd.map(lambda r: (r.id, r.id * self.factor)).collect()\n"
        "out = None\n"
        "def go():\n"
        "    return Scorer(spark, 10).score(people)\n"
    )
    new = fixed(tmp_path, code, unsafe=True)
    assert "        factor = self.factor\n        return df.rdd.map(lambda r: (r.id, r.id * factor))" in new
    with pytest.raises(Exception, match="SparkContext|SparkSession|pickle|serializ"):
        run(spark, code)["go"]()  # the lambda drags `self`, and with it the SparkSession
    assert sorted(run(spark, new)["go"]()) == [(1, 10), (2, 20), (3, 30), (4, 40)]


def test_withcolumns_fixes_keep_rows_and_schema(spark, tmp_path):
    chain = "".join(f".withColumn('c{i}', F.col('age') * {i})" for i in range(12))
    code = SETUP + (
        f"a = people{chain}\n"
        "b = people\n"
        "for c in [n for n in people.columns if n in ('id', 'age')]:\n"
        "    b = b.withColumn(c, F.col(c).cast('double'))\n"
    )
    new = fixed(tmp_path, code, unsafe=True, preview=True)  # the chain case of SPK401 is preview
    assert new.count("withColumns(") == 2 and "for c in" in new and "\nfor c" not in new
    before, after = run(spark, code), run(spark, new)
    assert rows(before["a"]) == rows(after["a"])
    assert rows(before["b"]) == rows(after["b"])
    assert before["a"].columns == after["a"].columns


def test_udfs_replaced_by_builtins_give_the_same_rows(spark, tmp_path):
    code = SETUP + (
        "from pyspark.sql.functions import udf\n"
        "@udf('string')\n"
        "def shout(s):\n"
        "    if s is None:\n"
        "        return None\n"
        "    return s.strip().upper() + '!'\n"
        "domain = udf(lambda e: e[:1] if e is not None else None, 'string')\n"
        "band = udf(lambda a: ('old' if a > 35 else 'young') if a is not None else None, 'string')\n"
        "size = udf(lambda s: len(s) if s is not None else None, 'int')\n"
        "vip = udf(lambda n: n in {'ann', 'cy'}, 'boolean')\n"
        "out = people.select('id', shout('name').alias('s'), domain('email').alias('d'), band(F.col('age')).alias('b'),\n"
        "                    size('name').alias('n'), vip('name').alias('v'))\n"
    )
    new = fixed(tmp_path, code, unsafe=True)
    assert "udf(" not in new.split("people = ")[1].split("out =")[0] and "@udf" not in new
    before, after = run(spark, code)["out"], run(spark, new)["out"]
    assert sorted(map(tuple, before.collect()), key=repr) == sorted(map(tuple, after.collect()), key=repr)
    # Types follow the built-ins: documented, as the declared UDF types may differ (int vs bigint ...)
    assert [f.name for f in before.schema] == [f.name for f in after.schema]


def test_lit_none_cast_keeps_nulls_and_the_declared_type(spark, tmp_path):
    code = SETUP + "out = people.withColumn('age', F.lit(None))\n"
    new = fixed(tmp_path, code, unsafe=True)  # the fix is unsafe: it changes what the job computes
    assert "F.lit(None).cast('INT')" in new
    before, after = run(spark, code)["out"], run(spark, new)["out"]
    assert dict(before.dtypes)["age"] == "void" and dict(after.dtypes)["age"] == "int"
    assert [r.age for r in before.collect()] == [r.age for r in after.collect()] == [None] * 4


def test_sentinel_fix_writes_nulls_when_asked(spark, tmp_path):
    (tmp_path / "sparkcheck.toml").write_text('[sentinel-null-value]\nfix-to-null = true\n')
    code = SETUP + "out = people.withColumn('contact', F.when(F.col('email').isNull(), 'N/A').otherwise(F.col('email')))\n"
    settings = Resolver({}, cwd=str(tmp_path)).for_path(str(tmp_path / "job.py"))
    new = fix_source(str(tmp_path / "job.py"), code.encode(), settings, unsafe=True).fixed.decode()
    before, after = run(spark, code)["out"], run(spark, new)["out"]
    # the documented change: placeholders become real nulls, nothing else moves
    assert sorted(r.contact or "" for r in before.collect()) == ["N/A", "N/A", "a@x.io", "d@x.io"]
    assert sorted(r.contact or "" for r in after.collect()) == ["", "", "a@x.io", "d@x.io"]
    assert after.filter(after["contact"].isNull()).count() == 2


def _fixed_sql(tmp_path, sql):
    settings = Resolver({}, cwd=str(tmp_path)).for_path(str(tmp_path / "q.sql"))
    result = fix_source(str(tmp_path / "q.sql"), sql.encode(), settings, unsafe=True)
    assert result.fixed is not None
    return result.fixed.decode()


def test_sql_explicit_cast_keeps_the_values(spark, tmp_path):
    run(spark, SETUP)["people"].createOrReplaceTempView("people_v")
    sql = "SELECT id, age * '100' AS x FROM people_v"
    new = _fixed_sql(tmp_path, sql + ";\n").rstrip().rstrip(";")
    assert "CAST('100' AS INT)" in new
    before = {r.id: r.x for r in spark.sql(sql).collect()}
    after = {r.id: r.x for r in spark.sql(new).collect()}
    assert before == after == {1: 3000, 2: 4100, 3: None, 4: 2500}


def test_sql_array_sort_makes_collect_list_order_deterministic(spark, tmp_path):
    run(spark, SETUP)["people"].createOrReplaceTempView("people_v")
    sql = "SELECT active, array_join(collect_list(name), ',') AS names FROM people_v GROUP BY active"
    new = _fixed_sql(tmp_path, sql + ";\n").rstrip().rstrip(";")
    assert "array_sort(collect_list(name))" in new
    after = {r.active: r.names for r in spark.sql(new).collect()}
    assert after == {True: "ann,cy", False: "bob", None: "di"}  # sorted, whatever the shuffle did
    before = {r.active: sorted(r.names.split(",")) for r in spark.sql(sql).collect()}
    assert before == {k: v.split(",") for k, v in after.items()}  # same values; only the order is now fixed
