"""The dashboard's "your own fleet" panel in headless Chromium: upload a log, map it, fit it, apply it.

One Voilà for the module (conftest's ``voila_server``) and one page, driven in order as a reader would:
upload the shipped example through the file input, map its columns, fit, see the figures; apply the fit and
see each card's 90% range; run the 95% solve and see its answer.
"""

import html
import json
import sys
from pathlib import Path

import pytest

import drmath
from drmath.dashboard import CARDS
from drmath.dashboard.bands import DRAWS, SHADED
from drmath.dashboard.fleet import MAX_UPLOAD_BYTES
from drmath.io import incidents
from drmath.serve import MAX_MESSAGE_SIZE

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import READY_JS, open_dashboard, watch

pytestmark = pytest.mark.browser

SCENARIO_JS = "() => document.querySelector('.drmath-scenario').dataset.scenario"
FIGURE_JS = """(name) => { const gd = document.querySelector('.drmath-fleet-' + name + ' .js-plotly-plot');
  return gd && gd.data && gd.querySelector('.main-svg') ? gd.data.map(t => [t.type, t.name, t.y.length]) : null; }"""


def example_fit():
    return incidents.read_incidents(incidents.example_log(), start_column="start", end_column="end",
                                    where=["cluster=primary"], gpus=16384)


@pytest.fixture(scope="module")
def page(voila_server, browser):
    """One page of the dashboard with the fleet panel open; requests and console watched."""
    context, page, log = open_dashboard(browser, voila_server["url"], 1400, 1500)
    page.locator(".drmath-fleet-toggle").first.click()
    page.wait_for_selector(".drmath-fleet-upload", timeout=30_000)
    page.log = log
    yield page
    page.close(run_before_unload=True)
    context.close()


def select(page, name, value):
    page.locator(f".drmath-fleet-{name} select").first.select_option(value)


def choose_file(page, path):
    """Pick ``path`` in the file chooser that the panel's upload button opens (the input stays hidden)."""
    with page.expect_file_chooser(timeout=30_000) as chooser:
        page.locator(".drmath-fleet-upload button, button.drmath-fleet-upload").first.click()
    chooser.value.set_files(str(path))


def test_upload_map_and_fit_the_example_log(page):
    choose_file(page, incidents.example_log())
    page.wait_for_function("() => document.querySelector('.drmath-fleet-source').textContent"
                           ".includes('incidents_example.csv: 8 columns')", timeout=30_000)
    assert page.locator(".drmath-fleet-start select").first.input_value() == "start"  # guessed by name
    select(page, "end", "end")
    select(page, "where", "cluster")
    page.locator(".drmath-fleet-where-value input").first.fill("primary")
    gpus = page.locator(".drmath-fleet-gpus input").first
    gpus.fill("16384")
    gpus.press("Enter")
    page.locator(".drmath-fleet-fit").first.click()
    page.wait_for_selector(".drmath-fleet-summary pre", timeout=60_000)
    fit = example_fit()
    assert page.locator(".drmath-fleet-summary pre").first.inner_text() == fit.summary()
    for name, traces in (("gaps", ["gaps (histogram)", "Weibull fit", "exponential fit"]),
                         ("trend", ["failures counted", "constant rate"])):
        page.wait_for_function(FIGURE_JS, arg=name, timeout=30_000)
        drawn = page.evaluate(FIGURE_JS, name)
        assert [t[1] for t in drawn] == traces
    assert page.evaluate(FIGURE_JS, "trend")[0][2] == fit.events
    rows = page.locator(".drmath-cause-table tbody tr")
    assert rows.count() == len(fit.causes) and rows.first.inner_text().startswith("Faulty GPU")
    assert page.locator(".drmath-fleet-error").first.inner_text().strip() == ""
    log = page.log
    assert log["external"] == [] and log["failed"] == [] and log["bad_status"] == [] and log["errors"] == []


def test_a_bad_mapping_is_one_line_and_applies_nothing(page):
    before = page.evaluate(SCENARIO_JS)
    select(page, "duration", "incident")  # end and duration both mapped
    page.locator(".drmath-fleet-fit").first.click()
    error = page.locator(".drmath-fleet-error-message")
    error.wait_for(timeout=30_000)
    assert error.inner_text() == "map an end column or a duration column, not both"
    assert page.evaluate(SCENARIO_JS) == before
    select(page, "duration", "(none)")


