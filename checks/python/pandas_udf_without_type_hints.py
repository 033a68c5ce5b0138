import libcst as cst

from checks.python._udf import function_type_arg, pandas_udf_kind, site_for_call, site_for_def
from linter.registry import Invalid, PythonRule, Valid

_SETUP = (
    "import pandas as pd\nfrom pyspark.sql import SparkSession\n"
    "from pyspark.sql.functions import PandasUDFType, pandas_udf\nfrom pyspark.sql.types import DoubleType\n"
    "spark = SparkSession.builder.getOrCreate()\n"
)
_HINTS = {
    "SCALAR": "`def f(s: pd.Series) -> pd.Series`",
    "SCALAR_ITER": "`def f(batches: Iterator[pd.Series]) -> Iterator[pd.Series]`",
    "GROUPED_AGG": "`def f(s: pd.Series) -> float` (a scalar return type)",
    "GROUPED_AGG_ITER": "`def f(batches: Iterator[pd.Series]) -> float`",
}


class PandasUdfWithoutTypeHints(PythonRule):
    """
    ## What it does
    Finds pandas UDFs whose kind is given by `PandasUDFType` (or its number)
    rather than by Python type hints: `@pandas_udf("double",
    PandasUDFType.SCALAR)`, `functionType=PandasUDFType.GROUPED_AGG`,
    `pandas_udf(f, T, PandasUDFType.SCALAR_ITER)`, and the
    `PandasUDFType.GROUPED_MAP` form that `groupBy(...).apply(...)` takes.
    Not reported when `target-spark` is below 3.0, where there are no type
    hints.

    With `--preview`, also a pandas UDF with neither: no `functionType` and
    no annotation on its function (or a lambda). It works, as a scalar UDF
    by default, so that part is a preview: the code only does not say which
    kind it is.

    ## Why is this bad?
    Since Spark 3.0 the type hints decide what a pandas UDF is
    (`pd.Series -> pd.Series` scalar, `Iterator[pd.Series] ->
    Iterator[pd.Series]` iterator, `pd.Series -> float` aggregate), and the
    `functionType` form is kept only for compatibility: PySpark warns at
    every definition ("it is preferred to specify type hints for pandas UDF
    instead of specifying pandas UDF type which will be deprecated in the
    future releases", SPARK-28264), and `groupBy(...).apply(grouped_map_udf)`
    warns that `applyInPandas` should be used. A UDF without either is a
    scalar UDF by default, whatever its author meant: one written as an
    aggregate (returning one value) fails only when it runs.

    ## Example
    ```python
    @pandas_udf("double", PandasUDFType.SCALAR)
    def to_eur(amount):
        return amount * 0.92
    ```

    ## Use instead
    ```python
    @pandas_udf("double")
    def to_eur(amount: pd.Series) -> pd.Series:
        return amount * 0.92
    ```
    For `GROUPED_MAP`: a plain function and `df.groupBy(...).applyInPandas(func, schema)`.

    ## Fix safety
    No fix: the hints are only derivable for what the file says. A struct
    column reaches a scalar UDF as a `pd.DataFrame`, not a `pd.Series`, and
    the input columns' types are not in the file; iterator and aggregate
    kinds need `Iterator[...]` and scalar hints, and `GROUPED_MAP` needs its
    call sites changed to `applyInPandas`.

    ## References
    - PySpark API: `pyspark.sql.functions.pandas_udf` ("From Spark 3.0 with
      Python 3.6+, Python type hints detect the function types"),
      `GroupedData.apply`, `GroupedData.applyInPandas`.
    - SPARK-28264, "Revisiting Python / pandas UDF".
    """

    code = "SPK211"
    name = "pandas-udf-without-type-hints"
    summary = "a pandas UDF whose kind is set by `PandasUDFType` instead of type hints"
    default_reason = ("the `PandasUDFType` form is kept only for compatibility and PySpark warns at every "
                      "definition; not reported when `target-spark` is below 3.0, where there are no type hints")
    triggers = ("pandas_udf",)
    doc_setup = "import pandas as pd\nfrom pyspark.sql.functions import PandasUDFType, pandas_udf\n"

    invalid = (
        Invalid(_SETUP + "@pandas_udf('double', PandasUDFType.SCALAR)\ndef to_eur(amount):\n    return amount * 0.92\n"),
        Invalid(_SETUP + "@pandas_udf(returnType=DoubleType(), functionType=PandasUDFType.GROUPED_AGG)\n"
                "def mean_amount(v):\n    return v.mean()\n"),
        Invalid(_SETUP + "@pandas_udf('id long, v double', PandasUDFType.GROUPED_MAP)\n"
                "def center(pdf):\n    return pdf.assign(v=pdf.v - pdf.v.mean())\n"),
        Invalid(_SETUP + "from pyspark.sql import functions as F\n"
                "plus_one = F.pandas_udf(lambda s: s + 1, 'long', PandasUDFType.SCALAR)\n"),
        Invalid(_SETUP + "@pandas_udf('double', 200)\ndef to_eur(amount):\n    return amount * 0.92\n"),
        # no kind at all: reported with --preview
        Invalid(_SETUP + "@pandas_udf(returnType=DoubleType())\ndef double_it(col):\n    return col * 2\n"),
        Invalid("import pandas as pd\nfrom pyspark.sql import types as t\n"
                "from pyspark.sql.pandas.functions import PandasUDFType, pandas_udf\n\n"
                "@pandas_udf(returnType=t.DoubleType(), functionType=PandasUDFType.SCALAR)\n"
                "def halve(x: pd.Series) -> pd.Series:\n    return x / 2\n", preview=False),
        Invalid(_SETUP + "plus_one = pandas_udf(lambda s: s + 1, 'long')\n"),
    )
    valid = (
        Valid(_SETUP + "@pandas_udf('double')\ndef to_eur(amount: pd.Series) -> pd.Series:\n    return amount * 0.92\n"),
        Valid(_SETUP + "@pandas_udf('double')\ndef mean_amount(v: pd.Series) -> float:\n    return v.mean()\n"),
        Valid(_SETUP + "@pandas_udf('double')\ndef to_eur(amount: pd.Series):\n    return amount * 0.92\n"),
        Valid(_SETUP + "from pyspark.sql.functions import udf\n"
                "@udf(returnType=DoubleType())\ndef double_it(col):\n    return col * 2\n"),
        Valid(_SETUP + "def to_eur(amount: pd.Series) -> pd.Series:\n    return amount * 0.92\n\n"
                "to_eur_udf = pandas_udf(to_eur, 'double')\n"),
    )

    def _check(self, site) -> None:
        if site is None or site.factory != "pandas_udf" or self.ctx.settings.target_spark < (3, 0):
            return
        given = function_type_arg(site)
        kind = pandas_udf_kind(self.ctx, site)
        if kind == "GROUPED_MAP":
            message = (f"pandas UDF `{site.name}` is declared with `PandasUDFType.GROUPED_MAP`, for "
                       f"`groupBy(...).apply(...)`: PySpark warns that `applyInPandas` replaces both")
            help = "pass the plain function to `df.groupBy(...).applyInPandas(func, schema)`"
        elif kind is not None:
            message = (f"pandas UDF `{site.name}` sets its kind with `PandasUDFType.{kind}`: since Spark 3.0 type "
                       f"hints decide it, and PySpark warns at every definition")
            help = f"drop `functionType` and annotate the function: {_HINTS[kind]}"
        elif given is None and self.ctx.settings.preview and not _annotated(site.function):
            what = "a lambda, which cannot carry type hints" if isinstance(site.function, cst.Lambda) else \
                "no type hints"
            message = (f"pandas UDF `{site.name}` has {what}: Spark makes it a scalar UDF by default, and nothing "
                       f"says which kind was meant")
            help = "annotate it (`def f(s: pd.Series) -> pd.Series` for a scalar UDF)"
        else:
            return
        self.ctx.report(self, site.report, message, help=help)

    def visit_Call(self, node: cst.Call) -> None:
        self._check(site_for_call(self.ctx, node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check(site_for_def(self.ctx, node))


def _annotated(function) -> bool:
    """Whether the function carries a type hint PySpark reads (None: a function not in this file counts as yes)."""
    if function is None:
        return True
    if isinstance(function, cst.Lambda):
        return False
    params = function.params
    every = (*params.posonly_params, *params.params, *params.kwonly_params, params.star_arg, params.star_kwarg)
    return function.returns is not None or any(isinstance(p, cst.Param) and p.annotation is not None for p in every)
