from linter.registry import Invalid, ToolRule, Valid


class ParseError(ToolRule):
    """
    ## What it does
    Reports an input sparkcheck cannot read or parse: Python that is not valid
    Python 3 (a Python 2 file), a notebook that is not valid JSON or not a
    notebook, a file that is not valid UTF-8 (or the encoding it declares), a
    binary file, a file above `max-file-size`, a directory or file that cannot
    be read, and each SQL statement that does not parse. The finding points at
    the place of the error, and the run exits with code 1, never with a crash.
    Where the line that does not parse holds Scala (books and notebooks keep
    both languages side by side: `expr as "name"`, `val x = ...`, `$"col"`,
    `x => ...`, a long literal `5L`) or typographic quotes pasted from a
    document, the message says what to write in Python instead.

    Python files that mention no Spark (`spark`, `pyspark`, `sc`, a configured
    DataFrame function) are not parsed at all, so a syntax error in a file
    unrelated to Spark is left to the project's general linter. Of a file
    or notebook that does not parse, only its code counts: one whose only
    "spark" is in a string or a comment (a product named in a list) gets no
    finding. A Spark file
    that holds none of the words the enabled rules look for is read only by
    CPython's parser (fast, linear), and parsed with libcst for this finding
    when that parser refuses it.

    A file that would take libcst minutes (a generated condition of a
    thousand `&`-joined terms, a chain of hundreds of calls: over 200 operands
    or 100 chained calls, measured first with CPython's linear parser) is
    skipped with this finding at the chain, as is one whose check outlives the
    `time-budget` (seconds, default 120; `--time-budget 0` turns both off). The
    run, the pre-commit hook and the language server go on with the next file.

    ## Why is this bad?
    A file sparkcheck cannot read is a file it cannot check: every other rule is
    silent on it, so the problem is reported instead of skipped.

    ## Example
    ```python
    print "sample:", spark.table("orders").limit(5).collect()
    ```

    ## Use instead
    ```python
    print("sample:", spark.table("orders").limit(5).collect())
    ```

    ## Fix safety
    No fix.

    ## References
    - Spark 3.0 dropped Python 2 support.
    """

    code = "SPK001"
    name = "parse-error"
    summary = "the input cannot be read or parsed"
    default_reason = ("every other rule is silent on a file sparkcheck cannot read, so "
                      "reporting it is the only way a user learns that nothing in it was checked")
    severity = "error"

    invalid = (
        Invalid('rows = spark.table("t").collect(\n'),
        Invalid('print "rows:", spark.table("t").collect()\n'),
        Invalid("SELECT id FROM WHERE x = 1;\n", path="broken.sql"),
        Invalid('{"cells": [', path="broken.ipynb"),
    )
    valid = (
        Valid('print("rows:", spark.table("t").limit(5).collect())\n'),
        Valid("", path="empty.py"),
        Valid("SELECT 1;\n", path="ok.sql"),
        Valid('parts = ["spark plug", "wiper"]  # no Spark here: "spark" is in a string\nprint "parts:", parts\n'),
        Valid('{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, "source": '
              '["parts = [\\"spark\\", \\"plug\\"]"]}, {"cell_type": "code", "metadata": {}, "outputs": [], '
              '"execution_count": null, "source": ["bucket = <s3://BUCKET>"]}], "metadata": {}, "nbformat": 4, '
              '"nbformat_minor": 5}', path="parts.ipynb"),
    )
