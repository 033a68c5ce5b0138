"""`sparkcheck server`: from an edit to its published diagnostics, and memory over many edits.

Run by hand:  .venv/bin/python bench/server.py [--edits 1000] [--timed 25] [--file PATH] [--agreement N]

The input is a 2,000-line PySpark file made of the project's own fixture jobs
(fixtures/python/*.py, whole files in turn, then comment lines to reach 2,000):
dense PySpark with embedded SQL and many findings, the costly case for a check;
also the worst case for partial checks, since the seventeen jobs bind the same
module names (`spark`, `orders`, `w`, `main`) again and again. ``--file`` times
a real file instead (a copy of it).

1. Latency: a real client (pygls's) starts the server over stdio as an editor
   does, opens the file and, after warm-up edits, makes ``--timed`` one-character
   edits (incremental sync), each timed from sending ``didChange`` to receiving
   the first ``publishDiagnostics`` of that version (the server's debounce
   included: it holds an edit only within a burst, and these come one at a
   time): on the first line (a comment), and in a string literal of five
   functions or methods spread over the file (the code, where a partial check
   re-reads what the edit can change); the code edits again, each after a
   pause long enough for the whole-file check of the last answer to be running
   in its forked child (typing again after a pause); then the code edits again
   with ``incremental`` off (the whole file each time). Printed: the medians,
   and their ratio to ``sparkcheck check --no-cache`` of the same file in a
   fresh process (median of 3 runs). Target: under 150 ms. Also printed:
   libcst's parse of the same text in this process, the floor of any check
   that re-reads the whole file, and what ``os.fork`` costs a process holding
   the engine and a check of the file (the server forks its whole-file checks).
2. Memory: ``--edits`` edits sent in bursts of 25 (the debounce merges a
   burst into one check), waiting for each burst's diagnostics; the server's
   resident memory (VmRSS) after the first 100 edits and after all of them.
   Target: within 10 %.
3. ``--agreement N`` (default 8; 0 skips it): in this process, N edits at random
   code rows of every corpus file over 30 kB (a letter typed in a string, or a
   comment at the end of a line), each checked partially where the plan allows
   and whole: how often the partial answer is the whole file's, what each
   costs, and why the others needed the whole file; then the same on the timed
   file itself (the 2,000-line one, or ``--file``).

``--inside NAME`` puts the code edits in the strings of one function or method
(``--inside __post_init__`` on spark-expectations' context.py: a constructor
setting 130 attributes) instead of five functions spread over the file.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from lsprotocol import types as t
from pygls.lsp.client import LanguageClient

LINES = 2000
BURST = 25  # edits sent at once: the debounce makes one check of them (and one of the first)


def build_file(directory: str) -> str:
    jobs = []
    for path in sorted(glob.glob(os.path.join(ROOT, "fixtures", "python", "*.py"))):
        with open(path, encoding="utf-8") as f:
            jobs.append(f.read().rstrip("\n").split("\n"))
    lines = ["# bench/server.py: fixture jobs one after another"]
    while True:
        added = False
        for job in jobs:
            if len(lines) + len(job) <= LINES:
                lines.extend(job)
                added = True
        if not added:
            break
    lines.extend(f"# padding {i}" for i in range(LINES - len(lines)))
    path = os.path.join(directory, "two_thousand_lines_job.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def parse_seconds(text: str, runs: int = 3) -> float:
    from linter.sources.python import parse

    times = []
    for _ in range(runs):
        start = time.perf_counter()
        parse(text)
        times.append(time.perf_counter() - start)
    return min(times)


def fork_seconds(runs: int = 5) -> float:
    """Median time ``os.fork()`` takes to return in the parent (the child leaves at once), in this process."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        times.append(time.perf_counter() - start)
        os.waitpid(pid, 0)
    return statistics.median(times)


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cli_seconds(path: str, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "linter", "check", "--no-cache", "-q", "--output-format", "concise",
                        path], cwd=ROOT, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


