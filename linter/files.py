"""Which files to check: discovery under directories, excludes and .gitignore.

Patterns (``exclude``, ``extend-exclude``, ``per-file-ignores`` and .gitignore
lines) all follow gitignore's rules: a pattern without a slash matches a name at
any depth, one with a slash is anchored at the directory that declares it, a
trailing slash matches directories only, ``**`` spans directories, ``!``
re-includes.  .gitignore files are honoured wherever they are found, in or out
of a git checkout, and so is ``.git/info/exclude``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

EXTENSIONS = (".py", ".pyi", ".ipynb", ".sql")

DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints",
    ".mypy_cache", ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache",
    ".sparkcheck_cache", ".svn", ".tox", ".venv", ".vscode", "__pypackages__", "_build",
    "buck-out", "build", "dist", "node_modules", "site-packages", "venv",
)


@dataclass(frozen=True)
class Pattern:
    regex: re.Pattern
    negated: bool
    dir_only: bool
    text: str


def _translate(glob: str) -> str:
    out, i, n = [], 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*":
            if glob[i : i + 2] == "**":
                i += 2
                if i < n and glob[i] == "/":
                    out.append("(?:.*/)?")
                    i += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = glob.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : j].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_pattern(line: str) -> Optional[Pattern]:
    text = line.rstrip("\n").rstrip("\r")
    if not text.strip() or text.startswith("#"):
        return None
    if not text.endswith("\\ "):
        text = text.rstrip()
    negated = text.startswith("!")
    if negated:
        text = text[1:]
    elif text.startswith("\\!") or text.startswith("\\#"):
        text = text[1:]
    dir_only = text.endswith("/")
    text = text.rstrip("/")
    if text.startswith("./"):
        text = text[2:]
    if not text:
        return None
    anchored = "/" in text
    text = text.lstrip("/")
    body = _translate(text)
    regex = ("^" if anchored else "^(?:.*/)?") + body + "$"
    return Pattern(re.compile(regex), negated, dir_only, line.strip())


class PatternSet:
    """Patterns relative to one directory; the last matching pattern decides."""

    def __init__(self, base: str, lines):
        self.base = base
        self.patterns = [p for p in (compile_pattern(line) for line in lines) if p]

    def match(self, path: str, is_dir: bool) -> Optional[bool]:
        """True: excluded, False: re-included, None: no pattern speaks."""
        rel = os.path.relpath(path, self.base).replace(os.sep, "/")
        if rel.startswith("../"):
            return None
        result = None
        for p in self.patterns:
            if p.dir_only and not is_dir:
                continue
            if p.regex.match(rel):
                result = not p.negated
        return result

    def matches_any(self, path: str, is_dir: bool = False) -> bool:
        """Whether the path or one of its parents below ``base`` matches."""
        rel = os.path.relpath(path, self.base).replace(os.sep, "/")
        if rel.startswith("../") or rel == ".":
            return False
        parts = rel.split("/")
        for i in range(1, len(parts) + 1):
            sub = os.path.join(self.base, *parts[:i])
            if self.match(sub, is_dir or i < len(parts)):
                return True
        return False


def is_checkable(path: str, extension: Optional[dict] = None) -> bool:
    """Whether discovery picks the file: by its name alone (and the `extension` mapping), never its content."""
    from linter.sources import language_of

    return path.lower().endswith(EXTENSIONS) or language_of(path, extension) is not None


# The suffixes of the languages discovery picks by content too (linter/sources BY_CONTENT), for a cheap test first.
_BY_CONTENT_SUFFIXES = (".json", ".yml", ".yaml", ".tf", ".tfvars")


def holds_settings(path: str, extension: Optional[dict] = None) -> bool:
    """Whether a file found in a directory is worth reading for its content: a JSON, YAML or Terraform file
    only when it can hold a Spark setting (most of them are package manifests, CI workflows, other
    infrastructure); every other type sparkcheck reads, always. Reads the file's bytes, never parses them."""
    if not extension and not path.lower().endswith(_BY_CONTENT_SUFFIXES):
        return True
    from linter.sources import BY_CONTENT, language_of
    from linter.sources.sparkconf import file_may_hold_settings

    language = language_of(path, extension)
    return language not in BY_CONTENT or file_may_hold_settings(language, path)


def skip_reason(path: str, extension: Optional[dict] = None, head: Optional[str] = None) -> Optional[str]:
    """Why a file named on the command line is not checked (None: it is): a suffix sparkcheck does not read,
    or no suffix and no `#!` line naming python or a shell (``head``, the file's start, is read from the file
    when not given: only a file without a suffix is opened, for one line)."""
    from linter.sources import KNOWN_NAMES, LANGUAGES, language_of, suffix_of

    suffix = suffix_of(path)
    if not suffix and head is None:
        try:
            with open(path, "rb") as f:
                head = f.readline(200).decode("utf-8", "replace")
        except OSError:
            return None  # reading it fails later, with its own message
    if language_of(path, extension, head) is not None:
        return None
    known = ", ".join(KNOWN_NAMES)
    if not suffix:
        return (f"skipped: no suffix, and no #! line naming python or a shell; sparkcheck reads {known}")
    return (f"skipped: .{suffix} is not a file type sparkcheck reads ({known}); to check it, map the suffix: "
            f"--extension {suffix}:LANGUAGE, one of {', '.join(LANGUAGES)}")


