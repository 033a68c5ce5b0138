"""One application, start to end: fetch its log, read it, run the run rules, keep the row and the findings.

This is what a pool process and a Spark task run (`analyse`); it returns plain data only (a dict and
Finding objects, both pickle), never the Application, so the caller's memory stays flat.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from linter import registry
from linter.config import ConfigError
from linter.diagnostics import Finding, Location
from linter.fleet.sources import Source, fetch
from linter.fleet.waste import summarize, unreadable_row

_resolvers: dict = {}


def settings_for(config: tuple, path: str):
    """The settings for a log: `config` is (command-line values, --config file), as linter/command.py makes."""
    from linter.config import Resolver

    key = repr(config[:2])
    resolver = _resolvers.get(key)
    if resolver is None:
        resolver = _resolvers[key] = Resolver(dict(config[0]), config[1])
    return resolver.for_path(path if os.path.exists(path) else os.getcwd())


def read_problem(where: str, message: str) -> Finding:
    """SPK001 for a log that could not be read (or only in part): one finding for that application."""
    rule = registry.by_code()["SPK001"]
    loc = Location(1, 1)
    return Finding(rule.code, rule.name, message, rule.severity, where, loc, loc)


def analyse(source: Source, config: tuple) -> tuple[dict, list[Finding]] | None:
    """(row, findings) of one application; a log that cannot be read gives a row marked unreadable and SPK001.

    `config` is (command-line values, --config file, since, until): with a window (epoch ms, None for open),
    an application that started outside it gives None (a log that cannot be read is always reported).
    """
    from linter.runtime.runs import check_application
    from linter.sources.app import read_application

    where = source.name
    folder = tempfile.mkdtemp(prefix="sparkcheck-fleet-") if source.kind != "file" else None
    try:
        try:
            path = fetch(source, folder) if folder else source.location
            app = read_application(path)
        except ConfigError as exc:
            return unreadable_row(where, source.app_id, str(exc)), [read_problem(where, str(exc))]
        except OSError as exc:
            message = f"{where}: cannot read ({exc.strerror or exc})"
            return unreadable_row(where, source.app_id, message), [read_problem(where, message)]
        except Exception as exc:  # noqa: BLE001 - events of unexpected shapes: one log must not stop a fleet
            message = f"{where}: cannot be read as an event log ({type(exc).__name__}: {exc})"
            return unreadable_row(where, source.app_id, message), [read_problem(where, message)]
        app.path = where
        since, until = config[2], config[3]
        if app.start is not None and ((since is not None and app.start < since)
                                      or (until is not None and app.start > until)):
            return None
        if not app.id and app.start is None and not app.stages:
            message = f"{where}: no Spark event in it (not an event log, or cut off before the application started)"
            return unreadable_row(where, source.app_id, message), [read_problem(where, message)]
        settings = settings_for(config, source.location if source.kind == "file" else os.getcwd())
        findings = check_application(app, settings)
        row = summarize(app, settings)
        row["findings"] = _counts(findings)
        if app.end is None and not _in_progress(source):
            # not a finding of the run: the figures stop where the log stops
            message = (f"{where}: the log ends before the application's end (cut off, or the driver was killed); "
                       "its figures stop at its last event")
            row["problem"] = message
            findings.append(read_problem(where, message))
        return row, findings
    finally:
        if folder:
            shutil.rmtree(folder, ignore_errors=True)


def _in_progress(source: Source) -> bool:
    """A log still being written says so in its name (`.inprogress`, or its rolling folder's appstatus file)."""
    if ".inprogress" in source.location:
        return True
    if source.kind == "file" and os.path.isdir(source.location):
        return any(n.startswith("appstatus") and n.endswith(".inprogress") for n in os.listdir(source.location))
    return any(".inprogress" in p for p in source.parts)


def _counts(findings: list[Finding]) -> dict:
    counts: dict = {}
    for f in findings:
        counts[f.code] = counts.get(f.code, 0) + 1
    return counts
