"""The parse floor: what parsing alone costs on the benchmark corpus, before any rule runs.

Run by hand:  .venv/bin/python bench/parsers.py

Times, on one core, CPython's ``ast.parse`` and libcst's parse as sparkcheck
calls it (``linter.sources.python.parse``: nodes not re-validated, the garbage
collector tuned as in a check run) over every Python file of the installed
pyspark package.  Half of the libcst figure is the least a cold run on two
processes can take with libcst underneath, whatever the rules do: compare it
with a third of the fastest Python peer's time in bench/peers.py.
"""

from __future__ import annotations

import gc
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from run import pyspark_dir  # noqa: E402

from linter.runner import _gc_tuned  # noqa: E402
from linter.sources.python import parse  # noqa: E402


def main() -> None:
    texts = []
    for base, _, names in os.walk(pyspark_dir()):
        for name in sorted(names):
            if name.endswith((".py", ".pyi")):
                with open(os.path.join(base, name), encoding="utf-8") as f:
                    texts.append(f.read())
    lines = sum(t.count("\n") for t in texts)
    print(f"corpus: {len(texts)} files, {lines:,} lines (pyspark sources), one core, best of 2")

    def best(fn) -> float:
        times = []
        for _ in range(2):
            start = time.perf_counter()
            for text in texts:
                fn(text)
            times.append(time.perf_counter() - start)
        return min(times)

    import ast

    with _gc_tuned():
        ast_s = best(ast.parse)
        cst_s = best(parse)
    gc.collect()
    print(f"  ast.parse                 {ast_s:6.2f} s  {lines / ast_s:>9,.0f} lines/s")
    print(f"  libcst, as sparkcheck     {cst_s:6.2f} s  {lines / cst_s:>9,.0f} lines/s  ({cst_s / ast_s:.1f}x ast)")
    print(f"  libcst floor on 2 processes: {cst_s / 2:.2f} s of wall time before any rule runs")


if __name__ == "__main__":
    main()