def test_an_oversized_upload_is_refused_in_one_line_and_the_fit_stays(page, tmp_path):
    big = tmp_path / "big.csv"
    big.write_bytes(b"start\n" + b"2024-05-01T00:00:00Z\n" * (MAX_UPLOAD_BYTES // 21 + 100))  # 770 KiB < 1 MiB
    before = page.evaluate(SCENARIO_JS)
    choose_file(page, big)
    page.wait_for_function("() => /big.csv/.test(document.querySelector('.drmath-fleet-error').textContent)",
                           timeout=60_000)
    assert page.locator(".drmath-fleet-error-message").first.inner_text() == (
        "big.csv is 770 KiB: this page takes logs of at most 768 KiB; fit a bigger one with drmath calibrate")
    assert "incidents_example.csv: 8 columns" in page.locator(".drmath-fleet-source").first.inner_text()
    assert page.locator(".drmath-fleet-summary pre").count() == 1 and page.evaluate(SCENARIO_JS) == before


def test_apply_the_fit_and_see_the_ranges_on_the_cards_and_figures(page):
    before = page.evaluate(SCENARIO_JS)
    page.locator(".drmath-fleet-apply").first.click()
    page.wait_for_function(f"(b) => ({SCENARIO_JS})() !== b", arg=before, timeout=60_000)
    flat = json.loads(page.evaluate(SCENARIO_JS))
    fit = example_fit()
    assert flat["failures.gpu_failure_rate"] == pytest.approx(fit.gpu_failure_rate)
    assert flat["failures.weibull_shape"] == pytest.approx(fit.weibull_shape)
    page.wait_for_selector(".drmath-band", timeout=60_000)
    scenario = fit.apply(drmath.Scenario().with_changes(json.loads(before)))
    bands = drmath.bands(scenario, draws=DRAWS)
    varied = [name for name in CARDS if bands.varies(name)]
    assert "ettr" in varied  # the fitted failure rate moves the goodput
    for name in CARDS:  # a range under each card whose quantity the draws move, and none under the others
        if name in varied:
            assert page.locator(f".drmath-band-{name}").first.inner_text() == bands.format_range(name), name
        else:
            assert page.locator(f".drmath-band-{name}").count() == 0, name
    assert "applied:" in page.locator(".drmath-fleet-applied").first.inner_text()
    for name, (quantity, _, _) in SHADED.items():
        names = page.evaluate("(n) => document.querySelector('.drmath-figure-' + n + ' .js-plotly-plot')"
                              ".data.map(t => t.name)", name)
        assert ("90% range" in names) == bands.varies(quantity), name
    log = page.log
    assert log["failed"] == [] and log["bad_status"] == [] and log["errors"] == []


def test_solve_at_95_percent_and_see_its_answer(page):
    before = json.loads(page.evaluate(SCENARIO_JS))
    page.locator(".drmath-confidence select").first.select_option(label="at 95% confidence")
    page.locator(".drmath-solve").first.click()
    page.wait_for_function("() => /meets every target in/.test(document.querySelector('.drmath-solution')"
                           ".textContent)", timeout=180_000)
    text = html.unescape(page.locator(".drmath-solution-message").first.inner_text())
    scenario = example_fit().apply(drmath.Scenario().with_changes(before))
    want = drmath.solve(scenario, confidence=0.95)
    assert "At 95% confidence over 2,000 draws" in text
    assert f"the point-estimate design would miss in {want.point_design_miss_probability:.1%}" in text
    assert text.startswith("applied:") == want.feasible
    assert page.locator(".drmath-band-ettr").count() == 1  # the applied design keeps its ranges


def test_a_log_over_the_message_limit_is_refused_in_the_page_and_the_session_lives(voila_server, browser, tmp_path):
    # 1.5 MiB: sent whole over the kernel websocket, it would be over the server's one-message limit and end
    # the session; the page checks the size first and sends only the file's name and size
    big = tmp_path / "big.csv"
    big.write_bytes(b"start\n" + b"2024-05-01T00:00:00Z\n" * (3 * 2**19 // 21))
    assert MAX_MESSAGE_SIZE < big.stat().st_size
    context = browser.new_context(viewport={"width": 1400, "height": 1500})
    page = context.new_page()
    log, sent = watch(page), []
    page.on("websocket", lambda ws: ws.on("framesent", lambda p: sent.append(len(p if isinstance(p, bytes)
                                                                                  else p.encode()))))
    try:
        page.goto(voila_server["url"], wait_until="commit", timeout=120_000)
        page.wait_for_function(READY_JS, timeout=120_000, polling=100)
        page.locator(".drmath-fleet-toggle").first.click()
        page.wait_for_selector(".drmath-fleet-upload", timeout=30_000)
        choose_file(page, big)
        page.wait_for_function("() => /big.csv/.test(document.querySelector('.drmath-fleet-error').textContent)"
                               " || document.getElementById('drmath-session-notice')", timeout=60_000)
        assert page.locator("#drmath-session-notice").count() == 0
        assert page.locator(".drmath-fleet-error-message").first.inner_text() == (
            f"big.csv is {big.stat().st_size / 2**10:,.0f} KiB: this page takes logs of at most 768 KiB; "
            "fit a bigger one with drmath calibrate")
        page.locator(".drmath-fleet-example").first.click()  # the session still answers
        page.wait_for_function("() => document.querySelector('.drmath-fleet-source').textContent"
                               ".includes('incidents_example.csv: 8 columns')", timeout=60_000)
        assert page.locator(".drmath-fleet-error").first.inner_text().strip() == ""
        assert page.locator("#drmath-session-notice").count() == 0
        assert sent and max(sent) < MAX_MESSAGE_SIZE
        assert log["errors"] == [] and log["failed"] == [] and log["bad_status"] == []
    finally:
        page.close(run_before_unload=True)
        context.close()
