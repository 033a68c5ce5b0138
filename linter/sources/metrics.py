"""Shares of a run's time that add up: a part is judged against the whole it is part of, never above it.

A task's `JVM GC Time` is the collector's time while the task ran; with a
concurrent collector (G1, ZGC, Shenandoah threads beside the task's) and on GPU
runs (the RAPIDS plugin's tasks wait on the device while the JVM collects) it
can exceed the task's `Executor Run Time`. Summed as they are, such figures give
GC shares of 150% or 94,638%. Here each task's GC time counts up to its own run
time, and the tasks where the log's figures disagree are counted, so that a
report can say so beside a share that stays at most 100%.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Share:
    part: float  # the part counted, each task's capped at its own whole
    whole: float
    inconsistent: int = 0  # tasks whose part, as the log gives it, exceeds their whole

    @property
    def value(self) -> float:
        return min(self.part / self.whole, 1.0) if self.whole > 0 else 0.0

    def percent(self) -> str:
        return f"{self.value:.0%}"

    def note(self, part: str = "GC time", whole: str = "run time") -> str:
        """What a report says when the log's figures are inconsistent, or ""."""
        if not self.inconsistent:
            return ""
        tasks = f"{self.inconsistent} task{'s' if self.inconsistent != 1 else ''}"
        return (f"the log gives {tasks} more {part} than {whole} (a concurrent collector or a GPU run), "
                f"each counted up to its {whole}")


def capped_share(parts, wholes) -> Share:
    """The share of `parts` in `wholes`, task by task (two sequences of the same length)."""
    part = whole = 0.0
    over = 0
    for p, w in zip(parts, wholes):
        if p > w:
            over += 1
        part += min(p, w)
        whole += w
    return Share(part, whole, over)


def stage_gc(stage) -> Share:
    """GC time of a stage's successful tasks against their executor run time."""
    return capped_share(stage.figures["gc_time"], stage.figures["run_time"])


def executor_gc(app) -> dict:
    """Executor id -> its tasks' GC time against their run time, from every stage's tasks."""
    parts: dict = {}
    for stage in app.stages.values():
        gc, run = stage.figures["gc_time"], stage.figures["run_time"]
        for executor, g, r in zip(stage.executors, gc, run):
            entry = parts.setdefault(executor, ([], []))
            entry[0].append(g)
            entry[1].append(r)
    return {executor: capped_share(g, r) for executor, (g, r) in parts.items()}


def ratio(part: float, whole: float) -> str:
    """A quantity against another that it may exceed (spill against input): `40%`, or `1.2 times` above it."""
    if whole <= 0:
        return ""
    value = part / whole
    return f"{value:.0%} of" if value <= 1 else f"{value:.1f} times"


def runs_on_driver(app) -> bool:
    """Local mode (`local`, `local[4]`, `local[*]`): the driver's JVM runs every task, on one machine."""
    workers = app.workers()
    return bool(workers) and all(e.id == "driver" for e in workers)
