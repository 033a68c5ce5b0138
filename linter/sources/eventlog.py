"""Spark event logs, read as a stream: plans of SQL executions (sparkPlanInfo) as PlanNode trees.

Plain JSON lines, `.gz`, `.zstd`/`.zst` (needs `zstandard`), `.lz4` (lz4-java's block stream as Spark
writes it, or the LZ4 frame format; needs `lz4`),
`.snappy` (snappy-java's stream, as Spark writes it; needs `cramjam`), rolling `eventlog_v2_*` directories and
`.inprogress` files; a log cut off mid-line ends where the last whole event
ends. Unknown events are skipped. The log is never held whole in memory: one
line at a time, and only the newest plan of each SQL execution is kept.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from dataclasses import dataclass
from typing import Iterator, Optional

from linter.config import ConfigError
from linter.sources.plan import PlanNode, _inline_fields, operator_name

_EXTRAS = {".zstd": "zstandard", ".zst": "zstandard", ".lz4": "lz4", ".snappy": "cramjam"}
_PLAN_EVENTS = ("SparkListenerSQLExecutionStart", "SparkListenerSQLAdaptiveExecutionUpdate")


def is_event_log(path: str) -> bool:
    if os.path.isdir(path):
        # a rolling log: Spark names the folder eventlog_v2_<app>, but a copy may be renamed
        if os.path.basename(path.rstrip("/")).startswith("eventlog_v2_"):
            return True
        try:
            return any(re.match(r"events_\d+_", name) for name in os.listdir(path))
        except OSError:
            return False
    name = os.path.basename(path).lower().replace(".inprogress", "")
    if name.endswith(tuple(_EXTRAS)) or name.endswith(".gz"):
        return True
    try:
        with open(path, "rb") as f:
            return f.read(64).lstrip().startswith(b'{"Event"')
    except OSError:
        return False


_CHUNK = 1 << 16


def _chunks(path: str) -> Iterator[bytes]:
    """The decompressed bytes of one log file, chunk by chunk.

    A compressed file cut off (a log still being written, a copy interrupted)
    ends where its last decodable byte ends; a file that is not what its name
    says is one clear error.
    """
    name = path.lower().replace(".inprogress", "")
    ext = next((e for e in (*_EXTRAS, ".gz") if name.endswith(e)), "")
    produced = False
    with open(path, "rb") as raw:
        try:
            for chunk in _decoded(raw, ext, path):
                produced = produced or bool(chunk)
                yield chunk
        except ConfigError:
            raise
        except Exception as exc:  # zstandard.ZstdError, lz4's RuntimeError, gzip's BadGzipFile/EOFError, ...
            if not produced:
                kind = ext.lstrip(".") or "plain"
                raise ConfigError(f"{path}: not a readable {kind} event log ({type(exc).__name__}: {exc})") from None
            return  # cut off: everything before it was read


def _decoded(raw, ext: str, path: str) -> Iterator[bytes]:
    if ext == ".gz":
        stream = gzip.GzipFile(fileobj=raw)
        yield from iter(lambda: stream.read(_CHUNK), b"")
    elif ext in (".zstd", ".zst"):
        try:
            import zstandard
        except ImportError:
            raise ConfigError(f"{path}: reading .zstd event logs needs `zstandard` (pip install 'sparkcheck[eventlogs]')") from None
        # A decompressor object per frame: a truncated last frame gives what it holds instead of an error.
        decompressor = zstandard.ZstdDecompressor().decompressobj()
        for data in iter(lambda: raw.read(_CHUNK), b""):
            while data:
                yield decompressor.decompress(data)
                data = decompressor.unused_data if decompressor.eof else b""
                if decompressor.eof:
                    decompressor = zstandard.ZstdDecompressor().decompressobj()
    elif ext == ".lz4":
        try:
            import lz4.frame
        except ImportError:
            raise ConfigError(f"{path}: reading .lz4 event logs needs `lz4` (pip install 'sparkcheck[eventlogs]')") from None
        if raw.peek(8)[:8] == b"LZ4Block" if hasattr(raw, "peek") else False:
            yield from _lz4_blocks(raw)  # Spark's lz4 codec: lz4-java's LZ4BlockOutputStream
        else:
            stream = lz4.frame.LZ4FrameFile(raw)  # the LZ4 frame format (a log compressed by other tools)
            yield from iter(lambda: stream.read(_CHUNK), b"")
    elif ext == ".snappy":
        yield from _snappy_blocks(raw, path)
    else:
        yield from iter(lambda: raw.read(_CHUNK), b"")


def files_of(path: str) -> list[str]:
    """The files of a log: one file, or the `events_N_*` files of a rolling directory, in order."""
    if not os.path.isdir(path):
        return [path]
    names = [n for n in os.listdir(path) if n.startswith("events_")]

    def index(name: str) -> int:
        m = re.match(r"events_(\d+)_", name)
        return int(m.group(1)) if m else 0

    return [os.path.join(path, n) for n in sorted(names, key=index)]


def _lz4_blocks(raw) -> Iterator[bytes]:
    """lz4-java's block stream: per block, `LZ4Block`, a token (method | level), compressed and original
    lengths and a checksum (little-endian), then the data; a block of length 0 ends the stream."""
    import lz4.block

    while True:
        header = raw.read(21)
        if len(header) < 21 or header[:8] != b"LZ4Block":
            return
        method = header[8] & 0xF0
        compressed = int.from_bytes(header[9:13], "little")
        original = int.from_bytes(header[13:17], "little")
        if original == 0:
            return
        data = raw.read(compressed)
        if len(data) < compressed:
            return  # cut off inside a block
        yield data if method == 0x10 else lz4.block.decompress(data, uncompressed_size=original)


_XERIAL = b"\x82SNAPPY\x00"


def _snappy_blocks(raw, path: str) -> Iterator[bytes]:
    """Spark's snappy codec writes snappy-java's stream: a header, then blocks of (big-endian length, raw block)."""
    try:
        import cramjam
    except ImportError:
        raise ConfigError(f"{path}: reading .snappy event logs needs `cramjam` (pip install 'sparkcheck[eventlogs]')") from None
    header = raw.read(16)
    if not header.startswith(_XERIAL):
        raise ValueError("no snappy-java stream header")
    while True:
        size = raw.read(4)
        if len(size) < 4:
            return
        block = raw.read(int.from_bytes(size, "big"))
        yield bytes(cramjam.snappy.decompress_raw(block))


def _lines(path: str) -> Iterator[tuple[int, str]]:
    number = 0
    for file in files_of(path):
        rest = b""
        for chunk in _chunks(file):
            rest += chunk
            if b"\n" not in chunk:
                continue
            *whole, rest = rest.split(b"\n")
            for line in whole:
                number += 1
                yield number, line.decode("utf-8", errors="replace")
        if rest:
            number += 1
            yield number, rest.decode("utf-8", errors="replace")  # a last line without its newline


def events(path: str, wanted: Optional[frozenset] = None) -> Iterator[tuple[int, dict]]:
    """(line number, event) for every whole event of the log, in order.

    With `wanted` (short event names), other events are skipped before they are
    decoded: Spark writes `{"Event":"Name",` first, so the name is read from
    the line's start.
    """
    for number, line in _lines(path):
        if wanted is not None and line.startswith('{"Event":"'):
            end = line.find('"', 10)
            if line[10:end].rsplit(".", 1)[-1] not in wanted:
                continue
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut off (a log still being written, or truncated)


_CALL_SITE = re.compile(r"^\s*(\w+) at (.+?):(\d+)\s*$")


@dataclass
class SqlPlan:
    execution: int
    description: str
    root: PlanNode
    line: int  # where the event that carried the plan is in the log

    @property
    def headline(self) -> str:
        """The description's first line (`collect at /home/me/job.py:16`), or ""."""
        return self.description.splitlines()[0] if self.description else ""

    @property
    def label(self) -> str:
        """`SQL execution 3 (collect at job.py:16)`, as findings and reports name it."""
        return f"SQL execution {self.execution}" + (f" ({self.headline})" if self.headline else "")

    @property
    def call_site(self) -> Optional[tuple[str, int]]:
        """(file, line) from a description like `collect at /home/me/job.py:16`, as Stage.call_site."""
        m = _CALL_SITE.match(self.headline)
        return (m.group(2), int(m.group(3))) if m else None


