"""The real pre-commit, installing this repository's hooks into a temporary git repository."""
import os
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, write

PRE_COMMIT = [sys.executable, "-m", "pre_commit"]


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"})


def test_hooks_file_follows_the_conventions():
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml")) as f:
        hooks = {h["id"]: h for h in yaml.safe_load(f)}
    assert set(hooks) == {"sparkcheck", "sparkcheck-fix"}
    for hook in hooks.values():
        assert hook["entry"].startswith("sparkcheck check --force-exclude")
        assert hook["language"] == "python" and hook["require_serial"] is True
        # CONVENTIONS' four, plus what the configuration checks read: spark-submit lines in shell and YAML,
        # Dataproc/Yandex cluster properties (identify tags `.properties` as java-properties), cluster definitions
        # in JSON and Terraform
        assert hook["types_or"] == ["python", "pyi", "jupyter", "sql", "shell", "yaml", "java-properties", "json",
                                    "terraform"]
        assert hook["minimum_pre_commit_version"] == "2.9.2"
        assert "args" not in hook
    assert "--fix" in hooks["sparkcheck-fix"]["entry"]


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory):
    """A committed copy of this repository, as pre-commit wants to clone it."""
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    repo = tmp_path_factory.mktemp("hookrepo")
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(os.path.join(ROOT, name), repo / name)
    for package in ("linter", "checks"):
        shutil.copytree(os.path.join(ROOT, package), repo / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "hooks")
    return repo


def _project(tmp_path):
    project = tmp_path / "project"
    write(project / "jobs" / "etl.py", "rows = spark.table('orders').collect()\n")
    write(project / "jobs" / "clean.py", "x = 1  # noqa: SPK101\n")
    write(project / "notes.txt", "not checked\n")
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    return project


def _try_repo(project, repo, hook, home):
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    return subprocess.run([*PRE_COMMIT, "try-repo", str(repo), hook, "--all-files", "--verbose"],
                          cwd=project, capture_output=True, text=True, env=env, timeout=900)


def test_pre_commit_runs_both_hooks(tmp_path, hook_repo, tmp_path_factory):
    home = tmp_path_factory.mktemp("pre-commit-home")
    project = _project(tmp_path)
    r = _try_repo(project, hook_repo, "sparkcheck", home)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "jobs/etl.py:1:30: SPK101" in r.stdout
    assert "jobs/clean.py:1:8: SPK002 [*]" in r.stdout
    assert open(project / "jobs" / "clean.py").read() == "x = 1  # noqa: SPK101\n"

    r = _try_repo(project, hook_repo, "sparkcheck-fix", home)
    assert r.returncode == 1, r.stdout + r.stderr  # files were modified, and SPK101 remains
    assert "files were modified by this hook" in r.stdout
    assert open(project / "jobs" / "clean.py").read() == "x = 1\n"


def test_hook_install_does_not_pull_pyspark():
    import tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    assert not [d for d in project["dependencies"] if "pyspark" in d.lower() or "py4j" in d.lower()]
    assert any("pyspark" in d for d in project["optional-dependencies"]["runtime"])
