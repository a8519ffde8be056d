"""The Voilà dashboard in headless Chromium: renders, moves, matches plan(), and frees its kernel.

Voilà runs on loopback through ``python -m drmath.serve`` with short culling times (conftest).
"""

import json
import sys
from pathlib import Path

import pytest

import drmath
import drmath.dashboard
from drmath.io import scenarios

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import (
    CULL_IDLE_TIMEOUT,
    CULL_INTERVAL,
    READY_JS,
    assert_kpis_match_plan,
    kernel_ids,
    open_dashboard,
    watch,
)
from waiting import wait_until  # noqa: E402

pytestmark = pytest.mark.browser

FIGURE_DATA_JS = """() => Object.fromEntries([...document.querySelectorAll('.drmath-figure')].map(f => {
  const name = [...f.classList].find(c => c.startsWith('drmath-figure-')).slice('drmath-figure-'.length);
  const gd = f.querySelector('.js-plotly-plot');
  return [name, JSON.stringify([gd.data.map(t => [t.x, t.y, t.base, t.marker && t.marker.color]),
                                 gd.layout.title && gd.layout.title.text, gd.layout.shapes])];
}))"""
KPIS_JS = """() => Object.fromEntries([...document.querySelectorAll('.drmath-kpi')].map(e => {
  const name = [...e.classList].find(c => c.startsWith('drmath-kpi-')).slice('drmath-kpi-'.length);
  return [name, [e.dataset.value, e.textContent]];
}))"""
SCENARIO_JS = "() => document.querySelector('.drmath-scenario').dataset.scenario"


def scenario_from_page(page):
    flat = json.loads(page.evaluate(SCENARIO_JS))
    return drmath.Scenario().with_changes(flat)


def assert_cards_equal_plan(page):
    p = drmath.plan(scenario_from_page(page))
    kpis = page.evaluate(KPIS_JS)
    assert set(kpis) == set(drmath.dashboard.CARDS)
    assert_kpis_match_plan(kpis, p)
    return p


@pytest.fixture
def session(voila_server, browser):
    """A page of the dashboard of its own (on the worked answer's design, whatever the tests before it moved), with its
    requests and console watched."""
    context, page, log = open_dashboard(browser, voila_server["url"], 1400, 1500)
    kernel_id = page.evaluate("JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId")
    yield {"page": page, "context": context, "log": log, "kernel_id": kernel_id, "server": voila_server}
    try:
        if not page.is_closed():
            page.close(run_before_unload=True)
    except Exception:  # noqa: BLE001 - closed by its test already (close with beforeunload is async)
        pass
    context.close()


def test_every_figure_renders_with_no_failed_request_or_console_error(session):
    page, log = session["page"], session["log"]
    figures = page.evaluate("""() => [...document.querySelectorAll('.drmath-figure')].map(f => {
        const gd = f.querySelector('.js-plotly-plot');
        return [f.className, gd ? gd.data.length : 0, gd ? gd.querySelectorAll('.main-svg').length : 0,
                gd ? gd.getBoundingClientRect().width : 0];
    })""")
    assert len(figures) == 5
    for cls, traces, svgs, width in figures:
        assert traces > 0 and svgs > 0 and width > 200, cls
    for name in drmath.dashboard.FIGURES:
        assert page.locator(f".drmath-figure-{name} .js-plotly-plot").count() == 1
    assert log["external"] == []
    assert log["failed"] == []
    assert log["bad_status"] == []
    assert log["errors"] == []
    assert scenario_from_page(page) == scenarios.answer()  # the worked answer's design, the seed's targets set
    assert page.locator(".drmath-warning").count() == 0  # issue 35: no red "missed" banner greets a visitor
    assert_cards_equal_plan(page)


@pytest.fixture(scope="module")
def controls_page(voila_server, browser):
    """One page for the controls' tests, each moving one control from where the tests before it left the others:
    each checks what its own move changed (a fresh page per move cost ~6 s of CI each)."""
    context, page, log = open_dashboard(browser, voila_server["url"], 1400, 1500)
    yield page
    context.close()


def move_slider(page, css, key="ArrowRight"):
    page.locator(f".{css} .noUi-handle").first.focus()
    page.keyboard.press(key)


