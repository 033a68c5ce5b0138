from checks.plan._plan import BUILDABLE, NOT_SHUFFLED, join_keys, side_shuffle, side_size
from checks.plan._spark import internal_plan_reason
from linter.registry import Invalid, Option, PlanRule, Valid
from linter.sources.plan import MIB, format_size

_PLAN = """== Physical Plan ==
AdaptiveSparkPlan (25)
+- == Final Plan ==
   ResultQueryStage (17)
   +- * HashAggregate (16)
      +- * Project (15)
         +- * SortMergeJoin Inner (14)
            :- * Sort (7)
            :  +- AQEShuffleRead (6), coalesced
            :     +- ShuffleQueryStage (5), Statistics(sizeInBytes=1562.5 KiB, rowCount=1.00E+5)
            :        +- Exchange (4)
            :           +- * Project (3)
            :              +- * Range (1)
            +- * Sort (13)
               +- AQEShuffleRead (12), coalesced
                  +- ShuffleQueryStage (11), Statistics(sizeInBytes=160.0 B, rowCount=10)
                     +- Exchange (10)
                        +- * Project (9)
                           +- * Range (8)
"""
_GIB = 1 << 30
_UNBOUNDED = 1 << 50  # an estimate over a PiB on a side of a join that runs here says only "unknown"
# DataFlint's tiers: when the other side is very large, a bigger broadcast still pays.
_TIERS = ((1 << 40, 5 * _GIB), (300 * _GIB, 1000 * MIB), (10 * _GIB, 100 * MIB))


def limit_for(other, base: float) -> float:
    for above, limit in _TIERS:
        if other is not None and other > above:
            return max(limit, base)
    return base


