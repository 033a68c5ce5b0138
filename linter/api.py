"""A small Python API: check a DataFrame's plan from a test or a notebook.

    from linter.api import assert_plan_clean, plan_findings

    def test_daily_report_plan(spark):
        df = build_daily_report(spark)
        assert_plan_clean(df)                       # every plan rule (SPK6xx)
        assert_plan_clean(df, ignore=["SPK608"])    # all but codegen breaks
        findings = plan_findings(df, select=["SPK604"])

The plan is `df.explain(mode="cost")`: the physical plan plus the optimizer's
size estimates, so broadcastable joins are found before the query runs. The
plan of a query that already ran (an AQE final plan) is read the same way.
Settings come from the project's configuration (pyproject.toml or
sparkcheck.toml above the working directory), narrowed by `select`/`ignore`.
Importing this module does not import pyspark.
"""

from __future__ import annotations

import contextlib
import io
import os
from typing import Iterable, Optional

from linter.diagnostics import Finding


def explain_text(df, mode: str = "cost") -> str:
    """What `df.explain(mode)` prints (classic and Spark Connect DataFrames)."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        df.explain(mode=mode)
    return buffer.getvalue()


def plan_findings(df, select: Optional[Iterable[str]] = None, ignore: Iterable[str] = (),
                  name: str = "<dataframe>") -> list[Finding]:
    """The plan rules' findings on a DataFrame's plan (or on explain text given as a string)."""
    from linter.config import Resolver
    from linter.runtime.plans import check_plan_text

    text = df if isinstance(df, str) else explain_text(df)
    overrides: dict = {"select": list(select) if select is not None else ["SPK6"]}
    if ignore:
        overrides["extend-ignore"] = list(ignore)
    settings = Resolver(overrides).for_path(os.path.join(os.getcwd(), "plan.txt"))
    return check_plan_text(name, text, settings)


def assert_plan_clean(df, select: Optional[Iterable[str]] = None, ignore: Iterable[str] = ()) -> None:
    """Fail with every finding listed when the DataFrame's plan has any."""
    findings = plan_findings(df, select, ignore)
    if findings:
        lines = "\n".join(f"  {f.code} {f.name}: {f.message}\n      {f.source_line.strip()}" for f in findings)
        raise AssertionError(f"sparkcheck found {len(findings)} problem(s) in the plan:\n{lines}")
