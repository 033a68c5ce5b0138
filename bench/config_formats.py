"""What a repository full of JSON, YAML and Terraform that sets nothing of Spark's costs a run.

    .venv/bin/python bench/config_formats.py                # 2,000 unrelated files, one run each (~5 min)
    .venv/bin/python bench/config_formats.py --files 500 --runs 3

A temporary directory is filled with files of the kinds a data team's repository holds beside its jobs
and that define no Spark cluster: npm manifests and a lock file, tsconfig (with comments), GitHub Actions
workflows, Kubernetes Deployments and Services, docker-compose files, Terraform for AWS (made from
fixtures/config/unrelated/, with their names and values varied), plus the real third-party JSON of the
virtualenv's jsonschema_specifications in place. Then, each in a fresh process, `sparkcheck check
--no-cache`:

- on the PySpark corpus (../shared/data/pyspark-corpus, in place) alone;
- on the corpus and the unrelated directory together;
- on the unrelated directory alone, and on its files named one by one (what pre-commit does, which
  reads every file it is given; discovery in a directory reads them by content and parses none);
- on a directory of one small Python file (what every run pays to start and check something).

The figure of the target (under 5%) is the unrelated directory's own CPU time (its run less the start-up)
as a share of the run over corpus and unrelated files together; the plain difference of the two runs is
printed beside it, but on a shared machine it moves by more than it measures.

It also checks that the unrelated files give no finding, and prints the readers' own speed on definitions
that do hold clusters (a fixture repeated to about a megabyte). Nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "data", "pyspark-corpus")
UNRELATED = os.path.join(ROOT, "fixtures", "config", "unrelated")
SPARKCHECK = os.path.join(ROOT, ".venv", "bin", "sparkcheck")

_COMPOSE = """services:
  web:
    image: registry.example.com/{name}:{version}
    ports:
      - "{port}:8080"
    environment:
      DATABASE_URL: postgres://app@db:5432/{name}
    depends_on:
      - db
  db:
    image: postgres:16
    volumes:
      - db-data:/var/lib/postgresql/data
volumes:
  db-data: {{}}
"""


def _templates() -> dict:
    out = {}
    for base, _, names in os.walk(UNRELATED):
        for name in names:
            path = os.path.join(base, name)
            with open(path, encoding="utf-8") as f:
                out[os.path.relpath(path, UNRELATED)] = f.read()
    return out


def generate(directory: str, count: int) -> int:
    """``count`` unrelated files (and one large lock file) under ``directory``; returns how many."""
    templates = _templates()
    kinds = sorted(templates) + ["docker-compose.yml"]
    written = 0
    for i in range(count):
        kind = kinds[i % len(kinds)]
        text = _COMPOSE if kind == "docker-compose.yml" else templates[kind]
        name = f"service-{i:04d}"
        text = (text.replace("orders-dashboard", name).replace("{name}", name).replace("{version}", f"1.{i}.0")
                .replace("{port}", str(3000 + i % 1000)).replace("{{}}", "{}"))
        path = os.path.join(directory, f"app{i // 50:03d}", f"{i:04d}-" + kind.replace(os.sep, "-").lstrip(".-"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        written += 1
    packages = {f"node_modules/pkg-{i}": {"version": f"{i % 9}.{i % 7}.{i % 5}", "resolved":
                f"https://registry.npmjs.org/pkg-{i}/-/pkg-{i}-1.0.0.tgz", "integrity": "sha512-" + "A" * 86,
                "dev": i % 3 == 0} for i in range(12_000)}
    with open(os.path.join(directory, "package-lock.json"), "w", encoding="utf-8") as f:
        json.dump({"name": "monorepo", "lockfileVersion": 3, "requires": True, "packages": packages}, f, indent=2)
    return written + 1


def run(args: list) -> tuple:
    """(CPU seconds, wall seconds, findings) of one `sparkcheck check` in a fresh process. CPU time (user +
    system, the worker processes included) is the figure compared: the machine is shared, and wall time
    moves with the other processes' load more than with what is measured."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([SPARKCHECK, "check", "--no-cache", "--exit-zero", "--output-format", "json", *args],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"sparkcheck failed: {proc.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, json.loads(proc.stdout or "[]")


def best_run(args: list, runs: int) -> tuple:
    """The least CPU and wall time of ``runs`` runs: on a loaded machine the other processes only add."""
    cpus, walls, findings = [], [], []
    for _ in range(runs):
        cpu, wall, findings = run(args)
        cpus.append(cpu)
        walls.append(wall)
    return min(cpus), min(walls), findings


