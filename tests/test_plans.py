"""Physical plans from a local SparkSession over TPC-H data, in several explain modes."""
import contextlib
import io
import os

import pytest

from conftest import SHARED_DATA, write
from linter.config import Resolver
from linter.runtime.plans import check_plan_text
from linter.sources.plan import parse_plans

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def tpch(spark, tmp_path_factory):
    base = os.path.join(SHARED_DATA, "tpch", "data")
    out = tmp_path_factory.mktemp("tpch")
    tables = {}
    for name in ("orders", "customer", "nation"):
        df = spark.read.option("header", True).option("sep", "|").option("inferSchema", True).csv(
            os.path.join(base, f"{name}.csv.gz"))
        df.write.mode("overwrite").parquet(str(out / name))
        tables[name] = spark.read.parquet(str(out / name))
    return tables


def explain(df, mode=None) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        df.explain(mode=mode) if mode else df.explain()
    return buffer.getvalue()


def codes(text, tmp_path):
    settings = Resolver({}, cwd=str(tmp_path)).for_path(str(tmp_path / "plan.txt"))
    return sorted(f.code for f in check_plan_text(str(tmp_path / "plan.txt"), text, settings))


def test_udf_and_unpushed_filter_in_every_mode(tpch, tmp_path):
    from pyspark.sql import functions as F

    orders = tpch["orders"]
    up = F.udf(lambda s: s.upper(), "string")
    q = orders.filter(F.col("o_orderpriority") == "1-URGENT").filter(up("o_orderstatus") == "F") \
        .filter(F.upper("o_clerk") == "CLERK#000000001").groupBy("o_custkey").count()
    for mode in (None, "extended", "formatted"):
        text = explain(q, mode)
        plans = parse_plans(text)
        assert len(plans) == 1, mode
        found = codes(text, tmp_path)
        assert "SPK601" in found, mode  # BatchEvalPython
        assert found.count("SPK603") >= 1, (mode, found)  # upper(o_clerk) and the UDF's result are not pushed


def test_cartesian_product_and_good_plans(spark, tpch, tmp_path):
    orders, customer = tpch["orders"], tpch["customer"]
    cross = orders.crossJoin(customer.limit(2))
    assert "SPK602" in codes(explain(cross), tmp_path)
    joined = orders.join(customer, orders.o_custkey == customer.c_custkey).where("o_totalprice > 1000")
    assert codes(explain(joined), tmp_path) == []  # an equi-join with pushed filters: nothing to say


def test_plan_command_reads_files_and_stdin(tpch, tmp_path, run):
    from pyspark.sql import functions as F

    up = F.udf(lambda s: s.upper(), "string")
    text = explain(tpch["orders"].select(up("o_orderstatus")))
    path = write(tmp_path / "plans" / "job.txt", "some log line\n" + text + "more log\n" + text)
    r = run("plan", tmp_path / "plans", "--output-format", "concise")
    lines = [l for l in r.out.splitlines() if "SPK601" in l]
    assert r.code == 1 and len(lines) == 2  # two plans pasted in one log, both read
    assert lines[0].startswith(f"{path}:4:4: SPK601")  # the operator's own line and column in the pasted log
    r = run("plan", "-", "--output-format", "json", stdin=text)
    assert r.code == 1 and '"code": "SPK601"' in r.out
    assert run("plan", tmp_path / "missing.txt").code == 2


def test_codegen_mode_reads_its_subtrees_only(spark, tpch, tmp_path):
    from pyspark.sql import functions as F

    query = tpch["orders"].filter(F.upper("o_clerk") == "CLERK#000000001").groupBy("o_custkey").count()
    spark.conf.set("spark.sql.adaptive.enabled", "false")  # AQE plans have no codegen subtrees before they run
    try:
        text = explain(query, "codegen")
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")
    assert "Generated code:" in text and "WholeStageCodegen subtrees" in text
    plans = parse_plans(text)
    assert plans and all(p.root.codegen is not None for p in plans)  # each subtree starts at a `*(n)` operator
    assert {n.name for p in plans for n in p.root.walk()} >= {"HashAggregate", "Filter"}
    assert "SPK603" in codes(text, tmp_path)  # upper(o_clerk) is not pushed, read from the subtree
