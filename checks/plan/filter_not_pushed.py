import re

from checks.plan._plan import (clean, columns_of, conjuncts, expand_python_udfs, partition_columns, scan_below,
                               scan_columns)
from linter.registry import Invalid, PlanRule, Valid
from linter.sources.plan import truncated

_PLAN = """== Physical Plan ==
*(1) Project [o_custkey#36]
+- *(1) Filter (isnotnull(o_orderpriority#40) AND (upper(o_orderstatus#37) = F))
   +- FileScan parquet [o_custkey#36,o_orderstatus#37,o_orderpriority#40] Batched: true, DataFilters: [isnotnull(o_orderpriority#40), (upper(o_orderstatus#37) = F)], Format: Parquet, PartitionFilters: [], PushedFilters: [IsNotNull(o_orderpriority)], ReadSchema: struct<o_custkey:int,o_orderstatus:string,o_orderpriority:string>
"""


def _reason(conjunct: str) -> str:
    if "$Lambda" in conjunct or ".apply" in conjunct:
        return "it is a typed Dataset lambda, opaque to the optimizer"
    if "pythonUDF" in conjunct:
        return "it tests a Python UDF's result"
    if re.search(r"\bcast\(", conjunct, re.I):
        return "a cast is wrapped around the column"
    if re.search(r"\b[a-z_]+\(", conjunct):
        return "a function is wrapped around the column"
    return "the data source cannot evaluate it"


class FilterNotPushed(PlanRule):
    """
    ## What it does
    Finds conditions of a `Filter` over a file scan (through projections and
    Python evaluation or object deserialisation) that do not reach the scan's
    `PushedFilters`: each
    condition on data columns is looked for, by its columns, among the pushed
    filters, and the message says which condition stayed behind and why (a
    Python UDF's result, a function or a cast around the column). Truncated
    values (`...`) count as unknown: nothing is reported from them.

    ## Why is this bad?
    A pushed filter lets Parquet and ORC skip row groups by their statistics
    and read less; a condition that is not pushed is evaluated only after every
    row was read and decoded. A UDF or a function around the column is the usual
    reason.

    ## Example
    ```text
    +- Filter (isnotnull(o_orderpriority#40) AND (upper(o_orderstatus#37) = F))
       +- FileScan parquet [...] PushedFilters: [IsNotNull(o_orderpriority)], ...
    ```

    ## Use instead
    ```text
    +- Filter (isnotnull(o_orderstatus#37) AND (o_orderstatus#37 = F))
       +- FileScan parquet [...] PushedFilters: [IsNotNull(o_orderstatus), EqualTo(o_orderstatus,F)], ...
    ```
    Compare the column itself (store normalised values, or filter on `col ==
    'F'` rather than `upper(col) == 'F'`).

    ## Fix safety
    No fix: plans are read, not written.

    ## References
    - Spark SQL guide, "Parquet Files: Configuration" (`spark.sql.parquet.filterPushdown`).
    """

    code = "SPK603"
    name = "filter-not-pushed"
    summary = "a filter over a file scan that does not reach PushedFilters"
    invalid = (Invalid(_PLAN, path="plan.txt"),)
    valid = (Valid(_PLAN.replace("(upper(o_orderstatus#37) = F)", "(o_orderstatus#37 = F)")
                   .replace("PushedFilters: [IsNotNull(o_orderpriority)]",
                            "PushedFilters: [IsNotNull(o_orderpriority), EqualTo(o_orderstatus,F)]"), path="plan.txt"),)

    def visit_Filter(self, node) -> None:
        condition = node.attrs.get("Condition", "")
        if not condition or truncated(condition):
            return
        scan = scan_below(node)
        if scan is None or scan.name != "FileScan" or "PushedFilters" not in scan.attrs:
            return
        pushed = scan.attrs["PushedFilters"]
        if truncated(pushed):
            return
        pushed_columns = {c.lower() for c in re.findall(r"\(([A-Za-z_]\w*)", pushed)}
        partitions = partition_columns(scan)
        output = {c.lower() for c in scan_columns(scan) or ()}
        for conjunct in conjuncts(condition):
            if conjunct.lower().startswith("isnotnull("):
                continue  # null checks Spark adds itself
            if "$Lambda" in conjunct:
                self.ctx.report(self, node, f"a typed Dataset filter (a JVM lambda) is not pushed to the "
                                f"{scan.fmt or 'file'} scan: {_reason(conjunct)}",
                                help="express the condition with Column expressions so the scan can skip data")
                continue
            if scan.fmt == "text" and conjunct.startswith("length(trim(value"):
                continue  # Spark's own job that infers a CSV schema skips blank lines
            if re.search(r"\bSubquery\b|scalar-subquery", conjunct):
                continue  # compared with a subquery's result: no source can take it at planning time
            columns = columns_of(expand_python_udfs(conjunct, node)) - {"lambda"}
            if columns and columns <= partitions:
                continue  # a condition on partition columns is SPK611's
            if "pythonudf0" in conjunct.lower() or any(c.startswith("pythonudf") for c in columns):
                columns = {"pythonudf"}
            elif output:
                columns &= output  # string literals print without quotes: `p_brand#5 = Brand#23`
            if columns and not columns <= pushed_columns or (columns and re.search(r"\b[a-z_]+\(", conjunct)):
                self.ctx.report(self, node, f"`{clean(conjunct)}` is not pushed to the {scan.fmt or 'file'} scan: "
                                f"{_reason(conjunct)}", help="filter on the column itself so the scan can skip data")
