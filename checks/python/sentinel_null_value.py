from typing import Optional

import libcst as cst

from checks.python._fixes import functions_name, replace, source
from linter.registry import Invalid, Option, PythonRule, Valid
from linter.semantic import COLUMN, DATAFRAME, NA, literal_string, method_name, positional_args
from linter.semantic.paths import single_assignment

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\ncustomers = spark.table('customers')\n"
)
DEFAULT_SENTINELS = ["", "N/A", "NA", "NULL", "None", "EMPTY", "unknown", "-", "nan", "null", "n/a", "none"]


# Functions that build one string out of columns: an empty filler inside them is formatting, not a stored null.
_STRING_BUILDERS = frozenset({"concat_ws", "concat", "md5", "sha1", "sha2", "hash", "xxhash64", "format_string"})
# Calls that only look at a frame: a placeholder whose frame goes no further than them is stored nowhere.
_LOOKS = frozenset({"show", "display", "printSchema", "explain", "limit", "head", "take", "first", "count",
                    "select", "filter", "where", "orderBy", "sort", "distinct"})


def _untyped(node):
    """``node`` without the `.cast(...)`, `.astype(...)` and `.alias(...)` around it."""
    while isinstance(node, cst.Call) and method_name(node) in ("cast", "astype", "alias"):
        node = node.func.value
    return node


def _discarded(ancestors: list) -> bool:
    """Whether the frame made by the call at ``ancestors[-1]`` is thrown away: the statement is the call itself,
    or only looked at (`df.na.replace(...)` alone, `df.fillna("N/A").show()`, `display(df.fillna(""))`), never
    assigned, returned, passed on or written."""
    i = len(ancestors) - 1
    while i >= 2:
        parent, above = ancestors[i - 1], ancestors[i - 2]
        if isinstance(parent, cst.Attribute) and isinstance(above, cst.Call) and above.func is parent and \
                parent.attr.value in _LOOKS:
            i -= 2
            continue
        break
    parent = ancestors[i - 1] if i >= 1 else None
    if isinstance(parent, cst.Arg) and i >= 3 and isinstance(ancestors[i - 2], cst.Call) and \
            isinstance(ancestors[i - 2].func, cst.Name) and ancestors[i - 2].func.value == "display":
        i -= 2  # the notebook builtin `display(df)`
        parent = ancestors[i - 1]
    return isinstance(parent, cst.Expr)


