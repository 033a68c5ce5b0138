"""No finding may be lost to speed: cache and processes change nothing in the output."""
import json
import os
import shutil

from conftest import FIXTURES, write


def _copy_fixtures(tmp_path, copies=4):
    # Enough files and bytes to cross the thresholds where the process pool starts.
    root = tmp_path / "tree"
    for i in range(copies):
        shutil.copytree(FIXTURES, root / f"copy{i}")
    write(root / "big.py", "".join(f"v{i} = spark.table('t{i}').limit(1).collect()\n" for i in range(8000)))
    return root


def _report(run, root, *args):
    r = run("check", ".", "--output-format", "json", *args, cwd=root)
    data = json.loads(r.out)
    return r.code, data


def test_same_findings_with_and_without_cache_and_processes(tmp_path, run):
    root = _copy_fixtures(tmp_path)
    cache = tmp_path / "cache"
    base = _report(run, root, "--no-cache", "--jobs", "1")
    assert base[0] == 1 and len(base[1]) > 40
    assert _report(run, root, "--no-cache", "--jobs", "2") == base
    assert _report(run, root, "--cache-dir", cache, "--jobs", "2") == base  # cold, fills the cache
    assert any(cache.rglob("*.json"))
    assert _report(run, root, "--cache-dir", cache, "--jobs", "1") == base  # warm
    assert _report(run, root, "--cache-dir", cache, "--jobs", "2") == base


def test_cache_sees_changes_and_settings(tmp_path, run):
    path = write(tmp_path / "a.py", "rows = spark.table('t').collect()\n")
    cache = tmp_path / "c"
    assert run("check", path, "--cache-dir", cache).code == 1
    write(path, "rows = spark.table('t').limit(1).collect()\n")
    assert run("check", path, "--cache-dir", cache).code == 0
    write(path, "rows = spark.table('t').limit(500).collect()\n")
    assert run("check", path, "--cache-dir", cache).code == 0
    assert run("check", path, "--cache-dir", cache, "--config", "SPK101.max-rows = 10").code == 1
    assert run("check", path, "--cache-dir", cache, "--ignore", "SPK101", "--config", "SPK101.max-rows = 10").code == 0


def test_renamed_file_hits_cache_with_its_new_name(tmp_path, run):
    cache = tmp_path / "c"
    write(tmp_path / "a.py", "rows = spark.table('t').collect()\n")
    run("check", tmp_path / "a.py", "--cache-dir", cache)
    os.rename(tmp_path / "a.py", tmp_path / "b.py")
    r = run("check", tmp_path / "b.py", "--cache-dir", cache, "--output-format", "concise")
    assert "b.py:1:25: SPK101" in r.out
