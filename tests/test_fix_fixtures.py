"""`--fix --unsafe-fixes` over the whole fixture corpus: everything still parses, and fixing again changes nothing."""
import shutil

from conftest import FIXTURES
from linter.sources import PYTHON, load_document
from linter.sources.python import parse


def test_fixing_every_fixture_is_stable(tmp_path, run):
    tree = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, tree)
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    everything = ["--select", "ALL,SPK408,SPK411", "--preview", "--no-cache"]
    first = run("check", tree, "--fix", "--unsafe-fixes", *everything)
    assert first.code == 1  # findings without fixes remain
    changed = [p for p, data in before.items() if p.read_bytes() != data]
    assert changed, "no fixture was fixed"
    for path in changed:
        doc = load_document(str(path), path.read_bytes())
        for unit in doc.units:
            if unit.kind == PYTHON:
                parse(unit.text)  # raises SourceError if a fix broke the file
    # The files that could not be parsed before are left exactly as they were.
    for bad in (tree / "bad_input").iterdir():
        assert bad.read_bytes() == before[bad]
    again = run("check", tree, "--diff", "--unsafe-fixes", *everything)
    assert again.out == "" and again.code == 0
    leftovers = [p for p in tree.rglob("*sparkcheck-tmp*")]
    assert not leftovers
