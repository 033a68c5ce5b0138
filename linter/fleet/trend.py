"""Recurring jobs: runs of the same job (waste.job_key) in start order, and the runs that got worse."""

from __future__ import annotations

from statistics import median

from linter.fleet.waste import job_key

SLOWER = 2.0  # a run at least this many times the median run time of the runs before it is named


def recurring(rows: list[dict]) -> list[dict]:
    """Every job with two runs or more: its runs (oldest first) and what regressed, the worst jobs first."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        if row["readable"] and row["start"] is not None:
            groups.setdefault(job_key(row), []).append(row)
    jobs = []
    for key, runs in groups.items():
        if len(runs) < 2:
            continue
        runs.sort(key=lambda r: (r["start"], r["application"], r["log"]))
        regressions = []
        for i, run in enumerate(runs[1:], start=1):
            before = runs[:i]
            typical = median(r["duration_ms"] for r in before)
            if typical > 0 and run["duration_ms"] >= SLOWER * typical:
                regressions.append({"application": run["application"], "kind": "slower",
                                    "message": f"{run['duration_ms'] / typical:.1f}x slower than the median of its "
                                               f"{len(before)} previous run(s) ({_s(run['duration_ms'])} against "
                                               f"{_s(typical)})"})
            if run["spilled"] and not any(r["spilled"] for r in before):
                regressions.append({"application": run["application"], "kind": "spill",
                                    "message": f"started to spill: {run['disk_spill_bytes'] / 2**20:.1f} MiB to disk, "
                                               f"none in its {len(before)} previous run(s)"})
        jobs.append({"job": key, "runs": [{"application": r["application"], "start": r["start"],
                                           "duration_ms": r["duration_ms"], "wasted_core_ms": r["wasted_core_ms"],
                                           "disk_spill_bytes": r["disk_spill_bytes"]} for r in runs],
                     "regressions": regressions})
    jobs.sort(key=lambda j: (-len(j["regressions"]), -sum(r["wasted_core_ms"] for r in j["runs"]), j["job"]))
    return jobs


def _s(ms: float) -> str:
    from linter.sources.plan import format_ms

    return format_ms(ms)
