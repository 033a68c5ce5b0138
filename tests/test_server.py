"""`sparkcheck server` end to end: a real LSP client (pytest-lsp) talking to the real server process over stdio.

Every test starts `python -m linter server` and drives it as an editor does; what it shows is compared with what
`sparkcheck check` reports on the same file. Neovim (Debian's 0.7, headless) attaches the server to a file at the
end. Clients are picked by their published capabilities: Neovim 0.7 cannot pull diagnostics (the server pushes
them), Neovim 0.11 pulls (and negotiates UTF-8 positions), VS Code 1.65 registers file watchers.
"""

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

pytest.importorskip("pygls", reason="the server's tests need pygls (pip install -e '.[test]')")
pytest_lsp = pytest.importorskip("pytest_lsp", reason="the server's tests need pytest-lsp (pip install -e '.[test]')")

from conftest import FIXTURES, ROOT, write
from lsprotocol import types as t
from pygls.exceptions import JsonRpcRequestCancelled
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

JOB = os.path.join(FIXTURES, "server", "daily_orders_job.py")
SERVER = [sys.executable, "-m", "linter", "server"]
ENV = {**os.environ, "PYTHONPATH": ROOT}
TIMEOUT = 90  # seconds to wait for the server: generous, for loaded machines

PUSH = "neovim@v0.7.0"  # no pull diagnostics: the server pushes; resolves code actions; plain `changes` edits
PULL = "neovim@v0.11.0"  # pulls diagnostics; offers utf-8 positions
WATCHING = "visual_studio_code@v1.65.2"  # registers file watchers dynamically; versioned documentChanges


def make_client() -> LanguageClient:
    """pytest-lsp's client, also keeping each publishDiagnostics' version."""
    client = LanguageClient()
    client.published = []

    def publish(client: LanguageClient, params: t.PublishDiagnosticsParams):
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append(params)

    def register(client: LanguageClient, params: t.RegistrationParams):
        client.registrations = params.registrations

    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
                                   t.CLIENT_REGISTER_CAPABILITY: register})
    return client


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV, client_factory=make_client))
async def client(lsp_client: LanguageClient):
    yield
    if lsp_client.capabilities is not None and lsp_client._server and lsp_client._server.returncode is None:
        await lsp_client.shutdown_session()


async def start(client, spec, root, options=None) -> t.InitializeResult:
    return await asyncio.wait_for(client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(spec), root_uri=uri_of(root), initialization_options=options,
        workspace_folders=[t.WorkspaceFolder(uri=uri_of(root), name="project")])), TIMEOUT)


def uri_of(path) -> str:
    return "file://" + os.path.abspath(str(path))


def read(path) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def open_doc(client, path, text=None, language="python"):
    text = read(path) if text is None else text
    client.text_document_did_open(t.DidOpenTextDocumentParams(t.TextDocumentItem(
        uri=uri_of(path), language_id=language, version=1, text=text)))
    return uri_of(path), text


async def published(client, uri, version=None, after=0):
    """The diagnostics of the first publication for ``uri`` (at ``version``) after ``after`` publications."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        for params in client.published[after:]:
            if params.uri == uri and (version is None or params.version == version):
                return list(params.diagnostics)
        await asyncio.sleep(0.02)
    raise AssertionError(f"no diagnostics published for {uri} (version {version})")


def units(line: str, column: int, encoding) -> int:
    """A code-point column as the client counts it."""
    if encoding in ("utf-8", t.PositionEncodingKind.Utf8):
        return len(line[:column].encode("utf-8"))
    if encoding in ("utf-32", t.PositionEncodingKind.Utf32):
        return column
    return len(line[:column].encode("utf-16-le")) // 2


def cli_findings(run, path) -> list:
    r = run("check", "--no-cache", "--output-format", "json", path)
    assert r.code in (0, 1), r.err
    return json.loads(r.out)


def expected(run, path, encoding="utf-16", cell=None) -> set:
    """`sparkcheck check --output-format json` of the file, as (code, range, message) in the client's units."""
    findings = cli_findings(run, path)
    if path.endswith(".ipynb"):
        nb = json.loads(read(path))
        texts = {i: "".join(c["source"]) for i, c in enumerate(nb["cells"], start=1)}
    else:
        texts = {None: read(path)}
    out = set()
    for f in findings:
        if f["cell"] != cell:
            continue
        lines = texts[f["cell"]].split("\n")
        (r1, c1), (r2, c2) = ((loc["row"] - 1, loc["column"] - 1) for loc in (f["location"], f["end_location"]))
        out.add((f["code"], (r1, units(lines[r1], c1, encoding)), (r2, units(lines[r2], c2, encoding)), f["message"]))
    return out


