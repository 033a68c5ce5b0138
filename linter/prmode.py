"""Pull-request mode: report only what a change touches (``--diff-base``), hide what a baseline knows.

Diff: ``git merge-base REF HEAD``, then ``git diff -U0 -M <merge-base>`` of the
working tree (committed and uncommitted changes), plus untracked files, which
are new in full. A finding is kept when any row of its span (in the file; for
notebooks, the JSON rows of its cell lines) was added or changed.

Baseline: one entry per finding, matched on rule, repo-relative file, and a
fingerprint of the offending line with its neighbours (whitespace folded), plus
an occurrence index among identical fingerprints in the file. Line numbers are
not part of it, so inserting lines above an old finding does not bring it back;
editing the finding's own line (or a neighbour) does.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from collections import Counter
from typing import Optional

from linter.config import ConfigError

BASELINE_VERSION = 1
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def _git(args: list[str], cwd: str) -> str:
    try:
        p = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise ConfigError("--diff-base needs git, which is not installed") from None
    if p.returncode != 0:
        raise ConfigError(f"git {' '.join(args[:2])}: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else 'failed'}")
    return p.stdout


def repo_root(cwd: str) -> str:
    try:
        return _git(["rev-parse", "--show-toplevel"], cwd).strip()
    except ConfigError:
        raise ConfigError(f"--diff-base: {cwd} is not inside a git repository") from None


def changed_lines(ref: str, cwd: str) -> dict[str, Optional[set]]:
    """{absolute path: rows added or changed (None: the whole file is new)}."""
    root = repo_root(cwd)
    try:
        base = _git(["merge-base", ref, "HEAD"], root).strip()
    except ConfigError:
        raise ConfigError(f"--diff-base: unknown revision {ref!r} (fetch it first, e.g. `git fetch origin main`)") from None
    out: dict[str, Optional[set]] = {}
    current: Optional[str] = None
    for line in _git(["diff", "-U0", "-M", "--no-color", "--no-ext-diff", base], root).splitlines():
        if line.startswith("+++ "):
            name = line[4:]
            current = None if name == "/dev/null" else os.path.join(root, name[2:] if name.startswith("b/") else name)
            if current is not None:
                out.setdefault(current, set())
        elif line.startswith("@@") and current is not None:
            m = _HUNK.match(line)
            if m:
                start, count = int(m.group(1)), int(m.group(2) or 1)
                out[current].update(range(start, start + count))
    for name in _git(["ls-files", "--others", "--exclude-standard"], root).splitlines():
        out[os.path.join(root, name)] = None
    return out


def _rows(finding) -> range:
    start, end = finding.location, finding.end_location
    if start.cell is not None:
        first = start.file_row or 1
        last = end.file_row or first
    else:
        first, last = start.row, end.row
    return range(first, max(first, last) + 1)


def only_changed(findings: list, ref: str, cwd: str) -> list:
    changed = changed_lines(ref, cwd)
    kept = []
    for f in findings:
        rows = changed.get(os.path.realpath(os.path.abspath(f.filename)), changed.get(os.path.abspath(f.filename), ""))
        if rows is None or (rows and any(r in rows for r in _rows(f))):
            kept.append(f)
    return kept


def _fingerprint(finding) -> str:
    texts = [" ".join(text.split()) for _, text in (finding.context or [])] or [" ".join(finding.source_line.split())]
    data = "\n".join([finding.code, *texts])
    return hashlib.sha256(data.encode()).hexdigest()[:20]


def _relative(path: str, root: str) -> str:
    return os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")


def _root(cwd: str) -> str:
    """The checkout's root for repo-relative names (the same one SARIF and GitHub output use)."""
    from linter.report import git_root

    return git_root(os.path.abspath(cwd)) or cwd


def entries(findings: list, cwd: str) -> list[dict]:
    root = _root(cwd)
    seen: Counter = Counter()
    out = []
    for f in findings:
        key = (f.code, _relative(f.filename, root), _fingerprint(f))
        seen[key] += 1
        out.append({"code": key[0], "file": key[1], "fingerprint": key[2], "occurrence": seen[key]})
    return out


def write_baseline(path: str, findings: list, cwd: str) -> int:
    data = {"version": BASELINE_VERSION, "tool": "sparkcheck", "findings": entries(findings, cwd)}
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)
    return len(data["findings"])


def apply_baseline(path: str, findings: list, cwd: str) -> tuple[list, int]:
    """(findings the baseline does not know, baseline entries that matched nothing)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        known = {(e["code"], e["file"], e["fingerprint"], e["occurrence"]) for e in data["findings"]}
    except OSError as exc:
        raise ConfigError(f"--baseline: cannot read {path}: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError):
        raise ConfigError(f"--baseline: {path} is not a sparkcheck baseline (write one with --write-baseline)") from None
    kept, used = [], set()
    for f, e in zip(findings, entries(findings, cwd)):
        key = (e["code"], e["file"], e["fingerprint"], e["occurrence"])
        if key in known:
            used.add(key)
        else:
            kept.append(f)
    return kept, len(known - used)


def markdown_summary(findings: list, cwd: str, title: str = "sparkcheck") -> str:
    """A step summary for GitHub: counts per rule, then every finding (GitHub shows only 10 annotations a level)."""
    root = _root(cwd)
    lines = [f"## {title}", ""]
    if not findings:
        lines.append("No findings.")
        return "\n".join(lines) + "\n"
    counts = Counter((f.code, f.name) for f in findings)
    lines.append(f"{len(findings)} finding{'s' if len(findings) != 1 else ''} in "
                 f"{len({f.filename for f in findings})} file(s).")
    lines += ["", "| rule | name | count |", "|---|---|---:|"]
    for (code, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"| {code} | {name} | {n} |")
    lines += ["", "| file | line | rule | message |", "|---|---:|---|---|"]
    for f in findings:
        where = f"cell {f.location.cell}, line {f.location.row}" if f.location.cell else str(f.location.row)
        message = f.message.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {_relative(f.filename, root)} | {where} | {f.code} | {message} |")
    return "\n".join(lines) + "\n"