@dataclass
class DiscoveryError:
    path: str
    message: str


def discover(
    paths: list[str],
    exclude_for: Callable[[str], PatternSet],
    respect_gitignore: Callable[[str], bool],
    force_exclude: bool,
    errors: list,
    extension_for: Optional[Callable[[str], dict]] = None,
    skipped: Optional[list] = None,
) -> Iterator[str]:
    """Yield the files to check, in a stable order; unreadable places go to ``errors``.

    In directories a file is picked by its name (``is_checkable``, with the `extension` mapping that
    ``extension_for`` gives for its directory), and a JSON, YAML or Terraform file also by its content
    (``holds_settings``). A file named explicitly is checked unless sparkcheck does not
    read its type: with ``skipped`` given, it goes there as a DiscoveryError saying why; a JSON, YAML or
    Terraform file named explicitly whose content holds no setting is passed over without a word.
    """
    seen: set[str] = set()
    extension_for = extension_for or (lambda path: {})
    for given in paths:
        if os.path.isdir(given):
            top = os.path.abspath(given)
            if force_exclude and exclude_for(top).matches_any(top, True):
                continue
            ignores = _parent_gitignores(top) if respect_gitignore(top) else []
            yield from _walk(top, given, exclude_for, respect_gitignore, ignores, errors, seen, extension_for)
        elif os.path.lexists(given):
            absolute = os.path.abspath(given)
            if force_exclude and (
                exclude_for(absolute).matches_any(absolute)
                or (respect_gitignore(absolute) and _ignored_by_git(absolute))
            ):
                continue
            if skipped is not None and os.path.isfile(absolute):
                reason = skip_reason(absolute, extension_for(absolute))
                if reason is not None:
                    skipped.append(DiscoveryError(given, reason))
                    continue
                if not holds_settings(absolute, extension_for(absolute)):
                    # JSON, YAML or Terraform naming nothing of Spark's (pre-commit passes every one): nothing
                    # to check, and nothing to say (a lock file over max-file-size is not an SPK001 finding).
                    continue
            if absolute not in seen:
                seen.add(absolute)
                yield given
        else:
            errors.append(DiscoveryError(given, "no such file or directory"))


def _parent_gitignores(top: str) -> list[PatternSet]:
    """.gitignore files of the directories above ``top``: up to the checkout's root,
    or, outside a checkout, those within the working directory."""
    found = []
    d = os.path.dirname(top)
    while True:
        found.extend(_gitignores_in(d))
        if os.path.isdir(os.path.join(d, ".git")):
            break
        parent = os.path.dirname(d)
        if parent == d:
            cwd = os.getcwd()
            found = [p for p in found if p.base == cwd or p.base.startswith(cwd + os.sep)]
            break
        d = parent
    return list(reversed(found))


def _gitignores_in(directory: str) -> list[PatternSet]:
    out = []
    for name in (".git/info/exclude", ".gitignore"):
        path = os.path.join(directory, name)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        out.append(PatternSet(directory, lines))
    return out


def _ignored_by_git(path: str) -> bool:
    for ps in _parent_gitignores(path):
        if ps.matches_any(path):
            return True
    return False


def _walk(top, shown, exclude_for, respect_gitignore, ignores, errors, seen, extension_for) -> Iterator[str]:
    stack = [(top, shown, ignores)]
    while stack:
        directory, shown_dir, inherited = stack.pop()
        active = inherited
        if respect_gitignore(directory):
            active = inherited + _gitignores_in(directory)
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            errors.append(DiscoveryError(shown_dir, f"cannot read directory: {exc.strerror or exc}"))
            continue
        excludes = exclude_for(directory)
        extension = extension_for(directory)
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if not is_dir and not is_checkable(entry.name, extension):
                continue
            path = entry.path
            if excludes.match(path, is_dir):
                continue
            ignored = None
            for ps in active:
                r = ps.match(path, is_dir)
                if r is not None:
                    ignored = r
            if ignored:
                continue
            shown_path = os.path.join(shown_dir, entry.name) if shown_dir != "." else entry.name
            if is_dir:
                subdirs.append((path, shown_path, active))
            elif path not in seen:
                try:
                    regular = entry.is_file()  # follows a symlink: a loop of them raises
                except OSError as exc:
                    errors.append(DiscoveryError(shown_path, f"cannot read file: {exc.strerror or exc}"))
                    continue
                if regular and holds_settings(path, extension):
                    seen.add(path)
                    yield shown_path
        stack.extend(reversed(subdirs))
