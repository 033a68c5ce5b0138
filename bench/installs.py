"""Install sparkcheck into every interpreter pyenv has, and check the fixtures give the same findings.

Run by hand (never in the test suite; it downloads from PyPI into throwaway venvs):

    .venv/bin/python bench/installs.py                 # every pyenv Python from 3.10 up
    .venv/bin/python bench/installs.py --cold          # pip without its download/wheel cache
    .venv/bin/python bench/installs.py --only 3.10     # one interpreter (a prefix of its version)

For each interpreter: a new venv, `pip install <the project>` (timed), then
`sparkcheck check fixtures --output-format json --no-cache --exit-zero` from the
project's root, compared with the same run on 3.11 (the project's reference, the
Python CI runs). It prints the install seconds, whether sqlglot runs compiled
(sqlglotc) and "identical" or the findings that differ.

The project is installed from a copy of its files (tracked and new, not ignored), so
that pip's build leaves nothing in the work tree.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYENV = os.path.expanduser(os.environ.get("PYENV_ROOT", "~/.pyenv"))
REFERENCE = "3.11"


def interpreters(only: str | None) -> list[tuple[str, str]]:
    """(version, python path) for each pyenv version 3.10 and up, oldest first."""
    folder = os.path.join(PYENV, "versions")
    out = []
    for name in os.listdir(folder) if os.path.isdir(folder) else ():
        parts = name.split(".")
        if len(parts) < 2 or not (parts[0].isdigit() and parts[1].isdigit()):
            continue
        if (int(parts[0]), int(parts[1])) < (3, 10):
            continue
        if only and not name.startswith(only):
            continue
        python = os.path.join(folder, name, "bin", "python")
        if os.path.exists(python):
            out.append((name, python))
    return sorted(out, key=lambda v: tuple(int(p) for p in v[0].split(".") if p.isdigit()))


def project_copy(dest: str) -> str:
    """The project's files (tracked, and new ones not ignored) copied to ``dest``."""
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = os.path.join(ROOT, rel)
        if not os.path.isfile(src):
            continue  # deleted in the work tree
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(src, target)
    return dest


def findings(sparkcheck: str) -> list[dict]:
    p = subprocess.run([sparkcheck, "check", "fixtures", "--output-format", "json", "--no-cache", "--exit-zero"],
                       check=False, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"sparkcheck exited {p.returncode}: {p.stderr.strip()[-500:]}")
    return json.loads(p.stdout)


def _key(f: dict) -> tuple:
    return (f["filename"], f["location"]["row"], f["location"]["column"], f["code"], f["message"])


def difference(got: list[dict], reference: list[dict]) -> list[str]:
    a, b = {_key(f) for f in got}, {_key(f) for f in reference}
    out = [f"  only here: {k[0]}:{k[1]}:{k[2]} {k[3]} {k[4][:80]}" for k in sorted(a - b)]
    out += [f"  only on {REFERENCE}: {k[0]}:{k[1]}:{k[2]} {k[3]} {k[4][:80]}" for k in sorted(b - a)]
    if not out and got != reference:  # the same findings, but something else differs (order, fixes, help)
        for x, y in zip(got, reference):
            if x != y:
                fields = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
                out.append(f"  {x['filename']}:{x['location']['row']} {x['code']}: differs in {', '.join(fields)}")
                break
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cold", action="store_true", help="pip install --no-cache-dir (downloads everything)")
    parser.add_argument("--only", help="only interpreters whose version starts with this (plus 3.11 to compare)")
    args = parser.parse_args()
    found = interpreters(None)
    chosen = [v for v in found if not args.only or v[0].startswith(args.only) or v[0].startswith(REFERENCE + ".")]
    if not any(v.startswith(REFERENCE + ".") for v, _ in chosen):
        sys.exit(f"bench: no Python {REFERENCE} under {PYENV}/versions to compare with")
    # the reference first, so each other interpreter is compared as soon as it has run
    chosen.sort(key=lambda v: not v[0].startswith(REFERENCE + "."))
    tmp = tempfile.mkdtemp(prefix="sparkcheck-installs-")
    results = {}
    try:
        source = project_copy(os.path.join(tmp, "src"))
        reference = None
        for version, python in chosen:
            venv = os.path.join(tmp, f"venv-{version}")
            subprocess.run([python, "-m", "venv", venv], check=True)
            pip = [os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--quiet",
                   "--disable-pip-version-check"] + (["--no-cache-dir"] if args.cold else [])
            start = time.perf_counter()
            p = subprocess.run([*pip, source], check=False, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            if p.returncode != 0:
                results[version] = f"install FAILED after {seconds:.1f} s: {p.stderr.strip().splitlines()[-1:]}"
                print(f"{version}: {results[version]}", flush=True)
                continue
            compiled = subprocess.run(
                [os.path.join(venv, "bin", "python"), "-c",
                 "import sqlglot, sqlglot.tokens as t; print(sqlglot.__version__, t.SQLGLOTC_INSTALLED)"],
                check=False, cwd=tmp, capture_output=True, text=True).stdout.split()
            try:
                got = findings(os.path.join(venv, "bin", "sparkcheck"))
            except (RuntimeError, ValueError) as exc:
                results[version] = f"install {seconds:.1f} s; check FAILED: {exc}"
                print(f"{version}: {results[version]}", flush=True)
                continue
            sql = f"sqlglot {compiled[0]} {'compiled (sqlglotc)' if compiled[1:] == ['True'] else 'pure Python'}" \
                if compiled else "sqlglot ?"
            if reference is None:
                reference = got
                verdict = f"reference ({len(got)} findings)"
            else:
                diff = difference(got, reference)
                verdict = "identical" if not diff else f"{len(diff)} difference(s)\n" + "\n".join(diff[:40])
            results[version] = f"install {seconds:.1f} s, {sql}: {verdict}"
            print(f"{version}: {results[version]}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nsparkcheck installs ({'pip cache off' if args.cold else 'pip cache on'}), fixtures compared with "
          f"{REFERENCE}:")
    for version, _ in sorted(chosen, key=lambda v: tuple(int(p) for p in v[0].split(".") if p.isdigit())):
        print(f"  {version}: {results.get(version, 'not run')}")


if __name__ == "__main__":
    main()
