"""Output formats, ruff's names: one module each, all reading ``Finding`` lists."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

FORMATS = ("full", "concise", "grouped", "json", "json-lines", "github", "sarif", "junit", "gitlab")
# These print nothing but their document on stdout.
MACHINE = frozenset({"json", "json-lines", "sarif", "junit", "gitlab"})


@dataclass
class ReportOptions:
    cwd: str = field(default_factory=os.getcwd)
    unsafe_fixes: bool = False
    fix_mode: bool = False  # --fix ran: summaries speak of what is left
    fixed: int = 0  # fixes applied
    show_fixes: bool = False
    fixed_by_file: dict = field(default_factory=dict)  # path -> Counter(code)
    repo_root: Optional[str] = None


def applicable(finding, options: ReportOptions) -> bool:
    fix = finding.fix
    return fix is not None and (fix["applicability"] == "safe" or options.unsafe_fixes)


def relative(path: str, options: ReportOptions) -> str:
    """A path relative to the working directory, with forward slashes, no ``./``; URLs as they are."""
    if "://" in path:
        return path  # a History Server application
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute, options.cwd)
    if rel.startswith(".."):
        root = options.repo_root or git_root(absolute)
        if root:
            rel = os.path.relpath(absolute, root)
        else:
            rel = absolute
    rel = rel.replace(os.sep, "/")
    while rel.startswith("./"):
        rel = rel[2:]
    return rel.lstrip("/")


def shown_path(path: str, options: ReportOptions) -> str:
    """For people: relative to the working directory when inside it, else absolute; URLs as they are."""
    if "://" in path:
        return path
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute, options.cwd)
    if rel.startswith(".."):
        return absolute
    return rel.replace(os.sep, "/")


def git_root(path: str) -> Optional[str]:
    d = path if os.path.isdir(path) else os.path.dirname(path)
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def file_position(finding) -> tuple[int, int, int, int]:
    """(line, column, end line, end column) in the raw file, end column exclusive.

    For notebook cells the raw file is JSON: the line is the JSON line holding the
    cell's source line, the column the place in its JSON string (escapes such as
    `\"` counted as they are written), and the message names the cell and row;
    where the string's place is not known, columns 1-2 of the line.  Empty spans
    are widened to one character so every consumer can show them.
    """
    start, end = finding.location, finding.end_location
    if start.cell is not None:
        line = start.file_row or 1
        end_line = max(end.file_row or line, line)
        if start.file_column is None:
            return line, 1, end_line, 2
        col = start.file_column
        end_col = end.file_column if end.file_column is not None and end.file_row is not None else col + 1
        if (end_line, end_col) <= (line, col):
            end_line, end_col = line, col + 1
        return line, col, end_line, end_col
    line, col, end_line, end_col = start.row, start.column, end.row, end.column
    if (end_line, end_col) <= (line, col):
        end_line, end_col = line, col + 1
    return line, col, end_line, end_col


def cell_prefix(finding) -> str:
    loc = finding.location
    return f"cell {loc.cell}, line {loc.row}: " if loc.cell is not None else ""


def render(fmt: str, findings: list, options: ReportOptions) -> str:
    if fmt in ("full", "concise", "grouped"):
        from linter.report import text

        return text.render(fmt, findings, options)
    if fmt in ("json", "json-lines"):
        from linter.report import json_

        return json_.render(fmt, findings, options)
    if fmt == "github":
        from linter.report import github

        return github.render(findings, options)
    if fmt == "sarif":
        from linter.report import sarif

        return sarif.render(findings, options)
    if fmt == "junit":
        from linter.report import junit

        return junit.render(findings, options)
    if fmt == "gitlab":
        from linter.report import gitlab

        return gitlab.render(findings, options)
    raise ValueError(fmt)
