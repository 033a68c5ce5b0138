"""`--output-format html` for `plan`, `diagnose` and `capture`: one self-contained page.

No network, no script: inline CSS and SVG. The page shows, per application,
the summary, the task-duration distribution of the longest stages (box plots:
min, 25th, median, 75th, max) and an executor timeline (a band per executor
over its lifetime, a row per concurrently running task, tasks coloured by
stage); then every plan as a tree with
the operators that have findings highlighted and the findings beside them; then
all findings with their treatments.
"""

from __future__ import annotations

import html
from typing import Optional

from linter.report.summary import gc_cell, summarize
from linter.sources.app import Application, quantiles
from linter.sources.plan import PlanNode, format_ms

MAX_TASKS_DRAWN = 20_000  # the timeline samples tasks beyond this
STAGES_PLOTTED = 12

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
header{background:#1d2430;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
main{padding:8px 24px 40px;max-width:1400px}section{background:#fff;border:1px solid #dde1e7;border-radius:6px;
margin:16px 0;padding:12px 16px}h2{font-size:17px;margin:4px 0 10px}h3{font-size:15px;margin:12px 0 6px}
table{border-collapse:collapse;font-size:13px}td,th{padding:3px 8px;border-bottom:1px solid #eceef2;text-align:right}
td:last-child,th:last-child{text-align:left}.finding{border-left:4px solid #c0392b;padding:6px 10px;margin:8px 0;
background:#fdf3f2}.finding.warning{border-color:#d68910;background:#fdf8ef}.code{font-weight:700;font-family:monospace}
.where{color:#5b6473;font-family:monospace;font-size:12px}.help{color:#2c5e2e}.also{color:#5b6473;font-size:12px}.tree ul{list-style:none;margin:0;
padding-left:18px;border-left:1px dotted #c3c8d1}.tree li{margin:2px 0}.op{font-weight:600}.args{color:#5b6473;
font-family:monospace;font-size:12px;word-break:break-all}.marked>.node{background:#fde2df;border-radius:3px;
padding:1px 4px}.badge{display:inline-block;background:#c0392b;color:#fff;border-radius:3px;font-size:11px;
padding:0 5px;margin-left:6px;font-family:monospace}.mark-text{color:#922b21;font-size:12px;margin-left:22px}
details>summary{cursor:pointer;font-weight:600}svg text{font:11px system-ui,sans-serif;fill:#1d2430}
.empty{color:#5b6473}
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)




def _color(index: int) -> str:
    return f"hsl({(index * 67) % 360},55%,55%)"


def box_plots(app: Application) -> str:
    """Task-duration distributions of the longest stages, as horizontal box plots."""
    stages = app.longest_stages()[:STAGES_PLOTTED]
    if not stages:
        return '<p class="empty">No task ran.</p>'
    top = max(max(s.figures["duration"]) for s in stages) or 1.0
    left, width, row = 230, 560, 26
    height = row * len(stages) + 30
    parts = [f'<svg class="boxplots" role="img" aria-label="task duration per stage" width="{left + width + 90}" '
             f'height="{height}" viewBox="0 0 {left + width + 90} {height}">']
    for i, stage in enumerate(stages):
        q = quantiles(stage.figures["duration"])
        y = 10 + i * row
        x = [left + width * v / top for v in q]
        label = f"{stage.id}.{stage.attempt} {stage.label.split('(', 1)[-1].rstrip(')')}"[:38]
        parts.append(f'<g class="stage" data-stage="{stage.id}.{stage.attempt}"><title>{_e(stage.label)}: min '
                     f'{format_ms(q[0])}, 25th {format_ms(q[1])}, median {format_ms(q[2])}, 75th {format_ms(q[3])}, max {format_ms(q[4])}, '
                     f'{stage.tasks} tasks</title>'
                     f'<text x="4" y="{y + 13}">{_e(label)}</text>'
                     f'<line x1="{x[0]:.1f}" x2="{x[4]:.1f}" y1="{y + 9}" y2="{y + 9}" stroke="#5b6473"/>'
                     f'<rect x="{x[1]:.1f}" y="{y + 2}" width="{max(x[3] - x[1], 1):.1f}" height="14" '
                     f'fill="{_color(stage.id)}" stroke="#1d2430" stroke-width="0.5"/>'
                     f'<line x1="{x[2]:.1f}" x2="{x[2]:.1f}" y1="{y + 1}" y2="{y + 17}" stroke="#1d2430" '
                     f'stroke-width="2"/><text x="{left + width + 6}" y="{y + 13}">{format_ms(q[4])}</text></g>')
    parts.append(f'<text x="{left}" y="{height - 4}">0</text><text x="{left + width - 40}" y="{height - 4}">'
                 f'{format_ms(top)}</text></svg>')
    return "".join(parts)


def _slots(tasks: list) -> tuple[list[int], int]:
    """Each task's row within its executor (the first free one by launch time), and the rows used."""
    ends: list[float] = []
    rows = []
    for launch, finish in tasks:
        for i, end in enumerate(ends):
            if end <= launch:
                ends[i] = finish
                rows.append(i)
                break
        else:
            ends.append(finish)
            rows.append(len(ends) - 1)
    return rows, max(len(ends), 1)


def timeline(app: Application) -> str:
    """One band per executor (its lifetime), one row per concurrently running task, tasks coloured by stage."""
    tasks = [(ex, launch, finish, stage.id) for stage in app.stages.values()
             for ex, launch, finish in zip(stage.executors, stage.figures["launch"], stage.figures["finish"])]
    if not tasks:
        return '<p class="empty">No task ran.</p>'
    start = min(t[1] for t in tasks)
    end = max(t[2] for t in tasks)
    executors = sorted({t[0] for t in tasks} | {e.id for e in app.executors.values()},
                       key=lambda e: (e != "driver", len(e), e))
    if len(tasks) > MAX_TASKS_DRAWN:
        step = len(tasks) / MAX_TASKS_DRAWN
        tasks = [tasks[int(i * step)] for i in range(MAX_TASKS_DRAWN)]
    by_executor: dict = {ex: [] for ex in executors}
    for task in sorted(tasks, key=lambda t: t[1]):
        by_executor[task[0]].append(task)
    left, width, slot_height = 110, 900, 7
    span = max(end - start, 1.0)
    bands, y = [], 6
    for ex in executors:
        rows, used = _slots([(t[1], t[2]) for t in by_executor[ex]])
        bands.append((ex, y, rows, used))
        y += used * slot_height + 10
    height = y + 20
    parts = [f'<svg class="timeline" role="img" aria-label="executor timeline" width="{left + width + 10}" '
             f'height="{height}" viewBox="0 0 {left + width + 10} {height}">']
    for ex, top, rows, used in bands:
        info = app.executors.get(ex)
        parts.append(f'<text x="4" y="{top + 11}">executor {_e(ex)}</text>')
        if info is not None:
            born = max(info.added or start, start)
            died = min(info.removed or end, end)
            if died > born:
                x0 = left + width * (born - start) / span
                parts.append(f'<rect class="lifetime" x="{x0:.1f}" y="{top}" width="{width * (died - born) / span:.1f}" '
                             f'height="{used * slot_height + 2}" fill="#eceef2"><title>executor {_e(ex)} '
                             f'({_e(info.host)}, {info.cores} cores){" removed: " + _e(info.reason) if info.removed else ""}'
                             f'</title></rect>')
        for (_, launch, finish, stage), row in zip(by_executor[ex], rows):
            x0 = left + width * (launch - start) / span
            parts.append(f'<rect class="task" x="{x0:.1f}" y="{top + 1 + row * slot_height}" '
                         f'width="{max(width * (finish - launch) / span, 0.6):.1f}" height="{slot_height - 1}" '
                         f'fill="{_color(stage)}"><title>stage {stage}: {format_ms(finish - launch)}</title></rect>')
    parts.append(f'<text x="{left}" y="{height - 4}">0</text><text x="{left + width - 60}" y="{height - 4}">'
                 f'{format_ms(span)}</text></svg>')
    return "".join(parts)


def _tree(node: PlanNode) -> str:
    badges = "".join(f'<span class="badge" title="{_e(name)}">{_e(code)}</span>' for code, name, _, _ in node.marks)
    marks = "".join(f'<div class="mark-text">{_e(code)}: {_e(message)}</div>' for code, _, message, _ in node.marks)
    cls = ' class="marked"' if node.marks else ""
    args = node.text[len(node.name):].strip() if node.text.startswith(node.name) else node.text
    children = "".join(_tree(child) for child in node.children)
    return (f'<li{cls}><span class="node"><span class="op">{_e(node.name)}</span> <span class="args">{_e(args[:400])}'
            f'</span>{badges}</span>{marks}{f"<ul>{children}</ul>" if children else ""}</li>')


def plan_section(trees: list[tuple[str, PlanNode]]) -> str:
    if not trees:
        return ""
    parts = ['<section id="plans"><h2>Plans</h2>']
    for title, root in trees:
        marked = sum(len(n.marks) for n in root.walk())
        parts.append(f'<details class="plan"{" open" if marked else ""}><summary>{_e(title)}'
                     f'{f" — {marked} finding(s)" if marked else ""}</summary><div class="tree"><ul>{_tree(root)}</ul>'
                     f'</div></details>')
    parts.append("</section>")
    return "".join(parts)


def findings_section(findings) -> str:
    if not findings:
        return '<section id="findings"><h2>Findings</h2><p class="empty">Nothing to report.</p></section>'
    parts = [f'<section id="findings"><h2>Findings ({len(findings)})</h2>']
    for f in findings:
        parts.append(f'<div class="finding {_e(f.severity)}"><span class="code">{_e(f.code)}</span> '
                     f'<span class="name">{_e(f.name)}</span> <span class="where">{_e(f.filename)}:'
                     f'{f.location.row}:{f.location.column}</span><div class="message">{_e(f.message)}</div>'
                     + (f'<div class="help">Treatment: {_e(f.help)}</div>' if f.help else "")
                     + "".join(f'<div class="also">Also: {_e(r.filename)}:{r.location.row}:{r.location.column}'
                               f'{": " + _e(r.message) if r.message else ""}</div>' for r in f.related) + "</div>")
    parts.append("</section>")
    return "".join(parts)


def application_section(app: Application) -> str:
    s = summarize(app)
    rows = "".join(
        f'<tr><td>{_e(st["stage"])}</td><td>{st["tasks"]}</td><td>{format_ms(st["wall_ms"])}</td>'
        + "".join(f"<td>{format_ms(v)}</td>" for v in st["duration_ms"])
        + f'<td>{_e(gc_cell(st))}</td><td>{_e(st["name"])}</td></tr>' for st in s["worst_stages"])
    removed = "".join(f'<li>executor {_e(r["executor"])} ({_e(r["host"])}): {_e(r["reason"])}</li>'
                      for r in s["executors_removed"])
    return (f'<section class="application"><h2>{_e(s["name"] or "application")} <span class="where">'
            f'{_e(s["application"])} · Spark {_e(s["spark_version"] or "?")} · {format_ms(s["duration_ms"])} · '
            f'{s["executors"]} executors / {s["cores"]} cores · {s["tasks"]} tasks ({s["failed_tasks"]} failed)'
            f'</span></h2><table class="stages"><tr><th>stage</th><th>tasks</th><th>wall</th><th>min</th>'
            f'<th>25th</th><th>median</th><th>75th</th><th>max</th><th>GC</th><th>name</th></tr>{rows}</table>'
            + (f"<h3>Removed executors</h3><ul>{removed}</ul>" if removed else "")
            + f'<h3>Task duration per stage</h3>{box_plots(app)}<h3>Executor timeline</h3>{timeline(app)}</section>')


def render(title: str, findings, trees: list, apps: Optional[list] = None) -> str:
    apps = apps or []
    body = "".join(application_section(app) for app in apps) + findings_section(findings) + plan_section(trees)
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_CSS}</style></head>'
            f'<body><header><h1>{_e(title)}</h1></header><main>{body}</main></body></html>\n')
