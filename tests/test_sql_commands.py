"""Delta Lake and Databricks statements that Spark runs and sqlglot's Spark dialect does not parse."""

import pytest

from linter.sources.sql import parse_statements


@pytest.mark.parametrize("text", [
    "DESCRIBE DETAIL db.t",
    "describe detail db.t2",
    "DESC DETAIL db.t",
    "DESCRIBE HISTORY db.t LIMIT 5",
    "CONVERT TO DELTA parquet.`/lake/events`",
    "RESTORE TABLE db.t TO VERSION AS OF 1",
    "RESTORE db.t TO TIMESTAMP AS OF '2024-01-01'",
    "FSCK REPAIR TABLE db.t",
    "GENERATE symlink_format_manifest FOR TABLE db.t",
])
def test_a_delta_command_is_kept_as_a_command(text):
    statements, errors = parse_statements(text + ";\nSELECT 1;")
    assert errors == []
    assert [s.expression.key for s in statements] == ["command", "select"]


@pytest.mark.parametrize("text", [
    "DESCRIBE db.t",                      # a plain DESCRIBE is still parsed
    "SELECT id FROM t WHERE (a = 1",      # and a real mistake is still one
])
def test_other_statements_are_parsed_as_before(text):
    statements, errors = parse_statements(text)
    if "DESCRIBE" in text:
        assert errors == [] and statements[0].expression.key == "describe"
    else:
        assert len(errors) == 1 and statements == []
