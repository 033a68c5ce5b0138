"""Run the configuration rules (SPK8xx) over a ConfigSet, wherever its settings came from.

The sink places a finding: at a value's offsets in a text file, at a libcst
node in Python, or at the environment's line of an event log.
"""

from __future__ import annotations

import functools
import re
from typing import Callable

from linter import registry

_HINT = ("config(", ".set(", "setAll(", "master(", "setMaster(")
# Every setting the rules read is written as a literal: a key `"spark.…"`, or a master `"yarn-…"`.
_LITERAL = re.compile(r"""["'](?:spark\.\w|yarn-)""")


class ConfigContext:
    def __init__(self, settings, sink: Callable):
        self.settings = settings
        self._sink = sink

    def report(self, rule, setting, message: str, help=None) -> None:
        self._sink(rule, setting, message, help)


@functools.lru_cache(maxsize=64)
def config_rules(codes: frozenset) -> tuple:
    return registry.load_rules("config", codes)  # only the selected rules' modules are imported


def python_wants_config(text: str, codes: frozenset) -> bool:
    """Whether the walk must collect settings: a settings call and a literal key or master in the file."""
    # the text first: the configuration rules' modules are imported only for a file that may hold settings
    return any(h in text for h in _HINT) and _LITERAL.search(text) is not None and bool(config_rules(codes))


def run_rules(conf, settings, codes: frozenset, sink: Callable) -> None:
    ctx = ConfigContext(settings, sink)
    for rule in config_rules(codes):
        rule(ctx).check(conf)
