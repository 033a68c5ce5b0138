"""`sparkcheck fleet` throughput and memory (run by hand: `.venv/bin/python bench/fleet.py [--logs 200]`).

Makes a temporary tree of event logs by copying the shared logs (../shared/data/eventlogs) under new
application ids, cycling through all seven (the rolling folder, .gz and .zstd ones included), then prints:

- applications/s and MB/s (bytes on disk) with 1 process, 2 processes, and --on-spark on the pyspark
  package's local-cluster[2,1,1024] (`--no-spark` skips it); the Spark figure includes starting the cluster;
- the peak memory of one process reading 50 and 500 logs (ru_maxrss of a fresh process, and tracemalloc's
  peak of the Python heap): flat means the same for both.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = os.path.join(os.path.dirname(ROOT), "shared", "data", "eventlogs")
sys.path.insert(0, ROOT)


def _relabel(lines, app_id):
    for line in lines:
        if line.startswith('{"Event":"SparkListenerApplicationStart"'):
            event = json.loads(line)
            event["App ID"] = app_id
            line = json.dumps(event, separators=(",", ":"))
        yield line + "\n"


def make_tree(root: str, count: int) -> int:
    """`count` logs under root; their size on disk in bytes."""
    import zstandard

    from linter.sources.eventlog import _lines

    sources = sorted(os.listdir(LOGS))
    texts = {name: [t for _, t in _lines(os.path.join(LOGS, name))] for name in sources}
    size = 0
    for i in range(count):
        name = sources[i % len(sources)]
        app_id = f"app-20261201{i:06d}"
        text = "".join(_relabel(texts[name], app_id)).encode()
        if name.startswith("eventlog_v2"):
            folder = os.path.join(root, f"eventlog_v2_{app_id}")
            os.makedirs(folder)
            path = os.path.join(folder, f"events_1_{app_id}.zstd")
            data = zstandard.ZstdCompressor().compress(text)
        elif name.endswith(".gz"):
            path, data = os.path.join(root, app_id + ".gz"), gzip.compress(text)
        elif name.endswith(".zstd"):
            path, data = os.path.join(root, app_id + ".zstd"), zstandard.ZstdCompressor().compress(text)
        else:
            path, data = os.path.join(root, app_id), text
        with open(path, "wb") as f:
            f.write(data)
        size += len(data)
    return size


def timed(args: list[str]) -> float:
    start = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "linter", "fleet", *args, "--output-format", "json", "-o", os.devnull],
                       cwd=ROOT, capture_output=True, text=True, check=False)
    if p.returncode not in (0, 1):
        raise SystemExit(f"fleet failed: {p.stderr.strip()}")
    return time.perf_counter() - start


def child(root: str) -> None:
    """Read every log in this process (as --jobs 1 does) and print the memory figures."""
    import tracemalloc

    tracemalloc.start()
    from linter.fleet.progress import Progress
    from linter.fleet.runner import run
    from linter.fleet.sources import local_sources

    listed = local_sources(root)
    result = run(listed, ({}, None, None, None), 1, Progress(len(listed), 0, False))
    _, peak = tracemalloc.get_traced_memory()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"apps": len(result.rows), "peak_rss_mib": rss, "peak_heap_mib": peak / 2**20}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--logs", type=int, default=200, help="logs for the throughput figures")
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child)
    work = tempfile.mkdtemp(prefix="sparkcheck-bench-fleet-")
    try:
        tree = os.path.join(work, "throughput")
        os.makedirs(tree)
        size = make_tree(tree, args.logs)
        print(f"{args.logs} logs, {size / 2**20:.1f} MB on disk ({os.cpu_count()} cores, load "
              f"{os.getloadavg()[0]:.1f})")
        runs = [("1 process", ["-j", "1"]), ("2 processes", ["-j", "2"])]
        if not args.no_spark:
            runs.append(("--on-spark local-cluster[2,1,1024]", ["--on-spark", "--master", "local-cluster[2,1,1024]"]))
        for label, flags in runs:
            seconds = timed([tree, *flags])
            print(f"  {label:<36} {seconds:6.1f} s  {args.logs / seconds:6.1f} apps/s  "
                  f"{size / 2**20 / seconds:6.2f} MB/s")
        print("peak memory of one process (--jobs 1):")
        for count in (50, 500):
            folder = os.path.join(work, f"memory-{count}")
            os.makedirs(folder)
            make_tree(folder, count)
            p = subprocess.run([sys.executable, __file__, "--child", folder], capture_output=True, text=True,
                               check=True)
            figures = json.loads(p.stdout)
            print(f"  {count:>4} logs: peak RSS {figures['peak_rss_mib']:6.1f} MiB, peak Python heap "
                  f"{figures['peak_heap_mib']:6.1f} MiB ({figures['apps']} applications read)")
            shutil.rmtree(folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
