"""The one-screen application summary of `sparkcheck diagnose`: what the Stages and Executors tabs show first."""

from __future__ import annotations

from linter.sources.app import Application, quantiles
from linter.sources.metrics import stage_gc
from linter.sources.plan import format_ms, format_size

WORST = 5  # stages shown, the longest first


def summarize(app: Application) -> dict:
    stages = []
    for stage in app.longest_stages()[:WORST]:
        f = stage.figures
        gc = stage_gc(stage)
        stages.append({
            "stage": f"{stage.id}.{stage.attempt}", "name": stage.name, "tasks": stage.tasks,
            "failed_tasks": stage.failed_tasks, "wall_ms": stage.wall_ms,
            "duration_ms": list(quantiles(f["duration"])),
            "shuffle_read_bytes": list(quantiles(f["shuffle_read"])),
            "input_bytes": sum(f["input"]), "gc_share": gc.value,
            "gc_inconsistent_tasks": gc.inconsistent,
            "spill_disk_bytes": sum(f["disk_spill"]), "spill_memory_bytes": sum(f["memory_spill"]),
        })
    workers = app.workers()
    return {
        "log": app.path, "application": app.id, "name": app.name, "spark_version": app.spark_version,
        "duration_ms": app.duration_ms, "executors": len(workers), "cores": sum(e.cores for e in workers),
        "executors_removed": [{"executor": e.id, "host": e.host, "reason": e.reason}
                              for e in app.executors.values() if e.removed],
        "stages_total": len(app.stages), "tasks": sum(s.tasks for s in app.stages.values()),
        "failed_tasks": sum(f.count for f in app.failures.values()),
        "sql_executions": len(app.plans), "worst_stages": stages,
    }


def render_text(summary: dict) -> str:
    head = (f"{summary['log']}: application {summary['application'] or '?'} ({summary['name'] or 'unnamed'}), "
            f"Spark {summary['spark_version'] or '?'}, {format_ms(summary['duration_ms'])}, "
            f"{summary['executors']} executors / {summary['cores']} cores, {summary['stages_total']} stages, "
            f"{summary['tasks']} tasks ({summary['failed_tasks']} failed), {summary['sql_executions']} SQL executions")
    lines = [head]
    if summary["worst_stages"]:
        lines.append(f"  {'stage':<7} {'tasks':>6} {'wall':>7}  task duration: {'min':>6} {'25th':>6} {'median':>6} "
                     f"{'75th':>6} {'max':>6}  {'shuffle read max':>16} {'GC':>5} {'spill':>9}  name")
        for s in summary["worst_stages"]:
            d = s["duration_ms"]
            lines.append(f"  {s['stage']:<7} {s['tasks']:>6} {format_ms(s['wall_ms']):>7}  {'':>14} {format_ms(d[0]):>6} "
                         f"{format_ms(d[1]):>6} {format_ms(d[2]):>6} {format_ms(d[3]):>6} {format_ms(d[4]):>6}  "
                         f"{format_size(s['shuffle_read_bytes'][4]):>16} {gc_cell(s):>5} "
                         f"{format_size(s['spill_disk_bytes']):>9}  {s['name'][:40]}")
        odd = [s for s in summary["worst_stages"] if s["gc_inconsistent_tasks"]]
        if odd:
            tasks = sum(s["gc_inconsistent_tasks"] for s in odd)
            lines.append(f"  * GC: the log gives {tasks} task{'s' if tasks != 1 else ''} of stage"
                         f"{'s' if len(odd) != 1 else ''} {', '.join(s['stage'] for s in odd)} more GC time than run "
                         "time (a concurrent collector or a GPU run); each counted up to its run time")
    for removed in summary["executors_removed"]:
        lines.append(f"  executor {removed['executor']} ({removed['host']}) removed: {removed['reason'][:100]}")
    return "\n".join(lines) + "\n"


def gc_cell(stage: dict) -> str:
    """A stage's GC share, at most 100%; `*` when the log's GC time exceeds run time in some task."""
    return f"{stage['gc_share']:.0%}" + ("*" if stage["gc_inconsistent_tasks"] else "")
