"""The cache's pack file: one file per run, kept across partial runs, bounded, correct after every change."""
import json
import os
from concurrent import futures

import pytest
from conftest import write

from linter import cache as cache_module
from linter import runner
from linter.cache import Cache
from linter.config import Resolver
from linter.runner import check_files

JOB = "rows = spark.table('t').collect()\n"
CLEAN = "rows = spark.table('t').limit(5).collect()\n"


def _tree(tmp_path, n=3):
    # each file's own content: files with the same bytes share one entry
    return [write(tmp_path / "src" / f"job{i}.py", (JOB if i % 2 == 0 else CLEAN) + f"# {i}\n") for i in range(n)]


def _check(paths, cache_dir, cwd, jobs=1):
    return check_files([str(p) for p in paths], Resolver({}, cwd=str(cwd)), True, jobs, str(cache_dir))


def _pack(cache_dir):
    with open(os.path.join(cache_dir, cache_module.__version__, cache_module.PACK), encoding="utf-8") as f:
        return json.load(f)


def _files(cache_dir):
    return sorted(os.path.relpath(os.path.join(d, n), cache_dir) for d, _, names in os.walk(cache_dir) for n in names)


def _codes(result):
    return sorted((os.path.basename(f.filename), f.code) for f in result.findings)


def test_one_pack_file_per_run_and_a_warm_run_writes_nothing(tmp_path):
    paths = _tree(tmp_path, 4)
    cache_dir = tmp_path / "cache"
    first = _check(paths, cache_dir, tmp_path)
    assert first.cached == 0
    version = cache_module.__version__
    assert _files(cache_dir) == sorted([".gitignore", "CACHEDIR.TAG", os.path.join(version, "pack.json")])
    pack = _pack(cache_dir)
    assert pack["run"] == 1 and pack["largest"] == 4 and len(pack["entries"]) == 4
    stat = os.stat(cache_dir / version / "pack.json")
    warm = _check(paths, cache_dir, tmp_path)
    assert warm.cached == 4 and _codes(warm) == _codes(first) == [("job0.py", "SPK101"), ("job2.py", "SPK101")]
    assert os.stat(cache_dir / version / "pack.json").st_mtime_ns == stat.st_mtime_ns  # all hits: not rewritten


