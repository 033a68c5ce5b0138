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


def test_a_plain_describe_is_still_parsed():
    statements, errors = parse_statements("DESCRIBE db.t")
    assert errors == [] and [s.expression.key for s in statements] == ["describe"]


def test_a_table_named_like_a_command_word_is_no_command():
    statements, errors = parse_statements("DESCRIBE history_table")
    assert errors == [] and [s.expression.key for s in statements] == ["describe"]


def test_a_real_mistake_is_still_an_error():
    statements, errors = parse_statements("SELECT id FROM t WHERE (a = 1")
    assert len(errors) == 1 and statements == []
