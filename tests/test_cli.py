"""The command line: exit codes, sub-commands, selection, fixes, stdin, output files."""
import json
import os
import re

from conftest import FIXTURES, run_process, write

BAD = 'from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\nrows = spark.table("orders").collect()\n'
GOOD = 'from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\nrows = spark.table("orders").limit(5).collect()\n'
UNUSED = 'x = 1  # noqa: SPK101\n'


def test_clean_directory_exits_0(tmp_path, run):
    write(tmp_path / "job.py", GOOD)
    r = run("check", tmp_path, "--no-cache")
    assert r.code == 0, r
    assert r.out == "All checks passed!\n"


def test_findings_exit_1_and_exit_zero(tmp_path, run):
    write(tmp_path / "job.py", BAD)
    r = run("check", tmp_path / "job.py", "--no-cache", "--output-format", "concise")
    assert r.code == 1
    assert "job.py:3:30: SPK101 " in r.out
    assert r.out.rstrip().endswith("Found 1 error.")
    assert run("check", tmp_path, "--no-cache", "--exit-zero").code == 0


def test_default_command_is_check_and_default_path_is_cwd(tmp_path, run):
    write(tmp_path / "job.py", BAD)
    assert run(tmp_path / "job.py", "--no-cache").code == 1
    assert run("check", "--no-cache", cwd=tmp_path).code == 1


def test_bad_flag_is_one_line_exit_2(run):
    r = run("check", "--no-such-flag")
    assert r.code == 2
    assert r.err.count("\n") == 1 and r.err.startswith("sparkcheck: error:")


def test_unknown_rule_in_select_is_one_line_exit_2(tmp_path, run):
    write(tmp_path / "job.py", BAD)
    for flag in ("--select", "--ignore", "--extend-select"):
        r = run("check", tmp_path, flag, "SPK999")
        assert r.code == 2, flag
        assert r.err.count("\n") == 1 and "SPK999" in r.err and "--" in r.err


def test_select_ignore_names_and_prefixes(tmp_path, run):
    write(tmp_path / "job.py", BAD + 'pdf = spark.table("orders").toPandas()\n')
    codes = lambda r: sorted(l.split()[1] for l in r.out.splitlines() if ": SPK" in l)
    assert codes(run("check", tmp_path, "--no-cache", "--output-format", "concise")) == ["SPK101", "SPK102"]
    r = run("check", tmp_path, "--no-cache", "--output-format", "concise", "--select", "topandas-on-unbounded-dataframe")
    assert codes(r) == ["SPK102"]
    r = run("check", tmp_path, "--no-cache", "--output-format", "concise", "--ignore", "SPK10")
    assert codes(r) == [] and r.code == 0
    r = run("check", tmp_path, "--no-cache", "--output-format", "concise", "--select", "SPK4", "--extend-select", "SPK101")
    assert codes(r) == ["SPK101"]


def test_missing_path_is_exit_2(tmp_path, run):
    r = run("check", tmp_path / "nope.py")
    assert r.code == 2 and r.err.count("\n") == 1 and "nope.py" in r.err


def test_rule_and_rules(run):
    r = run("rule", "SPK101")
    assert r.code == 0 and r.out.startswith("# collect-on-unbounded-dataframe (SPK101)")
    assert "## Why is this bad?" in r.out
    assert run("rule", "collect-list-aggregation").out.startswith("# collect-list-aggregation (SPK406)")
    data = json.loads(run("rule", "SPK102", "--output-format", "json").out)
    assert data["code"] == "SPK102" and data["options"]["max-rows"]["default"] == 1_000_000
    assert run("rule", "SPK999").code == 2
    listing = run("rules").out
    for code in ("SPK001", "SPK002", "SPK101", "SPK102", "SPK406", "SPK501"):
        assert code in listing
    rules = json.loads(run("rules", "--output-format", "json", "--preview").out)
    assert len(json.loads(run("rules", "--output-format", "json").out)) < len(rules)
    assert [r["code"] for r in rules] == sorted(r["code"] for r in rules)
    headers = re.findall(r"^# [a-z0-9-]+ \(SPK\d{3}\)$", run("rule", "--all").out, re.M)
    assert len(headers) == len(rules)


def test_version(run):
    import pytest

    with pytest.raises(SystemExit) as exc:
        run("--version")
    assert exc.value.code == 0


