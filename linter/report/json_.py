"""``json`` and ``json-lines``: ruff's shape, plus ``name``, ``severity``, ``related`` and ``nodes``.

``related`` lists the problem's other places (a runtime finding shown at the
user's line names its node in the event log there), each with ``filename``,
``location``, ``end_location`` and ``message``; ``nodes`` the ids of the plan
nodes a plan finding is about. Both are empty lists for the other findings.
"""

from __future__ import annotations

import json
import os

from linter.report import ReportOptions


def _filename(path: str) -> str:
    return path if "://" in path else os.path.abspath(path)


def finding_dict(f, options: ReportOptions) -> dict:
    fix = None
    if f.fix is not None:
        fix = {
            "applicability": f.fix["applicability"],
            "message": f.fix["message"],
            "edits": [
                {"content": e["content"], "location": e["location"], "end_location": e["end_location"]}
                for e in f.fix["edits"]
            ],
        }
    return {
        "cell": f.location.cell,
        "code": f.code,
        "end_location": {"row": f.end_location.row, "column": f.end_location.column},
        "filename": _filename(f.filename),
        "fix": fix,
        "help": f.help,
        "location": {"row": f.location.row, "column": f.location.column},
        "message": f.message,
        "name": f.name,
        "nodes": list(f.nodes),
        "noqa_row": f.noqa_row,
        "related": [{"filename": _filename(r.filename),
                     "location": {"row": r.location.row, "column": r.location.column},
                     "end_location": {"row": r.end_location.row, "column": r.end_location.column},
                     "message": r.message} for r in f.related],
        "severity": f.severity,
        "url": None,
    }


def render(fmt: str, findings: list, options: ReportOptions) -> str:
    items = [finding_dict(f, options) for f in findings]
    if fmt == "json-lines":
        return "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items)
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"
