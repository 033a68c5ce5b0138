"""The other PySpark linters: install them in a throwaway venv, run them, read their findings.

Run by hand:  .venv/bin/python bench/_peers.py [DIR]   (default: ../shared/data/pyspark-corpus)

``install(tmpdir)`` creates ``tmpdir/peers`` (a venv) and pip-installs the peers there, never into the
project; ``run(name, commands, target_dir)`` runs one peer on a directory and returns its findings as
``Finding(path, line, cell, rule, message)``: ``path`` relative to ``target_dir`` (posix), ``line``
1-based, ``rule`` the peer's own rule id.

How each peer is read (checked on the installed versions: pipeline-lint 0.1.0, cylint 0.1.5,
spark-perf-lint 0.1.0, sparkdoctor 0.1.8, pyspark-antipattern 0.4.1):

| peer | output read | files it reads | exit status with findings |
|---|---|---|---|
| pipeline-lint | ``check --format json --output FILE`` (``violations``) | ``.py`` and ``.sql`` (skips hidden dirs and ``build dist env venv node_modules site-packages __pycache__``) | 1 |
| cylint | ``cy lint --format json`` on stdout (``findings``) | every ``.py`` | 1 (warnings), 2 (critical) |
| spark-perf-lint | ``scan --format json --output FILE`` (``findings``) | ``.py`` files its detector takes for PySpark | 1 (a CRITICAL) |
| sparkdoctor | ``lint --format json --no-config`` on stdout (a list) | every ``.py`` | 0 (1 only with ``--exit-code``) |
| pyspark-antipattern | text only (no JSON/SARIF in 0.4.1): ``error[ID][IMPACT]: message`` then ``  --> path:line:col``, on stderr | ``.py`` (skips hidden/build/venv dirs) | 1 |

Notebooks: none of the five reads ``.ipynb`` at all, so ``cell`` is always None. Databricks source
notebooks (``# Databricks notebook source`` ``.py`` files, ``# COMMAND ----------`` between cells) are
plain Python files to all five and are reported by the file's own line, as sparkcheck reports them
(pipeline-lint also parses their ``# MAGIC %sql`` cells and points into the ``# MAGIC`` lines; cylint
adds a cell fingerprint and a line inside the cell, which are not a cell index and are not used).

Each peer runs from an empty working directory with neutral configuration (an empty pyproject.toml or
YAML where the peer takes ``--config``, ``--no-config`` for sparkdoctor), so that no pyproject.toml in
or above the target changes its rules; ``NO_COLOR`` is set and ``PYTHONPATH`` dropped. None of them
writes into the target (checked: the file list, sizes and mtimes are the same after a run; ``__main__``
checks it again every time), so the target is read in place.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "data", "pyspark-corpus")
PEERS = ["pipeline-lint", "cylint", "spark-perf-lint", "sparkdoctor", "pyspark-antipattern"]
TIMEOUT = 600  # seconds, per peer run

# Peers that install() could not install: pip name -> one-line reason.
INSTALL_FAILURES: dict = {}


class Finding(NamedTuple):
    path: str  # relative to the target directory, posix
    line: int  # 1-based
    cell: int | None  # 1-based among all cells of a notebook; None outside notebooks
    rule: str  # the peer's own rule id
    message: str


def install(tmpdir: str) -> dict:
    """Create ``tmpdir/peers`` (a venv), install the peers, return ``{name: command prefix}``.

    The prefix is the peer's program (its console script, or ``python -m``); ``run`` adds the
    subcommand and options.  All peers go in one pip call; if that fails, each is installed on its
    own and the ones that still fail are left out of the result (reason in ``INSTALL_FAILURES``).
    """
    INSTALL_FAILURES.clear()
    venv = os.path.join(tmpdir, "peers")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True)
    bin_ = os.path.join(venv, "bin")
    pip = [os.path.join(bin_, "python"), "-m", "pip", "install", "-q"]
    done = subprocess.run([*pip, *PEERS], check=False, capture_output=True, text=True)
    if done.returncode != 0:
        for peer in PEERS:
            one = subprocess.run([*pip, peer], check=False, capture_output=True, text=True)
            if one.returncode != 0:
                INSTALL_FAILURES[peer] = _last_line(one.stderr or one.stdout) or f"pip exited {one.returncode}"
    programs = {
        "pipeline-lint": [os.path.join(bin_, "python"), "-m", "pipeline_lint"],
        "cylint": [os.path.join(bin_, "cy")],
        "spark-perf-lint": [os.path.join(bin_, "spark-perf-lint")],
        "sparkdoctor": [os.path.join(bin_, "sparkdoctor")],
        "pyspark-antipattern": [os.path.join(bin_, "pyspark-antipattern")],
    }
    commands = {}
    for name, cmd in programs.items():
        if name in INSTALL_FAILURES:
            continue
        if cmd[1:2] == ["-m"] or os.path.exists(cmd[0]):
            commands[name] = cmd
        else:
            INSTALL_FAILURES[name] = f"installed, but {cmd[0]} is missing"
    return commands


def run(name: str, commands: dict, target_dir: str) -> list:
    """Run peer ``name`` on ``target_dir`` and return its findings (``TIMEOUT`` seconds at most).

    Raises RuntimeError when the peer's output cannot be read (a crash, a usage error), and
    subprocess.TimeoutExpired when it runs too long.  A non-zero exit status alone is not an
    error: most peers exit 1 or 2 when they find something.
    """
    target = os.path.abspath(target_dir)
    prefix = list(commands[name])
    with tempfile.TemporaryDirectory(prefix=f"peer-{name}-") as work:
        # An empty pyproject.toml / YAML: the peer's defaults, whatever lies in or above the target.
        pyproject = os.path.join(work, "pyproject.toml")
        Path(pyproject).write_text("", encoding="utf-8")
        yaml_config = os.path.join(work, "spark-perf-lint.yaml")
        Path(yaml_config).write_text("{}\n", encoding="utf-8")
        report = os.path.join(work, "report.json")
        if name == "pipeline-lint":
            args = ["check", "--format", "json", "--output", report, "--config", pyproject, target]
        elif name == "cylint":
            args = ["lint", "--format", "json", "--no-color", target]
        elif name == "spark-perf-lint":
            args = ["scan", "--format", "json", "--output", report, "--config", yaml_config,
                    "--severity-threshold", "INFO", "--no-llm", target]
        elif name == "sparkdoctor":
            args = ["lint", "--format", "json", "--no-config", "--no-color", target]
        elif name == "pyspark-antipattern":
            args = ["check", "--config", pyproject, target]
        else:
            raise KeyError(f"unknown peer {name!r}")
        env = {k: v for k, v in os.environ.items()
               if k != "PYTHONPATH" and not k.startswith(("SPARK_PERF_LINT_", "CLUSTER_YIELD_"))}
        env.update(NO_COLOR="1", TERM="dumb", COLUMNS="200")
        done = subprocess.run([*prefix, *args], check=False, cwd=work, env=env, capture_output=True,
                              text=True, encoding="utf-8", errors="replace", timeout=TIMEOUT)
        if name in ("pipeline-lint", "spark-perf-lint"):
            text = Path(report).read_text(encoding="utf-8") if os.path.exists(report) else ""
        else:
            text = done.stdout
        try:
            if name == "pyspark-antipattern":
                raw = _parse_antipattern(done.stdout + "\n" + done.stderr, done.returncode)
            else:
                raw = _parse_json(name, json.loads(text))
        except (ValueError, KeyError, TypeError) as exc:
            detail = _last_line(done.stderr) or _last_line(done.stdout) or str(exc)
            raise RuntimeError(f"{name} exited {done.returncode}, output not readable: {detail}") from exc
    findings = [Finding(_relative(path, target), max(1, int(line or 1)), None, str(rule), message)
                for path, line, rule, message in raw]
    findings.sort(key=lambda f: (f.path, f.line, f.cell or 0, f.rule, f.message))
    return findings


def _parse_json(name: str, data) -> list:
    """(path, line, rule, message) of each finding in a peer's JSON report."""
    if name == "pipeline-lint":
        return [(v["path"], v["line"], v["rule_id"], v["message"]) for v in data["violations"]]
    if name == "cylint":
        return [(f["filepath"], f["line"], f["rule_id"], f["message"]) for f in data["findings"]]
    if name == "spark-perf-lint":
        return [(f["file_path"], f["line_number"], f["rule_id"], f["message"]) for f in data["findings"]]
    if name == "sparkdoctor":
        if not isinstance(data, list):
            raise TypeError("sparkdoctor: expected a JSON list")
        return [(d["filename"], d["line"], d["rule_id"], d["message"]) for d in data]
    raise KeyError(name)