def test_same_findings_through_worker_processes(tmp_path, monkeypatch):
    # enough bytes for the process pool: the workers' findings come back as dicts and go into the pack here
    pools = []

    class Pool(futures.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            pools.append(kwargs.get("max_workers"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(futures, "ProcessPoolExecutor", Pool)
    pad = "a" * (runner.PARALLEL_MIN_BYTES // 8)
    paths = [write(tmp_path / f"big{i}.py", f"{JOB}PAD_{i} = '{pad}'\n") for i in range(runner.PARALLEL_MIN_FILES)]
    cache_dir = tmp_path / "cache"
    cold = _check(paths, cache_dir, tmp_path, jobs=2)
    assert cold.cached == 0 and len(cold.findings) == len(paths) and pools == [2]
    warm = _check(paths, cache_dir, tmp_path, jobs=2)
    assert warm.cached == 8 and [f.to_dict() for f in warm.findings] == [f.to_dict() for f in cold.findings]


def test_a_partial_run_keeps_the_other_files_entries(tmp_path):
    paths = _tree(tmp_path, 5)
    cache_dir = tmp_path / "cache"
    _check(paths, cache_dir, tmp_path)
    # a pre-commit run: one changed file
    write(paths[1], JOB)
    one = _check([paths[1]], cache_dir, tmp_path)
    assert one.cached == 0 and _codes(one) == [("job1.py", "SPK101")]
    assert len(_pack(cache_dir)["entries"]) == 6  # the five of the first run, and the new content
    again = _check(paths, cache_dir, tmp_path)
    assert again.cached == 5


def test_the_pack_is_bounded_least_recently_used_first(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_module, "MIN_ENTRIES", 4)
    paths = _tree(tmp_path, 2)  # largest run: 2 files, so the bound is max(4, 2 x 2) = 4 entries
    cache_dir = tmp_path / "cache"
    _check(paths, cache_dir, tmp_path)
    for i in range(4):  # each run edits job1: its old contents are never asked for again
        write(paths[1], CLEAN + f"x = {i}\n")
        _check(paths, cache_dir, tmp_path)
    pack = _pack(cache_dir)
    assert len(pack["entries"]) == 4
    stamps = sorted(entry[0] for entry in pack["entries"].values())
    assert stamps == [3, 4, 5, 5]  # the oldest contents of job1 went first; job0, used by every run, stayed
    assert _check(paths, cache_dir, tmp_path).cached == 2


def test_concurrent_runs_merge_their_entries(tmp_path):
    from linter.diagnostics import Finding, Location

    cache_dir = str(tmp_path / "cache")
    a, b = Cache(cache_dir), Cache(cache_dir)
    assert a.get("k0", "x.py") is None and b.get("k0", "x.py") is None  # both have read the (missing) pack
    finding = Finding("SPK101", "collect-without-limit", "m", "warning", "x.py", Location(1, 1), Location(1, 2))
    a.put("ka", [finding])
    b.put("kb", [])
    assert a.save(1) and b.save(1)
    merged = _pack(cache_dir)
    assert set(merged["entries"]) == {"ka", "kb"} and merged["run"] == 2
    fresh = Cache(cache_dir)
    assert [f.code for f in fresh.get("ka", "y.py")] == ["SPK101"] and fresh.get("ka", "y.py")[0].filename == "y.py"
    assert fresh.get("kb", "y.py") == []


def test_a_damaged_pack_is_an_empty_cache(tmp_path):
    paths = _tree(tmp_path, 2)
    cache_dir = tmp_path / "cache"
    _check(paths, cache_dir, tmp_path)
    pack = cache_dir / cache_module.__version__ / "pack.json"
    for damage in (b'{"format": 1, "entr', b"\x00\xff garbage", b'{"format": 1, "version": "0.1.0", "entries": []}'):
        pack.write_bytes(damage)
        result = _check(paths, cache_dir, tmp_path)
        assert result.cached == 0 and _codes(result) == [("job0.py", "SPK101")]
        assert len(_pack(cache_dir)["entries"]) == 2  # written anew
    # an entry whose findings do not read back is a miss, not an error
    data = _pack(cache_dir)
    for entry in data["entries"].values():
        entry[1] = '[{"code": 1}]'
    pack.write_text(json.dumps(data))
    assert _check(paths, cache_dir, tmp_path).cached == 0


def test_old_per_file_entries_are_not_read_and_are_removed(tmp_path):
    paths = _tree(tmp_path, 1)
    cache_dir = tmp_path / "cache"
    settings = Resolver({}, cwd=str(tmp_path)).for_path(paths[0])
    with open(paths[0], "rb") as f:
        key = Cache(str(cache_dir)).key(paths[0], f.read(), settings, settings.codes_for(paths[0]))
    # what an earlier release wrote: an entry saying the file is clean
    write(cache_dir / cache_module.__version__ / key[:2] / f"{key}.json", "[]")
    result = _check(paths, cache_dir, tmp_path)
    assert result.cached == 0 and _codes(result) == [("job0.py", "SPK101")]
    assert not (cache_dir / cache_module.__version__ / key[:2]).exists()


def test_another_version_neither_reads_nor_removes_the_pack(tmp_path):
    paths = _tree(tmp_path, 1)
    cache_dir = str(tmp_path / "cache")
    settings = Resolver({}, cwd=str(tmp_path)).for_path(paths[0])
    with open(paths[0], "rb") as f:
        data = f.read()
    codes = settings.codes_for(paths[0])
    old, new = Cache(cache_dir, "0.1.0"), Cache(cache_dir, "0.2.0")
    assert old.key(paths[0], data, settings, codes) != new.key(paths[0], data, settings, codes)
    old.put(old.key(paths[0], data, settings, codes), [])
    old.save(1)
    assert new.get(new.key(paths[0], data, settings, codes), paths[0]) is None
    # the other version's pack copied in place of this version's: its format names its version, so it is not used
    os.makedirs(new.dir)
    with open(old.path, "rb") as src, open(new.path, "wb") as dst:
        dst.write(src.read())
    assert Cache(cache_dir, "0.2.0").get(old.key(paths[0], data, settings, codes), paths[0]) is None
    new.put(new.key(paths[0], data, settings, codes), [])
    new.save(1)
    assert os.path.exists(old.path) and os.path.exists(new.path)


@pytest.mark.parametrize("config", [
    '[tool.sparkcheck]\nignore = ["SPK101"]\n',
    '[tool.sparkcheck.SPK101]\nmax-rows = 10\n',
])
def test_a_change_of_the_configuration_file_rechecks(tmp_path, run, config):
    job = write(tmp_path / "job.py", "rows = spark.table('t').limit(500).collect()\n" if "max-rows" in config else JOB)
    write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")
    cache_dir = tmp_path / "cache"
    before = run("check", job, "--cache-dir", cache_dir, "--output-format", "concise", cwd=tmp_path)
    write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n\n" + config)
    after = run("check", job, "--cache-dir", cache_dir, "--output-format", "concise", cwd=tmp_path)
    assert ("SPK101" in before.out) != ("SPK101" in after.out)
    write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")
    assert run("check", job, "--cache-dir", cache_dir, "--output-format", "concise", cwd=tmp_path).out == before.out


def test_the_cache_folder_from_the_environment(tmp_path, run, monkeypatch):
    job = write(tmp_path / "job.py", JOB)
    monkeypatch.setenv("SPARKCHECK_CACHE_DIR", str(tmp_path / "ci-cache"))
    assert run("check", job, cwd=tmp_path).code == 1
    assert os.path.isfile(tmp_path / "ci-cache" / cache_module.__version__ / "pack.json")
    assert not (tmp_path / ".sparkcheck_cache").exists()


def _action_steps():
    import yaml
    from conftest import ROOT

    with open(os.path.join(ROOT, "action.yml"), encoding="utf-8") as f:
        action = yaml.safe_load(f)
    return action, {step.get("name"): step for step in action["runs"]["steps"]}


def test_the_action_restores_and_saves_the_folder_sparkcheck_writes(tmp_path, monkeypatch):
    import subprocess
    import sys

    action, steps = _action_steps()
    assert action["inputs"]["cache"]["default"] == "true"
    names = list(steps)
    key_step, restore, save = steps["Cache key"], steps["Restore the sparkcheck cache"], steps["Save the sparkcheck cache"]
    assert restore["uses"].startswith("actions/cache/restore@") and save["uses"].startswith("actions/cache/save@")
    # restored before sparkcheck runs; saved after it, before the findings fail the job, and whatever they are
    assert names.index("Cache key") < names.index("Restore the sparkcheck cache") < names.index("Run sparkcheck") \
        < names.index("Save the sparkcheck cache") < names.index("Fail on findings")
    assert save["if"].startswith("always()")
    key = restore["with"]["key"]
    assert save["with"]["key"] == key and restore["with"]["path"] == save["with"]["path"]
    for config in ("pyproject.toml", "sparkcheck.toml"):
        assert f"'**/{config}'" in key
    assert "github.run_id" in key  # a saved cache cannot be updated: each run saves its own
    prefixes = restore["with"]["restore-keys"].strip().splitlines()
    assert prefixes and all(key.startswith(p) for p in prefixes) and "github.run_id" not in "".join(prefixes)

    # the key step's script, run as the runner would: the folder it names is where sparkcheck writes the pack
    env_file, out_file = tmp_path / "env", tmp_path / "out"
    runner_temp = tmp_path / "runner-temp"
    script = key_step["run"]
    env = {**os.environ, "RUNNER_OS": "Linux", "GITHUB_ENV": str(env_file), "GITHUB_OUTPUT": str(out_file),
           "CACHE_DIR": key_step["env"]["CACHE_DIR"].replace("${{ runner.temp }}", str(runner_temp)),
           "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    subprocess.run(["bash", "-e", "-c", script], env=env, check=True)
    outputs = dict(line.split("=", 1) for line in out_file.read_text().splitlines())
    exported = dict(line.split("=", 1) for line in env_file.read_text().splitlines())
    assert outputs["prefix"] == f"sparkcheck-Linux-{cache_module.__version__}-"
    assert restore["with"]["path"] == "${{ steps.cache-key.outputs.dir }}"
    assert exported == {"SPARKCHECK_CACHE_DIR": outputs["dir"]}
    job = write(tmp_path / "repo" / "job.py", JOB)
    monkeypatch.setenv("SPARKCHECK_CACHE_DIR", exported["SPARKCHECK_CACHE_DIR"])
    from linter.cli import main

    monkeypatch.chdir(tmp_path / "repo")
    assert main(["check", job, "--output-format", "concise"]) == 1
    assert os.path.isfile(os.path.join(outputs["dir"], cache_module.__version__, "pack.json"))
    assert not (tmp_path / "repo" / ".sparkcheck_cache").exists()


def test_runs_at_the_same_time_leave_a_sound_pack(tmp_path):
    import subprocess
    import sys

    from conftest import ROOT

    paths = _tree(tmp_path, 3)
    cache_dir = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": ROOT}
    env.pop("SPARKCHECK_NO_CACHE", None)
    procs = [subprocess.Popen([sys.executable, "-m", "linter", "check", p, "--cache-dir", str(cache_dir),
                               "--output-format", "concise"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE) for p in paths]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode in (0, 1) and not err
    pack = _pack(cache_dir)  # whole JSON: each writer replaced the file in one step
    assert 1 <= len(pack["entries"]) <= 3 and not [n for n in os.listdir(cache_dir / cache_module.__version__)
                                                    if n.endswith(".tmp")]
    fresh = Cache(str(cache_dir))
    for key in pack["entries"]:
        assert fresh.get(key, "x.py") is not None
    again = _check(paths, cache_dir, tmp_path)
    assert _codes(again) == _codes(check_files(paths, Resolver({}, cwd=str(tmp_path)), False, 1, None))


def test_the_compiled_sqlglot_only_where_it_has_wheels():
    # sqlglotc ships wheels for 3.11 and up: on 3.10 pip would build it with mypyc (bench/installs.py installs
    # into every interpreter pyenv has and compares the fixtures' findings)
    import tomllib
    from conftest import ROOT
    from packaging.requirements import Requirement

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    requirements = [Requirement(r) for r in project["dependencies"]]
    for python, extras in (("3.10", set()), ("3.11", {"c"}), ("3.13", {"c"})):
        env = {"python_version": python, "python_full_version": python + ".0"}
        chosen = [r for r in requirements if r.name == "sqlglot" and (r.marker is None or r.marker.evaluate(env))]
        assert len(chosen) == 1 and chosen[0].extras == extras, python
    assert project["requires-python"] == ">=3.10"
