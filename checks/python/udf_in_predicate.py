import re

import libcst as cst

from checks.python import _determinism_and_joins as lineage
from checks.python._determinism_and_joins import join_condition
from checks.python._udf import site_for_call
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import FUNCTION, UDF, dotted_name, literal_string, method_name, positional_args
from linter.sources.python import source_child_nodes

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "from pyspark.sql.functions import udf\nspark = SparkSession.builder.getOrCreate()\n"
    "events = spark.read.parquet('s3://lake/events/')\nusers = spark.table('users')\n"
    "@udf('boolean')\ndef is_bot(agent):\n    return agent is not None and 'bot' in agent.lower()\n\n"
)


# decorators that return a function still (their result is as callable as what they wrap)
_KEEPS_FUNCTION = frozenset(("lru_cache", "cache", "wraps", "staticmethod"))


class UdfInPredicate(PythonRule):
    """
    ## What it does
    Finds a Python UDF of this file (a function decorated with `@udf` /
    `@pandas_udf`, a name bound to `udf(...)`, or a name registered with
    `spark.udf.register("name", ...)` and called in SQL text) inside the
    condition of `filter` / `where`, or inside a join condition; also a
    `filter` on a column an earlier `withColumn` of the same lineage computed
    with such a UDF (`df.withColumn("n", norm("s")).filter(F.col("n") == "x")`).
    A plain Python function given to a DataFrame's `filter` / `where` (a
    lambda, or a function of the file: `df.filter(lambda row: row.ok)`) is
    reported too: a DataFrame's `filter` takes a Column or a SQL string and
    raises a `TypeError` on a function, which only an RDD's `filter` takes.

    ## Why is this bad?
    Catalyst cannot see into Python: a predicate on a UDF is not pushed to
    the data source (no Parquet row-group skipping, no partition pruning, no
    JDBC `WHERE`), so every row is read, converted and sent to a Python worker
    before it can be dropped. Predicates after it in the plan are held back
    too. In a join condition it is worse: a UDF cannot be a join key, so
    unless an equality on plain columns is also there Spark pairs every row
    with every row (a cartesian product filtered by the UDF), and only inner
    joins accept it at all.

    ## Example
    ```python
    humans = events.filter(~is_bot("user_agent"))
    ```

    ## Use instead
    ```python
    humans = events.filter(~F.lower("user_agent").contains("bot"))
    ```
    When no built-in expresses the test, filter first on what Catalyst can
    push (dates, keys), then apply the UDF; in a join, join on the plain key
    columns and filter on the UDF after the join.

    ## Fix safety
    No fix.

    ## References
    - Spark SQL guide, Parquet files ("predicate pushdown").
    - PySpark API: `pyspark.sql.functions.udf` (UDFs are opaque to the optimizer).
    """

    code = "SPK208"
    name = "udf-in-predicate"
    summary = "a Python UDF in a filter or join condition cannot be pushed down or used as a join key"
    default_reason = ("a UDF in a filter is not pushed to the source, so every row is read and sent to Python "
                      "before it is dropped; in a join condition it can make the join a cartesian product")
    triggers = ("udf", "lambda", "filter", "where")
    doc_setup = (
        "from pyspark.sql.functions import udf\nevents = spark.table('events')\n"
        "@udf('boolean')\ndef is_bot(agent):\n    return 'bot' in agent.lower()\n"
    )

    invalid = (
        Invalid(_SETUP + "humans = events.filter(~is_bot('user_agent'))\n"),
        Invalid(_SETUP + "domain = udf(lambda e: e.split('@')[-1], 'string')\n"
                "corp = users.where(domain(F.col('email')) == 'example.com')\n"),
        Invalid(_SETUP + "same = udf(lambda a, b: a.lower() == b.lower(), 'boolean')\n"
                "pairs = events.join(users, same(events.user_name, users.name))\n"),
        Invalid(_SETUP + "def clean(s):\n    return s.strip()\n\nspark.udf.register('clean_name', clean, 'string')\n"
                "named = users.filter(\"clean_name(name) = 'ann'\")\n"),
        Invalid(_SETUP + "tagged = events.withColumn('bot', is_bot('user_agent'))\nhumans = tagged.filter(~F.col('bot'))\n"),
        Invalid("from pyspark.sql.functions import udf, col\n\n@udf('int')\ndef score(x):\n    return len(x)\n\n"
                "def high(df):\n    return df.filter(score(col('text')) > 3).withColumn('s', score(col('text')))\n"),
        # a notebook cell whose `udf` and `col` an earlier cell (or a `%run` notebook) imports: nothing binds them here
        Invalid("cleaner = udf(lambda x: x.strip() != '')\norders = spark.table('orders')\n"
                "named = orders.where(cleaner(col('name')))\n", path="notebook_cell.py"),
        # a Python function, not a Column: a DataFrame's filter raises a TypeError on it
        Invalid(_SETUP + "active = users.filter(lambda row: row.status == 'active')\n"),
        Invalid(_SETUP + "def is_active(row):\n    return row.status == 'active'\n\nactive = users.where(is_active)\n"),
    )
    valid = (
        Valid(_SETUP + "tagged = events.withColumn('bot', is_bot('user_agent'))\n"),
        Valid(_SETUP + "humans = events.filter(~F.lower('user_agent').contains('bot'))\n"),
        Valid(_SETUP + "tagged = events.withColumn('bot', is_bot('user_agent')).filter(F.col('kind') == 'view')\n"),
        Valid(_SETUP + "joined = events.join(users, events.user_id == users.id)\n"),
        Valid(_SETUP + "named = users.filter(\"name = 'clean_name(x)'\")\n"),
        Valid("def is_bot(x):\n    return 'bot' in x\n\nagents = ['a', 'bot']\nhumans = list(filter(is_bot, agents))\n"),
        # an RDD's filter takes a function
        Valid(_SETUP + "active = users.rdd.filter(lambda row: row.status == 'active')\n"),
        Valid(_SETUP + "def condition():\n    return F.col('status') == 'active'\n\nactive = users.filter(condition())\n"),
        # a decorator that calls it (here returning a Column): not a function any more
        Valid(_SETUP + "def column_condition(fn):\n    return fn()\n\n@column_condition\ndef adult():\n"
              "    return F.col('age') > 18\n\nadults = users.filter(adult)\n"),
        # `udf` bound by the file itself (here a project helper that is not pyspark's): not taken for pyspark's
        Valid("from helpers import udf\ncleaner = udf(lambda x: x.strip() != '')\norders = spark.table('orders')\n"
              "named = orders.where(cleaner(col('name')))\n"),
        Valid("from utils import *\ncleaner = udf(lambda x: x.strip() != '')\norders = spark.table('orders')\n"
              "named = orders.where(cleaner(col('name')))\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.registered = {}  # SQL name -> the Call that registers it

    def _python_function(self, condition) -> bool:
        """A lambda, or a name bound to a plain function of this file (not a UDF)."""
        if isinstance(condition, cst.Lambda):
            return True
        if isinstance(condition, cst.Name):
            value = self.ctx.semantic.lookup(condition.value)
            if value is None or value.kind != FUNCTION:
                return False
            definition = value.node
            # a decorator may have made it something else (`@column_condition` returning `fn()`, a Column):
            # only an undecorated function of the file, or one whose decorators keep a function, is one
            return isinstance(definition, cst.FunctionDef) and all(
                (dotted_name(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or "")
                .rsplit(".", 1)[-1] in _KEEPS_FUNCTION for d in definition.decorators)
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        lineage.enter_function(self.ctx, node)

    def leave_Assign(self, node: cst.Assign) -> None:
        lineage.leave_assign(self.ctx, node)

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        site = site_for_call(self.ctx, node)
        if site is not None and site.factory == "register":
            args = positional_args(node)
            name = literal_string(args[0]) if args else None
            if name:
                self.registered[name] = node
            return
        if method in ("filter", "where"):
            where, condition = f"`{method}`", node.args[0].value if node.args else None
        elif method == "join":
            where, condition = "a join condition", join_condition(node)
        else:
            return
        if condition is None or not self.ctx.semantic.is_dataframe(node.func.value):
            return
        if method != "join" and self._python_function(condition):
            self.ctx.report(self, node, f"a Python function given to a DataFrame's `{method}`: it takes a Column "
                            "or a SQL string, so this raises a `TypeError` (`NOT_COLUMN_OR_STR`) when it runs",
                            help="write the test as a Column (`F.col('status') == 'active'`); a function of a row "
                            "is an RDD's `filter` (`df.rdd.filter(f)`), which sends every row to Python",
                            start=node.func.attr)
            return
        found = self._udf_in(condition)
        through = ""
        if found is None and method != "join":
            found, through = self._udf_column(node.func.value, condition)
        if found is None:
            return
        if method == "join":
            why = "it cannot be a join key: without an equality on plain columns every row is paired with every row"
            help = "join on the plain key columns, then filter on the UDF (or replace it with built-in functions)"
        elif through:
            # the column is the UDF's output: no way of computing it would be pushed to the scan, but each row
            # still goes to a Python worker before the filter can drop it
            why = "every row is sent to a Python worker to compute the column before the filter can drop it"
            help = "compute the column with built-in functions, or filter first on what can be pushed down"
        else:
            why = "the predicate cannot be pushed to the scan, so every row is read and sent to Python first"
            help = "express the test with built-in functions, or filter first on what can be pushed down"
        self.ctx.report(self, node, f"UDF `{found}`{through} in {where}: {why}", help=help, start=node.func.attr)

    def _udf_column(self, receiver, condition):
        """A filter on a column an earlier `withColumn` computed with a UDF: (the UDF, how it is reached)."""
        frame = lineage.frame_of(self.ctx, receiver)  # following the lineage records the UDF columns on the way
        made = lineage.tracker(self.ctx).udf_tokens
        if frame is None or not made:
            return None, ""
        stack = [condition]
        while stack:
            current = stack.pop()
            tokens, name = None, None
            ref = lineage.column_ref(self.ctx, current)
            if ref is not None:
                name = ref[1]
                tokens = lineage.tokens_of_ref(self.ctx, *ref)
            elif isinstance(current, cst.Call) and self.ctx.semantic.is_function(current.func, {"col", "column"}) \
                    and current.args and literal_string(current.args[0].value) is not None:
                name = literal_string(current.args[0].value)
                tokens = frame.tokens(name)
            for token in tokens or ():
                if token in made:
                    return made[token], f" (through column `{name}`)"
            stack.extend(source_child_nodes(current))  # libcst's order, without whitespace and punctuation
        return None, ""

    def _udf_in(self, condition):
        text = literal_string(condition)
        if text is not None:
            return self._registered_in(text)
        stack = [condition]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Call):
                value = self.ctx.semantic.infer(current.func)
                if value is not None and value.kind == UDF:
                    return self.ctx.code_for(current.func)
                if self.ctx.semantic.is_function(current.func, {"expr"}) and current.args:
                    found = self._registered_in(literal_string(current.args[0].value) or "")
                    if found:
                        return found
            if isinstance(current, cst.Lambda):
                continue
            stack.extend(source_child_nodes(current))
        return None

    def _registered_in(self, text: str):
        if not self.registered:
            return None
        bare = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "''", text)
        for name in self.registered:
            if re.search(rf"\b{re.escape(name)}\s*\(", bare, re.I):
                return name
        return None
