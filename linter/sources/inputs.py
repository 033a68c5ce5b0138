"""Which files of the paths a user gives are plans or event logs (`sparkcheck plan DIR`, a History Server's zip)."""

from __future__ import annotations

import os

from linter.sources.eventlog import is_event_log

PLAN_EXTENSIONS = (".txt", ".plan", ".log", ".explain")


def plan_files(paths: list[str]) -> list[str]:
    """Explain-text files and event logs under the paths, in a stable order; other paths as they are."""
    out = []
    for path in paths:
        if os.path.isdir(path) and is_event_log(path):
            out.append(path)  # a rolling event log directory is one log
        elif os.path.isdir(path):
            for base, dirs, names in os.walk(path):
                rolling = sorted(d for d in dirs if is_event_log(os.path.join(base, d)))
                out.extend(os.path.join(base, d) for d in rolling)  # read whole, not part by part
                dirs[:] = sorted(d for d in dirs if d not in rolling)
                out.extend(os.path.join(base, n) for n in sorted(names)
                           if n.lower().endswith(PLAN_EXTENSIONS) or is_event_log(os.path.join(base, n)))
        else:
            out.append(path)
    return out
