"""Fleet diagnosis: every application under a directory, a History Server or an object store, ranked by
the core time it wasted and on what (`sparkcheck fleet`).

Each application is read once into linter/sources/app.py's Application and checked by the same run rules
as `sparkcheck diagnose` (linter/runtime/runs.py's check_application); the fleet keeps only a summary row
and the findings of each, so memory stays flat with the number of applications.

Modules: `sources.py` (what to read: local trees, History Server windows, fsspec URLs), `waste.py` (one
application's row), `analyse.py` (one log -> row and findings, what a pool process or a Spark task runs),
`runner.py` (the process pool, progress, Ctrl-C), `trend.py` (recurring jobs), `report.py` (table, JSON,
CSV, HTML), `progress.py` (the stderr bar), `spark.py` (`--on-spark`, `--parquet`).

How each figure of a row is computed (core-ms in the JSON, core-hours in the table), from the fields the
run rules read:

- allocated: for each executor that runs tasks (Application.workers(): every executor but the driver, the
  driver alone in local mode), its cores x its lifetime (added to removed, or to the application's end),
  as SPK706 (idle-cores) computes capacity.
- used: the sum of successful task durations (launch to finish; Executor.busy_ms), SPK706's busy time.
- failed: the durations of failed task attempts other than those lost with their executor (exceptions,
  FetchFailed, killed speculative copies, commit denials): Failure.time_ms of the failures SPK705 groups.
- lost executors: the durations of the attempts that failed with ExecutorLostFailure or were Resubmitted
  because their executor's output was lost (the failures SPK704 reports).
- skew: for each stage SPK701 (task-skew) would flag by time (longest task over `time-ratio` medians and
  over `min-seconds`), the straggler's time past the median task, times the other task slots that had
  nothing left to do: (max - median) x (min(tasks, cores) - 1).
- idle: allocated - used - failed - lost - skew, at least 0. Local-mode runs count no idle time (SPK706
  does not judge them: one machine's cores, not a cluster's); skew is counted there too.
- GC: each successful task's JVM GC time, counted up to its run time (linter/sources/metrics.py's
  stage_gc, SPK702's share), summed over every stage.
- spill: a log gives spilled bytes, not spill time. For stages spilling at least SPK703's `min-mib` to
  disk, the time to write and read back those bytes at SPILL_MIB_PER_SECOND per core
  (2 x disk bytes / rate), at most the stage's task run time. An estimate, named so in the reports.

Causes do not overlap: idle, skew and the failures are time the cores held did no useful task work; GC
and spill are parts of the used time. `wasted` is their sum and ranks the table.

Recurring jobs (trend.py): applications are grouped by name; Spark's default names (`pyspark-shell`,
`Spark shell`, `PySparkShell`...) are shared by unrelated jobs, so for those the files of the actions'
call sites join the key. In start order, a run is named when its run time is at least twice the median of
the runs before it, or when it spilled to disk and none of the runs before it did.
"""
