"""sparkcheck benchmark: startup, and lines per second cold and warm, 1 and 2 processes.

Run by hand (never in the test suite):

    .venv/bin/python bench/run.py            # all figures
    .venv/bin/python bench/run.py --quick    # startup only
    .venv/bin/python bench/run.py --one-file [--rounds 11] [--peers VENV] [--editable]   # the run pre-commit makes, as ratios
    .venv/bin/python bench/run.py --cold [--rounds 3] [DIR ...]   # the cold full run against libcst's parse floor

The corpus is the Python code shipped inside the installed pyspark package (real
third-party Spark code, about 280,000 lines) plus the TPC-H queries of
../shared/data/tpch/queries when present.  pyspark is located, not imported.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TPCH = os.path.join(os.path.dirname(ROOT), "shared", "data", "tpch", "queries")
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "data", "pyspark-corpus")
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


def timed_cpu(cmd, cwd=None, env=None) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the command and its children) of one run. On a shared,
    loaded machine the CPU time says more than the wall time: it does not grow with the other sessions' load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env or _env())
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


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


# The one-file run pre-commit makes (issue 18, item 4): a clean module that mentions no Spark, and a
# 35-line PySpark job with no SQL in it (one finding: the collect). Neither needs more than its contents
# trigger: the first neither libcst nor sqlglot nor any rule module, the second never sqlglot.
PLAIN = """\
\"\"\"Helpers for the command-line tools: paths, environment, retries.\"\"\"
import os
import time


def data_dir(name):
    root = os.environ.get("DATA_ROOT", "/var/data")
    return os.path.join(root, name)


def retry(fn, attempts=3, pause=1.0):
    for attempt in range(attempts):
        try:
            return fn()
        except OSError:
            if attempt == attempts - 1:
                raise
            time.sleep(pause * (attempt + 1))
    return None
"""

JOB = """\
\"\"\"Daily orders job: reads the raw orders, cleans them, writes the daily totals.\"\"\"
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType


def build_session():
    return SparkSession.builder.appName("daily-orders").getOrCreate()


def clean(orders):
    return (orders
            .filter(F.col("status") != "cancelled")
            .withColumn("amount", F.col("amount").cast(DoubleType()))
            .withColumn("day", F.to_date("created_at")))


def totals(orders):
    return (orders.groupBy("day", "country")
            .agg(F.sum("amount").alias("total"), F.count("*").alias("orders")))


def main():
    spark = build_session()
    orders = spark.read.parquet("s3://lake/raw/orders/")
    daily = totals(clean(orders))
    # a few hundred rows a day: printed for the operator's log
    for row in daily.collect():
        print(row["day"], row["country"], row["total"])
    daily.write.mode("overwrite").partitionBy("day").parquet("s3://lake/daily/")
    spark.stop()


if __name__ == "__main__":
    main()
