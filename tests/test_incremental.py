"""The language server's partial checks (linter/server/incremental.py): what an edit re-checks, and that the
answer is the whole file's on real code."""

from __future__ import annotations

import glob
import os
import re
import textwrap

import pytest

from linter.config import Resolver
from linter.server import incremental as inc
from linter.server.analysis import analyse, text_bytes
from linter.server.protocol import _same_items

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = sorted(glob.glob(os.path.join(ROOT, "fixtures", "python", "*.py"))
                  + glob.glob(os.path.join(ROOT, "fixtures", "notebooks", "*.py"))
                  + glob.glob(os.path.join(ROOT, "fixtures", "notebooks", "*.Notebook", "*.py")))
CHAIN_JOB = os.path.join(ROOT, "fixtures", "server", "store_sales_chain_job.py")


def whole(path: str, text: str):
    settings = Resolver({}, cwd=os.path.dirname(path)).for_path(path)
    return analyse(path, text_bytes(text), settings, "python")


def checked(path: str, text: str):
    settings = Resolver({}, cwd=os.path.dirname(path)).for_path(path)
    return inc.check(None, path, text, settings, "python")[1], settings


def planned(path: str, job: str, old: str, replacement: str, code: str | None = None):
    """Check ``job`` at ``path`` whole (``code`` among its findings), edit ``old`` into ``replacement``, and plan
    the partial check of the edit: (state, settings, the new text, the plan)."""
    state, settings = checked(path, job)
    if code is not None:
        assert code in {c for c, *_ in summary(state.items)}
    new = job.replace(old, replacement)
    plan = inc.plan(state, new)
    assert plan is not None, inc.last_reason
    return state, settings, new, plan


def summary(items) -> list:
    return [(i.finding.code, i.finding.location.row, i.finding.location.column) for i in items]


def helpers(n: int) -> str:
    """Unrelated module functions: a file long enough that an edit re-checks a small part of it."""
    return "\n".join(f"def helper_{i}(rows):\n    total = 0\n    for r in rows:\n        total += r * {i}\n"
                     f"    return total\n\n" for i in range(n))


JOB = textwrap.dedent('''\
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = SparkSession.builder.getOrCreate()


    def load_orders(day):
        return spark.read.parquet("s3://lake/orders").filter(F.col("day") == day)


    def summarise(orders):
        rows = orders.groupBy("customer_id").agg(F.sum("amount").alias("total")).collect()
        return rows


    class Report:
        def __init__(self, day):
            self.day = day
            self.orders = load_orders(day)

        def top(self):
            return self.orders.orderBy(F.desc("amount")).limit(10).collect()

        def everything(self):
            return self.orders.collect()


    ''') + helpers(40)


def test_chunks_are_top_level_statements_and_methods_with_scope_aware_names():
    chunks = inc.split(JOB)
    heads = [(c.text.split("\n")[0].strip(), c.parent is not None) for c in chunks][:9]
    assert heads == [
        ("from pyspark.sql import SparkSession", False), ("from pyspark.sql import functions as F", False),
        ("spark = SparkSession.builder.getOrCreate()", False), ("def load_orders(day):", False),
        ("def summarise(orders):", False), ("class Report:", False), ("def __init__(self, day):", True),
        ("def top(self):", True), ("def everything(self):", True)]
    by_head = {c.text.split("\n")[0].strip(): c for c in chunks}
    summarise = by_head["def summarise(orders):"]
    assert summarise.binds == {"summarise"} and "rows" not in summarise.uses and "orders" not in summarise.uses
    assert {"F"} <= summarise.uses
    init = by_head["def __init__(self, day):"]
    assert {"Report.orders", "Report.day", "Report.__init__"} <= init.binds and "load_orders" in init.uses
    assert "Report.orders" in by_head["def everything(self):"].uses
    assert by_head["spark = SparkSession.builder.getOrCreate()"].common  # setup: in every partial check
    assert by_head["from pyspark.sql import SparkSession"].common and not summarise.common


def test_a_global_statement_binds_the_module_name():
    chunks = inc.split("counter = 0\n\ndef bump():\n    global counter\n    counter += 1\n    local = 2\n")
    assert "counter" in chunks[1].binds and "local" not in chunks[1].binds