def shown(diagnostics) -> set:
    return {(d.code, (d.range.start.line, d.range.start.character), (d.range.end.line, d.range.end.character),
             d.message) for d in diagnostics}


def offset(text: str, position: t.Position) -> int:
    """A UTF-16 position (the PUSH client's) as an offset into ``text``."""
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    line = text[starts[position.line]:]
    units_seen, i = 0, 0
    while units_seen < position.character:
        units_seen += 2 if ord(line[i]) > 0xFFFF else 1
        i += 1
    return starts[position.line] + i


def apply(text: str, edits) -> str:
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(text, e.range.start)] + e.new_text + text[offset(text, e.range.end):]
    return text


def edit_and_send(client, uri, text, edits, version) -> str:
    """Apply an action's edits as an editor does: locally, then sent as incremental changes."""
    changes = [t.TextDocumentContentChangePartial(range=e.range, text=e.new_text)
               for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)]
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=changes))
    return apply(text, edits)


def copy_job(tmp_path) -> str:
    path = str(tmp_path / "daily_orders_job.py")
    shutil.copy(JOB, path)
    return path


def line_range(line: int) -> t.Range:
    return t.Range(start=t.Position(line=line, character=0), end=t.Position(line=line, character=1))


def find(diagnostics, code):
    return next(d for d in diagnostics if d.code == code)


async def actions_at(client, uri, rng, only=None):
    return await asyncio.wait_for(client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), range=rng,
        context=t.CodeActionContext(diagnostics=[], only=only))), TIMEOUT) or []


# ----- diagnostics -----

@pytest.mark.asyncio
async def test_diagnostics_after_open_and_after_an_edit(client, tmp_path, run):
    path = copy_job(tmp_path)
    await start(client, PUSH, tmp_path)
    uri, text = open_doc(client, path)
    diagnostics = await published(client, uri, version=1)
    # The command line's findings, where it puts them: embedded SQL inside the Python strings (one of them
    # behind an emoji, two UTF-16 units), severity, code, the unused noqa marked Unnecessary.
    assert shown(diagnostics) == expected(run, path)
    assert {d.code for d in diagnostics} == {"SPK103", "SPK504", "SPK501", "SPK302", "SPK101", "SPK002"} == set(
        re.findall(r"expect: (SPK\d+)", text.replace(", SPK", " expect: SPK")))  # the fixture's markers
    sql = [d for d in diagnostics if d.code == "SPK504" and d.range.start.line == 10]
    assert sql and sql[0].range.start.character == text.split("\n")[10].index("'N/A'") + 1  # + 1: the emoji
    assert all(d.source == "sparkcheck" for d in diagnostics)
    assert find(diagnostics, "SPK302").severity == t.DiagnosticSeverity.Error
    assert find(diagnostics, "SPK101").severity == t.DiagnosticSeverity.Warning
    assert list(find(diagnostics, "SPK002").tags) == [t.DiagnosticTag.Unnecessary]
    assert find(diagnostics, "SPK101").code_description is None  # the command line has no rule URL either

    # An edit (incremental): the collect gets a limit, and its SPK101 goes.
    collect = find(diagnostics, "SPK101").range
    after = len(client.published)
    text = edit_and_send(client, uri, text, [
        t.TextEdit(range=t.Range(start=collect.start, end=collect.start), new_text="limit(10)."),
    ], version=2)
    assert "orders.limit(10).collect()" in text
    diagnostics = await published(client, uri, version=2, after=after)
    assert "SPK101" not in {d.code for d in diagnostics}
    write(path, text)
    assert shown(diagnostics) == expected(run, path)


CHAIN_JOB = os.path.join(FIXTURES, "server", "store_sales_chain_job.py")


async def comment_the_repartition(client, tmp_path, options=None):
    """Open the chain job, wait for its diagnostics, add a comment after its repartition (version 2):
    (uri, the new text, the number of publications before the edit)."""
    path = str(tmp_path / "store_sales_chain_job.py")
    shutil.copy(CHAIN_JOB, path)
    await start(client, PUSH, tmp_path, options)
    uri, text = open_doc(client, path)
    assert {d.code for d in await published(client, uri, version=1)} == {"SPK418"}
    line = "spread = stores.repartition(50)"
    row = next(i for i, current in enumerate(text.split("\n")) if current.startswith(line))
    end = t.Position(line=row, character=len(line))
    after = len(client.published)
    text = edit_and_send(client, uri, text, [t.TextEdit(range=t.Range(start=end, end=end),
                                                        new_text="  # spread the stores")], version=2)
    write(path, text)
    return path, uri, after


