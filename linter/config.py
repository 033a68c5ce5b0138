"""Configuration: ``[tool.sparkcheck]`` in pyproject.toml, or ``sparkcheck.toml``.

The nearest configuration file above a checked file applies to it (a
``sparkcheck.toml`` beats a ``pyproject.toml`` in the same directory; a
pyproject.toml without a ``[tool.sparkcheck]`` table is passed over).  Files do
not merge with each other; the command line wins over any file.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Optional

from linter import registry
from linter.files import DEFAULT_EXCLUDE, PatternSet


class ConfigError(Exception):
    """Bad configuration or flags: reported on one line, exit code 2."""


def _list_of_str(value, key, where):
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return list(value)


def _bool(value, key, where):
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: `{key}` must be true or false")
    return value


def _str(value, key, where):
    if not isinstance(value, str):
        raise ConfigError(f"{where}: `{key}` must be a string")
    return value


def _int(value, key, where):
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigError(f"{where}: `{key}` must be a non-negative integer")
    return value


def _seconds(value, key, where):
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
        raise ConfigError(f"{where}: `{key}` must be a non-negative number of seconds (0: no limit)")
    return float(value)


def _per_file(value, key, where):
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `{key}` must be a table of glob = [codes]")
    return {str(k): _list_of_str(v, f"{key}.{k}", where) for k, v in value.items()}


def _dialects(value, key, where):
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `{key}` must be a table of glob = dialect")
    return {str(k): _dialect(v, f"{key}.{k}", where) for k, v in value.items()}


def _target(value, key, where):
    text = str(value)
    try:
        parts = tuple(int(p) for p in text.split("."))
    except ValueError:
        parts = ()
    if len(parts) < 2 or parts[0] < 2:
        raise ConfigError(f"{where}: `{key}` must be a Spark version like \"3.5\", not {text!r}")
    return text


def _dialect(value, key, where):
    text = _str(value, key, where).lower()
    if text not in ("spark", "spark2", "databricks", "hive"):
        raise ConfigError(f"{where}: `{key}` must be one of spark, spark2, databricks, hive")
    return text


def _extension(value, key, where):
    """`extension = {txt = "python"}`: read files with that suffix as that language (ruff's `extension`)."""
    from linter.sources import LANGUAGES

    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `{key}` must be a table of suffix = language, e.g. {{txt = \"python\"}}")
    out = {}
    for suffix, language in value.items():
        name = str(suffix).strip().lstrip(".").lower()
        if not name or "/" in name:
            raise ConfigError(f"{where}: `{key}`: {suffix!r} is not a file suffix (write it without the dot: txt)")
        if language not in LANGUAGES:
            raise ConfigError(f"{where}: `{key}.{name}` must be one of {', '.join(LANGUAGES)}, not {language!r}")
        out[name] = language
    return out


def parse_extension(text: str, flag: str = "--extension") -> dict:
    """`--extension txt:python` (several comma-separated, as ruff writes them) as an `extension` table."""
    table = {}
    for item in (v.strip() for v in text.split(",")):
        if not item:
            continue
        suffix, colon, language = item.partition(":")
        if not colon or not suffix.strip() or not language.strip():
            raise ConfigError(f"{flag}: {item!r} must be SUFFIX:LANGUAGE, e.g. txt:python")
        table[suffix.strip()] = language.strip().lower()
    return _extension(table, "extension", flag)


KEYS = {
    "select": _list_of_str,
    "extend-select": _list_of_str,
    "ignore": _list_of_str,
    "extend-ignore": _list_of_str,
    "per-file-ignores": _per_file,
    "extend-per-file-ignores": _per_file,
    "fixable": _list_of_str,
    "unfixable": _list_of_str,
    "extend-safe-fixes": _list_of_str,
    "extend-unsafe-fixes": _list_of_str,
    "exclude": _list_of_str,
    "extend-exclude": _list_of_str,
    "respect-gitignore": _bool,
    "force-exclude": _bool,
    "preview": _bool,
    "target-spark": _target,
    "sql-dialect": _dialect,
    "per-file-sql-dialect": _dialects,
    "cache-dir": _str,
    "max-file-size": _int,
    "time-budget": _seconds,
    "dataframe-functions": _list_of_str,
    "small-tables": _list_of_str,
    "sql-schema": _list_of_str,
    "baseline": _str,
    "extension": _extension,
}
DEFAULTS: dict[str, Any] = {
    "select": ["SPK"],
    "extend-select": [],
    "ignore": [],
    "extend-ignore": [],
    "per-file-ignores": {},
    "extend-per-file-ignores": {},
    "fixable": ["ALL"],
    "unfixable": [],
    "extend-safe-fixes": [],
    "extend-unsafe-fixes": [],
    "exclude": list(DEFAULT_EXCLUDE),
    "extend-exclude": [],
    "respect-gitignore": True,
    "force-exclude": False,
    "preview": False,
    "target-spark": "3.5",
    "sql-dialect": "spark",
    "per-file-sql-dialect": {},
    "cache-dir": ".sparkcheck_cache",
    "max-file-size": 5 * 1024 * 1024,
    "time-budget": 120.0,  # seconds per file (linter/budget.py); 0: no limit. Generous: a loaded CI machine
    # took 32 s on an 8,000-line test file; the up-front sign, not the timer, catches the known slow inputs
    "dataframe-functions": [],
    "small-tables": [],  # tables, views and paths the project says are small (linter/semantic/bounds.py)
    "sql-schema": [],
    "baseline": "",
    "extension": {},
}


def validate(table: dict, where: str) -> tuple[dict, dict]:
    """Check keys and types; returns (settings, rule option tables)."""
    values: dict[str, Any] = {}
    rule_tables: dict[str, dict] = {}
    for key, value in table.items():
        if key in KEYS:
            values[key] = KEYS[key](value, key, where)
            continue
        rule = registry.find(key) if isinstance(value, dict) else None
        if rule is None:
            raise ConfigError(f"{where}: unknown key `{key}`")
        rule_tables[rule.code] = _rule_options(rule, value, where)
    for key in ("select", "extend-select", "ignore", "extend-ignore", "fixable", "unfixable",
                "extend-safe-fixes", "extend-unsafe-fixes"):
        for sel in values.get(key, []):
            try:
                checked_selector(sel, key, f"{where} `{key}`")
            except registry.SelectorError as exc:
                raise ConfigError(str(exc)) from None
    for key in ("per-file-ignores", "extend-per-file-ignores"):
        for pattern, sels in values.get(key, {}).items():
            for sel in sels:
                try:
                    registry.resolve(sel, f"{where} `{key}` \"{pattern}\"")
                except registry.SelectorError as exc:
                    raise ConfigError(str(exc)) from None  # before any file is checked, as ruff does
    return values, rule_tables


def checked_selector(selector: str, key: str, where: str) -> list:
    """The rules a selector of ``key`` names (SelectorError if none can be). A family prefix with no rules yet
    (`SPK9`) stays valid, as a configuration written for a newer sparkcheck would have it, but a selector
    that enables nothing says so on stderr: a run that checks nothing should not pass in silence."""
    chosen = registry.resolve(selector, where)
    if not chosen and key in ("select", "extend-select"):
        from linter.command import warn

        warn(f"{where}: {selector!r} selects no rule (see `sparkcheck rules`)")
    return chosen


def _rule_options(rule, table: dict, where: str) -> dict:
    out = {}
    for key, value in table.items():
        option = rule.options.get(key)
        if option is None:
            known = ", ".join(f"`{k}`" for k in rule.options) or "none"
            raise ConfigError(f"{where}: unknown option `{key}` for {rule.code} ({rule.name}); known: {known}")
        expected = option.type
        ok = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            ok, value = True, float(value)
        if expected is list:
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        if not ok:
            raise ConfigError(
                f"{where}: option `{key}` of {rule.code} must be {expected.__name__}, not {type(value).__name__}"
            )
        out[key] = value
    return out


def _load_toml(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not valid UTF-8") from None
    try:
        if sys.version_info >= (3, 11):
            import tomllib

            return tomllib.loads(text)
        import tomlkit

        return tomlkit.parse(text).unwrap()
    except Exception as exc:  # noqa: BLE001 - tomllib and tomlkit raise different types
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def read_config_file(path: str) -> Optional[tuple[dict, dict]]:
    """The sparkcheck table of a config file, validated; None if it has none."""
    data = _load_toml(path)
    if os.path.basename(path) == "pyproject.toml":
        table = (data.get("tool") or {}).get("sparkcheck")
        if table is None:
            return None
        where = f"{path} [tool.sparkcheck]"
    else:
        table = data
        where = path
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table")
    return validate(table, where)


@dataclass
class Settings:
    root: str
    config_path: Optional[str]
    values: dict
    rule_tables: dict = field(default_factory=dict)
    cli_selection: dict = field(default_factory=dict)
    _selected: Optional[frozenset] = None
    _exclude: Optional[PatternSet] = None
    _per_file: Optional[list] = None
    _fingerprint: Optional[str] = None
    _schema_files: Optional[list] = None

    def __getitem__(self, key: str):
        return self.values[key]

    @property
    def preview(self) -> bool:
        return self.values["preview"]

    @property
    def target_spark(self) -> tuple[int, ...]:
        return tuple(int(p) for p in self.values["target-spark"].split("."))

    def dialect_for(self, path: str) -> str:
        """The SQL dialect of a file: the last matching `per-file-sql-dialect` glob, else `sql-dialect`."""
        dialect = self.values["sql-dialect"]
        for pattern, name in self.values["per-file-sql-dialect"].items():
            if PatternSet(self.root, [pattern]).matches_any(os.path.abspath(path)):
                dialect = name
        return dialect

    def language_for(self, path: str):
        """The language the `extension` setting gives the file's suffix; None: its name decides."""
        mapping = self.values["extension"]
        if not mapping:
            return None
        from linter.sources import suffix_of

        return mapping.get(suffix_of(path))

    def rule_options(self, rule) -> dict:
        opts = {k: o.default for k, o in rule.options.items()}
        opts.update(self.rule_tables.get(rule.code, {}))
        return opts

    @property
    def selected(self) -> frozenset:
        """Codes of the rules enabled by select/extend-select/ignore and --preview."""
        if self._selected is None:
            self._selected = frozenset(_select(self.values, self.cli_selection))
        return self._selected

    def codes_for(self, path: str) -> frozenset:
        """The selected codes minus the per-file ignores that match ``path``."""
        codes = self.selected
        if self._per_file is None:
            table = {**self.values["per-file-ignores"], **self.values["extend-per-file-ignores"]}
            self._per_file = [
                (PatternSet(self.root, [pattern]), {r.code for s in sels for r in registry.resolve(s)})
                for pattern, sels in table.items()
            ]
        if not self._per_file:
            return codes
        absolute = os.path.abspath(path)
        for patterns, ignored in self._per_file:
            if patterns.matches_any(absolute):
                codes = codes - ignored
        return codes

    @property
    def exclude(self) -> PatternSet:
        if self._exclude is None:
            self._exclude = PatternSet(self.root, self.values["exclude"] + self.values["extend-exclude"])
        return self._exclude

    def fixable_codes(self) -> frozenset:
        fixable = {r.code for s in self.values["fixable"] for r in registry.resolve(s)}
        fixable -= {r.code for s in self.values["unfixable"] for r in registry.resolve(s)}
        return frozenset(fixable)

    def applicability(self, code: str, declared: str) -> str:
        if any(r.code == code for s in self.values["extend-safe-fixes"] for r in registry.resolve(s)):
            return "safe"
        if any(r.code == code for s in self.values["extend-unsafe-fixes"] for r in registry.resolve(s)):
            return "unsafe"
        return declared

    def sql_schema_files(self) -> list[tuple[str, str]]:
        """(path, text) of the `sql-schema` files, read once; a missing one is a config error."""
        if self._schema_files is None:
            out = []
            names = []
            for name in self.values["sql-schema"]:
                if any(c in name for c in "*?["):  # a glob: every matching file of the repository
                    names.extend(sorted(os.path.relpath(p, self.root)
                                        for p in glob.glob(os.path.join(self.root, name), recursive=True)))
                else:
                    names.append(name)
            for name in names:
                path = os.path.join(self.root, name)
                try:
                    with open(path, encoding="utf-8") as f:
                        out.append((path, f.read()))
                except (OSError, UnicodeDecodeError) as exc:
                    raise ConfigError(f"sql-schema: cannot read {name}: {getattr(exc, 'strerror', None) or exc}") from None
            self._schema_files = out
        return self._schema_files

    @property
    def fingerprint(self) -> str:
        """Everything about the settings that can change a file's findings (schema files' text too)."""
        if self._fingerprint is None:
            keys = ("preview", "target-spark", "sql-dialect", "per-file-sql-dialect", "max-file-size",
                    "time-budget", "dataframe-functions", "small-tables", "sql-schema", "extension")
            data = {
                "values": {k: self.values[k] for k in keys},
                "rules": self.rule_tables,
                "schema": [hashlib.sha256(text.encode()).hexdigest() for _, text in self.sql_schema_files()],
            }
            self._fingerprint = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]
        return self._fingerprint


# Selection keys the command line may set; they form a layer above the file's.
SELECTION = ("select", "extend-select", "extend-ignore")


def _select(values: dict, cli: dict) -> set[str]:
    """ruff's layering: the file's select/extend-select/ignore, then the command
    line's; a layer that sets ``select`` starts afresh (``--select SPK101``
    enables SPK101 even where the file ignores it)."""
    preview = values["preview"]
    chosen: set[str] = set()
    layers = [
        (values["select"], values["extend-select"], values["ignore"] + values["extend-ignore"]),
        (cli.get("select"), cli.get("extend-select", []), cli.get("extend-ignore", [])),
    ]
    for select, extend, ignore in layers:
        if select is not None:
            chosen = set()
        for sel in (select or []) + extend:
            for rule in registry.resolve(sel):
                if rule.explicit and not registry.is_exact(sel, rule):
                    continue
                if rule.preview and not preview:
                    continue
                chosen.add(rule.code)
        for sel in ignore:
            for rule in registry.resolve(sel):
                chosen.discard(rule.code)
    return chosen


class Resolver:
    """Finds and caches the settings for each file; applies command-line overrides."""

    def __init__(self, overrides: dict, config_file: Optional[str] = None, cwd: Optional[str] = None):
        self.overrides = overrides
        self.cwd = os.path.abspath(cwd or os.getcwd())
        self._by_dir: dict[str, Settings] = {}
        self._by_config: dict[Optional[str], Settings] = {}
        self.fixed: Optional[Settings] = None
        if config_file is not None:
            if not os.path.isfile(config_file):
                raise ConfigError(f"--config: no such file: {config_file}")
            found = read_config_file(os.path.abspath(config_file))
            if found is None:
                raise ConfigError(f"--config: {config_file} has no [tool.sparkcheck] table")
            self.fixed = self._make(os.path.abspath(config_file), found)

    def _make(self, path: Optional[str], found: Optional[tuple[dict, dict]]) -> Settings:
        values = dict(DEFAULTS)
        rule_tables: dict = {}
        if found is not None:
            file_values, rule_tables = found
            values.update(file_values)
        cli_selection = {}
        for key, value in self.overrides.items():
            if key == "__rules__":
                for code, opts in value.items():
                    rule_tables.setdefault(code, {}).update(opts)
            elif key in SELECTION:
                cli_selection[key] = value
            else:
                values[key] = value
        root = os.path.dirname(path) if path else self.cwd
        settings = Settings(root, path, values, rule_tables, cli_selection)
        settings.sql_schema_files()  # a missing schema file is a configuration error, said once, up front
        return settings

    def for_path(self, path: str) -> Settings:
        if self.fixed is not None:
            return self.fixed
        directory = os.path.dirname(os.path.abspath(path)) if not os.path.isdir(path) else os.path.abspath(path)
        return self._for_dir(directory)

    def _for_dir(self, directory: str) -> Settings:
        cached = self._by_dir.get(directory)
        if cached is not None:
            return cached
        config = own_config(directory)
        if config is not None:
            settings = self._by_config.get(config[0])
            if settings is None:
                settings = self._make(config[0], config[1])
                self._by_config[config[0]] = settings
        else:
            parent = os.path.dirname(directory)
            if parent == directory:
                settings = self._by_config.get(None) or self._make(None, None)
                self._by_config[None] = settings
            else:
                settings = self._for_dir(parent)
        self._by_dir[directory] = settings
        return settings


CONFIG_NAMES = ("sparkcheck.toml", ".sparkcheck.toml", "pyproject.toml")  # in a folder, the first that configures wins


def own_config(directory: str):
    """(path, table) of the configuration file of ``directory`` itself (a pyproject.toml without the table is
    none); None when it has none."""
    for name in CONFIG_NAMES:
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            found = read_config_file(candidate)
            if found is not None:
                return candidate, found
    return None


def parse_inline(text: str) -> tuple[dict, dict]:
    """``--config "key = value"``: a TOML fragment as if written in the file."""
    try:
        if sys.version_info >= (3, 11):
            import tomllib

            table = tomllib.loads(text)
        else:
            import tomlkit

            table = tomlkit.parse(text).unwrap()
    except Exception as exc:  # noqa: BLE001
        raise ConfigError(f"--config: {text!r} is neither a file nor a valid TOML `key = value`: {exc}") from None
    return validate(table, "--config")

