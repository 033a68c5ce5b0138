"""Bad input: a clear one-line message (exit 2) or an SPK001 finding (exit 1), never a traceback."""
import os
import shutil
import time

import pytest

from conftest import ROOT, run_process, write

COLLECT = "rows = spark.table('orders').collect()\n"


def _spk001(r):
    assert r.code == 1, r
    assert "Traceback" not in r.err
    return [l for l in r.out.splitlines() if " SPK001 " in l]


def test_missing_path(tmp_path):
    r = run_process("check", tmp_path / "missing_dir")
    assert r.code == 2 and r.err == f"sparkcheck: error: {tmp_path / 'missing_dir'}: no such file or directory\n"


@pytest.mark.skipif(not shutil.which("setpriv"), reason="needs setpriv to drop root")
def test_directory_without_permission():
    import pathlib
    import tempfile

    # pytest's own tmp_path sits under a root-only directory: use a fresh one in /tmp.
    tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="sparkcheck-perm-"))
    os.chmod(tmp_path, 0o755)
    write(tmp_path / "ok" / "a.py", COLLECT)
    locked = tmp_path / "locked"
    write(locked / "b.py", COLLECT)
    os.chmod(locked, 0o000)
    try:
        user = 65534 if os.geteuid() == 0 else None  # root reads anything: run as nobody
        r = run_process("check", ".", "--no-cache", "--output-format", "concise", cwd=tmp_path, user=user)
    finally:
        os.chmod(locked, 0o755)
        shutil.rmtree(tmp_path)
    lines = _spk001(r)
    assert lines == ["locked:1:1: SPK001 cannot read directory: Permission denied"], r.out
    assert "ok/a.py:1:30: SPK101" in r.out