"""

ONE_FILE_TARGETS = {"non-Spark file": 0.5, "PySpark job": 1.4}


def imported_by_check(path: str, cwd: str) -> set:
    """The modules `sparkcheck check PATH --no-cache` leaves in sys.modules (the run in this interpreter)."""
    code = ("import sys\nfrom linter.cli import main\nmain(['check', sys.argv[1], '--no-cache'])\n"
            "sys.stderr.write('\\0' + ' '.join(sorted(sys.modules)) + '\\n')")
    p = subprocess.run([sys.executable, "-c", code, path], cwd=cwd, capture_output=True, text=True, env=_env())
    return set(p.stderr.rsplit("\0", 1)[-1].split())


def installed_python(tmp: str) -> str:
    """The interpreter of a throwaway venv holding sparkcheck as a user installs it (`pip install .`).

    The development venv's editable install adds an import hook that `site` loads in every process (16 ms
    by `-X importtime` on these machines), which neither a user's install nor pre-commit's hook venv has;
    timing from it overstates the one-file run, most of all the non-Spark file's.
    """
    venv = os.path.join(tmp, "venv")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    python = os.path.join(venv, "bin", "python")
    p = subprocess.run([python, "-m", "pip", "install", "-q", ROOT], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"bench: `pip install {ROOT}` into a throwaway venv failed: {p.stderr.strip().splitlines()[-1:]}")
    return python


def one_file(rounds: int, peers: str | None, editable: bool = False) -> None:
    """`sparkcheck check FILE` (no cache: the first run) against `python -c "import libcst"`, median of
    ``rounds`` alternating runs of each command, as ratios to that floor measured in the same rounds; both
    from a regular install in a throwaway venv unless ``editable`` (this interpreter and the source tree)."""
    _compile_bytecode()
    tmp = tempfile.mkdtemp()
    try:
        python = sys.executable if editable else installed_python(tmp)
        sparkcheck = [python, "-m", "linter"]
        env = _env()
        if not editable:  # the installed copy, not the source tree
            env.pop("PYTHONPATH")
        for name, text in (("plain.py", PLAIN), ("job.py", JOB)):
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        commands = {
            "import libcst": [python, "-c", "import libcst"],
            "non-Spark file": [*sparkcheck, "check", "plain.py", "--no-cache"],
            "PySpark job": [*sparkcheck, "check", "job.py", "--no-cache"],
        }
        if peers:  # a venv holding the peers (bench/peers.py builds one): their run on the same job
            commands["sparkdoctor, the job"] = [os.path.join(peers, "bin", "sparkdoctor"), "lint", "--no-config",
                                                "job.py"]
            commands["pipeline-lint, the job"] = [os.path.join(peers, "bin", "python"), "-m", "pipeline_lint",
                                                  "check", "job.py"]
        times: dict = {name: [] for name in commands}
        cpus: dict = {name: [] for name in commands}
        for _ in range(rounds):
            for name, cmd in commands.items():
                wall, cpu = timed_cpu(cmd, cwd=tmp, env=env)
                times[name].append(wall)
                cpus[name].append(cpu)
        floor = statistics.median(times["import libcst"])
        floor_cpu = statistics.median(cpus["import libcst"])
        print(f"one file (median of {rounds} alternating runs, no cache; JOB has {JOB.count(chr(10))} lines; "
              f"{'this venv, editable' if editable else 'a throwaway venv, pip install .'}):")
        for name, runs in times.items():
            took, cpu = statistics.median(runs), statistics.median(cpus[name])
            target = ONE_FILE_TARGETS.get(name)
            verdict = "" if target is None else f"  target <= {target}x: {'met' if took / floor <= target else 'NOT met'}"
            print(f"  {name:24s} {took:6.3f} s  {took / floor:5.2f}x the import of libcst "
                  f"(CPU {cpu:.3f} s, {cpu / floor_cpu:.2f}x){verdict}")
        for name, path in (("non-Spark file", "plain.py"), ("PySpark job", "job.py")):
            mods = imported_by_check(path, tmp)
            rules = sorted(m for m in mods if m.startswith("checks.") and m.count(".") == 2
                           and not m.rsplit(".", 1)[1].startswith("_"))
            print(f"  {name}: imports libcst {'yes' if 'libcst' in mods else 'no'}, sqlglot "
                  f"{'yes' if 'sqlglot' in mods else 'no'}, {len(rules)} rule modules "
                  f"({', '.join(m.rsplit('.', 1)[1] for m in rules) or 'none'})")
    finally:
        shutil.rmtree(tmp)


_FLOOR = r"""
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
sys.path.insert(0, sys.argv[1])

def parse_all(paths):
    from linter.runner import _tune_gc
    from linter.sources import PYTHON, SourceError, load_document
    from linter.sources.python import parse
    _tune_gc()
    n = 0
    for path in paths:
        with open(path, 'rb') as f:
            data = f.read()
        try:
            doc = load_document(path, data)  # notebooks: their cells, as sparkcheck reads them
            for unit in doc.units:
                if unit.kind == PYTHON and unit.error is None:
                    parse(unit.text)
                    n += 1
        except (SourceError, RecursionError, MemoryError):
            pass
    return n