_SQL_EVENTS = frozenset({*_PLAN_EVENTS, "SparkListenerTaskEnd", "SparkListenerDriverAccumUpdates"})


class PlanCollector:
    """The SQL side of an event log, fed event by event: the newest plan of each SQL execution and the
    measured value of each plan metric (the sum of the accumulator updates of tasks and of the driver).

    Memory grows with the number of plans and metrics, not with the number of tasks.
    """

    def __init__(self):
        self.plans: dict[int, SqlPlan] = {}
        self.descriptions: dict[int, str] = {}
        self.values: dict[int, float] = {}

    def task_end(self, event: dict) -> None:
        for acc in (event.get("Task Info") or {}).get("Accumulables") or ():
            _add(self.values, acc.get("ID"), acc.get("Update"), acc.get("Name"))

    def driver_updates(self, event: dict) -> None:
        for pair in event.get("accumUpdates") or ():
            if isinstance(pair, list) and len(pair) == 2:
                _add(self.values, pair[0], pair[1], "")

    def plan_event(self, event: dict, number: int) -> None:
        """SQLExecutionStart or an AQE update: the newest plan replaces the one before."""
        if "sparkPlanInfo" not in event:
            return
        execution = int(event.get("executionId", -1))
        if "description" in event:
            self.descriptions[execution] = str(event["description"])
        root = convert(event["sparkPlanInfo"], number)
        if root is not None:
            self.plans[execution] = SqlPlan(execution, self.descriptions.get(execution, ""), root, number)

    def finish(self) -> list[SqlPlan]:
        """The plans, by execution id, with each node's metric ids replaced by measured values."""
        for plan in self.plans.values():
            for node in plan.root.walk():
                ids = node.metrics
                node.metrics = {name: self.values[acc] for name, acc in ids.items() if acc in self.values}
        return [self.plans[k] for k in sorted(self.plans)]

    def feed(self, kind: str, event: dict, number: int) -> None:
        """Read what the SQL side needs of any event (`kind`: the event's short name); others are ignored."""
        if kind == "SparkListenerTaskEnd":
            self.task_end(event)
        elif kind == "SparkListenerDriverAccumUpdates":
            self.driver_updates(event)
        elif kind in _PLAN_EVENTS:
            self.plan_event(event, number)


