"""Every rule's own examples, and the meta-test that refuses an undocumented rule."""
import re

import pytest

from linter import registry
from linter.config import Resolver
from linter.engine import check_source
from linter.fixer import fix_source

RULES = registry.all_rules()
RULES_BY_CODE = {r.code: r for r in RULES}
REQUIRED = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "References")


def _settings(tmp_path, rule, options=None, preview=True):
    # explicit rules need their own code to be selected; preview rules (and preview cases) need --preview
    overrides = {"select": ["ALL", *(r.code for r in RULES if r.explicit)], "preview": preview}
    if options:
        overrides["__rules__"] = {rule.code: options}
    return Resolver(overrides, cwd=str(tmp_path)).for_path(str(tmp_path / "x.py"))


def _cases(kind):
    for rule in RULES:
        for i, example in enumerate(getattr(rule, kind)):
            yield pytest.param(rule, example, id=f"{rule.code}-{kind}-{i}")


def _findings(tmp_path, rule, example):
    assert example.preview or not rule.preview, "a preview rule's examples are checked with --preview"
    settings = _settings(tmp_path, rule, example.options, example.preview)
    path = str(tmp_path / example.path)
    if rule.kind == "plan":
        from linter.runtime.plans import check_plan_text

        found = check_plan_text(path, example.source, settings)
    elif rule.kind == "run" or example.path.endswith(".log"):  # a run rule, or a configuration rule over a run
        from linter.runtime.runs import check_log

        with open(path, "w", encoding="utf-8") as f:
            f.write(example.source)
        found = check_log(path, settings)[1]
    else:
        found = check_source(path, example.source.encode(), settings)
    return [f for f in found if f.code == rule.code], settings, path


@pytest.mark.parametrize("rule, example", list(_cases("invalid")))
def test_invalid_example_is_reported(tmp_path, rule, example):
    found, settings, path = _findings(tmp_path, rule, example)
    assert len(found) == example.count, (example.source, found)
    for f in found:
        assert f.location.row >= 1 and f.location.column >= 1
        assert f.message and rule.code == f.code
    if example.fixed is not None:
        result = fix_source(path, example.source.encode(), settings, unsafe=example.unsafe)
        assert result.fixed is not None, "the fix changed nothing"
        assert result.fixed.decode() == example.fixed
        again = fix_source(path, result.fixed, settings, unsafe=example.unsafe)
        assert again.fixed is None, "fixing twice changed the file again"
        left = [f for f in check_source(path, result.fixed, settings) if f.code == rule.code]
        assert not left, left


@pytest.mark.parametrize("rule, example", list(_cases("valid")))
def test_valid_example_is_not_reported(tmp_path, rule, example):
    found, _, _ = _findings(tmp_path, rule, example)
    assert found == [], found


# The file a manual's code block is checked as, by its language.
_EXAMPLE_FILES = {"sql": "example.sql", "xml": "capacity-scheduler.xml", "properties": "spark-defaults.conf",
                  "sh": "run.sh", "yaml": "job.yaml"}


