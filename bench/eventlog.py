"""Event-log reading speed and memory: MB/s on one core, and peak RSS on a generated 1 GB log.

    .venv/bin/python bench/eventlog.py            # 1 GB (about a minute)
    .venv/bin/python bench/eventlog.py --mb 200   # smaller

The log is made from a real one (../shared/data/eventlogs/python_udf_eventlog,
Spark 3.5): its header and SQL executions once, then its task events repeated
until the size is reached (with task ids renumbered), then its ending. Reading
is `sparkcheck plan` (and `sparkcheck diagnose`, which also keeps every task's
figures) on it in a child process of its own, timed, with its peak RSS from
getrusage. Nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(os.path.dirname(ROOT), "shared", "data", "eventlogs", "python_udf_eventlog")


def generate(path: str, megabytes: int) -> int:
    lines = open(SOURCE, encoding="utf-8").read().splitlines()
    tasks = [line for line in lines if '"Event":"SparkListenerTask' in line]
    last_task = max(i for i, line in enumerate(lines) if '"Event":"SparkListenerTask' in line)
    head, tail = lines[: last_task + 1], lines[last_task + 1:]
    target = megabytes * 1024 * 1024
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        for line in head:
            out.write(line + "\n")
            written += len(line) + 1
        task_id = 10_000_000
        while written < target:
            for line in tasks:
                event = json.loads(line)
                event.setdefault("Task Info", {})["Task ID"] = task_id
                task_id += 1
                text = json.dumps(event, separators=(",", ":"))
                out.write(text + "\n")
                written += len(text) + 1
        for line in tail:
            out.write(line + "\n")
            written += len(line) + 1
    return written


def measure(path: str, command: str = "plan") -> tuple[float, float]:
    """Wall time and peak RSS (MB) of `sparkcheck COMMAND path` in a child process of its own."""
    code = ("import resource, subprocess, sys, time\n"
            "start = time.perf_counter()\n"
            f"subprocess.run([sys.executable, '-m', 'linter', {command!r}, {path!r}, '--output-format', 'concise'],"
            " stdout=subprocess.DEVNULL)\n"
            "print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": ROOT}).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=1024)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small = os.path.join(tmp, "small")
        size_small = generate(small, 20)
        t_small, rss_small = measure(small)
        big = os.path.join(tmp, "big")
        size = generate(big, args.mb)
        t_big, rss_big = measure(big)
        t_diag, rss_diag = measure(big, "diagnose")
    print(f"{size_small / 2**20:8.0f} MB log: {t_small:6.2f} s, {size_small / 2**20 / t_small:6.1f} MB/s, "
          f"peak RSS {rss_small:.0f} MB")
    print(f"{size / 2**20:8.0f} MB log: {t_big:6.2f} s, {size / 2**20 / t_big:6.1f} MB/s, "
          f"peak RSS {rss_big:.0f} MB (one process, one core)")
    print(f"{size / 2**20:8.0f} MB log, `diagnose` (plans, every task's figures, run and configuration rules): "
          f"{t_diag:6.2f} s, {size / 2**20 / t_diag:6.1f} MB/s, peak RSS {rss_diag:.0f} MB")


if __name__ == "__main__":
    main()
