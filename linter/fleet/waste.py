"""One application's fleet row: run time, core time allocated and used, core time lost per cause.

linter/fleet/__init__.py says how each figure is computed and which run rule reads the same fields.
"""

from __future__ import annotations

import os

from linter import registry
from linter.sources.app import Application, quantiles
from linter.sources.metrics import runs_on_driver, stage_gc
from linter.sources.plan import MIB

SPILL_MIB_PER_SECOND = 100.0  # sort spill written and read back per core (serialize, compress, local disk)
CAUSES = ("idle", "skew", "spill", "gc", "failed", "lost")
_LOST = ("ExecutorLostFailure", "Resubmitted")
# Names Spark gives an application nobody named: unrelated jobs share them.
DEFAULT_NAMES = frozenset({"pyspark-shell", "pysparkshell", "spark shell", "spark-shell", "sparkr", "spark-submit",
                           "", "default", "app"})


def _opts(settings, code: str) -> dict:
    return settings.rule_options(registry.by_code()[code])


def summarize(app: Application, settings) -> dict:
    """The row: identity, times, core-ms allocated/used and lost per cause, and what the trend compares."""
    end = app.end or app.last_time
    workers = [e for e in app.workers() if e.cores and e.added is not None]
    allocated = 0.0
    if end:
        allocated = float(sum(e.cores * max(0, min(e.removed or end, end) - e.added) for e in workers))
    used = float(sum(e.busy_ms for e in workers))
    failed = sum(f.time_ms for f in app.failures.values() if f.kind not in _LOST)
    lost = sum(f.time_ms for f in app.failures.values() if f.kind in _LOST)
    cores = sum(e.cores for e in workers) or 1
    skew_opts, spill_opts = _opts(settings, "SPK701"), _opts(settings, "SPK703")
    skew = gc = spill = 0.0
    disk_spill = 0.0
    for stage in app.stages.values():
        durations = stage.figures["duration"]
        gc += stage_gc(stage).part
        if stage.tasks >= 2:
            q = quantiles(durations)
            if q[4] > skew_opts["time-ratio"] * q[2] and q[4] > skew_opts["min-seconds"] * 1000:
                skew += (q[4] - q[2]) * (min(stage.tasks, cores) - 1)
        stage_spill = sum(stage.figures["disk_spill"])
        disk_spill += stage_spill
        if stage_spill >= spill_opts["min-mib"] * MIB:
            estimate = 2 * stage_spill / (SPILL_MIB_PER_SECOND * MIB) * 1000
            spill += min(estimate, sum(stage.figures["run_time"]))
    local = runs_on_driver(app)
    idle = 0.0 if local else max(0.0, allocated - used - failed - lost - skew)
    if allocated:
        # the causes of held-but-unused time cannot exceed what was held (clocks of a stitched log)
        skew = min(skew, max(0.0, allocated - used - failed - lost))
    lost_ms = {"idle": idle, "skew": skew, "spill": spill, "gc": gc, "failed": failed, "lost": lost}
    return {
        "application": app.id,
        "name": app.name,
        "log": app.path,
        "spark_version": app.spark_version,
        "start": app.start,
        "end": app.end,
        "complete": app.end is not None,
        "duration_ms": app.duration_ms,
        "local_mode": local,
        "executors": len(workers),
        "cores": sum(e.cores for e in workers),
        "allocated_core_ms": allocated,
        "used_core_ms": used,
        "lost_core_ms": lost_ms,
        "wasted_core_ms": sum(lost_ms.values()),
        "disk_spill_bytes": disk_spill,
        "spilled": disk_spill >= spill_opts["min-mib"] * MIB,
        "tasks": sum(s.tasks for s in app.stages.values()),
        "failed_tasks": sum(f.count for f in app.failures.values()),
        "call_sites": sorted({_site(s) for s in app.stages.values() if s.call_site}),
        "readable": True,
        "problem": "",
    }


def _site(stage) -> str:
    file, _ = stage.call_site
    action = stage.name.split(" at ", 1)[0] if " at " in stage.name else ""
    return f"{action} at {os.path.basename(file)}".strip()


def unreadable_row(path: str, app_id: str, error: str) -> dict:
    """The row of a log that could not be read at all: named in the report, counted in nothing."""
    return {"application": app_id, "name": "", "log": path, "spark_version": "", "start": None, "end": None,
            "complete": False, "duration_ms": 0.0, "local_mode": False, "executors": 0, "cores": 0,
            "allocated_core_ms": 0.0, "used_core_ms": 0.0, "lost_core_ms": dict.fromkeys(CAUSES, 0.0),
            "wasted_core_ms": 0.0, "disk_spill_bytes": 0.0, "spilled": False, "tasks": 0, "failed_tasks": 0,
            "call_sites": [], "readable": False, "problem": error}


def job_key(row: dict) -> str:
    """Which recurring job a run belongs to: its name, with its call sites' files for Spark's default names."""
    name = row["name"].strip()
    if name.lower() not in DEFAULT_NAMES:
        return name
    files = sorted({site.rsplit(" at ", 1)[-1] for site in row["call_sites"]})
    return f"{name or 'unnamed'} [{', '.join(files) or 'no call site'}]"
