"""Plans from a Spark History Server (or a running driver's UI) through its REST API.

`sparkcheck plan http://host:18080` reads every application the server lists;
`http://host:18080/history/<app-id>` (the page a user has open) or
`.../api/v1/applications/<app-id>` reads one. For each application,
`/api/v1/applications/<app>/sql?details=true` gives every SQL execution with
its nodes (`nodeName`, `desc`: the operator's text, `wholeStageCodegenId`,
`metrics` rendered as text) and `edges` (child -> parent); the tree is rebuilt
from them, and metric values are read back into numbers ("1.5 MiB", "2,033",
"total (min, med, max ...)\\n268.0 B (...)" -> the total).
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Optional

from linter.config import ConfigError
from linter.sources.eventlog import SqlPlan
from linter.sources.plan import PlanNode, _inline_fields, operator_name, parse_size

PAGE = 100
TIMEOUT = 30


def is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def _get(url: str):
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            return json.loads(response.read().decode("utf-8", errors="replace"))
    except urllib.error.HTTPError as exc:
        raise ConfigError(f"{url}: the server answered {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConfigError(f"{url}: cannot reach the Spark History Server ({reason})") from None
    except json.JSONDecodeError:
        raise ConfigError(f"{url}: the answer is not JSON (is this a Spark History Server?)") from None


def applications(url: str) -> tuple[str, list[str]]:
    """(the server's base URL, application ids) a user's URL names."""
    parts = urllib.parse.urlsplit(url.rstrip("/"))
    base = f"{parts.scheme}://{parts.netloc}"
    m = re.search(r"/(?:history|api/v1/applications)/([^/?#]+)", parts.path)
    if m:
        return base, [urllib.parse.unquote(m.group(1))]
    listed = _get(f"{base}/api/v1/applications")
    if not isinstance(listed, list):
        raise ConfigError(f"{base}/api/v1/applications: unexpected answer (is this a Spark History Server?)")
    return base, [str(app.get("id")) for app in listed if isinstance(app, dict) and app.get("id")]


def sql_plans(base: str, app: str) -> list[SqlPlan]:
    """Every SQL execution of one application, as trees with measured metrics."""
    out: list[SqlPlan] = []
    offset = 0
    quoted = urllib.parse.quote(app, safe="")
    while True:
        page = _get(f"{base}/api/v1/applications/{quoted}/sql?details=true&planDescription=false"
                    f"&offset={offset}&length={PAGE}")
        if not isinstance(page, list) or not page:
            break
        for execution in page:
            root = tree(execution.get("nodes") or [], execution.get("edges") or [])
            if root is not None:
                out.append(SqlPlan(int(execution.get("id", -1)), str(execution.get("description", "")), root, 1))
        if len(page) < PAGE:
            break
        offset += PAGE
    return out


def tree(nodes: list, edges: list) -> Optional[PlanNode]:
    """The operator tree from the REST API's nodes and child -> parent edges (codegen clusters dropped).

    Spark's SparkPlanGraph numbers the nodes and lists the edges as it walks
    the plan, parent before children and children left to right; a reused
    exchange gets no node of its own, only an edge from the original exchange
    to its user, listed where the ReusedExchange stood.  So the order of the
    edges is the order of each node's children, reused exchanges included
    (node ids alone would put a reused exchange after its later siblings).
    """
    made: dict[int, PlanNode] = {}
    for item in nodes:
        name = str(item.get("nodeName", ""))
        if name.startswith("WholeStageCodegen") or "nodeId" not in item:
            continue
        text = str(item.get("desc") or name)
        operator, fmt = operator_name(name)
        node = PlanNode(operator, text, 1, 1, item.get("wholeStageCodegenId"), fmt)
        _inline_fields(node)
        for metric in item.get("metrics") or ():
            value = metric_value(str(metric.get("value", "")))
            if value is not None:
                node.metrics[str(metric.get("name"))] = value
        made[int(item["nodeId"])] = node
    order = {id(node): key for key, node in made.items()}
    has_parent = set()
    for edge in edges:
        child, parent = made.get(edge.get("fromId")), made.get(edge.get("toId"))
        if child is None or parent is None:
            continue
        if child.parent is not None:
            # A reused exchange: the graph links the original to every user; the tree gets a leaf for it.
            child = PlanNode("ReusedExchange", f"ReusedExchange {child.text}", 1, 1, None, None,
                             metrics=dict(child.metrics))
        child.parent = parent
        parent.children.append(child)
        has_parent.add(id(child))
    for node in made.values():
        if node.name == "EmptyRelation":
            node.children = []  # AQE proved the branch empty; below it is a logical plan
    roots = [n for n in made.values() if id(n) not in has_parent]
    if not roots:
        return None
    return min(roots, key=lambda n: order[id(n)])


_TIME = re.compile(r"^([0-9.,]+)\s*(ms|s|m|h)$")


def metric_value(text: str) -> Optional[float]:
    """A metric as the UI renders it, back to a number (sizes in bytes, times in ms)."""
    text = text.strip()
    if text.startswith("total"):
        lines = text.splitlines()
        text = lines[1].split(" (")[0].strip() if len(lines) > 1 else ""
    size = parse_size(text)
    if size is not None:
        return size
    m = _TIME.match(text)
    if m:
        factor = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}[m.group(2)]
        return float(m.group(1).replace(",", "")) * factor
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def download_logs(base: str, app: str, into: str) -> list[str]:
    """The application's event log, through `/api/v1/applications/<app>/logs` (a zip), unpacked into `into`."""
    import io
    import os
    import zipfile

    url = f"{base}/api/v1/applications/{urllib.parse.quote(app, safe='')}/logs"
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            data = response.read()
    except urllib.error.HTTPError as exc:
        raise ConfigError(f"{url}: the server answered {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise ConfigError(f"{url}: cannot reach the Spark History Server ({getattr(exc, 'reason', exc)})") from None
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for member in archive.namelist():
                target = os.path.realpath(os.path.join(into, member))
                if not target.startswith(os.path.realpath(into) + os.sep):
                    raise ConfigError(f"{url}: the archive names a path outside its folder: {member}")
            archive.extractall(into)
    except zipfile.BadZipFile:
        raise ConfigError(f"{url}: the answer is not a zip of event logs") from None
    from linter.sources.inputs import plan_files

    return plan_files([into])