def test_a_static_method_called_through_its_class_is_kept_with_its_caller(tmp_path):
    """`Actions.count_failed(df, rule)` in a loop: the helper's count is the loop's action (SPK104), so an edit
    of the loop's method re-checks it with the helper's body in the partial file."""
    job = textwrap.dedent('''\
        from pyspark.sql import DataFrame
        from pyspark.sql import functions as F


        class Actions:
            def run(self, df: DataFrame, rules: list) -> list:
                results = []
                for rule in rules:
                    results.append(Actions.count_failed(df, rule))
                return results

            @staticmethod
            def count_failed(df: DataFrame, rule: str) -> int:
                return df.filter(F.expr(rule)).count()


        ''') + helpers(40)
    path = str(tmp_path / "actions.py")
    state, settings, new, plan = planned(path, job, "results = []", "results = []  # one count per rule", "SPK104")
    assert "def count_failed(df: DataFrame, rule: str) -> int:" in plan.text
    analysis, _ = inc.check(state, path, new, settings, "python")
    assert _same_items(analysis.items, whole(path, new).items)


def test_an_edit_rechecks_its_chunk_its_callers_and_keeps_the_rest(tmp_path):
    path = str(tmp_path / "report_job.py")
    state, settings = checked(path, JOB)
    assert state.exact and summary(state.items)
    new = JOB.replace('.alias("total")', '.alias("grand_total")')
    plan = inc.plan(state, new)
    assert plan is not None, inc.last_reason
    rechecked = {plan.chunks[i].text.split("\n")[0].strip() for i in plan.recheck}
    assert rechecked == {"def summarise(orders):"}
    kept = {plan.chunks[i].text.split("\n")[0].strip() for i in plan.keep}
    assert "def helper_3(rows):" not in kept and "from pyspark.sql import SparkSession" in kept
    lines = new.split("\n")  # the partial file: the kept rows, each with the row of the text it is
    assert plan.text.split("\n") == [lines[r] for r in plan.rows] and len(plan.rows) < len(lines) / 4
    analysis, after = inc.check(state, path, new, settings, "python")
    assert not after.exact
    assert _same_items(analysis.items, whole(path, new).items)


def test_a_class_s_blank_lines_between_methods_are_left_out_but_not_those_of_its_strings(tmp_path):
    """A long class: the partial file has its methods without the blank lines between them (libcst pays for
    each), but a class attribute's string keeps its blank lines, and the answer is the whole file's."""
    methods = "\n".join(f"    def total_{i}(self, rows):\n        total = 0\n        for r in rows:\n"
                        f"            total += r * {i}\n        return total\n" for i in range(40))
    job = textwrap.dedent('''\
        from pyspark.sql import DataFrame, SparkSession


        class Daily:
            QUERY = """
            SELECT customer_id, amount

            FROM orders
            """

            def __init__(self, spark: SparkSession):
                self.spark = spark

            def everything(self) -> list:
                orders: DataFrame = self.spark.sql(self.QUERY)

                return orders.collect()


        ''') + methods
    path = str(tmp_path / "daily.py")
    state, settings, new, plan = planned(path, job, "return orders.collect()", "return orders.collect()  # all of it",
                                         "SPK101")
    lines = new.split("\n")
    assert 'SELECT customer_id, amount\n\n    FROM orders' in plan.text  # the string's blank line stays
    assert "    def total_3(self, rows):" in lines and "def total_3" not in plan.text
    between = [r for r in plan.rows if not lines[r].strip()]  # blank rows kept: the string's, the method's
    assert [lines[r + 1].strip() for r in between] == ["FROM orders", "return orders.collect()  # all of it"]
    analysis, _ = inc.check(state, path, new, settings, "python")
    assert _same_items(analysis.items, whole(path, new).items)


