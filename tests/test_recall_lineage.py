"""Issue 14, fifth round: lineage through the functions a loop or an action calls, and what Spark really runs.

- SPK104 on `.rdd` of a SQL command's rows per iteration rests on a fact of Spark's: a command runs when
  `spark.sql` is called and its DataFrame is collected without a job, while its `.rdd` starts one. The Spark test
  runs the same loop both ways on a local session and counts the jobs, then checks the same code statically.
- The reading of a called function's body (checks/python/_callees.py): frames made from a parameter inside it,
  a parameter rebound from something else, groupings whose `count()` is no action, the instance's `self.x`.
"""
import importlib.util
import textwrap

import libcst as cst

from checks.python._callees import _summary
from linter.config import Resolver
from linter.engine import check_source

_LOOP = textwrap.dedent("""\
    from pyspark.sql import SparkSession

    def databases_by_rdd(spark: SparkSession, patterns):
        return [[r[0] for r in spark.sql(f"SHOW DATABASES LIKE '{p}'").rdd.collect()] for p in patterns]

    def databases_by_collect(spark: SparkSession, patterns):
        return [[r[0] for r in spark.sql(f"SHOW DATABASES LIKE '{p}'").collect()] for p in patterns]
    """)


def _findings(tmp_path, source: str, code: str) -> list:
    settings = Resolver({"select": [code]}, cwd=str(tmp_path)).for_path(str(tmp_path / "job.py"))
    return [f for f in check_source(str(tmp_path / "job.py"), source.encode(), settings) if f.code == code]


def test_rdd_of_a_command_runs_a_job_per_iteration_and_only_it_is_reported(spark, tmp_path):
    path = tmp_path / "job.py"
    path.write_text(_LOOP, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("recall_lineage_job", path)
    job = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(job)
    patterns = ["default", "defaul*"]
    tracker = spark.sparkContext.statusTracker()

    def jobs(function) -> tuple:
        group = f"recall-lineage-{function.__name__}"
        spark.sparkContext.setJobGroup(group, group)
        try:
            result = function(spark, patterns)
        finally:
            spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
        return result, len(tracker.getJobIdsForGroup(group))

    by_rdd, rdd_jobs = jobs(job.databases_by_rdd)
    by_collect, collect_jobs = jobs(job.databases_by_collect)
    assert by_rdd == by_collect == [["default"], ["default"]]
    assert rdd_jobs == len(patterns)  # one job per iteration, for rows the driver already had
    assert collect_jobs == 0

    found = _findings(tmp_path, _LOOP, "SPK104")
    assert [f.location.row for f in found] == [4], found
    assert "`SHOW DATABASES`" in found[0].message and ".rdd" in found[0].message


def _summary_of(source: str):
    function = cst.parse_module(textwrap.dedent(source)).body[0]
    summary = _summary(function)
    if not summary:
        return [], []
    _, on_params, on_free = summary
    return sorted((p, m) for p, m, _ in on_params), sorted((n, m) for n, m, _ in on_free)


def test_frames_made_from_a_parameter_carry_its_actions():
    on_params, _ = _summary_of("""\
        def summarise(df, rule_type):
            exploded = df.select(F.explode(rule_type).alias("r"))
            per_rule = exploded.groupBy("r").count()
            per_rule = per_rule.orderBy("count")
            return per_rule.collect()
        """)
    assert on_params == [("df", "collect")]


def test_a_grouping_count_is_a_transformation():
    assert _summary_of("def by_key(df):\n    return df.groupBy('k').count()\n") == ([], [])
    on_params, _ = _summary_of("def n(df):\n    return df.groupBy('k').count().count()\n")
    assert on_params == [("df", "count")]


def test_a_parameter_rebound_from_something_else_is_not_followed():
    assert _summary_of("""\
        def size(df, name):
            if name:
                df = spark.table(name)
            return df.count()
        """) == ([], [])
    # a local made from the parameter on one path and from elsewhere on another: not the caller's frame
    on_params, _ = _summary_of("""\
        def pick(df, other):
            part = df.filter("x > 1")
            if other is not None:
                part = other
            return part.count()
        """)
    assert on_params == []


def test_tuple_targets_loops_and_nested_functions_are_the_bodys_own():
    on_params, _ = _summary_of("""\
        def f(df, frames):
            a, b = df.randomSplit([0.5, 0.5])
            for part in frames:
                part.count()
            def inner():
                return df.count()
            return a.count()
        """)
    assert on_params == []


def test_a_writer_kept_in_a_variable_writes_the_parameter():
    on_params, _ = _summary_of("""\
        def save(df, table, stats=False):
            if not stats:
                df = df.withColumn("run", F.lit(1))
            writer = df.write
            if table.endswith("_delta"):
                writer = writer.format("delta")
            writer.mode("append").saveAsTable(table)
        """)
    assert on_params == [("df", "write")]


def test_cycles_between_locals_prove_nothing():
    on_params, _ = _summary_of("""\
        def f(df):
            a = df
            a = b.filter("x")
            b = a.filter("y")
            return b.count()
        """)
    assert on_params == []


def test_the_instances_frames_unless_the_body_assigns_them():
    _, on_free = _summary_of("def publish(self):\n    self.enriched.groupBy('c').count().show()\n")
    assert on_free == [("self.enriched", "show")]
    _, on_free = _summary_of("def publish(self):\n    self.enriched = self.enriched.cache()\n"
                             "    self.enriched.count()\n")
    assert on_free == []


def test_actions_in_comprehensions_and_generators(tmp_path):
    source = textwrap.dedent("""\
        from pyspark.sql import functions as F
        events = spark.table("events")
        days = ["2024-01-01", "2024-01-02"]
        total = sum(events.filter(F.col("day") == d).count() for d in days)
        rows = [r for d in days for r in events.filter(F.col("day") == d).collect()]
        kept = [d for d in days if events.filter(F.col("day") == d).isEmpty()]
        once = [r.day for r in events.select("day").distinct().collect()]
        each = [spark.table(t).count() for t in ["a", "b"]]
        """)
    found = _findings(tmp_path, source, "SPK104")
    assert [f.location.row for f in found] == [4, 5, 6], found
    assert "generator" in found[0].message and "list comprehension" in found[1].message