def test_statistics(tmp_path, run):
    write(tmp_path / "a.py", BAD + BAD.splitlines()[-1] + "\n" + UNUSED)
    r = run("check", tmp_path, "--no-cache", "--statistics")
    assert r.code == 1
    assert r.out.splitlines() == ["2\tSPK101\t    collect-on-unbounded-dataframe", "1\tSPK002\t[*] unused-noqa"]
    data = json.loads(run("check", tmp_path, "--no-cache", "--statistics", "--output-format", "json").out)
    # ruff's fields and order: most frequent first, and how many of each code a fix applies to
    assert data == [{"code": "SPK101", "name": "collect-on-unbounded-dataframe", "count": 2, "fixable": False,
                     "fixable_count": 0},
                    {"code": "SPK002", "name": "unused-noqa", "count": 1, "fixable": True, "fixable_count": 1}]


def test_output_file(tmp_path, run):
    write(tmp_path / "a.py", BAD)
    out = tmp_path / "reports" / "sparkcheck.json"
    r = run("check", tmp_path / "a.py", "--no-cache", "--output-format", "json", "-o", out)
    assert r.code == 1 and r.out == ""
    assert json.loads(out.read_text())[0]["code"] == "SPK101"


def test_fix_diff_fix_only_show_fixes(tmp_path, run):
    path = write(tmp_path / "a.py", BAD + UNUSED)
    r = run("check", path, "--no-cache", "--diff")
    assert r.code == 1 and "-x = 1  # noqa: SPK101\n+x = 1\n" in r.out
    assert open(path).read() == BAD + UNUSED, "--diff must not write"
    r = run("check", path, "--no-cache", "--fix", "--show-fixes", "--output-format", "full")
    assert r.code == 1  # SPK101 remains
    assert "Fixed 1 error:" in r.out and "1 \u00d7 SPK002 (unused-noqa)" in r.out
    assert "Found 2 errors (1 fixed, 1 remaining)." in r.out
    assert open(path).read() == BAD + "x = 1\n"
    path2 = write(tmp_path / "b.py", UNUSED)
    r = run("check", path2, "--no-cache", "--fix-only")
    assert r.code == 0 and r.out == "Fixed 1 error.\n"
    path3 = write(tmp_path / "c.py", UNUSED)
    assert run("check", path3, "--no-cache", "--fix", "--exit-non-zero-on-fix").code == 1
    assert open(path3).read() == "x = 1\n"
    path4 = write(tmp_path / "d.py", UNUSED)
    assert run("check", path4, "--no-cache", "--fix").code == 0


def test_unfixable_and_unsafe_fixes(tmp_path, run):
    path = write(tmp_path / "a.py", UNUSED)
    assert run("check", path, "--no-cache", "--fix", "--unfixable", "SPK002").code == 1
    assert open(path).read() == UNUSED
    write(tmp_path / "pyproject.toml", '[tool.sparkcheck]\nextend-unsafe-fixes = ["SPK002"]\n')
    r = run("check", path, "--no-cache", "--fix")
    assert r.code == 1 and open(path).read() == UNUSED
    assert "1 hidden fix can be enabled with the `--unsafe-fixes` option." in r.out
    r = run("check", path, "--no-cache", "--fix", "--unsafe-fixes")
    assert r.code == 0 and open(path).read() == "x = 1\n"


def test_stdin(run):
    r = run("check", "-", "--output-format", "concise", "--stdin-filename", "jobs/x.py", stdin=BAD)
    assert r.code == 1 and r.out.startswith("jobs/x.py:3:30: SPK101")
    r = run("check", "-", "--fix", stdin=UNUSED)
    assert r.out == "x = 1\n" and r.code == 0
    r = run("check", "-", "--stdin-filename", "q.sql", "--output-format", "concise", stdin="SELECT * FROM t\n")
    assert "q.sql:1:8: SPK501" in r.out


def test_add_noqa(tmp_path, run):
    path = write(tmp_path / "a.py", BAD.replace('.collect()', '.collect()  # noqa: E501'))
    sql = write(tmp_path / "q.sql", "SELECT *\nFROM t;\n")
    r = run("check", tmp_path, "--no-cache", "--add-noqa")
    assert r.code == 0 and "Added 2 noqa directives." in r.err
    assert open(path).read().endswith('.collect()  # noqa: E501, SPK101\n')
    assert open(sql).read() == "SELECT *  -- noqa: SPK501\nFROM t;\n"
    assert run("check", tmp_path, "--no-cache").code == 0


