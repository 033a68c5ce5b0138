import libcst as cst

from checks.python._fixes import replace
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import DATAFRAME, Schema, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
    "a = spark.table('a')\nb = spark.table('b')\n"
)


class UnionByPosition(PythonRule):
    """
    ## What it does
    Finds `union` / `unionAll` of two DataFrames whose columns, as the file
    declares them (`select` of names, `toDF`, a DDL schema), are the same set
    in a different order.

    ## Why is this bad?
    `union` matches columns by position, not by name: with `("id", "name")` on
    one side and `("name", "id")` on the other, ids land in the name column.
    If the types are compatible nothing fails, and the data is wrong.

    ## Example
    ```python
    both = a.select("id", "name").union(b.select("name", "id"))
    ```

    ## Use instead
    ```python
    both = a.select("id", "name").unionByName(b.select("name", "id"))
    ```

    ## Fix safety
    Unsafe: `unionByName` changes which values land in which column, which is
    the point, but also the result whenever some code downstream had adapted
    to the mixed-up columns.

    ## References
    - PySpark API: `DataFrame.union` ("resolves columns by position (not by
      name)"), `DataFrame.unionByName`.
    """

    code = "SPK309"
    name = "union-by-position"
    summary = "`union` of DataFrames whose columns are in different orders mixes up columns"
    default_reason = ("`union` matches columns by position, so the same columns in another order put values "
                      "in the wrong column and nothing fails; only column orders the file declares count")
    severity = "error"
    fix = "unsafe"
    triggers = ("union",)
    doc_setup = 'a = spark.table("a")\nb = spark.table("b")\n'

    invalid = (
        Invalid(_SETUP + "both = a.select('id', 'name').union(b.select('name', 'id'))\n", unsafe=True,
                fixed=_SETUP + "both = a.select('id', 'name').unionByName(b.select('name', 'id'))\n"),
        Invalid(_SETUP + "x = a.toDF('k', 'v')\ny = b.toDF('v', 'k')\nz = x.unionAll(y)\n", unsafe=True,
                fixed=_SETUP + "x = a.toDF('k', 'v')\ny = b.toDF('v', 'k')\nz = x.unionByName(y)\n"),
    )
    valid = (
        Valid(_SETUP + "both = a.select('id', 'name').unionByName(b.select('name', 'id'))\n"),
        Valid(_SETUP + "both = a.select('id', 'name').union(b.select('id', 'name'))\n"),
        Valid(_SETUP + "both = a.union(b)\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) not in ("union", "unionAll"):
            return
        args = positional_args(node)
        if len(args) != 1:
            return
        left = self.ctx.semantic.infer(node.func.value)
        right = self.ctx.semantic.infer(args[0])
        if left is None or right is None or left.kind != DATAFRAME or right.kind != DATAFRAME:
            return
        if not isinstance(left.detail, Schema) or not isinstance(right.detail, Schema):
            return
        a, b = left.detail.names(), right.detail.names()
        if a != b and sorted(a) == sorted(b):
            self.ctx.report(
                self,
                node,
                f"`union` matches columns by position: ({', '.join(a)}) against ({', '.join(b)}) mixes them up",
                help="use `unionByName`, or select the columns in the same order on both sides",
                start=node.func.attr,
                fix=replace(node.func.attr, "unionByName", "Use `unionByName`", safe=False),
            )
