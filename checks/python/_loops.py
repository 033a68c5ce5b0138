"""Which loop a rule's node is in: shared by the rules about work repeated per iteration."""

from __future__ import annotations

import libcst as cst

from linter.sources.python import child_nodes, contains


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


def chain_root(node):
    """The Name at the bottom of ``a.b(...).c(...)``, or None."""
    while True:
        if isinstance(node, cst.Call):
            node = node.func
        elif isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        else:
            return node if isinstance(node, cst.Name) else None


def made_afresh_before(body, target: str, node) -> bool:
    """Whether a statement of a loop's own body (outside any branch) before the one holding ``node`` binds
    ``target`` to a value that does not mention it (`column_df = df.select(c)`, then `column_df =
    column_df.select(...)`): each round then starts from a fresh frame, and what it adds does not pile up. Not
    `df = self.normalize(df)`, `df = F.broadcast(df)`, nor an alias of a frame the round made from it
    (`tmp = acc.join(...)`, `acc = tmp`)."""
    derived = {target}  # names the round has bound to values made from `target`, so far
    for statement in getattr(body, "body", ()):
        if contains(statement, node):
            return False
        for small in getattr(statement, "body", ()) if isinstance(statement, cst.SimpleStatementLine) else ():
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)):
                continue
            name = small.targets[0].target.value
            mentions = _mentions_any(small.value, derived)
            if name == target and not mentions:
                return True
            if mentions:
                derived.add(name)
    return False


def _mentions_any(expression, names: set) -> bool:
    stack = [expression]
    while stack:
        current = stack.pop()
        if current.__class__ is cst.Name and current.value in names:
            return True
        if current.__class__ is not cst.Lambda:
            stack.extend(child_nodes(current))
    return False
