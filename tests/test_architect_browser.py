"""The architect's screen as the page shows it (issue 22): a 1400×900 laptop, the dashboard in headless Chromium.

One Voilà server and one page for the module (conftest); the tests run in order on that page, as an architect
would: read the cards and the tier table, open the math, switch to multi-site, pin a baseline and compare, search.
"""

import re
import sys
from pathlib import Path

import pytest

import drmath

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import open_dashboard  # noqa: E402
from test_architect import _AMOUNT, _amount, _card_parts  # noqa: E402
from test_browser import SCENARIO_JS, move_slider, scenario_from_page  # noqa: E402

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page(voila_server, browser):
    context, page, log = open_dashboard(browser, voila_server["url"], 1400, 900)
    page.log = log
    yield page
    page.close(run_before_unload=True)
    context.close()


def _changed(page, before):
    page.wait_for_function(f"(b) => ({SCENARIO_JS})() !== b", arg=before, timeout=30_000)


def test_the_cost_card_on_screen_lists_parts_that_add_up(page):
    cards = page.evaluate("() => [...document.querySelectorAll('.drmath-card')].map(c => c.outerHTML).join('')")
    parts = _card_parts(cards)
    value, chains = parts["total_dr_cost"]
    assert chains, "the total DR cost shows its parts"
    for chain in chains:
        amounts = [_amount(re.search(_AMOUNT + "$", part).group(0)) for part in chain]
        assert abs(sum(a for a, _ in amounts) - value) <= sum(s for _, s in amounts), chain
    text = page.locator(".drmath-kpi-total_dr_cost").locator("xpath=..").inner_text()
    for word in ("standby", "replication", "cross-site", "expected loss"):
        assert word in text, text


def test_the_tier_table_caption_explains_every_column_without_hover(page):
    caption = page.locator(".drmath-tier-table caption").first
    caption.scroll_into_view_if_needed()
    assert caption.is_visible() and caption.bounding_box()["height"] > 40
    text = caption.inner_text()
    for heading in ("site RTO", "site RPO", "total DR cost", "expected slip", "pays for itself above"):
        assert f"{heading}:" in text, (heading, text)


def test_show_the_math_defines_every_symbol_of_the_cost(page):
    page.locator(".drmath-math-toggle-total_dr_cost").first.click()
    page.wait_for_selector(".drmath-math-total_dr_cost .jp-RenderedMarkdown mjx-container", timeout=30_000)
    text = page.locator(".drmath-math-total_dr_cost").first.inner_text()
    assert "Where" in text and "cross-site circuit for gradients" in text and "expected value" in text, text
    page.locator(".drmath-math-toggle-total_dr_cost").first.click()


def test_multi_site_disables_the_decision_time_and_says_why(page):
    before = page.evaluate(SCENARIO_JS)
    page.locator(".drmath-control-failover-tier button", has_text="multi-site").first.click()
    _changed(page, before)
    page.wait_for_function("() => [...document.querySelectorAll('.drmath-note')]"
                           ".some(n => n.innerText.includes('does nothing for Multi-site'))", timeout=30_000)
    decision = page.locator(".drmath-control-failover-decision_time").first
    assert decision.locator("[disabled]").count() >= 1, decision.inner_html()[:400]
    before = page.evaluate(SCENARIO_JS)
    page.locator(".drmath-control-failover-tier button", has_text="warm").first.click()
    _changed(page, before)
    page.wait_for_function("() => ![...document.querySelectorAll('.drmath-note')]"
                           ".some(n => n.innerText.includes('does nothing'))", timeout=30_000)
    assert decision.locator("[disabled]").count() == 0


def test_compare_with_baseline_shows_a_table_of_every_card_and_a_chart(page):
    # the seed is pinned from the start (issue 35): one click compares against it, no pin needed
    assert "clear baseline" in page.locator(".drmath-pin button, button.drmath-pin").first.inner_text()
    before = page.evaluate(SCENARIO_JS)
    move_slider(page, "drmath-control-training-gpus")
    _changed(page, before)
    toggle = page.locator(".drmath-compare-toggle button, button.drmath-compare-toggle").first
    toggle.click()
    page.wait_for_function("() => { const g = document.querySelector('.drmath-compare-figure .js-plotly-plot');"
                           " return g && g.data && g.data.length && g.querySelector('.main-svg'); }", timeout=60_000)
    table = page.locator(".drmath-compare-table table.drmath-compare").first
    assert table.is_visible()
    p = drmath.plan(scenario_from_page(page))
    text = table.inner_text()
    for name in drmath.dashboard.CARDS:
        assert drmath.quantities.QUANTITIES[name].title in text and p.format(name) in text, name
    assert page.locator(".drmath-compare-figure").first.bounding_box()["width"] > 600
    toggle.click()


def test_the_pareto_figure_goes_grey_and_says_stale_when_the_inputs_change(page):
    before = page.evaluate(SCENARIO_JS)
    page.locator(".drmath-solve button, button.drmath-solve").first.click()
    page.wait_for_function("() => { const g = document.querySelector('.drmath-pareto .js-plotly-plot');"
                           " return g && g.data && g.data.length && g.querySelector('.main-svg'); }", timeout=60_000)
    page.wait_for_timeout(500)  # the search may apply a design: let the page settle on it
    before = page.evaluate(SCENARIO_JS)
    move_slider(page, "drmath-control-training-gpus")
    _changed(page, before)
    page.wait_for_function("() => [...document.querySelectorAll('.drmath-pareto .annotation-text')]"
                           ".some(a => a.textContent.includes('stale'))", timeout=30_000)
    note = page.evaluate("() => [...document.querySelectorAll('.drmath-pareto .annotation-text')]"
                         ".map(a => a.textContent).filter(t => t.includes('stale'))")
    assert "apply the cheapest design" in note[0] and "refresh" in note[0], note
    assert page.log["external"] == [] and page.log["errors"] == [], page.log
