"""Recall and precision on real code: a hand-labelled set over ../shared/data/pyspark-corpus.

Run by hand (never in the test suite):

    .venv/bin/python bench/recall.py             # sparkcheck's figures
    .venv/bin/python bench/recall.py --misses    # ... and every labelled mistake it misses
    .venv/bin/python bench/recall.py --peers     # ... beside the other PySpark linters' (throwaway venv)

bench/recall.tsv holds the labels: `path line cell kind concept note`, one row a
place in the corpus, labelled by reading the code (never from a tool's output).
`kind` is `mistake` (a classic Spark mistake really made there) or `trap` (a place
that looks like one to a name-matching tool and is not: bounded collects, pandas
and polars code, Python values compared with None ...). `line` is the file's own
line, or the line inside the cell for .ipynb (`cell` 1-based among all cells).

A finding matches a label in the same file (and cell) when it starts on the
labelled line, one line before or after it, or spans it. sparkcheck is credited
only with the codes of the label's concept (CONCEPT_CODES: caught for the right
reason); a peer with any finding there, since its rules do not map one to one.
Mistakes tagged `other` have no sparkcheck concept: they are counted apart, as
what no rule here claims yet.
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.realpath(os.path.join(os.path.dirname(ROOT), "shared", "data", "pyspark-corpus"))
LABELS = os.path.join(ROOT, "bench", "recall.tsv")

CONCEPT_CODES = {
    "collect-unbounded": {"SPK101", "SPK105"},
    "topandas-unbounded": {"SPK102"},
    "count-emptiness": {"SPK103"},
    "action-in-loop": {"SPK104"},
    "collect-first-row": {"SPK105"},
    "repeated-action": {"SPK109"},
    "discarded-transformation": {"SPK318"},
    "hash-null-collision": {"SPK319"},
    "udf-loads-model": {"SPK212"},
    "rdd-row-processing": {"SPK108"},
    "rdd-groupbykey": {"SPK106"},
    "udf-builtin": {"SPK201"},
    "udf-no-return-type": {"SPK202"},
    "closure-self": {"SPK203"},
    "nondeterministic-udf": {"SPK204"},
    "sentinel-null": {"SPK301", "SPK504"},
    "none-comparison": {"SPK302"},
    "bool-operator-columns": {"SPK303"},
    "lit-none": {"SPK305"},
    "withcolumn-loop": {"SPK401"},
    "repartition-one": {"SPK402"},
    "cross-join": {"SPK403", "SPK505"},
    "window-no-partition": {"SPK404"},
    "schema-inference": {"SPK405"},
    "collect-list": {"SPK406", "SPK511"},
    "show-in-code": {"SPK411", "SPK101"},  # SPK101: `show(n=df.count())` brings every row to the driver
    "select-star": {"SPK501"},
    "hardcoded-partitions": {"SPK408"},
}


def load_labels(path: str = LABELS) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    for row in rows:
        row["line"] = int(row["line"])
        row["cell"] = int(row["cell"]) if row["cell"] else None
    return rows


def corpus_lines(root: str = CORPUS) -> int:
    """Lines of source: .py and .sql lines, and the lines of an .ipynb's cells (not its JSON)."""
    total = 0
    for base, _, names in os.walk(root):
        for name in names:
            path = os.path.join(base, name)
            if name.endswith((".py", ".sql")):
                with open(path, "rb") as f:
                    total += f.read().count(b"\n")
            elif name.endswith(".ipynb"):
                try:
                    with open(path, encoding="utf-8") as f:
                        nb = json.load(f)
                except (OSError, ValueError):
                    continue
                cells = nb.get("cells") or [c for ws in nb.get("worksheets", []) for c in ws.get("cells", [])]
                for cell in cells:
                    source = cell.get("source", cell.get("input", ""))
                    total += len("".join(source).splitlines()) if isinstance(source, list) else len(source.splitlines())
    return total


# Rules a user selects by code (like ruff's T201 for print): counted on a line of their own.
OPT_IN: tuple = ("SPK411",)