@pytest.mark.asyncio
async def test_a_partial_answer_is_verified_and_corrected(client, tmp_path, run):
    """An edit re-checks only part of a long file (linter/server/incremental.py) and publishes that at once;
    the whole file is then checked in a forked child, and its answer published when it differs. Here the
    partial check cannot see the join four names past the repartition: the corrected answer brings SPK418
    back, and the last diagnostics are the command line's."""
    path, uri, after = await comment_the_repartition(client, tmp_path)
    assert await published(client, uri, version=2, after=after) == []  # the partial answer
    index = next(i for i, p in enumerate(client.published) if i >= after and p.uri == uri and p.version == 2)
    corrected = await published(client, uri, version=2, after=index + 1)
    assert shown(corrected) == expected(run, path) != set()


def test_a_lone_edit_is_checked_at_once_and_a_burst_once_it_ends():
    """The debounce: an edit after a pause is not held (typing is slower than DEBOUNCE); edits closer together
    than DEBOUNCE are, each restarting the wait, so a burst is checked once; a pause ends it. Per document."""
    from linter.server.protocol import DEBOUNCE, create_server

    server = create_server()
    job, other = "file:///project/job.py", "file:///project/other.py"
    assert server.edit_delay(job, now=100.0) == 0  # the first edit
    assert server.edit_delay(job, now=100.01) == DEBOUNCE  # a burst: held
    assert server.edit_delay(job, now=100.02 + DEBOUNCE / 2) == DEBOUNCE  # still one burst
    assert server.edit_delay(other, now=100.03) == 0
    assert server.edit_delay(job, now=100.2) == 0  # after a pause: at once


def test_positions_count_the_units_of_the_clients_encoding():
    """Columns in the client's units: the fast way for ASCII lines gives what pygls's codec counts, and other
    lines are counted by the codec (an emoji is two UTF-16 units, four UTF-8 ones, one UTF-32 one)."""
    from pygls.workspace.position_codec import PositionCodec

    from linter.server.protocol import _units

    for encoding in (t.PositionEncodingKind.Utf16, t.PositionEncodingKind.Utf8, t.PositionEncodingKind.Utf32):
        codec = PositionCodec(encoding)
        for text in ("", "df.collect()  # noqa: SPK101", "x = '\N{GRINNING FACE}' + 'caf\u00e9'", "\u00e9t\u00e9"):
            assert _units(codec, text) == codec.client_num_units(text), (encoding, text)
    assert _units(PositionCodec(t.PositionEncodingKind.Utf16), "'\N{GRINNING FACE}'") == 4


def test_a_target_splits_its_text_once():
    from linter.server.protocol import Target

    target = Target("file:///p/job.py", "/p/job.py", "python", False, b"", 1, {None: "a\nb\n"}, {}, {})
    assert target.lines(None) == ["a", "b", ""] and target.lines(None) is target.lines(None)
    assert target.lines(3) == [""]


def test_the_engine_is_frozen_after_a_check_that_loaded_more_of_it(monkeypatch):
    """A check that imported modules (the first one: the rules, libcst) is followed by a collection and
    gc.freeze in the worker, so later full collections skip the engine's objects; a check importing nothing
    new does not collect again."""
    import gc

    from linter.server import protocol
    from linter.server.protocol import Target, create_server

    server = create_server()
    key = "file:///project/job.py"
    target = Target(key, "/project/job.py", "python", False, b"", 1, {None: ""}, {None: key}, {key: 1})
    server.latest[key] = 1
    monkeypatch.setattr(server, "_check_now", lambda target, generation: "checked")
    collections = []
    monkeypatch.setattr(protocol.gc, "collect", lambda: collections.append(1))
    try:
        assert server._check(target, server.generation) == "checked"
        assert collections == [1] and server.frozen_modules == len(sys.modules)
        assert gc.get_freeze_count() > 0
        assert server._check(target, server.generation) == "checked" and collections == [1]
        server.latest[key] = 2  # an older version: not checked, nothing collected
        assert server._check(target, server.generation) is None and collections == [1]
    finally:
        gc.unfreeze()


