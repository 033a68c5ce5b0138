"""``full`` (code frame and help), ``concise`` (one line each) and ``grouped``."""

from __future__ import annotations

from collections import Counter

from linter.report import ReportOptions, applicable, shown_path


def _where(f, options: ReportOptions) -> str:
    loc = f.location
    path = shown_path(f.filename, options)
    if loc.cell is not None:
        return f"{path}:cell {loc.cell}:{loc.row}:{loc.column}"
    return f"{path}:{loc.row}:{loc.column}"


def also(related, options: ReportOptions) -> str:
    """A related location as people read it: `app-1:2:1: plan node `CartesianProduct` (id 3)`."""
    where = f"{shown_path(related.filename, options)}:{related.location.row}:{related.location.column}"
    return f"{where}: {related.message}" if related.message else where


def _marker(f, options: ReportOptions) -> str:
    return " [*]" if applicable(f, options) else ""


def _frame(f) -> list[str]:
    rows = f.context or [(f.location.row, f.source_line)]
    width = len(str(max(r for r, _ in rows)))
    pad = " " * width
    out = [f"{pad} |"]
    start, end = f.location, f.end_location
    for row, text in rows:
        text = text.expandtabs(4) if "\t" in text else text
        out.append(f"{str(row).rjust(width)} | {text}".rstrip())
        if row == start.row:
            first = start.column - 1
            if end.row == start.row and end.cell == start.cell and end.column > start.column:
                length = end.column - start.column
            else:
                length = max(1, len(text) - first)
            out.append(f"{pad} | {' ' * first}{'^' * max(1, length)} {f.code}")
    out.append(f"{pad} |")
    return out


def fixed_lines(options: ReportOptions) -> list[str]:
    """``--show-fixes``: what was fixed, file by file, as ruff lists it (`2 × SPK103 (count-emptiness-check)`)."""
    from linter import registry

    if not (options.show_fixes and options.fixed_by_file):
        return []
    lines = [f"Fixed {options.fixed} error{'s' if options.fixed != 1 else ''}:"]
    for path, counts in sorted(options.fixed_by_file.items()):
        lines.append(f"- {shown_path(path, options)}:")
        for code, n in sorted(counts.items()):
            rule = registry.find(code)
            lines.append(f"    {n} \u00d7 {code}" + (f" ({rule.name})" if rule is not None else ""))
    lines.append("")
    return lines


def summary(findings: list, options: ReportOptions) -> list[str]:
    lines = fixed_lines(options)
    n = len(findings)
    if n == 0:
        if options.fix_mode and options.fixed:
            lines.append(f"Found {options.fixed} error{'s' if options.fixed != 1 else ''} ({options.fixed} fixed, 0 remaining).")
        else:
            lines.append("All checks passed!")
        return lines
    if options.fix_mode and options.fixed:
        total = n + options.fixed
        lines.append(f"Found {total} errors ({options.fixed} fixed, {n} remaining).")
    else:
        lines.append(f"Found {n} error{'s' if n != 1 else ''}.")
    safe = sum(1 for f in findings if f.fix and f.fix["applicability"] == "safe")
    unsafe = sum(1 for f in findings if f.fix and f.fix["applicability"] == "unsafe")
    fixable = safe + (unsafe if options.unsafe_fixes else 0)
    if fixable:
        option = "--fix --unsafe-fixes" if options.unsafe_fixes and unsafe else "--fix"
        lines.append(f"[*] {fixable} fixable with the `{option}` option.")
    if unsafe and not options.unsafe_fixes:
        lines.append(f"({unsafe} hidden fix{'es' if unsafe != 1 else ''} can be enabled with the `--unsafe-fixes` option.)")
    return lines


def render(fmt: str, findings: list, options: ReportOptions) -> str:
    out: list[str] = []
    if fmt == "grouped":
        by_file: dict = {}
        for f in findings:
            by_file.setdefault(f.filename, []).append(f)
        for path, group in by_file.items():
            out.append(f"{shown_path(path, options)}:")
            for f in group:
                loc = f.location
                where = f"cell {loc.cell}:{loc.row}:{loc.column}" if loc.cell else f"{loc.row}:{loc.column}"
                out.append(f"  {where} {f.code}{_marker(f, options)} {f.message}")
            out.append("")
    else:
        for f in findings:
            out.append(f"{_where(f, options)}: {f.code}{_marker(f, options)} {f.message}")
            if fmt == "full":
                out.extend("  " + line for line in _frame(f))
                if f.help:
                    for i, line in enumerate(f.help.splitlines()):
                        out.append(("  = help: " if i == 0 else "          ") + line)
                if f.fix is not None:
                    kind = "" if f.fix["applicability"] == "safe" else " (unsafe)"
                    out.append(f"  = fix{kind}: {f.fix['message']}")
                out.extend(f"  = also: {also(r, options)}" for r in f.related)
                out.append("")
    out.extend(summary(findings, options))
    return "\n".join(out) + "\n"


def _statistics(findings: list, options: ReportOptions) -> list[dict]:
    """Per code, most frequent first (ruff's order): count, and how many of them a fix applies to."""
    counts = Counter(f.code for f in findings)
    fixable = Counter(f.code for f in findings if applicable(f, options))
    names = {f.code: f.name for f in findings}
    return [{"code": code, "name": names[code], "count": n, "fixable": fixable[code] > 0,
             "fixable_count": fixable[code]}
            for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def statistics(findings: list, options: ReportOptions) -> str:
    rows = _statistics(findings, options)
    width = len(str(max(r["count"] for r in rows))) if rows else 1
    lines = [f"{str(r['count']).rjust(width)}\t{r['code']}\t{'[*] ' if r['fixable'] else '    '}{r['name']}"
             for r in rows]
    return "\n".join(lines) + ("\n" if lines else "")


def statistics_json(findings: list, options: ReportOptions) -> str:
    """`--statistics --output-format json`: ruff's fields (code, name, count, fixable, fixable_count)."""
    import json

    return json.dumps(_statistics(findings, options), indent=2) + "\n"
