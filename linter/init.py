"""``sparkcheck init``: a commented default configuration.

In an existing pyproject.toml the section is appended at the end: every byte the
file had stays as it was (checked with tomlkit before writing).  Without a
pyproject.toml a ``sparkcheck.toml`` is created.
"""

from __future__ import annotations

import os

import tomlkit

from linter.config import ConfigError, own_config, read_config_file

BODY = """\
# Rules to enable: codes, names or prefixes ("SPK1" = driver rules). "SPK" = all stable rules.
select = ["SPK"]
# Rules to disable, e.g. ["SPK406"].
ignore = []
# The Spark version the code runs on: fixes that need a newer Spark stay off.
target-spark = "3.5"
# The SQL dialect of .sql files, %sql cells and SQL strings: "spark" or "databricks".
sql-dialect = "spark"
# More paths to skip, besides .gitignore and the defaults (.venv, build, dist, ...).
extend-exclude = []
# Enable preview rules.
preview = false
# Tables, views and paths you know are small (globs; sparkcheck cannot see a table's size):
# collecting or joining them is not reported, e.g. ["ref.*", "dim_date", "s3://lake/ref/*"].
small-tables = []

# Rules to skip for some files (globs, as in .gitignore):
# [tool.sparkcheck.per-file-ignores]
# "tests/**" = ["SPK101", "SPK102"]

# A rule's thresholds, by code or name (see `sparkcheck rule SPK101`):
# [tool.sparkcheck.collect-on-unbounded-dataframe]
# max-rows = 100000
"""


def init(directory: str) -> str:
    if not os.path.isdir(directory):
        raise ConfigError(f"init: no such directory: {directory}")
    if own_config(directory) is None:
        above = _parent_config(directory)
        if above is not None:
            # the nearest configuration wins whole: a new one here would silently drop the project's settings
            return (f"{above} already configures {directory}: a configuration here would replace it for this folder; "
                    "nothing changed (to give this folder settings of its own, write a sparkcheck.toml here by hand)")
    pyproject = os.path.join(directory, "pyproject.toml")
    if os.path.isfile(pyproject):
        with open(pyproject, "rb") as f:
            original = f.read()
        try:
            text = original.decode("utf-8")
            doc = tomlkit.parse(text)
        except (UnicodeDecodeError, tomlkit.exceptions.ParseError) as exc:
            raise ConfigError(f"{pyproject}: invalid TOML: {exc}") from None
        if "sparkcheck" in (doc.get("tool") or {}):
            return f"{pyproject} already has a [tool.sparkcheck] section; nothing changed"
        newline = "\r\n" if "\r\n" in text else "\n"
        sep = "" if not text else (newline if text.endswith(("\n", "\r")) else newline * 2)
        if text and not text.endswith(newline * 2) and text.endswith(newline):
            sep = newline
        section = ("[tool.sparkcheck]\n" + BODY.replace("[tool.sparkcheck.", "[tool.sparkcheck.")).replace("\n", newline)
        updated = text + sep + section
        check = tomlkit.parse(updated)
        if "sparkcheck" not in check.get("tool", {}) or not updated.startswith(text):
            raise ConfigError(f"{pyproject}: could not add [tool.sparkcheck] safely; nothing changed")
        with open(pyproject, "wb") as f:
            f.write(updated.encode("utf-8"))
        read_config_file(pyproject)  # what we wrote must be valid sparkcheck configuration
        return f"added a [tool.sparkcheck] section to {pyproject}"
    target = os.path.join(directory, "sparkcheck.toml")
    if os.path.exists(target):
        return f"{target} already exists; nothing changed"
    with open(target, "w", encoding="utf-8") as f:
        f.write(BODY.replace("[tool.sparkcheck.", "["))
    read_config_file(target)
    return f"created {target}"


def _parent_config(directory: str):
    """The configuration file a folder above ``directory`` gives it (the one `sparkcheck check` would use)."""
    current = os.path.abspath(directory)
    while True:
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
        found = own_config(current)
        if found is not None:
            return found[0]