@pytest.mark.parametrize("path, action, new_value, figures_that_change", [
    ("training.gpus", "ArrowRight", 10_000, {"ettr", "rpo", "cost_tier", "cost_link"}),
    ("training.mfu", "ArrowRight", 0.41, set()),  # window-driven run: MFU moves only the tokens
    ("checkpoint.interval", "ArrowRight", 300.0, {"ettr", "rpo"}),  # from the answer's 235.4 s
    ("replication.link_bandwidth", "ArrowRight", 800e9 / 8, {"rpo", "cost_link", "cost_tier"}),  # from 400 Gbit/s
    ("failover.tier", "hot", "hot", {"rto", "cost_tier"}),
])
def test_moving_a_control_updates_cards_and_figures(controls_page, path, action, new_value, figures_that_change):
    page = controls_page
    section, field = path.split(".")
    css = f"drmath-control-{section}-{field}"
    before_scenario = page.evaluate(SCENARIO_JS)
    before_figures = page.evaluate(FIGURE_DATA_JS)
    before_cards = page.evaluate(KPIS_JS)
    if path == "failover.tier":
        page.locator(f".{css} button", has_text=action).first.click()
    else:
        move_slider(page, css, action)
    page.wait_for_function(f"(b) => ({SCENARIO_JS})() !== b", arg=before_scenario, timeout=15_000)
    scenario = scenario_from_page(page)
    assert scenario.get(path) == pytest.approx(new_value) if not isinstance(new_value, str) else \
        scenario.get(path) == new_value
    # only the moved field changed
    assert scenario == drmath.Scenario().with_changes(
        {**json.loads(before_scenario), path: scenario.get(path)})
    p = assert_cards_equal_plan(page)
    after_figures = page.evaluate(FIGURE_DATA_JS)
    changed = {name for name in after_figures if after_figures[name] != before_figures[name]}
    assert figures_that_change <= changed, f"figures that changed: {changed}"
    if not figures_that_change:
        after_cards = page.evaluate(KPIS_JS)
        assert after_cards == before_cards  # every card equals plan(), and plan() did not move...
        assert f"{p.format('tokens')} tokens" in page.locator(".drmath-kpi-time_to_train").locator(
            "xpath=..").inner_text()  # ...but the tokens trained in the window did


def test_show_the_math_renders_the_derivation(session):
    page, log = session["page"], session["log"]
    page.locator(".drmath-math-toggle-rpo_site").first.click()
    page.wait_for_selector(".drmath-math-rpo_site .jp-RenderedMarkdown mjx-container", timeout=30_000)
    text = page.locator(".drmath-math-rpo_site").first.inner_text()
    assert drmath.plan(scenario_from_page(page)).format("rpo_site") in text
    assert log["errors"] == [] and log["failed"] == [] and log["bad_status"] == [] and log["external"] == []


def test_targets_in_the_cheapest_design_out_with_its_front_and_a_baseline(session):
    """Issue 13: set a target, press one button, the cheapest design meeting it is applied and its front drawn;
    a pinned baseline puts each card's change beside it; the tier table follows the tier."""
    page, log = session["page"], session["log"]
    # the seed is pinned from the start: the baseline the answer improves on
    assert "vs baseline" in page.locator(".drmath-kpi-rto_site").locator("xpath=..").inner_text()
    css = "drmath-control-requirements-rto_site"
    assert scenario_from_page(page).requirements.rto_site == 4 * 3600.0  # the worked answer's target, the seed's
    before = page.evaluate(SCENARIO_JS)
    move_slider(page, css, "ArrowLeft")  # 4 h -> 2 h, which the answer meets already
    page.wait_for_function(f"(b) => ({SCENARIO_JS})() !== b", arg=before, timeout=15_000)
    assert scenario_from_page(page).requirements.rto_site == 2 * 3600.0
    before = page.evaluate(SCENARIO_JS)
    move_slider(page, css, "ArrowLeft")  # 2 h -> 1 h: the answer's warm standby (1.67 h) no longer meets it
    page.wait_for_function(f"(b) => ({SCENARIO_JS})() !== b", arg=before, timeout=15_000)
    targeted = scenario_from_page(page)
    assert targeted.requirements.rto_site == 3600.0
    expected = drmath.solve(targeted)
    before = page.evaluate(SCENARIO_JS)
    page.locator(".drmath-solve button, button.drmath-solve").first.click()
    page.wait_for_function(f"(b) => ({SCENARIO_JS})() !== b", arg=before, timeout=30_000)
    page.wait_for_function("() => { const g = document.querySelector('.drmath-pareto .js-plotly-plot');"
                           " return g && g.data && g.data.length && g.querySelector('.main-svg'); }", timeout=30_000)
    assert scenario_from_page(page) == expected.scenario
    p = assert_cards_equal_plan(page)
    card = page.locator(".drmath-kpi-rto_site").locator("xpath=..")
    assert card.locator(".drmath-target-met").count() == 1 and card.locator(".drmath-target-missed").count() == 0
    assert "vs baseline" in page.locator(".drmath-kpi-rto_site").locator("xpath=..").inner_text()
    current = page.locator(".drmath-tier-table tr.drmath-tier-current").first.get_attribute("data-tier")
    assert current == p.scenario.failover.tier
    assert page.locator(".drmath-pareto").first.bounding_box()["width"] > 300
    assert log["errors"] == [] and log["failed"] == [] and log["bad_status"] == [] and log["external"] == []


def test_closed_page_frees_its_kernel(session):
    page, proc = session["page"], session["server"]["proc"]
    kernel_id = session["kernel_id"]
    assert kernel_id in kernel_ids(proc)
    page.close(run_before_unload=True)
    wait_until(lambda: kernel_id not in kernel_ids(proc), 2 * CULL_INTERVAL + CULL_IDLE_TIMEOUT + 15,
               "the closed page's kernel culled")


