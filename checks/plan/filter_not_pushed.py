import re

from checks.plan._plan import (clean, columns_of, conjuncts, expand_python_udfs, partition_columns, scan_below,
                               scan_columns, shown)
from checks.plan._spark import internal_plan_reason, pushed_forms, runtime_filter, translated
from linter.registry import Invalid, PlanRule, Valid
from linter.sources.plan import truncated

_PLAN = """== Physical Plan ==
*(1) Project [o_custkey#36]
+- *(1) Filter (isnotnull(o_orderpriority#40) AND (upper(o_orderstatus#37) = F))
   +- FileScan parquet [o_custkey#36,o_orderstatus#37,o_orderpriority#40] Batched: true, DataFilters: [isnotnull(o_orderpriority#40), (upper(o_orderstatus#37) = F)], Format: Parquet, PartitionFilters: [], PushedFilters: [IsNotNull(o_orderpriority)], ReadSchema: struct<o_custkey:int,o_orderstatus:string,o_orderpriority:string>
"""


def _columns_compared(conjunct: str) -> bool:
    """A plain comparison of two columns (`a#1 < b#2`), with no function, cast or arithmetic around either."""
    return (len(set(re.findall(r"([A-Za-z_]\w*)#\d+", conjunct))) > 1
            and re.search(r"\b[a-z_]+\(|#\d+L?\s*[-+*/%]\s|\s[-+*/%]\s*\w+#\d", conjunct) is None)


def _reason(conjunct: str):
    """Why the condition stayed above the scan, in terms the user can act on; None when nothing would help."""
    if "$Lambda" in conjunct or ".apply" in conjunct:
        return "it is a typed Dataset lambda, opaque to the optimizer"
    if "pythonUDF" in conjunct:
        return "it tests a Python UDF's result"
    if re.search(r"\bcast\(", conjunct, re.I):
        return "a cast is wrapped around the column"
    if re.search(r"\b[a-z_]+\(", conjunct):
        return "a function is wrapped around the column"
    if re.search(r"#\d+L?\s*[-+*/%]\s|\s[-+*/%]\s*\w+#\d", conjunct):
        return "arithmetic is applied to the column (compare the column with a computed value instead)"
    return None  # a form no source filter has (`LIKE` with inner wildcards): nothing the query could change


