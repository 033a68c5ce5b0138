"""Which loop a rule's node is in: shared by the rules about work repeated per iteration."""

from __future__ import annotations

import libcst as cst


class LoopTracker:
    """Mixed into a PythonRule: ``self.loops`` is the stack of enclosing ``for``/``while`` loops.

    A function or lambda body pushes ``None``: code in a function defined inside a
    loop does not run per iteration of that loop.
    """

    def __init__(self, ctx):
        super().__init__(ctx)
        self.loops: list = []

    def _enter_loop(self, node) -> None:
        self.loops.append(node)

    def _leave_loop(self, node) -> None:
        self.loops.pop()

    visit_For = visit_While = _enter_loop
    leave_For = leave_While = _leave_loop

    def visit_FunctionDef(self, node) -> None:
        self.loops.append(None)

    def leave_FunctionDef(self, node) -> None:
        self.loops.pop()

    visit_Lambda = visit_FunctionDef
    leave_Lambda = leave_FunctionDef

    def repeated_loop(self):
        """The innermost loop whose body (or `while` test) holds the node being visited, else None."""
        if not self.loops or self.loops[-1] is None:
            return None
        loop = self.loops[-1]
        repeated = (loop.body,) if isinstance(loop, cst.For) else (loop.body, loop.test)
        return loop if any(a is r for a in self.ctx.ancestors for r in repeated) else None