if __name__ == '__main__':
    paths = sys.argv[3:]
    jobs = int(sys.argv[2])
    sizes = sorted(((os.path.getsize(p), p) for p in paths), reverse=True)
    total = sum(s for s, _ in sizes)
    target = max(32 * 1024, total // (jobs * 32))
    batches, current, size = [], [], 0
    for s, p in sizes:
        current.append(p)
        size += s
        if size >= target:
            batches.append(current)
            current, size = [], 0
    if current:
        batches.append(current)
    with ProcessPoolExecutor(jobs) as pool:
        print(sum(pool.map(parse_all, batches)))
"""


def python_files(dirs) -> list[str]:
    """The Python files and notebooks sparkcheck's discovery picks under ``dirs`` (its default excludes)."""
    sys.path.insert(0, ROOT)
    from linter.files import DEFAULT_EXCLUDE

    out = []
    for top in dirs:
        for base, subdirs, names in os.walk(top):
            subdirs[:] = sorted(d for d in subdirs if d not in DEFAULT_EXCLUDE)
            out += [os.path.join(base, n) for n in sorted(names) if n.endswith((".py", ".pyi", ".ipynb"))]
    return out


def cold(dirs: list, rounds: int, jobs: int = 2) -> None:
    """The cold full run (no cache) against libcst's own parse of the same Python files and notebook cells over
    the same number of processes, both as whole commands (interpreter, imports, pool), alternating."""
    _compile_bytecode()
    for top in dirs:
        files = python_files([top])
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(_FLOOR)
            floor_script = f.name
        try:
            check = [*SPARKCHECK, "check", top, "--no-cache", "--exit-zero", "-q", "--jobs", str(jobs)]
            floor_cmd = [sys.executable, floor_script, ROOT, str(jobs), *files]
            runs: dict = {"floor": [], "check": []}
            cpus: dict = {"floor": [], "check": []}
            for _ in range(rounds):
                for name, cmd in (("floor", floor_cmd), ("check", check)):
                    wall, cpu = timed_cpu(cmd)
                    runs[name].append(wall)
                    cpus[name].append(cpu)
            floor, took = statistics.median(runs["floor"]), statistics.median(runs["check"])
            floor_cpu, cpu = statistics.median(cpus["floor"]), statistics.median(cpus["check"])
            print(f"cold run of {top} ({len(files)} Python files and notebooks, {jobs} processes, median of "
                  f"{rounds} alternating): check {took:.2f} s, libcst parse floor {floor:.2f} s: "
                  f"{took / floor:.2f}x wall; CPU {cpu:.2f} s against {floor_cpu:.2f} s: {cpu / floor_cpu:.2f}x "
                  f"(wall runs: check {', '.join(f'{t:.2f}' for t in runs['check'])}; "
                  f"floor {', '.join(f'{t:.2f}' for t in runs['floor'])})")
        finally:
            os.unlink(floor_script)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="startup only")
    parser.add_argument("--one-file", action="store_true", help="the one-file runs, as ratios to `import libcst`")
    parser.add_argument("--cold", action="store_true", help="cold full runs against libcst's parse floor")
    parser.add_argument("--rounds", type=int, default=None, help="alternating rounds (--one-file 11, --cold 3)")
    parser.add_argument("--peers", help="a venv holding sparkdoctor and pipeline-lint, timed on the same job")
    parser.add_argument("--editable", action="store_true",
                        help="--one-file: time this venv and the source tree, not a throwaway `pip install .`")
    parser.add_argument("dirs", nargs="*", help="--cold: directories (default: the shared corpus and pyspark's sources)")
    args = parser.parse_args()
    print(f"sparkcheck benchmark on {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    if args.one_file or args.cold:
        if args.one_file:
            one_file(args.rounds or 11, args.peers, args.editable)
        if args.cold:
            cold(args.dirs or [d for d in (CORPUS, pyspark_dir()) if os.path.isdir(d)], args.rounds or 3)
        return
    startup()
    one_file(args.rounds or 5, args.peers, args.editable)
    if not args.quick:
        throughput()


if __name__ == "__main__":
    main()
