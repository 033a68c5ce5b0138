"""SQL speed: lines per second parsing Spark SQL with and without sqlglot's compiled extension.

Run by hand:  .venv/bin/python bench/sql.py [--copies 60]

The corpus is the 22 TPC-H queries of ../shared/data/tpch/queries, repeated.
"With" is this environment (sqlglot[c] overlays compiled modules); "without"
is a throwaway virtual environment in a temporary folder with the same sqlglot
version and no sqlglotc, created here and deleted afterwards.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import metadata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUERIES = os.path.join(os.path.dirname(ROOT), "shared", "data", "tpch", "queries")

TIMER = """
import sys, time
import sqlglot
text = open(sys.argv[1]).read()
statements = [s for s in text.split(";") if s.strip()]
best = None
for _ in range(3):
    start = time.perf_counter()
    for s in statements:
        sqlglot.parse_one(s, read="spark")
    took = time.perf_counter() - start
    best = took if best is None else min(best, took)
from sqlglot import tokens
print(best, getattr(tokens, "SQLGLOTC_INSTALLED", "?"))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=60)
    args = parser.parse_args()
    parts = []
    for path in sorted(glob.glob(os.path.join(QUERIES, "q*.sql"))):
        with open(path, encoding="utf-8") as f:
            parts.append(f.read().strip().rstrip(";") + ";\n")
    text = "".join(parts) * args.copies
    lines = text.count("\n")
    tmp = tempfile.mkdtemp()
    try:
        corpus = os.path.join(tmp, "corpus.sql")
        with open(corpus, "w", encoding="utf-8") as f:
            f.write(text)
        timer = os.path.join(tmp, "timer.py")
        with open(timer, "w", encoding="utf-8") as f:
            f.write(TIMER)
        out = subprocess.run([sys.executable, timer, corpus], capture_output=True, text=True, check=True).stdout.split()
        with_c, flag = float(out[0]), out[1]
        print(f"corpus: {lines:,} lines of Spark SQL (TPC-H x {args.copies})")
        print(f"  sqlglot {metadata.version('sqlglot')} with sqlglotc (compiled={flag}): "
              f"{with_c:.2f} s, {lines / with_c:,.0f} lines/s")
        venv = os.path.join(tmp, "venv")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        python = os.path.join(venv, "bin", "python")
        subprocess.run([python, "-m", "pip", "install", "-q", f"sqlglot=={metadata.version('sqlglot')}"],
                       check=True, capture_output=True)
        out = subprocess.run([python, timer, corpus], capture_output=True, text=True, check=True).stdout.split()
        without, flag = float(out[0]), out[1]
        print(f"  pure Python sqlglot (compiled={flag}): {without:.2f} s, {lines / without:,.0f} lines/s "
              f"({without / with_c:.1f}x slower)")
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "linter", "check", corpus, "--no-cache", "--exit-zero", "-q"],
                       capture_output=True, env={**os.environ, "PYTHONPATH": ROOT}, check=True)
        took = time.perf_counter() - start
        print(f"  sparkcheck check (all SQL rules, interpreter included): {took:.2f} s, {lines / took:,.0f} lines/s")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
