from typing import Optional

import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.sources.python import child_nodes

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\ncustomers = spark.table('crm.customers')\n"
)

_HASHES = frozenset(("md5", "sha1", "sha2", "crc32", "hash", "xxhash64"))
# What a null cannot reach: a default for the null case, or a value that is never null.
_NULL_SAFE = frozenset(("coalesce", "nvl", "ifnull", "lit", "current_date", "current_timestamp", "to_json",
                        "concat_ws", "count", "monotonically_increasing_id", "input_file_name", "isnull",
                        "isnotnull"))


class HashOfConcatWithNulls(PythonRule):
    """
    ## What it does
    Finds a hash (`F.md5`, `F.sha1`, `F.sha2`, `F.crc32`, `F.hash`,
    `F.xxhash64`) of `F.concat_ws(sep, ...)` or `F.concat(...)` over two
    or more columns that may be null: the way row keys and change-detection
    fingerprints are built (`md5(concat_ws("||", *cols))`). A column with a
    default for the null case anywhere in it (`F.coalesce(c, F.lit(...))`,
    `nvl`, `ifnull`, also under `cast`/`upper`/`trim`, or a `F.when(c.isNull(),
    marker)`), a literal, and other values that are never null do not count; `*cols` counts as two
    or more, unless `cols` is a list the code builds of such columns. The
    joined column may be held in a name first (`column = F.concat_ws(...)`).

    ## Why is this bad?
    `concat_ws` skips nulls: `("a", null)` and `(null, "a")` both become
    `"a"` and hash to the same key, so two different rows share a surrogate
    key, a merge on it updates the wrong row, and an SCD2 change from or to
    null goes unseen. `concat` is null as soon as one part is null, so
    every row with a null anywhere gets a null key: a merge never matches
    it and a `dropDuplicates` on the key folds all of them into one.

    ## Example
    ```python
    customers = customers.withColumn("row_key", F.md5(F.concat_ws("||", "id", "email", "phone")))
    ```

    ## Use instead
    ```python
    parts = [F.coalesce(F.col(c).cast("string"), F.lit("\\\\N")) for c in ("id", "email", "phone")]
    customers = customers.withColumn("row_key", F.md5(F.concat_ws("||", *parts)))
    ```
    A null marker that no real value holds keeps every column in its place;
    `F.sha2(F.to_json(F.struct(...)), 256)` names each field instead. (`F.hash`
    and `F.xxhash64` of several columns skip nulls the same way: give them
    the marked columns too.)

    ## Fix safety
    No fix: the marker must be a string no real value holds, which is the
    author's to choose, and the keys of rows already written change.

    ## References
    - Spark SQL functions: `concat_ws` ("skips null values"), `concat`
      ("returns null if any input is null").
    """

    code = "SPK319"
    name = "hash-of-concat-with-nulls"
    summary = "a hash of `concat_ws` or `concat` over nullable columns: nulls make keys collide or vanish"
    default_reason = ("`concat_ws` skips nulls, so `(a, null)` and `(null, a)` hash to one key, and `concat` of a "
                      "null is null: row keys collide or vanish; columns with a null default are left alone")
    triggers = ("concat",)
    doc_setup = 'customers = spark.table("crm.customers")\n'

    invalid = (
        Invalid(_SETUP + "customers = customers.withColumn('row_key', F.md5(F.concat_ws('||', 'id', 'email', 'phone')))\n"),
        Invalid(_SETUP + "def with_md5_cols(df, cols, output_col_name):\n"
                "    return df.withColumn(output_col_name, F.md5(F.concat_ws('||', *cols)))\n"),
        Invalid(_SETUP + "from pyspark.sql.functions import col, concat, sha2\n"
                "keyed = customers.select('*', sha2(concat(col('first'), col('last')), 256).alias('k'))\n"),
        Invalid(_SETUP + "k = F.xxhash64(F.concat_ws('|', F.coalesce('id', F.lit('')), 'email', 'phone'))\n"),
        Invalid(_SETUP + "def sha2_hash(df, columns, target, delimiter='|'):\n"
                "    column = F.concat_ws(delimiter, *columns)\n    return df.withColumn(target, F.sha2(column, 256))\n"),
        Invalid(_SETUP + "def row_key(columns):\n    parts = []\n    for c in columns:\n"
                "        parts.append(F.col(c).cast('string'))\n    return F.md5(F.concat_ws('|', *parts))\n"),
        Invalid(_SETUP + "def sha2_hash(columns, delimiter='|', num_bits=256):\n"
                "    if len(columns) > 1:\n        column = F.concat_ws(delimiter, *columns)\n"
                "    else:\n        column = F.col(columns[0])\n    return F.sha2(column, num_bits)\n"),
    )
    valid = (
        Valid(_SETUP + "def row_key(df, columns):\n    key = F.concat_ws('|', *columns)\n"
              "    df = df.withColumn('natural_key', key)\n    key = F.to_json(F.struct(*columns))\n"
              "    return df.withColumn('hash', F.sha2(key, 256))\n"),
        Valid(_SETUP + "def row_key(id_col, extra):\n    parts = [F.coalesce(F.col(id_col), F.lit(''))]\n"
              "    parts.append(F.col(extra))\n    return F.md5(F.concat_ws('|', *parts))\n"),
        Valid(_SETUP + "def row_key(columns):\n    parts = []\n"
              "    parts.extend(F.coalesce(F.col(c), F.lit('')) for c in columns)\n    return F.md5(F.concat_ws('|', *parts))\n"),
        Valid(_SETUP + "k = F.md5(F.concat_ws('|', F.coalesce(F.trim('id'), F.lit('')), F.coalesce('email', F.lit(''))))\n"),
        Valid(_SETUP + "k = F.sha2(F.concat(F.col('ssn'), F.lit('pepper')), 256)\n"),
        Valid(_SETUP + "k = F.md5(F.concat_ws('|', F.upper(F.trim(F.coalesce('email', F.lit('')))),\n"
              "                             F.when(F.col('phone').isNull(), F.lit('\\\\N')).otherwise(F.col('phone'))))\n"),
        Valid(_SETUP + "k = F.md5(F.concat_ws('|', 'id', F.lit('v2')))\n"),
        Valid(_SETUP + "def row_key(columns):\n    parts = []\n    for c in columns:\n"
              "        parts.append(F.coalesce(F.col(c).cast('string'), F.lit('\\\\N')))\n"
              "    return F.md5(F.concat_ws('|', *parts))\n"),
        Valid(_SETUP + "def sha2_hash(columns, delimiter='|'):\n"
              "    if len(columns) > 1:\n"
              "        column = F.concat_ws(delimiter, *[F.coalesce(F.col(c), F.lit('')) for c in columns])\n"
              "    else:\n        column = F.col(columns[0])\n    return F.sha2(column, 256)\n"),
        Valid(_SETUP + "k = F.sha2(F.to_json(F.struct('id', 'email')), 256)\n"),
        Valid("import hashlib\nkey = hashlib.md5('|'.join(['a', 'b']).encode()).hexdigest()\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        semantic = self.ctx.semantic
        if not node.args or not semantic.is_function(node.func, _HASHES):
            return
        inner = node.args[0].value
        at = inner
        candidates = [inner]
        if isinstance(inner, cst.Name):  # `column = F.concat_ws("|", *cols)`, then `F.sha2(column, 256)`: the hash
            at = node
            # every value a branch of the function may give it (`if len(cols) > 1: column = F.concat_ws(...)`,
            # `else: column = cols[0]`): a hash of the concatenation on one path is reported
            candidates = self._reaching(inner.value)
        found = next((c for c in map(self._concatenation, candidates) if c is not None), None)
        if found is None:
            return
        inner, joined = found
        if joined == "concat_ws":
            message = ("`concat_ws` skips nulls, so rows that differ only in which column is null, "
                       "(`a`, null) and (null, `a`), hash to the same key")
        else:
            message = "`concat` is null when any part is null: every row with a null in these columns gets a null key"
        self.ctx.report(
            self,
            at,
            message,
            help="give each nullable column a marker no value holds first: `F.coalesce(F.col(c).cast('string'), "
                 "F.lit('\\\\N'))`, or hash `F.to_json(F.struct(...))`",
            start=inner.func if at is inner else None,
        )

    def _concatenation(self, value) -> Optional[tuple]:
        """(the call, "concat_ws" or "concat") when ``value`` concatenates two or more nullable columns."""
        semantic = self.ctx.semantic
        if not isinstance(value, cst.Call):
            return None
        if semantic.is_function(value.func, {"concat_ws"}):
            parts, joined = value.args[1:], "concat_ws"
        elif semantic.is_function(value.func, {"concat"}):
            parts, joined = value.args, "concat"
        else:
            return None
        nullable = sum(self._starred(part.value) if part.star else 0 if self._null_safe(part.value) else 1
                       for part in parts)
        return (value, joined) if nullable >= 2 else None

    def _reaching(self, name: str) -> list:
        """The values of ``name`` that may reach the statement being walked: from the last line of the function
        before it that assigns the name (`key = F.to_json(...)` after an earlier `key = F.concat_ws(...)`), and
        the assignments inside the blocks between that line and this statement; with no such line, every
        branch's (`if len(cols) > 1: key = F.concat_ws(...)` / `else: key = cols[0]`)."""
        function = self.ctx.function
        body = function.body.body if function is not None and isinstance(function.body, cst.IndentedBlock) else ()
        here = next((a for a, b in zip(self.ctx.ancestors[1:], self.ctx.ancestors) if b is function.body), None) \
            if body else None
        if here is None or here not in body:
            return self.ctx.semantic.assigned_expressions(name)
        before = list(body[:body.index(here)])
        lines = [i for i, statement in enumerate(before) if isinstance(statement, cst.SimpleStatementLine)
                 and _assigned_in([statement], name)]
        if not lines:
            return self.ctx.semantic.assigned_expressions(name)
        last = lines[-1]
        return _assigned_in([before[last]], name)[-1:] + _assigned_in(before[last + 1:], name)

    def _starred(self, value) -> int:
        """How many nullable columns `*value` may spread: none for a list (or comprehension) of null-safe
        columns the code builds (`parts = [F.coalesce(c, F.lit("")) for c in cols]`, or `parts = []` and
        `parts.append(F.coalesce(...))` / `parts.extend(...)` in the same function), else two or more."""
        appended = None
        if isinstance(value, cst.Name):
            function = self.ctx.function
            if function is not None:
                appended = _fills(function, value.value)
            value = self.ctx.semantic.assigned_expression(value.value) or value
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            return 0 if self._null_safe(value.elt) else 2
        if isinstance(value, (cst.List, cst.Tuple)):
            listed = [e.value for e in value.elements if isinstance(e, cst.Element)]
            if len(listed) < len(value.elements) or not (listed or appended):
                return 2  # a starred element, or a list filled another way (`extend`, a helper)
            # a column appended in a loop may be appended many times: a nullable one counts as two
            return sum(0 if self._null_safe(e) else 1 for e in listed) + \
                sum(0 if e is not None and self._null_safe(e) else 2 if repeated else 1 for e, repeated in appended or ())
        return 2

    def _null_safe(self, value) -> bool:
        """A column a null cannot reach: a default for the null case anywhere in it (`F.upper(F.coalesce(c,
        F.lit("")))`, `F.coalesce(...).cast("string")`, `F.when(F.col(c).isNull(), F.lit("\\N")).otherwise(c)`),
        or a value that is never null."""
        if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return False  # a column's name
        stack = [value]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Call):
                if self.ctx.semantic.is_function(node.func, _NULL_SAFE):
                    return True
                if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("isNull", "isNotNull"):
                    return True  # a branch for the null case (`when(c.isNull(), marker)`)
            stack.extend(child_nodes(node))
        return False


def _assigned_in(statements, name: str) -> list:
    """The values ``name = value`` takes in these statements, in source order (nested definitions aside)."""
    found = []
    stack = list(reversed(statements))
    while stack:
        node = stack.pop()
        if node.__class__ in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        if node.__class__ is cst.Assign and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                for t in node.targets):
            found.append(node.value)
        stack.extend(reversed(child_nodes(node)))
    return found


def _fills(function, name: str) -> list:
    """(column, repeated) for what a function's own body adds to list ``name``: `name.append(c)` (repeated in a
    loop), the items of `name.extend([...])` and the element of `name.extend(c for ...)` (repeated); a column
    None when `extend` is given something else (unknown)."""
    found = []
    stack = [(function.body, False)]
    while stack:
        node, looped = stack.pop()
        if node.__class__ in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        if node.__class__ is cst.Call and node.args and isinstance(node.func, cst.Attribute) and \
                isinstance(node.func.value, cst.Name) and node.func.value.value == name:
            arg = node.args[0].value
            if node.func.attr.value == "append":
                found.append((arg, looped))
            elif node.func.attr.value == "extend":
                if isinstance(arg, (cst.ListComp, cst.GeneratorExp)):
                    found.append((arg.elt, True))
                elif isinstance(arg, (cst.List, cst.Tuple)):
                    found += [(e.value if isinstance(e, cst.Element) else None, looped) for e in arg.elements]
                else:
                    found.append((None, True))
        inner = looped or node.__class__ in (cst.For, cst.While)
        stack.extend((child, inner) for child in child_nodes(node))
    return found