class FilterNotPushed(PlanRule):
    """
    ## What it does
    Finds conditions of a `Filter` over a file scan (through projections and
    Python evaluation or object deserialisation) that do not reach the scan's
    `PushedFilters`. Each condition is translated as Spark's
    `DataSourceStrategy.translateFilter` does (`isnull` -> `IsNull`,
    `isnotnull` -> `IsNotNull`, `=` -> `EqualTo`, `IN`/`INSET` -> `In`,
    `StartsWith` -> `StringStartsWith`, comparisons flipped when the literal
    comes first, `AND`/`OR`/`NOT` when every part translates) and looked for
    among the pushed filters and the `PartitionFilters`; only a condition no
    source filter carries is reported, with why it stayed behind (a Python
    UDF's result, a function or a cast around the column). A plain
    comparison of two columns (`l_commitdate < l_receiptdate`) or a form no
    source filter has (`o_comment NOT LIKE '%special%requests%'`, inner
    wildcards) is not reported: no data source takes one, and nothing in the
    query would make it pushable. Truncated values (`...`) count as unknown: nothing is
    reported from them.

    Spark's own filters are not the user's and are skipped: the `isnotnull`
    checks the optimizer adds, runtime bloom filters (`might_contain`),
    dynamic partition pruning (`dynamicpruningexpression`), comparisons with
    a scalar subquery's result (no source can take a value known only at run
    time), the blank-line filter of CSV schema inference, and whole jobs that
    are Delta's (reads of `_delta_log`). Photon's and RAPIDS' scans
    (`PhotonScan`, `GpuFileSourceScan`) are not read: they print their own
    pushdown.

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
    default_reason = ("a filter that does not reach the scan runs only after every row was read and decoded; "
                      "conditions no data source could take, and Spark's own filters, are not reported")
    invalid = (Invalid(_PLAN, path="plan.txt"),
               # translatable, but the scan lists nothing for it
               Invalid(_PLAN.replace("(upper(o_orderstatus#37) = F)", "o_orderstatus#37 IN (F,O)"), path="plan.txt"))
    valid = (Valid(_PLAN.replace("(upper(o_orderstatus#37) = F)", "(o_orderstatus#37 = F)")
                   .replace("PushedFilters: [IsNotNull(o_orderpriority)]",
                            "PushedFilters: [IsNotNull(o_orderpriority), EqualTo(o_orderstatus,F)]"), path="plan.txt"),
             # TPC-DS q44: `isnull` is pushed as IsNull
             Valid(_PLAN.replace("(upper(o_orderstatus#37) = F)", "isnull(o_orderstatus#37)")
                   .replace("PushedFilters: [IsNotNull(o_orderpriority)]",
                            "PushedFilters: [IsNotNull(o_orderpriority), IsNull(o_orderstatus)]"), path="plan.txt"),
             Valid(_PLAN.replace("(upper(o_orderstatus#37) = F)", "((o_orderstatus#37 = F) OR (5 < o_custkey#36))")
                   .replace("PushedFilters: [IsNotNull(o_orderpriority)]",
                            "PushedFilters: [IsNotNull(o_orderpriority), "
                            "Or(EqualTo(o_orderstatus,F),GreaterThan(o_custkey,5))]"), path="plan.txt"),
             Valid(_PLAN.replace("(upper(o_orderstatus#37) = F)", "StartsWith(o_orderstatus#37, F)")
                   .replace("PushedFilters: [IsNotNull(o_orderpriority)]",
                            "PushedFilters: [IsNotNull(o_orderpriority), StringStartsWith(o_orderstatus,F)]"),
                   path="plan.txt"),
             # a runtime bloom filter Spark injected
             Valid(_PLAN.replace("(upper(o_orderstatus#37) = F)",
                                 "might_contain(scalar-subquery#71 [], xxhash64(o_custkey#36, 42))"), path="plan.txt"))

    def visit_Filter(self, node) -> None:
        condition = node.attrs.get("Condition", "")
        if not condition or truncated(condition):
            return
        scan = scan_below(node)
        if scan is None or scan.name != "FileScan" or "PushedFilters" not in scan.attrs:
            return
        pushed = scan.attrs["PushedFilters"]
        if truncated(pushed) or internal_plan_reason(self):
            return
        forms = pushed_forms(pushed)
        partition_filters = clean(scan.attrs.get("PartitionFilters", ""))
        partitions = partition_columns(scan)
        output = {c.lower() for c in scan_columns(scan) or ()}
        for conjunct in conjuncts(condition):
            if conjunct.lower().startswith("isnotnull("):
                continue  # null checks Spark adds itself (pushed as IsNotNull when it can)
            if runtime_filter(conjunct):
                continue  # a bloom filter or pruning filter Spark added: tested at run time, never pushed
            if "$Lambda" in conjunct:
                self.ctx.report(self, node, f"a typed Dataset filter (a JVM lambda) is not pushed to the "
                                f"{scan.fmt or 'file'} scan: {_reason(conjunct)}",
                                help="express the condition with Column expressions so the scan can skip data")
                continue
            if scan.fmt == "text" and conjunct.startswith("length(trim(value"):
                continue  # Spark's own job that infers a CSV schema skips blank lines
            if re.search(r"\bSubquery\b|scalar-subquery", conjunct):
                continue  # compared with a subquery's result: no source can take it at planning time
            expanded = expand_python_udfs(conjunct, node)
            columns = columns_of(expanded) - {"lambda"}
            if columns and columns <= partitions:
                continue  # a condition on partition columns is SPK611's
            if clean(conjunct) in partition_filters:
                continue
            if "pythonudf" not in conjunct.lower() and output:
                columns &= output  # string literals print without quotes: `p_brand#5 = Brand#23`
            if not columns:
                continue  # no column of the scan: nothing a source could skip by
            form = translated(conjunct, output or None)
            if form is not None and form in forms:
                continue  # translated as Spark does, and the scan carries it
            if form is None and _columns_compared(conjunct):
                continue  # `l_commitdate < l_receiptdate`: no source filter compares two columns, nothing to change
            why = "the scan did not take it" if form is not None else _reason(conjunct)
            if why is None:
                continue  # `o_comment LIKE %special%requests%`: no source filter has the form, nothing to rewrite
            self.ctx.report(self, node, f"`{shown(conjunct)}` is not pushed to the {scan.fmt or 'file'} scan: "
                            f"{why}", help="filter on the column itself so the scan can skip data")
