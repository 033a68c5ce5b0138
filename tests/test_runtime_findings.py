"""Runtime findings a user can count on: one finding per problem with all its places, grouped nodes, and
shares that add up. Read from the kept event logs (../shared/data/eventlogs, fixtures/logs); no Spark runs."""
import json
import os
import re

import pytest

from conftest import ROOT, SHARED_DATA, write

LOGS = os.path.join(SHARED_DATA, "eventlogs")
SHARED_LOGS = sorted(os.listdir(LOGS))
BAD_LOG = os.path.join(ROOT, "fixtures", "logs", "diagnostics_bad")  # its call sites land on fixtures/runtime
SCHEMA = os.path.join(SHARED_DATA, "sarif-schema-2.1.0.json")
PERCENT = re.compile(r"(\d+(?:[.,]\d+)*)\s?%")
# What a finding's message adds to its problem's text: a group's count and ids, the node it was found on.
GROUP_HEAD = re.compile(r"\d+ (?:\w+ )?(?:nodes(?: \(ids [\d, .]+\))?|times): ")
ORIGIN = re.compile(r" \(plan node `[^`]*`[^)]*\)$")


def _diagnose(run, path, *args, cwd=None, fmt="json"):
    r = run("diagnose", path, "--select", "ALL", "--output-format", fmt, *args, cwd=cwd)
    assert r.code in (0, 1), r.err
    return r


def _problem(finding) -> tuple:
    """The problem a finding is about, whatever place it is shown at and however many nodes it counts."""
    return finding["code"], ORIGIN.sub("", GROUP_HEAD.sub("", finding["message"]))


def _shares_over_100(text: str) -> list:
    return [m.group(0) for m in PERCENT.finditer(text) if float(m.group(1).replace(",", "")) > 100]


@pytest.mark.parametrize("name", SHARED_LOGS)
def test_every_shared_log_has_one_finding_per_problem_and_no_share_over_100(name, tmp_path, run):
    path = os.path.join(LOGS, name)
    report = json.loads(_diagnose(run, path, cwd=tmp_path).out)
    findings = report["findings"]
    assert len(findings) == len({_problem(f) for f in findings}), [f["message"] for f in findings]
    assert not [f["message"] for f in findings if _shares_over_100(f["message"])]
    assert all(0 <= s["gc_share"] <= 1 for app in report["applications"] for s in app["worst_stages"])
    text = _diagnose(run, path, cwd=tmp_path, fmt="full").out  # the stage table's cells, the messages
    assert _shares_over_100(text) == [], text
    assert f"Found {len(findings)} error" in text or (not findings and "All checks passed!" in text)
    # what Spark inserts for itself (runtime filters, pruning, AQE's reads, Delta's log) is not the user's mistake
    spark_own = ("bloom_filter_agg", "might_contain", "dynamicpruning", "AQEShuffleRead", "_delta_log")
    assert not [f["message"] for f in findings if any(word in f["message"] for word in spark_own)]


def test_a_run_whose_call_sites_are_here_is_one_finding_per_problem_at_the_users_line(run):
    """The bad job's kept log: every problem once, at the job's line, with its place in the log related."""
    report = json.loads(_diagnose(run, BAD_LOG, cwd=ROOT).out)
    findings = report["findings"]
    # the log names the job where it ran: this checkout's copy, or the one at that path if it exists there
    job = os.path.join("fixtures", "runtime", "diagnostics_job.py")
    assert findings and all(f["filename"].endswith(job) for f in findings)
    assert len(findings) == len({_problem(f) for f in findings})
    log_places = [r for f in findings for r in f["related"]]
    assert len(log_places) == len(findings) and all(r["filename"].startswith(BAD_LOG) for r in log_places)
    plan = [f for f in findings if f["code"].startswith("SPK6")]
    assert plan and all(f["nodes"] and f["related"][0]["message"].startswith("plan node `") for f in plan)
    full = _diagnose(run, BAD_LOG, cwd=ROOT, fmt="full").out
    assert full.count("  = also: fixtures/logs/diagnostics_bad:") == len(findings)
    assert f"Found {len(findings)} errors." in full
    github = _diagnose(run, BAD_LOG, cwd=ROOT, fmt="github").out
    annotations = [line for line in github.splitlines() if line.startswith("::")]
    assert len(annotations) == len(findings)
    assert all("%0Aalso: fixtures/logs/diagnostics_bad:" in line for line in annotations)


def test_sarif_with_related_locations_validates_against_the_schema(run):
    import jsonschema

    doc = json.loads(_diagnose(run, BAD_LOG, cwd=ROOT, fmt="sarif").out)
    with open(SCHEMA, encoding="utf-8") as f:
        jsonschema.validate(doc, json.load(f))
    results = doc["runs"][0]["results"]
    assert results and all(len(r["relatedLocations"]) == 1 for r in results)
    for result in results:
        (related,) = result["relatedLocations"]
        assert related["id"] == 1
        assert related["physicalLocation"]["artifactLocation"]["uri"] == "fixtures/logs/diagnostics_bad"
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == \
            "fixtures/runtime/diagnostics_job.py"


def _node(name, *children):
    return {"nodeName": name, "simpleString": name, "children": list(children), "metrics": []}


def _range():
    return _node("Range (0, 10, step=1, splits=2)")