def test_add_noqa_of_sql_in_a_python_string_is_a_python_comment(tmp_path, run):
    # SPK501 is a SQL rule, but this line is Python: `-- noqa` there would not parse
    path = write(tmp_path / "job.py", "from pyspark.sql import SparkSession\n"
                 "spark = SparkSession.builder.getOrCreate()\n"
                 "rows = spark.sql('INSERT INTO archive SELECT * FROM orders')\n")
    r = run("check", path, "--no-cache", "--select", "SPK501", "--add-noqa")
    assert r.code == 0, r.out
    assert open(path).read().endswith("rows = spark.sql('INSERT INTO archive SELECT * FROM orders')  # noqa: SPK501\n")
    assert run("check", path, "--no-cache", "--select", "SPK501").code == 0


def test_no_traceback_on_internal_errors_of_bad_input(tmp_path):
    write(tmp_path / "a.py", "def f(:\n    spark.table('x').collect()\n")
    r = run_process("check", tmp_path, "--no-cache", "--output-format", "concise")
    assert r.code == 1 and "SPK001" in r.out and "Traceback" not in r.err


def test_fixtures_run_end_to_end():
    r = run_process("check", FIXTURES, "--no-cache", "--output-format", "concise")
    assert r.code == 1 and "Traceback" not in r.err
    assert "notebooks/orders_exploration.ipynb:cell 3:2:14: SPK102" in r.out.replace(os.sep, "/")


def test_advice_follows_target_spark(tmp_path, run):
    write(tmp_path / "a.py", "df = spark.table('t')\nif df.count() > 0:\n    pass\n")
    assert "use `df.isEmpty()`" in run("check", tmp_path, "--no-cache", "--target-spark", "3.5").out
    old = run("check", tmp_path, "--no-cache", "--target-spark", "3.2").out
    assert "len(df.head(1)) == 0" in old and "isEmpty()` needs Spark 3.3" in old


CLUSTER = "capacity-scheduler:yarn.scheduler.capacity.resource-calculator=" \
          "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator\n"
EMPTINESS = "df = spark.table('t')\nif df.count() > 0:\n    pass\n"


