"""The fleet report: a ranked table in the terminal, JSON and CSV for dashboards, a self-contained HTML page.

Applications are ranked by wasted core time (the sum of the causes, linter/fleet/__init__.py), the most
first. The JSON document is `{"applications": [row...], "recurring": [...], "totals": {...},
"not_read": [...], "interrupted": bool, "findings": [ruff-shaped findings]}`; CSV is one line per
application with core-hours per cause.
"""

from __future__ import annotations

import csv
import datetime
import io
import json

from linter.fleet.waste import CAUSES
from linter.sources.plan import format_ms

HOUR = 3_600_000.0
TOP = 25  # rows of the terminal table and the HTML's top-jobs chart
HTML_FINDINGS = 2000  # a page stays readable (and small) for a fleet of thousands
CAUSE_LABELS = {"idle": "idle cores", "skew": "skew", "spill": "spill (est.)", "gc": "GC",
                "failed": "failed tasks", "lost": "lost executors"}
_COLORS = {"idle": "#8e9aaf", "skew": "#d68910", "spill": "#2874a6", "gc": "#c0392b", "failed": "#7d3c98",
           "lost": "#1e8449"}


def ranked(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda r: (-r["wasted_core_ms"], -r["allocated_core_ms"], r["log"]))


def totals(rows: list[dict]) -> dict:
    return {
        "applications": len(rows),
        "read": sum(1 for r in rows if r["readable"]),
        "allocated_core_hours": sum(r["allocated_core_ms"] for r in rows) / HOUR,
        "used_core_hours": sum(r["used_core_ms"] for r in rows) / HOUR,
        "wasted_core_hours": sum(r["wasted_core_ms"] for r in rows) / HOUR,
        "lost_core_hours": {c: sum(r["lost_core_ms"][c] for r in rows) / HOUR for c in CAUSES},
    }


def not_read(rows: list[dict], failures: list[str]) -> list[dict]:
    """What could not be read (whole inputs, then logs), each with its one-line cause."""
    return [{"source": text.split(": ", 1)[0], "problem": text} for text in failures] + \
        [{"source": r["log"], "problem": r["problem"]} for r in rows if r["problem"]]


def _when(ms) -> str:
    if not ms:
        return ""
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")


def _h(ms: float) -> str:
    return f"{ms / HOUR:.2f}"


def text(rows: list[dict], jobs: list[dict], missing: list[dict], interrupted: int) -> str:
    rows = ranked(rows)
    out = []
    t = totals(rows)
    out.append(f"{t['read']} of {t['applications']} applications read: {t['allocated_core_hours']:.2f} core-hours "
               f"allocated, {t['used_core_hours']:.2f} used by tasks, {t['wasted_core_hours']:.2f} wasted ("
               + ", ".join(f"{CAUSE_LABELS[c]} {v:.2f}" for c, v in t["lost_core_hours"].items()) + ")")
    head = (f"{'#':>3}  {'application':<30} {'name':<24} {'start (UTC)':<16} {'run time':>8} {'cores':>5} "
            f"{'alloc':>7} {'used':>7} {'wasted':>7}  " + " ".join(f"{c:>6}" for c in CAUSES) + "  findings")
    out += ["", "core-hours per application, the most wasted first:", head]
    for i, r in enumerate(rows[:TOP], start=1):
        findings = ",".join(f"{code}x{n}" for code, n in sorted(r.get("findings", {}).items()))
        if not r["readable"]:
            findings = "not read"
        out.append(f"{i:>3}  {(r['application'] or '?')[:30]:<30} {(r['name'] or '')[:24]:<24} "
                   f"{_when(r['start']):<16} {format_ms(r['duration_ms']):>8} {r['cores']:>5} "
                   f"{_h(r['allocated_core_ms']):>7} {_h(r['used_core_ms']):>7} {_h(r['wasted_core_ms']):>7}  "
                   + " ".join(f"{_h(r['lost_core_ms'][c]):>6}" for c in CAUSES) + f"  {findings}")
    if len(rows) > TOP:
        out.append(f"     ... {len(rows) - TOP} more (--output-format json or csv lists every application)")
    worse = [(j, reg) for j in jobs for reg in j["regressions"]]
    if worse:
        out += ["", "recurring jobs that got worse:"]
        out += [f"  {j['job']}: {reg['application']} {reg['message']}" for j, reg in worse]
    elif jobs:
        out += ["", f"{len(jobs)} recurring job(s), none got 2x slower or started to spill"]
    if missing or interrupted:
        out += ["", "not read, or not whole:"]
        out += [f"  {m['problem']}" for m in missing]
        if interrupted:
            out.append(f"  {interrupted} application(s) not read: the run was interrupted")
    return "\n".join(out) + "\n"


