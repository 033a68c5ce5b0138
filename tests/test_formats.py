"""Output formats: ruff's JSON shape, GitHub annotations, SARIF against the schema, JUnit, GitLab."""
import json
import os
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from conftest import FIXTURES, SHARED_DATA, write

JOB = (
    "from pyspark.sql import SparkSession\n"
    "spark = SparkSession.builder.getOrCreate()\n"
    "orders = spark.table('orders')\n"
    "rows = orders.collect()\n"
    "x = 1  # noqa: SPK101\n"
)


@pytest.fixture
def project(tmp_path):
    write(tmp_path / "jobs" / "daily.py", JOB)
    write(tmp_path / "sql" / "q.sql", "SELECT *\nFROM t;\n")
    return tmp_path


def test_full_has_code_frame_help_and_summary(project, run):
    r = run("check", "jobs", "--no-cache", cwd=project)
    assert "jobs/daily.py:4:15: SPK101 `orders.collect()`" in r.out
    assert "4 | rows = orders.collect()\n" in r.out
    assert "  |               ^^^^^^^^^ SPK101\n" in r.out
    assert "= help: bound it first" in r.out
    assert "jobs/daily.py:5:8: SPK002 [*] `noqa` directive: unused SPK101" in r.out
    assert r.out.endswith("Found 2 errors.\n[*] 1 fixable with the `--fix` option.\n")


def test_grouped(project, run):
    r = run("check", ".", "--no-cache", "--output-format", "grouped", cwd=project)
    assert "jobs/daily.py:\n  4:15 SPK101 " in r.out
    assert "sql/q.sql:\n  1:8 SPK501 " in r.out


def test_json_is_ruffs_shape(project, run):
    r = run("check", ".", "--no-cache", "--output-format", "json", cwd=project)
    data = json.loads(r.out)
    assert [d["code"] for d in data] == ["SPK101", "SPK002", "SPK501"]
    first = data[0]
    assert set(first) >= {"code", "name", "message", "severity", "filename", "location", "end_location",
                          "fix", "noqa_row", "url", "cell"}
    assert first["filename"] == os.path.join(str(project), "jobs", "daily.py")
    assert first["location"] == {"row": 4, "column": 15} and first["end_location"] == {"row": 4, "column": 24}
    assert first["fix"] is None and first["cell"] is None and first["noqa_row"] == 4
    fix = data[1]["fix"]
    assert fix["applicability"] == "safe" and fix["message"]
    assert fix["edits"] == [{"content": "", "location": {"row": 5, "column": 6}, "end_location": {"row": 5, "column": 22}}]
    lines = run("check", ".", "--no-cache", "--output-format", "json-lines", cwd=project).out.splitlines()
    assert [json.loads(l) for l in lines] == data


def test_machine_formats_print_only_their_document(project, run):
    for fmt in ("json", "json-lines", "sarif", "junit", "gitlab"):
        r = run("check", ".", "--no-cache", "--output-format", fmt, cwd=project)
        assert "Found" not in r.out and r.err == "", fmt


def test_github_annotations_escaped_and_relative(tmp_path, run):
    write(tmp_path / "we,ird:dir" / "a.py", "x = 1  # noqa: SPK101, SPK999\n")
    r = run("check", ".", "--no-cache", "--output-format", "github", cwd=tmp_path)
    line = r.out.splitlines()[0]
    assert line == (
        "::warning title=sparkcheck (SPK002),file=we%2Cird%3Adir/a.py,line=1,col=8,endLine=1,endColumn=30"
        "::`noqa` directive: unused SPK101; unknown code SPK999"
    )
    from linter.report.github import escape_data, escape_property

    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    # every finding is also in the log, past GitHub's 10 annotations a level
    assert "we,ird:dir/a.py:1:8: SPK002" in r.out


def test_github_annotation_for_notebook_points_at_json_line(run):
    r = run("check", os.path.join(FIXTURES, "notebooks", "orders_exploration.ipynb"), "--no-cache",
            "--output-format", "github", cwd=FIXTURES)
    ann = [l for l in r.out.splitlines() if l.startswith("::") and "SPK102" in l][0]
    raw = open(os.path.join(FIXTURES, "notebooks", "orders_exploration.ipynb")).read().split("\n")
    line = int(ann.split("line=")[1].split(",")[0])
    col = int(ann.split(",col=")[1].split(",")[0])
    end = int(ann.split("endColumn=")[1].split(":")[0])
    assert raw[line - 1][col - 1:end - 1] == "toPandas()"
    assert "::cell 3, line 2: `orders.toPandas()`" in ann


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_notebook_columns_in_the_json_line_count_escapes_as_written(tmp_path, run, ensure_ascii):
    cells = [
        ["from pyspark.sql import SparkSession\n", "spark = SparkSession.builder.getOrCreate()\n"],
        ['df = spark.table("orders")  # "é" \\ \t\n', "x = {'a': \"\\t\"}; rows = df.collect()"],
        'df2 = spark.table("t")\nlabel = "ü"; rows2 = df2.collect()\n',   # one string for the whole cell
    ]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None} for c in cells]}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=ensure_ascii), encoding="utf-8")
    raw = path.read_text(encoding="utf-8").split("\n")
    r = run("check", str(path), "--no-cache", "--select", "SPK101", "--output-format", "sarif", cwd=str(tmp_path))
    regions = [res["locations"][0]["physicalLocation"]["region"] for res in json.loads(r.out)["runs"][0]["results"]]
    assert len(regions) == 2
    for region in regions:
        text = raw[region["startLine"] - 1][region["startColumn"] - 1:region["endColumn"] - 1]
        assert text in ("collect()",), (region, raw[region["startLine"] - 1])


