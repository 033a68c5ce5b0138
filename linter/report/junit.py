"""JUnit XML: a test suite per file, a failing test case per finding."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from linter.report import ReportOptions, cell_prefix, relative


def render(findings: list, options: ReportOptions) -> str:
    by_file: dict = {}
    for f in findings:
        by_file.setdefault(relative(f.filename, options), []).append(f)
    total = len(findings)
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    out.append(f'<testsuites name="sparkcheck" tests="{max(total, 1)}" failures="{total}" errors="0">')
    if not findings:
        out.append('  <testsuite name="sparkcheck" tests="1" failures="0" errors="0">')
        out.append('    <testcase name="No errors found" classname="sparkcheck"/>')
        out.append("  </testsuite>")
    for path, group in by_file.items():
        out.append(f'  <testsuite name={quoteattr(path)} tests="{len(group)}" failures="{len(group)}" errors="0">')
        for f in group:
            loc = f.location
            where = f"cell {loc.cell}, " if loc.cell else ""
            body = f"{where}line {loc.row}, col {loc.column}, {f.message}"
            out.append(
                f'    <testcase name={quoteattr(f"{f.code}:{f.name}")} classname={quoteattr(path)} '
                f'file={quoteattr(path)} line="{loc.row}">'
            )
            out.append(f"      <failure message={quoteattr(cell_prefix(f) + f.message)}>{escape(body)}</failure>")
            out.append("    </testcase>")
        out.append("  </testsuite>")
    out.append("</testsuites>")
    return "\n".join(out) + "\n"
