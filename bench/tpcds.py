"""TPC-DS on local Spark: the plan and run rules against real plans, and the static SQL rules against those plans.

    .venv/bin/python bench/tpcds.py                     # sf 0.3, the 99 queries, broadcast on and off (~15 min)
    .venv/bin/python bench/tpcds.py --sf 0.05 --queries 3,7,19,72
    .venv/bin/python bench/tpcds.py --analyse-only      # re-run sparkcheck over the plans of the last run

Data: DuckDB's TPC-DS extension from PyPI (`duckdb` and `duckdb-extension-tpcds`, same
version), loaded from the file that package ships (no network: `INSTALL tpcds` would download),
`CALL dsdgen(sf=...)`, each table written as Parquet under `--work` (a temp dir by default;
never in the project). The three sales fact tables are then rewritten by Spark partitioned by
their sold-date key, as spark-sql-perf lays TPC-DS out, so that scans have partition filters and
dynamic partition pruning has something to prune.

Queries: `tpcds_queries()` of the same extension (DuckDB's dialect, which Spark reads as it is
for all but a few; those are translated by sqlglot and, failing that, reported as not run).

Run: one local[2] SparkSession per mode, in a child process each, with the event log on:
`broadcast-on` (Spark's defaults: AQE, autoBroadcastJoinThreshold 10 MiB) and `broadcast-off`
(`spark.sql.autoBroadcastJoinThreshold=-1`, which AQE's own threshold follows). Each query is
collected, then its plan is written in three explain modes (the simple mode, which after the run
is AQE's final plan, `formatted` and `cost`).

Analysis: sparkcheck's plan rules (SPK6xx) over every explain file and its plan and run rules
(SPK6xx, SPK7xx) over each event log; a table of findings per rule and mode (how many findings, on
how many queries), and one line per query and rule in `--work`/findings.tsv. Then the
cross-check: each static SQL finding that a plan can confirm or refute (SPK505 cross joins
against CartesianProduct/BroadcastNestedLoopJoin in the query's plan; SPK509 non-sargable
predicates against the scan's PushedFilters/DataFilters) is counted as agreed or disagreed.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import glob
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

MODES = {"broadcast-on": {}, "broadcast-off": {"spark.sql.autoBroadcastJoinThreshold": "-1"}}
EXPLAINS = ("final", "formatted", "cost")  # `final`: the simple mode, after the run
# The fact tables spark-sql-perf partitions by date, and their date key.
PARTITIONED = {"store_sales": "ss_sold_date_sk", "catalog_sales": "cs_sold_date_sk", "web_sales": "ws_sold_date_sk"}


def extension_path() -> str:
    """The tpcds extension file shipped by the duckdb-extension-tpcds wheel (loaded offline)."""
    import duckdb
    import duckdb_extension_tpcds

    base = os.path.dirname(duckdb_extension_tpcds.__file__)
    found = glob.glob(os.path.join(base, "extensions", f"v{duckdb.__version__}", "tpcds.duckdb_extension")) or \
        glob.glob(os.path.join(base, "extensions", "*", "tpcds.duckdb_extension"))
    if not found:
        raise SystemExit(f"no tpcds.duckdb_extension in {base} (duckdb {duckdb.__version__})")
    return found[0]


def connect():
    import duckdb

    con = duckdb.connect()
    con.execute(f"LOAD '{extension_path()}'")
    return con


def queries(numbers=None) -> dict[int, str]:
    """{query number: text} of the 99 TPC-DS queries, as the extension writes them."""
    rows = connect().execute("SELECT query_nr, query FROM tpcds_queries() ORDER BY query_nr").fetchall()
    return {int(n): q.strip().rstrip(";") for n, q in rows if numbers is None or int(n) in numbers}


def generate(dest: str, sf: float) -> str:
    """Parquet files of every TPC-DS table at scale factor `sf` under dest/raw/<table>.parquet (kept if there)."""
    raw = os.path.join(dest, "raw")
    done = os.path.join(raw, "_DONE")
    if os.path.exists(done):
        return raw
    os.makedirs(raw, exist_ok=True)
    con = connect()
    con.execute(f"CALL dsdgen(sf={sf})")
    for (table,) in con.execute("SHOW TABLES").fetchall():
        con.execute(f"COPY {table} TO '{os.path.join(raw, table + '.parquet')}' (FORMAT parquet)")
    open(done, "w").close()
    return raw


def session(mode: str, eventlog_dir=None, extra=None):
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (SparkSession.builder.master("local[2]").appName(f"tpcds-{mode}")
               .config("spark.ui.enabled", "false")
               .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.driver.memory", "4g")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "16")
               # thousands of small date partitions: pack many files into one task, as a larger data set would
               .config("spark.sql.files.openCostInBytes", str(64 << 10)))
    if eventlog_dir:
        os.makedirs(eventlog_dir, exist_ok=True)
        builder = builder.config("spark.eventLog.enabled", "true").config("spark.eventLog.dir", eventlog_dir)
    for key, value in {**MODES[mode], **(extra or {})}.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def register(spark, dest: str, raw: str, partition: bool = True) -> None:
    """Temp views over the Parquet files; the sales facts partitioned by date (written once, by Spark)."""
    for path in sorted(glob.glob(os.path.join(raw, "*.parquet"))):
        table = os.path.basename(path)[:-len(".parquet")]
        if partition and table in PARTITIONED:
            target = os.path.join(dest, "partitioned", table)
            if not os.path.exists(os.path.join(target, "_SUCCESS")):
                (spark.read.parquet(path).repartition(PARTITIONED[table]).write.mode("overwrite")
                 .partitionBy(PARTITIONED[table]).parquet(target))
            path = target
        spark.read.parquet(path).createOrReplaceTempView(table)


def spark_text(spark, text: str) -> str:
    """The query as Spark runs it: DuckDB's text where Spark parses it, else sqlglot's translation."""
    try:
        spark.sql(f"EXPLAIN {text}")  # parses and analyses, runs nothing
        return text
    except Exception:  # noqa: BLE001  (any parse or analysis error: try the translation)
        import sqlglot

        return sqlglot.transpile(text, read="duckdb", write="spark")[0]


def explain(df, mode: str) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        df.explain(mode="simple" if mode == "final" else mode)
    return buffer.getvalue()


def run_queries(spark, texts: dict[int, str], out: str, explains=EXPLAINS) -> dict:
    """Collect each query and write its plans to out/q<NN>.<explain>.txt; {query: status}."""
    os.makedirs(out, exist_ok=True)
    status = {}
    for number, text in texts.items():
        started = time.time()
        try:
            text = spark_text(spark, text)
            spark.sparkContext.setJobDescription(f"q{number:02d}")
            df = spark.sql(text)
            df.collect()
            for kind in explains:
                with open(os.path.join(out, f"q{number:02d}.{kind}.txt"), "w", encoding="utf-8") as f:
                    f.write(explain(df, kind))
            with open(os.path.join(out, f"q{number:02d}.sql"), "w", encoding="utf-8") as f:
                f.write(text + "\n")
            status[number] = {"ok": True, "seconds": round(time.time() - started, 1)}
        except Exception as e:  # noqa: BLE001  (a query Spark refuses is reported, not fatal)
            status[number] = {"ok": False, "error": str(e).splitlines()[0][:300]}
        print(f"  q{number:02d} {'ok' if status[number]['ok'] else 'FAILED'} {time.time() - started:.1f} s",
              file=sys.stderr, flush=True)
    return status


def _child(args) -> None:
    numbers = _numbers(args.queries)
    raw = os.path.join(args.work, "raw")
    spark = session(args.child, os.path.join(args.work, "eventlogs", args.child))
    register(spark, args.work, raw)
    status = run_queries(spark, queries(numbers), os.path.join(args.work, "plans", args.child))
    spark.stop()
    with open(os.path.join(args.work, f"status-{args.child}.json"), "w", encoding="utf-8") as f:
        json.dump(status, f, indent=1)


def _numbers(spec):
    if not spec:
        return None
    return {int(x) for x in spec.split(",") if x.strip()}


# ---- analysis ---------------------------------------------------------------------------------------------


def _settings(select):
    from linter.config import Resolver

    return Resolver({"select": select}).for_path(os.path.join(ROOT, "plan.txt"))


def plan_findings(path: str, select=("SPK6",)):
    from linter.runtime.plans import check_plan_text

    with open(path, encoding="utf-8") as f:
        return check_plan_text(path, f.read(), _settings(list(select)))


def eventlog_findings(path: str):
    """Plan and run findings of an event log, as `sparkcheck plan --output-format json` gives them."""
    r = subprocess.run([sys.executable, "-m", "linter", "plan", path, "--select", "SPK6,SPK7", "--exit-zero",
                        "--output-format", "json"], capture_output=True, text=True, cwd=ROOT, check=False)
    return json.loads(r.stdout or "[]")


_QUERY_OF = re.compile(r"\bq(\d\d)\b")


def analyse(work: str, modes=tuple(MODES)) -> dict:
    """{mode: {source: Counter((rule, query))}}, plus the static cross-check; writes work/findings.tsv."""
    table: dict = {}
    rows = []
    ran: dict = {}
    for mode in modes:
        plans = os.path.join(work, "plans", mode)
        ran[mode] = sorted({int(m.group(1)) for p in glob.glob(os.path.join(plans, "q*.final.txt"))
                            for m in [re.search(r"q(\d+)\.final", p)]})
        per = table.setdefault(mode, {})
        for kind in EXPLAINS:
            counts = per.setdefault(kind, collections.Counter())
            for path in sorted(glob.glob(os.path.join(plans, f"q*.{kind}.txt"))):
                q = int(re.search(r"q(\d+)\.", os.path.basename(path)).group(1))
                for f in plan_findings(path):
                    counts[(f.code, q)] += 1
                    rows.append((mode, kind, f"q{q:02d}", f.code, f.message))
        counts = per.setdefault("eventlog", collections.Counter())
        for log in glob.glob(os.path.join(work, "eventlogs", mode, "*")):
            for f in eventlog_findings(log):
                m = _QUERY_OF.search(f["message"])
                q = int(m.group(1)) if m else 0  # run findings of the whole application: query 0
                counts[(f["code"], q)] += 1
                rows.append((mode, "eventlog", f"q{q:02d}" if q else "app", f["code"], f["message"]))
    with open(os.path.join(work, "findings.tsv"), "w", encoding="utf-8") as f:
        f.write("mode\tsource\tquery\tcode\tmessage\n")
        f.writelines("\t".join(str(c).replace("\t", " ").replace("\n", " ") for c in row) + "\n" for row in rows)
    return {"table": table, "ran": ran, "cross": cross_check(work)}


def static_findings(text: str, select: str):
    """Static findings of one rule on one SQL text, through the engine the CLI uses."""
    from linter.config import Resolver
    from linter.engine import check_source

    path = os.path.join(ROOT, f"tpcds-{select}.sql")  # never written: the engine reads the bytes given
    settings = Resolver({"select": [select]}).for_path(path)
    return [d for d in check_source(path, (text + ";\n").encode(), settings) if d.code == select]


def _plan_text(work: str, mode: str, q: int, kind: str = "formatted") -> str:
    path = os.path.join(work, "plans", mode, f"q{q:02d}.{kind}.txt")
    if not os.path.exists(path):
        return ""
    with open(path, encoding="utf-8") as f:
        return f.read()


def cross_check(work: str) -> dict:
    """Static SQL findings against the plan Spark made for the same query (broadcast-on, final plan).

    - SPK505 (cross join): the plan confirms it with a CartesianProduct or BroadcastNestedLoopJoin whose
      sides are both more than one row (SPK602's reading: a side that is a global aggregate, Spark's
      one-row relation or a stage AQE measured at one row pairs nothing); a query without either agrees.
    - SPK509 (non-sargable predicate on a column): the plan confirms it when no scan reading the column
      carries a pushed filter on it (IsNotNull aside), refutes it when one does.
    No SQL rule judges broadcastable joins from the text (SPK604 needs sizes), so there is nothing to
    check there; SPK523 (non-equi joins) has no finding on TPC-DS.
    """
    from linter.sources.plan import parse_plans

    try:
        from checks.plan.cartesian_in_plan import _one_row
    except ImportError:  # a tree before SPK602 knew one-row sides (bench/tpcds.py copied into an older checkout)
        def _one_row(side):
            return False

    out = {"SPK505": collections.Counter(), "SPK509": collections.Counter(), "detail": [], "raw_cartesian": 0}
    mode = "broadcast-on"
    for sql in sorted(glob.glob(os.path.join(work, "plans", mode, "q*.sql"))):
        q = int(re.search(r"q(\d+)\.sql", sql).group(1))
        with open(sql, encoding="utf-8") as f:
            text = f.read()
        nodes = [n for p in parse_plans(_plan_text(work, mode, q, "final")) for n in p.root.walk()]
        products = [n for n in nodes if n.name in ("CartesianProduct", "BroadcastNestedLoopJoin")]
        out["raw_cartesian"] += bool(products)
        real = [n for n in products if not any(_one_row(c) for c in n.children)]
        static = static_findings(text, "SPK505")
        verdict = ("agree" if bool(static) == bool(real) else "disagree", "finding" if static else "no finding")
        out["SPK505"][verdict] += 1
        if static or products:
            out["detail"].append(("SPK505", f"q{q:02d}", f"static {len(static)}",
                                  f"plan {len(products)} products, {len(real)} of multi-row sides", verdict[0]))
        scans = [n for n in nodes if n.name in ("FileScan", "BatchScan")]
        for d in static_findings(text, "SPK509"):
            column = re.search(r"on `([A-Za-z_]\w*)`", d.message)
            name = column.group(1).lower() if column else ""
            reading = [n for n in scans if name and re.search(rf"\b{name}#", n.text)]
            if not reading:
                continue  # no scan reads the column: nothing to judge
            pushed = [item for n in reading for item in re.findall(r"\w+\([^()]*\)", n.attrs.get("PushedFilters", ""))
                      if re.search(rf"\({name}\b", item) and not item.startswith("IsNotNull(")]
            verdict = ("disagree" if pushed else "agree", "finding")
            out["SPK509"][verdict] += 1
            out["detail"].append(("SPK509", f"q{q:02d}", name, ", ".join(pushed) or "nothing pushed on it", verdict[0]))
    return out


def report(result: dict, work: str) -> str:
    lines = []
    table, ran = result["table"], result["ran"]
    from linter.registry import all_rules

    codes = sorted({r.code for r in all_rules() if r.kind in ("plan", "run")} |
                   {code for per in table.values() for counts in per.values() for code, _ in counts})
    sources = list(EXPLAINS) + ["eventlog"]
    header = "| rule | " + " | ".join(f"{m} {s}" for m in table for s in sources) + " |"
    lines.append(header)
    lines.append("|---|" + "---:|" * (len(table) * len(sources)))
    for code in codes:
        cells = []
        for per in table.values():
            for source in sources:
                counts = per.get(source, collections.Counter())
                n = sum(v for (c, _), v in counts.items() if c == code)
                queries_hit = len({q for (c, q), v in counts.items() if c == code and q})
                cells.append(f"{n} on {queries_hit} q" if n else "0")
        lines.append(f"| {code} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("cells: findings on how many queries (event logs: plan findings per SQL execution, run findings "
                 "of the application count once, on no query); queries run: " +
                 ", ".join(f"{m} {len(q)}" for m, q in ran.items()))
    lines.append("")
    cross = result["cross"]
    lines.append(f"queries whose plan holds a CartesianProduct or BroadcastNestedLoopJoin: {cross['raw_cartesian']}")
    for code in ("SPK505", "SPK509"):
        lines.append(f"{code} static vs plan: " + ", ".join(f"{' '.join(k)}: {v}" for k, v in sorted(cross[code].items())))
    lines.append("")
    lines.append("cross-check detail (rule, query, static, plan, verdict):")
    for row in cross["detail"]:
        lines.append("  " + "  ".join(str(c) for c in row))
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sf", type=float, default=0.3)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "sparkcheck-tpcds"))
    parser.add_argument("--queries", default="", help="query numbers, comma separated (default: all 99)")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--analyse-only", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args)
        return 0
    modes = [m for m in args.modes.split(",") if m]
    if not args.analyse_only:
        started = time.time()
        generate(args.work, args.sf)
        print(f"data: sf {args.sf} in {args.work}/raw, {time.time() - started:.0f} s", file=sys.stderr)
        for mode in modes:
            started = time.time()
            subprocess.run([sys.executable, __file__, "--child", mode, "--work", args.work, "--sf", str(args.sf),
                            "--queries", args.queries], check=True)
            with open(os.path.join(args.work, f"status-{mode}.json"), encoding="utf-8") as f:
                status = json.load(f)
            failed = {q: s["error"] for q, s in status.items() if not s["ok"]}
            print(f"{mode}: {len(status) - len(failed)}/{len(status)} queries ran in {time.time() - started:.0f} s; "
                  f"failed: {failed or 'none'}", file=sys.stderr)
    result = analyse(args.work, tuple(modes))
    print(report(result, args.work))
    print(f"\nper query: {os.path.join(args.work, 'findings.tsv')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
