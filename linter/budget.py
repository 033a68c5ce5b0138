"""A per-file time budget: no input stalls a run, the pre-commit hook or the language server.

libcst's parser is superlinear on long operator and method chains: a condition of
1,000 ``(F.col("c") > n)`` terms joined by ``&`` takes it seconds, 3,000 terms about
a minute; a chain of 300 ``.filter(...)`` calls a few seconds. Hand-written code
stays far below (the longest in ../shared/data/pyspark-corpus and pyspark's own
sources: 22 operands, 13 chained calls). Two guards, both on while ``time-budget``
(seconds, default 120; 0 turns both off) is set:

1. **Up front, before libcst** (``guard``): CPython's own parser, which is linear on
   the same input, measures the longest chain, and a file over ``MAX_OPERANDS``
   operands of one binary-operator chain or ``MAX_CALLS`` calls of one method chain
   is not parsed by libcst: it gets one SPK001 finding at the chain saying it was
   skipped and why. CPython's parse costs about a tenth of libcst's, so it only runs
   on files that a scan at C speed marks as possible (``_possible``: a line long
   enough and crowded with operators, or many lines in a row that start or end with
   `&`, `|`, `+` or a method's dot). On pyspark's sources and the shared corpus (19 MB)
   the scan marks one file, a test with a long builder chain; bench/cache.py prints
   what the guard costs. The command line, pre-commit and the server all check files
   through the engine, so all three get the same finding.
2. **A timer** (``deadline``), for what no sign foresees: a SIGALRM interval
   timer on the main thread, set around each file's check by the command line
   (pre-commit runs the command line); a file still being checked when it fires
   gets one SPK001 finding saying so, and the run goes on with the next file.
   Chosen over a worker process per file, which would cost a process start and a
   pickled result for every file to guard the rare one, and would lose the run's
   pool on each kill. Its limit: Python runs a signal handler only between
   bytecodes, so inside libcst's native parser the timer fires only once the parse
   returns (which is why the sign comes first). Where there is no SIGALRM
   (Windows) or the check is off the main thread (the language server's worker),
   only the sign applies. A file skipped by the timer is not cached: on a less
   loaded machine it may fit.
"""

from __future__ import annotations

import re
import signal
from contextlib import contextmanager
from typing import TYPE_CHECKING

from linter.sources import SourceError

if TYPE_CHECKING:
    import ast

# libcst on these machines: 200 `&` operands of `(F.col("c") > n)` about 0.1 s, 100 chained `.filter(...)`
# calls about 0.15 s; 1,000 operands about 6 s, 300 calls 2.5 to 10 s.
MAX_OPERANDS = 200
MAX_CALLS = 100

_OPERATORS = "-+*/%@&|^"
# A chain over the limits laid out on one line makes a line at least this long (two or three characters a link)
_LONG_LINE = 300
# ...or one laid out a term a line: lines that start with `&`, `|`, `+` or a method's dot, close together
# (not `-` or `*`, which start the items of lists in docstrings, nor the `...` of doctests, nor the
# `+---+` and `| id|` lines of the tables `df.show()` prints in docstrings),
_LEADING = re.compile(r"\n[ \t]*(?:[&|+](?![-+])(?![^\n]*\|[ \t]*\n)|\.[A-Za-z_])")
_SPAN = 400  # (characters a line allowed for, on average)
# ...or lines that end with one of those (after a space or a bracket: not the `---+` or `  1|` of a table)
_TRAILING = (" &\n", ") &\n", " |\n", ") |\n", " +\n", ") +\n")


class OverBudget(BaseException):
    """The time budget ran out (a BaseException: a rule's `except Exception` must not swallow it)."""


def enabled(settings) -> bool:
    return settings["time-budget"] > 0


def _possible(text: str) -> int | None:
    """Where the text could hold a chain over the limits, or None: then CPython's parser is not asked.

    Only C-level work on the whole text (a split into lines, counts, one regular expression anchored on line
    breaks): about a twentieth of CPython's parse of the same text, under 1% of libcst's.
    """
    if len(text) < 2 * MAX_CALLS:
        return None
    lines = text.split("\n")
    if max(map(len, lines)) >= _LONG_LINE:
        offset = 0
        for line in lines:
            if len(line) >= _LONG_LINE and not line.lstrip().startswith("#"):
                operators = sum(line.count(c) for c in _OPERATORS)
                if operators >= MAX_OPERANDS - 1 or line.count(").") + line.count("].") >= MAX_CALLS - 1:
                    return text.find(line, offset)
            offset += len(line) + 1
    leading = [m.start() + 1 for m in _LEADING.finditer(text)]
    count = MAX_CALLS - 1
    if len(leading) >= count:
        window = count * _SPAN
        at = next((a for a, b in zip(leading, leading[count - 1:]) if b - a <= window), None)
        if at is not None:
            return at
    if sum(text.count(t) for t in _TRAILING) >= MAX_OPERANDS - 1:
        return min(i for i in (text.find(t) for t in _TRAILING) if i >= 0)
    return None


