from typing import Optional

import libcst as cst

from checks.python._fixes import replace
from checks.python._udf import site_for_call, site_for_def
from checks.python.udf_missing_return_type import DDL, body_type
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import dotted_name, literal_string, normalise_type

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql.functions import udf\n"
    "from pyspark.sql.types import DoubleType, IntegerType, StringType, BooleanType\n"
    "spark = SparkSession.builder.getOrCreate()\n"
)
# (declared, returned) pairs Spark cannot convert: the value becomes null.
_NULL = {("int", "float"), ("int", "str"), ("float", "int"), ("float", "str"), ("bool", "int"),
         ("bool", "str"), ("bool", "float"), ("int", "bool"), ("float", "bool"), ("decimal", "float"),
         ("decimal", "int"), ("decimal", "str")}


def declared_type(node) -> Optional[str]:
    text = literal_string(node)
    if text is None and isinstance(node, cst.Call):
        text = dotted_name(node.func)
    if text is None and isinstance(node, (cst.Name, cst.Attribute)):
        text = dotted_name(node)
    return normalise_type(text.split(".")[-1]) if text else None


class UdfReturnTypeMismatch(PythonRule):
    """
    ## What it does
    Finds Python UDFs whose declared return type cannot hold what the body
    certainly returns: `IntegerType()` for a body that returns a float
    (`a / b`) or a string, `DoubleType()` for a body that returns an `int`
    (`len(...)`), `BooleanType()` for a non-boolean, and so on.

    ## Why is this bad?
    A pickled Python UDF does not convert between Python and declared types: a
    value of the wrong type silently becomes null. `udf(lambda s: len(s),
    DoubleType())` returns null for every row, because `len` returns a Python
    `int`, not a `float` (shown on Spark 4.3 in `tests/test_fix_equivalence.py`).
    Arrow-optimized UDFs (`useArrow=True`, or
    `spark.sql.execution.pythonUDF.arrow.enabled` with PyArrow installed)
    coerce some of these values instead and fail on others: the declared type
    is still wrong.

    ## Example
    ```python
    word_count = udf(lambda s: len(s.split()), DoubleType())
    ```

    ## Use instead
    ```python
    word_count = udf(lambda s: len(s.split()), IntegerType())
    ```

    ## Fix safety
    Unsafe: the fix declares the type the body certainly returns, as a DDL
    string (`"bigint"`, `"double"`, `"boolean"`). The column turns from all
    nulls into values, and its type changes.

    ## References
    - PySpark user guide, "Python UDF" type conversion (mismatched values
      become null).
    """

    code = "SPK207"
    name = "udf-return-type-mismatch"
    summary = "a UDF's declared return type cannot hold what its body returns: every value becomes null"
    default_reason = ("a pickled UDF does not convert its result, so a value of the wrong type becomes "
                      "null, silently and for every row; only what the body certainly returns is compared")
    severity = "error"
    fix = "unsafe"
    triggers = ("udf",)
    doc_setup = "from pyspark.sql.functions import udf\nfrom pyspark.sql.types import DoubleType, IntegerType\n"

    invalid = (
        Invalid(_SETUP + "word_count = udf(lambda s: len(s.split()), DoubleType())\n", unsafe=True,
                fixed=_SETUP + "word_count = udf(lambda s: len(s.split()), \"bigint\")\n"),
        Invalid(_SETUP + "ratio = udf(lambda a, b: a / b, IntegerType())\n", unsafe=True,
                fixed=_SETUP + "ratio = udf(lambda a, b: a / b, \"double\")\n"),
        Invalid(_SETUP + "@udf(returnType='int')\ndef code(s):\n    return s.upper()\n"),
        Invalid(_SETUP + "flag = udf(lambda s: len(s), BooleanType())\n"),
    )
    valid = (
        Valid(_SETUP + "word_count = udf(lambda s: len(s.split()), IntegerType())\n"),
        Valid(_SETUP + "ratio = udf(lambda a, b: a / b, DoubleType())\n"),
        Valid(_SETUP + "label = udf(lambda n: n, StringType())\n"),
        Valid(_SETUP + "as_text = udf(lambda n: len(n), StringType())\n"),
        Valid(_SETUP + "f = udf(lambda x: x.value, IntegerType())\n"),
    )

    def _check(self, site) -> None:
        if site is None or site.function is None or site.return_type is None or site.factory == "pandas_udf":
            return
        declared = declared_type(site.return_type)
        returned = body_type(self.ctx, site.function)
        if declared is None or returned is None or (declared, returned) not in _NULL:
            return
        self.ctx.report(
            self,
            site.return_type,
            f"UDF `{site.name}` is declared to return {declared} but its body returns {returned}: "
            "PySpark does not convert, every value becomes null",
            help=f"declare the type the body returns ({returned}), or convert in the body",
            fix=replace(site.return_type, f'"{DDL[returned]}"', f'Declare "{DDL[returned]}"', safe=False)
            if returned in DDL else None,
        )

    def visit_Call(self, node: cst.Call) -> None:
        self._check(site_for_call(self.ctx, node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check(site_for_def(self.ctx, node))
