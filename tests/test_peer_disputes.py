"""bench/peer_disputes.tsv: every disputed case names a real peer case, by an id that still holds it.

The disputes are read by bench/peers.py --examples (which needs the network); these checks read only the
static case list (bench/peer_cases.CASES) and the mapping, so a reordered case list or a renamed rule is
caught here rather than by a silently different benchmark.
"""

import os
import sys

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "bench"))

import peer_cases  # noqa: E402
import peers  # noqa: E402


def _cases_by_id() -> dict:
    return {f"c{i:04d}": {**case, "index": i} for i, case in enumerate(peer_cases.CASES, 1)}


def test_disputes_name_their_cases_by_a_current_id():
    rows = peers.load_disputes()
    assert rows, "bench/peer_disputes.tsv is empty or missing"
    cases = _cases_by_id()
    mapping = peers.load_mapping()
    seen = set()
    for row in rows:
        where = f"dispute {row['case']} ({row['peer']} {row['rule']})"
        assert row["case"] not in seen, f"{where} is listed twice"
        seen.add(row["case"])
        case = cases.get(row["case"])
        assert case is not None, f"{where}: no such case"
        assert (case["peer"], case["rule"], peers.case_where(case)) == (row["peer"], row["rule"], row["where"]), \
            f"{where}: the id now holds {case['peer']} {case['rule']} {peers.case_where(case)}"
        verdict, codes, _ = mapping[(row["peer"], row["rule"])]
        assert verdict in peers.IN_SCOPE, f"{where}: the peer rule is out of scope, its cases are not scored"
        assert row["code"] in codes, f"{where}: {row['code']} is not among the mapped codes {codes}"
        assert len(row["reason"].split()) >= 8, f"{where}: the reason says too little"


def test_a_dispute_follows_its_case_when_the_ids_move():
    cases = [{**case, "index": i} for i, case in enumerate(peer_cases.CASES, 1)]
    row = peers.load_disputes()[0]
    target = next(c for c in cases if f"c{c['index']:04d}" == row["case"])
    shifted = [{**c, "index": c["index"] + 1} for c in cases]  # a case added at the front
    applied, stale = peers.apply_disputes(shifted, [dict(row)])
    assert not stale and applied[0]["moved_from"] == row["case"]
    assert applied[0]["case"] == f"c{target['index'] + 1:04d}"
    applied, stale = peers.apply_disputes(cases, [{**row, "where": "nowhere"}])
    assert stale and not applied
