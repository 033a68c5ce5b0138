"""noqa comments in Python and SQL, file-level exemptions, ranges, unused suppressions."""
from conftest import write

COLLECT = "rows = spark.table('orders').collect()"


def concise(run, path, *extra):
    r = run("check", path, "--no-cache", "--output-format", "concise", *extra)
    return [l.split(": ", 1)[1] for l in r.out.splitlines() if ": SPK" in l]


def test_noqa_by_code_name_and_among_other_tools_codes(tmp_path, run):
    p = write(tmp_path / "a.py", "\n".join([
        COLLECT + "  # noqa: SPK101",
        COLLECT + "  # noqa: collect-on-unbounded-dataframe",
        COLLECT + "  # noqa:E501,SPK101",
        COLLECT + "  # NOQA: spk101",
        COLLECT + "  # noqa: SPK406",
    ]) + "\n")
    out = concise(run, p)
    assert out[0].startswith("SPK101") and len(out) == 2
    assert out[1] == "SPK002 [*] `noqa` directive: unused SPK406"


def test_bare_noqa_does_not_silence_sparkcheck(tmp_path, run):
    p = write(tmp_path / "a.py", COLLECT + "  # noqa\n")
    r = run("check", p, "--no-cache")
    assert r.code == 1
    assert "a bare `noqa` does not silence sparkcheck: write `noqa: SPK101`" in r.out


def test_file_level_exemptions(tmp_path, run):
    p = write(tmp_path / "a.py", "# sparkcheck: noqa\n" + COLLECT + "\n")
    assert run("check", p, "--no-cache").code == 0
    p = write(tmp_path / "b.py", "# sparkcheck: noqa: SPK102\n" + COLLECT + "\n")
    out = concise(run, p)
    assert [o.split()[0] for o in out] == ["SPK002", "SPK101"]
    assert out[0].endswith("unused SPK102")


def test_noqa_goes_on_the_line_where_the_finding_starts(tmp_path, run):
    # SPK101 starts at `.collect`: the comment belongs on that line.
    p = write(tmp_path / "a.py", "rows = (\n    spark.table('orders')\n    .collect()  # noqa: SPK101\n)\n")
    assert concise(run, p) == []
    p = write(tmp_path / "b.py", "rows = (  # noqa: SPK101\n    spark.table('orders')\n    .collect()\n)\n")
    assert [o.split()[0] for o in concise(run, p)] == ["SPK002", "SPK101"]


def test_sql_noqa_line_and_ranges(tmp_path, run):
    p = write(tmp_path / "q.sql", "\n".join([
        "SELECT * FROM a; -- noqa: SPK501",
        "SELECT * FROM b; -- noqa: select-star",
        "-- noqa: disable=SPK501",
        "SELECT * FROM c;",
        "SELECT * FROM d;",
        "-- noqa: enable=SPK501",
        "SELECT * FROM e;",
        "-- noqa: disable=all",
        "SELECT * FROM f;",
        "-- noqa: enable=all",
        "SELECT 'it''s -- noqa: SPK501' AS s, * FROM g;",
        "SELECT 1; -- noqa",
    ]) + "\n")
    r = run("check", p, "--no-cache", "--output-format", "concise")
    lines = [l.split(":")[1] + " " + l.split(": ", 1)[1].split()[0] for l in r.out.splitlines() if ": SPK" in l]
    assert lines == ["7 SPK501", "11 SPK501"]


def test_unused_sql_range_is_reported(tmp_path, run):
    p = write(tmp_path / "q.sql", "-- noqa: disable=SPK501\nSELECT a FROM t;\n-- noqa: enable=SPK501\n")
    assert concise(run, p) == ["SPK002 [*] `noqa` directive: unused SPK501"]


def test_noqa_inside_a_notebook_cell(tmp_path, run):
    import json

    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": [COLLECT + "  # noqa: SPK101\n", COLLECT]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    p = write(tmp_path / "n.ipynb", json.dumps(nb, indent=1, sort_keys=True) + "\n")
    r = run("check", p, "--no-cache", "--output-format", "concise")
    assert [l.split(":", 1)[1] for l in r.out.splitlines() if "SPK" in l][0].startswith("cell 1:2:30: SPK101")


