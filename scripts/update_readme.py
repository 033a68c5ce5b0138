"""Regenerate README.md's rule table from the rules (run after adding or renaming a rule).

    .venv/bin/python scripts/update_readme.py
"""

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


def main() -> None:
    path = os.path.join(ROOT, "README.md")
    text = open(path, encoding="utf-8").read()
    start = text.index(HEAD) + len(HEAD)
    end = text.index(END, start)
    rows = "\n".join(f"| {r.code} | {r.name} | {r.summary}{notes(r)} |" for r in registry.all_rules())
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:start] + rows + text[end:])


if __name__ == "__main__":
    main()
