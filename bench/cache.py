"""What the cache costs and saves: a run without it, the first cached run, a warm run, one file changed.

Run by hand (never in the test suite):

    .venv/bin/python bench/cache.py                       # ../shared/data/pyspark-corpus, 2 processes
    .venv/bin/python bench/cache.py PATH... --jobs 1

One run each, in this order, on the same files, with a new empty cache folder:
`--no-cache`; the first run with the cache (it checks every file and writes the
pack); the warm run (every file a hit); a run after one file changed (a small job
in a temporary folder checked with the corpus, so the corpus is read in place and
never written). The ratios printed are to the `--no-cache` run: the target is a
first cached run at <= 1.0x.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "data", "pyspark-corpus")


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "SPARKCHECK_NO_CACHE",
                                                             "SPARKCHECK_CACHE_DIR")}
    env["PYTHONPATH"] = ROOT
    return env


CPU: dict = {}  # the last run's user + system seconds, its worker processes included


def timed(cmd) -> tuple[float, bytes]:
    """Wall seconds and output; the CPU seconds go to CPU["last"] (on a shared machine the steadier figure)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env(), check=False)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU["last"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if p.returncode not in (0, 1):
        sys.exit(f"bench: {' '.join(cmd[:4])} exited {p.returncode}")
    return seconds, p.stdout


def _files(paths, resolver) -> list[str]:
    """The files `sparkcheck check` would check, as it finds them."""
    from linter.files import discover

    return list(discover(paths, lambda p: resolver.for_path(p).exclude,
                         lambda p: resolver.for_path(p)["respect-gitignore"], False, [],
                         lambda p: resolver.for_path(p)["extension"], []))


def cache_cost(paths, tmp) -> None:
    """The cache's own work in a first cached run and a warm one, in this process (CPU seconds, so a loaded
    machine blurs it less than the wall clock of whole runs): keys, lookups, the pack written and read."""
    sys.path.insert(0, ROOT)
    from linter.cache import Cache
    from linter.config import Resolver
    from linter.diagnostics import Finding, Location

    resolver = Resolver({})
    files = _files(paths, resolver)
    datas = []
    for path in files:
        with open(path, "rb") as f:
            datas.append(f.read())
    folder = os.path.join(tmp, "in-process")
    finding = Finding("SPK101", "collect-on-unbounded-dataframe", "m" * 80, "warning", "x.py", Location(1, 1),
                      Location(1, 9), source_line="rows = df.collect()")

    # what a run without the cache does too (settings, the enabled codes: the rules' imports), not timed
    chosen = [(resolver.for_path(p), resolver.for_path(p).codes_for(p)) for p in files]

    def one_run():
        cache = Cache(folder)
        start = time.process_time()
        keys = [cache.key(p, d, settings, codes) for p, d, (settings, codes) in zip(files, datas, chosen)]
        key_time = time.process_time() - start
        start = time.process_time()
        misses = [k for k, p in zip(keys, files) if cache.get(k, p) is None]
        for k in misses:
            cache.put(k, [finding])
        cache.save(len(files))
        return key_time, time.process_time() - start, len(misses)

    key_first, rest_first, misses = one_run()
    _, rest_warm, _ = one_run()
    print(f"  the cache's own CPU time on {len(files)} files: keys {key_first * 1000:.0f} ms; first run "
          f"lookups + {misses} entries + one pack written {rest_first * 1000:.0f} ms; warm run pack read + lookups "
          f"{rest_warm * 1000:.0f} ms")


def guard_cost(paths) -> None:
    """What the time budget's up-front guard (linter/budget.py) costs on these files, in this process."""
    sys.path.insert(0, ROOT)
    from linter import budget
    from linter.config import Resolver

    texts = []
    for top in paths:
        for base, _, names in os.walk(top):
            for name in names:
                if name.endswith(".py"):
                    with open(os.path.join(base, name), encoding="utf-8", errors="replace") as f:
                        texts.append(f.read())
    settings = Resolver({}).for_path(os.path.join(ROOT, "x.py"))
    start = time.process_time()
    marked = sum(budget._possible(t) is not None for t in texts)
    scan = time.process_time() - start
    start = time.process_time()
    skipped = 0
    for text in texts:
        try:
            budget.guard(text, settings)
        except Exception:  # noqa: BLE001 - the SourceError of a skipped file
            skipped += 1
    whole = time.process_time() - start
    print(f"  time-budget guard on {len(texts)} .py files ({sum(map(len, texts)) / 1e6:.1f} MB): scan "
          f"{scan * 1000:.0f} ms CPU, {marked} marked for CPython's parser, whole guard {whole * 1000:.0f} ms, "
          f"{skipped} skipped")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="*", default=[CORPUS])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(ROOT, "linter"),
                    os.path.join(ROOT, "checks")], stdout=subprocess.DEVNULL, env=_env(), check=False)
    tmp = tempfile.mkdtemp(prefix="sparkcheck-cache-bench-")
    try:
        cache = os.path.join(tmp, "cache")
        extra = os.path.join(tmp, "changed")
        os.makedirs(extra)
        changed = os.path.join(extra, "job.py")
        with open(changed, "w", encoding="utf-8") as f:
            f.write("rows = spark.table('orders').collect()\n")
        base = [sys.executable, "-m", "linter", "check", *args.paths, extra, "--output-format", "json",
                "--jobs", str(args.jobs)]
        no_cache, out_none = timed([*base, "--no-cache"])
        cpu_none = CPU["last"]
        first, out_first = timed([*base, "--cache-dir", cache])
        cpu_first = CPU["last"]
        warm, out_warm = timed([*base, "--cache-dir", cache])
        cpu_warm = CPU["last"]
        with open(changed, "a", encoding="utf-8") as f:
            f.write("more = spark.table('items').collect()\n")
        one_changed, _ = timed([*base, "--cache-dir", cache])
        cpu_changed = CPU["last"]
        packs = [os.path.join(d, n) for d, _, names in os.walk(cache) for n in names if n == "pack.json"]
        size = sum(os.path.getsize(p) for p in packs)
        files = sum(1 for d, _, names in os.walk(cache) for _ in names)
        same = out_none == out_first == out_warm
        print(f"sparkcheck cache on {', '.join(os.path.basename(p) or p for p in args.paths)}, "
              f"{args.jobs} process{'es' if args.jobs > 1 else ''}, one run each:")
        print("  (wall clock; then CPU seconds of the run and its workers, steadier on a shared machine)")
        print(f"  --no-cache:           {no_cache:6.2f} s   CPU {cpu_none:6.2f} s")
        print(f"  first cached run:     {first:6.2f} s  ({first / no_cache:.2f}x the --no-cache run)   "
              f"CPU {cpu_first:6.2f} s ({cpu_first / cpu_none:.2f}x)")
        print(f"  warm run:             {warm:6.2f} s  ({warm / no_cache:.2f}x)   CPU {cpu_warm:6.2f} s "
              f"({cpu_warm / cpu_none:.2f}x)")
        print(f"  one file changed:     {one_changed:6.2f} s  ({one_changed / no_cache:.2f}x)   "
              f"CPU {cpu_changed:6.2f} s ({cpu_changed / cpu_none:.2f}x)")
        print(f"  cache folder: {files} files, pack {size / 1024:.0f} KiB; output identical in the three runs: {same}")
        cache_cost(args.paths, tmp)
        guard_cost(args.paths)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