def document(rows: list[dict], jobs: list[dict], missing: list[dict], interrupted: int, findings: list) -> dict:
    from linter.report import ReportOptions
    from linter.report.json_ import finding_dict

    rows = ranked(rows)
    return {"applications": [{"rank": i, **r} for i, r in enumerate(rows, start=1)], "recurring": jobs,
            "totals": totals(rows), "not_read": missing, "interrupted": bool(interrupted),
            "not_started": interrupted, "findings": [finding_dict(f, ReportOptions()) for f in findings]}


CSV_COLUMNS = ("rank", "application", "name", "log", "start_utc", "end_utc", "duration_s", "executors", "cores",
               "allocated_core_hours", "used_core_hours", "wasted_core_hours",
               *(f"{c}_core_hours" for c in CAUSES), "disk_spill_bytes", "tasks", "failed_tasks", "findings",
               "problem")


def to_csv(rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for i, r in enumerate(ranked(rows), start=1):
        iso = (lambda ms: datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).isoformat()
               if ms else "")
        writer.writerow([i, r["application"], r["name"], r["log"], iso(r["start"]), iso(r["end"]),
                         f"{r['duration_ms'] / 1000:.3f}", r["executors"], r["cores"],
                         f"{r['allocated_core_ms'] / HOUR:.4f}", f"{r['used_core_ms'] / HOUR:.4f}",
                         f"{r['wasted_core_ms'] / HOUR:.4f}",
                         *(f"{r['lost_core_ms'][c] / HOUR:.4f}" for c in CAUSES), int(r["disk_spill_bytes"]),
                         r["tasks"], r["failed_tasks"],
                         ";".join(f"{k}={v}" for k, v in sorted(r.get("findings", {}).items())), r["problem"]])
    return buffer.getvalue()


# --- HTML ------------------------------------------------------------------------------------------------

def _bars(items: list[tuple[str, float, str]], unit: str, label: str) -> str:
    """Horizontal bars: (label, value, colour)."""
    if not items or not any(v for _, v, _ in items):
        return '<p class="empty">Nothing measured.</p>'
    from linter.report.html import _e

    top = max(v for _, v, _ in items) or 1.0
    left, width, row = 200, 520, 22
    height = row * len(items) + 10
    parts = [(f'<svg role="img" aria-label="{_e(label)}" width="{left + width + 110}" height="{height}" '
             f'viewBox="0 0 {left + width + 110} {height}">')]
    for i, (name, value, color) in enumerate(items):
        y = 4 + i * row
        parts.append(f'<g class="bar"><title>{_e(name)}: {value:.3f} {unit}</title><text x="4" y="{y + 13}">'
                     f'{_e(name[:30])}</text><rect x="{left}" y="{y}" width="{max(width * value / top, 1):.1f}" '
                     f'height="16" fill="{color}"/><text x="{left + width * value / top + 6:.1f}" y="{y + 13}">'
                     f'{value:.2f} {unit}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def _stacked(rows: list[dict]) -> str:
    """The top applications' wasted core-hours, one bar each, split by cause."""
    from linter.report.html import _e

    rows = [r for r in rows if r["wasted_core_ms"] > 0][:15]
    if not rows:
        return '<p class="empty">No application wasted measurable core time.</p>'
    top = max(r["wasted_core_ms"] for r in rows)
    left, width, row = 260, 520, 22
    height = row * len(rows) + 30
    parts = [(f'<svg role="img" aria-label="top jobs by wasted core-hours" width="{left + width + 110}" '
             f'height="{height}" viewBox="0 0 {left + width + 110} {height}">')]
    for i, r in enumerate(rows):
        y = 4 + i * row
        x = float(left)
        parts.append(f'<g class="job"><text x="4" y="{y + 13}">{_e((r["name"] or r["application"])[:24])} '
                     f'{_e(r["application"][-12:])}</text>')
        for cause in CAUSES:
            value = r["lost_core_ms"][cause]
            if value <= 0:
                continue
            w = width * value / top
            parts.append(f'<rect x="{x:.1f}" y="{y}" width="{max(w, 0.5):.1f}" height="16" fill="{_COLORS[cause]}">'
                         f'<title>{_e(CAUSE_LABELS[cause])}: {value / HOUR:.3f} core-hours</title></rect>')
            x += w
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 13}">{r["wasted_core_ms"] / HOUR:.2f} h</text></g>')
    legend = "".join(f'<rect x="{left + i * 90}" y="{height - 16}" width="10" height="10" fill="{_COLORS[c]}"/>'
                     f'<text x="{left + i * 90 + 14}" y="{height - 7}">{_e(CAUSE_LABELS[c])}</text>'
                     for i, c in enumerate(CAUSES))
    parts.append(legend + "</svg>")
    return "".join(parts)


