"""The language server: pygls on standard input and output, the engine in one worker thread.

What it does, and the choices made where the protocol leaves them open:

- **Diagnostics** are the findings ``sparkcheck check`` reports for the text the
  editor holds (linter/server/analysis.py runs the same engine on it). Clients
  that pull (``textDocument/diagnostic``, LSP 3.17) get them when they ask;
  clients that cannot pull get them pushed (as ruff's server, never both, so no
  client shows them twice): after an open, a save or an edit that follows a
  pause at once, and after edits closer together than ``DEBOUNCE`` seconds once
  the burst ends (one check of it). A notebook (LSP 3.17
  notebook sync) is checked as the ``.ipynb`` file it is, each finding published
  on its cell. The message is the command line's; its help, the rule's manual
  and what ``noqa`` would do are in the hover. An edit of a Python file is
  checked partially (linter/server/incremental.py: the statements it can
  change, in their context) and answered at once; then, once the text has
  been still for ``VERIFY_DELAY`` seconds, the whole file is checked in a
  forked child (linter/server/verify.py, killed by the next edit) and published
  again if it differs, so the last answer is always the whole file's. ``incremental: false`` turns partial checks off. A rule has no
  manual page on the web (the command line's ``url`` is null), so no
  ``codeDescription`` is sent.
- **Code actions**: each finding's fix (safe ones preferred; unsafe ones only
  with ``unsafeFixes``, marked "unsafe"), a ``noqa`` comment for its line (the
  one ``--add-noqa`` writes), and ``source.fixAll.sparkcheck``: every safe fix
  of the document in one edit, from linter/fixer.py, computed when the client
  resolves the action (or at once for clients that cannot resolve).
- **Settings**: the project's ``[tool.sparkcheck]`` / ``sparkcheck.toml``
  nearest each document (linter/config.py), reloaded when a client reports a
  change to one (``workspace/didChangeWatchedFiles``, registered when the client
  allows it) or saves one it has open; initialization options (or
  ``workspace/didChangeConfiguration`` under ``sparkcheck``): ``select``,
  ``extendSelect``, ``ignore``, ``preview``, ``unsafeFixes``, ``incremental``,
  layered over the files as the command line's flags are. A broken configuration is shown once
  and the defaults apply until it is fixed. Excluded files get no findings.
- **Robustness**: the engine runs in one worker thread, so requests and
  cancellations are read while it works; a check whose document changed before
  it started is skipped, and an answer for a version the editor no longer holds
  is nothing (no diagnostics published, no actions, no hover). A check that
  raises is logged (``window/logMessage``) and the server goes on. Standard
  output is the protocol's alone: anything printed goes to standard error. The
  server exits on ``exit`` (0 after ``shutdown``, else 1), at the end of its
  input, and when the process that started it (or the ``processId`` the client
  gave) is gone.
- **Latency** (bench/server.py): the answer to an edit costs its check and
  little more. The lines of a document are split once per answer, not once per
  finding; ASCII columns are not counted character by character; and after a
  check that loaded more of the engine, the worker collects garbage and freezes
  what is left (``_settle``), so that Python's full collections, which walked the
  engine's objects every ten checks or so, no longer stall an answer.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import logging
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from lsprotocol import types as t
from pygls.capabilities import get_capability
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from linter import __version__
from linter.server import incremental, verify
from linter.server.analysis import (
    NOTEBOOK,
    Analysis,
    CellText,
    Edit,
    analyse,
    document_language,
    document_path,
    fix_all,
    notebook_bytes,
    text_bytes,
)

DEBOUNCE = 0.05  # seconds: edits closer together are one burst, checked once it ends; a lone edit at once
VERIFY_DELAY = 0.2  # seconds of quiet after a partial answer before its whole-file check is forked
PARENT_POLL = 1.0  # seconds between checks that the client process is alive
CONFIG_NAMES = ("pyproject.toml", "sparkcheck.toml", ".sparkcheck.toml")
FIX_ALL = "source.fixAll.sparkcheck"
SOURCE = "sparkcheck"
UNUSED_NOQA = "SPK002"
_SEVERITY = {"error": t.DiagnosticSeverity.Error, "warning": t.DiagnosticSeverity.Warning,
             "info": t.DiagnosticSeverity.Information}

log = logging.getLogger("sparkcheck.server")
_SERIALS = itertools.count(1)


@dataclass
class Target:
    """One document as the editor holds it at one version: a text file, or a notebook and its cells."""

    key: str  # the text document's or the notebook's uri
    path: str
    language_id: str | None
    notebook: bool
    data: bytes
    version: Any
    texts: dict  # cell number (None for a file) -> text
    uris: dict  # cell number (None for a file) -> the uri its diagnostics go to
    versions: dict  # uri -> version, for versioned edits
    split: dict = field(default_factory=dict, repr=False, compare=False)  # cell -> its lines, split once

    def lines(self, cell: int | None) -> list[str]:
        """The cell's (or file's) lines: split once, not once per finding (the 203 findings of bench/server.py's
        2,000-line file split it 203 times, 16 ms of each answer)."""
        got = self.split.get(cell)
        if got is None:
            got = self.split[cell] = self.texts.get(cell, "").split("\n")
        return got


@dataclass
class Result:
    target: Target
    generation: int
    analysis: Analysis
    by_uri: dict = field(default_factory=dict)  # uri -> [(Item, Diagnostic)]
    serial: int = field(default_factory=lambda: next(_SERIALS))  # pull diagnostics' result id
    verify: tuple | None = None  # a partial answer's whole-file check to start once it is published


@dataclass
class ClientOptions:
    select: list | None = None
    extend_select: list = field(default_factory=list)
    ignore: list = field(default_factory=list)
    preview: bool | None = None
    unsafe_fixes: bool = False
    incremental: bool = True

    def overrides(self) -> dict:
        out: dict = {}
        if self.select is not None:
            out["select"] = list(self.select)
        if self.extend_select:
            out["extend-select"] = list(self.extend_select)
        if self.ignore:
            out["extend-ignore"] = list(self.ignore)
        if self.preview is not None:
            out["preview"] = self.preview
        return out


_OPTION_KEYS = {
    "select": "select", "extendSelect": "extend_select", "extend-select": "extend_select",
    "ignore": "ignore", "preview": "preview", "unsafeFixes": "unsafe_fixes", "unsafe-fixes": "unsafe_fixes",
    "incremental": "incremental",
}


def parse_options(raw) -> tuple[ClientOptions, list[str]]:
    """The client's options (``{"select": [...], ...}`` or ruff's ``{"settings": {...}}``) and what was wrong."""
    from linter.registry import SelectorError, resolve

    options, problems = ClientOptions(), []
    if isinstance(raw, dict) and isinstance(raw.get("settings"), dict):
        raw = raw["settings"]
    if raw is None:
        return options, problems
    if not isinstance(raw, dict):
        return options, [f"sparkcheck: the options must be an object, not {type(raw).__name__}"]
    for key, value in raw.items():
        name = _OPTION_KEYS.get(key)
        if name is None:
            problems.append(f"sparkcheck: unknown option `{key}` (known: select, extendSelect, ignore, preview, "
                            f"unsafeFixes, incremental)")
        elif name in ("preview", "unsafe_fixes", "incremental"):
            if not isinstance(value, bool):
                problems.append(f"sparkcheck: option `{key}` must be true or false")
            else:
                setattr(options, name, value)
        else:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                problems.append(f"sparkcheck: option `{key}` must be a list of rule codes, names or prefixes")
                continue
            try:
                for selector in value:
                    resolve(selector, f"option `{key}`")
            except SelectorError as exc:
                problems.append(f"sparkcheck: {exc}")
                continue
            setattr(options, name, list(value))
    return options, problems


def _units(codec, text: str) -> int:
    """``codec.client_num_units(text)``, at once for ASCII text."""
    return len(text) if text.isascii() else codec.client_num_units(text)


class SparkcheckServer(LanguageServer):
    def __init__(self):
        super().__init__(
            SOURCE, __version__,
            text_document_sync_kind=t.TextDocumentSyncKind.Incremental,
            notebook_document_sync=t.NotebookDocumentSyncOptions(
                notebook_selector=[t.NotebookDocumentFilterWithNotebook(notebook="*")], save=True),
        )
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sparkcheck-check")
        self.loop: asyncio.AbstractEventLoop | None = None
        self.options = ClientOptions()
        self.push = True
        self.generation = 0  # bumped when the settings change: older results are dropped
        self.resolver = None  # built in the worker, on first use after each change
        self.latest: dict = {}  # key -> the version the editor holds
        self.results: dict = {}  # key -> Result of its latest version
        self.inflight: dict = {}  # (key, version, generation) -> asyncio future of its Result
        self.timers: dict = {}  # key -> pending pushed check
        self.published: dict = {}  # key -> the uris diagnostics were published to
        self.shown: set = set()  # configuration errors already shown
        self.exit_code = 1  # 0 once `shutdown` came
        self.parent_watch = ParentWatch()
        self.states: dict = {}  # key -> (generation, incremental.State of the last check), in the worker
        self.jobs: dict = {}  # key -> verify.Job: the whole-file check of a partial answer
        self.verify_timers: dict = {}  # key -> the pending start of a partial answer's whole-file check
        self.edited_at: dict = {}  # key -> time.monotonic() of its last edit
        self.jobs_lock = threading.Lock()
        self.frozen_modules = 0  # len(sys.modules) after the last gc.freeze (``_settle``)

    # ----- documents -----

    def key_of(self, uri: str) -> str | None:
        """The open document a uri belongs to (a cell's notebook), or None when it is not open."""
        ws = self.workspace
        nb = ws.get_notebook_document(cell_uri=uri)
        if nb is not None:
            return nb.uri
        if ws.get_notebook_document(notebook_uri=uri) is not None:
            return uri
        if unquote(uri) in ws.text_documents:
            return uri
        return None

    def version_of(self, key: str):
        ws = self.workspace
        nb = ws.get_notebook_document(notebook_uri=key)
        if nb is not None:
            docs = ws.text_documents
            return (nb.version, tuple(getattr(docs.get(unquote(c.document)), "version", None) for c in nb.cells))
        doc = ws.text_documents.get(unquote(key))
        return None if doc is None else doc.version

    def touch(self, key: str, delay: float | None) -> None:
        """The document changed (or opened, or was saved): note its version; push a check after ``delay``."""
        self.latest[key] = self.version_of(key)
        self.cancel_verify(key)
        if self.push and delay is not None:
            self.schedule(key, delay)

    def edit_delay(self, key: str, now: float | None = None) -> float:
        """How long an edit waits before its pushed check: none after a pause (typing is a keystroke every
        100 ms or more, and a check of the previous text is then over or nearly), ``DEBOUNCE`` within a burst
        (edits closer together than that: a paste in steps, a multi-cursor edit, a client sending each
        character), so a burst is checked once, when it ends."""
        now = time.monotonic() if now is None else now
        last = self.edited_at.get(key)
        self.edited_at[key] = now
        return DEBOUNCE if last is not None and now - last < DEBOUNCE else 0.0

    def forget(self, key: str) -> None:
        self.latest.pop(key, None)
        self.edited_at.pop(key, None)
        self.results.pop(key, None)
        self.states.pop(key, None)
        self.cancel_verify(key)
        timer = self.timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        for uri in self.published.pop(key, ()):
            self.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def target(self, key: str) -> Target | None:
        ws = self.workspace
        root = ws.root_path or os.getcwd()
        nb = ws.get_notebook_document(notebook_uri=key)
        if nb is not None:
            cells, texts, uris, versions = [], {}, {}, {}
            for number, cell in enumerate(nb.cells, start=1):
                doc = ws.text_documents.get(unquote(cell.document))
                text = doc.source if doc is not None else ""
                kind = "code" if cell.kind == t.NotebookCellKind.Code else "markdown"
                cells.append(CellText(kind, text, doc.language_id if doc is not None else None))
                texts[number] = text
                uris[number] = cell.document
                versions[cell.document] = doc.version if doc is not None else None
            path = document_path(to_fs_path(key), root, None)
            if not path.lower().endswith(".ipynb"):
                path += ".ipynb"
            return Target(key, path, None, True, notebook_bytes(cells, nb.metadata), self.version_of(key),
                          texts, uris, versions)
        doc = ws.text_documents.get(unquote(key))
        if doc is None:
            return None
        text = doc.source
        return Target(key, document_path(to_fs_path(key), root, doc.language_id), doc.language_id, False,
                      text_bytes(text), doc.version, {None: text}, {None: doc.uri}, {doc.uri: doc.version})

    # ----- checking (in the worker) -----

    def settings_for(self, path: str):
        """(settings, a configuration error to show or None), in the worker thread."""
        from linter.config import ConfigError, Resolver

        if self.resolver is None:
            self.resolver = Resolver(self.options.overrides(), cwd=self.workspace.root_path or os.getcwd())
        resolver = self.resolver
        try:
            return resolver.for_path(path), None
        except ConfigError as exc:
            return resolver._make(None, None), f"sparkcheck: {exc}; using the default settings"

    def _check(self, target: Target, generation: int):
        """Run in the worker: the analysis, or None when the document changed before it started."""
        if self.latest.get(target.key) != target.version or generation != self.generation:
            return None
        try:
            return self._check_now(target, generation)
        finally:
            if len(sys.modules) != self.frozen_modules:
                self._settle()

    def _settle(self) -> None:
        """In the worker, after a check that imported more of the engine (the first: the rules, libcst,
        sqlglot; later, another file's rules): collect garbage and freeze what is left (``gc.freeze``), so that
        later collections leave the engine's 125,000 objects alone. A full collection walked them every ten
        checks or so, adding 30 to 70 ms to that answer; this one costs about as much, once, after a check
        that took a second or more. A frozen object is still freed when no reference to it is left."""
        self.frozen_modules = len(sys.modules)
        gc.collect()
        gc.freeze()

    def _check_now(self, target: Target, generation: int):
        settings, problem = self.settings_for(target.path)
        if target.notebook:
            language = NOTEBOOK
        else:
            language = document_language(target.path, target.language_id, settings)
        if language is None or settings.exclude.matches_any(os.path.abspath(target.path)):
            return Analysis(texts=dict(target.texts)), problem, None
        try:
            if self.incremental_for(target, language):
                return self._check_incremental(target, generation, settings, language), problem, None
            return analyse(target.path, target.data, settings, language), problem, None
        except Exception as exc:  # noqa: BLE001 - a broken rule must not take the server down
            tb = exc.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            where = f" (at {os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno})" if tb else ""
            return Analysis(), problem, f"internal error while checking {target.path}: {type(exc).__name__}: {exc}{where}"

    # ----- partial checks and their verification (linter/server/incremental.py, verify.py) -----

    def incremental_for(self, target: Target, language: str | None) -> bool:
        return (self.options.incremental and not target.notebook and language == "python"
                and verify.available())

    def _check_incremental(self, target: Target, generation: int, settings, language: str):
        """In the worker: the analysis from the document's last state, and a whole-file check to follow a
        partial one (in a forked child, published only if it differs)."""
        text = target.texts[None]
        kept = self.states.get(target.key)
        old = kept[1] if kept is not None and kept[0] == generation else None
        analysis, state = incremental.check(old, target.path, text, settings, language)
        self.states[target.key] = (generation, state)
        if not state.exact and state.text == text:  # partial (not the last good state kept for a half-typed text)
            analysis.verify = (target, generation, settings, language)  # started once the answer is out
        return analysis

    def verify_later(self, result: Result) -> None:
        """After a partial answer is published (or pulled): its whole-file check, forked from the worker once
        the document has been still for ``VERIFY_DELAY`` (the next edit cancels it). While the user types, a
        child forked at each answer would be killed by the next keystroke after slowing its check: the fork
        holds the worker and delays reading the next message, the parent then pays for copying the pages it
        writes, and the child takes a core from it on a busy machine (bench/server.py measures both)."""
        pending, result.verify = result.verify, None
        if pending is None:
            return
        key = pending[0].key
        timer = self.verify_timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        self.verify_timers[key] = self.loop.call_later(VERIFY_DELAY, self._verify_now, key, pending)

    def _verify_now(self, key: str, pending: tuple) -> None:
        self.verify_timers.pop(key, None)
        if self.latest.get(key) == pending[0].version and pending[1] == self.generation:
            self.worker.submit(self.start_verify, *pending)

    def start_verify(self, target: Target, generation: int, settings, language: str) -> None:
        path, text, key = target.path, target.texts[None], target.key

        def work():
            return incremental.check(None, path, text, settings, language)

        def done(status, value):
            self.loop.call_soon_threadsafe(self._verified, target, generation, status, value)

        with self.jobs_lock:
            if self.latest.get(key) != target.version or generation != self.generation:
                return
            old = self.jobs.pop(key, None)
            if old is not None:
                old.cancel()
            try:
                self.jobs[key] = verify.Job(work, done)
            except OSError as exc:  # no fork (out of processes, memory): the partial answer stays
                log.warning("cannot verify %s: %s", path, exc)

    def cancel_verify(self, key: str) -> None:
        """In the loop: no whole-file check for the document's older versions (pending or running)."""
        timer = self.verify_timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        with self.jobs_lock:
            job = self.jobs.pop(key, None)
        if job is not None:
            job.cancel()

    def _verified(self, target: Target, generation: int, status: str, value) -> None:
        """In the loop: the whole-file answer for a version that had a partial one."""
        key = target.key
        with self.jobs_lock:
            self.jobs.pop(key, None)
        if self.latest.get(key) != target.version or generation != self.generation:
            return
        if status != "ok":
            self.window_log_message(t.LogMessageParams(type=t.MessageType.Error,
                                                       message=f"sparkcheck: internal error while checking "
                                                               f"{target.path}: {value}"))
            return
        analysis, state = value
        self.states[key] = (generation, state)
        current = self.results.get(key)
        if current is not None and current.target.version == target.version and \
                _same_items(current.analysis.items, analysis.items):
            return
        result = Result(target, generation, analysis, self.diagnostics(target, analysis))
        self.results[key] = result
        if self.push:
            self.publish(key, result)
        elif get_capability(self.client_capabilities, "workspace.diagnostics.refresh_support", False):
            self.workspace_diagnostic_refresh(None)

    def _fix_all(self, target: Target, generation: int):
        if self.latest.get(target.key) != target.version or generation != self.generation:
            return None
        settings, _ = self.settings_for(target.path)
        language = NOTEBOOK if target.notebook else document_language(target.path, target.language_id, settings)
        if language is None:
            return None
        try:
            return fix_all(target.path, target.data, settings, language)
        except Exception as exc:  # noqa: BLE001 - as for a check
            log.error("fix-all failed on %s: %s: %s", target.path, type(exc).__name__, exc)
            return None

    async def result(self, key: str) -> Result | None:
        """The findings of the document's current version (None: closed, or changed meanwhile)."""
        target = self.target(key)
        if target is None:
            return None
        cached = self.results.get(key)
        if cached is not None and cached.target.version == target.version and cached.generation == self.generation:
            return cached
        ident = (key, repr(target.version), self.generation)
        future = self.inflight.get(ident)
        if future is None:
            future = self.loop.create_task(self._compute(target, self.generation, ident))
            self.inflight[ident] = future
        return await asyncio.shield(future)

    async def _compute(self, target: Target, generation: int, ident) -> Result | None:
        try:
            out = await self.loop.run_in_executor(self.worker, self._check, target, generation)
        finally:
            self.inflight.pop(ident, None)
        if out is None:
            return None
        analysis, problem, error = out
        if problem is not None and problem not in self.shown:
            self.shown.add(problem)
            self.window_show_message(t.ShowMessageParams(type=t.MessageType.Error, message=problem))
        if error is not None:
            self.window_log_message(t.LogMessageParams(type=t.MessageType.Error, message=f"sparkcheck: {error}"))
            return None
        result = Result(target, generation, analysis, self.diagnostics(target, analysis),
                        verify=analysis.verify)
        if self.latest.get(target.key) == target.version and generation == self.generation:
            self.results[target.key] = result
            return result
        return None

    # ----- pushing -----

    def schedule(self, key: str, delay: float) -> None:
        timer = self.timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        self.timers[key] = self.loop.call_later(delay, lambda: self.loop.create_task(self._push(key)))

    async def _push(self, key: str) -> None:
        self.timers.pop(key, None)
        result = await self.result(key)
        if result is None or self.latest.get(key) != result.target.version:
            return  # closed or changed: a newer check is on its way
        self.publish(key, result)
        self.verify_later(result)

    def publish(self, key: str, result: Result) -> None:
        uris = set(result.by_uri)
        for uri in self.published.get(key, set()) - uris:  # a cell that is gone
            self.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        for uri, entries in result.by_uri.items():
            self.text_document_publish_diagnostics(t.PublishDiagnosticsParams(
                uri=uri, version=result.target.versions.get(uri), diagnostics=[d for _, d in entries]))
        self.published[key] = uris

    def recheck_all(self) -> None:
        """The settings changed: new results for every open document."""
        self.generation += 1
        self.resolver = None
        self.results.clear()
        for key in set(self.jobs) | set(self.verify_timers):
            self.cancel_verify(key)
        self.shown.clear()
        if self.push:
            for key in list(self.latest):
                self.schedule(key, 0)
        elif get_capability(self.client_capabilities, "workspace.diagnostics.refresh_support", False):
            self.workspace_diagnostic_refresh(None)

    # ----- protocol shapes -----

    def position(self, lines: list[str], row: int, column: int) -> t.Position:
        """A 0-based row and column in code points as the client counts (UTF-16 unless negotiated). ASCII is one
        unit a character in every encoding: pygls's codec counts character by character in Python (1.5 ms of an
        answer of 200 findings)."""
        if row >= len(lines):
            return t.Position(line=max(0, len(lines) - 1), character=_units(self.workspace.position_codec,
                                                                            lines[-1]) if lines else 0)
        line = lines[row]
        units = _units(self.workspace.position_codec, line[:column])
        return t.Position(line=row, character=units + max(0, column - len(line)))

    def range(self, lines: list[str], start: tuple, end: tuple) -> t.Range:
        return t.Range(start=self.position(lines, *start), end=self.position(lines, *end))

    def diagnostics(self, target: Target, analysis: Analysis) -> dict:
        from linter.registry import by_code

        rules = by_code()
        by_uri: dict = {uri: [] for uri in target.uris.values()}
        first = min(target.uris, key=lambda c: c or 0) if target.uris else None
        for item in analysis.items:
            f = item.finding
            cell = item.cell if target.notebook else None
            if cell not in target.uris:
                cell = first  # a notebook-wide error (no cell): on its first cell
            uri = target.uris.get(cell)
            if uri is None:
                continue
            rule = rules.get(f.code)
            diag = t.Diagnostic(
                range=self.range(target.lines(cell), item.start(), item.end()),
                message=f.message,
                severity=_SEVERITY.get(f.severity, t.DiagnosticSeverity.Warning),
                code=f.code,
                source=SOURCE,
                tags=[t.DiagnosticTag.Unnecessary] if f.code == UNUSED_NOQA else None,
                data={"name": rule.name if rule else f.name, "fixable": item.fix_edits is not None},
            )
            by_uri[uri].append((item, diag))
        return by_uri

    def workspace_edit(self, target: Target, edits: list) -> t.WorkspaceEdit:
        """Edits (analysis.Edit) on the document's texts; versioned where the client takes documentChanges."""
        by_uri: dict = {}
        for e in edits:
            cell = e.cell if target.notebook else None
            uri = target.uris.get(cell)
            if uri is None:
                continue
            lines = target.lines(cell)
            by_uri.setdefault(uri, []).append(t.TextEdit(range=self.range(lines, e.start, e.end), new_text=e.content))
        if get_capability(self.client_capabilities, "workspace.workspace_edit.document_changes", False):
            return t.WorkspaceEdit(document_changes=[
                t.TextDocumentEdit(text_document=t.OptionalVersionedTextDocumentIdentifier(
                    uri=uri, version=target.versions.get(uri)), edits=list(text_edits))
                for uri, text_edits in by_uri.items()])
        return t.WorkspaceEdit(changes=by_uri)

    def replacement_edits(self, target: Target, new_texts: dict) -> list:
        """One edit per changed text: the span between what stays the same at its start and at its end."""
        edits = []
        for cell, new in new_texts.items():
            old = target.texts.get(cell)
            if old is None or old == new:
                continue
            start = 0
            limit = min(len(old), len(new))
            while start < limit and old[start] == new[start]:
                start += 1
            end_old, end_new = len(old), len(new)
            while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
                end_old -= 1
                end_new -= 1
            edits.append(Edit(cell, _row_col(old, start), _row_col(old, end_old), new[start:end_new]))
        return edits


def _same_items(a: list, b: list) -> bool:
    def key(item):
        f = item.finding
        return (f.code, f.location.row, f.location.column, f.end_location.row, f.end_location.column, f.message,
                f.severity, f.help, item.fix_edits, item.applicability, item.noqa_edit)

    return [key(i) for i in a] == [key(i) for i in b]


def _row_col(text: str, offset: int) -> tuple[int, int]:
    row = text.count("\n", 0, offset)
    return row, offset - (text.rfind("\n", 0, offset) + 1)


def _before(a: t.Position, b: t.Position) -> bool:
    return (a.line, a.character) < (b.line, b.character)


def _overlaps(a: t.Range, b: t.Range) -> bool:
    return not _before(a.end, b.start) and not _before(b.end, a.start)


def _contains(r: t.Range, p: t.Position) -> bool:
    return not _before(p, r.start) and not _before(r.end, p)


def _wanted(kind: str, only) -> bool:
    return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] != "Z"  # a zombie is dead
    except (OSError, IndexError):
        return True


