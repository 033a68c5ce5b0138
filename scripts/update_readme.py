"""Regenerate README.md's rule table from the rules, and docs/peers.md from bench/peer_mapping.tsv
(run after adding or renaming a rule, or after changing the mapping).

    .venv/bin/python scripts/update_readme.py
"""

import csv
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from linter import registry  # noqa: E402

HEAD = "| code | name | finds |\n|---|---|---|\n"
END = "\n\nRules report only what they can prove"


def notes(rule) -> str:
    out = []
    if rule.fix:
        out.append(f"fix: {rule.fix}")
    if rule.preview:
        out.append("preview")
    if rule.explicit:
        out.append("off unless selected by code")
    return f" ({'; '.join(out)})" if out else ""


PEERS_HEAD = """\
# Coming from another PySpark linter

Every rule of the five other PySpark linters a user could pick (pipeline-lint 0.1.0, cylint 0.1.5,
spark-perf-lint 0.1.0, sparkdoctor 0.1.8, pyspark-antipattern 0.4.1, from each one's own rule list),
with the sparkcheck rule that finds the same mistake, or why sparkcheck has none. Generated from
`bench/peer_mapping.tsv` by `scripts/update_readme.py`; `bench/peers.py --examples` runs the peers'
own published examples through sparkcheck with this mapping and prints how many it catches.

- **mapped**: the sparkcheck rule finds what the peer rule finds;
- **partial**: it finds part of it, and the note says which part and why not the rest;
- **out of scope**: sparkcheck deliberately has no rule for it, for the reason given (naming and
  docstring conventions, guesses from column names, advice that is wrong for current Spark).

`sparkcheck rule CODE` prints a rule's manual.

"""


def peer_rows() -> list:
    """The rows of bench/peer_mapping.tsv as dicts (peer, rule, verdict, codes, note)."""
    with open(os.path.join(ROOT, "bench", "peer_mapping.tsv"), encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def peers_markdown() -> str:
    """docs/peers.md: one table per peer, in the order of the mapping file."""
    out = [PEERS_HEAD]
    by_peer: dict = {}
    for row in peer_rows():
        by_peer.setdefault(row["peer"], []).append(row)
    verdicts = {"mapped": "mapped", "partial": "partial", "out-of-scope": "out of scope"}
    for peer, rows in by_peer.items():
        out.append(f"## {peer}\n\n| {peer} rule | sparkcheck | verdict | note |\n|---|---|---|---|\n")
        for row in rows:
            codes = ", ".join(c.strip() for c in row["codes"].split(",") if c.strip()) or "-"
            note = row["note"].replace("|", "\\|")
            out.append(f"| {row['rule']} | {codes} | {verdicts.get(row['verdict'], row['verdict'])} | {note} |\n")
        out.append("\n")
    return "".join(out).rstrip("\n") + "\n"


def main() -> None:
    # the rule index a check run selects rules from (tests/test_lean_run.py checks it matches the modules)
    print(registry.write_index())
    os.makedirs(os.path.join(ROOT, "docs"), exist_ok=True)
    with open(os.path.join(ROOT, "docs", "peers.md"), "w", encoding="utf-8") as f:
        f.write(peers_markdown())
    path = os.path.join(ROOT, "README.md")
    text = open(path, encoding="utf-8").read()
    start = text.index(HEAD) + len(HEAD)
    end = text.index(END, start)
    rows = "\n".join(f"| {r.code} | {r.name} | {r.summary}{notes(r)} |" for r in registry.all_rules())
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:start] + rows + text[end:])


if __name__ == "__main__":
    main()