@pytest.mark.asyncio
async def test_incremental_off_checks_the_whole_file_each_time(client, tmp_path, run):
    path, uri, after = await comment_the_repartition(client, tmp_path, {"incremental": False})
    diagnostics = await published(client, uri, version=2, after=after)
    await asyncio.sleep(1.0)
    assert len([p for p in client.published[after:] if p.uri == uri]) == 1  # one answer, the whole file's
    assert shown(diagnostics) == expected(run, path) != set()


@pytest.mark.asyncio
async def test_pull_diagnostics_in_the_clients_position_encoding(client, tmp_path, run):
    path = copy_job(tmp_path)
    result = await start(client, PULL, tmp_path)
    encoding = result.capabilities.position_encoding
    assert result.capabilities.diagnostic_provider.identifier == "sparkcheck"
    uri, _ = open_doc(client, path)
    report = await asyncio.wait_for(client.text_document_diagnostic_async(t.DocumentDiagnosticParams(
        text_document=t.TextDocumentIdentifier(uri=uri))), TIMEOUT)
    assert report.kind == "full" and shown(report.items) == expected(run, path, encoding)
    again = await client.text_document_diagnostic_async(t.DocumentDiagnosticParams(
        text_document=t.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id))
    assert again.kind == "unchanged" and again.result_id == report.result_id
    assert not client.published  # a client that pulls is not pushed to as well

    # A closed document, or one never opened, is answered with nothing.
    client.text_document_did_close(t.DidCloseTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=uri)))
    closed = await client.text_document_diagnostic_async(t.DocumentDiagnosticParams(
        text_document=t.TextDocumentIdentifier(uri=uri)))
    assert closed.kind == "full" and list(closed.items) == []
    assert await actions_at(client, uri, line_range(7)) == []
    assert await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(line=7, character=6))) is None


# ----- code actions -----

@pytest.mark.asyncio
async def test_quick_fix_applied_and_rechecked(client, tmp_path, run):
    path = copy_job(tmp_path)
    await start(client, PUSH, tmp_path)
    uri, text = open_doc(client, path)
    diagnostics = await published(client, uri, version=1)
    emptiness = find(diagnostics, "SPK103")
    actions = await actions_at(client, uri, emptiness.range)
    titles = [a.title for a in actions]
    assert titles == ["Use `isEmpty()` (SPK103)", "Disable SPK103 for this line", "Fix all safe sparkcheck problems"]
    fix, noqa, _ = actions
    assert fix.kind == t.CodeActionKind.QuickFix and fix.is_preferred and fix.diagnostics[0].code == "SPK103"
    # Unsafe fixes are not offered unless the client's options allow them: only the noqa for SPK302.
    unsafe = await actions_at(client, uri, find(diagnostics, "SPK302").range, only=[t.CodeActionKind.QuickFix])
    assert [a.title for a in unsafe] == ["Disable SPK302 for this line"]

    after = len(client.published)
    text = edit_and_send(client, uri, text, fix.edit.changes[uri], version=2)
    assert "if orders.isEmpty():  # expect: SPK103" in text
    diagnostics = await published(client, uri, version=2, after=after)
    assert "SPK103" not in {d.code for d in diagnostics}
    write(path, text)
    assert shown(diagnostics) == expected(run, path)

    # The noqa action writes what `--add-noqa` writes, and the finding is gone.
    sql = next(d for d in diagnostics if d.code == "SPK504" and d.range.start.line == 10)
    noqa = next(a for a in await actions_at(client, uri, sql.range) if a.title.startswith("Disable"))
    after = len(client.published)
    text = edit_and_send(client, uri, text, noqa.edit.changes[uri], version=3)
    assert text.split("\n")[10].endswith("  # expect: SPK504  # noqa: SPK504")
    diagnostics = await published(client, uri, version=3, after=after)
    assert not [d for d in diagnostics if d.code == "SPK504" and d.range.start.line == 10]


@pytest.mark.asyncio
async def test_fix_all_is_what_check_fix_writes(client, tmp_path, run):
    path = copy_job(tmp_path)
    await start(client, PUSH, tmp_path)
    uri, text = open_doc(client, path)
    await published(client, uri, version=1)
    [action] = await actions_at(client, uri, line_range(0), only=[t.CodeActionKind.SourceFixAll])
    assert action.kind == "source.fixAll.sparkcheck" and action.edit is None  # computed on resolve
    resolved = await asyncio.wait_for(client.code_action_resolve_async(action), TIMEOUT)
    [edit] = resolved.edit.changes[uri]  # one edit for the whole document
    fixed = apply(text, [edit])
    assert run("check", "--fix", "--no-cache", path).code == 1
    assert fixed == read(path) != text
    assert "orders.isEmpty()" in fixed and "# noqa: SPK101" not in fixed


