"""What every sparkcheck command shares: exit codes, the usage error, settings from flags, writing the report.

The commands (linter/cli.py for check/rule/rules/init, linter/runtime/commands.py
for plan/diagnose/capture) import this module; it imports none of them, so
imports run one way: commands -> engine and runtime -> sources -> diagnostics.
"""

from __future__ import annotations

import os
import sys

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A bad flag or argument: one line on stderr, exit 2."""


def fail(message: str) -> None:
    sys.stderr.write(f"sparkcheck: error: {message}\n")


def warn(message: str) -> None:
    sys.stderr.write(f"sparkcheck: warning: {message}\n")


def emit(text: str, output_file: str | None) -> None:
    """The report, to `-o FILE` (its folder made) or standard output."""
    if output_file:
        try:
            directory = os.path.dirname(os.path.abspath(output_file))
            os.makedirs(directory, exist_ok=True)
            with open(output_file, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:  # a folder of that name, no permission, a full disk: said in one line, exit 2
            why = "a part of the path is a file, not a folder" if isinstance(exc, (FileExistsError, NotADirectoryError)) \
                else exc.strerror or str(exc)
            raise UsageError(f"cannot write the report to {output_file}: {why}") from None
        return
    sys.stdout.write(text)
    sys.stdout.flush()


def overrides(args) -> tuple[dict, str | None]:
    """The configuration keys the command line sets, and the `--config` file when one is named."""
    from linter.config import ConfigError, checked_selector, parse_inline
    from linter.registry import SelectorError

    values_set: dict = {}
    config_file = None
    for value in args.config:
        if os.path.isfile(value) or (("=" not in value) and value.endswith(".toml")):
            if config_file is not None:
                raise ConfigError("--config: only one configuration file may be given")
            config_file = value
        else:
            values, tables = parse_inline(value)
            values_set.update(values)
            if tables:
                values_set.setdefault("__rules__", {}).update(tables)
    for flag, key in (("select", "select"), ("fixable", "fixable"), ("unfixable", "unfixable"),
                      ("exclude", "exclude"), ("extend_exclude", "extend-exclude")):
        value = getattr(args, flag, None)
        if value is not None:
            values_set[key] = value
    for flag, key in (("extend_select", "extend-select"), ("ignore", "extend-ignore")):
        value = getattr(args, flag, None)
        if value:
            values_set[key] = values_set.get(key, []) + value
    for flag, key in (("preview", "preview"), ("force_exclude", "force-exclude"),
                      ("respect_gitignore", "respect-gitignore")):
        value = getattr(args, flag, None)
        if value is not None:
            values_set[key] = value
    if getattr(args, "extension", None):
        from linter.config import parse_extension

        values_set["extension"] = {k: v for value in args.extension for k, v in parse_extension(value).items()}
    if getattr(args, "target_spark", None):
        from linter.config import KEYS

        values_set["target-spark"] = KEYS["target-spark"](args.target_spark, "target-spark", "--target-spark")
    for key in ("select", "extend-select", "extend-ignore", "fixable", "unfixable"):
        for sel in values_set.get(key, []):
            try:
                checked_selector(sel, key, f"--{key}" if key != "extend-ignore" else "--ignore")
            except SelectorError as exc:
                raise UsageError(str(exc)) from None
    return values_set, config_file


def plan_resolver(args):
    """Settings for the plan-reading commands (no file selection or fix options)."""
    from linter.config import Resolver

    for flag in ("fixable", "unfixable", "exclude", "extend_exclude", "force_exclude", "respect_gitignore",
                 "target_spark"):
        setattr(args, flag, None)
    values, config_file = overrides(args)
    return Resolver(values, config_file)