def test_nodes_of_one_execution_with_the_same_cause_are_one_finding(tmp_path, run):
    """Five CartesianProducts in one SQL execution, one in another: two problems, each naming its nodes."""
    five = _range()
    for _ in range(5):
        five = _node("CartesianProduct", five, _range())
    events = [{"Event": "SparkListenerLogStart", "Spark Version": "3.5.1"}]
    for execution, plan in enumerate((five, _node("CartesianProduct", _range(), _range()))):
        events.append({"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart",
                       "executionId": execution, "description": f"collect at <stdin>:{execution + 3}",
                       "details": "", "physicalPlanDescription": "", "sparkPlanInfo": plan, "time": 1})
    log = write(tmp_path / "app-5", "".join(json.dumps(e) + "\n" for e in events))
    r = run("plan", log, "--select", "SPK602", "--output-format", "json", cwd=tmp_path)
    first, second = json.loads(r.out)
    assert r.code == 1 and first["message"].startswith("SQL execution 0 (collect at <stdin>:3): 5 CartesianProduct "
                                                       "nodes (ids 1, 2, 3, ...): `CartesianProduct` pairs")
    assert first["nodes"] == [1, 2, 3, 4, 5] and first["related"] == []  # all five at the event's line
    assert second["nodes"] == [1] and "nodes" not in second["message"]
    stats = run("plan", log, "--select", "SPK602", "--output-format", "concise", cwd=tmp_path)
    assert stats.out.rstrip().endswith("Found 2 errors.")


def test_grouped_nodes_on_their_own_lines_are_related_locations(tmp_path, run):
    text = ("== Physical Plan ==\nCartesianProduct\n:- CartesianProduct\n:  :- *(1) Range (0, 10, step=1, splits=2)\n"
            ":  +- *(2) Range (0, 10, step=1, splits=2)\n+- *(3) Range (0, 10, step=1, splits=2)\n")
    (finding,) = json.loads(run("plan", "-", "--output-format", "json", stdin=text).out)
    assert finding["location"]["row"] == 2 and finding["nodes"] == [1, 2]
    assert [(r["location"]["row"], r["message"]) for r in finding["related"]] == \
        [(3, "plan node `CartesianProduct` (id 2)")]


def test_gc_time_above_run_time_is_capped_and_said(tmp_path):
    """GPU runs (spark-rapids-tools' logs) and concurrent collectors give tasks more GC time than run time.

    Two real logs show it: aqeshuffle_eventlog.zstd (stage 8.0, one task) and the bad job's kept log (stage
    5.0, 22 tiny tasks). To see what a GPU run's `GC 94638%` becomes, this test also reads the 2021 log and
    raises, in memory only, every task's GC time of its stage 2.0 to 946 times the task's run time."""
    from linter.config import Resolver
    from linter.report.summary import render_text, summarize
    from linter.runtime.runs import check_application
    from linter.sources.app import read_application

    app = read_application(os.path.join(LOGS, "aqeshuffle_eventlog.zstd"))
    (stage,) = [s for s in summarize(app)["worst_stages"] if s["stage"] == "8.0"]
    assert stage["gc_share"] == 1.0 and stage["gc_inconsistent_tasks"] == 1
    table = render_text(summarize(app))
    assert re.search(r"^  8\.0 .* 100%\* ", table, re.MULTILINE) and "* GC: the log gives 1 task of stage 8.0 more GC" in table

    app = read_application(os.path.join(LOGS, "eventlog-2021-06-15--15-00.gz"))
    (gpu_like,) = [s for s in app.stages.values() if (s.id, s.attempt) == (2, 0)]
    figures = gpu_like.figures
    for i, run_time in enumerate(figures["run_time"]):
        figures["gc_time"][i] = run_time * 946
    settings = Resolver({"select": ["SPK702"]}).for_path(str(tmp_path / "app.log"))
    messages = [f.message for f in check_application(app, settings)]
    stage_message = next(m for m in messages if m.startswith("stage 2.0"))
    assert stage_message.startswith("stage 2.0 (count at <console>:28): 100% of ")
    assert f"the log gives {gpu_like.tasks} tasks more GC time than run time" in stage_message
    assert all(not _shares_over_100(m) for m in messages), messages
    assert not _shares_over_100(render_text(summarize(app)))


@pytest.mark.parametrize("name", ["dataset_eventlog", "eventlog_minimal_events"])
def test_idle_cores_are_not_judged_on_a_local_mode_run(name, tmp_path, run):
    """Shells left open on a laptop (local[*], 8 cores, 0% busy for 6 and 3 minutes): not a cluster's waste.

    The same figures on an executor of a cluster (the driver's executor renamed, in memory) are reported."""
    from linter.config import Resolver
    from linter.runtime.runs import check_application
    from linter.sources.app import read_application

    report = json.loads(run("diagnose", os.path.join(LOGS, name), "--select", "SPK706", "--output-format",
                            "json", cwd=tmp_path).out)
    assert report["findings"] == [] and report["applications"][0]["duration_ms"] > 60_000
    app = read_application(os.path.join(LOGS, name))
    executor = app.executors.pop("driver")
    executor.id = "1"
    app.executors["1"] = executor
    settings = Resolver({"select": ["SPK706"]}).for_path(str(tmp_path / "app.log"))
    (finding,) = check_application(app, settings)
    assert finding.message.startswith("8 executor cores were busy 0% of the time")


def test_a_formatted_plan_names_its_nodes_by_the_operator_ids_it_prints(run):
    path = os.path.join(ROOT, "fixtures", "plans", "small_side_final_formatted.txt")
    (finding,) = json.loads(run("plan", path, "--select", "SPK604", "--output-format", "json").out)
    assert finding["nodes"] == [14]  # `SortMergeJoin Inner (14)`
    assert finding["location"]["row"] == 6 and finding["related"] == []