def test_a_constructor_kept_for_context_keeps_only_what_the_checked_methods_read(tmp_path):
    """A constructor setting many attributes is context for an edit of a method reading two of them: the partial
    file keeps its assignments of those two (and the local one of them reads), not the others; its items are
    kept, and the answer is the whole file's."""
    others = "".join(f"        self.flag_{i}: bool = False\n" for i in range(30))
    job = textwrap.dedent('''\
        from pyspark.sql import DataFrame, SparkSession


        class Pipeline:
            def __init__(self, spark: SparkSession, path: str):
                """Where the orders are."""
                source = path.rstrip("/") + "/orders"
                self.orders: DataFrame = spark.read.parquet(source)
                self.limit = 10
        ''') + others + (
        "\n"
        "    def first_rows(self) -> list:\n"
        "        return self.orders.limit(self.limit).collect()\n"
        "\n"
        "    def everything(self) -> list:\n"
        "        return self.orders.collect()\n\n\n") + helpers(40)
    path = str(tmp_path / "pipeline.py")
    state, settings, new, plan = planned(path, job, "return self.orders.collect()",
                                         'return self.orders.select("id").collect()')
    init = next(i for i, c in enumerate(plan.chunks) if "def __init__" in c.text)
    assert init in plan.keep and init not in plan.recheck
    assert 'source = path.rstrip("/") + "/orders"' in plan.text and "self.orders: DataFrame" in plan.text
    assert '"""Where the orders are."""' in plan.text and "self.flag_" not in plan.text
    analysis, _ = inc.check(state, path, new, settings, "python")
    assert _same_items(analysis.items, whole(path, new).items)
    assert "SPK101" in {i.finding.code for i in analysis.items}


def test_items_below_an_edit_that_adds_rows_move_with_their_lines(tmp_path):
    path = str(tmp_path / "report_job.py")
    state, settings = checked(path, JOB)
    new = JOB.replace("    rows = orders.groupBy", "    # the totals per customer\n    # (one row each)\n"
                      "    rows = orders.groupBy")
    analysis, after = inc.check(state, path, new, settings, "python")
    full = whole(path, new)
    assert not after.exact and _same_items(analysis.items, full.items)
    collect = [i for i in analysis.items if i.finding.code == "SPK101" and "self.orders.collect" in
               new.split("\n")[i.finding.location.row - 1]]
    assert collect and collect[0].noqa_edit.start[0] == collect[0].finding.location.row - 1


def test_typing_through_a_syntax_error_stays_partial(tmp_path):
    """`orders.` does not parse (SPK001, the whole file); `orders.limit(5)` is planned from the last text that
    did, so typing on after the error is partial again."""
    path = str(tmp_path / "report_job.py")
    state, settings = checked(path, JOB)
    half = JOB.replace("return rows\n", "return rows.\n", 1)
    analysis, kept = inc.check(state, path, half, settings, "python")
    assert [i.finding.code for i in analysis.items] == ["SPK001"] and kept is state
    done = JOB.replace("return rows\n", "return rows[:5]\n", 1)
    assert inc.plan(kept, done) is not None, inc.last_reason
    analysis, after = inc.check(kept, path, done, settings, "python")
    assert not after.exact and _same_items(analysis.items, whole(path, done).items)


def test_edits_that_need_the_whole_file(tmp_path):
    path = str(tmp_path / "report_job.py")
    state, _ = checked(path, JOB)
    cases = {
        "import os\n" + JOB: "imports",
        JOB.replace("def top(self):", "def top(self)"): "do not parse",
        JOB.replace("class Report:", "class Report(object):"): "class",
        JOB.replace("rows = orders", "rows = orders  # noqa: SPK101\n    rows = orders", 1): "suppression",
        JOB.replace("def top(self):", "# MAGIC %sql\n    def top(self):"): "suppression",
    }
    for text, reason in cases.items():
        assert inc.plan(state, text) is None
        assert reason in inc.last_reason


def test_a_partial_answer_can_differ_and_says_it_is_not_exact(tmp_path):
    """A value followed through more renames than a partial check reads: why the server verifies."""
    with open(CHAIN_JOB, encoding="utf-8") as f:
        job = f.read()
    path = str(tmp_path / "store_sales_chain_job.py")
    state, settings = checked(path, job)
    assert [c for c, *_ in summary(state.items)] == ["SPK418"]
    new = job.replace("repartition(50)", "repartition(50)  # spread the stores")
    analysis, after = inc.check(state, path, new, settings, "python")
    assert not after.exact and summary(analysis.items) == []  # the join is four names on
    assert summary(whole(path, new).items) == [("SPK418", 12, 17)]