def sparkcheck_findings(root: str = CORPUS, preview: bool = False) -> list[tuple]:
    """(path relative to the corpus, cell, first row, last row, code) of every finding: default rules and OPT_IN
    (``preview``: and the preview rules and cases)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "findings.json")
        subprocess.run(
            [sys.executable, "-m", "linter", "check", ".", "--no-cache", "--exit-zero", "--jobs", "2",
             *(("--preview",) if preview else ()),
             *(("--extend-select", ",".join(OPT_IN)) if OPT_IN else ()), "--output-format", "json", "-o", out],
            cwd=root, env={**os.environ, "PYTHONPATH": ROOT}, check=True,
        )
        with open(out, encoding="utf-8") as f:
            found = json.load(f)
    rows = []
    for d in found:
        path = os.path.relpath(os.path.abspath(os.path.join(root, d["filename"])), root).replace(os.sep, "/")
        rows.append((path, d.get("cell"), d["location"]["row"], d["end_location"]["row"], d["code"]))
    return rows


def _index(findings) -> dict:
    by_place = collections.defaultdict(list)
    for path, cell, start, end, code in findings:
        by_place[(path, cell)].append((start, end, code))
    return by_place


def matches(label: dict, by_place: dict, codes) -> bool:
    for start, end, code in by_place.get((label["path"], label["cell"]), ()):
        if codes is not None and code not in codes:
            continue
        if abs(start - label["line"]) <= 1 or start <= label["line"] <= end:
            return True
    return False


def score(labels: list[dict], findings: list[tuple], by_concept: bool) -> dict:
    """Mistakes caught and traps hit; ``by_concept``: only the label's concept's codes count (sparkcheck)."""
    by_place = _index(findings)
    caught, missed, hit, other_caught = [], [], [], 0
    for label in labels:
        codes = CONCEPT_CODES.get(label["concept"]) if by_concept else None
        found = matches(label, by_place, codes)
        if label["kind"] == "trap":
            if found:
                hit.append(label)
        elif label["concept"] == "other":
            other_caught += found
        elif found:
            caught.append(label)
        else:
            missed.append(label)
    return {"caught": caught, "missed": missed, "traps_hit": hit, "other_caught": other_caught,
            "findings": len(findings)}


def report(name: str, result: dict, labels: list[dict], lines: int) -> None:
    mistakes = len(result["caught"]) + len(result["missed"])
    traps = sum(1 for row in labels if row["kind"] == "trap")
    other = sum(1 for row in labels if row["kind"] == "mistake" and row["concept"] == "other")
    recall = len(result["caught"]) / mistakes if mistakes else 0.0
    print(f"  {name:22s} recall {len(result['caught']):3d}/{mistakes} = {recall:6.1%}   "
          f"traps hit {len(result['traps_hit']):2d}/{traps}   'other' {result['other_caught']}/{other}   "
          f"findings {result['findings']:5d} ({1000 * result['findings'] / lines:.2f} per 1,000 lines)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--misses", action="store_true", help="list the labelled mistakes sparkcheck misses")
    parser.add_argument("--peers", action="store_true", help="also run the other PySpark linters")
    args = parser.parse_args()
    if not os.path.isdir(CORPUS):
        sys.exit(f"bench: the corpus is not at {CORPUS}")
    labels = load_labels()
    lines = corpus_lines()
    mistakes = [row for row in labels if row["kind"] == "mistake"]
    print(f"labels: {len(mistakes)} mistakes ({sum(r['concept'] != 'other' for r in mistakes)} in sparkcheck's "
          f"concepts), {len(labels) - len(mistakes)} traps; corpus {lines:,} lines")
    every = sparkcheck_findings()
    ours = score(labels, [f for f in every if f[4] not in OPT_IN], by_concept=True)
    report("sparkcheck", ours, labels, lines)
    if OPT_IN:
        report(f"  + {', '.join(OPT_IN)} selected", score(labels, every, by_concept=True), labels, lines)
    previewed = sparkcheck_findings(preview=True)
    report("  + --preview", score(labels, [f for f in previewed if f[4] not in OPT_IN], by_concept=True), labels,
           lines)
    per = collections.Counter(r["concept"] for r in ours["caught"])
    total = collections.Counter(r["concept"] for r in ours["caught"] + ours["missed"])
    print("  by concept: " + ", ".join(f"{c} {per[c]}/{n}" for c, n in total.most_common()))
    # Rules with `skip_in_tests` are off in test modules by design (a handful of rows, where their cost is nil):
    # the labels there count as misses all the same; this line says how many they are.
    sys.path.insert(0, ROOT)
    from linter import registry
    from linter.sources import is_test_path

    off_in_tests = {r.code for r in registry.all_rules() if r.skip_in_tests}
    in_tests = [m for m in ours["missed"]
                if is_test_path(m["path"]) and CONCEPT_CODES.get(m["concept"], {""}) <= off_in_tests]
    if in_tests:
        rest = len(ours["caught"]) + len(ours["missed"]) - len(in_tests)
        print(f"  of the misses, {len(in_tests)} are in test modules, where their rules are off by design "
              f"(skip_in_tests); outside them: {len(ours['caught'])}/{rest} = {len(ours['caught']) / rest:.1%}")
    for trap in ours["traps_hit"]:
        print(f"  TRAP HIT {trap['path']}:{trap['line']} cell {trap['cell']} {trap['concept']}: {trap['note'][:90]}")
    if args.misses:
        for miss in ours["missed"]:
            print(f"  missed {miss['path']}:{miss['line']} cell {miss['cell']} {miss['concept']}: {miss['note'][:100]}")
    if args.peers:
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import _peers

        with tempfile.TemporaryDirectory() as tmp:
            commands = _peers.install(tmp)
            for name in _peers.PEERS:
                if name not in commands:
                    continue
                found = [(f.path, f.cell, f.line, f.line, f.rule) for f in _peers.run(name, commands, CORPUS)]
                report(name, score(labels, found, by_concept=False), labels, lines)


if __name__ == "__main__":
    main()