def test_unknown_and_disabled_codes(tmp_path, run):
    p = write(tmp_path / "a.py", "x = 1  # noqa: SPK999\ny = 2  # noqa: SPK406\n")
    out = concise(run, p, "--ignore", "SPK406")
    assert out == ["SPK002 [*] `noqa` directive: unknown code SPK999", "SPK002 [*] `noqa` directive: SPK406 is not enabled"]
    assert concise(run, p, "--ignore", "SPK002") == []


def test_unused_noqa_in_a_file_without_findings(tmp_path, run):
    # Without findings the tokenizer runs only when some noqa may name a sparkcheck code:
    # other tools' codes and a bare noqa say nothing; a sparkcheck code that suppresses
    # nothing is reported, whether on a line or for the whole file; one inside a string is text.
    clean = "rows = spark.table('orders').limit(5).collect()"
    p = write(tmp_path / "others.py", "import os  # noqa: F401\n" + clean + "  # noqa\n")
    assert concise(run, p) == []
    p = write(tmp_path / "line.py", "import os  # noqa: F401\n" + clean + "  # noqa: E501, SPK101\n")
    assert concise(run, p) == ["SPK002 [*] `noqa` directive: unused SPK101"]
    p = write(tmp_path / "file.py", "# sparkcheck: noqa: collect-on-unbounded-dataframe\n" + clean + "\n")
    assert concise(run, p) == ["SPK002 [*] `noqa` directive: unused collect-on-unbounded-dataframe"]
    p = write(tmp_path / "text.py", 'HELP = "write # noqa: SPK101 after the call"\n' + clean + "\n")
    assert concise(run, p) == []


def test_a_bare_file_level_noqa_silences_its_line_directives_too(tmp_path, run):
    """`# sparkcheck: noqa` at the top silences the whole file: its line-level `noqa`s are not SPK002 findings
    (ruff's `# ruff: noqa` alike), while a file-level directive naming codes leaves SPK002 on."""
    p = write(tmp_path / "a.py", "# sparkcheck: noqa\n" + COLLECT + "  # noqa: SPK101\nx = 1  # noqa: SPK102\n")
    r = run("check", p, "--no-cache", "--output-format", "concise")
    assert r.code == 0 and "SPK" not in r.out
    p = write(tmp_path / "b.py", "# sparkcheck: noqa: SPK101\n" + COLLECT + "\nx = 1  # noqa: SPK102\n")
    r = run("check", p, "--no-cache", "--output-format", "concise")
    assert r.code == 1 and "SPK002" in r.out


def test_a_shell_comment_ending_in_a_backslash_continues_nothing(tmp_path, run):
    p = write(tmp_path / "run.sh", "spark-submit --conf spark.sql.adaptive.enabled=false job.py  # noqa: SPK801 \\\n"
              "echo done\n")
    r = run("check", p, "--no-cache", "--output-format", "concise")
    assert r.code == 0, r.out