def _trend(job: dict) -> str:
    """One recurring job's run times, run by run (a regressed run in red)."""
    from linter.report.html import _e

    runs = job["runs"]
    bad = {r["application"] for r in job["regressions"]}
    top = max(r["duration_ms"] for r in runs) or 1.0
    left, width, height = 60, 600, 150
    step = width / max(len(runs), 1)
    parts = [(f'<svg role="img" aria-label="run time per run of {_e(job["job"])}" width="{left + width + 20}" '
             f'height="{height + 40}" viewBox="0 0 {left + width + 20} {height + 40}">'),
             f'<text x="4" y="14">{_e(format_ms(top))}</text><text x="4" y="{height}">0</text>']
    points = []
    for i, r in enumerate(runs):
        x = left + step * (i + 0.5)
        y = height - (height - 20) * r["duration_ms"] / top
        points.append(f"{x:.1f},{y:.1f}")
        color = "#c0392b" if r["application"] in bad else "#2874a6"
        parts.append(f'<circle class="run" cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{color}"><title>'
                     f'{_e(r["application"])} {_e(_when(r["start"]))}: {_e(format_ms(r["duration_ms"]))}'
                     f'{", spilled" if r["disk_spill_bytes"] else ""}</title></circle>')
    parts.insert(2, f'<polyline points="{" ".join(points)}" fill="none" stroke="#8e9aaf"/>')
    parts.append(f'<text x="{left}" y="{height + 20}">{_e(_when(runs[0]["start"]))}</text>'
                 f'<text x="{left + width - 100}" y="{height + 20}">{_e(_when(runs[-1]["start"]))}</text></svg>')
    return "".join(parts)


def html_page(rows: list[dict], jobs: list[dict], missing: list[dict], interrupted: int, findings: list) -> str:
    from linter.report.html import _CSS, _e, findings_section

    rows = ranked(rows)
    t = totals(rows)
    causes = [(CAUSE_LABELS[c], v, _COLORS[c]) for c, v in t["lost_core_hours"].items()]
    table = "".join(
        f'<tr><td>{i}</td><td>{_e(r["application"])}</td><td>{_e(r["name"])}</td><td>{_e(_when(r["start"]))}</td>'
        f'<td>{_e(format_ms(r["duration_ms"]))}</td><td>{r["cores"]}</td><td>{_h(r["allocated_core_ms"])}</td>'
        f'<td>{_h(r["used_core_ms"])}</td><td>{_h(r["wasted_core_ms"])}</td>'
        + "".join(f'<td>{_h(r["lost_core_ms"][c])}</td>' for c in CAUSES)
        + f'<td>{_e(r["problem"] or ", ".join(f"{k}x{v}" for k, v in sorted(r.get("findings", {}).items())))}'
          f'</td></tr>' for i, r in enumerate(rows, start=1))
    trends = "".join(f'<h3>{_e(j["job"])}</h3>' + "".join(f'<p class="help">{_e(reg["application"])}: '
                                                           f'{_e(reg["message"])}</p>' for reg in j["regressions"])
                     + _trend(j) for j in jobs[:3])
    missing_html = "".join(f"<li>{_e(m['problem'])}</li>" for m in missing)
    if interrupted:
        missing_html += f"<li>{interrupted} application(s) not read: the run was interrupted</li>"
    body = (f'<section><h2>{t["read"]} of {t["applications"]} applications read</h2><p>'
            f'{t["allocated_core_hours"]:.2f} core-hours allocated, {t["used_core_hours"]:.2f} used by tasks, '
            f'{t["wasted_core_hours"]:.2f} wasted. Spill time is an estimate from the bytes spilled.</p>'
            f'<h3>Waste by cause (core-hours)</h3>{_bars(causes, "h", "waste by cause")}'
            f'<h3>Top jobs by wasted core-hours</h3>{_stacked(rows)}</section>'
            + (f'<section id="recurring"><h2>Recurring jobs</h2>{trends}</section>' if jobs else "")
            + (f'<section id="not-read"><h2>Not read, or not whole</h2><ul>{missing_html}</ul></section>' if missing_html else "")
            + '<section id="applications"><h2>Applications, the most wasted first (core-hours)</h2>'
              '<table><tr><th>#</th><th>application</th><th>name</th><th>start (UTC)</th><th>run time</th>'
              '<th>cores</th><th>allocated</th><th>used</th><th>wasted</th>'
            + "".join(f"<th>{_e(CAUSE_LABELS[c])}</th>" for c in CAUSES)
            + f'<th>findings</th></tr>{table}</table></section>' + findings_section(findings[:HTML_FINDINGS])
            + (f'<p class="empty">{len(findings) - HTML_FINDINGS} more findings: --output-format json lists '
               'every one.</p>' if len(findings) > HTML_FINDINGS else ""))
    title = f"sparkcheck fleet: {t['applications']} applications"
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_CSS}</style></head>'
            f'<body><header><h1>{_e(title)}</h1></header><main>{body}</main></body></html>\n')


def render(fmt: str, rows: list[dict], jobs: list[dict], missing: list[dict], interrupted: int,
           findings: list) -> str:
    if fmt == "json":
        return json.dumps(document(rows, jobs, missing, interrupted, findings), indent=2) + "\n"
    if fmt == "csv":
        return to_csv(rows)
    if fmt == "html":
        return html_page(rows, jobs, missing, interrupted, findings)
    return text(rows, jobs, missing, interrupted)
