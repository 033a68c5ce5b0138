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


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HistoryServer:
    """The real Spark History Server shipped in the pyspark package, on 127.0.0.1, over a directory of logs.

    `with HistoryServer(logs, tmp_path, apps=1) as url:` waits until the server lists `apps` applications
    (at most two minutes) and stops it (its whole process group) on leaving.
    """

    def __init__(self, logs, workdir, apps: int = 1):
        self.logs, self.workdir, self.apps = logs, workdir, apps
        self.url = ""
        self.process = None

    def __enter__(self) -> str:
        import json
        import time
        import urllib.request

        import pyspark

        home = os.path.dirname(pyspark.__file__)
        port = free_port()
        conf = os.path.join(str(self.workdir), "history.conf")
        with open(conf, "w") as f:
            f.write(f"spark.history.fs.logDirectory file:{self.logs}\nspark.history.ui.port {port}\n"
                    "spark.history.fs.update.interval 1s\n")
        env = {**os.environ, "SPARK_HOME": home, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_NO_DAEMONIZE": "1"}
        self.process = subprocess.Popen(
            [os.path.join(home, "bin", "spark-class"), "org.apache.spark.deploy.history.HistoryServer",
             "--properties-file", conf], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 120
        try:
            while True:
                try:
                    with urllib.request.urlopen(f"{self.url}/api/v1/applications", timeout=5) as response:
                        if len(json.loads(response.read())) >= self.apps:
                            break
                except OSError:
                    pass
                assert time.time() < deadline, "the History Server did not list the applications"
                time.sleep(1)
        except BaseException:
            self.__exit__()
            raise
        return self.url

    def __exit__(self, *exc) -> None:
        os.killpg(self.process.pid, 15)
        self.process.wait(timeout=30)


def codes_and_rows(run, path, select: str, *args) -> list:
    """`sparkcheck check PATH --select SELECT` (plus ``args``) in this process: its findings as sorted
    (code, row) pairs."""
    import json

    r = run("check", path, "--select", select, "--output-format", "json", *args)
    assert r.code in (0, 1), r.err
    return sorted((f["code"], f["location"]["row"]) for f in json.loads(r.out))
