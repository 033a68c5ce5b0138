"""Whole-file checks in a forked child: the worker thread stays free for the next edit's partial check.

After a partial check (linter/server/incremental.py) the server wants the
whole file's answer too, but a whole check of a long file takes seconds and a
Python thread cannot be stopped: run in the worker, it would hold up every
edit typed meanwhile. So it runs in a child forked from the server (the rules
and libcst already imported, its memory shared until written), which sends its
answer back through a pipe and is killed when a newer version makes it moot.
Forking is POSIX-only: where ``os.fork`` is missing, ``available()`` is False
and the server checks the whole file on every edit instead.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import threading

_HEADER = struct.Struct("!Q")


def available() -> bool:
    return hasattr(os, "fork")


class Job:
    """One whole-file check running in a child; ``cancel()`` kills it; ``done`` is called with its answer."""

    def __init__(self, work, done):
        self._done = done
        self._cancelled = False
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: compute, send, leave without running the parent's exit handlers
            code = 0
            try:
                os.close(read)
                try:
                    payload = pickle.dumps(("ok", work()), protocol=pickle.HIGHEST_PROTOCOL)
                except BaseException as exc:  # noqa: BLE001 - reported to the parent, which logs it
                    payload = pickle.dumps(("error", f"{type(exc).__name__}: {exc}"))
                with os.fdopen(write, "wb") as out:
                    out.write(_HEADER.pack(len(payload)))
                    out.write(payload)
            except BaseException:  # noqa: BLE001 - a broken pipe: the parent no longer wants it
                code = 1
            os._exit(code)
        os.close(write)
        self.pid = pid
        self._read = read
        threading.Thread(target=self._wait, name="sparkcheck-verify", daemon=True).start()

    def _wait(self) -> None:
        data = b""
        try:
            with os.fdopen(self._read, "rb") as f:
                header = f.read(_HEADER.size)
                if len(header) == _HEADER.size:
                    data = f.read(_HEADER.unpack(header)[0])
        except OSError:
            data = b""
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        if self._cancelled or not data:
            return
        try:
            status, value = pickle.loads(data)
        except Exception:  # noqa: BLE001 - a truncated answer (the child was killed): nothing
            return
        self._done(status, value)

    def cancel(self) -> None:
        if self._cancelled:
            return
        self._cancelled = True
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