class SentinelNullValue(PythonRule):
    """
    ## What it does
    Finds placeholder strings standing in for a missing value: `""`, `"N/A"`,
    `"NA"`, `"NULL"`, `"None"`, `"EMPTY"`, `"unknown"`, `"-"` (the list is
    configurable, compared case-insensitively) written by `fillna`,
    `na.fill`, `replace`/`na.replace` (a placeholder as the new value),
    `F.when(...)`/`.otherwise(...)`, `withColumn(name, F.lit(...))` (also
    `F.lit("" if x is None else x)`, or a name assigned once such an
    expression in the function: the missing case written as a placeholder) and
    `F.coalesce(..., F.lit(...))`. A fill, replace or `withColumn` whose
    frame is thrown away is not reported: the statement is the call alone,
    or only shows it (`df.na.replace([""], ["UNKNOWN"])` as a book's demo of
    the method, `df.fillna("N/A").show()`, `display(df.fillna(""))`), so
    no column anywhere holds the placeholder. A `coalesce` inside
    `concat_ws`, `concat` or a hash (`md5`, `sha2`, `hash`) is not reported: it
    formats one part of a key or a checksum, and the result is not stored as
    the column's value.

    ## Why is this bad?
    A placeholder is a real value: `isNull()` no longer finds the missing
    rows, `count(col)` counts them, `avg` and `min` see them, and every
    placeholder row joins with every other placeholder row on that key, the
    classic source of a hot key that keeps one task running for hours. Nulls
    are skipped by joins and aggregates and are what downstream users expect.

    ## Example
    ```python
    customers = customers.fillna("N/A", subset=["country"])
    ```

    ## Use instead
    ```python
    # Keep missing countries null; ask for them explicitly where it matters.
    missing = customers.filter(F.col("country").isNull()).count()
    ```

    ## Fix safety
    Unsafe, and off unless asked for (`fix-to-null = true` in the rule's
    table): it changes the data. A placeholder in `F.when`, `.otherwise`,
    `withColumn` or `F.coalesce` becomes `F.lit(None).cast('string')`; a
    `fillna`/`na.fill` of one placeholder is removed, so the values stay null.
    Whoever reads the column must then handle nulls.

    ## Options
    - `sentinels` (list of strings): the placeholder values to report.
    - `fix-to-null` (bool, default false): offer the fix described above.

    ## References
    - Spark SQL guide, "NULL Semantics".
    """

    code = "SPK301"
    name = "sentinel-null-value"
    summary = "a placeholder string such as \"N/A\" stands in for null"
    default_reason = ("a placeholder such as 'N/A' is a real value: `isNull()` misses those rows, counts "
                      "include them, and they all join on one hot key that keeps a task running for hours")
    triggers = ("fillna", "fill", "when", "otherwise", "lit", "coalesce", "replace")
    options = {
        "sentinels": Option(DEFAULT_SENTINELS, "Placeholder values to report (case-insensitive)."),
        "fix-to-null": Option(False, "Offer the (unsafe) fix that writes a typed null instead."),
    }
    fix = "unsafe"
    doc_setup = 'customers = spark.table("customers")\n'

    invalid = (
        Invalid(_SETUP + "customers = customers.fillna('N/A', subset=['country'])\n"),
        Invalid(_SETUP + "customers = customers.na.fill({'email': '', 'phone': 'unknown'})\n", count=2),
        Invalid(_SETUP + "c = F.when(F.col('tier').isNull(), 'NULL').otherwise(F.col('tier'))\n"),
        Invalid(_SETUP + "c = F.when(F.col('x') > 0, F.col('x')).otherwise(F.lit('-'))\n"),
        Invalid(_SETUP + "customers = customers.withColumn('segment', F.lit('EMPTY'))\n"),
        Invalid(_SETUP + "if 'name' not in customers.columns:\n"
                "    customers = customers.withColumn('name', F.lit('').cast('string'))\n"),
        Invalid(_SETUP + "c = F.coalesce(F.col('city'), F.lit(''))\n"),
        Invalid(_SETUP + "def stamp(df, params):\n    env = '' if 'env' not in params else params['env']\n"
                "    return df.withColumn('env', F.lit(env))\n"),
        Invalid(_SETUP + "def stamp(df, owner):\n    return df.withColumn('owner', F.lit(owner if owner else 'N/A'))\n"),
        Invalid(_SETUP + "customers = customers.na.replace([''], ['UNKNOWN'], 'city')\n"),
        Invalid(_SETUP + "customers.fillna('N/A', subset=['country']).write.saveAsTable('crm.customers')\n"),
        Invalid(_SETUP + "def clean(df):\n    return df.na.fill({'email': ''})\n"),
        Invalid(_SETUP + "c = F.when(F.col('x') > 0, F.col('x')).otherwise('N/A')\n",
                options={"fix-to-null": True}, unsafe=True,
                fixed=_SETUP + "c = F.when(F.col('x') > 0, F.col('x')).otherwise(F.lit(None).cast('string'))\n"),
        Invalid(_SETUP + "customers = customers.fillna('unknown', subset=['country'])\n",
                options={"fix-to-null": True}, unsafe=True,
                fixed=_SETUP + "customers = customers\n"),
    )
    valid = (
        Valid(_SETUP + "customers = customers.fillna(0, subset=['orders'])\n"),
        Valid(_SETUP + "c = F.when(F.col('x') > 0, 'positive').otherwise('other')\n"),
        Valid(_SETUP + "customers = customers.withColumn('source', F.lit('crm'))\n"),
        Valid(_SETUP + "def stamp(df, params):\n    env = 'prod' if params.live else 'dev'\n"
              "    return df.withColumn('env', F.lit(env))\n"),
        Valid(_SETUP + "def stamp(df, params):\n    env = ''\n    if params:\n        env = params['env']\n"
              "    return df.withColumn('env', F.lit(env))\n"),
        Valid("import pandas as pd\nframe = pd.DataFrame()\nframe = frame.fillna('N/A')\n"),
        Valid(_SETUP + "c = F.coalesce(F.col('city'), F.col('town'))\n"),
        Valid(_SETUP + "customers = customers.na.replace(['N/A', ''], [None, None], 'city')\n"),
        Valid(_SETUP + "key = F.md5(F.concat_ws('||', F.coalesce(F.trim('a'), F.lit('')), F.col('b')))\n"),
        # a frame thrown away or only shown: the placeholder is stored nowhere
        Valid(_SETUP + "customers.na.replace([''], ['UNKNOWN'], 'city')\n"),
        Valid(_SETUP + "customers.fillna('N/A', subset=['country']).show(5)\n"),
        Valid(_SETUP + "display(customers.na.fill({'email': ''}).limit(10))\n"),
    )

    def _sentinel(self, node) -> Optional[str]:
        self._indirect = False
        node = _untyped(node)  # `F.lit("").cast("string")`: the placeholder, typed
        if isinstance(node, cst.Call) and self.ctx.semantic.is_function(node.func, {"lit"}):
            args = positional_args(node)
            node = args[0] if args else None
            if isinstance(node, cst.Name):
                node = self._assigned_once(node.value)  # `env = "" if ... else ...` then `F.lit(env)`
                self._indirect = node is not None
            if isinstance(node, cst.IfExp):
                # `F.lit("" if value is None else value)`: the missing case written as a placeholder
                self._indirect = True
                branches = [b for b in (node.body, node.orelse) if self._is_sentinel(literal_string(b))]
                node = branches[0] if branches else None
        text = literal_string(node) if node is not None else None
        return text if self._is_sentinel(text) else None

    def _is_sentinel(self, text) -> bool:
        if text is None:
            return False
        wanted = {s.lower() for s in self.opts["sentinels"]}
        return text.strip().lower() in wanted or (text.strip() == "" and "" in wanted)

    def _assigned_once(self, name: str):
        """The value of the one assignment of ``name`` in the enclosing function, when it is an `a if c else b`."""
        function = self.ctx.function
        value = single_assignment(function, name) if function is not None else None
        return value if isinstance(value, cst.IfExp) else None

    def _report(self, node, text: str, where: str, fix_node=None, content=None, claim=None) -> None:
        fix = None
        if self.opts["fix-to-null"] and fix_node is not None:
            if content is None:
                fn = functions_name(self.ctx)
                content = f"{fn}.lit(None).cast('string')" if fn else None
            if content is not None:
                fix = replace(fix_node, content, "Write a null instead", safe=False)
        self.ctx.report(
            self,
            node,
            claim or f"{where} writes {text!r} where the value is missing: it stops being null "
            "(isNull misses it, joins and counts include it)",
            help="leave the value null (or `F.lit(None).cast(...)`); turn nulls into labels only for display",
            fix=fix,
        )

    def visit_Call(self, node: cst.Call) -> None:
        semantic = self.ctx.semantic
        method = method_name(node)
        if method in ("fillna", "fill", "replace", "withColumn") and _discarded(self.ctx.ancestors):
            return  # a frame only shown, or not kept at all: no stored value holds the placeholder
        if method in ("fillna", "fill"):
            receiver = semantic.infer(node.func.value)
            if receiver is None or receiver.kind not in ((DATAFRAME,) if method == "fillna" else (NA,)):
                return
            args = positional_args(node)
            value = args[0] if args else None
            for a in node.args:
                if a.keyword is not None and a.keyword.value == "value":
                    value = a.value
            if isinstance(value, cst.Dict):
                for element in value.elements:
                    if isinstance(element, cst.DictElement):
                        text = self._sentinel(element.value)
                        if text is not None:
                            self._report(element.value, text, f"`{method}`")
            elif value is not None:
                text = self._sentinel(value)
                if text is not None:
                    # The fix drops the fill: the values stay null.
                    receiver = node.func.value.value if method == "fill" else node.func.value
                    self._report(value, text, f"`{method}`", node, source(self.ctx, receiver))
            return
        if method == "replace" and len(node.args) >= 2:
            receiver = semantic.infer(node.func.value)
            if receiver is None or receiver.kind not in (DATAFRAME, NA):
                return
            # df.na.replace([""], ["UNKNOWN"]): a real value (often a blank) turned into a placeholder
            value = node.args[1].value
            values = [e.value for e in value.elements] if isinstance(value, (cst.List, cst.Tuple)) else [value]
            for item in values:
                text = self._sentinel(item)
                if text is not None and text != "":
                    # (what it replaces is a value, not a null: `na.replace` never touches nulls)
                    self._report(item, text, f"`{method}`",
                                 claim=f"`{method}` turns a value that means missing into the placeholder {text!r}: "
                                       "a null would say it (isNull misses the placeholder, joins and counts "
                                       "include it)")
            return
        if semantic.is_function(node.func, {"when"}) and len(node.args) >= 2:
            text = self._sentinel(node.args[1].value)
            if text is not None:
                self._report(node.args[1].value, text, "`F.when`", node.args[1].value)
            return
        if method in ("when", "otherwise"):
            receiver = semantic.infer(node.func.value)
            if receiver is None or receiver.kind != COLUMN or not node.args:
                return
            value = node.args[-1].value
            text = self._sentinel(value)
            if text is not None:
                self._report(value, text, f"`.{method}`", value)
            return
        if method == "withColumn" and len(node.args) == 2:
            receiver = semantic.infer(node.func.value)
            if receiver is None or receiver.kind != DATAFRAME:
                return
            value = node.args[1].value
            typed = _untyped(value)
            if isinstance(typed, cst.Call) and semantic.is_function(typed.func, {"lit"}):
                text = self._sentinel(value)
                if text is not None:
                    # a placeholder for the missing case only: writing null is a fix only for a literal
                    self._report(value, text, "`withColumn`", None if self._indirect else value)
            return
        if semantic.is_function(node.func, {"coalesce"}):
            if any(isinstance(a, cst.Call) and semantic.is_function(a.func, _STRING_BUILDERS)
                   for a in self.ctx.ancestors[:-1]):
                return  # `concat_ws("|", coalesce(c, lit("")))`: a part of a key or a hash, not a stored value
            for a in node.args[1:]:
                if isinstance(a.value, cst.Call):
                    text = self._sentinel(a.value)
                    if text is not None:
                        self._report(a.value, text, "`F.coalesce`", a.value)