def _sql_notebook(tmp_path, name, first_line):
    import json
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": [first_line, "df = spark.table('a')\n"]},
             {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": ["%%sql\n", "SELECT a.x FROM a, b\n"]}]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return write(tmp_path / name, json.dumps(nb, indent=1) + "\n")


def test_a_file_level_noqa_in_a_python_cell_speaks_for_the_notebooks_sql_cells(tmp_path, run):
    """A notebook's `%%sql` cells are units of their own; the file-level directive of its first cell silences
    them too (ruff's `# ruff: noqa` in one cell does so for the notebook), and is not SPK002's then."""
    plain = _sql_notebook(tmp_path, "plain.ipynb", "x = 1\n")
    assert [o.split()[0] for o in concise(run, plain, "--select", "SPK505,SPK002")] == ["SPK505"]
    for name, first in (("bare.ipynb", "# sparkcheck: noqa\n"), ("coded.ipynb", "# sparkcheck: noqa: SPK505\n")):
        p = _sql_notebook(tmp_path, name, first)
        assert concise(run, p, "--select", "SPK505,SPK002") == [], name
    other = _sql_notebook(tmp_path, "other.ipynb", "# sparkcheck: noqa: SPK101\n")
    assert [o.split()[0] for o in concise(run, other, "--select", "SPK505,SPK002")] == ["SPK002", "SPK505"]


def test_a_code_prefix_in_a_noqa_silences_nothing_and_says_so(tmp_path, run):
    """`# noqa: SPK1` reads as a family to its writer; directives name whole codes (ruff's alike), so it is an
    SPK002 finding whose fix keeps the other tools' codes, and the finding it meant to silence stays."""
    p = write(tmp_path / "a.py", COLLECT + "  # noqa: SPK1\nx = 1  # noqa: SPK10, E501\n")
    out = concise(run, p)
    assert [o.split()[0] for o in out] == ["SPK101", "SPK002", "SPK002"]
    assert out[1].endswith("SPK1 is not a code (name whole codes, such as SPK101)")
    assert run("check", p, "--no-cache", "--fix", "--select", "SPK002").code == 0
    assert (tmp_path / "a.py").read_text().splitlines()[1] == "x = 1  # noqa: E501"
    q = write(tmp_path / "q.sql", "SELECT * FROM a JOIN b ON a.id = b.id; -- noqa: SPK5\n")
    assert sorted(o.split()[0] for o in concise(run, q)) == ["SPK002", "SPK501"]


def test_words_after_the_codes_are_a_reason_not_codes_and_the_fix_keeps_them(tmp_path, run):
    collect = "spark.table('t').collect()"
    text = (f"import pyspark\nrows = {collect}  # noqa: SPK101 a lookup table of 12 rows\n"
            "x = 1  # noqa:SPK102  left from the old job\n"
            "y = 2  # noqa: SPK101,E501 long line kept\n")
    path = write(tmp_path / "job.py", text)
    r = run("check", path, "--no-cache", "--output-format", "concise")
    assert [l.split(": SPK", 1)[1][:3] for l in r.out.splitlines()[:-2]] == ["002", "002"], r.out  # line 2 used
    assert "lookup" not in r.out  # the reason is not read as codes
    assert run("check", path, "--no-cache", "--fix").code == 0
    assert open(path).read() == (f"import pyspark\nrows = {collect}  # noqa: SPK101 a lookup table of 12 rows\n"
                                 "x = 1  # left from the old job\ny = 2  # noqa: E501 long line kept\n")
    sql = write(tmp_path / "q.sql", "SELECT 1 -- noqa: SPK501 kept for the report\n")
    assert run("check", sql, "--no-cache", "--fix").code == 0
    assert open(sql).read() == "SELECT 1 -- kept for the report\n"


def test_a_reason_loses_only_the_punctuation_that_tied_it_to_the_codes(tmp_path, run):
    text = ("import pyspark\nx = 1  # noqa: SPK102, because the table is small\n"
            "y = 2  # noqa: SPK102 - small-table per review\n"
            "z = 3  # noqa: SPK102 v2 of the job\n"
            "w = 4  # noqa: SPK102 collect-on-unbounded-dataframe\n")
    path = write(tmp_path / "job.py", text)
    assert run("check", path, "--no-cache", "--fix").code == 0
    # a hyphenated word is a code only when it names a rule, a lower-case `v2` never
    assert open(path).read() == ("import pyspark\nx = 1  # because the table is small\n"
                                 "y = 2  # small-table per review\nz = 3  # v2 of the job\nw = 4\n")


def test_a_lower_case_code_in_a_comma_separated_list_is_a_code(tmp_path, run):
    path = write(tmp_path / "job.py", "import pyspark\nrows = spark.table('t').collect()  # noqa: e501,SPK101\n"
                 "more = spark.table('t').collect()  # noqa: SPK101, e501\n")
    assert run("check", path, "--no-cache", "--select", "SPK101,SPK002").code == 0
