from checks.sql._sql import closing_paren
from linter.diagnostics import UNSAFE, Edit, Fix
from linter.registry import Invalid, SqlRule, Valid
from linter.sources.sql import node_span


class SqlCollectListOrderAssumed(SqlRule):
    """
    ## What it does
    Finds Spark SQL that relies on the order of `collect_list(...)`: indexing
    it (`collect_list(x)[0]`, `element_at(collect_list(x), 1)`) or joining it
    into a string (`array_join(collect_list(x), ',')`) without `array_sort` /
    `sort_array` around it. The SQL counterpart of SPK310.

    ## Why is this bad?
    `collect_list` gathers values in the order rows reach the aggregating task,
    which depends on the shuffle: it changes between runs, partition counts
    and Spark versions, so "the first item" is a different item each time.

    ## Example
    ```sql
    SELECT customer_id, array_join(collect_list(page), ' > ') AS path FROM visits GROUP BY customer_id;
    ```

    ## Use instead
    ```sql
    SELECT customer_id, array_join(array_sort(collect_list(page)), ' > ') AS path FROM visits GROUP BY customer_id;
    ```
    To keep the order of another column, sort structs:
    `transform(array_sort(collect_list(struct(ts, page))), x -> x.page)`.

    ## Fix safety
    Unsafe: the fix wraps the `collect_list(...)` in `array_sort(...)`, which
    makes the order deterministic (ascending by value); when another order was
    meant (by time), sort structs instead, by hand.

    ## References
    - Spark SQL built-in functions: `collect_list` (non-deterministic order).
    """

    code = "SPK503"
    name = "sql-collect-list-order-assumed"
    summary = "SQL relies on the order of `collect_list` without a sort"
    default_reason = ("`collect_list` keeps the order rows arrive from the shuffle, so `collect_list(x)[0]` "
                      "names another item from run to run; one wrapped in `array_sort` is not reported")
    fix = "unsafe"

    invalid = (
        Invalid("SELECT c, array_join(collect_list(page), ' > ') AS path FROM v GROUP BY c;\n", path="q.sql",
                unsafe=True,
                fixed="SELECT c, array_join(array_sort(collect_list(page)), ' > ') AS path FROM v GROUP BY c;\n"),
        Invalid("SELECT c, element_at(collect_list(item), 1) AS first_item FROM o GROUP BY c;\n", path="q.sql",
                unsafe=True,
                fixed="SELECT c, element_at(array_sort(collect_list(item)), 1) AS first_item FROM o GROUP BY c;\n"),
        Invalid("SELECT c, collect_list(item)[0] AS first_item FROM o GROUP BY c;\n", path="q.sql", unsafe=True,
                fixed="SELECT c, array_sort(collect_list(item))[0] AS first_item FROM o GROUP BY c;\n"),
    )
    valid = (
        Valid("SELECT c, array_join(array_sort(collect_list(page)), ' > ') FROM v GROUP BY c;\n", path="q.sql"),
        Valid("SELECT c, collect_list(item) AS items FROM o GROUP BY c;\n", path="q.sql"),
        Valid("SELECT c, size(collect_list(item)) AS n FROM o GROUP BY c;\n", path="q.sql"),
    )

    def _check(self, node) -> None:
        from sqlglot import exp

        inner = node.this
        if not isinstance(inner, exp.ArrayAgg):
            return
        text = self.ctx.unit.text
        span, close = node_span(inner), closing_paren(text, inner)
        fix = None
        if span is not None and close is not None and text[span[0]:span[0] + 12].lower() == "collect_list":
            fix = Fix("Sort it: array_sort(collect_list(...))",
                      (Edit(span[0], span[0], "array_sort("), Edit(close + 1, close + 1, ")")), UNSAFE)
        self.ctx.report(
            self,
            inner,
            "this relies on the order of collect_list, which changes from run to run after a shuffle",
            help="sort it: array_sort(collect_list(...)), or sort structs to keep another column's order",
            fix=fix,
        )

    visit_Bracket = visit_ArrayToString = _check
