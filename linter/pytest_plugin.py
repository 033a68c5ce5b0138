"""A pytest plugin (registered as `sparkcheck` through the `pytest11` entry point) for plan checks in tests.

    def test_report_plan(spark, sparkcheck_plan):
        df = build_report(spark)
        sparkcheck_plan.assert_clean(df)                      # every plan rule
        sparkcheck_plan.assert_clean(df, ignore=["SPK608"])
        assert [f.code for f in sparkcheck_plan.findings(df)] == []

The fixture is `linter.api` under a short name; it imports neither pyspark nor
anything heavy when a test does not use it.
"""

import pytest


class _PlanChecks:
    @staticmethod
    def findings(df, select=None, ignore=()):
        from linter.api import plan_findings

        return plan_findings(df, select, ignore)

    @staticmethod
    def assert_clean(df, select=None, ignore=()):
        from linter.api import assert_plan_clean

        __tracebackhide__ = True
        assert_plan_clean(df, select, ignore)


@pytest.fixture
def sparkcheck_plan():
    """Check a DataFrame's plan with sparkcheck's plan rules (SPK6xx)."""
    return _PlanChecks()