def longest_chains(tree: ast.AST) -> tuple[tuple[int, ast.AST | None], tuple[int, ast.AST | None]]:
    """((operands, node) of the longest binary-operator chain, (calls, node) of the longest method chain).

    A chain is the left spine libcst nests: ``a & b & c`` is ``(a & b) & c``; ``df.f().g()`` is a call of
    an attribute of a call. ``ast.walk`` goes breadth first, so a node's parent is seen before it.
    """
    import ast

    above: dict[int, tuple[int, ast.AST]] = {}  # id(node) -> (operands or calls above it on its spine, the root)
    best_operands: tuple[int, ast.AST | None] = (0, None)
    best_calls: tuple[int, ast.AST | None] = (0, None)
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp):
            depth, root = above.pop(id(node), (0, node))
            depth += 1  # BinOps from the root down to this one; the deepest has two operands of its own
            if depth + 1 > best_operands[0]:
                best_operands = (depth + 1, root)
            if isinstance(node.left, ast.BinOp):
                above[id(node.left)] = (depth, root)
        elif isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
            n, root = above.pop(id(node), (0, node))
            n += isinstance(node, ast.Call)
            if n > best_calls[0]:
                best_calls = (n, root)
            child = node.func if isinstance(node, ast.Call) else node.value
            if isinstance(child, (ast.Call, ast.Attribute, ast.Subscript)):
                above[id(child)] = (n, root)
    return best_operands, best_calls


def guard(text: str, settings) -> None:
    """SourceError (SPK001: skipped, and why) for text whose chains would take libcst too long to parse."""
    if not enabled(settings):
        return
    at = _possible(text)
    if at is None:
        return
    import ast  # only for the few files the count marks: a one-file run of an ordinary file does without

    try:
        tree = ast.parse(text)
    except RecursionError:
        # CPython gives up on a chain of about a thousand operands or more: too long to run, and far too long
        # for libcst; the place is where the operators crowd
        row = text.count("\n", 0, at) + 1
        what = "an expression nested too deep for CPython's own parser (a chain of a thousand operands or more)"
        raise SourceError(_skipped(what), row, at - (text.rfind("\n", 0, at) + 1) + 1) from None
    except (SyntaxError, ValueError, MemoryError):
        return  # libcst reports what does not parse (and ../sources/python.py what nests too deep)
    (operands, op_node), (calls, call_node) = longest_chains(tree)
    if operands > MAX_OPERANDS:
        what, node = f"a chain of {operands:,} operands joined by binary operators (over {MAX_OPERANDS})", op_node
    elif calls > MAX_CALLS:
        what, node = f"a method chain of {calls:,} calls (over {MAX_CALLS})", call_node
    else:
        return
    row = getattr(node, "lineno", 1)
    column = _column(text, row, getattr(node, "col_offset", 0))
    raise SourceError(_skipped(what), row, column)


def _skipped(what: str) -> str:
    return (

        f"skipped: {what}: libcst's parser takes time growing faster than the chain (about a minute for 3,000 "
        f"operands), so the file was not checked; split the expression (e.g. functools.reduce over a list of "
        f"conditions) or exclude the file (`time-budget = 0` checks it however long it takes)")


def _column(text: str, row: int, byte_offset: int) -> int:
    """ast's column (a UTF-8 byte offset) as a 1-based column in characters."""
    start = 0
    for _ in range(row - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return 1
    line = text[start:text.find("\n", start) if text.find("\n", start) != -1 else len(text)]
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", "replace")) + 1


_OVER_BUDGET = "skipped: checking this file took longer than the time budget"


def over_budget(path: str, settings) -> list:
    """The finding of a file the timer stopped: one SPK001 where it is enabled."""
    from linter.engine import PARSE_ERROR, error_finding

    if PARSE_ERROR not in settings.codes_for(path):
        return []
    return [error_finding(path, f"{_OVER_BUDGET} ({settings['time-budget']:g} s), so the file was not checked; "
                                f"raise `time-budget` (or --time-budget) or exclude the file")]


def stopped(findings) -> bool:
    """Whether these findings (Finding objects or their dicts) are a file the timer stopped: not to be cached."""
    for f in findings:
        code, message = (f["code"], f["message"]) if isinstance(f, dict) else (f.code, f.message)
        if code == "SPK001" and message.startswith(_OVER_BUDGET):
            return True
    return False


@contextmanager
def deadline(seconds: float):
    """Raise OverBudget in the block after ``seconds`` (0: never); only where SIGALRM works, else no limit."""
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum, frame):
        raise OverBudget(seconds)

    try:
        previous = signal.signal(signal.SIGALRM, on_alarm)
    except ValueError:  # not the main thread: no timer there
        yield
        return
    import time

    started = time.monotonic()
    theirs, _ = signal.setitimer(signal.ITIMER_REAL, seconds)  # a program embedding the API may have its own
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if theirs > 0:  # put back what was left of it (at least a moment: it was due)
            signal.setitimer(signal.ITIMER_REAL, max(theirs - (time.monotonic() - started), 0.001))
