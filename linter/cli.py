"""The ``sparkcheck`` command: check, rule, rules, init.

Exit codes: 0 clean (or everything fixed), 1 findings, 2 bad flags, bad
configuration or an internal error (one line on stderr).  Machine formats print
nothing but their document on stdout.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional

from linter import __version__
from linter.command import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, UsageError
from linter.command import emit as _emit
from linter.command import fail as _fail
from linter.command import overrides as _overrides
from linter.command import warn as _warn

__all__ = ["EXIT_CLEAN", "EXIT_ERROR", "EXIT_FINDINGS", "UsageError", "main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, as every other usage error
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _extend(dest):
    class Action(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            current = getattr(namespace, dest, None) or []
            setattr(namespace, dest, current + _csv(values))

    return Action


def build_parser() -> argparse.ArgumentParser:
    from linter.report import FORMATS

    parser = _Parser(prog="sparkcheck", description="A linter for Apache Spark code, SQL and runs.")
    parser.add_argument("--version", action="version", version=f"sparkcheck {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    check = sub.add_parser("check", help="check files and directories (default: the current directory)")
    check.add_argument("paths", nargs="*", help="files or directories; `-` reads standard input")
    fix = check.add_argument_group("fixes")
    fix.add_argument("--fix", action="store_true", default=None, help="apply safe fixes")
    fix.add_argument("--no-fix", dest="fix", action="store_false")
    fix.add_argument("--unsafe-fixes", action="store_true", default=None, help="also apply (and offer) unsafe fixes")
    fix.add_argument("--no-unsafe-fixes", dest="unsafe_fixes", action="store_false")
    fix.add_argument("--diff", action="store_true", help="print the fixes as a diff, change no file")
    fix.add_argument("--fix-only", action="store_true", help="apply fixes, report nothing else")
    fix.add_argument("--show-fixes", action="store_true", help="list the fixes applied")
    fix.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when a fix was applied")
    fix.add_argument("--add-noqa", action="store_true", help="add `noqa` comments for every finding")
    rules = check.add_argument_group("rule selection")
    rules.add_argument("--select", action=_extend("select"), help="rules to enable (codes, names, prefixes, ALL)")
    rules.add_argument("--extend-select", action=_extend("extend_select"), help="rules to enable in addition")
    rules.add_argument("--ignore", action=_extend("ignore"), help="rules to disable")
    rules.add_argument("--extend-ignore", action=_extend("ignore"), help=argparse.SUPPRESS)
    rules.add_argument("--fixable", action=_extend("fixable"), help="rules whose fixes may be applied")
    rules.add_argument("--unfixable", action=_extend("unfixable"), help="rules whose fixes are never applied")
    rules.add_argument("--preview", action="store_true", default=None, help="enable preview rules")
    rules.add_argument("--no-preview", dest="preview", action="store_false")
    rules.add_argument("--target-spark", metavar="VERSION", help="Spark version the code runs on, e.g. 3.5")
    out = check.add_argument_group("output")
    out.add_argument("--output-format", choices=FORMATS, default=None, metavar="FORMAT",
                     help=f"one of: {', '.join(FORMATS)} (default: full)")
    out.add_argument("-o", "--output-file", metavar="FILE", help="write the report to FILE")
    out.add_argument("--statistics", action="store_true", help="count findings per rule")
    out.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    out.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    out.add_argument("--step-summary", metavar="FILE",
                     help="append a markdown summary of all findings to FILE (e.g. $GITHUB_STEP_SUMMARY)")
    pr = check.add_argument_group("pull requests")
    pr.add_argument("--diff-base", metavar="REF",
                    help="report only findings on lines changed since the merge base with REF (git)")
    pr.add_argument("--baseline", metavar="FILE", help="hide the findings recorded in FILE")
    pr.add_argument("--write-baseline", metavar="FILE", help="record today's findings in FILE and exit 0")
    files = check.add_argument_group("files and settings")
    files.add_argument("--config", action="append", default=[], metavar="PATH|KEY=VALUE",
                       help="a config file to use, or a TOML `key = value` that overrides the files")
    files.add_argument("--force-exclude", action="store_true", default=None,
                       help="apply excludes to paths given on the command line too")
    files.add_argument("--no-force-exclude", dest="force_exclude", action="store_false")
    files.add_argument("--exclude", action=_extend("exclude"), help="replace the exclude list")
    files.add_argument("--extend-exclude", action=_extend("extend_exclude"), help="exclude these too")
    files.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false", default=None)
    files.add_argument("--extension", action="append", default=None, metavar="SUFFIX:LANGUAGE",
                       help="read files with this suffix as LANGUAGE, e.g. txt:python (python, pyi, ipynb, sql, "
                            "spark-defaults, properties, shell, yaml, hadoop-xml, json, terraform); repeat or separate with "
                            "commas")
    files.add_argument("--stdin-filename", metavar="PATH", help="the path of the code read from standard input")
    files.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    files.add_argument("--cache-dir", metavar="DIR", help="where the cache lives")
    files.add_argument("--time-budget", type=float, metavar="SECONDS",
                       help="per-file limit: a file that would take longer gets one SPK001 finding, not checked "
                            "(default 120; 0: no limit)")
    files.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                       help="processes to check with (default: the machine's cores)")

    plan = sub.add_parser("plan", help="check physical plans: df.explain() text in any mode")
    plan.add_argument("paths", nargs="*",
                      help="explain text, event logs (also .gz/.zstd/.lz4, rolling eventlog_v2_ directories), "
                           "or directories of them; `-` reads explain text from standard input")
    _plan_options(plan)

    diagnose = sub.add_parser("diagnose", help="check a run: its plans, stages, tasks and executors (event logs)")
    diagnose.add_argument("paths", nargs="+", help="event logs, directories of them, or History Server URLs")
    _plan_options(diagnose)

    capture = sub.add_parser("capture", help="run a PySpark job with event logging and check the plans it ran",
                             usage="sparkcheck capture [options] -- python job.py [ARGS ...]")
    _plan_options(capture)
    capture.add_argument("--event-log-dir", metavar="DIR",
                         help="keep the run's event log here (default: a temporary directory, removed afterwards)")
    capture.add_argument("--remote", metavar="sc://HOST:PORT",
                         help="a Spark Connect server: the job connects there, and each action's plan is checked")
    capture.add_argument("job", nargs=argparse.REMAINDER, help="the command that runs the job, after `--`")

    rule = sub.add_parser("rule", help="print a rule's manual")
    rule.add_argument("selector", nargs="?", help="code or name, e.g. SPK101")
    rule.add_argument("--all", action="store_true", help="every rule's manual")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")

    listing = sub.add_parser("rules", help="list the rules")
    listing.add_argument("--output-format", choices=("text", "json"), default="text")
    listing.add_argument("--preview", action="store_true", help="include preview rules")

    init = sub.add_parser("init", help="add a commented [tool.sparkcheck] section to pyproject.toml (else create sparkcheck.toml); never under a folder already configured")
    init.add_argument("directory", nargs="?", default=".")

    sub.add_parser("server", help="run the language server (LSP) on stdin/stdout; needs sparkcheck[server]")

    from linter.fleet.command import add_options  # the fleet's flags live with it (linter/fleet/command.py)

    add_options(sub.add_parser("fleet", help="every application of a cluster (event logs, a History Server, "
                                             "an object store), ranked by wasted core time"), _extend)
    return parser


def _plan_options(command) -> None:
    """The options of the commands that read plans and runs (no file selection, no fixes); html is theirs."""
    from linter.report import FORMATS

    command.add_argument("--output-format", choices=(*FORMATS, "html"), default=None, metavar="FORMAT",
                         help=f"one of: {', '.join(FORMATS)}, html (default: full)")
    command.add_argument("-o", "--output-file", metavar="FILE")
    command.add_argument("--select", action=_extend("select"))
    command.add_argument("--ignore", action=_extend("ignore"))
    command.add_argument("--extend-select", action=_extend("extend_select"))
    command.add_argument("--config", action="append", default=[], metavar="PATH|KEY=VALUE")
    command.add_argument("--exit-zero", action="store_true")
    command.add_argument("--preview", action="store_true", default=None)


def main(argv: Optional[list[str]] = None) -> int:
    program = argv is None  # the `sparkcheck` program itself, not a caller of the API (tests, the server)
    argv = sys.argv[1:] if argv is None else argv
    try:
        parser = build_parser()
        if argv and argv[0] not in _COMMANDS and not argv[0].startswith("-"):
            # Like ruff, the default command is check: `sparkcheck src/`.
            argv = ["check", *argv]
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return EXIT_ERROR
        if args.command == "check":
            code = run_check(args)
            if program:
                _leave(code)
            return code
        if args.command in ("plan", "diagnose", "capture"):
            from linter.runtime import commands

            return getattr(commands, f"run_{args.command}")(args)
        if args.command == "rule":
            return run_rule(args)
        if args.command == "rules":
            return run_rules(args)
        if args.command == "fleet":
            from linter.fleet.command import run_fleet

            return run_fleet(args)
        if args.command == "server":
            from linter.server import main as run_server  # imports pygls: only here

            return run_server()
        return run_init(args)
    except UsageError as exc:
        _fail(str(exc))
        return EXIT_ERROR
    except KeyboardInterrupt:
        _fail("interrupted")
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN
    except Exception as exc:  # noqa: BLE001 - never a traceback; one line and exit 2
        from linter.config import ConfigError
        from linter.registry import SelectorError

        if isinstance(exc, (ConfigError, SelectorError)):
            _fail(str(exc))
        else:
            _fail(f"internal error: {type(exc).__name__}: {exc} (please report it)")
            if os.environ.get("SPARKCHECK_DEBUG"):
                raise
        return EXIT_ERROR


def _leave(code: int) -> None:
    """End the program now that its output is written, without tearing the interpreter down: freeing every
    module and object one by one (libcst's 200,000 among them) takes 0.06 to 0.1 s, a fifth of a one-file run.
    Nothing is left to run at exit (no atexit handler; the process pool is joined, the cache written)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader went away (`| head`), or a stream was closed: as before
        pass
    os._exit(code)


def run_check(args) -> int:
    from linter.config import Resolver
    from linter.engine import error_finding
    from linter.files import discover
    from linter.report import MACHINE, ReportOptions, render
    from linter.runner import check_files, default_jobs

    overrides, config_file = _overrides(args)
    if getattr(args, "time_budget", None) is not None:
        if not args.time_budget >= 0:  # NaN too
            raise UsageError("--time-budget must be a number of seconds, 0 or more (0: no limit)")
        overrides["time-budget"] = args.time_budget
    resolver = Resolver(overrides, config_file)
    fmt = args.output_format or os.environ.get("SPARKCHECK_OUTPUT_FORMAT") or "full"
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    # `--stdin-filename` with no path reads standard input, as ruff does (an editor's or a hook's call)
    paths = args.paths or (["-"] if args.stdin_filename else ["."])
    unsafe = bool(args.unsafe_fixes)
    fixing = bool(args.fix or args.fix_only or args.diff)

    if paths == ["-"]:
        return _check_stdin(args, resolver, fmt, unsafe)
    if "-" in paths:
        raise UsageError("`-` (standard input) cannot be combined with other paths")

    errors: list = []
    cwd_settings = resolver.for_path(os.getcwd())

    def exclude_for(path):
        return resolver.for_path(path).exclude

    def respect(path):
        return resolver.for_path(path)["respect-gitignore"]

    def extension_for(path):
        return resolver.for_path(path)["extension"]

    force = args.force_exclude if args.force_exclude is not None else cwd_settings["force-exclude"]
    skipped: list = []
    files = list(discover(paths, exclude_for, respect, force, errors, extension_for, skipped))
    for s in skipped:  # a file named on the command line that sparkcheck does not read: said, not a finding
        sys.stderr.write(f"sparkcheck: {s.path}: {s.message}\n")
    missing = [e for e in errors if e.message == "no such file or directory"]
    if missing:
        raise UsageError(f"{missing[0].path}: no such file or directory{_command_hint(missing[0].path)}")

    cache_dir = None
    if not args.no_cache and not os.environ.get("SPARKCHECK_NO_CACHE"):
        cache_dir = args.cache_dir or os.environ.get("SPARKCHECK_CACHE_DIR")
        if cache_dir is None:
            cache_dir = os.path.join(cwd_settings.root, cwd_settings["cache-dir"])
    jobs = args.jobs or default_jobs()
    run = check_files(files, resolver, cache_dir is not None, jobs, cache_dir)
    for message in run.internal_errors:
        _fail(f"internal error while checking {message} (please report it)")
    findings = run.findings
    for e in errors:
        findings.append(error_finding(e.path, e.message))

    options = ReportOptions(unsafe_fixes=unsafe)
    if args.write_baseline:
        from linter.prmode import write_baseline

        n = write_baseline(args.write_baseline, findings, os.getcwd())
        sys.stderr.write(f"Wrote {n} finding{'s' if n != 1 else ''} to the baseline {args.write_baseline}.\n")
        return EXIT_ERROR if run.internal_errors else EXIT_CLEAN
    if args.add_noqa:
        from linter.suppress_add import add_noqa

        added, skipped = add_noqa(findings, resolver)
        sys.stderr.write(f"Added {added} noqa directive{'s' if added != 1 else ''}.\n")
        if skipped:
            sys.stderr.write(f"Left {skipped} finding{'s' if skipped != 1 else ''} where a trailing comment would "
                             "change a setting's value or break a `\\` continuation: suppress "
                             f"{'them' if skipped != 1 else 'it'} with a file-level `# sparkcheck: noqa: SPKnnn`.\n")
        return EXIT_ERROR if run.internal_errors else EXIT_CLEAN

    fixed_total = 0
    would_fix = 0  # --diff: the fixes the diff holds
    diff_text = []
    if fixing:
        from linter.engine import check_source
        from linter.fixer import fix_source, unified_diff, write_atomic

        by_file: dict = {}
        for f in findings:
            by_file.setdefault(f.filename, []).append(f)
        remaining = []
        for path, file_findings in by_file.items():
            if not any(f.fix and (f.fix["applicability"] == "safe" or unsafe) for f in file_findings):
                remaining.extend(file_findings)
                continue
            settings = resolver.for_path(path)
            with open(path, "rb") as fh:
                data = fh.read()
            result = fix_source(path, data, settings, unsafe)
            for message in result.dropped:
                _warn(message)
            if not result.changed:
                remaining.extend(file_findings)
                continue
            if args.diff:
                diff_text.append(unified_diff(result))
                would_fix += sum(result.applied.values())
                remaining.extend(file_findings)
            else:
                write_atomic(path, result.fixed)
                options.fixed_by_file[path] = result.applied
                fixed_total += sum(result.applied.values())
                remaining.extend(check_source(path, result.fixed, settings))
        findings = sorted(remaining, key=lambda f: f.sort_key())
    findings = _pull_request_filters(args, findings, cwd_settings)
    if args.step_summary:
        from linter.prmode import markdown_summary

        with open(args.step_summary, "a", encoding="utf-8") as f:
            f.write(markdown_summary(findings, os.getcwd()))
    options.fix_mode = bool(args.fix or args.fix_only) and not args.diff
    options.fixed = fixed_total
    options.show_fixes = args.show_fixes

    if args.diff:
        text = "".join(diff_text)
        _emit(text, args.output_file)
        fixes = sum(1 for t in diff_text if t)
        if not args.quiet:
            n = would_fix
            sys.stderr.write(f"Would fix {n} error{'s' if n != 1 else ''}.\n" if n else "No errors would be fixed.\n")
        return EXIT_FINDINGS if fixes and not args.exit_zero else EXIT_CLEAN

    if args.fix_only:
        if not args.quiet and fmt not in MACHINE:
            from linter.report.text import fixed_lines

            listed = fixed_lines(options)  # --show-fixes: what was fixed, where
            _emit("\n".join(listed) if listed else f"Fixed {fixed_total} error{'s' if fixed_total != 1 else ''}.\n",
                  args.output_file)
        code = EXIT_FINDINGS if (args.exit_non_zero_on_fix and fixed_total) else EXIT_CLEAN
        return EXIT_ERROR if run.internal_errors else code

    if args.statistics:
        from linter.report.text import statistics, statistics_json

        text = (statistics_json if fmt == "json" else statistics)(findings, options)
    else:
        text = _quiet(args, fmt, findings, options, render(fmt, findings, options))
    _emit(text, args.output_file)
    if run.internal_errors:
        return EXIT_ERROR
    if args.exit_non_zero_on_fix and fixed_total:
        return EXIT_FINDINGS
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _pull_request_filters(args, findings, settings) -> list:
    """--baseline (or `baseline` in config) hides known findings; --diff-base keeps the changed lines' ones."""
    from linter import prmode

    baseline = args.baseline or (os.path.join(settings.root, settings["baseline"]) if settings["baseline"] else None)
    if baseline:
        if not os.path.exists(baseline) and not args.baseline:
            _warn(f"the configured baseline {settings['baseline']} does not exist yet; write it with --write-baseline")
        else:
            findings, stale = prmode.apply_baseline(baseline, findings, os.getcwd())
            if stale:
                _warn(f"{stale} baseline entr{'ies' if stale != 1 else 'y'} no longer match; "
                      f"prune with --write-baseline {baseline}")
    if args.diff_base:
        findings = prmode.only_changed(findings, args.diff_base, os.getcwd())
    return findings


def _strip_summary(text: str, findings, options) -> str:
    from linter.report.text import summary

    tail = "\n".join(summary(findings, options)) + "\n"
    return text[: -len(tail)] if text.endswith(tail) else text


def _check_stdin(args, resolver, fmt: str, unsafe: bool) -> int:
    from linter.engine import check_source
    from linter.fixer import fix_source, unified_diff
    from linter.report import ReportOptions, render

    path = args.stdin_filename or "-"
    data = sys.stdin.buffer.read()
    settings = resolver.for_path(path if path != "-" else os.getcwd())
    name = path if path != "-" else "-.py"
    options = ReportOptions(unsafe_fixes=unsafe)
    if path != "-":
        from linter.files import skip_reason

        force = args.force_exclude if args.force_exclude is not None else settings["force-exclude"]
        if force and settings.exclude.matches_any(os.path.abspath(path)):
            # an excluded path stays quiet when an editor or a hook passes it with --force-exclude (ruff alike)
            if (args.fix or args.fix_only) and not args.diff:
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
            elif not args.diff:
                _emit(_quiet(args, fmt, [], options, render(fmt, [], options)), args.output_file)
            return EXIT_CLEAN
        reason = skip_reason(path, settings["extension"], data[:200].decode("utf-8", "replace"))
        if reason is not None:
            # As for a file named on the command line: said on stderr, the input passed through unchanged.
            sys.stderr.write(f"sparkcheck: {path}: {reason}\n")
            if (args.fix or args.fix_only) and not args.diff:
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
            elif not args.diff:
                _emit(render(fmt, [], options), args.output_file)
            return EXIT_CLEAN
    if args.fix or args.fix_only or args.diff:
        result = fix_source(name, data, settings, unsafe)
        for message in result.dropped:
            _warn(message)
        if args.diff:
            result.path = path
            _emit(unified_diff(result) if result.changed else "", args.output_file)
            return EXIT_FINDINGS if result.changed and not args.exit_zero else EXIT_CLEAN
        fixed = result.fixed if result.changed else data
        sys.stdout.buffer.write(fixed)
        sys.stdout.flush()
        findings = check_source(name, fixed, settings)
        for f in findings:
            f.filename = path
        if not args.fix_only and findings:
            sys.stderr.write(render("concise", findings, options))
        if args.exit_non_zero_on_fix and result.changed:
            return EXIT_FINDINGS
        return EXIT_FINDINGS if findings and not args.exit_zero and not args.fix_only else EXIT_CLEAN
    findings = check_source(name, data, settings)
    for f in findings:
        f.filename = path
    _emit(_quiet(args, fmt, findings, options, render(fmt, findings, options)), args.output_file)
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN


def _command_hint(path: str) -> str:
    """`sparkcheck rulez`: a first word like a command (not a path) is read as a path to check; say which
    command it resembles."""
    import difflib

    if os.sep in path or "." in path:
        return ""
    close = difflib.get_close_matches(path, _COMMANDS, n=1, cutoff=0.6)
    return f" (did you mean `sparkcheck {close[0]}`?)" if close else ""


_COMMANDS = ("check", "plan", "diagnose", "capture", "rule", "rules", "init", "server", "fleet")


def _quiet(args, fmt: str, findings, options, text: str) -> str:
    """``-q``: the findings only, no summary (for a file or standard input alike)."""
    if args.quiet and fmt in ("full", "concise", "grouped"):
        return _strip_summary(text, findings, options)
    return text


def run_rule(args) -> int:
    import json

    from linter import registry

    if args.all:
        chosen = registry.all_rules()
    elif args.selector:
        rule = registry.find(args.selector)
        if rule is None:
            raise UsageError(f"unknown rule {args.selector!r} (see `sparkcheck rules`)")
        chosen = [rule]
    else:
        raise UsageError("name a rule (e.g. `sparkcheck rule SPK101`) or pass --all")
    if args.output_format == "json":
        data = [_rule_json(r) for r in chosen]
        sys.stdout.write(json.dumps(data if args.all else data[0], indent=2) + "\n")
    else:
        sys.stdout.write("\n".join(_rule_text(r) for r in chosen))
    return EXIT_CLEAN


def _rule_text(rule) -> str:
    lines = [f"# {rule.name} ({rule.code})", ""]
    lines.append(rule.summary[0].upper() + rule.summary[1:] + ".")
    lines.append("")
    facts = [f"Severity: {rule.severity}."]
    if rule.fix:
        facts.append(f"Fix available ({rule.fix}).")
    if rule.preview:
        facts.append("Preview: enable with --preview.")
    if rule.explicit:
        facts.append(f"Off unless selected by its code ({rule.code}).")
    if not rule.preview and not rule.explicit and rule.default_reason:
        facts.append(f"On by default: {rule.default_reason.rstrip('.')}.")
    if rule.min_spark:
        facts.append(f"The replacement it suggests needs Spark {rule.min_spark} or newer.")
    lines.append(" ".join(facts))
    lines.append("")
    lines.append(rule.manual())
    return "\n".join(lines)


def _rule_json(rule) -> dict:
    return {
        "code": rule.code,
        "name": rule.name,
        "summary": rule.summary,
        "severity": rule.severity,
        "kind": rule.kind,
        "fix": rule.fix,
        "preview": rule.preview,
        "explicit": rule.explicit,
        "default_reason": rule.default_reason or None,
        "min_spark": rule.min_spark,
        "options": {k: {"default": o.default, "doc": o.doc} for k, o in rule.options.items()},
        "explanation": rule.manual(),
    }


def run_rules(args) -> int:
    import json

    from linter import registry

    chosen = [r for r in registry.all_rules() if args.preview or not r.preview]
    if args.output_format == "json":
        sys.stdout.write(json.dumps([_rule_json(r) for r in chosen], indent=2) + "\n")
        return EXIT_CLEAN
    width = max(len(r.name) for r in chosen)
    for r in chosen:
        marks = ("*" if r.fix else " ") + ("P" if r.preview else " ")
        sys.stdout.write(f"{r.code} {marks} {r.name.ljust(width)}  {r.summary}\n")
    sys.stdout.write("\n* fix available   P preview (enable with --preview)\n")
    return EXIT_CLEAN


def run_init(args) -> int:
    from linter.init import init

    message = init(args.directory)
    sys.stdout.write(message + "\n")
    return EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())