def test_unknown_suffix_on_the_command_line_is_skipped_with_one_line(tmp_path, run):
    write(tmp_path / "cluster.txt", CLUSTER)
    write(tmp_path / "job.py", GOOD)
    r = run("check", "cluster.txt", "job.py", "--no-cache", cwd=tmp_path)
    assert r.code == 0 and r.out == "All checks passed!\n" and "SPK001" not in r.out
    [line] = r.err.splitlines()
    assert line.startswith("sparkcheck: cluster.txt: skipped: .txt is not a file type sparkcheck reads (.py, ")
    assert "--extension txt:LANGUAGE" in line and "properties" in line
    write(tmp_path / "job.py", BAD)  # the exit code is the findings', whatever was skipped
    assert run("check", "cluster.txt", "job.py", "--no-cache", cwd=tmp_path).code == 1
    # Machine formats keep stdout theirs.
    r = run("check", "cluster.txt", "--no-cache", "--output-format", "json", cwd=tmp_path)
    assert r.code == 0 and json.loads(r.out) == [] and r.err.count("\n") == 1
    # Directories pick files by name: an unknown suffix there is passed over silently, and not read.
    r = run("check", ".", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    assert r.err == "" and "cluster.txt" not in r.out


def test_files_without_a_suffix_are_read_by_their_shebang(tmp_path, run):
    write(tmp_path / "bin" / "nightly", "#!/usr/bin/env python3\n" + BAD)
    write(tmp_path / "bin" / "submit", "#!/bin/bash\nspark-submit --master yarn-cluster job.py\n")
    write(tmp_path / "bin" / "NOTES", "rows = collect everything\n")
    r = run("check", "bin/nightly", "bin/submit", "bin/NOTES", "--no-cache", "--output-format", "concise", cwd=tmp_path)
    assert "bin/nightly:4:30: SPK101" in r.out and "bin/submit:2:23: SPK804" in r.out and "SPK001" not in r.out
    assert r.err == "sparkcheck: bin/NOTES: skipped: no suffix, and no #! line naming python or a shell; " \
                    "sparkcheck reads .py, .pyi, .ipynb, .sql, spark-defaults*.conf, .properties, .sh, .bash, .yml, " \
                    ".yaml, capacity-scheduler.xml, yarn-site.xml, .json, .tf, .tfvars\n"
    assert run("check", "bin", "--no-cache", cwd=tmp_path).code == 0  # discovery never opens them


def test_extension_maps_a_suffix_to_a_language(tmp_path, run):
    write(tmp_path / "conf" / "cluster.txt", CLUSTER)
    write(tmp_path / "jobs" / "report.spark", EMPTINESS)
    write(tmp_path / "sql" / "q.hql", "SELECT * FROM t\n")
    args = ("--no-cache", "--output-format", "concise")
    r = run("check", ".", *args, "--extension", "txt:properties", "--extension", "spark:python,HQL:sql", cwd=tmp_path)
    assert "conf/cluster.txt:1:64: SPK811" in r.out and "sql/q.hql:1:8: SPK501" in r.out
    assert "jobs/report.spark:2:" in r.out and r.err == ""
    # The same mapping in the configuration; the cache knows the language a file was read as.
    write(tmp_path / "pyproject.toml", '[tool.sparkcheck]\nextension = {txt = "properties", spark = "python"}\n')
    r = run("check", ".", "--output-format", "concise", cwd=tmp_path)
    assert "conf/cluster.txt:1:64: SPK811" in r.out and "jobs/report.spark:2:" in r.out and "q.hql" not in r.out
    r = run("check", ".", "--output-format", "concise", "--extension", "txt:sql", cwd=tmp_path)
    assert "SPK811" not in r.out and "conf/cluster.txt:1:24: SPK001 cannot parse SQL" in r.out  # not SQL
    # Fixes re-read the file as the same language.
    r = run("check", "jobs/report.spark", "--no-cache", "--fix", cwd=tmp_path)
    assert r.code == 0 and "isEmpty()" in open(tmp_path / "jobs" / "report.spark").read()


def test_bad_extension_values_are_one_line_exit_2(tmp_path, run):
    write(tmp_path / "a.py", GOOD)
    for flag in ("txt", "txt:cobol", ":python"):
        r = run("check", ".", "--extension", flag, cwd=tmp_path)
        assert r.code == 2 and r.err.count("\n") == 1 and r.err.startswith("sparkcheck: error: --extension"), flag
    write(tmp_path / "sparkcheck.toml", 'extension = {txt = "cobol"}\n')
    r = run("check", ".", cwd=tmp_path)
    assert r.code == 2 and r.err.count("\n") == 1 and "`extension.txt` must be one of python, pyi, ipynb" in r.err
    write(tmp_path / "sparkcheck.toml", 'extension = ["txt"]\n')
    r = run("check", ".", cwd=tmp_path)
    assert r.code == 2 and r.err.count("\n") == 1 and "`extension` must be a table" in r.err


def test_stdin_with_an_unknown_suffix(run):
    r = run("check", "-", "--stdin-filename", "cluster.txt", "--output-format", "concise", stdin=CLUSTER)
    assert r.code == 0 and r.out == "All checks passed!\n"
    assert r.err.startswith("sparkcheck: cluster.txt: skipped: .txt is not") and r.err.count("\n") == 1
    r = run("check", "-", "--stdin-filename", "cluster.txt", "--fix", stdin=CLUSTER)
    assert r.code == 0 and r.out == CLUSTER  # an editor's buffer comes back as it was
    r = run("check", "-", "--stdin-filename", "cluster.txt", "--extension", "txt:properties",
            "--output-format", "concise", stdin=CLUSTER)
    assert r.code == 1 and "cluster.txt:1:64: SPK811" in r.out and r.err == ""


def test_add_noqa_goes_where_a_comment_can(tmp_path, run):
    """A `\\` continuation takes its comment on the logical line's last line (ruff reads it there too); a
    spark-defaults.conf or .properties value would take the comment into the value: left, and said so."""
    job = write(tmp_path / "job.py", "from pyspark.sql import SparkSession\n"
                "spark = SparkSession.builder.getOrCreate()\n"
                "df = spark.read.format('csv') \\\n    .option('inferSchema', 'true') \\\n"
                "    .load('s3://x/y.csv')\n")
    shell = write(tmp_path / "run.sh", "spark-submit --master yarn \\\n  --conf spark.driver.maxResultSize=0 \\\n"
                  "  job.py\n")
    conf = write(tmp_path / "spark-defaults.conf", "spark.sql.adaptive.enabled false\n")
    before_conf = open(conf).read()
    r = run("check", tmp_path, "--no-cache", "--select", "SPK405,SPK801,SPK808", "--add-noqa")
    assert r.code == 0, r.err
    assert "Added 2 noqa directives." in r.err and "Left 1 finding" in r.err
    assert open(job).read().endswith("    .load('s3://x/y.csv')  # noqa: SPK405\n")
    assert open(shell).read() == ("spark-submit --master yarn \\\n  --conf spark.driver.maxResultSize=0 \\\n"
                                  "  job.py  # noqa: SPK808\n")
    assert open(conf).read() == before_conf
    compile(open(job).read(), "job.py", "exec")
    r = run("check", tmp_path, "--no-cache", "--select", "SPK002,SPK405,SPK801,SPK808", "--output-format", "concise")
    assert [line.split(": ")[1].split()[0] for line in r.out.splitlines() if ": SPK" in line] == ["SPK801"]


def test_stdin_as_editors_and_hooks_call_it(tmp_path, run):
    """ruff's conventions: `--stdin-filename` alone reads standard input; `--force-exclude` keeps an excluded
    path quiet; `-q` leaves the summary out, as for files."""
    write(tmp_path / "pyproject.toml", '[tool.sparkcheck]\nextend-exclude = ["legacy/"]\n')
    r = run("check", "--stdin-filename", "jobs/x.py", "--output-format", "concise", stdin=BAD, cwd=tmp_path)
    assert r.code == 1 and r.out.startswith("jobs/x.py:3:30: SPK101")
    r = run("check", "-", "--stdin-filename", "legacy/old.py", "--force-exclude", "--output-format", "concise",
            stdin=BAD, cwd=tmp_path)
    assert r.code == 0 and "SPK101" not in r.out
    r = run("check", "-", "--stdin-filename", "legacy/old.py", "--output-format", "concise", stdin=BAD, cwd=tmp_path)
    assert r.code == 1 and "SPK101" in r.out
    r = run("check", "-", "--stdin-filename", "jobs/x.py", "--output-format", "concise", "-q", stdin=BAD, cwd=tmp_path)
    assert r.code == 1 and "Found" not in r.out and r.out.startswith("jobs/x.py:3:30: SPK101")


def test_a_mistyped_command_is_named_and_an_unwritable_report_is_one_line(tmp_path, run):
    r = run("rulez", "SPK101", cwd=tmp_path)
    assert r.code == 2 and "did you mean `sparkcheck rule`?" in r.err
    write(tmp_path / "a.py", BAD)
    (tmp_path / "out").mkdir()
    r = run("check", "a.py", "--no-cache", "-o", "out", cwd=tmp_path)
    assert r.code == 2 and "cannot write the report to out" in r.err and "internal error" not in r.err


def test_fix_only_shows_its_fixes(tmp_path, run):
    path = write(tmp_path / "b.py", UNUSED)
    r = run("check", path, "--no-cache", "--fix-only", "--show-fixes")
    assert r.code == 0 and "Fixed 1 error:" in r.out and "1 \u00d7 SPK002 (unused-noqa)" in r.out


def test_add_noqa_after_a_continued_statement_that_opens_a_string(tmp_path, run):
    """The last line of a `\\`-continued statement may open a multi-line string: the comment goes after the
    string ends, never inside it (it would become SQL text)."""
    job = write(tmp_path / "job.py", "from pyspark.sql import SparkSession\n"
                "spark = SparkSession.builder.getOrCreate()\n"
                "df = spark.read.option('inferSchema', 'true') \\\n"
                "    .csv('s3://lake/events').filter(\"\"\"\n        amount > 1\"\"\")\n")
    r = run("check", job, "--no-cache", "--select", "SPK405", "--add-noqa")
    assert r.code == 0 and "Added 1 noqa directive." in r.err
    assert open(job).read().endswith('        amount > 1""")  # noqa: SPK405\n')
    assert run("check", job, "--no-cache", "--select", "SPK405,SPK002").code == 0


def test_the_extension_help_names_every_language():
    """The help text is written out (building the parser imports no source reader); it must not fall behind."""
    import subprocess
    import sys

    from linter.sources import LANGUAGES

    help_text = subprocess.run([sys.executable, "-m", "linter", "check", "--help"], capture_output=True, text=True)
    text = " ".join(help_text.stdout.split())
    listed = text.split("as LANGUAGE, e.g. txt:python (", 1)[1].split(")", 1)[0]
    assert [name.strip() for name in listed.split(",")] == list(LANGUAGES)