class BroadcastableShuffleJoin(PlanRule):
    """
    ## What it does
    Finds a `SortMergeJoin` or `ShuffledHashJoin` whose smaller side is small
    enough to broadcast, from sizes the input proves: the statistics of an AQE
    query stage (formatted explain of a run query), the measured data size of
    the shuffle (event logs, History Server, `sparkcheck capture`), or the cost
    mode's estimate (`explain("cost")`). Without a size nothing is reported.
    Joins whose sides need no shuffle (bucketed or storage-partitioned tables)
    are left alone, and only a side the join type can build is considered
    (the right side of a left outer join, either side of an inner join).

    What AQE already did is not reported: a join it turned into a broadcast
    hash join at run time is a `BroadcastHashJoin` in the final plan, and the
    final plan is what is read (an initial plan's `SortMergeJoin` is not).
    A side fed by a `ReusedExchange` is judged by the reused shuffle's size,
    and the message says the shuffle is shared. Delta's own jobs (reads of
    `_delta_log`) are skipped; RAPIDS' `GpuShuffledHashJoin` and Photon's
    joins are not read.

    ## Why is this bad?
    A sort-merge join shuffles and sorts both sides. When one side is a few
    megabytes, sending it whole to every executor (a broadcast hash join)
    avoids both shuffles and both sorts. Spark does this by itself below
    `spark.sql.autoBroadcastJoinThreshold` (10 MiB), but only when it knows the
    size before the run: after a filter, an aggregation, or with the threshold
    set to -1, it does not.

    ## Example
    ```text
    +- * SortMergeJoin Inner (14)
       :- ... ShuffleQueryStage (5), Statistics(sizeInBytes=1562.5 KiB, rowCount=1.00E+5)
       +- ... ShuffleQueryStage (11), Statistics(sizeInBytes=160.0 B, rowCount=10)
    ```

    ## Use instead
    ```text
    +- * BroadcastHashJoin [k#1L], [k2#3L], Inner, BuildRight, false
    ```
    `big.join(F.broadcast(small), "k")`, or `/*+ BROADCAST(small) */` in SQL.

    ## Fix safety
    No fix: plans are read, not written.

    ## Options
    - `small-side-mib` (default 10.0): the largest side reported as broadcastable.
      Larger other sides raise it, as DataFlint does: 100 MiB when the other side
      is over 10 GiB, 1000 MiB over 300 GiB, 5 GiB over 1 TiB, when that size was
      measured (an optimizer's estimate of a join's output can be any size and
      raises nothing).

    ## References
    - Spark SQL performance tuning guide, "Join Strategy Hints for SQL Queries" and
      `spark.sql.autoBroadcastJoinThreshold`.
    - DataFlint, "Join could be a broadcast join" alert (its size tiers).
    """

    code = "SPK604"
    name = "broadcastable-shuffle-join"
    summary = "a shuffled join with a side small enough to broadcast"
    default_reason = ("a shuffled join of a side small enough to broadcast pays two shuffles and two sorts "
                      "for nothing; reported only from sizes the plan or event log proves, never guessed")
    options = {"small-side-mib": Option(10.0, "The largest side (MiB) reported as broadcastable.")}
    invalid = (Invalid(_PLAN, path="plan.txt"),
               Invalid(_PLAN.replace("sizeInBytes=160.0 B", "sizeInBytes=60.0 MiB").replace("1562.5 KiB", "20.0 GiB"),
                       path="plan.txt"))
    valid = (
        Valid(_PLAN.replace("sizeInBytes=160.0 B", "sizeInBytes=160.0 MiB").replace("1562.5 KiB", "1562.5 MiB"),
              path="plan.txt"),
        # the other side is over 10 GiB: up to 100 MiB still counts, 160 MiB does not
        Valid(_PLAN.replace("sizeInBytes=160.0 B", "sizeInBytes=160.0 MiB").replace("1562.5 KiB", "20.0 GiB"),
              path="plan.txt"),
        Valid(_PLAN.replace("SortMergeJoin Inner", "SortMergeJoin FullOuter"), path="plan.txt"),
        Valid(_PLAN, path="plan.txt", options={"small-side-mib": 0.0001}),
    )

    def visit_SortMergeJoin(self, node) -> None:
        if len(node.children) != 2 or internal_plan_reason(self):
            return
        _, _, kind = join_keys(node)
        sizes = [side_size(node, i, self.ctx.logical) for i in (0, 1)]
        if any(source == NOT_SHUFFLED for _, source in sizes):
            return  # a side is not shuffled here (bucketed, storage-partitioned): the join costs no exchange
        candidates = [i for i in BUILDABLE.get(kind or "", ()) if sizes[i][0] is not None]
        if not candidates:
            return
        small = min(candidates, key=lambda i: sizes[i][0])
        size, source = sizes[small]
        other, other_source = sizes[1 - small]
        estimated = other_source == "the optimizer's estimate"
        # the tiers follow what the other side measured; the optimizer's estimate of a join's output can be
        # any size (TPC-DS: "2446540747.8 TiB"), so an estimate does not raise the limit
        if size > limit_for(None if estimated else other, self.opts["small-side-mib"] * MIB):
            return
        side = ("left", "right")[small]
        against = f" against {format_size(other)}" if other is not None else ""
        if estimated and other is not None and other > _UNBOUNDED:
            against = " against an estimate the optimizer could not bound"
        exchange, _ = side_shuffle(node.children[small])
        if exchange is not None and exchange.name == "ReusedExchange":
            source += "; the shuffle is a ReusedExchange, shared with another part of the query"
        self.ctx.report(
            self, node,
            f"`{node.name}` ({kind}) shuffles and sorts both sides, but its {side} side is {format_size(size)} "
            f"({source}){against}: a broadcast hash join would skip both shuffles",
            help="broadcast the small side: F.broadcast(df) or a /*+ BROADCAST(t) */ hint "
                 "(spark.sql.autoBroadcastJoinThreshold decides only when the size is known before the run)")

    visit_ShuffledHashJoin = visit_SortMergeJoin