def sql_plans(path: str) -> list[SqlPlan]:
    """The newest plan of each SQL execution (AQE updates replace the initial plan), with measured metrics."""
    collector = PlanCollector()
    for number, event in events(path, _SQL_EVENTS):
        collector.feed(str(event.get("Event", "")).rsplit(".", 1)[-1], event, number)
    return collector.finish()


def _add(values: dict, acc, update, name) -> None:
    if not isinstance(acc, int) or update is None or (name and str(name).startswith("internal.")):
        return
    try:
        values[acc] = values.get(acc, 0.0) + float(update)
    except (TypeError, ValueError):
        pass  # a metric rendered as text (an average, a list)


def convert(info: dict, line: int, codegen: Optional[int] = None) -> Optional[PlanNode]:
    """sparkPlanInfo JSON -> PlanNode; WholeStageCodegen and InputAdapter wrappers are folded away.

    `metrics` holds the accumulator id of each metric here; sql_plans replaces
    ids by measured values once the whole log was read. Averages are skipped.
    """
    name = str(info.get("nodeName", "")).strip()
    children = info.get("children") or []
    m = re.match(r"WholeStageCodegen \((\d+)\)", name)
    if m or name in ("InputAdapter", "ColumnarToRow", "WriteFiles"):
        # below an InputAdapter, operators are outside the codegen stage above it
        stage = int(m.group(1)) if m else (None if name == "InputAdapter" else codegen)
        converted = [c for c in (convert(child, line, stage) for child in children) if c is not None]
        if len(converted) == 1:
            return converted[0]
        if not converted:
            return None
    text = str(info.get("simpleString", name))
    name, fmt = operator_name(name)
    node = PlanNode(name, text, line, 1, codegen, fmt)
    _inline_fields(node)
    for key, value in (info.get("metadata") or {}).items():
        node.attrs[key] = str(value)
    for metric in info.get("metrics") or ():
        if metric.get("metricType") != "average" and isinstance(metric.get("accumulatorId"), int):
            node.metrics[str(metric.get("name"))] = metric["accumulatorId"]
    if name == "EmptyRelation":
        return node  # AQE proved the branch empty; what it prints below is a logical plan
    if name == "ReusedExchange":
        # The log repeats the original exchange below it; like explain() and the History Server, the
        # tree ends here, with the original's metrics (its size is what the reuse reads).
        original = convert(children[0], line, codegen) if children else None
        if original is not None:
            node.metrics = {**node.metrics, **original.metrics}
        return node
    for child in children:
        converted = convert(child, line, codegen)
        if converted is not None:
            converted.parent = node
            node.children.append(converted)
    return node