def readers() -> None:
    """CPU throughput of the JSON, YAML and Terraform readers on a definition that holds clusters: a fixture
    repeated to about a megabyte (the 1,600 job clusters of a bundle, the 1,800 resources of a .tf file)."""
    sys.path.insert(0, ROOT)
    from linter.sources.sparkconf import config_sets

    def fixture(*parts):
        with open(os.path.join(ROOT, "fixtures", "config", *parts), encoding="utf-8") as f:
            return f.read()

    bundle = fixture("databricks", "bundle", "resources", "orders_job.yml")
    body = bundle.split("  jobs:\n", 1)[1]
    tf = fixture("terraform", "databricks.tf")
    job = fixture("databricks", "nightly-job.json")
    cases = (("YAML (asset bundle)", "big.yml", "resources:\n  jobs:\n" + "".join(
                 body.replace("orders_job:", f"job_{i}:") for i in range(800))),
             ("Terraform (databricks_job)", "big.tf", "".join(
                 tf.replace('"this"', f'"j{i}"').replace('"shared_autoscaling"', f'"c{i}"') for i in range(600))),
             ("JSON (Jobs API)", "big.json", "[" + ",".join([job] * 1500) + "]"))
    for label, name, text in cases:
        start = time.process_time()
        sets = config_sets(name, text)
        cpu = time.process_time() - start
        print(f"reader {label:28s} {len(text) / 1e6:5.2f} MB in {cpu:5.2f} CPU s = {len(text) / 1e6 / cpu:5.1f} MB/s "
              f"({len(sets)} clusters)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000, help="unrelated files to generate (default 2000)")
    parser.add_argument("--runs", type=int, default=1, help="runs of each measurement; the least time is shown")
    options = parser.parse_args()
    specs = glob.glob(os.path.join(ROOT, ".venv", "lib", "python3*", "site-packages", "jsonschema_specifications"))
    work = tempfile.mkdtemp(prefix="sparkcheck-config-bench-")
    try:
        unrelated = os.path.join(work, "repo")
        count = generate(unrelated, options.files)
        size = sum(os.path.getsize(os.path.join(b, n)) for b, _, ns in os.walk(unrelated) for n in ns)
        real = [os.path.join(b, n) for d in specs for b, _, ns in os.walk(d) for n in ns if n.endswith(".json")]
        print(f"unrelated: {count} generated files ({size / 1e6:.1f} MB) and {len(real)} real JSON files "
              f"(jsonschema_specifications); corpus: {CORPUS}")
        empty_dir = os.path.join(work, "empty")
        os.makedirs(empty_dir)
        with open(os.path.join(empty_dir, "settings.py"), "w", encoding="utf-8") as f:
            f.write("DEBUG = False\n")  # one file checked: the start-up of a run that checks something
        empty = best_run([empty_dir], options.runs)
        corpus = best_run([CORPUS], options.runs)
        both = best_run([CORPUS, unrelated, *specs], options.runs)
        alone = best_run([unrelated, *specs], options.runs)
        files = [os.path.join(b, n) for b, _, ns in os.walk(unrelated) for n in ns] + real
        named = best_run(files, options.runs)
        for label, (cpu, wall, found) in (("nothing (start-up)", empty), ("corpus alone", corpus),
                                          ("corpus + unrelated directory", both),
                                          ("unrelated directory alone", alone),
                                          ("unrelated files named one by one", named)):
            print(f"{label:34s} CPU {cpu:7.2f} s   wall {wall:7.2f} s   {len(found)} findings")
        # The unrelated files' own cost: their run less the start-up every run pays, against the whole run.
        share = (alone[0] - empty[0]) / both[0]
        named_share = (named[0] - empty[0]) / both[0]
        print(f"unrelated files in a directory: {alone[0] - empty[0]:.2f} CPU s = {share:.1%} of the run over "
              f"corpus + unrelated (target: under 5%); the difference of the two runs: "
              f"{(both[0] - corpus[0]) / both[0]:.1%}")
        print(f"the same files named one by one (pre-commit): {named[0] - empty[0]:.2f} CPU s = {named_share:.1%}")
        print("(a negative share: less than the run of one small Python file, which starts the checker; no "
              "unrelated file reaches it)")
        if alone[2] or named[2] or len(both[2]) != len(corpus[2]):
            sys.exit("unrelated files gave findings")
        readers()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
