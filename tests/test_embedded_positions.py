"""SQL inside Python literals: each SQL character maps back to its place in the source."""
import pytest

from linter.sources.embedded import decode


def check(source, expected_sql, template=None):
    start = source.index("=") + 2
    end = len(source.rstrip("\n"))
    emb = decode(source, start, end, template)
    assert emb is not None
    assert emb.text == expected_sql
    return emb, source


@pytest.mark.parametrize("source, sql", [
    ("q = 'SELECT a FROM t'\n", "SELECT a FROM t"),
    ('q = "SELECT a FROM t"\n', "SELECT a FROM t"),
    ("q = r'SELECT a\\d FROM t'\n", "SELECT a\\d FROM t"),
    ("q = u'SELECT a FROM t'\n", "SELECT a FROM t"),
    ('q = """SELECT a\nFROM t"""\n', "SELECT a\nFROM t"),
    ("q = '''SELECT a\n  FROM t'''\n", "SELECT a\n  FROM t"),
    ("q = 'SELECT \\'x\\' FROM t'\n", "SELECT 'x' FROM t"),
    ("q = 'SELECT a\\tb\\nFROM t'\n", "SELECT a\tb\nFROM t"),
    ("q = ('SELECT a '\n     'FROM t')\n", "SELECT a FROM t"),
    ("q = 'SELECT a ' \\\n    'FROM t'\n", "SELECT a FROM t"),
    ("q = 'SELECT a \\\nFROM t'\n", "SELECT a FROM t"),
    ("q = 'SELECT \\x41, \\u00e9 FROM t'\n", "SELECT A, \u00e9 FROM t"),
])
def test_every_string_form_maps_back(source, sql):
    emb, src = check(source, sql)
    for i, ch in enumerate(emb.text):
        if ch.isalpha() and ch.isascii() and ch not in "Ant" and src[emb.offsets[i]] != "\\":
            assert src[emb.offsets[i]] == ch, (i, ch)
    # "FROM" sits where the source has it
    k = emb.text.index("FROM")
    assert src[emb.offsets[k]:emb.offsets[k] + 4] == "FROM"


def test_fstring_fields_become_placeholders():
    emb, src = check("q = f'SELECT * FROM {table} WHERE id = {ids!r}'\n", "SELECT * FROM spk_param_0 WHERE id = spk_param_1")
    k = emb.text.index("spk_param_0")
    assert src[emb.offsets[k]] == "{"
    assert emb.source_span(k, k + 3) is None  # nothing reported on a placeholder
    w = emb.text.index("WHERE")
    assert src[slice(*emb.source_span(w, w + 5))] == "WHERE"


def test_format_and_percent_templates():
    emb, _ = check("q = 'SELECT {0} FROM {tbl} -- {{x}}'\n", "SELECT spk_param_0 FROM spk_param_1 -- {x}", "format")
    emb, _ = check("q = 'SELECT %s FROM t WHERE d = %(day)s AND p LIKE \"a%%\"'\n",
                   'SELECT spk_param_0 FROM t WHERE d = spk_param_1 AND p LIKE "a%"', "percent")


def test_bytes_are_not_sql():
    assert decode("q = b'SELECT 1'\n", 4, 15) is None
