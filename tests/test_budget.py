"""The per-file time budget (linter/budget.py): a chain libcst would stall on is skipped with one finding."""
import json
import os

import pytest
from conftest import FIXTURES, SHARED_DATA, run_process, write

from linter import budget

JOB = "rows = spark.table('t').collect()\n"


def _chain(n, joiner=" & "):
    terms = joiner.join(f'(F.col("c") > {i})' for i in range(n))
    return f"from pyspark.sql import functions as F\n\ncond = {terms}\n{JOB}"


def _chain_by_lines(n):
    terms = "\n    | ".join(f'(F.col("c") > {i})' for i in range(n))
    return f"from pyspark.sql import functions as F\n\ncond = (\n    {terms}\n)\n{JOB}"


def _method_chain(n):
    links = "".join(f'.filter(F.col("c") > {i})' for i in range(n))
    return f"from pyspark.sql import functions as F\n\nrows = spark.table('t'){links}.collect()\n"


def _findings(r):
    assert r.code in (0, 1), r.err
    return [(f["filename"].rsplit("/", 1)[-1], f["code"], f["location"]["row"], f["location"]["column"], f["message"])
            for f in json.loads(r.out)]


def test_a_3000_operand_chain_gets_one_finding_and_the_run_goes_on(tmp_path):
    write(tmp_path / "generated.py", _chain(3000))  # about a minute in libcst's parser
    write(tmp_path / "job.py", JOB)
    # a separate process, bounded: a stall fails the test instead of hanging it
    r = run_process("check", tmp_path, "--no-cache", "--output-format", "json", timeout=120)
    found = _findings(r)
    assert [f[:4] for f in found] == [("generated.py", "SPK001", 3, 1), ("job.py", "SPK101", 1, 25)]
    assert found[0][4].startswith("skipped: an expression nested too deep for CPython's own parser")


@pytest.mark.parametrize("text, row, column, words", [
    (_chain(250), 3, 8, "a chain of 250 operands joined by binary operators (over 200)"),
    (_chain_by_lines(250), 4, 5, "a chain of 250 operands"),  # one term a line
    (_method_chain(120), 3, 8, "a method chain of 122 calls (over 100)"),  # table, 120 filters, collect
])
def test_the_finding_says_what_and_where(tmp_path, run, text, row, column, words):
    path = write(tmp_path / "generated.py", text)
    found = _findings(run("check", path, "--no-cache", "--output-format", "json"))
    assert len(found) == 1 and found[0][1:4] == ("SPK001", row, column)
    assert found[0][4].startswith(f"skipped: {words}") and "was not checked" in found[0][4]


def test_chains_under_the_limits_are_checked_as_usual(tmp_path, run):
    for name, text in (("chain.py", _chain(150)), ("methods.py", _method_chain(60))):
        path = write(tmp_path / name, text)
        found = _findings(run("check", path, "--no-cache", "--output-format", "json"))
        assert [f[1] for f in found] == ["SPK101"], name


def test_no_real_file_comes_near_the_limits():
    # the fixtures and the shared corpus of public PySpark repositories (read in place): none is skipped
    from linter.config import Resolver

    settings = Resolver({}).for_path(os.path.join(FIXTURES, "x.py"))
    tops = [FIXTURES] + [p for p in (os.path.join(SHARED_DATA, "pyspark-corpus"),) if os.path.isdir(p)]
    seen = 0
    for top in tops:
        for base, _, names in os.walk(top):
            for name in names:
                if name.endswith(".py"):
                    with open(os.path.join(base, name), encoding="utf-8", errors="replace") as f:
                        budget.guard(f.read(), settings)  # a SourceError here is a real file skipped
                    seen += 1
    assert seen > (800 if len(tops) > 1 else 30)


def test_a_budget_of_zero_checks_everything(tmp_path, run):
    path = write(tmp_path / "generated.py", _chain(250))
    found = _findings(run("check", path, "--no-cache", "--output-format", "json", "--time-budget", "0"))
    assert [f[1] for f in found] == ["SPK101"]
    write(tmp_path / "pyproject.toml", "[tool.sparkcheck]\ntime-budget = 0\n")
    assert [f[1] for f in _findings(run("check", path, "--no-cache", "--output-format", "json"))] == ["SPK101"]


def test_the_timer_stops_a_file_and_its_finding_is_not_cached(tmp_path, run):
    # 1,000 statements: far more than a millisecond to parse and walk, on any machine
    path = write(tmp_path / "job.py", JOB * 1000)
    write(tmp_path / "other.py", JOB)
    cache = tmp_path / "cache"
    r = run("check", tmp_path, "--cache-dir", cache, "--output-format", "json", "--time-budget", "0.001", "-j", "1")
    found = _findings(r)
    stopped = [f for f in found if f[0] == "job.py"]
    assert len(stopped) == 1 and stopped[0][1:4] == ("SPK001", 1, 1)
    assert stopped[0][4].startswith("skipped: checking this file took longer than the time budget (0.001 s)")
    # with the default budget, the same file is checked: the stopped run left no entry for it
    found = _findings(run("check", path, "--cache-dir", cache, "--output-format", "json"))
    assert len(found) == 1000 and {f[1] for f in found} == {"SPK101"}


def test_budget_settings_are_validated(tmp_path, run):
    path = write(tmp_path / "job.py", JOB)
    for bad in ("-1", "nan"):
        r = run("check", path, "--no-cache", "--time-budget", bad)
        assert r.code == 2 and "--time-budget must be a number of seconds" in r.err and r.err.count("\n") == 1
    write(tmp_path / "pyproject.toml", '[tool.sparkcheck]\ntime-budget = "soon"\n')
    r = run("check", path, "--no-cache")
    assert r.code == 2 and "`time-budget` must be a non-negative number of seconds" in r.err
    write(tmp_path / "pyproject.toml", "[tool.sparkcheck]\ntime-budget = 2.5\n")
    assert run("check", path, "--no-cache").code == 1


def test_the_count_lets_ordinary_text_through_without_parsing_it():
    # what decides whether CPython's parser runs at all: operators crowded enough for a chain over the limits
    assert budget._possible(JOB * 1000) is None
    assert budget._possible("# " + "-" * 5000 + "\nx = a ** b\n" * 300) is None  # runs of operator characters
    assert budget._possible(_chain(250)) is not None and budget._possible(_method_chain(120)) is not None
    spread = "\n".join(f"    x{i} = a + b.c().d()" for i in range(300))  # many, one or two a statement
    assert budget._possible(spread) is None
    import ast

    tree = ast.parse("x = f(a + b - c * d)\ny = df.a().b[0].c()(1)\n")
    (operands, op_node), (calls, call_node) = budget.longest_chains(tree)
    assert (operands, op_node.lineno, op_node.col_offset) == (3, 1, 6)  # `a + b - c` (`c * d` is one operand)
    assert (calls, call_node.lineno, call_node.col_offset) == (3, 2, 4)  # a(), c(), (1)


def test_the_timer_leaves_a_callers_own_alarm_alone():
    import signal
    import time

    fired = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    try:
        signal.setitimer(signal.ITIMER_REAL, 60)
        with budget.deadline(5):
            pass
        with pytest.raises(budget.OverBudget), budget.deadline(0.05):
            time.sleep(2)
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 0 < left <= 60 and not fired  # the caller's alarm, still pending, less what went by
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        time.sleep(0.5)
        assert fired == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
