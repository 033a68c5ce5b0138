"""``sparkcheck server``: the language server (LSP 3.17) over standard input and output.

It needs pygls and lsprotocol (``pip install "sparkcheck[server]"``); nothing
else in sparkcheck imports them, so ``sparkcheck check`` runs without them.
The server is in linter/server/protocol.py, the engine glue (no protocol) in
linter/server/analysis.py.
"""

from __future__ import annotations

import sys

INSTALL_HINT = 'install sparkcheck[server]: pip install "sparkcheck[server]"'


def main() -> int:
    try:
        import lsprotocol  # noqa: F401 - only whether they import
        import pygls  # noqa: F401
    except ImportError as exc:
        sys.stderr.write(f"sparkcheck: error: `sparkcheck server` needs {exc.name or 'pygls'}; {INSTALL_HINT}\n")
        return 2
    from linter.server.protocol import serve

    return serve()