@pytest.mark.asyncio
async def test_options_offer_unsafe_fixes_and_narrow_the_rules(client, tmp_path, run):
    path = copy_job(tmp_path)
    result = await start(client, WATCHING, tmp_path, {"unsafeFixes": True, "ignore": ["SPK504"]})
    assert "source.fixAll.sparkcheck" in result.capabilities.code_action_provider.code_action_kinds
    uri, text = open_doc(client, path)
    diagnostics = await published(client, uri, version=1)
    assert "SPK504" not in {d.code for d in diagnostics} and "SPK302" in {d.code for d in diagnostics}
    actions = await actions_at(client, uri, find(diagnostics, "SPK302").range)
    fix = actions[0]
    assert fix.title == "Use `.isNull()` (SPK302, unsafe fix)" and not fix.is_preferred
    [change] = fix.edit.document_changes  # a client taking versioned edits gets them for the version it holds
    assert change.text_document.version == 1 and change.text_document.uri == uri
    assert 'orders.filter(F.col("shipped_at").isNull())' in apply(text, change.edits)


# ----- hover -----

@pytest.mark.asyncio
async def test_hover_shows_the_rule_manual(client, tmp_path, run):
    path = copy_job(tmp_path)
    await start(client, PUSH, tmp_path)
    uri, _ = open_doc(client, path)
    collect = find(await published(client, uri, version=1), "SPK101").range
    hover = await asyncio.wait_for(client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        position=t.Position(line=collect.start.line, character=collect.start.character + 2))), TIMEOUT)
    manual = run("rule", "SPK101").out
    assert hover.contents.kind == t.MarkupKind.Markdown
    assert manual.strip() in hover.contents.value
    assert hover.contents.value.startswith("**SPK101** `collect-on-unbounded-dataframe`: `orders.collect()`")
    assert "bound it first" in hover.contents.value  # the finding's help
    assert hover.range == collect
    nothing = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(line=1, character=3)))
    assert nothing is None


# ----- notebooks -----

CELLS = [
    ("code", 'orders = spark.read.table("sales.orders")\ncountries = orders.select("country").distinct()\n'),
    ("markdown", "## Look at the orders\nA markdown cell between the code cells.\n"),
    ("code", "local = orders.toPandas()\nif countries.count() == 0:\n    print('no countries')"),
]


@pytest.mark.asyncio
async def test_notebook_with_two_code_cells(client, tmp_path, run):
    path = str(tmp_path / "orders.ipynb")
    nb = {"cells": [{"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True),
                     **({"execution_count": None, "outputs": []} if kind == "code" else {})} for kind, text in CELLS],
          "metadata": {"kernelspec": {"display_name": "PySpark", "language": "python", "name": "pyspark"}},
          "nbformat": 4, "nbformat_minor": 5}
    write(path, json.dumps(nb, indent=1))
    await start(client, PUSH, tmp_path)
    cell_uris = [f"vscode-notebook-cell:{path}#cell{i}" for i in range(len(CELLS))]
    client.notebook_document_did_open(t.DidOpenNotebookDocumentParams(
        notebook_document=t.NotebookDocument(
            uri=uri_of(path), notebook_type="jupyter-notebook", version=1,
            cells=[t.NotebookCell(kind=t.NotebookCellKind.Code if kind == "code" else t.NotebookCellKind.Markup,
                                  document=u) for (kind, _), u in zip(CELLS, cell_uris)],
            metadata=nb["metadata"]),
        cell_text_documents=[t.TextDocumentItem(uri=u, language_id="python" if kind == "code" else "markdown",
                                                version=1, text=text) for (kind, text), u in zip(CELLS, cell_uris)]))
    third = await published(client, cell_uris[2], version=1)
    first = await published(client, cell_uris[0], version=1)
    # Each finding on its own cell, at its row in the cell, as the command line says `cell 3:1:9`.
    assert first == [] and shown(third) == expected(run, path, cell=3)
    assert {d.code for d in third} == {"SPK102", "SPK103"}

    # An edit in the third cell: the emptiness check becomes `isEmpty()`.
    after = len(client.published)
    client.notebook_document_did_change(t.DidChangeNotebookDocumentParams(
        notebook_document=t.VersionedNotebookDocumentIdentifier(uri=uri_of(path), version=2),
        change=t.NotebookDocumentChangeEvent(cells=t.NotebookDocumentCellChanges(text_content=[
            t.NotebookDocumentCellContentChanges(
                document=t.VersionedTextDocumentIdentifier(uri=cell_uris[2], version=2),
                changes=[t.TextDocumentContentChangePartial(
                    range=t.Range(start=t.Position(line=1, character=3), end=t.Position(line=1, character=25)),
                    text="countries.isEmpty()")])]))))
    third = await published(client, cell_uris[2], version=2, after=after)
    assert {d.code for d in third} == {"SPK102"}
    # A quick fix in a cell edits that cell's document.
    topandas = find(third, "SPK102")
    noqa = (await actions_at(client, cell_uris[2], topandas.range))[-1]
    assert noqa.title == "Disable SPK102 for this line" and list(noqa.edit.changes) == [cell_uris[2]]


