from checks.python.collect_list_aggregation import ADVICE, HOT_KEY
from linter.registry import Invalid, SqlRule, Valid
from linter.sources.sql import node_span


class SqlCollectListAggregation(SqlRule):
    """
    ## What it does
    Finds `collect_list`, `collect_set` and `array_agg` aggregations in Spark
    SQL. The SQL counterpart of SPK406, with its defaults: an array of every
    row (no `GROUP BY`) and an array per window row are reported, an array per
    group only with `--preview`.

    ## Why is this bad?
    These aggregates build one array per group in executor memory and cannot
    use the fast hash aggregate (the plan shows `ObjectHashAggregate`); one
    hot key makes one task build an enormous array: long stages, spill,
    executor OOMs. The order of `collect_list` is not deterministic either.

    ## Example
    ```sql
    SELECT customer_id, collect_list(item_id) AS items FROM orders GROUP BY customer_id;
    ```

    ## Use instead
    ```sql
    SELECT customer_id, count(item_id) AS item_count FROM orders GROUP BY customer_id;
    ```

    ## Fix safety
    No fix.

    ## References
    - Spark SQL built-in functions: `collect_list`, `collect_set`.
    """

    code = "SPK511"
    name = "sql-collect-list-aggregation"
    summary = "SQL `collect_list` / `collect_set` builds an in-memory array per group"
    default_reason = ("a SQL array of every row, or one per window row, is built in one task's memory "
                      "outside the hash aggregate: spills and executor OOMs; arrays per group stay in preview")

    invalid = (
        Invalid("SELECT customer_id, collect_list(item_id) AS items FROM orders GROUP BY customer_id;\n", path="q.sql"),
        Invalid("SELECT c, collect_set(tag) FROM t GROUP BY c;\n", path="q.sql"),
        Invalid("SELECT collect_list(country) AS countries FROM retail;\n", path="q.sql"),
    )
    valid = (Valid("SELECT customer_id, count(item_id) FROM orders GROUP BY customer_id;\n", path="q.sql"),)

    def _report(self, node) -> None:
        from sqlglot import exp

        span = node_span(node)
        text = self.ctx.unit.text
        name = text[span[0]:text.find("(", span[0])].strip() if span else "collect_list"
        if isinstance(node.parent, exp.Window):
            self.ctx.report(self, node, f"`{name}` builds an in-memory array for every row of a window; {HOT_KEY}",
                            help=ADVICE)
            return
        select = node.find_ancestor(exp.Select)
        # an expression from Python (`F.expr("collect_set(x)")` in `groupBy(...).agg`): its grouping is not here
        if select is not None and not select.args.get("group") and not self.ctx.expression:
            self.ctx.report(self, node, f"`{name}` builds one in-memory array of every row, in one task", help=ADVICE)
        elif self.ctx.settings.preview:
            # per group: as safe as the groups are small, which the text cannot show
            self.ctx.report(self, node, f"`{name}` builds an in-memory array per group; {HOT_KEY}", help=ADVICE)

    visit_ArrayAgg = visit_ArrayUniqueAgg = _report