def test_a_closed_tabs_shutdown_beacon_is_accepted(voila_server, browser):
    # Voilà's page posts /voila/api/shutdown/<kernel> on beforeunload with the _xsrf cookie's token.
    # Without that cookie the server answered 403, and a page still alive logged "Failed to load
    # resource: ... 403 (Forbidden)" as a console error: the other browser tests' flake.
    proc, log_path = voila_server["proc"], Path(voila_server["log"])
    context = browser.new_context(viewport={"width": 1400, "height": 1500})
    page = context.new_page()
    page.goto(voila_server["url"], wait_until="commit", timeout=120_000)
    page.wait_for_function(READY_JS, timeout=120_000, polling=100)
    assert "_xsrf" in {c["name"] for c in context.cookies()}, "the page has no _xsrf cookie for its beacon"
    kernel_id = page.evaluate("JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId")
    assert kernel_id in kernel_ids(proc)
    page.close(run_before_unload=True)
    # the beacon shuts the kernel down at once; the culler would need CULL_IDLE_TIMEOUT and more: half of it is
    # the bound that tells the two apart (the server's setting, not a guess)
    try:
        wait_until(lambda: kernel_id not in kernel_ids(proc), CULL_IDLE_TIMEOUT / 2,
                   "the beacon shut the closed tab's kernel down (before the culler could have)")
    finally:
        context.close()
    refused = [line for line in log_path.read_text().splitlines() if f"shutdown/{kernel_id}" in line and "403" in line]
    assert refused == []


# a phone: the controls above one column of charts, every chart visible and at least 300 px wide
PHONE_LAYOUT_JS = """() => {
  const box = e => e.getBoundingClientRect();
  const figures = [...document.querySelectorAll('.drmath-figure')].map(f => {
    const r = box(f), gd = f.querySelector('.js-plotly-plot'), g = gd ? box(gd) : {width: 0, height: 0};
    const style = getComputedStyle(f);
    return {name: [...f.classList].find(c => c.startsWith('drmath-figure-')), left: r.left, right: r.right,
            top: r.top, width: r.width, plot: g.width, height: g.height,
            shown: style.display !== 'none' && style.visibility !== 'hidden'};
  });
  const controls = box(document.querySelector('.drmath-controls'));
  const copy = box(document.querySelector('.drmath-copy-link'));
  const cards = [...document.querySelectorAll('.drmath-card')].map(box);
  return {figures, controls: {left: controls.left, right: controls.right, bottom: controls.bottom},
          copy: {left: copy.left, right: copy.right, width: copy.width},
          cards: cards.map(c => [c.left, c.right]),
          scroll: document.documentElement.scrollWidth, inner: window.innerWidth};
}"""

HANDLES_JS = """() => [...document.querySelectorAll('.drmath-control .noUi-handle')].map(h => {
  const control = h.closest('.drmath-control');
  return [[...control.classList].find(c => c.startsWith('drmath-control-')),
          h.getAttribute('aria-valuetext'), h.getAttribute('aria-label'),
          control.querySelector('.widget-readout').textContent.trim()];
})"""


@pytest.mark.parametrize("width, height", [(390, 844), (360, 740)])
def test_the_page_works_on_a_phone(voila_server, browser, width, height):
    """Issue 13: at 390x844 the controls' 400 px minimum squeezed the charts' grid to 2 px."""
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
    page = context.new_page()
    log = watch(page)
    page.goto(voila_server["url"], wait_until="commit", timeout=120_000)
    page.wait_for_function(READY_JS, timeout=120_000, polling=100)
    page.wait_for_timeout(500)  # plotly fits each plot to its box on the next frame
    got = page.evaluate(PHONE_LAYOUT_JS)
    assert len(got["figures"]) == 5
    for f in got["figures"]:
        assert f["shown"] and f["width"] >= 300 and f["plot"] >= 300 and f["height"] >= 200, f
        assert f["left"] >= 0 and f["right"] <= width, f  # nothing clipped at the sides
        assert f["top"] >= got["controls"]["bottom"], f  # the controls come first
    assert got["controls"]["left"] >= 0 and got["controls"]["right"] <= width
    assert got["copy"]["width"] > 0 and 0 <= got["copy"]["left"] and got["copy"]["right"] <= width
    assert all(0 <= left and right <= width for left, right in got["cards"])
    assert got["scroll"] <= width  # no sideways scrolling
    # every slider handle announces its value and unit, as its readout shows them, not an index
    handles = page.evaluate(HANDLES_JS)
    assert handles
    for name, valuetext, label, readout in handles:
        assert label and valuetext == f"{label}: {readout}", name
    gpus = next(h for h in handles if h[0] == "drmath-control-training-gpus")
    assert gpus[1] == "GPUs: 8,000"
    assert log["errors"] == [] and log["failed"] == []
    page.close(run_before_unload=True)
    context.close()
