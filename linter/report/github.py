"""GitHub Actions workflow commands (annotations on the pull request).

GitHub shows at most 10 annotations of each level per step, so after the
annotations every finding is also printed as a plain log line.
"""

from __future__ import annotations

from linter.report import ReportOptions, cell_prefix, file_position, relative
from linter.report.text import render as render_text


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(f, options: ReportOptions) -> str:
    level = "error" if f.severity == "error" else "warning"
    line, col, end_line, end_col = file_position(f)
    props = [
        f"title={escape_property(f'sparkcheck ({f.code})')}",
        f"file={escape_property(relative(f.filename, options))}",
        f"line={line}",
        f"col={col}",
        f"endLine={end_line}",
        f"endColumn={end_col}",
    ]
    # a runtime finding's other places (its node in the event log) ride in the message: an annotation has one
    notes = "".join(f"\nalso: {relative(r.filename, options)}:{r.location.row}:{r.location.column}"
                    + (f" {r.message}" if r.message else "") for r in f.related)
    return f"::{level} {','.join(props)}::{escape_data(cell_prefix(f) + f.message + notes)}"


def render(findings: list, options: ReportOptions) -> str:
    lines = [annotation(f, options) for f in findings]
    return "\n".join(lines) + ("\n" if lines else "") + render_text("concise", findings, options)
