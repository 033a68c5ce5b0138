import os
import subprocess
import sys
from dataclasses import dataclass

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures")
SHARED_DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def run(capsys, monkeypatch):
    """Run the CLI in this process; returns exit code, stdout and stderr."""
    from linter.cli import main

    def _run(*args, cwd=None, stdin=None):
        if cwd is not None:
            monkeypatch.chdir(cwd)
        if stdin is not None:
            import io

            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode() if isinstance(stdin, str) else stdin)))
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return _run


def run_process(*args, cwd=None, stdin=None, env=None, user=None, timeout=120):
    """Run `python -m linter` as a separate process (exit codes, tracebacks, imports)."""
    cmd = [sys.executable, "-m", "linter", *map(str, args)]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    full_env = {**os.environ, "PYTHONPATH": ROOT, **(env or {})}
    p = subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, text=True, env=full_env, timeout=timeout)
    return Result(p.returncode, p.stdout, p.stderr)


def write(path, text, mode="w"):
    os.makedirs(os.path.dirname(str(path)) or ".", exist_ok=True)
    with open(path, mode, **({} if "b" in mode else {"encoding": "utf-8", "newline": ""})) as f:
        f.write(text)
    return str(path)


@pytest.fixture(scope="session")
def spark():
    """One local SparkSession for the whole run (it takes about 13 s to start)."""
    pyspark_sql = pytest.importorskip("pyspark.sql")
    # Python workers must run this interpreter (the one with pyspark), not whatever
    # `python3` is first on PATH.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        pyspark_sql.SparkSession.builder.master("local[2]")
        .appName("sparkcheck-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    yield session
    session.stop()
