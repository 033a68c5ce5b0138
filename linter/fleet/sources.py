"""What a fleet run reads: the event logs under a directory tree, an object store prefix, or every application
a History Server lists in a time window.

A Source is plain data (it crosses to pool processes and Spark tasks): `kind` is "file" (a local log: a file
or a rolling `eventlog_v2_*` folder), "fsspec" (a URL an fsspec filesystem reads: s3://, s3a://, gs://,
abfss://...; a rolling folder is the list of its `events_*` files) or "history" (a History Server's base URL
and an application id). Remote logs are copied to a temporary file chunk by chunk (never whole in memory)
and read there with the same decoders as a local log; each is removed once read.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from linter.config import ConfigError
from linter.sources.eventlog import _EXTRAS, is_event_log

_CHUNK = 1 << 20
# Names Spark gives event logs (application ids of each cluster manager), besides any file that starts
# with an event: a file so named that is not readable is a finding, not something silently skipped.
_LOG_NAME = re.compile(r"^(app|local|application|spark|eventlog|events)[-_]", re.IGNORECASE)
OBJECT_STORES = ("s3://", "s3a://", "s3n://", "gs://", "gcs://", "abfs://", "abfss://", "az://", "adl://",
                 "memory://", "file://")
RETRIES = 4  # after the first try, with backoff 0.5 s, 1 s, 2 s, 4 s
PAGE = 500


@dataclass
class Source:
    kind: str  # "file", "fsspec" or "history"
    location: str  # a local path, a URL, or the History Server's base URL
    app_id: str = ""  # the application id when the listing gives one (history), else ""
    size: int = 0  # bytes, when the listing tells
    parts: list = field(default_factory=list)  # fsspec rolling logs: the keys of their events_* files, in order
    store: str = ""  # fsspec: the URL the user gave, which builds the filesystem (its host, account, options)
    key: str = ""  # fsspec: the file's path in that filesystem (a single-file log)

    @property
    def name(self) -> str:
        """How reports name it: the path or URL the user can open."""
        return f"{self.location}/history/{self.app_id}" if self.kind == "history" else self.location


def is_store_url(text: str) -> bool:
    return text.startswith(OBJECT_STORES)


def _looks_like_log(path: str) -> bool:
    name = os.path.basename(path)
    if name.startswith((".", "appstatus")):
        return False
    return bool(_LOG_NAME.match(name)) or is_event_log(path)


def local_sources(path: str, since: float | None = None) -> list[Source]:
    """The event logs under a file or directory tree, in a stable order (a rolling folder is one log).

    With `since` (epoch seconds), logs last modified before it are not listed: an application that started
    at or after `since` wrote its start event then, so its log cannot be older (see _too_old).
    """
    if not os.path.exists(path):
        raise ConfigError(f"{path}: no such file or directory")
    if not os.path.isdir(path) or is_event_log(path):
        return [Source("file", path, size=_local_stat(path)[0])]
    out = []

    def add(full: str) -> None:
        size, modified = _local_stat(full)
        if not _too_old(modified, since):
            out.append(Source("file", full, size=size))

    for base, dirs, names in os.walk(path):
        rolling = sorted(d for d in dirs if is_event_log(os.path.join(base, d)))
        for d in rolling:
            add(os.path.join(base, d))
        dirs[:] = sorted(d for d in dirs if d not in rolling and not d.startswith("."))
        for name in sorted(names):
            full = os.path.join(base, name)
            if _looks_like_log(full):
                add(full)
    return out


def _too_old(modified: float | None, since: float | None) -> bool:
    """Last written before the window opens (a minute's slack for clocks): nothing in it started inside it."""
    return since is not None and modified is not None and modified < since - 60


def _local_stat(path: str) -> tuple[int, float | None]:
    """(bytes, newest modification time) of a log file or rolling folder."""
    try:
        if os.path.isdir(path):
            stats = [os.stat(os.path.join(path, n)) for n in os.listdir(path)]
            return sum(s.st_size for s in stats), max((s.st_mtime for s in stats), default=None)
        stat = os.stat(path)
        return stat.st_size, stat.st_mtime
    except OSError:
        return 0, None


def _store_modified(info: dict) -> float | None:
    """An object's modification time as s3fs (LastModified), adlfs (last_modified) or gcsfs (updated) give it."""
    value = info.get("LastModified") or info.get("last_modified") or info.get("updated") or info.get("mtime")
    if isinstance(value, datetime.datetime):
        return value.timestamp()
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def _filesystem(url: str):
    try:
        import fsspec
    except ImportError:
        raise ConfigError(f"{url}: reading object stores needs fsspec and its filesystem "
                          "(pip install 'sparkcheck[fleet]')") from None
    scheme = url.split("://", 1)[0]
    if scheme == "s3a" or scheme == "s3n":
        url = "s3://" + url.split("://", 1)[1]  # Hadoop's names for S3; s3fs reads them as s3://
    try:
        fs, root = fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as exc:
        raise ConfigError(f"{url}: no filesystem for {scheme}:// ({exc}); pip install 'sparkcheck[fleet]'") from None
    return fs, root, scheme


def store_sources(url: str, since: float | None = None) -> list[Source]:
    """The event logs under an object store prefix (listed once, recursively); `since` as local_sources."""
    fs, root, _scheme = _filesystem(url)
    prefix = url.split("://", 1)[0] + "://"
    try:
        found = _retry(lambda: fs.find(root, detail=True), url)
    except FileNotFoundError:
        raise ConfigError(f"{url}: no such bucket or prefix") from None
    rolling: dict[str, Source] = {}
    out = []
    newest: dict[str, float] = {}
    for key in sorted(found):
        info = found[key]
        parent, name = key.rsplit("/", 1) if "/" in key else ("", key)
        modified = _store_modified(info)
        # a rolling log: Spark names the folder eventlog_v2_<app>, but a copy may be renamed (as is_event_log)
        if os.path.basename(parent).startswith("eventlog_v2_") or re.match(r"events_\d+_", name):
            source = rolling.get(parent)
            if source is None:
                source = rolling[parent] = Source("fsspec", _url(prefix, parent), store=url)
                out.append(source)
            if name.startswith(("events_", "appstatus")):  # appstatus_<app>.inprogress: still being written
                source.parts.append(key)
                source.size += int(info.get("size") or 0)
                if modified is not None:
                    newest[parent] = max(newest.get(parent, modified), modified)
            continue
        if name.startswith((".", "appstatus")) or name.endswith("/"):
            continue
        if _LOG_NAME.match(name) or name.lower().replace(".inprogress", "").endswith((*_EXTRAS, ".gz")) \
                or "." not in name:
            if _too_old(modified, since):
                continue
            out.append(Source("fsspec", _url(prefix, key), size=int(info.get("size") or 0), store=url, key=key))
    for source in rolling.values():
        source.parts.sort(key=lambda u: int((re.search(r"events_(\d+)_", u) or [0, 0])[1]))
        if not any(u.rsplit("/", 1)[-1].startswith("events_") for u in source.parts):
            source.parts.clear()  # an appstatus file alone: nothing to read, and fetch says so
    old = {id(rolling[p]) for p in rolling if _too_old(newest.get(p), since)}
    return [s for s in out if id(s) not in old]


def _url(prefix: str, key: str) -> str:
    return prefix + key.lstrip("/") if not key.startswith(prefix) else key


def _retry(call: Callable, what: str, sleep: Callable[[float], None] = time.sleep):
    """`call()`, tried again with backoff on timeouts, lost connections and 5xx answers."""
    for attempt in range(RETRIES + 1):
        try:
            return call()
        except FileNotFoundError:
            raise
        except urllib.error.HTTPError as exc:
            if exc.code < 500 or attempt == RETRIES:
                raise ConfigError(f"{what}: the server answered {exc.code} {exc.reason}") from None
        except (OSError, TimeoutError) as exc:
            if attempt == RETRIES:
                raise ConfigError(f"{what}: {type(exc).__name__}: {getattr(exc, 'reason', exc)} "
                                  f"(after {RETRIES + 1} tries)") from None
        except Exception as exc:  # noqa: BLE001 - botocore/aiohttp errors: transient ones say so by name or status
            text = f"{type(exc).__name__}: {exc}"
            if attempt == RETRIES or not re.search(r"Timeout|Throttl|SlowDown|5\d\d|ServiceUnavailable|"
                                                   r"InternalError|Connection", text):
                raise ConfigError(f"{what}: {text}") from None
        sleep(0.5 * 2 ** attempt)
    raise AssertionError("unreachable")


def fetch(source: Source, into: str) -> str:
    """A remote log copied into the folder `into` (streamed); the local path to read."""
    if source.kind == "fsspec":
        fs, _, _ = _filesystem(source.store or source.location)
        if source.parts or not source.key:
            if not source.parts:
                raise ConfigError(f"{source.name}: a rolling event log folder without events_* files")
            folder = os.path.join(into, os.path.basename(source.location.rstrip("/")))
            os.makedirs(folder, exist_ok=True)
            for part in source.parts:
                _copy(fs, part, os.path.join(folder, part.rsplit("/", 1)[-1]), source.name)
            return folder
        target = os.path.join(into, source.key.rsplit("/", 1)[-1] or "log")
        _copy(fs, source.key, target, source.name)
        return target
    if source.kind == "history":

        logs = _retry(lambda: _download(source.location, source.app_id, into), source.name)
        logs = [log for log in logs if is_event_log(log)]
        if not logs:
            raise ConfigError(f"{source.name}: the server's zip holds no event log")
        return logs[0]
    return source.location


def _download(base: str, app_id: str, into: str) -> list[str]:
    from linter.sources import history

    try:
        return history.download_logs(base, app_id, into)
    except ConfigError as exc:
        # history.py turns HTTP errors into one line; a 5xx there is worth another try
        if re.search(r"answered 5\d\d|cannot reach", str(exc)):
            raise OSError(str(exc)) from None
        raise


def _copy(fs, key: str, target: str, what: str) -> None:
    def once():
        with fs.open(key, "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst, _CHUNK)
    _retry(once, what)


# --- History Server windows --------------------------------------------------------------------------------

_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)\s*(s|m|min|h|d|w)$")


def parse_when(text: str, now: float | None = None) -> float:
    """`7d`, `12h`, `30m`, `2w` (before now) or an ISO date/time (UTC when no zone): epoch seconds."""
    now = time.time() if now is None else now
    text = text.strip()
    m = _RELATIVE.match(text)
    if m:
        unit = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400}[m.group(2)]
        return now - float(m.group(1)) * unit
    try:
        when = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"{text!r}: give a date (2026-11-30, 2026-11-30T08:00) or a time before now (7d, 12h, "
                          "30m, 2w)") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return when.timestamp()