@pytest.mark.parametrize("path", FIXTURES, ids=[os.path.basename(p) for p in FIXTURES])
def test_partial_answers_on_the_fixture_jobs_are_the_whole_files(path):
    """Code rows spread over each fixture job, each edited one of three ways (a comment, a letter in a string,
    a longer name): wherever a partial check is made, its answer is the whole file's."""
    with open(path, encoding="utf-8") as f:
        text = f.read() + "\n\n" + helpers(60)
    state, settings = checked(path, text)
    lines = text.split("\n")
    own = len(lines) - 360
    rows = [r for r, line in enumerate(lines[:own]) if line.strip() and not line.lstrip().startswith("#")
            and "expect:" not in line]
    partial = 0
    for k, row in enumerate(rows[::max(1, len(rows) // 9)]):
        line = lines[row]
        quote = re.search(r"[\"'][a-z_]", line)
        name = re.search(r"\b([a-z_][a-z0-9_]{2,})\b(?=\s*=[^=])", line)
        if k % 3 == 1 and quote:
            edited = line[:quote.start() + 1] + "x" + line[quote.start() + 1:]
        elif k % 3 == 2 and name:
            edited = line[:name.end(1)] + "_v2" + line[name.end(1):]
        else:
            edited = line + "  # reviewed"
        new = "\n".join(lines[:row] + [edited] + lines[row + 1:])
        if inc.plan(state, new) is None:
            continue
        analysis, _ = inc.check(state, path, new, settings, "python")
        partial += 1
        assert _same_items(analysis.items, whole(path, new).items), (row + 1, edited)
    assert partial > 0 or not state.chunks  # a Python 2 cell: CPython cannot read the file, always whole


TWO_JOBS = textwrap.dedent('''\
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = SparkSession.builder.getOrCreate()

    # --- job one: the day's orders ---
    orders = spark.read.parquet("s3://lake/orders")
    orders = orders.dropDuplicates(["order_id"])
    print(orders.count())
    big = orders.filter(F.col("amount") > 100).collect()

    # --- job two: the refunds, the same names again ---
    from pyspark.sql import functions as F

    orders = spark.read.parquet("s3://lake/refunds").dropDuplicates(["refund_id"])
    print(orders.count())
    small = orders.filter(F.col("amount") < 10).collect()


    ''') + helpers(40)


def test_a_name_bound_afresh_cuts_the_link_to_its_earlier_binding(tmp_path, monkeypatch):
    """Two jobs one after another bind `orders`: an edit of the second job's reader re-checks the second
    binding and its readers, not the first job (its items are kept); the second copy of an import and the
    section comments are left out of the partial file. A binding that reads the name (`orders =
    orders.dropDuplicates(...)`) cuts nothing: an edit below it still reaches the binding above."""
    path = str(tmp_path / "two_jobs.py")
    state, settings, new, plan = planned(path, TWO_JOBS, '< 10).collect()', '< 20).collect()', "SPK109")
    assert 'spark.read.parquet("s3://lake/refunds")' in plan.text and "small = orders" in plan.text
    assert 's3://lake/orders"' not in plan.text and "big = orders" not in plan.text
    assert plan.text.count("import functions as F") == 1 and "# --- job" not in plan.text
    analysis, _ = inc.check(state, path, new, settings, "python")
    full = whole(path, new)
    assert _same_items(analysis.items, full.items)
    assert [r for c, r, _ in summary(full.items) if c == "SPK109"] == [10, 17]  # each job's own count
    monkeypatch.setattr(inc, "REBINDING_CUTS", False)  # every binding linked: the first job comes in too
    assert 's3://lake/orders"' in inc.plan(state, new).text
    monkeypatch.undo()
    state, settings, new, plan = planned(path, TWO_JOBS, '> 100).collect()', '> 200).collect()')
    assert 's3://lake/orders"' in plan.text and "dropDuplicates" in plan.text and "s3://lake/refunds" not in plan.text
    analysis, _ = inc.check(state, path, new, settings, "python")
    assert _same_items(analysis.items, whole(path, new).items)


def test_an_edit_of_one_assignment_in_a_long_constructor_rechecks_its_readers_only(tmp_path):
    """A constructor setting many attributes: an edit of one assignment re-checks that statement and the
    methods reading its attribute, not every method reading any attribute the constructor sets; the
    constructor's other statements keep their items (the collect in it is reported once, from the last
    answer), and the partial file keeps of them only what the checked method reads."""
    flags = "".join(f"        self.flag_{i}: bool = False\n" for i in range(30))
    job = textwrap.dedent('''\
        from pyspark.sql import DataFrame, SparkSession


        class Pipeline:
            def __init__(self, spark: SparkSession):
                """The frames of one run."""
                self.orders: DataFrame = spark.table("sales.orders")
                self.refunds: DataFrame = spark.table("sales.refunds")
                self.countries = spark.table("ref.countries").collect()
                self.limit = 10
        ''') + flags + (
        "\n"
        "    def first_rows(self) -> list:\n"
        "        return self.orders.limit(self.limit).collect()\n"
        "\n"
        "    def every_refund(self) -> list:\n"
        "        return self.refunds.collect()\n\n\n") + helpers(40)
    path = str(tmp_path / "pipeline.py")
    state, settings, new, plan = planned(path, job, "self.limit = 10", "self.limit = 20", "SPK101")
    assert plan.focus is not None and plan.focus.statements == {4}  # the fifth statement of the body
    rechecked = {plan.chunks[i].text.split("\n")[0].strip() for i in plan.recheck}
    assert rechecked == {"def __init__(self, spark: SparkSession):", "def first_rows(self) -> list:"}
    assert "self.orders: DataFrame" in plan.text and "self.limit = 20" in plan.text
    assert "self.countries" not in plan.text and "self.flag_" not in plan.text and "every_refund" not in plan.text
    analysis, _ = inc.check(state, path, new, settings, "python")
    full = whole(path, new)
    assert _same_items(analysis.items, full.items)
    assert [r for c, r, _ in summary(full.items) if c == "SPK101"] == [9, 46]  # the constructor's kept
    # a comment in it: only its statement's items are new (its reader is context: a use-count is reported there)
    state, settings, new, plan = planned(path, job, "self.limit = 10", "self.limit = 10  # rows")
    assert plan.focus is not None and plan.recheck == {plan.focus.chunk} and "self.flag_" not in plan.text
    analysis, _ = inc.check(state, path, new, settings, "python")
    assert _same_items(analysis.items, whole(path, new).items)
    # a comment line of its own above a statement: that statement's items at most are new
    state, settings, new, plan = planned(path, job, "        self.flag_0", "        # off\n        self.flag_0")
    assert plan.focus is not None and plan.focus.statements <= {5} and "self.countries" not in plan.text
    analysis, _ = inc.check(state, path, new, settings, "python")
    assert _same_items(analysis.items, whole(path, new).items) and (("SPK101", 9, 55) in summary(analysis.items))


def test_a_setup_function_and_a_table_s_other_writer_come_in_without_what_they_alone_read(tmp_path):
    """A `main` creating the session is setup, in every partial check: of its statements only the session's
    and what touches the checked chunks go into the partial file. The other writer of a table a checked
    function writes comes in as context, without the helper only it calls."""
    job = textwrap.dedent('''\
        from pyspark.sql import DataFrame, SparkSession
        from pyspark.sql import functions as F


        def cleaned(orders: DataFrame) -> DataFrame:
            return orders.dropDuplicates(["order_id"])


        def per_day(orders: DataFrame) -> DataFrame:
            return cleaned(orders).groupBy("day").agg(F.sum("amount").alias("amount"))


        def daily(orders: DataFrame) -> None:
            per_day(orders).write.mode("append").saveAsTable("mart.daily")


        def trimmed(orders: DataFrame) -> DataFrame:
            return orders.filter(F.col("amount") > 0)


        def backfill(orders: DataFrame) -> None:
            trimmed(orders).groupBy("day").count().write.mode("append").saveAsTable("mart.daily")


        def main() -> None:
            spark = SparkSession.builder.config("spark.sql.shuffle.partitions", "64").getOrCreate()
            orders = spark.read.parquet("s3://lake/orders")
            daily(orders)
            audit = spark.read.parquet("s3://lake/audit")
            audit.write.mode("overwrite").parquet("s3://lake/audit_copy")
            print(orders.count())


        ''') + helpers(40)
    path = str(tmp_path / "daily.py")
    state, settings, new, plan = planned(path, job, '["order_id"]', '["order_id", "day"]')
    rechecked = {plan.chunks[i].text.split("\n")[0] for i in plan.recheck}
    assert rechecked == {"def cleaned(orders: DataFrame) -> DataFrame:", "def per_day(orders: DataFrame) -> DataFrame:",
                         "def daily(orders: DataFrame) -> None:"}
    assert '.config("spark.sql.shuffle.partitions", "64")' in plan.text and "    daily(orders)" in plan.text
    assert 'orders = spark.read.parquet("s3://lake/orders")' in plan.text  # what the kept call reads
    assert "audit" not in plan.text
    assert "def backfill" in plan.text and "def trimmed" not in plan.text
    analysis, _ = inc.check(state, path, new, settings, "python")
    assert _same_items(analysis.items, whole(path, new).items)
