"""``json`` and ``json-lines``: ruff's shape, plus ``name`` and ``severity``."""

from __future__ import annotations

import json
import os

from linter.report import ReportOptions


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
        "filename": f.filename if "://" in f.filename else os.path.abspath(f.filename),
        "fix": fix,
        "help": f.help,
        "location": {"row": f.location.row, "column": f.location.column},
        "message": f.message,
        "name": f.name,
        "noqa_row": f.noqa_row,
        "severity": f.severity,
        "url": None,
    }


def render(fmt: str, findings: list, options: ReportOptions) -> str:
    items = [finding_dict(f, options) for f in findings]
    if fmt == "json-lines":
        return "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items)
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"
