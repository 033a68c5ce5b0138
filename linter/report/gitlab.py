"""GitLab Code Quality report (``artifacts: reports: codequality``)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

from linter.report import ReportOptions, cell_prefix, file_position, relative

SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def render(findings: list, options: ReportOptions) -> str:
    seen: Counter = Counter()
    items = []
    for f in findings:
        path = relative(f.filename, options)
        line, col, end_line, end_col = file_position(f)
        base = f"{f.code}:{path}:{' '.join(f.source_line.split())}"
        seen[base] += 1
        items.append(
            {
                "description": f"{f.code} {cell_prefix(f)}{f.message}",
                "check_name": f.code,
                "fingerprint": hashlib.md5(f"{base}:{seen[base]}".encode()).hexdigest(),
                "severity": SEVERITY.get(f.severity, "minor"),
                "location": {
                    "path": path,
                    "positions": {
                        "begin": {"line": line, "column": col},
                        "end": {"line": end_line, "column": end_col},
                    },
                },
            }
        )
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"