class ParentWatch:
    """Exit when the process that started the server, or the client's ``processId`` once known, is gone."""

    def __init__(self):
        self.parent = os.getppid()
        self.pid: int | None = None  # set by `initialize`

    def start(self) -> None:
        threading.Thread(target=self._poll, name="sparkcheck-parent", daemon=True).start()

    def _poll(self) -> None:
        while True:
            time.sleep(PARENT_POLL)
            if os.getppid() != self.parent or (self.pid and not _alive(self.pid)):
                sys.stderr.write("sparkcheck server: the client process is gone; exiting\n")
                sys.stderr.flush()
                os._exit(1)


def create_server() -> SparkcheckServer:
    server = SparkcheckServer()

    @server.feature(t.INITIALIZE)
    def initialize(ls: SparkcheckServer, params: t.InitializeParams):
        ls.loop = asyncio.get_running_loop()
        ls.options, problems = parse_options(params.initialization_options)
        for problem in problems:
            ls.window_show_message(t.ShowMessageParams(type=t.MessageType.Error, message=problem))
        ls.push = get_capability(params.capabilities, "text_document.diagnostic") is None
        ls.parent_watch.pid = params.process_id

    @server.feature(t.INITIALIZED)
    async def initialized(ls: SparkcheckServer, params: t.InitializedParams):
        if get_capability(ls.client_capabilities, "workspace.did_change_watched_files.dynamic_registration", False):
            watchers = [t.FileSystemWatcher(glob_pattern=f"**/{name}") for name in CONFIG_NAMES]
            try:
                await ls.client_register_capability_async(t.RegistrationParams(registrations=[t.Registration(
                    id="sparkcheck-config-files", method=t.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=t.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))]))
            except Exception as exc:  # noqa: BLE001 - a client that refuses: saves of config files still reload
                log.warning("the client did not register the configuration file watchers: %s", exc)

    @server.feature(t.SHUTDOWN)
    def shutdown(ls: SparkcheckServer, params):
        ls.exit_code = 0
        for key in set(ls.jobs) | set(ls.verify_timers):
            ls.cancel_verify(key)
        for timer in ls.timers.values():
            timer.cancel()
        ls.timers.clear()

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: SparkcheckServer, params: t.DidOpenTextDocumentParams):
        ls.touch(params.text_document.uri, 0)

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: SparkcheckServer, params: t.DidChangeTextDocumentParams):
        ls.touch(params.text_document.uri, ls.edit_delay(params.text_document.uri))

    @server.feature(t.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: SparkcheckServer, params: t.DidSaveTextDocumentParams):
        uri = params.text_document.uri
        if os.path.basename(to_fs_path(uri) or "") in CONFIG_NAMES:
            ls.recheck_all()
        if ls.key_of(uri) is not None:
            ls.touch(uri, 0)

    @server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SparkcheckServer, params: t.DidCloseTextDocumentParams):
        ls.forget(params.text_document.uri)

    @server.feature(t.NOTEBOOK_DOCUMENT_DID_OPEN)
    def nb_open(ls: SparkcheckServer, params: t.DidOpenNotebookDocumentParams):
        ls.touch(params.notebook_document.uri, 0)

    @server.feature(t.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def nb_change(ls: SparkcheckServer, params: t.DidChangeNotebookDocumentParams):
        ls.touch(params.notebook_document.uri, ls.edit_delay(params.notebook_document.uri))

    @server.feature(t.NOTEBOOK_DOCUMENT_DID_SAVE)
    def nb_save(ls: SparkcheckServer, params: t.DidSaveNotebookDocumentParams):
        ls.touch(params.notebook_document.uri, 0)

    @server.feature(t.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def nb_close(ls: SparkcheckServer, params: t.DidCloseNotebookDocumentParams):
        ls.forget(params.notebook_document.uri)

    @server.feature(t.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: SparkcheckServer, params: t.DidChangeWatchedFilesParams):
        if any(os.path.basename(to_fs_path(c.uri) or c.uri) in CONFIG_NAMES for c in params.changes):
            ls.recheck_all()

    @server.feature(t.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def configuration(ls: SparkcheckServer, params: t.DidChangeConfigurationParams):
        settings = params.settings
        if isinstance(settings, dict) and isinstance(settings.get(SOURCE), dict):
            ls.options, problems = parse_options(settings[SOURCE])
            for problem in problems:
                ls.window_show_message(t.ShowMessageParams(type=t.MessageType.Error, message=problem))
            ls.recheck_all()

    @server.feature(t.TEXT_DOCUMENT_DIAGNOSTIC, t.DiagnosticOptions(
        identifier=SOURCE, inter_file_dependencies=False, workspace_diagnostics=False))
    async def pull(ls: SparkcheckServer, params: t.DocumentDiagnosticParams):
        uri = params.text_document.uri
        key = ls.key_of(uri)
        result = await ls.result(key) if key is not None else None
        if result is None:
            return t.RelatedFullDocumentDiagnosticReport(items=[])
        ls.verify_later(result)
        result_id = str(result.serial)
        if params.previous_result_id == result_id:
            return t.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return t.RelatedFullDocumentDiagnosticReport(items=[d for _, d in result.by_uri.get(uri, [])],
                                                     result_id=result_id)

    @server.feature(t.TEXT_DOCUMENT_CODE_ACTION, t.CodeActionOptions(
        code_action_kinds=[t.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True))
    async def code_action(ls: SparkcheckServer, params: t.CodeActionParams):
        uri = params.text_document.uri
        key = ls.key_of(uri)
        result = await ls.result(key) if key is not None else None
        if result is None or ls.latest.get(key) != result.target.version:
            return None
        only = params.context.only
        target = result.target
        actions = []
        if _wanted(t.CodeActionKind.QuickFix, only):
            for item, diag in result.by_uri.get(uri, []):
                if not _overlaps(diag.range, params.range):
                    continue
                code = item.finding.code
                if item.fix_edits is not None and (item.applicability == "safe" or ls.options.unsafe_fixes):
                    safe = item.applicability == "safe"
                    title = item.finding.fix["message"] + (f" ({code})" if safe else f" ({code}, unsafe fix)")
                    actions.append(t.CodeAction(title=title, kind=t.CodeActionKind.QuickFix, diagnostics=[diag],
                                                is_preferred=safe or None,
                                                edit=ls.workspace_edit(target, item.fix_edits)))
                if item.noqa_edit is not None:
                    actions.append(t.CodeAction(title=f"Disable {code} for this line", kind=t.CodeActionKind.QuickFix,
                                                diagnostics=[diag], edit=ls.workspace_edit(target, [item.noqa_edit])))
        if _wanted(FIX_ALL, only) and any(i.fix_edits is not None and i.applicability == "safe"
                                          for i in result.analysis.items):
            action = t.CodeAction(title="Fix all safe sparkcheck problems", kind=FIX_ALL,
                                  data={"uri": key, "version": repr(target.version), "generation": result.generation})
            if not get_capability(ls.client_capabilities, "text_document.code_action.resolve_support", None):
                action = await resolve(ls, action)
                if action.edit is None:
                    action = None
            if action is not None:
                actions.append(action)
        return actions or None

    @server.feature(t.CODE_ACTION_RESOLVE)
    async def resolve(ls: SparkcheckServer, action: t.CodeAction):
        data = action.data if isinstance(action.data, dict) else {}
        key = data.get("uri")
        target = ls.target(key) if isinstance(key, str) else None
        if action.kind != FIX_ALL or target is None or repr(target.version) != data.get("version") \
                or data.get("generation") != ls.generation:
            return action  # another version of the document: nothing to apply
        new_texts = await ls.loop.run_in_executor(ls.worker, ls._fix_all, target, ls.generation)
        if new_texts and ls.latest.get(key) == target.version:
            action.edit = ls.workspace_edit(target, ls.replacement_edits(target, new_texts))
        return action

    @server.feature(t.TEXT_DOCUMENT_HOVER)
    async def hover(ls: SparkcheckServer, params: t.HoverParams):
        from linter.cli import _rule_text
        from linter.registry import by_code

        uri = params.text_document.uri
        key = ls.key_of(uri)
        result = await ls.result(key) if key is not None else None
        if result is None or ls.latest.get(key) != result.target.version:
            return None
        hits = [(item, d) for item, d in result.by_uri.get(uri, []) if _contains(d.range, params.position)]
        if not hits:
            return None
        parts, manuals = [], {}
        for item, _ in hits:
            f = item.finding
            part = f"**{f.code}** `{f.name}`: {f.message}"
            if f.help:
                part += "\n\n" + f.help
            parts.append(part)
            rule = by_code().get(f.code)
            if rule is not None and f.code not in manuals:
                manuals[f.code] = _rule_text(rule)
        formats = get_capability(ls.client_capabilities, "text_document.hover.content_format", None) or []
        kind = t.MarkupKind.Markdown if not formats or t.MarkupKind.Markdown in formats else t.MarkupKind.PlainText
        return t.Hover(contents=t.MarkupContent(kind=kind, value="\n\n---\n\n".join(parts + list(manuals.values()))),
                       range=hits[0][1].range)

    return server


def serve() -> int:
    """Run until ``exit``, the end of the input, or the client's death; the process's exit code."""
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    # Standard output belongs to the protocol: whatever else writes there (a print, a C library) goes to stderr.
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="sparkcheck server: %(message)s")
    server = create_server()
    server.parent_watch.start()
    try:
        server.start_io(sys.stdin.buffer, protocol_out)
    finally:
        sys.stderr.flush()
    # The worker may be in the middle of a check, and pygls's reader thread in a read: neither holds us up.
    os._exit(server.exit_code)
