import libcst as cst

from checks.python._udf import site_for_call, site_for_def, walk_expression
from linter.registry import Invalid, PythonRule, Valid

_SETUP = (
    "import random\nimport uuid\nfrom datetime import datetime\nfrom pyspark.sql import SparkSession\n"
    "from pyspark.sql.functions import udf\nspark = SparkSession.builder.getOrCreate()\n"
)
_NONDETERMINISTIC = (
    "random.", "uuid.uuid1", "uuid.uuid4", "time.time", "time.monotonic", "time.perf_counter", "secrets.",
    "numpy.random.", "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today",
    "datetime.date.today", "faker.",
)


def _faker_names(ctx) -> frozenset:
    """Module-level names bound to a ``faker.Faker()`` generator."""
    names = getattr(ctx, "_faker_names", None)
    if names is None:
        found = set()
        if "Faker" in ctx.unit.text:
            for statement in ctx.module.body:
                for small in getattr(statement, "body", ()):
                    if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call) and \
                            (ctx.semantic.qualified_name(small.value.func) or "").startswith("faker."):
                        found.update(t.target.value for t in small.targets if isinstance(t.target, cst.Name))
        names = ctx._faker_names = frozenset(found)
    return names


def nondeterministic_call(ctx, function):
    for node in walk_expression(function.body):
        if isinstance(node, cst.Call):
            q = ctx.semantic.qualified_name(node.func)
            if q is None and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name) \
                    and node.func.value.value in _faker_names(ctx):
                # `fake.name()` where `fake = Faker()`: the generator's methods draw random values
                q = f"faker.Faker.{node.func.attr.value}"
            if q and (q.startswith(_NONDETERMINISTIC) or q in {n.rstrip(".") for n in _NONDETERMINISTIC}):
                return node, q
    return None


class NondeterministicUdf(PythonRule):
    """
    ## What it does
    Finds Python UDFs whose body calls `random`, `uuid.uuid4`, `time.time`,
    `datetime.now`, `secrets`, `numpy.random` or a `faker.Faker()` generator,
    and that are not marked `.asNondeterministic()`.

    ## Why is this bad?
    Spark assumes a UDF returns the same output for the same input: the
    optimizer may call it more than once for a row (once in a filter, again in
    a projection), skip it, or move it, and a retried task recomputes it. A
    random or time-based value then differs between the places it is used and
    between attempts: duplicate or missing rows after a retry, ids that do not
    match across a join.

    ## Example
    ```python
    new_id = udf(lambda: str(uuid.uuid4()), "string")
    ```

    ## Use instead
    ```python
    new_id = udf(lambda: str(uuid.uuid4()), "string").asNondeterministic()
    ```
    Or a built-in: `F.expr("uuid()")`, `F.rand()`, `F.current_timestamp()`.

    ## Fix safety
    No fix.

    ## References
    - PySpark API: `UserDefinedFunction.asNondeterministic` ("the user-defined
      function is non-deterministic ... due to optimization, duplicate
      invocations may be eliminated or the function may even be invoked more
      times than it is present in the query").
    """

    code = "SPK204"
    name = "nondeterministic-udf"
    summary = "a UDF using random numbers, uuids or the clock is not marked `asNondeterministic()`"
    default_reason = ("Spark may call an unmarked UDF twice for a row, or again on a retry, so random or "
                      "clock values differ between uses: duplicate or missing rows, ids that do not match")
    triggers = ("random", "uuid", "time", "now", "today", "secrets")
    doc_setup = "import uuid\nfrom pyspark.sql.functions import udf\n"

    invalid = (
        Invalid(_SETUP + "new_id = udf(lambda: str(uuid.uuid4()), 'string')\n"),
        Invalid(_SETUP + "@udf('double')\ndef jitter(x):\n    return x + random.random()\n"),
        Invalid(_SETUP + "stamp = udf(lambda s: f'{s}-{datetime.now()}', 'string')\n"),
        Invalid(_SETUP + "from faker import Faker\nfake = Faker()\nsynthetic = udf(lambda s: fake.name(), 'string')\n"),
    )
    valid = (
        Valid(_SETUP + "new_id = udf(lambda: str(uuid.uuid4()), 'string').asNondeterministic()\n"),
        Valid(_SETUP + "shout = udf(lambda s: s.upper(), 'string')\n"),
        Valid("import random\nx = random.random()\n"),
    )

    def _check(self, site) -> None:
        if site is None or site.function is None:
            return
        found = nondeterministic_call(self.ctx, site.function)
        if found is None:
            return
        declared = site.declared
        parent = self.ctx.parent_of(declared) if declared is not None else None
        if isinstance(parent, cst.Attribute) and parent.attr.value == "asNondeterministic":
            return
        call, q = found
        self.ctx.report(
            self,
            site.report,
            f"UDF `{site.name}` calls `{q}` but is not marked `asNondeterministic()`: Spark may run it "
            "several times per row, or skip it, and retries see other values",
            help="mark it: `udf(f, T).asNondeterministic()`, or use a built-in (`F.rand()`, `F.expr('uuid()')`)",
        )

    def visit_Call(self, node: cst.Call) -> None:
        self._check(site_for_call(self.ctx, node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check(site_for_def(self.ctx, node))
