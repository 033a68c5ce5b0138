from linter.registry import Invalid, ToolRule, Valid

_ORDERS = 'rows = spark.table("orders").collect()'


class UnusedNoqa(ToolRule):
    """
    ## What it does
    Reports suppression comments that name sparkcheck codes (or rule names) but
    suppress nothing: `# noqa: SPK101` on a line without that finding, a code
    that does not exist, a code whose rule is not enabled, a `# sparkcheck: noqa:`
    file directive or a SQL `-- noqa: disable=` range that never applies.
    Codes of other tools in the same comment (`# noqa: E501, SPK101`) are left
    alone.

    A bare `# noqa` (no codes) is another linter's: it never silences sparkcheck,
    and a finding on such a line says how to suppress it.

    ## Why is this bad?
    A stale suppression hides the next real finding on that line, and an
    unknown code is usually a typo that suppresses nothing at all.

    ## Example
    ```python
    rows = spark.table("orders").limit(10).collect()  # noqa: SPK101
    ```

    ## Use instead
    ```python
    rows = spark.table("orders").limit(10).collect()
    ```

    ## Fix safety
    Safe: the fix removes only the unused codes, or the whole comment when
    nothing else is in it.

    ## References
    - ruff's RUF100 (unused-noqa); sqlfluff's `-- noqa` ranges.
    - ruff removes codes it does not know from `# noqa` comments unless
      `lint.external = ["SPK"]` is set in its configuration.
    """

    code = "SPK002"
    name = "unused-noqa"
    summary = "a `noqa` comment names sparkcheck codes that suppress nothing"
    default_reason = ("a stale suppression hides the next real finding on its line, and an unknown code "
                      "is usually a typo that suppresses nothing; other tools' codes are left alone")
    fix = "safe"

    invalid = (
        Invalid(
            'rows = spark.table("orders").limit(10).collect()  # noqa: SPK101\n',
            fixed='rows = spark.table("orders").limit(10).collect()\n',
        ),
        Invalid(
            _ORDERS + "  # noqa: SPK101, SPK999\n",
            fixed=_ORDERS + "  # noqa: SPK101\n",
        ),
        Invalid(
            "x = 1  # noqa: E501, collect-on-unbounded-dataframe\n",
            fixed="x = 1  # noqa: E501\n",
        ),
        Invalid("SELECT id FROM t; -- noqa: SPK501\n", path="q.sql", fixed="SELECT id FROM t;\n"),
        Invalid(
            "-- noqa: disable=SPK501\nSELECT id FROM t;\n-- noqa: enable=SPK501\n",
            path="q.sql",
            fixed="SELECT id FROM t;\n-- noqa: enable=SPK501\n",
        ),
    )
    valid = (
        Valid(_ORDERS + "  # noqa: SPK101\n"),
        Valid(_ORDERS + "  # noqa: collect-on-unbounded-dataframe\n"),
        Valid("# sparkcheck: noqa\n" + _ORDERS + "\n"),
        Valid("x = 1  # noqa: E501\n"),
        Valid("import os  # noqa\n"),
        Valid("SELECT * FROM t; -- noqa: SPK501\n", path="q.sql"),
        Valid("-- noqa: disable=SPK501\nSELECT * FROM t;\n-- noqa: enable=SPK501\n", path="q.sql"),
    )
