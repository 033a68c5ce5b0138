"""SARIF 2.1.0, as GitHub code scanning reads it."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

from linter import __version__, registry
from linter.report import ReportOptions, cell_prefix, file_position, relative

SCHEMA = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def rule_descriptor(rule) -> dict:
    sections = rule.sections()
    full = " ".join((sections.get("What it does") or rule.summary).split())
    manual = rule.manual()
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": full},
        "help": {"text": manual, "markdown": manual},
        "defaultConfiguration": {"level": LEVEL.get(rule.severity, "warning")},
        "properties": {"tags": [rule.kind]},
    }


def _related(number: int, related, options: ReportOptions) -> dict:
    """A runtime finding's other place (its node in the event log): a SARIF related location."""
    start, end = related.location, related.end_location
    end_line, end_col = (end.row, end.column) if (end.row, end.column) > (start.row, start.column) \
        else (start.row, start.column + 1)
    location = {
        "id": number,
        "physicalLocation": {
            "artifactLocation": {"uri": relative(related.filename, options)},
            "region": {"startLine": start.row, "startColumn": start.column, "endLine": end_line,
                       "endColumn": end_col},
        },
    }
    if related.message:
        location["message"] = {"text": related.message}
    return location


def render(findings: list, options: ReportOptions) -> str:
    rules = registry.all_rules()
    index = {r.code: i for i, r in enumerate(rules)}
    seen: Counter = Counter()
    results = []
    for f in findings:
        uri = relative(f.filename, options)
        line, col, end_line, end_col = file_position(f)
        text = " ".join(f.source_line.split()) or f.code
        digest = hashlib.sha256(f"{f.code}:{uri}:{text}".encode()).hexdigest()[:16]
        seen[digest] += 1
        results.append(
            {
                "ruleId": f.code,
                "ruleIndex": index[f.code],
                "level": LEVEL.get(f.severity, "warning"),
                "message": {"text": cell_prefix(f) + f.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": uri},
                            "region": {
                                "startLine": line,
                                "startColumn": col,
                                "endLine": end_line,
                                "endColumn": end_col,
                            },
                        }
                    }
                ],
                "partialFingerprints": {"primaryLocationLineHash": f"{digest}:{seen[digest]}"},
            }
        )
        if f.related:
            results[-1]["relatedLocations"] = [_related(i, r, options) for i, r in enumerate(f.related, start=1)]
        if f.nodes:
            results[-1]["properties"] = {"planNodes": list(f.nodes)}
    doc = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "sparkcheck",
                        "semanticVersion": __version__,
                        "version": __version__,
                        "informationUri": "https://pypi.org/project/sparkcheck/",
                        "rules": [rule_descriptor(r) for r in rules],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