class Bench:
    def __init__(self):
        self.client = LanguageClient("sparkcheck-bench", "1")
        self.comment = (0, 0)  # the end of the file's first comment line: set by run()
        self.arrived: dict = {}  # version -> (time, number of diagnostics)
        self.waiting: dict = {}

        @self.client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: t.PublishDiagnosticsParams):
            self.arrived[params.version] = (time.perf_counter(), len(params.diagnostics))
            future = self.waiting.pop(params.version, None)
            if future is not None and not future.done():
                future.set_result(None)

    async def published(self, version: int, timeout: float = 300) -> None:
        if version in self.arrived:
            return
        future = asyncio.get_running_loop().create_future()
        self.waiting[version] = future
        await asyncio.wait_for(future, timeout)

    def edit(self, uri: str, version: int, where: tuple | None = None) -> None:
        """Type a character at ``where`` (row, column; default: the end of the first comment line), or delete it
        again. (A place past the end of its line would not be undone: the client puts the character at the end
        and deletes nothing, and the text would drift, as it did on files of a short first line.)"""
        row, column = where or self.comment
        start = t.Position(line=row, character=column)
        if version % 2 == 0:
            change = t.TextDocumentContentChangePartial(range=t.Range(start=start, end=start), text="x")
        else:
            end = t.Position(line=row, character=column + 1)
            change = t.TextDocumentContentChangePartial(range=t.Range(start=start, end=end), text="")
        self.client.text_document_did_change(t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]))