# ----- configuration -----

@pytest.mark.asyncio
async def test_a_configuration_change_turns_a_rule_off(client, tmp_path, run):
    path = copy_job(tmp_path)
    write(tmp_path / "pyproject.toml", '[project]\nname = "jobs"\n\n[tool.sparkcheck]\ntarget-spark = "3.5"\n')
    await start(client, WATCHING, tmp_path)
    uri, _ = open_doc(client, path)
    assert "SPK101" in {d.code for d in await published(client, uri, version=1)}
    globs = [w["globPattern"] for w in client.registrations[0].register_options["watchers"]]
    assert "**/pyproject.toml" in globs and "**/sparkcheck.toml" in globs

    write(tmp_path / "pyproject.toml", '[project]\nname = "jobs"\n\n[tool.sparkcheck]\nignore = ["SPK101"]\n')
    after = len(client.published)
    client.workspace_did_change_watched_files(t.DidChangeWatchedFilesParams(changes=[
        t.FileEvent(uri=uri_of(tmp_path / "pyproject.toml"), type=t.FileChangeType.Changed)]))
    diagnostics = await published(client, uri, after=after)
    assert "SPK101" not in {d.code for d in diagnostics}
    assert shown(diagnostics) == expected(run, path)  # the command line reads the same file

    # A broken configuration is said once, and the defaults apply meanwhile.
    write(tmp_path / "pyproject.toml", '[tool.sparkcheck]\nignore = ["SPK999"]\n')
    after = len(client.published)
    client.workspace_did_change_watched_files(t.DidChangeWatchedFilesParams(changes=[
        t.FileEvent(uri=uri_of(tmp_path / "pyproject.toml"), type=t.FileChangeType.Changed)]))
    assert "SPK101" in {d.code for d in await published(client, uri, after=after)}
    assert any("SPK999" in m.message and "default settings" in m.message for m in client.messages)


# ----- robustness -----

@pytest.mark.asyncio
async def test_an_unparseable_file_gets_spk001_and_the_server_goes_on(client, tmp_path, run):
    broken = str(tmp_path / "broken.py")
    write(broken, "from pyspark.sql import functions as F\ndef daily(:\n    spark.table('x').collect()\n")
    await start(client, PUSH, tmp_path)
    uri, text = open_doc(client, broken)
    diagnostics = await published(client, uri, version=1)
    assert [d.code for d in diagnostics] == ["SPK001"] and shown(diagnostics) == expected(run, broken)
    assert diagnostics[0].severity == t.DiagnosticSeverity.Error

    good, _ = open_doc(client, copy_job(tmp_path))
    assert "SPK101" in {d.code for d in await published(client, good, version=1)}
    after = len(client.published)
    edit_and_send(client, uri, text, [t.TextEdit(range=t.Range(start=t.Position(line=1, character=10),
                                                             end=t.Position(line=1, character=10)), new_text=")")],
                  version=2)
    assert [d.code for d in await published(client, uri, version=2, after=after)] == ["SPK101"]


