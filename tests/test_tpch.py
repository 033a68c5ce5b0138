"""The 22 TPC-H queries (../shared/data/tpch/queries): they parse in the Spark dialect and get
only the findings a reviewer agrees with.

TPC-H is written carefully: explicit column lists, joins with predicates, no
sentinel values, aggregates without collect_list. What the catalogue (preview
rules included) finds in it, and why a reviewer agrees:
- q16 `count(distinct ps_suppkey)`: SPK510 (preview) suggests approx_count_distinct where an estimate will do.
- q16 `ps_suppkey not in (select s_suppkey ...)`: SPK506; NOT EXISTS is the null-safe form, and NOT IN plans
  as a null-aware anti join.
- q22 `substring(c_phone, 1, 2) in (...)` (twice): SPK509; the filter cannot be pushed through substring.
Nothing else: no `select *` (q13's `count(*)` is not a projection star), no cross joins (comma joins all
carry their predicates), no implicit casts.
"""
import glob
import os

import pytest

from conftest import SHARED_DATA
from linter.sources.sql import parse_statements

QUERIES = sorted(glob.glob(os.path.join(SHARED_DATA, "tpch", "queries", "q*.sql")))
EXPECTED = {"q16.sql": ["SPK510", "SPK506"], "q22.sql": ["SPK509", "SPK509"]}


def test_all_22_queries_are_there():
    assert len(QUERIES) == 22


@pytest.mark.parametrize("path", QUERIES, ids=[os.path.basename(p) for p in QUERIES])
def test_query_parses_in_the_spark_dialect(path):
    with open(path, encoding="utf-8") as f:
        statements, errors = parse_statements(f.read(), "spark")
    assert statements and not errors


def test_findings_are_the_expected_ones(run):
    r = run("check", os.path.join(SHARED_DATA, "tpch", "queries"), "--no-cache", "--select", "ALL", "--preview",
            "--output-format", "concise")
    found = {}
    for line in r.out.splitlines():
        if ": SPK" in line:
            path, rest = line.split(":", 1)
            found.setdefault(os.path.basename(path), []).append(rest.split(": ", 1)[1].split()[0])
    assert found == EXPECTED, r.out
