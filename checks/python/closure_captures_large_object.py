import libcst as cst

from checks.python._udf import function_node, shipped_function, site_for_def, walk_expression
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import DATAFRAME, PANDAS, ROWS
from linter.semantic.paths import parameter_names
from linter.semantic.values import target_names
from linter.sources.python import child_nodes

_SETUP = (
    "import pandas as pd\nfrom pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "from pyspark.sql.functions import udf\nspark = SparkSession.builder.getOrCreate()\n"
    "orders = spark.table('orders')\ncountries = spark.table('countries')\n"
)
_WHAT = {DATAFRAME: "a DataFrame", PANDAS: "a pandas DataFrame", ROWS: "collected rows"}


class ClosureCapturesLargeObject(PythonRule):
    """
    ## What it does
    Finds functions shipped to executors (UDFs, RDD transformations,
    `applyInPandas`, `mapInPandas`, ...) that read a variable of the driver
    holding a Spark DataFrame, a pandas DataFrame, rows brought back by
    `collect()`, or a list, set or dict built from such rows.

    ## Why is this bad?
    A Spark DataFrame cannot be used inside a task at all: it fails with
    `PicklingError` / "it appears that you are attempting to reference
    SparkContext from a broadcast variable, action, or transformation". A
    pandas frame or a list of collected rows is pickled into every task's
    closure, once per task, instead of once per executor: thousands of
    copies over the network and in memory.

    ## Example
    ```python
    lookup = countries.toPandas()
    name_of = udf(lambda code: lookup[lookup.code == code].name.iloc[0], "string")
    ```

    ## Use instead
    ```python
    names = spark.sparkContext.broadcast(dict(countries.select("code", "name").collect()))
    name_of = udf(lambda code: names.value.get(code), "string")
    ```
    Better still, join with the (broadcast) DataFrame instead of a UDF.

    ## Fix safety
    No fix.

    ## References
    - Spark RDD programming guide, "Broadcast Variables".
    """

    code = "SPK205"
    name = "closure-captures-large-object"
    summary = "a function shipped to executors captures a DataFrame, pandas frame or collected rows"
    default_reason = ("a Spark DataFrame read inside a task fails it with a PicklingError, and a pandas "
                      "frame or collected rows are pickled into every task's closure, once per task")
    triggers = ("udf", "map", "filter", "foreach", "Pandas", "Arrow", "reduce", "keyBy", "sortBy", "aggregate", "fold")
    doc_setup = 'from pyspark.sql.functions import udf\ncountries = spark.table("countries")\n'

    invalid = (
        Invalid(_SETUP + "seen = orders.select('tag', 'ts').rdd.map(lambda r: (r.tag, r.ts)).groupByKey().collectAsMap()\n"
                "def missing(tag, ts):\n    return ts not in set(seen.get(tag, []))\n\n"
                "missing_udf = udf(missing, 'boolean')\n"),
        Invalid(_SETUP + "lookup = countries.toPandas()\nname_of = udf(lambda c: lookup[lookup.code == c].name.iloc[0], 'string')\n"),
        Invalid(_SETUP + "valid = countries.collect()\nok = orders.rdd.filter(lambda r: r.country in valid)\n"),
        Invalid(_SETUP + "def enrich(r):\n    return countries.filter(F.col('code') == r.c).first()\n\nx = orders.rdd.map(enrich)\n"),
        Invalid(_SETUP + "names = {r.code: r.name for r in countries.collect()}\n"
                "name_of = udf(lambda c: names.get(c), 'string')\n"),
        # `global` makes the module's frame the function's
        Invalid(_SETUP + "lookup = countries.toPandas()\n\ndef name_of(code):\n    global lookup\n"
                "    return lookup[lookup.code == code].name.iloc[0]\n\nx = orders.rdd.map(name_of)\n"),
    )
    valid = (
        Valid(_SETUP + "import pandas as pd\nfrom pyspark.sql.functions import pandas_udf\n\n"
              "@pandas_udf('double')\ndef scaled(s: pd.Series) -> pd.Series:\n    return rescale(df=s, countries=None)\n\n"
              "x = orders.select(scaled('amount'))\n"),
        Valid(_SETUP + "codes = spark.sparkContext.parallelize([('a', 1), ('b', 2)]).collectAsMap()\n"
              "code_of = udf(lambda c: codes.get(c), 'int')\n"),
        Valid(_SETUP + "names = spark.sparkContext.broadcast(dict(countries.select('code', 'name').collect()))\n"
              "name_of = udf(lambda c: names.value.get(c), 'string')\n"),
        Valid(_SETUP + "codes = {'DE', 'FR'}\nok = orders.rdd.filter(lambda r: r.country in codes)\n"),
        Valid(_SETUP + "lookup = countries.toPandas()\nprint(lookup.head())\n"),
        # the function's own `m`, not the module's DataFrame of the same name
        Valid(_SETUP + "import re\nLINE = re.compile(r'(\\w+) (\\d+)')\nm = spark.table('metrics')\n\n"
              "def parse(line):\n    m = LINE.match(line)\n    return (m.group(1), int(m.group(2))) if m else None\n\n"
              "pairs = spark.sparkContext.textFile('logs').map(parse)\n"),
    )

    def _check(self, function, where: str) -> None:
        function = function_node(self.ctx, function)
        if function is None:
            return
        own = set(parameter_names(function))
        own |= _locals(function.body)  # `m = LINE.match(line)` in the function: its own `m`, not the module's
        labels = set()  # `helper(df=s)`'s `df`, `row.df`'s `df`: names of a keyword or an attribute, not variables
        for node in walk_expression(function.body):
            if isinstance(node, cst.Arg) and node.keyword is not None:
                labels.add(id(node.keyword))
            elif isinstance(node, cst.Attribute):
                labels.add(id(node.attr))
            if not isinstance(node, cst.Name) or node.value in own or id(node) in labels:
                continue
            value = self.ctx.semantic.lookup(node.value)
            if value is None or value.kind not in _WHAT:
                continue
            what = _WHAT[value.kind]
            if value.kind == DATAFRAME:
                message = f"`{node.value}` is a DataFrame used inside {where}: DataFrames cannot be used in tasks (pickling fails)"
                help = "join with it instead, or collect a small lookup and broadcast it"
            else:
                message = f"`{node.value}` ({what}) is pickled into every task of {where}"
                help = f"broadcast it once per executor: `bc = spark.sparkContext.broadcast({node.value})`, then `bc.value`"
            self.ctx.report(self, node, message, help=help)
            return

    def visit_Call(self, node: cst.Call) -> None:
        shipped = shipped_function(self.ctx, node)
        if shipped is not None:
            self._check(*shipped)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        site = site_for_def(self.ctx, node)
        if site is not None:
            self._check(node, f"UDF `{site.name}`")


def _locals(body) -> set:
    """The names a shipped function's body binds for itself (assignments, loop, `with`, `except` and
    comprehension targets, imports, nested definitions), but those it declares `global` or `nonlocal`."""
    names, declared = set(), set()
    stack = [body]
    while stack:
        node = stack.pop()
        cls = node.__class__
        if cls in (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr):
            target_names(node.target, names)
        elif cls is cst.AsName:
            target_names(node.name, names)
        elif cls in (cst.FunctionDef, cst.ClassDef):
            names.add(node.name.value)
            continue  # their bodies are their own
        elif cls in (cst.Global, cst.Nonlocal):
            declared.update(n.name.value for n in node.names)
        stack.extend(child_nodes(node))
    return names - declared
