"""Pull-request mode on real temporary git repositories: --diff-base, baselines, the Action, the summary."""
import json
import os
import subprocess

import yaml

from conftest import ROOT, write

ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
JOB = (
    "from pyspark.sql import SparkSession\n"
    "spark = SparkSession.builder.getOrCreate()\n"
    "\n"
    "def old_report():\n"
    "    return spark.table('orders').collect()\n"
    "\n"
    "def other():\n"
    "    return spark.table('customers').toPandas()\n"
)


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=ENV).stdout


def repo(tmp_path):
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    write(path / "jobs" / "report.py", JOB)
    git(path, "add", "-A")
    git(path, "commit", "-qm", "first")
    return path


def codes(result):
    return [line.split(": ", 1)[1].split()[0] for line in result.out.splitlines() if ": SPK" in line]


def test_baseline_hides_old_findings_and_survives_unrelated_edits(tmp_path, run):
    path = repo(tmp_path)
    r = run("check", ".", "--no-cache", "--write-baseline", "sparkcheck-baseline.json", cwd=path)
    assert r.code == 0 and "Wrote 2 findings" in r.err
    data = json.loads((path / "sparkcheck-baseline.json").read_text())
    assert [e["code"] for e in data["findings"]] == ["SPK101", "SPK102"]
    assert run("check", ".", "--no-cache", "--baseline", "sparkcheck-baseline.json", cwd=path).code == 0
    # unrelated lines inserted above the old findings: still hidden
    text = (path / "jobs" / "report.py").read_text()
    (path / "jobs" / "report.py").write_text("import logging\n\nlog = logging.getLogger(__name__)\n" + text)
    r = run("check", ".", "--no-cache", "--baseline", "sparkcheck-baseline.json", "--output-format", "concise", cwd=path)
    assert r.code == 0, r.out
    # an old finding's line edited: reported again; a new finding: reported
    text = (path / "jobs" / "report.py").read_text()
    text = text.replace("spark.table('orders').collect()", "spark.table('orders_v2').collect()")
    text += "\ndef new():\n    return spark.table('events').collect()\n"
    (path / "jobs" / "report.py").write_text(text)
    r = run("check", ".", "--no-cache", "--baseline", "sparkcheck-baseline.json", "--output-format", "concise", cwd=path)
    assert codes(r) == ["SPK101", "SPK101"] and r.code == 1
    assert "1 baseline entry no longer match" in r.err
    # the configured baseline works too
    write(path / "pyproject.toml", "[tool.sparkcheck]\nbaseline = 'sparkcheck-baseline.json'\n")
    assert codes(run("check", ".", "--no-cache", "--output-format", "concise", cwd=path)) == ["SPK101", "SPK101"]


def test_diff_base_reports_only_the_changed_function(tmp_path, run):
    path = repo(tmp_path)
    git(path, "checkout", "-q", "-b", "feature")
    text = (path / "jobs" / "report.py").read_text().replace("spark.table('customers').toPandas()",
                                                             "spark.table('customers_v2').toPandas()")
    (path / "jobs" / "report.py").write_text(text)
    git(path, "commit", "-qam", "change other()")
    write(path / "jobs" / "new_job.py", "rows = spark.table('x').collect()\n")  # untracked: new in full
    r = run("check", ".", "--no-cache", "--diff-base", "main", "--output-format", "concise", cwd=path)
    assert sorted(l.split(":")[0] + ":" + l.split(":")[1] for l in r.out.splitlines() if "SPK" in l) == [
        "jobs/new_job.py:1", "jobs/report.py:8"]
    for fmt in ("json", "sarif", "github", "gitlab"):
        assert run("check", ".", "--no-cache", "--diff-base", "main", "--output-format", fmt, cwd=path).code == 1
    git(path, "mv", "jobs/report.py", "jobs/renamed.py")
    r = run("check", ".", "--no-cache", "--diff-base", "main", "--output-format", "concise", cwd=path)
    assert "jobs/renamed.py:8" in r.out and "jobs/renamed.py:5" not in r.out


def test_diff_base_errors_are_one_line(tmp_path, run):
    write(tmp_path / "a.py", "rows = spark.table('x').collect()\n")
    r = run("check", ".", "--diff-base", "main", cwd=tmp_path)
    assert r.code == 2 and r.err.count("\n") == 1 and "not inside a git repository" in r.err
    path = repo(tmp_path)
    r = run("check", ".", "--diff-base", "no-such-branch", cwd=path)
    assert r.code == 2 and "unknown revision 'no-such-branch'" in r.err


def test_action_yml_and_step_summary(tmp_path, run):
    with open(os.path.join(ROOT, "action.yml")) as f:
        action = yaml.safe_load(f)
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) >= {"paths", "args", "diff-base", "sarif", "sarif-file", "python-version"}
    run_steps = " ".join(step.get("run", "") for step in action["runs"]["steps"])
    assert "--output-format github" in run_steps and "GITHUB_STEP_SUMMARY" in run_steps
    assert "--output-format sarif" in run_steps
    assert any("upload-sarif" in step.get("uses", "") for step in action["runs"]["steps"])
    path = repo(tmp_path)
    summary = tmp_path / "summary.md"
    run("check", ".", "--no-cache", "--step-summary", summary, "--output-format", "github", cwd=path)
    text = summary.read_text()
    assert "| rule | name | count |" in text and "| SPK101 | collect-on-unbounded-dataframe | 1 |" in text
    assert "| jobs/report.py | 5 | SPK101 |" in text


def test_step_summary_of_the_fixture_run(tmp_path, run):
    from conftest import FIXTURES

    summary = tmp_path / "summary.md"
    r = run("check", FIXTURES, "--no-cache", "--step-summary", summary, "--output-format", "concise")
    n = sum(1 for line in r.out.splitlines() if ": SPK" in line)
    text = summary.read_text()
    assert text.startswith("## sparkcheck\n") and f"{n} findings in " in text
    table = [line for line in text.splitlines() if line.startswith("| ") and "/" in line.split("|")[1]]
    assert len(table) == n  # every finding, not just the first 10
    assert any("notebooks/orders_exploration.ipynb | cell 3, line 2 | SPK102" in line for line in table)
