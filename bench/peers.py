"""sparkcheck against the other PySpark linters, side by side in one run.

Run by hand:  .venv/bin/python bench/peers.py

The peers are installed into a throwaway virtual environment in a temporary
folder (never into the project), then every tool checks the same copy of the
corpus: the Python sources shipped in the installed pyspark package plus the
TPC-H queries of ../shared/data/tpch/queries. Wall time of one cold run each;
sparkcheck without its cache, with 2 processes. Compare ratios within a run.

With ``--examples`` (``--misses`` to list what sparkcheck gets wrong, ``--keep DIR`` to keep the
files): the peers' own published positive and negative examples (bench/peer_cases.py) run through
sparkcheck and through the peer, scored per peer with bench/peer_mapping.tsv (which sparkcheck
codes cover each peer rule). Only cases of rules mapped or partially mapped count ("in scope"):
a positive is caught when a finding with a mapped code (for the peer: its own rule id) is in its
file (where the case names ``# expect:`` lines, in a statement one of them opens); a negative is
flagged when such a finding is there at all, unless the peer itself reports that statement under
another of its rules that the mapping gives the same code (a case is a negative of the rule it
tests only; such cases are counted apart). Snippets that never define their DataFrame or never
import pyspark's names are counted like the others, and their number is printed. Targets (issue):
>= 85% of in-scope positives caught, < 3% of negatives flagged. About a minute; never a test.

Disputed cases (bench/peer_disputes.tsv): a peer's verdict that Spark's own behaviour contradicts
(a filter is no bound on what a ``collect()`` brings back; an overwrite that writes the whole table
loses nothing). The raw figures count every case, as before; a second table gives the same figures
with the disputed cases left out, and every disputed case is listed with its reason. A dispute names
its case by id (``c0220``: the case's place in ``peer_cases.CASES``, the same on every run of the same
peer_cases.py) and by where it comes from (its source and locate, as the lists print them): a
dispute whose id no longer holds that case is matched by peer, rule and where instead, and one that
matches nothing is printed as stale and applied to nothing.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import csv
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TPCH = os.path.join(os.path.dirname(ROOT), "shared", "data", "tpch", "queries")
PEERS = ["pipeline-lint", "cylint", "spark-perf-lint", "sparkdoctor", "pyspark-antipattern"]


def main(argv: list | None = None) -> None:
    parser = argparse.ArgumentParser(description="sparkcheck against the other PySpark linters")
    parser.add_argument("--examples", action="store_true",
                        help="score sparkcheck and the peers on the peers' own examples")
    parser.add_argument("--misses", action="store_true",
                        help="with --examples: list the positives sparkcheck misses and the negatives it flags")
    parser.add_argument("--keep", metavar="DIR", help="with --examples: work in DIR and keep it")
    args = parser.parse_args(argv)
    if args.misses and not args.examples:
        parser.error("--misses goes with --examples")
    if args.examples:
        examples(misses=args.misses, keep=args.keep)
        return
    timing()


def timing() -> None:
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


# --------------------------------------------------------------------------------------------
# --examples: the peers' own positive and negative examples

MAPPING = os.path.join(ROOT, "bench", "peer_mapping.tsv")
DISPUTES = os.path.join(ROOT, "bench", "peer_disputes.tsv")
IN_SCOPE = ("mapped", "partial")
TARGET_CAUGHT, TARGET_FLAGGED = 85.0, 3.0
# Names a snippet may use undefined that are not DataFrames (sparkcheck knows them by name).
SESSION_NAMES = {"spark", "sc", "sqlContext", "sqlCtx", "dbutils", "display", "self", "cls"}
# Fallback when pyspark is not installed: the DataFrame methods the snippets call most.
DATAFRAME_METHODS = {
    "agg", "alias", "cache", "checkpoint", "coalesce", "collect", "count", "crossJoin", "distinct",
    "drop", "dropDuplicates", "filter", "first", "groupBy", "groupby", "head", "isEmpty", "join",
    "limit", "localCheckpoint", "orderBy", "persist", "rdd", "repartition", "select", "selectExpr",
    "show", "sort", "take", "toLocalIterator", "toPandas", "union", "unionByName", "unpersist",
    "where", "withColumn", "withColumnRenamed", "withColumns", "write", "writeStream",
    "display",  # Databricks adds it to DataFrame
    "groupByKey", "reduceByKey", "mapValues", "flatMap", "mapPartitions",  # RDDs
}


def load_mapping(path: str = MAPPING) -> dict:
    """``{(peer, rule): (verdict, [codes], note)}`` from bench/peer_mapping.tsv."""
    out = {}
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            codes = [c.strip() for c in row["codes"].split(",") if c.strip()]
            out[(row["peer"], row["rule"])] = (row["verdict"], codes, row["note"])
    return out


def load_disputes(path: str = DISPUTES) -> list:
    """The rows of bench/peer_disputes.tsv: case, peer, rule, code, where, reason (``#`` lines are comments)."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8", newline="") as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    return [dict(row) for row in csv.DictReader(lines, delimiter="\t")]


def case_where(case: dict) -> str:
    """Where a case comes from, as the lists print it and a dispute names it: its source, then how it is cut out."""
    locate = case["locate"]
    return case["source"] if locate.get("file") else f"{case['source']} {_locate_short(locate)}"


def apply_disputes(cases: list, disputes: list) -> tuple[list, list]:
    """Mark each disputed case (``case["disputed"]``: the dispute's row); return (rows applied, stale rows).

    A row is matched by its case id when that case has the row's peer, rule and where; otherwise by peer,
    rule and where alone (the ids moved: peer_cases.py changed), noted as ``moved_from``."""
    by_id = {f"c{c['index']:04d}": c for c in cases}
    by_where: dict = {}
    for c in cases:
        by_where.setdefault((c["peer"], c["rule"], case_where(c)), []).append(c)
    applied, stale = [], []
    for row in disputes:
        key = (row["peer"], row["rule"], row["where"])
        case = by_id.get(row["case"])
        if case is None or (case["peer"], case["rule"], case_where(case)) != key:
            found = by_where.get(key, [])
            if len(found) != 1:
                stale.append(row)
                continue
            case = found[0]
            row = {**row, "moved_from": row["case"], "case": f"c{case['index']:04d}"}
        if case.get("disputed") is None:
            case["disputed"] = row
            applied.append(row)
    return applied, stale


def _pyspark_names() -> tuple[set, set]:
    """(DataFrame and RDD method names, names pyspark code uses only through an import: the functions,
    the types, ``F``, ``Window``...)."""
    methods = set(DATAFRAME_METHODS)
    names = {"F", "T", "Window", "StorageLevel", "SparkSession", "SparkConf", "udf", "pandas_udf",
             "col", "lit", "when", "expr", "broadcast"}
    try:
        from pyspark import RDD
        from pyspark.sql import DataFrame, functions, types
    except ImportError:
        return methods, names
    methods |= {m for cls in (DataFrame, RDD) for m in dir(cls) if not m.startswith("_")}
    names |= {n for mod in (functions, types) for n in dir(mod) if not n.startswith("_")}
    return methods, names - set(dir(builtins))


def snippet_gaps(text: str, methods: set, pyspark_names: set) -> dict | None:
    """What a snippet leaves out that sparkcheck needs to prove anything: ``"df"``, names it calls
    DataFrame methods on before (or without) binding them (``df.collect()`` with no ``df = ...``,
    ``df = df.join(...)`` as the first mention; RDDs alike); ``"imports"``, pyspark names it uses without
    importing them (``udf``, ``col``, ``F``). None when the snippet is not valid Python.

    Top-level uses are compared with the first binding in source order; uses inside a function
    body only with whether the name is bound anywhere. A star import from pyspark binds every
    pyspark name."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    first_bound: dict = {}
    uses = []  # (kind, name, line, inside a function)
    assigned: set = set()  # ids of the Name targets of assignments, bound after their value

    def bind(name: str, pos: float) -> None:
        if pos < first_bound.get(name, float("inf")):
            first_bound[name] = pos

    def visit(node, in_func: bool) -> None:
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            after = (node.end_lineno or node.lineno) + 0.5  # the value is read before the target is bound
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Name):
                        bind(sub.id, after)
                        assigned.add(id(sub))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in assigned:
            bind(node.id, node.lineno)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bind(node.name, node.lineno)
        elif isinstance(node, ast.arg):
            bind(node.arg, node.lineno)
        elif isinstance(node, ast.alias):
            if node.name == "*":
                bind("*", node.lineno)
            else:
                bind((node.asname or node.name).split(".")[0], node.lineno)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pyspark"):
            if any(a.name == "*" for a in node.names):
                for n in pyspark_names:
                    bind(n, node.lineno)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bind(node.name, node.lineno)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for n in node.names:
                bind(n, node.lineno)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in methods:
            uses.append(("df", node.value.id, node.lineno, in_func))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in pyspark_names:
            uses.append(("imports", node.id, node.lineno, in_func))
        inner = in_func or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(tree, False)
    known = set(dir(builtins)) | SESSION_NAMES
    gaps: dict = {"df": set(), "imports": set()}
    for kind, name, line, in_func in uses:
        if name in known:
            continue
        pos = first_bound.get(name, float("inf"))
        if (pos == float("inf")) if in_func else (line < pos):
            gaps[kind].add(name)
    return {k: sorted(v) for k, v in gaps.items()}


def _write_cases(cases: list, roots: dict, base: str) -> tuple[list, list]:
    """Write each case to ``base/<peer>/cNNNN/<file>``; return (written, failed).

    A written case gets ``path`` (relative to ``base/<peer>``), ``offset`` (the context's lines
    before the snippet), ``text`` (the snippet)."""
    import peer_cases  # bench/ is on sys.path when this runs as a script

    written, failed = [], []
    for i, case in enumerate(cases, 1):
        try:
            text = peer_cases.extract(case, roots)
        except (peer_cases.ExtractError, OSError, SyntaxError, KeyError, IndexError, TypeError,
                ValueError) as exc:
            failed.append((case, f"{type(exc).__name__}: {exc}"))
            continue
        context = case.get("context", "")
        ext = ".sql" if case["lang"] == "sql" else ".py"
        name = case.get("filename") or f"case_{i}{ext}"
        rel = f"c{i:04d}/{name}"
        full = os.path.join(base, case["peer"], rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(context + text)
        written.append({**case, "index": i, "path": rel, "text": text,
                        "offset": context.count("\n")})
    return written, failed


def _run_sparkcheck(base: str, work: str, codes: set, preview: bool = True) -> dict:
    """``{(peer, relative path): [(code, line)]}`` of one sparkcheck run over every case."""
    config = os.path.join(work, "sparkcheck.toml")  # neutral settings: the defaults
    with open(config, "w", encoding="utf-8") as f:
        f.write("")
    rules = json.loads(subprocess.run(
        [sys.executable, "-m", "linter", "rules", "--preview", "--output-format", "json"],
        check=True, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ROOT}).stdout)
    explicit = sorted(r["code"] for r in rules if r["explicit"] and r["code"] in codes)
    cmd = [sys.executable, "-m", "linter", "check", base, "--no-cache", *(["--preview"] if preview else []),
           "--exit-zero", "--output-format", "json", "--config", config]
    if explicit:
        cmd += ["--extend-select", ",".join(explicit)]
    done = subprocess.run(cmd, check=False, capture_output=True, text=True, cwd=work,
                          env={**os.environ, "PYTHONPATH": ROOT}, timeout=900)
    if done.returncode != 0:
        sys.exit(f"bench: sparkcheck exited {done.returncode}: {done.stderr.strip()[-500:]}")
    found: dict = {}
    for d in json.loads(done.stdout):
        rel = os.path.relpath(d["filename"], base).replace(os.sep, "/")
        peer, _, path = rel.partition("/")
        found.setdefault((peer, path), []).append((d["code"], d["location"]["row"]))
    return {"findings": found, "explicit": explicit}


def expected_lines(full_text: str, lang: str, lines: list) -> set:
    """The lines a finding may be on to count for a ``# expect:`` line: the statement that line opens
    or lies in (pipeline-lint marks a statement's first line; a tool may point at the ``*`` or the
    call inside it). Python: the innermost statement around it (a compound statement's header
    only); SQL: up to the line that ends the statement with ``;``."""
    allowed = set(lines)
    text_lines = full_text.splitlines()
    if lang == "sql":
        for e in lines:
            for n in range(e, len(text_lines) + 1):
                allowed.add(n)
                if ";" in text_lines[n - 1].split("--", 1)[0]:
                    break
        return allowed
    try:
        tree = ast.parse(full_text)
    except (SyntaxError, ValueError):
        return allowed
    for e in lines:
        best = None
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and node.lineno <= e <= (node.end_lineno or node.lineno):
                end = node.end_lineno or node.lineno
                body = getattr(node, "body", None)
                if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                    end = max(node.lineno, body[0].lineno - 1)  # a compound statement: its header
                    if e > end:
                        continue
                if best is None or end - node.lineno < best[1] - best[0]:
                    best = (node.lineno, end)
        if best:
            allowed.update(range(best[0], best[1] + 1))
    return allowed


def _vouched(case: dict, peer_findings: list, mapping: dict) -> list:
    """The sparkcheck findings of a negative case that the peer itself reports, in the same statement,
    under another of its rules whose mapping gives the same code: a case is a negative for the rule
    it tests only (cylint's test that `repartition(1)` is not CY013's is CY013's negative and a
    positive of the rule it has for `repartition(1)`; both map to SPK402)."""
    full = case.get("context", "") + case["text"]
    vouched = []
    for code, line in case["ours"]:
        for rule, peer_line in peer_findings:
            verdict, codes, _ = mapping.get((case["peer"], rule), ("unmapped", [], ""))
            if rule == case["rule"] or verdict not in IN_SCOPE or code not in codes:
                continue
            if line in expected_lines(full, case["lang"], [peer_line]) or \
                    peer_line in expected_lines(full, case["lang"], [line]):
                vouched.append((code, line))
                case.setdefault("vouched_by", set()).add(rule)
                break
    return vouched


def _hits(findings: list, wanted: set, expect: set | None) -> list:
    return [(code, line) for code, line in findings
            if code in wanted and (not expect or line in expect)]


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} {100.0 * n / d:5.1f}%" if d else "0/0    -  "


def examples(misses: bool = False, keep: str | None = None) -> None:
    """The peers' own examples through sparkcheck and through each peer; see the module doc."""
    import concurrent.futures

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _peers
    import peer_cases

    start = time.perf_counter()
    mapping = load_mapping()
    tmp = os.path.abspath(keep) if keep else tempfile.mkdtemp(prefix="sparkcheck-peer-examples-")
    os.makedirs(tmp, exist_ok=True)
    try:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            fetching = pool.submit(peer_cases.fetch, tmp)
            installing = pool.submit(_peers.install, tmp)
            roots, commands = fetching.result(), installing.result()
        base = os.path.join(tmp, "cases")
        shutil.rmtree(base, ignore_errors=True)
        cases, failed = _write_cases(peer_cases.CASES, roots, base)
        unmapped = sorted({(c["peer"], c["rule"]) for c in cases} - set(mapping))
        codes = {code for verdict, cs, _ in mapping.values() if verdict in IN_SCOPE for code in cs}
        prepared = time.perf_counter() - start

        t0 = time.perf_counter()
        ours = _run_sparkcheck(base, tmp, codes)
        ours_took = time.perf_counter() - t0
        stable = _run_sparkcheck(base, tmp, codes, preview=False)  # the same without the preview cases
        theirs, peer_errors, peer_took = {}, {}, {}
        for peer in _peers.PEERS:
            if peer not in commands:
                peer_errors[peer] = f"not installed: {_peers.INSTALL_FAILURES.get(peer, '?')}"
                continue
            if not os.path.isdir(os.path.join(base, peer)):
                continue
            t0 = time.perf_counter()
            try:
                for f in _peers.run(peer, commands, os.path.join(base, peer)):
                    theirs.setdefault((peer, f.path), []).append((f.rule, f.line))
            except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
                peer_errors[peer] = str(exc).splitlines()[0] if str(exc) else repr(exc)
            peer_took[peer] = time.perf_counter() - t0

        methods, pyspark_names = _pyspark_names()
        for case in cases:
            verdict, mapped, _ = mapping.get((case["peer"], case["rule"]), ("unmapped", [], ""))
            case["verdict"], case["codes"] = verdict, mapped
            expect = None
            if case.get("expect_lines"):
                expect = expected_lines(case.get("context", "") + case["text"], case["lang"],
                                        [n + case["offset"] for n in case["expect_lines"]])
            key = (case["peer"], case["path"])
            case["ours_all"] = ours["findings"].get(key, [])
            case["ours"] = _hits(case["ours_all"], set(mapped), expect)
            case["stable"] = _hits(stable["findings"].get(key, []), set(mapped), expect)
            case["theirs"] = _hits(theirs.get(key, []), {case["rule"]}, expect)
            case["vouched"] = []
            if case["kind"] == "negative" and case["ours"]:
                case["vouched"] = _vouched(case, theirs.get(key, []), mapping)
                case["ours"] = [h for h in case["ours"] if h not in case["vouched"]]
                case["stable"] = [h for h in case["stable"] if h not in case["vouched"]]
            gaps = (snippet_gaps(case["text"], methods, pyspark_names) if case["lang"] == "python"
                    else {"df": [], "imports": []})
            case["no_df"] = None if gaps is None else gaps["df"]
            case["no_import"] = [] if gaps is None else gaps["imports"]

        disputes, stale = apply_disputes(cases, load_disputes())
        _print_examples(cases, failed, unmapped, ours["explicit"], peer_errors, misses, disputes, stale)
        took = time.perf_counter() - start
        peer_times = ", ".join(f"{p} {t:.1f} s" for p, t in peer_took.items())
        print(f"\ntime: {took:.0f} s in all (fetch + install {prepared:.0f} s, sparkcheck {ours_took:.1f} s, "
              f"{peer_times})")
    finally:
        if keep:
            print(f"files kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def _print_examples(cases, failed, unmapped, explicit, peer_errors, misses, disputes=(), stale=()) -> None:
    scoped = [c for c in cases if c["verdict"] in IN_SCOPE]
    print(f"{len(cases)} cases written ({len(failed)} could not be extracted); "
          f"{len(scoped)} in scope (peer rule mapped or partial in bench/peer_mapping.tsv)")
    print(f"sparkcheck: --preview, default options{', plus off-by-default ' + ', '.join(explicit) if explicit else ''} "
          f"(the mapped codes must be selected to be measured)")
    for case, why in failed:
        print(f"  NOT EXTRACTED {case['peer']} {case['rule']} {case['kind']} {case['source']}: {why}")
    for peer, rule in unmapped:
        print(f"  NOT IN THE MAPPING {peer} {rule} (counted out of scope)")
    for peer, why in peer_errors.items():
        print(f"  {peer}: FAILED: {why}")

    head = (f"{'peer':21s} {'pos':>4s}  {'sparkcheck caught':>17s}  {'peer caught':>17s}   "
            f"{'neg':>4s}  {'sparkcheck flagged':>18s}  {'peer flagged':>17s}")
    print("\nin-scope cases (sparkcheck: a mapped code in the file; peer: its own rule id)\n" + head)

    def row(label: str, rows: list, peer_failed: bool = False) -> tuple:
        pos = [c for c in rows if c["kind"] == "positive"]
        neg = [c for c in rows if c["kind"] == "negative"]
        hits = {(kind, side): sum(bool(c[side]) for c in group)
                for kind, group in (("pos", pos), ("neg", neg)) for side in ("ours", "theirs")}
        their_pos = "n/a" if peer_failed else _pct(hits["pos", "theirs"], len(pos))
        their_neg = "n/a" if peer_failed else _pct(hits["neg", "theirs"], len(neg))
        print(f"{label:21s} {len(pos):4d}  {_pct(hits['pos', 'ours'], len(pos)):>17s}  {their_pos:>17s}   "
              f"{len(neg):4d}  {_pct(hits['neg', 'ours'], len(neg)):>18s}  {their_neg:>17s}")
        return len(pos), hits["pos", "ours"], len(neg), hits["neg", "ours"]

    for peer in _peers_order(cases):
        row(peer, [c for c in scoped if c["peer"] == peer], peer in peer_errors)
    print("-" * len(head))
    n_pos, n_caught, n_neg, n_flagged = row("all", scoped)
    for verdict in IN_SCOPE:
        row(f"  of which {verdict}", [c for c in scoped if c["verdict"] == verdict])
    caught_pct = 100.0 * n_caught / n_pos if n_pos else 0.0
    flagged_pct = 100.0 * n_flagged / n_neg if n_neg else 0.0
    print(f"\ntargets: positives caught >= {TARGET_CAUGHT:.0f}%: {caught_pct:.1f}% "
          f"({'met' if caught_pct >= TARGET_CAUGHT else 'NOT met'}); negatives flagged < {TARGET_FLAGGED:.0f}%: "
          f"{flagged_pct:.1f}% ({'met' if flagged_pct < TARGET_FLAGGED else 'NOT met'})")
    stable_pos = sum(bool(c["stable"]) for c in scoped if c["kind"] == "positive")
    stable_neg = sum(bool(c["stable"]) for c in scoped if c["kind"] == "negative")
    print(f"without --preview (the default rule set and its default cases, same off-by-default codes): "
          f"positives caught {_pct(stable_pos, n_pos)}, negatives flagged {_pct(stable_neg, n_neg)}")
    _print_disputed(scoped, disputes, stale, row, head)

    pos = [c for c in scoped if c["kind"] == "positive"]

    def caught(rows: list, side: str) -> str:
        return _pct(sum(bool(c[side]) for c in rows), len(rows))

    no_df = [c for c in pos if c["no_df"]]
    no_import = [c for c in pos if c["no_import"] and not c["no_df"]]
    bad_py = [c for c in pos if c["no_df"] is None]
    whole = [c for c in pos if c["no_df"] == [] and not c["no_import"]]
    print("\nincomplete snippets among the in-scope positives (counted all the same):")
    print(f"  {len(no_df):3d} call DataFrame (or RDD) methods on a name the snippet never defines (`df.collect()` "
          f"with no `df = ...`): sparkcheck catches {caught(no_df, 'ours')}, the peers {caught(no_df, 'theirs')}")
    print(f"  {len(no_import):3d} more use pyspark names they never import (`udf`, `col`, `F`): sparkcheck "
          f"catches {caught(no_import, 'ours')}, the peers {caught(no_import, 'theirs')}")
    if bad_py:
        print(f"  {len(bad_py):3d} are not valid Python (sparkcheck reports SPK001 on them)")
    print(f"  {len(whole):3d} are complete (or SQL): sparkcheck catches {caught(whole, 'ours')}, "
          f"the peers {caught(whole, 'theirs')}")
    print("  sparkcheck's proof-based rules report only what they can show is a DataFrame, an RDD or a "
          "pyspark function; the peers match names. A bare fragment is a real limit of sparkcheck, not of the bench.")

    print("\neach peer on all its own cases (any verdict), its own rule id:")
    for peer in _peers_order(cases):
        if peer in peer_errors:
            continue
        rows = [c for c in cases if c["peer"] == peer]
        p = [c for c in rows if c["kind"] == "positive"]
        n = [c for c in rows if c["kind"] == "negative"]
        print(f"  {peer:21s} positives caught {_pct(sum(bool(c['theirs']) for c in p), len(p)):>15s}   "
              f"negatives flagged {_pct(sum(bool(c['theirs']) for c in n), len(n)):>15s}")

    missed = [c for c in pos if not c["ours"]]
    wrong = [c for c in scoped if c["kind"] == "negative" and c["ours"]]
    vouched = [c for c in scoped if c["kind"] == "negative" and c["vouched"] and not c["ours"]]
    if vouched:
        print(f"\nnegatives not counted as flagged: {len(vouched)} where the peer itself reports the same "
              "statement under another of its rules that the mapping gives sparkcheck's code:")
        for c in sorted(vouched, key=lambda c: (c["peer"], c["rule"], c["index"])):
            print(f"  {c['peer']} {c['rule']} c{c['index']:04d} {c['source']}: sparkcheck "
                  f"{', '.join(sorted({code for code, _ in c['vouched']}))}, the peer "
                  f"{', '.join(sorted(c['vouched_by']))}")
    groups: dict = {}
    for c in missed:
        groups.setdefault(",".join(c["codes"]), []).append(c)
    print(f"\nmissed positives by mapped code ({len(missed)} in {len(groups)} groups; "
          f"'no df' / 'no import' = how many of them have no DataFrame defined / pyspark names not imported):")
    for code, rows in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        rules = sorted({f"{c['peer']}:{c['rule']}" for c in rows})
        print(f"  {code:14s} {len(rows):4d}  no df {sum(bool(c['no_df']) for c in rows):3d}  no import "
              f"{sum(bool(c['no_import']) and not c['no_df'] for c in rows):3d}  {', '.join(rules)[:140]}")
    if wrong:
        by = {}
        for c in wrong:
            for code, _ in c["ours"]:
                by.setdefault(code, set()).add(c["index"])
        print("flagged negatives by code: " + ", ".join(f"{k} {len(v)}" for k, v in sorted(by.items())))
    if not misses:
        print("\n(--misses lists them case by case)")
        return
    print(f"\npositives sparkcheck misses ({len(missed)}; each: peer, rule, [mapped codes], case, source, "
          f"then the snippet's first 2 lines after its imports):")
    for c in sorted(missed, key=lambda c: (",".join(c["codes"]), c["peer"], c["rule"], c["index"])):
        _print_case(c)
    print(f"\nnegatives sparkcheck flags ({len(wrong)}; 'fired' = code@line in the snippet):")
    for c in sorted(wrong, key=lambda c: (c["peer"], c["rule"], c["index"])):
        _print_case(c)


def _print_disputed(scoped: list, disputes, stale, row, head: str) -> None:
    """The figures again without the disputed cases, then each disputed case with its reason."""
    if not disputes and not stale:
        return
    kept = [c for c in scoped if not c.get("disputed")]
    out = [c for c in scoped if c.get("disputed")]
    pos_out = sum(c["kind"] == "positive" for c in out)
    print(f"\nTHE SAME WITHOUT THE {len(out)} DISPUTED CASES (bench/peer_disputes.tsv: {pos_out} positives, "
          f"{len(out) - pos_out} negatives left out; the raw figures above count them)\n" + head)
    for peer in _peers_order(kept):
        row(peer, [c for c in kept if c["peer"] == peer])
    print("-" * len(head))
    n_pos, n_caught, n_neg, n_flagged = row("all without disputed", kept)
    caught_pct = 100.0 * n_caught / n_pos if n_pos else 0.0
    flagged_pct = 100.0 * n_flagged / n_neg if n_neg else 0.0
    stable_pos = sum(bool(c["stable"]) for c in kept if c["kind"] == "positive")
    stable_neg = sum(bool(c["stable"]) for c in kept if c["kind"] == "negative")
    print(f"targets without the disputed cases: positives caught {caught_pct:.1f}% "
          f"({'met' if caught_pct >= TARGET_CAUGHT else 'NOT met'}), negatives flagged {flagged_pct:.1f}% "
          f"({'met' if flagged_pct < TARGET_FLAGGED else 'NOT met'}); without --preview: positives caught "
          f"{_pct(stable_pos, n_pos)}, negatives flagged {_pct(stable_neg, n_neg)}")
    print(f"\ndisputed cases ({len(out)} in scope; the peer's verdict contradicts what Spark does):")
    for c in sorted(out, key=lambda c: (c["peer"], c["rule"], c["index"])):
        d = c["disputed"]
        if c["kind"] == "positive":
            ours = "sparkcheck reports it" if c["ours"] else "sparkcheck reports nothing"
        else:
            ours = "sparkcheck flags it" if c["ours"] else "sparkcheck is silent"
        moved = f" (listed as {d['moved_from']}: the ids moved)" if d.get("moved_from") else ""
        print(f"  {c['peer']} {c['rule']} c{c['index']:04d}{moved} {c['kind']}, {ours} [{d['code']}]: "
              f"{case_where(c)}")
        print(f"      {d['reason']}")
    outside = [d for d in disputes if not any(c.get("disputed") is d for c in out)]
    for d in outside:
        print(f"  (not in scope) {d['peer']} {d['rule']} {d['case']}: {d['where']}")
    for d in stale:
        print(f"  STALE (matches no case; not applied): {d['case']} {d['peer']} {d['rule']}: {d['where']}")


def _print_case(c: dict) -> None:
    first = _first_lines(c["text"])
    reported = sorted({code for code, _ in c["ours_all"]})
    fired = ", ".join(f"{code}@{line - c['offset']}" for code, line in c["ours"])
    extra = []
    if c["no_df"]:
        extra.append(f"no df: {', '.join(c['no_df'])}")
    elif c["no_df"] is None:
        extra.append("not valid Python")
    if c["no_import"]:
        extra.append(f"not imported: {', '.join(c['no_import'][:5])}")
    if c.get("expect_lines"):
        extra.append(f"expect lines {c['expect_lines']}")
    if fired:
        extra.append(f"fired {fired}")
    extra.append(f"peer {'caught' if c['theirs'] else 'silent'}")
    extra.append(f"sparkcheck reported {', '.join(reported) or 'nothing'}")
    if c.get("disputed"):
        extra.append("DISPUTED: see the list of disputed cases")
    print(f"  {c['peer']} {c['rule']} [{','.join(c['codes'])}] c{c['index']:04d} {case_where(c)}")
    print(f"      {first[:150]}")
    print(f"      ({'; '.join(extra)})")


def _first_lines(text: str, n: int = 2) -> str:
    """The snippet's first ``n`` lines that are not blank or imports (imports say little of a case)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    code = [ln for ln in lines if not re.match(r"(from\s+\S+\s+)?import\s", ln)] or lines
    return " | ".join(code[:n])


def _locate_short(loc: dict) -> str:
    if "function" in loc:
        return f"{loc['function']} {loc['call']}#{loc['nth']}" + (f" p{loc['param']}" if "param" in loc else "")
    if "md" in loc:
        occurrence = f" #{loc['occurrence']}" if loc.get("occurrence") else ""
        lines = f" lines {loc['block_lines'][0]}-{loc['block_lines'][1]}" if loc.get("block_lines") else ""
        return f"{loc['md'][:50]!r}{occurrence} block {loc.get('block', 0)}{lines}"
    if "lines" in loc:
        return f"lines {loc['lines']}"
    if "attr" in loc:
        return loc["attr"]
    return str(loc)


def _peers_order(cases: list) -> list:
    present = {c["peer"] for c in cases}
    return [p for p in PEERS if p in present]


if __name__ == "__main__":
    main()
