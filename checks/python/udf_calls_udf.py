import libcst as cst

from checks.python._udf import site_for_call, site_for_def, walk_expression
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import UDF

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql.functions import udf\n"
    "spark = SparkSession.builder.getOrCreate()\n"
)


class UdfCallsUdf(PythonRule):
    """
    ## What it does
    Finds a Python UDF whose body calls another UDF object (a name bound to
    `udf(...)` or decorated with `@udf`).

    ## Why is this bad?
    Calling a UDF does not run its function: it builds a Column expression.
    Inside another UDF, which runs on plain Python values, that call fails
    when the task runs (or returns a Column object where a value was
    expected). Call the plain Python function instead, or compose the two
    UDFs as columns: `outer(inner(F.col("x")))`.

    ## Example
    ```python
    @udf("string")
    def clean(s):
        return s.strip()

    @udf("string")
    def label(s):
        return "item:" + clean(s)
    ```

    ## Use instead
    ```python
    def clean_text(s):
        return s.strip()

    clean = udf(clean_text, "string")

    @udf("string")
    def label(s):
        return "item:" + clean_text(s)
    ```

    ## Fix safety
    No fix.

    ## References
    - PySpark API: `pyspark.sql.functions.udf` (a UDF call returns a Column).
    """

    code = "SPK206"
    name = "udf-calls-udf"
    summary = "a UDF calls another UDF, which builds a Column, not a value"
    default_reason = ("calling a UDF inside another builds a Column, not a value, so the task fails "
                      "when it runs; only names this file binds with `udf(...)` or `@udf` are reported")
    severity = "error"
    triggers = ("udf",)
    doc_setup = "from pyspark.sql.functions import udf\n"

    invalid = (
        Invalid(_SETUP + "@udf('string')\ndef clean(s):\n    return s.strip()\n\n"
                "@udf('string')\ndef label(s):\n    return 'item:' + clean(s)\n"),
        Invalid(_SETUP + "double = udf(lambda x: x * 2, 'int')\nquad = udf(lambda x: double(double(x)), 'int')\n"),
    )
    valid = (
        Valid(_SETUP + "def clean_text(s):\n    return s.strip()\n\nclean = udf(clean_text, 'string')\n"
              "@udf('string')\ndef label(s):\n    return 'item:' + clean_text(s)\n"),
        Valid(_SETUP + "double = udf(lambda x: x * 2, 'int')\nplain = udf(lambda x: x + 1, 'int')\n"),
    )

    def _check(self, site) -> None:
        if site is None or site.function is None:
            return
        for node in walk_expression(site.function.body):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
                value = self.ctx.semantic.lookup(node.func.value)
                if value is not None and value.kind == UDF:
                    self.ctx.report(
                        self,
                        node,
                        f"UDF `{site.name}` calls UDF `{node.func.value}`: inside a UDF that builds a Column, "
                        "not a value, and fails when the task runs",
                        help="call the plain Python function both UDFs wrap, or compose them as columns",
                    )
                    return

    def visit_Call(self, node: cst.Call) -> None:
        self._check(site_for_call(self.ctx, node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check(site_for_def(self.ctx, node))