@pytest.mark.asyncio
async def test_a_chain_libcst_would_stall_on_is_skipped_with_one_finding(client, tmp_path, run):
    # 3,000 `&` operands: about a minute in libcst's parser; linter/budget.py routes the file around it
    terms = " & ".join(f'(F.col("c") > {i})' for i in range(3000))
    stalling = write(tmp_path / "generated.py", f"from pyspark.sql import functions as F\n\ncond = {terms}\n"
                                                "rows = spark.table('t').filter(cond).collect()\n")
    await start(client, PUSH, tmp_path)
    uri, _ = open_doc(client, stalling)
    diagnostics = await published(client, uri, version=1)  # not libcst's: its findings would be SPK101
    assert [d.code for d in diagnostics] == ["SPK001"] and "skipped:" in diagnostics[0].message
    assert shown(diagnostics) == expected(run, stalling)
    good, _ = open_doc(client, copy_job(tmp_path))
    assert "SPK101" in {d.code for d in await published(client, good, version=1)}


@pytest.mark.asyncio
async def test_cancelled_and_outdated_requests(client, tmp_path):
    path = str(tmp_path / "big_job.py")
    body = read(JOB).split("\n", 4)[4]
    text = read(JOB) + "\n".join(f"def part_{i}():\n" + "".join(
        f"    {line}\n" for line in body.split("\n")) for i in range(40))
    write(path, text)
    await start(client, PUSH, tmp_path)
    uri, _ = open_doc(client, path)  # about 900 lines: the worker is busy with it for a while
    request = t.CodeActionParams(text_document=t.TextDocumentIdentifier(uri=uri), range=line_range(7),
                                 context=t.CodeActionContext(diagnostics=[]))
    # (pytest-lsp sends a request when its coroutine runs: a task, and a moment for it to be written)
    cancelled = asyncio.ensure_future(client.protocol.send_request_async(
        t.TEXT_DOCUMENT_CODE_ACTION, request, msg_id="to-cancel"))
    await asyncio.sleep(0.2)
    client.protocol.notify(t.CANCEL_REQUEST, t.CancelParams(id="to-cancel"))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(cancelled, TIMEOUT)
    # A request answered after its document changed is answered with nothing.
    outdated = asyncio.ensure_future(client.text_document_code_action_async(request))
    await asyncio.sleep(0.2)
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangePartial(range=line_range(0), text="#")]))
    assert await asyncio.wait_for(outdated, TIMEOUT) is None
    # Only the version the editor holds is published.
    await published(client, uri, version=2)
    assert [p.version for p in client.published if p.uri == uri] == [2]
    assert await actions_at(client, uri, line_range(7))  # and the current version is served


@pytest.mark.asyncio
async def test_shutdown_and_exit(client, tmp_path):
    await start(client, PUSH, tmp_path)
    await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
    client.exit(None)
    assert await asyncio.wait_for(client._server.wait(), TIMEOUT) == 0


def _frames(data: bytes) -> list:
    """Every message of an LSP stream; fails on any byte that is not part of one."""
    out = []
    while data:
        head, sep, rest = data.partition(b"\r\n\r\n")
        assert sep and head.startswith(b"Content-Length: "), f"not a protocol message: {data[:80]!r}"
        length = int(head.split(b"\r\n")[0].split(b":")[1])
        out.append(json.loads(rest[:length]))
        data = rest[length:]
    return out


def _read_frame(stream) -> dict:
    head = stream.readline()
    assert head.startswith(b"Content-Length: "), f"not a protocol message: {head[:80]!r}"
    length = int(head.split(b":")[1])
    while (line := stream.readline()) != b"\r\n":
        assert line.startswith(b"Content-Type: "), f"not a protocol header: {line[:80]!r}"
    return json.loads(stream.read(length))


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def test_stdout_carries_nothing_but_the_protocol(tmp_path):
    # Something in the process prints, through Python and at the file-descriptor level, once the server runs.
    noisy = ("import os, sys, threading\n"
             "from linter.server.protocol import serve\n"
             "threading.Timer(0.5, lambda: (print('print noise'), os.write(1, b'fd noise\\n'))).start()\n"
             "serve()\n")
    path = copy_job(tmp_path)
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": os.getpid(), "rootUri": uri_of(tmp_path), "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri_of(path), "languageId": "python", "version": 1, "text": read(path)}}},
    ]
    p = subprocess.Popen([sys.executable, "-c", noisy], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=ENV)
    p.stdin.write(b"".join(_frame(m) for m in messages))
    p.stdin.flush()
    frames = []
    while not any(f.get("method") == "textDocument/publishDiagnostics" for f in frames):
        frames.append(_read_frame(p.stdout))  # strictly: headers, then the body, nothing between
    time.sleep(0.5)  # the noise has been printed by now (0.5 s after the start)
    out, err = p.communicate(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
                             + _frame({"jsonrpc": "2.0", "method": "exit"}), timeout=TIMEOUT)
    frames += _frames(out)
    assert p.returncode == 0
    assert [f.get("id") for f in frames if "id" in f] == [1, 2]
    assert next(f for f in frames if f.get("method") == "textDocument/publishDiagnostics")["params"]["diagnostics"]
    assert b"print noise" in err and b"fd noise" in err


