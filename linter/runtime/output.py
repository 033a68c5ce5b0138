"""What the runtime commands print: application summaries beside the findings, or the HTML report."""

from __future__ import annotations

import json
import sys

from linter.command import EXIT_CLEAN, EXIT_FINDINGS, emit
from linter.diagnostics import Finding
from linter.report import ReportOptions, render


def emit_plan_findings(findings: list[Finding], args, trees=()) -> int:
    """`sparkcheck plan` and `capture --remote`: the findings in the chosen format; the exit code."""
    if args.output_format == "html":
        from linter.report import html

        findings = sorted(findings, key=Finding.sort_key)
        emit(html.render("sparkcheck: plans", findings, list(trees)), args.output_file)
    else:
        emit(render(args.output_format or "full", findings, ReportOptions()), args.output_file)
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN


def report_runs(runs: list, args) -> int:
    """Print the summaries (text formats: before the findings; json: beside them) and the findings."""
    from linter.report.summary import render_text, summarize

    fmt = args.output_format or "full"
    findings = sorted((f for _, group in runs for f in group), key=Finding.sort_key)
    summaries = [summarize(app) for app, _ in runs]
    if fmt == "html":
        from linter.report import html
        from linter.runtime.plans import plan_titles

        trees = [tree for app, _ in runs for tree in plan_titles(app.path, app.plans)]
        title = "sparkcheck: " + ", ".join(app.name or app.id or app.path for app, _ in runs)
        emit(html.render(title, findings, trees, [app for app, _ in runs]), args.output_file)
    elif fmt == "json":
        document = {"applications": summaries, "findings": json.loads(render("json", findings, ReportOptions()))}
        emit(json.dumps(document, indent=2) + "\n", args.output_file)
    elif fmt in ("full", "concise", "grouped"):
        text = "".join(render_text(s) + "\n" for s in summaries) + render(fmt, findings, ReportOptions())
        emit(text, args.output_file)
    else:
        emit(render(fmt, findings, ReportOptions()), args.output_file)
    sys.stdout.flush()
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN
