import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import DATAFRAME, NA, Schema, keyword_arg, literal_string, literal_type, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
    "people = spark.read.schema('id BIGINT, name STRING, age INT, score DOUBLE, vip BOOLEAN').parquet('/p')\n"
)
_ACCEPTS = {"int": {"int", "float", "decimal"}, "float": {"int", "float", "decimal"},
            "str": {"str"}, "bool": {"bool"}}


class FillnaTypeMismatch(PythonRule):
    """
    ## What it does
    Finds `fillna` / `na.fill` with a value whose type cannot apply to the
    columns named in `subset` (or in the dictionary form), when the file
    declares those columns' types (a DDL schema on the read, a
    `createDataFrame` schema, a `cast`): a string for a numeric column, a
    number for a string column, a bool for a non-boolean one.

    ## Why is this bad?
    `fillna` only fills columns whose type matches the value and silently
    skips the others: `fillna("unknown", subset=["age"])` leaves every null
    age null, with no error.

    ## Example
    ```python
    people = people.fillna("unknown", subset=["name", "age"])
    ```

    ## Use instead
    ```python
    people = people.fillna({"name": "unknown", "age": 0})
    ```

    ## Fix safety
    No fix.

    ## References
    - PySpark API: `DataFrame.fillna` ("Columns specified in subset that do
      not have matching data types are ignored").
    """

    code = "SPK308"
    name = "fillna-type-mismatch"
    summary = "`fillna` with a value that does not match the column's type is silently ignored"
    default_reason = ("`fillna` silently skips columns of another type and leaves every null in "
                      "place, with no error; reported only where the file declares the column's type")
    severity = "error"
    triggers = ("fillna", "fill")
    doc_setup = "people = spark.read.schema('id BIGINT, name STRING, age INT').parquet('/p')\n"

    invalid = (
        Invalid(_SETUP + "people = people.fillna('unknown', subset=['name', 'age'])\n"),
        Invalid(_SETUP + "people = people.na.fill({'score': 'n/a'})\n"),
        Invalid(_SETUP + "people = people.fillna(0, subset=['name'])\n"),
    )
    valid = (
        Valid(_SETUP + "people = people.fillna({'name': 'unknown', 'age': 0})\n"),
        Valid(_SETUP + "people = people.fillna(0.0, subset=['score', 'age'])\n"),
        Valid("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
              "t = spark.table('t')\nt = t.fillna('x', subset=['age'])\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in ("fillna", "fill"):
            return
        receiver = self.ctx.semantic.infer(node.func.value)
        if receiver is None or receiver.kind not in ((DATAFRAME,) if method == "fillna" else (NA,)):
            return
        if receiver.kind == NA:
            receiver = self.ctx.semantic.infer(node.func.value.value)
        schema = receiver.detail if receiver is not None and isinstance(receiver.detail, Schema) else None
        if schema is None:
            return
        args = positional_args(node)
        value = args[0] if args else keyword_arg(node, "value")
        pairs = []
        if isinstance(value, cst.Dict):
            for element in value.elements:
                if isinstance(element, cst.DictElement):
                    pairs.append((literal_string(element.key), element.value))
        else:
            subset = args[1] if len(args) > 1 else keyword_arg(node, "subset")
            names = [literal_string(e.value) for e in subset.elements] if isinstance(subset, (cst.List, cst.Tuple)) else []
            pairs = [(n, value) for n in names]
        for name, fill in pairs:
            fill_type = literal_type(fill) if fill is not None else None
            column_type = schema.type_of(name) if name else None
            if fill_type not in _ACCEPTS or column_type is None:
                continue
            if column_type not in _ACCEPTS[fill_type]:
                self.ctx.report(
                    self,
                    fill,
                    f"`{method}` with a {fill_type} value does not apply to `{name}` ({column_type}): "
                    "Spark skips the column silently and its nulls stay",
                    help=f"fill `{name}` with a {column_type} value (the dictionary form takes one per column)",
                )