def test_a_notebook_line_split_over_two_json_strings_keeps_the_first_columns(tmp_path, run):
    source = ['from pyspark.sql import SparkSession\n', 'df = SparkSession.builder.getOrCreate().table("o")\n',
              "rows = ", "df.collect()\n"]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}]}
    path = tmp_path / "split.ipynb"
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    raw = path.read_text(encoding="utf-8").split("\n")
    r = run("check", str(path), "--no-cache", "--select", "SPK101", "--output-format", "github", cwd=str(tmp_path))
    ann = [l for l in r.out.splitlines() if l.startswith("::")][0]
    line = int(ann.split("line=")[1].split(",")[0])
    assert ",col=1,endLine=" in ann and "rows = " in raw[line - 1]  # the line's start: its JSON line, column 1


def test_sarif_is_valid_and_complete(project, run):
    with open(os.path.join(SHARED_DATA, "sarif-schema-2.1.0.json")) as f:
        schema = json.load(f)
    nb_dir = os.path.join(FIXTURES)
    for cwd, target in ((project, "."), (nb_dir, ".")):
        r = run("check", target, "--no-cache", "--output-format", "sarif", cwd=cwd)
        doc = json.loads(r.out)
        jsonschema.validate(doc, schema)
        run_ = doc["runs"][0]
        driver = run_["tool"]["driver"]
        assert driver["name"] == "sparkcheck" and driver["semanticVersion"]
        for rule in driver["rules"]:
            assert rule["id"] and rule["name"] and rule["shortDescription"]["text"]
            assert rule["fullDescription"]["text"] and rule["help"]["text"] and rule["help"]["markdown"]
            assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
        for result in run_["results"]:
            assert result["ruleId"] and result["level"] and result["message"]["text"]
            loc = result["locations"][0]["physicalLocation"]
            uri = loc["artifactLocation"]["uri"]
            assert not uri.startswith(("/", "./")) and "\\" not in uri
            region = loc["region"]
            assert region["startLine"] >= 1 and region["startColumn"] >= 1
            assert (region["endLine"], region["endColumn"]) > (region["startLine"], region["startColumn"])
            assert result["partialFingerprints"]["primaryLocationLineHash"]
        _no_empty_strings(doc)
    results = json.loads(run("check", ".", "--no-cache", "--output-format", "sarif", cwd=project).out)["runs"][0]["results"]
    first = results[0]["locations"][0]["physicalLocation"]
    assert first["artifactLocation"]["uri"] == "jobs/daily.py"
    assert first["region"] == {"startLine": 4, "startColumn": 15, "endLine": 4, "endColumn": 24}


def _no_empty_strings(value):
    if isinstance(value, str):
        assert value != ""
    elif isinstance(value, dict):
        for v in value.values():
            _no_empty_strings(v)
    elif isinstance(value, list):
        for v in value:
            _no_empty_strings(v)


def test_junit(project, run):
    r = run("check", ".", "--no-cache", "--output-format", "junit", cwd=project)
    root = ET.fromstring(r.out)
    assert root.tag == "testsuites" and root.get("failures") == "3"
    suites = {s.get("name"): s for s in root}
    assert set(suites) == {"jobs/daily.py", "sql/q.sql"}
    case = suites["sql/q.sql"][0]
    assert case.get("name") == "SPK501:select-star" and case.get("line") == "1"
    assert case[0].tag == "failure"
    clean = ET.fromstring(run("check", ".", "--no-cache", "--output-format", "junit", "--select", "SPK102", cwd=project).out)
    assert clean.get("failures") == "0"


def test_gitlab(project, run):
    data = json.loads(run("check", ".", "--no-cache", "--output-format", "gitlab", cwd=project).out)
    assert len(data) == 3
    for item in data:
        assert set(item) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert item["severity"] in ("info", "minor", "major", "critical", "blocker")
        assert item["location"]["positions"]["begin"]["line"] >= 1
    assert len({i["fingerprint"] for i in data}) == 3
    assert data[0]["location"]["path"] == "jobs/daily.py"


def test_notebook_findings_carry_their_cell(run):
    r = run("check", "notebooks", "--no-cache", "--output-format", "json", cwd=FIXTURES)
    data = json.loads(r.out)
    cells = {(os.path.basename(d["filename"]), d["cell"], d["location"]["row"], d["code"]) for d in data}
    assert ("orders_exploration.ipynb", 3, 2, "SPK102") in cells
    assert ("orders_exploration.ipynb", 4, 2, "SPK504") in cells
    assert ("legacy_report_v3.ipynb", 2, 2, "SPK101") in cells
    # Databricks source notebooks keep the file's own rows
    assert ("databricks_customers.py", None, 22, "SPK101") in cells
    r = run("check", "notebooks", "--no-cache", "--output-format", "concise", cwd=FIXTURES)
    assert "notebooks/orders_exploration.ipynb:cell 3:2:14: SPK102" in r.out
