"""`sparkcheck fleet PATH|URL ...`: every application under the inputs, ranked by wasted core time.

Exit codes: 0 when every application (and every input's listing) was read, 1 when something was not (an
unreadable, undecodable or cut-off log, a server or bucket that kept failing, a run interrupted with
Ctrl-C), 2 for bad flags or an internal error. The findings of the runs do not change the exit code: a
fleet always has some, and the report is for reading, not for gating.
"""

from __future__ import annotations

import sys

from linter.command import EXIT_CLEAN, EXIT_FINDINGS, UsageError, emit, overrides

FORMATS = ("full", "json", "csv", "html")


def add_options(command, extend) -> None:
    """The flags of `sparkcheck fleet` (`extend`: linter/cli.py's comma-splitting list action)."""
    command.add_argument("paths", nargs="+", metavar="DIR|URL",
                         help="directories of event logs, History Server URLs, or object store prefixes "
                              "(s3://, s3a://, gs://, abfss://; needs sparkcheck[fleet])")
    command.add_argument("--since", metavar="WHEN", help="only applications started at or after WHEN "
                                                         "(2026-11-30, 2026-11-30T08:00, or 7d, 12h, 30m before now)")
    command.add_argument("--until", metavar="WHEN", help="only applications started at or before WHEN")
    command.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                         help="processes reading logs (default: the machine's cores; 1: in this process)")
    command.add_argument("--output-format", choices=FORMATS, default=None, metavar="FORMAT",
                         help=f"one of: {', '.join(FORMATS)} (default: full, a ranked table)")
    command.add_argument("-o", "--output-file", metavar="FILE")
    command.add_argument("-q", "--quiet", action="store_true", help="no progress bar on stderr")
    command.add_argument("--select", action=extend("select"))
    command.add_argument("--ignore", action=extend("ignore"))
    command.add_argument("--extend-select", action=extend("extend_select"))
    command.add_argument("--config", action="append", default=[], metavar="PATH|KEY=VALUE")
    command.add_argument("--preview", action="store_true", default=None)
    command.add_argument("--exit-zero", action="store_true", help="exit 0 even when some log could not be read")
    command.add_argument("--on-spark", action="store_true",
                         help="read the logs in Spark tasks (pyspark; --master picks the cluster)")
    command.add_argument("--master", default=None, metavar="URL",
                         help="--on-spark: the Spark master (default: the session's own, else local[*])")
    command.add_argument("--partitions", type=int, default=None, metavar="N",
                         help="--on-spark: partitions of the list of logs (default: 4 per executor core, "
                              "or one per 100 logs when there are more)")
    command.add_argument("--parquet", metavar="DIR",
                         help="--on-spark: also write DIR/applications and DIR/findings as Parquet tables")


def config_of(args, since=None, until=None) -> tuple:
    """(command-line values, --config file, since ms, until ms): what a pool process or Spark task rebuilds the
    settings and the window from."""
    for flag in ("fixable", "unfixable", "exclude", "extend_exclude", "force_exclude", "respect_gitignore",
                 "target_spark"):
        setattr(args, flag, None)
    values, config_file = overrides(args)
    return values, config_file, None if since is None else since * 1000, None if until is None else until * 1000


def run_fleet(args) -> int:
    from linter.config import ConfigError
    from linter.fleet import report, sources
    from linter.fleet.progress import Progress
    from linter.fleet.runner import default_jobs, run
    from linter.fleet.trend import recurring

    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    since = sources.parse_when(args.since) if args.since else None
    until = sources.parse_when(args.until) if args.until else None
    if since is not None and until is not None and since > until:
        raise UsageError("--since is after --until")
    if args.parquet and not args.on_spark:
        raise UsageError("--parquet writes the tables from a Spark run: add --on-spark")
    config = config_of(args, since, until)
    from linter.config import Resolver

    Resolver(dict(config[0]), config[1])  # a bad --config or key fails here, once, not in every process
    listed, failures = [], []
    for path in args.paths:
        try:
            listed.extend(sources.sources([path], since, until))  # each source filters what it can
        except ConfigError as exc:
            if len(args.paths) == 1:
                raise
            failures.append(str(exc))  # one input that cannot be listed: the others go on
    if not listed and not failures:
        raise UsageError(f"{', '.join(args.paths)}: no event log here (plain, .gz, .zstd, .lz4, .snappy, "
                         "eventlog_v2_ directories)")
    show = sys.stderr.isatty() and not args.quiet
    progress = Progress(len(listed), sum(s.size for s in listed), show)
    if args.on_spark:
        from linter.fleet.spark import run_on_spark

        result = run_on_spark(listed, config, args.master, args.partitions, args.parquet)
    else:
        result = run(listed, config, args.jobs or default_jobs(), progress)
    # in input order, whichever process or task finished first
    rows = sorted(result.rows, key=lambda r: (r["log"], r["application"]))
    findings = sorted(result.findings, key=lambda f: f.sort_key())
    not_started = result.total - result.done if result.interrupted else 0
    jobs = recurring(rows)
    missing = report.not_read(rows, failures)
    fmt = args.output_format or "full"
    emit(report.render(fmt, rows, jobs, missing, not_started, findings), args.output_file)
    if result.interrupted:
        print(f"sparkcheck: interrupted: {len(rows)} of {result.total} applications read, the report has those",
              file=sys.stderr)
    return EXIT_FINDINGS if (missing or not_started) and not args.exit_zero else EXIT_CLEAN