def _blocks(rule, heading):
    text = rule.sections().get(heading, "")
    return re.findall(r"```(\w+)\n(.*?)```", text, re.S)


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_manual_examples_agree_with_the_rule(tmp_path, rule):
    """The manual's Example is reported and its Use instead is not.

    Plan rules show excerpts of plans in their manuals (not whole plans); their
    examples are checked through `invalid` / `valid` only.
    """
    if rule.kind in ("plan", "run") or all(e.path.endswith(".log") for e in rule.invalid):
        assert _blocks(rule, "Example") and _blocks(rule, "Use instead")
        return
    for heading, expect in (("Example", True), ("Use instead", False)):
        blocks = _blocks(rule, heading)
        assert blocks, f"{rule.code}: no code block under '{heading}'"
        for lang, code in blocks:
            path = _EXAMPLE_FILES.get(lang, "example.py")
            prelude = "from pyspark.sql import functions as F\n" + rule.doc_setup if path == "example.py" else \
                rule.doc_setup if lang == "sql" else ""
            settings = _settings(tmp_path, rule)
            text = prelude + code
            found = [f for f in check_source(str(tmp_path / path), text.encode(), settings) if f.code == rule.code]
            assert bool(found) == expect, (heading, code, found)


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_is_complete(rule):
    assert re.fullmatch(r"SPK\d{3}", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", rule.name), rule.name
    assert rule.summary and not rule.summary.endswith(".")
    sections = rule.sections()
    for heading in REQUIRED:
        assert sections.get(heading, "").strip(), f"{rule.code}: manual lacks '{heading}'"
    assert rule.invalid, f"{rule.code}: no examples that must be reported"
    assert rule.valid, f"{rule.code}: no examples that must not be reported"
    if rule.options:
        opts = sections.get("Options", "")
        for name in rule.options:
            assert f"`{name}`" in opts, f"{rule.code}: option {name} is not documented"
    has_fixed = any(e.fixed is not None for e in rule.invalid)
    assert has_fixed == (rule.fix is not None), f"{rule.code}: declared fix and fix examples disagree"
    assert rule.severity in ("error", "warning", "info")
    assert rule.kind in ("python", "sql", "tool", "plan", "run", "config")
    module = rule.__module__.rsplit(".", 1)[-1]
    assert module == rule.name.replace("-", "_"), f"{rule.code}: module {module} is not named after the rule"


def test_codes_and_names_are_unique():
    assert len({r.code for r in RULES}) == len(RULES)
    assert len({r.name for r in RULES}) == len(RULES)
    assert len(RULES) >= 6


def test_every_rule_says_why_it_is_on_or_off_by_default(run):
    # issue 15, "Defaults": a rule on by default gives its reason (printed by `sparkcheck rule`, and in the
    # editor's hover); a preview or opt-in rule says in its manual why it is off
    for rule in RULES:
        if rule.preview or rule.explicit:
            assert re.search(r"Preview|[Oo]ff by default|Off unless|opt-in", rule.manual()), rule.code
            assert not rule.default_reason, rule.code
        else:
            assert 20 <= len(rule.default_reason) <= 200, rule.code
    shown = run("rule", "SPK101").out
    assert "On by default: " + RULES_BY_CODE["SPK101"].default_reason.rstrip(".") + "." in shown
    assert "On by default" not in run("rule", "SPK408").out


def test_preview_and_explicit_rules_are_off_by_default(tmp_path):
    from linter.config import Resolver

    default = Resolver({}, cwd=str(tmp_path)).for_path(str(tmp_path / "a.py")).selected
    for rule in RULES:
        assert (rule.code in default) == (not rule.preview and not rule.explicit), rule.code
    everything = Resolver({"select": ["ALL"], "preview": True}, cwd=str(tmp_path)).for_path(str(tmp_path / "a.py")).selected
    assert all((r.code in everything) == (not r.explicit) for r in RULES)
    assert "SPK408" in Resolver({"extend-select": ["SPK408"]}, cwd=str(tmp_path)).for_path(str(tmp_path / "a.py")).selected


def test_selectors():
    assert {r.code for r in registry.resolve("SPK1")} >= {"SPK101", "SPK102"}
    assert registry.resolve("collect-on-unbounded-dataframe")[0].code == "SPK101"
    assert registry.resolve("spk406")[0].code == "SPK406"
    assert registry.resolve("SPK9") == []  # a family without rules yet is still a valid prefix
    with pytest.raises(registry.SelectorError):
        registry.resolve("SPK999")
    with pytest.raises(registry.SelectorError):
        registry.resolve("no-such-rule")


def test_readme_lists_every_rule():
    import os

    from conftest import ROOT

    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    for rule in RULES:
        assert f"| {rule.code} | {rule.name} |" in readme, f"README's rule table lacks {rule.code}"


def _update_readme():
    import importlib.util
    import os

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location("update_readme", os.path.join(ROOT, "scripts", "update_readme.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_rule_rows_say_what_the_rules_say():
    """Each row is what scripts/update_readme.py writes: a fix turned unsafe must not stay "safe" there."""
    import os

    from conftest import ROOT

    update = _update_readme()
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    for rule in RULES:
        row = f"| {rule.code} | {rule.name} | {rule.summary}{update.notes(rule)} |"
        assert row in readme, f"README's row for {rule.code} is stale: run scripts/update_readme.py"


def test_every_peer_rule_is_mapped_or_out_of_scope():
    """Issue 15: no peer rule may be left "missing"; every code named exists; docs/peers.md is current."""
    import os

    from conftest import ROOT

    update = _update_readme()
    rows = update.peer_rows()
    assert len(rows) > 200
    codes = {rule.code for rule in RULES}
    for row in rows:
        where = f"{row['peer']} {row['rule']}"
        assert row["verdict"] in {"mapped", "partial", "out-of-scope"}, f"{where}: verdict {row['verdict']!r}"
        named = [c.strip() for c in row["codes"].split(",") if c.strip()]
        assert all(c in codes for c in named), f"{where} names a code that does not exist: {named}"
        assert bool(named) == (row["verdict"] != "out-of-scope"), f"{where}: codes and verdict disagree"
        assert row["note"].strip(), f"{where} says nothing about why"
    current = open(os.path.join(ROOT, "docs", "peers.md"), encoding="utf-8").read()
    assert current == update.peers_markdown(), "docs/peers.md is stale: run scripts/update_readme.py"
