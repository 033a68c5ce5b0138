"""What the range rules of the configuration (SPK814-SPK819) share: numbers, sizes and where a value counts."""

from __future__ import annotations

import re

from checks.config.adaptive_feature_disabled import adaptive_on

MIB = 1 << 20


def number(setting) -> float | None:
    """A setting's plain number (`5`, `1.5`), None when it is not one (`auto`, `${CORES}`)."""
    if setting is None:
        return None
    text = setting.value.strip()
    return float(text) if re.fullmatch(r"\d+(?:\.\d+)?", text) else None


def shown_size(size: float) -> str:
    """A byte count the way a Spark user writes it: `256 MiB`, `2 GiB`, `8 KiB`."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", MIB), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.4g} {unit}"
    return f"{size:.0f} bytes"


def bare(setting) -> bool:
    """The value is written without a unit (so Spark reads it in the setting's default unit)."""
    return re.fullmatch(r"\s*\d+(?:\.\d+)?\s*", setting.value) is not None


def on_a_cluster(conf) -> bool:
    """Not a `local` master: one machine (tests, a laptop) has no containers, no executors to lose."""
    return not conf.local


def skew_join_active(conf, settings) -> bool:
    """Skew-join handling runs: AQE on (or its 3.2+ default), its own switch not off, not a local session.

    A switch that is off is SPK801's or SPK812's to report; thresholds under it do nothing.
    """
    if conf.local or not adaptive_on(conf, settings):
        return False
    return (conf.value("spark.sql.adaptive.skewJoin.enabled") or "true").lower() != "false"
