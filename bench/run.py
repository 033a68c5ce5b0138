"""sparkcheck benchmark: startup, and lines per second cold and warm, 1 and 2 processes.

Run by hand (never in the test suite):

    .venv/bin/python bench/run.py            # all figures
    .venv/bin/python bench/run.py --quick    # startup only

The corpus is the Python code shipped inside the installed pyspark package (real
third-party Spark code, about 280,000 lines) plus the TPC-H queries of
../shared/data/tpch/queries when present.  pyspark is located, not imported.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TPCH = os.path.join(os.path.dirname(ROOT), "shared", "data", "tpch", "queries")
SPARKCHECK = [sys.executable, "-m", "linter"]


def pyspark_dir() -> str:
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("bench: pyspark is not installed (pip install -e '.[test]')")
    return list(spec.submodule_search_locations)[0]


def count_lines(paths) -> tuple[int, int]:
    files = lines = 0
    for top in paths:
        for base, _, names in os.walk(top):
            for name in names:
                if name.endswith((".py", ".pyi", ".sql", ".ipynb")):
                    files += 1
                    with open(os.path.join(base, name), "rb") as f:
                        lines += f.read().count(b"\n")
    return files, lines


def _env() -> dict:
    """The environment of the measured commands: as an installed package runs, with its bytecode.

    pip compiles .pyc files when it installs; a machine that sets PYTHONDONTWRITEBYTECODE (this one does)
    would otherwise compile sparkcheck's 200 modules on every run (about 70 ms), which no user pays.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = ROOT
    return env


def _compile_bytecode() -> None:
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(ROOT, "linter"), os.path.join(ROOT, "checks")],
                   stdout=subprocess.DEVNULL, env=_env(), check=False)


def timed(cmd, cwd=None, repeat=1) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_rss_mb(cmd) -> float:
    """Peak resident memory of a command (and its children), via GNU time when present."""
    gnu_time = shutil.which("time") or "/usr/bin/time"
    if not os.path.exists(gnu_time):
        return float("nan")
    p = subprocess.run([gnu_time, "-f", "%M", *cmd], capture_output=True, text=True, env=_env())
    try:
        return int(p.stderr.strip().splitlines()[-1]) / 1024
    except (ValueError, IndexError):
        return float("nan")


def startup() -> None:
    _compile_bytecode()
    tmp = tempfile.mkdtemp()
    try:
        path = os.path.join(tmp, "one_file.py")
        with open(path, "w") as f:
            f.write(
                "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
                "rows = spark.table('orders').limit(10).collect()\n"
            )
        python_only = timed([sys.executable, "-c", "pass"], repeat=7)
        wall = timed([*SPARKCHECK, "check", path, "--no-cache"], repeat=7)
        wall_cached = timed([*SPARKCHECK, "check", path, "--cache-dir", os.path.join(tmp, "c")], repeat=7)
        print(f"startup: `sparkcheck check one_file.py`: {wall:.3f} s wall (median of 7), "
              f"{wall_cached:.3f} s with a warm cache; bare interpreter {python_only:.3f} s")
        p = subprocess.run([sys.executable, "-X", "importtime", "-m", "linter", "check", path, "--no-cache"],
                           capture_output=True, text=True, env=_env())
        rows = []
        for line in p.stderr.splitlines():
            if line.startswith("import time:") and "|" in line:
                parts = [x.strip() for x in line[len("import time:"):].split("|")]
                if parts[1].isdigit() and not parts[2].startswith(" "):
                    rows.append((int(parts[1]), parts[2].strip()))
        top = sorted((r for r in rows if "." not in r[1]), reverse=True)[:6]
        print("  -X importtime, top-level packages (cumulative ms): "
              + ", ".join(f"{name} {us / 1000:.0f}" for us, name in top))
        assert not any(name.split(".")[0] in ("pyspark", "py4j") for _, name in rows), "pyspark was imported"
    finally:
        shutil.rmtree(tmp)


def throughput() -> None:
    corpus = [pyspark_dir()] + ([TPCH] if os.path.isdir(TPCH) else [])
    files, lines = count_lines(corpus)
    print(f"corpus: {files} files, {lines:,} lines (pyspark sources{' + TPC-H queries' if len(corpus) > 1 else ''})")
    tmp = tempfile.mkdtemp()
    try:
        for jobs in (1, 2):
            cache = os.path.join(tmp, f"cache{jobs}")
            cmd = [*SPARKCHECK, "check", *corpus, "--exit-zero", "--output-format", "concise",
                   "--jobs", str(jobs), "--cache-dir", cache]
            colds = []
            for _ in range(3):  # this machine is shared: the median of three cold runs, each with an empty cache
                shutil.rmtree(cache, ignore_errors=True)
                colds.append(timed(cmd))
            cold = statistics.median(colds)
            warm = timed(cmd, repeat=3)
            print(f"  {jobs} process{'es' if jobs > 1 else ''}: cold {cold:.2f} s (median of 3, "
                  f"{lines / cold:,.0f} lines/s), "
                  f"warm {warm:.2f} s ({lines / warm:,.0f} lines/s)")
        all_rules = timed([*SPARKCHECK, "check", *corpus, "--exit-zero", "--no-cache", "--jobs", "2",
                           "--select", "ALL", "--preview"])
        print(f"  2 processes, no cache, ALL rules incl. preview: {all_rules:.2f} s")
        rss = peak_rss_mb([*SPARKCHECK, "check", *corpus, "--exit-zero", "--no-cache", "--jobs", "2"])
        print(f"  peak RSS of the largest process, 2 processes, no cache: {rss:.0f} MB")
    finally:
        shutil.rmtree(tmp)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="startup only")
    args = parser.parse_args()
    print(f"sparkcheck benchmark on {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    startup()
    if not args.quick:
        throughput()


if __name__ == "__main__":
    main()
