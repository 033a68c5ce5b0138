"""Runs linter/fleet/analyse.py over every source: in this process (`--jobs 1`) or a process pool.

Each process returns one application's row and findings at a time; nothing else is kept. Ctrl-C stops the
run: the applications not started are dropped, the pool's processes are ended, and what was read is
reported (the report says how many were not).
"""

from __future__ import annotations

import os
import signal
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field

from linter.fleet.analyse import analyse
from linter.fleet.progress import Progress


@dataclass
class FleetRun:
    rows: list = field(default_factory=list)
    findings: list = field(default_factory=list)  # every application's, in the order of the rows
    total: int = 0
    interrupted: bool = False
    done: int = 0  # sources analysed, those outside the --since/--until window included

    def add(self, pair) -> None:
        self.done += 1
        if pair is not None:
            self.rows.append(pair[0])
            self.findings.extend(pair[1])


def _quiet_worker() -> None:
    # Ctrl-C reaches the whole process group: the parent alone decides what stops
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run(sources: list, config: tuple, jobs: int, progress: Progress) -> FleetRun:
    result = FleetRun(total=len(sources))
    try:
        if jobs <= 1 or len(sources) <= 1:
            for source in sources:
                result.add(analyse(source, config))
                progress.advance(source.size)
        else:
            _pool(sources, config, jobs, progress, result)
    except KeyboardInterrupt:
        result.interrupted = True
    finally:
        progress.close()
    return result


def _pool(sources: list, config: tuple, jobs: int, progress: Progress, result: FleetRun) -> None:
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(sources)), initializer=_quiet_worker)
    pending: dict = {}
    queue = iter(sources)
    try:
        # a bounded window of submitted work: memory does not grow with the number of logs
        for source in queue:
            pending[pool.submit(analyse, source, config)] = source
            if len(pending) >= 4 * jobs:
                break
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                source = pending.pop(future)
                result.add(future.result())
                progress.advance(source.size)
                nxt = next(queue, None)
                if nxt is not None:
                    pending[pool.submit(analyse, nxt, config)] = nxt
    except KeyboardInterrupt:
        for future in pending:
            future.cancel()
        for process in list(getattr(pool, "_processes", {}).values()):
            if process.is_alive():
                os.kill(process.pid, signal.SIGTERM)
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def default_jobs() -> int:
    return os.cpu_count() or 1