def test_exits_when_its_parent_dies(tmp_path):
    # A client starts the server, initializes it and dies; the server's input stays open (this test holds
    # it), so only watching its parent ends the server.
    spawner = ("import os, subprocess, sys\n"
               f"p = subprocess.Popen({SERVER!r}, stdin=sys.stdin, stdout=subprocess.PIPE)\n"
               "p.stdout.readline()\n"  # the initialize response has begun: the server is up
               "print(p.pid, flush=True)\n"
               "os.read(0, 1)\n")  # then wait (reading nothing the test sends) until killed
    parent = subprocess.Popen([sys.executable, "-c", spawner], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              env=ENV)
    parent.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                               "params": {"processId": parent.pid, "rootUri": uri_of(tmp_path), "capabilities": {}}}))
    parent.stdin.flush()
    server = int(parent.stdout.readline())
    assert _running(server)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 30
    while _running(server) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(server)
    parent.stdin.close()


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


# ----- the command line -----

def test_check_does_not_import_the_server(tmp_path):
    code = ("import sys\nfrom linter.cli import main\n"
            f"main(['check', '--no-cache', '-q', {JOB!r}])\n"
            "sys.stderr.write('loaded: ' + ' '.join(m for m in ('pygls', 'lsprotocol', 'linter.server') "
            "if m in sys.modules) + '\\n')\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=TIMEOUT,
                       check=False)
    assert "loaded: \n" in p.stderr


def test_server_without_pygls_says_what_to_install():
    code = ("import sys\nsys.modules['pygls'] = None\nfrom linter.cli import main\nsys.exit(main(['server']))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=TIMEOUT,
                       check=False)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == ('sparkcheck: error: `sparkcheck server` needs pygls; install sparkcheck[server]: '
                        'pip install "sparkcheck[server]"\n')


# ----- a real editor -----

NVIM_CONFIG = r"""
local client_id = vim.lsp.start_client({
  name = "sparkcheck",
  cmd = vim.fn.json_decode(os.getenv("SPARKCHECK_SERVER_CMD")),
  root_dir = vim.fn.getcwd(),
})
vim.lsp.buf_attach_client(0, client_id)
local ok = vim.wait(tonumber(os.getenv("SPARKCHECK_WAIT_MS")), function()
  return #vim.diagnostic.get(0) > 0
end, 50)
local items = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(items, {code = d.code, message = d.message, source = d.source,
                       lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col})
end
local f = io.open(os.getenv("SPARKCHECK_NVIM_OUT"), "w")
f:write(vim.fn.json_encode({ok = ok, items = items}))
f:close()
vim.cmd("qa!")
"""


@pytest.mark.skipif(shutil.which("nvim") is None,
                    reason="nvim is not installed (the README's test command installs Debian's neovim)")
def test_neovim_shows_what_check_reports(tmp_path, run):
    path = copy_job(tmp_path)
    config = tmp_path / "sparkcheck.lua"
    write(config, NVIM_CONFIG)
    out = tmp_path / "diagnostics.json"
    env = {**ENV, "SPARKCHECK_SERVER_CMD": json.dumps(SERVER), "SPARKCHECK_NVIM_OUT": str(out),
           "SPARKCHECK_WAIT_MS": str(TIMEOUT * 1000), "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)}
    p = subprocess.run(["nvim", "--headless", "--clean", "-n", "-c", f"luafile {config}", path],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT + 30, check=False)
    assert p.returncode == 0, p.stderr
    got = json.loads(out.read_text())
    assert got["ok"], "Neovim saw no diagnostics"
    # Neovim keeps columns in bytes of the buffer's line: converted from the server's UTF-16 by Neovim itself.
    seen = {(d["code"], (d["lnum"], d["col"]), (d["end_lnum"], d["end_col"]), d["message"]) for d in got["items"]}
    assert seen == expected(run, path, "utf-8")
    assert {d["source"] for d in got["items"]} == {"sparkcheck"}