# pyspark-antipattern's text report: a header line per violation, the position on the next line.
_PAP_HEAD = re.compile(r"^(?:error|warning)\[(?P<rule>[A-Z]+[0-9]+)\](?:\[[A-Z]+\])?: (?P<message>.*)$")
_PAP_WHERE = re.compile(r"^\s*--> (?P<path>.+):(?P<line>\d+):(?P<col>\d+)\s*$")
_PAP_SUMMARY = re.compile(r"^Checked \d+ file\(s\)\.")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _parse_antipattern(text: str, returncode: int) -> list:
    lines = _ANSI.sub("", text).splitlines()
    found, summary = [], False
    for i, line in enumerate(lines):
        summary = summary or bool(_PAP_SUMMARY.match(line))
        head = _PAP_HEAD.match(line)
        if head is None:
            continue
        where = _PAP_WHERE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if where is None:
            raise ValueError(f"pyspark-antipattern: no position after {line!r}")
        found.append((where["path"], int(where["line"]), head["rule"], head["message"].strip()))
    if not summary and (returncode not in (0, 1) or not found):
        raise ValueError("pyspark-antipattern: no 'Checked N file(s).' summary")
    return found


def _relative(path: str, target: str) -> str:
    p = Path(path)
    if not p.is_absolute():
        # Reported relative to the working directory (an empty one) or to the target as given.
        p = Path(target) / p
    p = Path(os.path.normpath(p))
    for base in (Path(target), Path(os.path.realpath(target))):
        try:
            return p.relative_to(base).as_posix()
        except ValueError:
            pass
    try:
        return Path(os.path.realpath(p)).relative_to(os.path.realpath(target)).as_posix()
    except ValueError:
        return p.as_posix()


