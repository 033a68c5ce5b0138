from checks.plan._plan import (clean, columns_of, conjuncts, expand_python_udfs, partition_columns, scan_below,
                               shown)
from checks.plan._spark import internal_plan_reason, runtime_filter
from linter.registry import Invalid, PlanRule, Valid
from linter.sources.plan import truncated

_PLAN = """== Physical Plan ==
*(1) Project [o_orderkey#35, o_totalprice#38]
+- *(1) Filter (cast(o_orderdate#40 as string) = 1995-03-15)
   +- *(1) ColumnarToRow
      +- FileScan parquet [o_orderkey#35,o_totalprice#38,o_orderdate#40] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<o_orderkey:int,o_totalprice:double>
"""


class PartitionFilterNotPushed(PlanRule):
    """
    ## What it does
    Finds a filter on a partition column of a file scan that did not become a
    partition filter: a `Filter` above a `FileScan` (through projections)
    whose condition uses a column the scan outputs but does not read from the
    files (not in `ReadSchema`: a partition column), while that condition is
    missing from the scan's `PartitionFilters`. A scan reading every column of
    the files when few are used is not reported: the optimizer already prunes
    columns, and reading them all is then what the query asks for.

    Spark's own filters are skipped: runtime bloom filters (`might_contain`)
    and dynamic partition pruning (`dynamicpruningexpression`, which prunes
    partitions at run time from the other side of a join), the `isnotnull`
    checks the optimizer adds, and Delta's own jobs (reads of `_delta_log`).

    ## Why is this bad?
    Partition pruning skips whole directories before any file is opened. When
    the condition on the partition column is hidden behind a cast, a function
    or a UDF, or compares with a value of another type, Spark lists and reads
    every partition and filters the rows afterwards: a one-day query reads
    years of data.

    ## Example
    ```text
    +- *(1) Filter (cast(o_orderdate#40 as string) = 1995-03-15)
       +- FileScan parquet [...,o_orderdate#40] ... PartitionFilters: [], ...
    ```

    ## Use instead
    ```text
    +- FileScan parquet [...,o_orderdate#40] ... PartitionFilters: [isnotnull(o_orderdate#40), (o_orderdate#40 = 1995-03-15)], ...
    ```
    Compare the partition column itself with a value of its type
    (`F.col("o_orderdate") == F.lit(date(1995, 3, 15))`).

    ## Fix safety
    No fix: plans are read, not written.

    ## References
    - Spark SQL guide, "Parquet Files: Partition Discovery".
    """

    code = "SPK611"
    name = "partition-filter-not-pushed"
    summary = "a filter on a partition column that does not prune partitions"
    default_reason = ("a partition filter hidden behind a cast, a function or a UDF lists and reads every "
                      "partition: a one-day query reads years of data; Spark's own runtime filters are skipped")
    invalid = (Invalid(_PLAN, path="plan.txt"),)
    valid = (Valid(_PLAN.replace("(cast(o_orderdate#40 as string) = 1995-03-15)", "(o_totalprice#38 > 10.0)"),
                   path="plan.txt"),
             Valid(_PLAN.replace("PartitionFilters: []",
                                 "PartitionFilters: [(cast(o_orderdate#40 as string) = 1995-03-15)]"), path="plan.txt"))

    def visit_Filter(self, node) -> None:
        condition = node.attrs.get("Condition", "")
        scan = scan_below(node)
        if not condition or truncated(condition) or scan is None or "PartitionFilters" not in scan.attrs:
            return
        pushed = scan.attrs["PartitionFilters"]
        partitions = partition_columns(scan)
        if truncated(pushed) or not partitions or internal_plan_reason(self):
            return
        pushed_columns = columns_of(pushed)
        for conjunct in conjuncts(condition):
            conjunct = expand_python_udfs(conjunct, node)
            columns = columns_of(conjunct)
            if conjunct.lower().startswith("isnotnull(") or not columns & partitions or runtime_filter(conjunct):
                continue
            if columns & partitions <= pushed_columns and clean(conjunct) in clean(pushed):
                continue
            names = ", ".join(sorted(columns & partitions))
            self.ctx.report(self, node, f"`{shown(conjunct)}` filters on partition column `{names}` but is not a "
                            f"partition filter: every partition is listed and read",
                            help="compare the partition column itself with a value of its type")
