"""A progress line on stderr while a fleet run reads logs: applications and bytes done, rate, time left.

Drawn only when stderr is a terminal (and not with --quiet); redrawn at most ten times a second, in place
(`\\r`), and erased when the run ends so the report starts on a clean line.
"""

from __future__ import annotations

import sys
import time

WIDTH = 24


class Progress:
    def __init__(self, total: int, total_bytes: int, enabled: bool, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.total, self.total_bytes = total, total_bytes
        self.done = self.bytes = 0
        self.started = time.monotonic()
        self._drawn = 0.0

    def advance(self, size: int) -> None:
        self.done += 1
        self.bytes += size
        if self.enabled and (time.monotonic() - self._drawn > 0.1 or self.done == self.total):
            self._draw()

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-6)
        share = self.done / self.total if self.total else 1.0
        filled = int(WIDTH * share)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        return (f"[{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total} apps, "
                f"{_mib(self.bytes)}/{_mib(self.total_bytes)} MiB, {rate:.1f} apps/s "
                f"{self.bytes / elapsed / 2**20:.1f} MiB/s, {_clock(left)} left")

    def _draw(self) -> None:
        self._drawn = time.monotonic()
        self.stream.write("\r" + self.line() + "\x1b[K")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f}"


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else \
        f"{seconds // 60}:{seconds % 60:02d}"