def _last_line(text: str) -> str:
    lines = [line.strip(" \t│╭╮╰╯─") for line in _ANSI.sub("", text or "").splitlines()]
    lines = [line for line in lines if re.search(r"\w", line)]  # not blank, not a box's border
    return lines[-1][:300] if lines else ""


def _snapshot(root: str) -> dict:
    state = {}
    for base, dirs, names in os.walk(root):
        for n in dirs + names:
            full = os.path.join(base, n)
            st = os.lstat(full)
            state[full] = (st.st_size, st.st_mtime_ns)
    return state


def main(argv: list) -> int:
    target = os.path.abspath(argv[1] if len(argv) > 1 else CORPUS)
    if not os.path.isdir(target):
        sys.exit(f"_peers: not a directory: {target}")
    tmp = tempfile.mkdtemp(prefix="sparkcheck-peers-")
    try:
        start = time.perf_counter()
        commands = install(tmp)
        print(f"installed {len(commands)} of {len(PEERS)} peers in {time.perf_counter() - start:.1f} s "
              f"({tmp}/peers); target {target}")
        for peer, reason in INSTALL_FAILURES.items():
            print(f"  {peer}: not installed: {reason}")
        before = _snapshot(target)
        for name in commands:
            start = time.perf_counter()
            try:
                findings = run(name, commands, target)
            except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
                took = time.perf_counter() - start
                print(f"\n{name}: FAILED after {took:.1f} s: {str(exc).splitlines()[0] if str(exc) else exc!r}")
                continue
            took = time.perf_counter() - start
            files = {f.path for f in findings}
            rules = {}
            for f in findings:
                rules[f.rule] = rules.get(f.rule, 0) + 1
            top = ", ".join(f"{r} {n}" for r, n in sorted(rules.items(), key=lambda kv: -kv[1])[:6])
            print(f"\n{name}: {len(findings)} findings in {len(files)} files, {len(rules)} rules, {took:.1f} s")
            print(f"  most frequent: {top}")
            step = max(1, len(findings) // 5)
            for f in findings[::step][:5]:
                cell = f" cell {f.cell}" if f.cell else ""
                print(f"  {f.path}:{f.line}{cell}  {f.rule}  {f.message[:110]}")
        if _snapshot(target) != before:
            print(f"\nWARNING: the target changed during the runs: a peer writes into it ({target})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
