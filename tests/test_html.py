"""The HTML report, rendered in headless Chromium (Debian's chromium package, driven by Playwright).

The page must be self-contained (no request leaves file://), show each
application's summary, the task-duration box plots and the executor timeline
with visible marks, the findings with their treatments, and the plan trees
with the operators that have findings highlighted.
"""
import os
import shutil

import pytest

from conftest import ROOT, SHARED_DATA, run_process

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


def _open(browser, path):
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"file://{path}")
    page.wait_for_load_state("load")
    assert all(url.startswith("file://") for url in requests), requests  # nothing from the network
    return page


def test_diagnose_report_shows_the_run(browser, tmp_path):
    out = tmp_path / "report.html"
    r = run_process("diagnose", os.path.join(SHARED_DATA, "eventlogs", "aqeshuffle_eventlog.zstd"),
                    "--output-format", "html", "-o", out)
    assert r.code == 1, r.err
    page = _open(browser, out)
    assert page.inner_text("header h1") == "sparkcheck: Spark shell"
    assert page.locator("table.stages tr").count() == 1 + 4  # the header and the four stages that ran tasks
    boxes = page.locator("svg.boxplots g.stage rect")
    assert boxes.count() == 4
    assert all(boxes.nth(i).bounding_box()["width"] >= 1 for i in range(4))
    assert page.locator("svg.boxplots g.stage").first.get_attribute("data-stage") == "4.0"  # the longest first
    tasks = page.locator("svg.timeline rect.task")
    assert tasks.count() == 26 and tasks.first.bounding_box()["height"] > 5
    findings = page.locator("#findings .finding")
    assert findings.count() == 2
    text = page.inner_text("#findings")
    assert "SPK703 disk-spill" in text and "spilled 113.4 MiB to disk" in text and "Treatment:" in text
    assert page.locator("details.plan").count() == 1


def test_plan_report_highlights_the_operators_with_findings(browser, tmp_path):
    out = tmp_path / "plans.html"
    plan = os.path.join(ROOT, "fixtures", "plans", "partition_filter_udf.txt")
    r = run_process("plan", plan, "--output-format", "html", "-o", out)
    assert r.code == 1, r.err
    page = _open(browser, out)
    marked = page.locator("li.marked > .node")
    assert marked.count() == 2
    names = sorted(marked.nth(i).locator(".op").inner_text() for i in range(2))
    assert names == ["BatchEvalPython", "Filter"]
    badge = page.locator("li.marked .badge", has_text="SPK611")
    assert badge.is_visible()
    color = marked.first.evaluate("node => getComputedStyle(node).backgroundColor")
    assert color == "rgb(253, 226, 223)"
    plain = page.locator("li:not(.marked) > .node .op", has_text="FileScan")
    assert plain.count() == 1 and plain.is_visible()
    assert "every partition is listed and read" in page.inner_text("#findings")
