"""Share links in the real page: the URL carries the state, a new page restores it, a bad link
falls back to the defaults with a notice (never a traceback, never injected markup)."""

import json
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

import drmath
from drmath.io import links

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import READY_JS, problems, watch  # noqa: E402

pytestmark = pytest.mark.browser

SCENARIO_JS = "() => document.querySelector('.drmath-scenario').dataset.scenario"
KPIS_JS = """() => Object.fromEntries([...document.querySelectorAll('.drmath-kpi')].map(e =>
  [[...e.classList].find(c => c.startsWith('drmath-kpi-')), e.dataset.value]))"""


def open_page(browser, url):
    context = browser.new_context(viewport={"width": 1400, "height": 1500})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=f"{urlparse(url).scheme}://{urlparse(url).netloc}")
    page = context.new_page()
    log = watch(page)
    page.on("dialog", lambda d: (log["errors"].append(f"dialog: {d.message}"), d.dismiss()))
    page.goto(url, wait_until="commit", timeout=120_000)
    page.wait_for_function(READY_JS, timeout=120_000, polling=100)
    return page, log


def scenario_of(page):
    return drmath.Scenario().with_changes(json.loads(page.evaluate(SCENARIO_JS)))


def test_a_copied_link_restores_the_same_cards(voila_server, browser):
    page, log = open_page(browser, voila_server["url"])
    before = page.evaluate(SCENARIO_JS)
    page.locator(".drmath-control-training-gpus .noUi-handle").first.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"(b) => ({SCENARIO_JS})() !== b", arg=before, timeout=15_000)
    before = page.evaluate(SCENARIO_JS)
    page.locator(".drmath-control-failover-tier button", has_text="hot").first.click()
    page.wait_for_function(f"(b) => ({SCENARIO_JS})() !== b", arg=before, timeout=15_000)
    expected = scenario_of(page)
    assert expected.training.gpus == 10_000 and expected.failover.tier == "hot"
    query = links.to_query(expected)
    page.wait_for_function("(q) => document.querySelector('.drmath-share').dataset.link.endsWith('?' + q)",
                           arg=query, timeout=15_000)
    assert page.url.endswith("?" + query)  # the address bar carries the state too
    page.locator(".drmath-copy-link").first.click()
    page.wait_for_function("() => document.querySelector('.drmath-share').dataset.copied", timeout=10_000)
    link = page.evaluate("() => document.querySelector('.drmath-share').dataset.copied")
    cards = page.evaluate(KPIS_JS)
    page.close(run_before_unload=True)

    second, second_log = open_page(browser, link)
    # the kernel restores the link once Voilà hands it the request: wait for that update
    second.wait_for_function(f"(s) => ({SCENARIO_JS})() === s", arg=json.dumps(expected.flat()), timeout=60_000)
    assert scenario_of(second) == expected
    assert second.evaluate(KPIS_JS) == cards
    assert second.locator(".drmath-notice-message").count() == 0
    assert problems(log) == [] and problems(second_log) == []
    second.close(run_before_unload=True)


@pytest.mark.parametrize("query", [
    # markup in a value, and bytes that are not UTF-8; the other refusals (unknown or repeated
    # keys, out-of-range values, oversize links) are tested on from_query in test_io
    "training.gpus=<script>alert(1)</script>",
    "%ff%fe" * 50,
])
def test_a_bad_link_falls_back_with_a_notice(voila_server, browser, query):
    page, log = open_page(browser, voila_server["url"] + "?" + query)
    page.wait_for_selector(".drmath-notice-message", timeout=60_000)
    notice = page.locator(".drmath-notice-message").first.inner_text()
    assert "not used" in notice and "default scenario" in notice
    assert scenario_of(page) == drmath.Scenario()
    assert page.locator("script:text('alert(1)')").count() == 0
    assert problems(log) == []
    page.close(run_before_unload=True)
