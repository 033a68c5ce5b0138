"""sparkcheck against the other PySpark linters, side by side in one run.

Run by hand:  .venv/bin/python bench/peers.py

The peers are installed into a throwaway virtual environment in a temporary
folder (never into the project), then every tool checks the same copy of the
corpus: the Python sources shipped in the installed pyspark package plus the
TPC-H queries of ../shared/data/tpch/queries. Wall time of one cold run each;
sparkcheck without its cache, with 2 processes. Compare ratios within a run.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TPCH = os.path.join(os.path.dirname(ROOT), "shared", "data", "tpch", "queries")
PEERS = ["pipeline-lint", "cylint", "spark-perf-lint", "sparkdoctor", "pyspark-antipattern"]


def main() -> None:
    spec = importlib.util.find_spec("pyspark")
    if spec is None:
        sys.exit("bench: pyspark is not installed (pip install -e '.[test]')")
    tmp = tempfile.mkdtemp()
    try:
        corpus = os.path.join(tmp, "corpus")
        shutil.copytree(list(spec.submodule_search_locations)[0], os.path.join(corpus, "pyspark"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        if os.path.isdir(TPCH):
            shutil.copytree(TPCH, os.path.join(corpus, "tpch"))
        lines = 0
        for base, _, names in os.walk(corpus):
            for name in names:
                if name.endswith((".py", ".sql")):
                    with open(os.path.join(base, name), "rb") as f:
                        lines += f.read().count(b"\n")
        venv = os.path.join(tmp, "peers")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", *PEERS], check=True, capture_output=True)
        bin_ = os.path.join(venv, "bin")
        commands = {
            "pipeline-lint": [os.path.join(bin_, "python"), "-m", "pipeline_lint", "check", corpus],
            "cylint": [os.path.join(bin_, "cy"), "lint", corpus],
            "spark-perf-lint": [os.path.join(bin_, "spark-perf-lint"), "scan", corpus],
            "sparkdoctor": [os.path.join(bin_, "sparkdoctor"), "lint", corpus],
            "pyspark-antipattern (Rust)": [os.path.join(bin_, "pyspark-antipattern"), "check", corpus],
            "sparkcheck (2 processes, cold)": [sys.executable, "-m", "linter", "check", corpus, "--no-cache",
                                               "--jobs", "2", "--exit-zero", "-q"],
        }
        print(f"corpus: {lines:,} lines (pyspark sources + TPC-H queries), one cold run each")
        times = {}
        for name, cmd in commands.items():
            start = time.perf_counter()
            subprocess.run(cmd, capture_output=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=900)
            times[name] = time.perf_counter() - start
        ours = times["sparkcheck (2 processes, cold)"]
        for name, took in sorted(times.items(), key=lambda kv: kv[1]):
            ratio = "" if took == ours else f"  ({took / ours:.2f}x sparkcheck's time)"
            print(f"  {name:32s} {took:7.2f} s{ratio}")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