def code_places(text: str, count: int, inside: str | None = None) -> list:
    """(row, column) just inside a string literal of a function body, in functions spread over the file:
    typing in the code, where an edit changes what Python reads (the first line is a comment). ``inside``: in
    the strings of the first function or method of that name instead, spread over its body."""
    import ast

    module = ast.parse(text)
    places = []
    formatted = {id(v) for n in ast.walk(module) if isinstance(n, ast.JoinedStr) for v in n.values}
    functions = [n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    functions += [m for n in module.body if isinstance(n, ast.ClassDef) for m in n.body
                  if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    functions.sort(key=lambda f: f.lineno)
    if inside is not None:
        fn = next((f for f in functions if f.name == inside), None)
        if fn is None:
            raise SystemExit(f"no function or method named {inside!r} in the file")
        for node in ast.walk(fn):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.lineno == node.end_lineno \
                    and node.lineno > fn.lineno and node.value.isidentifier() and id(node) not in formatted:
                places.append((node.lineno - 1, node.col_offset + 1))
        places.sort()
        if not places:
            raise SystemExit(f"{inside!r} has no one-word string literal to type in")
    for fn in () if inside is not None else functions:
        for node in ast.walk(fn):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.lineno == node.end_lineno \
                    and node.lineno > fn.lineno and node.value.isidentifier() and id(node) not in formatted:
                places.append((node.lineno - 1, node.col_offset + 1))  # (a part of an f-string has no column)
                break
    step = max(1, len(places) // count)
    return places[::step][:count]


async def timed_edits(bench, uri: str, version: int, timed: int, where, pause: float = 0) -> tuple[int, list]:
    latencies = []
    for _ in range(timed):
        if pause:
            await asyncio.sleep(pause)
        version += 1
        sent = time.perf_counter()
        bench.edit(uri, version, where)
        await bench.published(version)
        latencies.append(bench.arrived[version][0] - sent)
        version += 1  # and back, untimed: the next edit starts from the same text
        bench.edit(uri, version, where)
        await bench.published(version)
    return version, latencies


async def run(path: str, text: str, edits: int, timed: int, places: list, incremental: bool = True) -> dict:
    bench = Bench()
    lines = text.split("\n")
    row = next((r for r, line in enumerate(lines) if line.lstrip().startswith("#")), None)
    if row is None:
        raise SystemExit("the file has no comment line to edit")
    bench.comment = (row, len(lines[row]))
    client = bench.client
    await client.start_io(sys.executable, "-m", "linter", "server", cwd=ROOT)
    pid = client._server.pid
    await client.initialize_async(t.InitializeParams(capabilities=t.ClientCapabilities(), process_id=os.getpid(),
                                                     root_uri="file://" + os.path.dirname(path),
                                                     initialization_options={"incremental": incremental}))
    client.initialized(t.InitializedParams())
    uri = "file://" + path
    start = time.perf_counter()
    client.text_document_did_open(t.DidOpenTextDocumentParams(t.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=text)))
    await bench.published(1)
    first = bench.arrived[1][0] - start
    findings = bench.arrived[1][1]

    version = 1
    for _ in range(4):  # warm-up
        version += 1
        bench.edit(uri, version)
        await bench.published(version)
    version, comment = await timed_edits(bench, uri, version, timed, None)
    code = []
    per_place = max(1, timed // max(1, len(places)))
    for where in places:
        version, got = await timed_edits(bench, uri, version, per_place, where)
        code.extend(got)
    busy = []  # after a pause: the last answer's whole-file check has started and is running
    from linter.server.protocol import VERIFY_DELAY

    for where in places:
        version, got = await timed_edits(bench, uri, version, max(1, per_place // 2), where, VERIFY_DELAY + 0.1)
        busy.extend(got)
    await asyncio.sleep(0.5)

    rss_100 = None
    for n in range(1, edits + 1):
        version += 1
        bench.edit(uri, version, places[n % len(places)] if places and n % 2 else None)
        if n % BURST == 0:
            await bench.published(version)
            if n == 100:
                rss_100 = rss_kib(pid)
    rss_end = rss_kib(pid)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"first": first, "findings": findings, "comment": comment, "code": code, "busy": busy,
            "rss_100": rss_100, "rss_end": rss_end}


def agreement(paths: list, per_file: int, seed: int = 14) -> dict:
    """In this process: edits made at random in code rows of real files, each checked partially (when the
    chunk view allows) and whole; how often the two answers are the same, and what each cost."""
    import random

    from linter.config import Resolver
    from linter.server import incremental
    from linter.server.analysis import analyse, text_bytes
    from linter.server.protocol import _same_items

    rng = random.Random(seed)
    out = {"edits": 0, "partial": 0, "same": 0, "partial_s": [], "whole_s": [], "why": {}}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        settings = Resolver({}, cwd=os.path.dirname(path)).for_path(path)
        _, state = incremental.check(None, path, text, settings, "python")
        lines = text.split("\n")
        rows = [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
        for _ in range(per_file):
            row = rng.choice(rows)
            new = list(lines)
            line = new[row]
            quote = min((i for i in (line.find('"'), line.find("'")) if i >= 0), default=-1)
            if quote >= 0 and rng.random() < 0.5:
                new[row] = line[:quote + 1] + "x" + line[quote + 1:]  # typing in a string
            else:
                new[row] = line + "  # note"  # a comment at the end of a line
            new_text = "\n".join(new)
            out["edits"] += 1
            started = time.perf_counter()
            plan = incremental.plan(state, new_text)
            if plan is None:
                out["why"][incremental.last_reason] = out["why"].get(incremental.last_reason, 0) + 1
                continue
            partial, _ = incremental.check(state, path, new_text, settings, "python")
            middle = time.perf_counter()
            whole = analyse(path, text_bytes(new_text), settings, "python")
            out["partial_s"].append(middle - started)
            out["whole_s"].append(time.perf_counter() - middle)
            out["partial"] += 1
            same = _same_items(partial.items, whole.items)
            out["same"] += same
            if not same:
                out.setdefault("differ", []).append(f"{os.path.relpath(path, os.path.dirname(ROOT))}:{row + 1}")
    return out


def report_agreement(got: dict) -> None:
    partial = got["partial"]
    print(f"{got['edits']} edits at random rows: {partial} partial ({partial / max(1, got['edits']):.0%}), of which "
          f"{got['same']} gave the whole file's answer ({got['same'] / max(1, partial):.1%}); median "
          f"{statistics.median(got['partial_s']) * 1000:.0f} ms partial vs "
          f"{statistics.median(got['whole_s']) * 1000:.0f} ms whole (in-process)"
          if partial else f"no partial check among {got['edits']} edits")
    for reason, n in sorted(got["why"].items(), key=lambda kv: -kv[1]):
        print(f"  whole file, {n}: {reason}")
    for where in got.get("differ", []):
        print(f"  partial answer not the whole file's (the server's whole-file check corrects it): {where}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edits", type=int, default=1000)
    parser.add_argument("--timed", type=int, default=25)
    parser.add_argument("--file", help="time edits of this file (a copy of it) instead of the 2,000-line one")
    parser.add_argument("--agreement", type=int, default=8, metavar="N",
                        help="edits per corpus file for the partial-versus-whole comparison (0: skip it)")
    parser.add_argument("--inside", metavar="NAME", help="make the code edits in the strings of this function "
                        "or method (the first of the name), e.g. __post_init__, instead of five spread over the file")
    parser.add_argument("--no-corpus", action="store_true",
                        help="measure the agreement on the timed file only, not on the corpus")
    args = parser.parse_args()
    if args.agreement and not args.no_corpus:
        corpus = os.path.join(os.path.dirname(ROOT), "shared", "data", "pyspark-corpus")
        paths = sorted(p for p in glob.glob(os.path.join(corpus, "**", "*.py"), recursive=True)
                       if os.path.getsize(p) > 30000)
        got = agreement(paths, args.agreement)
        print(f"partial checks on {len(paths)} corpus files over 30 kB, ", end="")
        report_agreement(got)
    with tempfile.TemporaryDirectory() as directory:
        if args.file:
            path = os.path.join(directory, os.path.basename(args.file))
            shutil.copy(args.file, path)
        else:
            path = build_file(directory)
        with open(path, encoding="utf-8") as f:
            lines = f.read().count("\n")
        load = os.getloadavg()[0]
        what = os.path.relpath(args.file) if args.file else "fixture jobs"
        print(f"file: {lines:,} lines of {what}; load average {load:.1f} on {os.cpu_count()} cores")
        cli = cli_seconds(path)
        print(f"sparkcheck check, fresh process (median of 3): {cli * 1000:.0f} ms")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        floor = parse_seconds(text)
        print(f"libcst parse of the file alone (best of 3, this process): {floor * 1000:.0f} ms")
        from linter.config import Resolver
        from linter.server import incremental

        incremental.check(None, path, text, Resolver({}, cwd=directory).for_path(path), "python")
        print(f"os.fork of this process (the engine loaded, the file checked; {rss_kib(os.getpid()) / 1024:.0f} MiB"
              f" resident), median of 5: {fork_seconds() * 1000:.1f} ms")
        if args.agreement:
            print("partial checks on the timed file, ", end="")
            report_agreement(agreement([path], args.agreement))
        places = code_places(text, 5, args.inside)
        result = asyncio.run(run(path, text, args.edits, args.timed, places))
        whole = asyncio.run(run(path, text, 0, max(3, args.timed // 5), places[:1], incremental=False))
        print(f"server: first diagnostics after open {result['first'] * 1000:.0f} ms ({result['findings']} findings)")
        where = f"{len(places)} places in {args.inside}" if args.inside else f"{len(places)} functions"
        for name, got in (("a comment line", result["comment"]), (f"code ({where})", result["code"]),
                          ("code after a pause, the last whole-file check running", result["busy"]),
                          ("code, incremental off", whole["code"])):
            median = statistics.median(got)
            print(f"server: edit in {name} -> published diagnostics, median of {len(got)}: {median * 1000:.0f} ms "
                  f"(min {min(got) * 1000:.0f}, max {max(got) * 1000:.0f}); {median / cli:.2f}x the fresh "
                  f"`sparkcheck check`; target 150 ms: {'met' if median < 0.150 else 'not met'}")
        if result["rss_100"] is None:
            print(f"server memory: {result['rss_end'] / 1024:.1f} MiB after {args.edits} edits (the growth "
                  "is measured from the 100th edit: run with --edits 200 or more)")
            return
        growth = result["rss_end"] / result["rss_100"] - 1
        print(f"server memory: {result['rss_100'] / 1024:.1f} MiB after 100 edits, "
              f"{result['rss_end'] / 1024:.1f} MiB after {args.edits} ({growth:+.1%}); target within 10%: "
              f"{'met' if abs(growth) <= 0.10 else 'not met'}")


if __name__ == "__main__":
    main()
