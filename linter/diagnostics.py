"""Findings, fixes and positions: the plain data every other part passes around.

Checks produce ``Diagnostic`` objects whose spans are character offsets into the
text that was analysed (a Python file, the concatenated code cells of a notebook,
one SQL unit).  The engine turns them into ``Finding`` objects: resolved 1-based
positions in the user's own file, plain data that can be cached, pickled between
processes and printed by any reporter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

SAFE = "safe"
UNSAFE = "unsafe"


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` of the analysed unit with ``content``."""

    start: int
    end: int
    content: str


@dataclass(frozen=True)
class NodeEdit:
    """Replace a libcst node's syntactic span with ``content``, or insert ``content``
    just before it (``before=True``); placed when positions are computed."""

    node: object
    content: str
    before: bool = False
    start_node: object = None  # the span starts at this node instead (a decorator)
    whole_lines: bool = False  # widen to whole lines when only blanks (and a comment) remain on them
    # ``content``'s lines after the first are indented from the line the span starts on (its leading blanks
    # put before each; in a tab-indented line each four leading spaces of ``content`` become a tab)
    from_start_line: bool = False


@dataclass(frozen=True)
class Fix:
    message: str
    edits: tuple[Edit, ...]
    applicability: str = SAFE


@dataclass
class Diagnostic:
    """What a check reports: offsets into the unit it read."""

    code: str
    message: str
    start: int
    end: int
    fix: Optional[Fix] = None
    help: Optional[str] = None


@dataclass(frozen=True)
class Location:
    row: int  # 1-based; inside the cell for notebooks
    column: int  # 1-based, in characters
    cell: Optional[int] = None  # 1-based among all cells of a notebook
    file_row: Optional[int] = None  # the row in the raw file when it differs (notebooks)
    file_column: Optional[int] = None  # 1-based, in characters: the column in that raw row (a notebook's JSON)


@dataclass(frozen=True)
class Related:
    """Another place of the same problem (a plan finding's node in the event log, when the finding is shown at
    the user's line; the other nodes of a group): SARIF `relatedLocations`, `related` in JSON."""

    filename: str
    location: Location
    end_location: Location
    message: str = ""

    def to_dict(self) -> dict:
        return {"filename": self.filename, "location": _loc_dict(self.location),
                "end_location": _loc_dict(self.end_location), "message": self.message}

    @classmethod
    def from_dict(cls, d: dict) -> "Related":
        return cls(d["filename"], Location(**d["location"]), Location(**d["end_location"]), d["message"])


@dataclass
class Finding:
    """A diagnostic placed in the user's file; what caches and reporters hold."""

    code: str
    name: str
    message: str
    severity: str
    filename: str
    location: Location
    end_location: Location
    fix: Optional[dict] = None  # {"applicability", "message", "edits": [...]}
    help: Optional[str] = None
    noqa_row: Optional[int] = None
    source_line: str = ""  # the text of the first reported line, for code frames
    context: list = field(default_factory=list)  # [(row, text)] around it
    related: list = field(default_factory=list)  # [Related]: the problem's other places (runtime findings)
    nodes: list = field(default_factory=list)  # ids of the plan nodes a plan finding is about

    def sort_key(self):
        loc = self.location
        return (self.filename, loc.cell or 0, loc.row, loc.column, self.code)

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "severity": self.severity,
            "filename": self.filename,
            "location": _loc_dict(self.location),
            "end_location": _loc_dict(self.end_location),
            "fix": self.fix,
            "help": self.help,
            "noqa_row": self.noqa_row,
            "source_line": self.source_line,
            "context": [list(c) for c in self.context],
            "related": [r.to_dict() for r in self.related],
            "nodes": list(self.nodes),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Finding":
        return cls(
            code=d["code"],
            name=d["name"],
            message=d["message"],
            severity=d["severity"],
            filename=d["filename"],
            location=Location(**d["location"]),
            end_location=Location(**d["end_location"]),
            fix=d["fix"],
            help=d["help"],
            noqa_row=d["noqa_row"],
            source_line=d["source_line"],
            context=[tuple(c) for c in d["context"]],
            related=[Related.from_dict(r) for r in d.get("related", ())],
            nodes=list(d.get("nodes", ())),
        )


def _loc_dict(loc: Location) -> dict:
    return {"row": loc.row, "column": loc.column, "cell": loc.cell, "file_row": loc.file_row,
            "file_column": loc.file_column}