def _spark_date(epoch: float) -> str:
    """The History Server's date parameter form: 2026-11-30T08:00:00.000GMT."""
    when = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}GMT"


def _get_json(url: str):
    def once():
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.read()
    data = _retry(once, url)
    try:
        return json.loads(data.decode("utf-8", errors="replace"))
    except json.JSONDecodeError:
        raise ConfigError(f"{url}: the answer is not JSON (is this a Spark History Server?)") from None


def history_sources(url: str, since: float | None, until: float | None, page: int = PAGE) -> list[Source]:
    """Every application the server lists that started in [since, until], page by page.

    The listing is newest end time first and has no offset: each next page asks for the applications that
    ended no later than the oldest of the page before (`maxEndDate`), and ids already seen are dropped.
    """
    parts = urllib.parse.urlsplit(url.rstrip("/"))
    base = f"{parts.scheme}://{parts.netloc}"
    one = re.search(r"/(?:history|api/v1/applications)/([^/?#]+)", parts.path)
    if one:
        return [Source("history", base, urllib.parse.unquote(one.group(1)))]
    seen: dict[str, Source] = {}
    max_end: str | None = None
    while True:
        query = {"limit": str(page)}
        if since is not None:
            query["minDate"] = _spark_date(since)
        if until is not None:
            query["maxDate"] = _spark_date(until)
        if max_end is not None:
            query["maxEndDate"] = max_end
        listed = _get_json(f"{base}/api/v1/applications?{urllib.parse.urlencode(query)}")
        if not isinstance(listed, list):
            raise ConfigError(f"{base}/api/v1/applications: unexpected answer (is this a Spark History Server?)")
        new = 0
        oldest = None
        for app in listed:
            if not isinstance(app, dict) or not app.get("id"):
                continue
            ends = [a.get("endTimeEpoch") for a in app.get("attempts") or () if (a.get("endTimeEpoch") or 0) > 0]
            if ends:
                oldest = min(oldest if oldest is not None else min(ends), min(ends))
            if app["id"] not in seen:
                seen[app["id"]] = Source("history", base, str(app["id"]))
                new += 1
        if len(listed) < page or not new or oldest is None:
            break
        max_end = _spark_date(oldest / 1000)
    return list(seen.values())


def sources(paths: list[str], since: float | None = None, until: float | None = None) -> Iterator[Source]:
    from linter.sources.history import is_url

    for path in paths:
        if is_url(path):
            yield from history_sources(path, since, until)
        elif is_store_url(path):
            yield from store_sources(path, since)
        else:
            yield from local_sources(path, since)


def scratch() -> str:
    return tempfile.mkdtemp(prefix="sparkcheck-fleet-")