def test_symlink_loop_in_a_directory_is_one_finding_each_and_the_run_goes_on(tmp_path):
    write(tmp_path / "job.py", COLLECT)
    os.symlink("b.py", tmp_path / "a.py")
    os.symlink("a.py", tmp_path / "b.py")
    os.symlink("missing.py", tmp_path / "dangling.py")  # a dangling link is no file: passed over
    r = run_process("check", ".", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    assert sorted(_spk001(r)) == ["a.py:1:1: SPK001 cannot read file: Too many levels of symbolic links",
                                  "b.py:1:1: SPK001 cannot read file: Too many levels of symbolic links"], r.out
    assert "job.py:1:" in r.out and " SPK101 " in r.out


def test_binary_file(tmp_path):
    write(tmp_path / "blob.py", b"\x00\x01\x02collect" * 100, mode="wb")
    r = run_process("check", tmp_path / "blob.py", "--output-format", "concise", "--no-cache")
    assert _spk001(r) == [f"{tmp_path / 'blob.py'}:1:1: SPK001 binary file: contains NUL bytes, not text"]


def test_utf16_text_is_named_as_such(tmp_path):
    write(tmp_path / "report.sql", "SELECT * FROM t;\n".encode("utf-16"), mode="wb")
    r = run_process("check", tmp_path / "report.sql", "--output-format", "concise", "--no-cache")
    assert _spk001(r) == [f"{tmp_path / 'report.sql'}:1:1: SPK001 UTF-16 or UTF-32 text (a byte-order mark): "
                          "sparkcheck reads UTF-8, save the file as UTF-8"]


def test_invalid_utf8_points_at_the_byte(tmp_path):
    write(tmp_path / "latin.py", b"x = 1\ny = '\xe9t\xe9'\n" + COLLECT.encode(), mode="wb")
    r = run_process("check", tmp_path, "--output-format", "concise", "--no-cache")
    assert _spk001(r)[0].endswith("latin.py:2:6: SPK001 not valid utf-8: byte 0xe9 at line 2, column 6")


def test_declared_encoding_is_honoured(tmp_path):
    write(tmp_path / "latin.py", b"# -*- coding: latin-1 -*-\ny = '\xe9t\xe9'\n" + COLLECT.encode(), mode="wb")
    r = run_process("check", tmp_path, "--output-format", "concise", "--no-cache")
    assert r.code == 1 and "SPK101" in r.out and "SPK001" not in r.out


def test_empty_files(tmp_path):
    for name in ("empty.py", "empty.sql"):
        write(tmp_path / name, "")
    r = run_process("check", tmp_path, "--no-cache")
    assert r.code == 0 and r.out == "All checks passed!\n"
    write(tmp_path / "empty.ipynb", "")
    r = run_process("check", tmp_path, "--no-cache", "--output-format", "concise")
    assert _spk001(r)[0].endswith("empty.ipynb:1:1: SPK001 not a valid notebook: the file is empty")


def test_python2_file(tmp_path):
    write(tmp_path / "old.py", "print 'rows', sc.textFile('x').collect()\n")
    r = run_process("check", tmp_path, "--no-cache", "--output-format", "concise")
    [line] = _spk001(r)
    assert "old.py:1:" in line and "Python 2" in line


def test_large_generated_file(tmp_path):
    # About 10 MB of generated Python that mentions Spark: refused quickly by max-file-size.
    body = "".join(f"v{i} = spark.table('t{i}').limit(1).collect()\n" for i in range(250_000))
    write(tmp_path / "generated.py", body)
    assert os.path.getsize(tmp_path / "generated.py") > 10_000_000
    start = time.monotonic()
    r = run_process("check", tmp_path, "--no-cache", "--output-format", "concise")
    assert time.monotonic() - start < 30
    [line] = _spk001(r)
    assert "file too large to check: 12.2 MiB > max-file-size (5.0 MiB)" in line
    # A generated file that never mentions a rule's words is read, not parsed.
    write(tmp_path / "generated.py", "".join(f"CONST_{i} = {i}\n" for i in range(700_000)))
    r = run_process("check", tmp_path, "--no-cache", "--config", "max-file-size = 0")
    assert r.code == 0, r


def test_crlf_and_bom(tmp_path, run):
    write(tmp_path / "crlf.py", COLLECT.replace("\n", "\r\n") + "x = 1  # noqa: SPK101\r\n")
    write(tmp_path / "bom.py", "\ufeff" + COLLECT + "y = 2  # noqa: SPK101\n")
    r = run("check", tmp_path, "--no-cache", "--output-format", "concise")
    assert "bom.py:1:30: SPK101" in r.out and "crlf.py:1:30: SPK101" in r.out
    assert "crlf.py:2:8: SPK002" in r.out and "bom.py:2:8: SPK002" in r.out
    run("check", tmp_path, "--no-cache", "--fix")
    assert open(tmp_path / "crlf.py", "rb").read() == (COLLECT.replace("\n", "\r\n") + "x = 1\r\n").encode()
    assert open(tmp_path / "bom.py", "rb").read() == ("\ufeff" + COLLECT + "y = 2\n").encode("utf-8")


def test_invalid_notebooks(tmp_path):
    write(tmp_path / "bad.ipynb", '{"cells": [}')
    write(tmp_path / "list.ipynb", "[1, 2]")
    write(tmp_path / "v9.ipynb", '{"nbformat": 9, "cells": []}')
    r = run_process("check", tmp_path, "--no-cache", "--output-format", "concise")
    lines = sorted(_spk001(r))
    assert lines[0].endswith("bad.ipynb:1:12: SPK001 not a valid notebook: invalid JSON: Expecting value")
    assert lines[1].endswith("list.ipynb:1:1: SPK001 not a valid notebook: the top level is not a JSON object")
    assert lines[2].endswith("v9.ipynb:1:1: SPK001 not a valid notebook: unsupported nbformat 9")


def test_unknown_config_key(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.sparkcheck]\nselet = ['SPK1']\n")
    write(tmp_path / "a.py", COLLECT)
    r = run_process("check", ".", cwd=tmp_path)
    assert r.code == 2
    assert r.err == f"sparkcheck: error: {tmp_path / 'pyproject.toml'} [tool.sparkcheck]: unknown key `selet`\n"


def test_malformed_pyproject(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.sparkcheck\nselect = [\n")
    write(tmp_path / "a.py", COLLECT)
    r = run_process("check", ".", cwd=tmp_path)
    assert r.code == 2 and r.err.count("\n") == 1 and "invalid TOML" in r.err and "Traceback" not in r.err


def test_bad_option_values(tmp_path):
    write(tmp_path / "a.py", COLLECT)
    for config, words in (
        ("[tool.sparkcheck]\nselect = 'SPK1'\n", "must be a list of strings"),
        ("[tool.sparkcheck]\ntarget-spark = 'latest'\n", "must be a Spark version"),
        ("[tool.sparkcheck.SPK101]\nmax-rows = 'many'\n", "must be int"),
        ("[tool.sparkcheck.SPK101]\nmax-row = 5\n", "unknown option `max-row` for SPK101"),
        ("[tool.sparkcheck]\nignore = ['SPK123']\n", "unknown rule selector 'SPK123'"),
    ):
        write(tmp_path / "pyproject.toml", config)
        r = run_process("check", ".", cwd=tmp_path)
        assert r.code == 2 and r.err.count("\n") == 1 and words in r.err, (config, r.err)


def test_static_checker_does_not_import_pyspark(tmp_path):
    write(tmp_path / "a.py", "from pyspark.sql import SparkSession\n" + COLLECT)
    code = (
        "import sys; from linter.cli import main; main(['check', sys.argv[1], '--no-cache']);"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j')))"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "JAVA_HOME": "/nonexistent", "PATH": os.path.dirname(sys.executable)})
    assert out.stdout.strip().endswith("[]"), out


def test_pathological_nesting_is_a_finding_not_a_crash(tmp_path):
    # libcst's native parser overflows its stack on brackets nested thousands deep
    # (a segfault) and is quadratic on very long method chains; CPython refuses both.
    write(tmp_path / "parens.py", "rows = spark.table('t').collect()\nx = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    write(tmp_path / "chain.py", "z = spark.table('t')" + ".filter('a')" * 20000 + ".collect()\n")
    write(tmp_path / "long_ok.py", "z = spark.table('t')" + ".filter('a')" * 600 + ".collect()\n")
    # without the time budget, which skips chains this long before any parser sees them (tests/test_budget.py)
    # (the timeout guards against a hang, it is no timing: the 600-call chain takes libcst seconds, more when loaded)
    r = run_process("check", tmp_path, "--no-cache", "--output-format", "concise", "--time-budget", "0", timeout=300)
    lines = sorted(_spk001(r))
    assert lines[0].endswith("chain.py:1:1: SPK001 cannot parse Python: nesting too deep for Python itself")
    assert lines[1].endswith("parens.py:2:205: SPK001 cannot parse Python: too many nested parentheses")
    assert "long_ok.py:1:7222: SPK101" in r.out


def test_scala_in_a_python_file_is_named(tmp_path):
    # books and notebooks keep Scala beside Python: the finding says what the line is in PySpark
    cases = {
        "alias.py": ('df = spark.table("t")\ndf.select(F.col("a") as "b").show()\n', '`expr.alias("name")`'),
        "val.py": ('val df = spark.table("t")\ndf.show()\n', "`val x = ...` is Scala"),
        "long.py": ('rows = spark.range(10).sample(False, 0.5, 1L).collect()\n', "`1L` is a long literal of Scala or Python 2: in Python 3 write `1`"),
        "quotes.py": ('spark.read.format(\u201cdelta\u201d).load("/x").show()\n', "typographic quotes"),
        "dash.py": ('from registry.data-models.common import models\ndf = spark.table("t")\n',
                    "`registry.data-models.common` is no module name"),
    }
    for name, (text, _) in cases.items():
        write(tmp_path / name, text)
    r = run_process("check", tmp_path, "--no-cache", "--output-format", "concise")
    lines = _spk001(r)
    for name, (_, said) in cases.items():
        [line] = [x for x in lines if x.split(":")[0].endswith(name)]
        assert said in line, line


def test_a_spark_file_no_rule_looks_into_still_gets_its_parse_error(tmp_path):
    write(tmp_path / "quiet.py", "df = spark.range(10).sample(False, 0.5, 1L)\n")  # no rule's trigger word
    write(tmp_path / "fine.py", "df = spark.range(10).sample(False, 0.5, 1)\n")
    r = run_process("check", tmp_path, "--no-cache", "--output-format", "concise")
    [line] = _spk001(r)
    assert line.split(":")[0].endswith("quiet.py") and "`1L` is a long literal" in line, line


def test_a_missing_semicolon_between_sql_statements_is_named(tmp_path):
    write(tmp_path / "q.sql", "SELECT * FROM a\n-- the next query\nSELECT b FROM c;\n")
    write(tmp_path / "ok.sql", "SELECT a\nFROM t\nWHERE x = 1;\n")
    write(tmp_path / "bad.sql", "SELECT a FROM t WHERE;\n")
    r = run_process("check", tmp_path, "--no-cache", "--output-format", "concise")
    lines = _spk001(r)
    [line] = [x for x in lines if "q.sql" in x]
    assert ":3:1:" in line and "end the one before it with `;`" in line, line
    assert not [x for x in lines if "ok.sql" in x]
    [line] = [x for x in lines if "bad.sql" in x]
    assert "with `;`" not in line, line


def test_a_notebook_that_is_not_json_shows_its_own_line_in_the_code_frame(tmp_path, run):
    path = tmp_path / "broken.ipynb"
    path.write_text("{not json save\n")
    r = run("check", path, "--no-cache")
    assert r.code == 1 and "1 | {not json save" in r.out, r.out
