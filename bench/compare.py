"""This tree's cold run against another revision's, on the same corpus, alternating.

Run by hand:  .venv/bin/python bench/compare.py 1c8250a [--same-rules] [--jobs 1] [--rounds 3] [--corpus DIR]

The other revision is checked out into a temporary git worktree and both check
the same files (pyspark's own sources by default) without a cache, one after the
other, ``--rounds`` times; the medians and their ratio are printed. Alternating
keeps the ratio honest on a shared machine whose load changes while it runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from run import _compile_bytecode, pyspark_dir  # noqa: E402


def _cold(tree: str, corpus: str, jobs: int, select: list) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "linter", "check", corpus, "--no-cache", "--exit-zero", "-q",
                    "--jobs", str(jobs), *select], cwd=tree, env={**os.environ, "PYTHONPATH": tree},
                   capture_output=True, check=True)
    return time.perf_counter() - start


def _codes(tree: str) -> list:
    """The default rules of a tree (what `--same-rules` runs in both)."""
    out = subprocess.run([sys.executable, "-m", "linter", "rules", "--output-format", "json"], cwd=tree,
                         env={**os.environ, "PYTHONPATH": tree}, capture_output=True, check=True, text=True).stdout
    return [r["code"] for r in json.loads(out) if not r["preview"] and not r["explicit"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("revision", help="the git revision to compare with (e.g. the commit before a change)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--corpus", default=None, help="default: the installed pyspark package's sources")
    parser.add_argument("--same-rules", action="store_true",
                        help="both trees run only the other revision's default rules: what a change to the engine "
                             "or the model costs, without the rules it added")
    args = parser.parse_args()
    corpus = args.corpus or pyspark_dir()
    _compile_bytecode()
    tmp = tempfile.mkdtemp()
    other = os.path.join(tmp, "other")
    try:
        subprocess.run(["git", "worktree", "add", "--detach", other, args.revision], cwd=ROOT, check=True,
                       capture_output=True)
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(other, "linter"),
                        os.path.join(other, "checks")], check=False, capture_output=True)
        select = ["--select", ",".join(_codes(other))] if args.same_rules else []
        times: dict[str, list[float]] = {"this tree": [], args.revision: []}
        for _ in range(args.rounds):
            times[args.revision].append(_cold(other, corpus, args.jobs, select))
            times["this tree"].append(_cold(ROOT, corpus, args.jobs, select))
        base = statistics.median(times[args.revision])
        ours = statistics.median(times["this tree"])
        rules = f"{args.revision}'s {len(select[1].split(','))} default rules in both" if select else "each tree's rules"
        print(f"corpus: {corpus}; cold, no cache, {args.jobs} process(es), {rules}, "
              f"median of {args.rounds} alternating runs")
        for name, runs in times.items():
            print(f"  {name:12s} {statistics.median(runs):7.2f} s   (runs: {', '.join(f'{t:.2f}' for t in runs)})")
        print(f"  this tree / {args.revision}: {ours / base:.3f}")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", other], cwd=ROOT, capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
