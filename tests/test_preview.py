"""Issue 13: while the kernel starts, the page shows a static preview of the visitor's scenario (the story
and the explainer's headline cards) under a progress bar, instead of Voilà's blank "Running …" spinner;
the preview goes once the live workbook has drawn its cards and charts.

The served-page tests run against a Voilà of their own (``python -m drmath.serve``, pool of 2, so that
each page gets a preheated kernel); the browser test against the session Voilà of conftest.
"""

import html
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import READY_JS, http_get, problems, start_voila, stop_voila, watch

import drmath
from drmath.dashboard import CARDS
from drmath.io import scenarios
from drmath.io.links import to_query
from drmath.report import build_report, headline_html, report_title
from drmath.serve import pages

SHARED = {"training.gpus": 4096, "failover.tier": "hot"}  # a share link's scenario, unlike the default
HOSTILE = "training.gpus=%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"
NUMBER = re.compile(r'<span class="num" data-field="(\w+)" data-si="[^"]*">([^<]*)</span>')


def preview_of(page_html):
    """The preview part of a served page: from its box to where the live cells begin."""
    start, end = page_html.find('<div id="drmath-preview"'), page_html.find('<div id="rendered_cells"')
    assert 0 <= start < end, "the page has no preview box before its cells"
    return page_html[start:end]


def numbers(fragment):
    """``{plan field: text}`` of the headline numbers in ``fragment``."""
    return dict(NUMBER.findall(fragment))


def expected(changes=None):
    """``{card: Plan.format(card)}`` of the default scenario with ``changes``."""
    p = drmath.plan(drmath.Scenario().with_changes(changes or {}))
    return {name: p.format(name) for name in CARDS}


def opening():
    """``{card: Plan.format(card)}`` of the page's opening scenario: the worked answer's design (issue 35)."""
    p = drmath.plan(scenarios.answer())
    return {name: p.format(name) for name in CARDS}


# --------------------------------------------------------------------------- the fragment (no server)


def test_the_preview_is_the_story_and_the_reports_headline_drawn_from_the_plan():
    scenario = drmath.Scenario().with_changes(SHARED)
    fragment = pages.preview_html(scenario)
    assert numbers(fragment) == expected(SHARED)
    assert "4,096 GPUs" in fragment and "RPO" in fragment and "drmath-preview-story" in fragment
    # the live page's own story keeps its class names: the preview's copy uses others
    assert 'class="drmath-story"' not in fragment and 'class="drmath-header"' not in fragment
    # the same cards and title as the report's, from one template, not cut out of its HTML
    p = drmath.plan(scenario)
    assert headline_html(p) in fragment and html.escape(report_title(p)) in fragment
    assert headline_html(p) in build_report(scenario, include_plotlyjs=False)


def test_the_default_page_explains_the_worked_answer_the_dashboard_opens_on():
    """The dashboard opens on the worked answer's design (issue 35; before, the seed); the default page's static
    explainer and preview explained ``Scenario()``, with no targets, so the static page and the live one
    disagreed."""
    from drmath.dashboard import build_app
    from drmath.io.scenarios import answer

    assert build_app().scenario == answer()
    assert pages.page_scenario("") == (answer(), None)
    # rendered under the default page's cache key (the answer's own query; "" is a link to the defaults)
    assert pages._render_explainer(pages.link_query("")[0]) == build_report(answer(), include_plotlyjs=False)
    assert pages._query_preview("") == pages.preview_html(answer())


def test_the_preview_escapes_the_notice():
    fragment = pages.preview_html(notice='"><img src=x onerror=alert(1)>')
    assert "<img" not in fragment and html.escape('"><img src=x onerror=alert(1)>', quote=True) in fragment


def test_the_server_imports_no_widget_library():
    import subprocess

    code = ("import sys, drmath.serve.app, drmath.serve.pages; drmath.serve.pages.preview_html(); "
            "print(sorted(m for m in ('ipywidgets', 'anywidget', 'plotly') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --------------------------------------------------------------------------- the served page


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("voila") / "voila.log"
    proc, url, log = start_voila(log, pool_size=2, cull_interval=30, cull_idle_timeout=60, figures=False)
    yield {"proc": proc, "url": url, "log": Path(log)}
    stop_voila(proc)


@pytest.mark.slow
def test_the_page_previews_the_default_scenario(server):
    status, _, body = http_get(server["url"], accept="text/html")
    assert status == 200
    preview = preview_of(body)
    assert numbers(preview) == opening()  # the worked answer's design, as the dashboard opens (issue 35)
    assert 'role="progressbar"' in preview and "The live workbook is starting" in preview
    assert pages.PREVIEW_MARKER not in body  # the request's preview took the template's place for it


@pytest.mark.slow
def test_a_share_links_page_previews_its_scenario(server):
    query = to_query(drmath.Scenario().with_changes(SHARED))
    status, _, body = http_get(server["url"] + "?" + query, accept="text/html")
    assert status == 200
    shown = numbers(preview_of(body))
    assert shown == expected(SHARED) and shown != expected()


@pytest.mark.slow
def test_a_hostile_link_injects_no_markup_into_the_preview(server):
    status, _, body = http_get(server["url"] + "?" + HOSTILE, accept="text/html")
    assert status == 200
    preview = preview_of(body)
    assert "<img" not in preview and "<script>alert" not in preview  # its text, if any, is escaped
    assert "were not used" in preview and numbers(preview) == expected()  # the default, with the reason


# --------------------------------------------------------------------------- in the browser

# installed before any page script: when the preview's cards were first on screen (and what they read),
# when the live cards first existed, and every value the progress bar took
WATCH_JS = """window.__preview = {seen: null, texts: null, cards: null, steps: []};
(function poll() {
  const w = window.__preview, now = performance.now();
  const kpis = document.querySelectorAll('#drmath-preview .kpi');
  if (w.seen === null && kpis.length && kpis[0].getBoundingClientRect().height > 0) {
    w.seen = now;
    w.texts = Object.fromEntries([...document.querySelectorAll('#drmath-preview .kpi .num')]
      .map(e => [e.dataset.field, e.textContent]));
  }
  if (w.cards === null && document.querySelector('#rendered_cells .drmath-cards .drmath-kpi')) w.cards = now;
  if (w.cards === null || document.getElementById('drmath-preview')) requestAnimationFrame(poll);
})();
new MutationObserver(records => records.forEach(
  r => window.__preview.steps.push(r.target.getAttribute(r.attributeName))))
  .observe(document, {subtree: true, attributes: true, attributeFilter: ['aria-valuenow']});"""


@pytest.mark.browser
def test_the_preview_shows_until_the_workbook_has_drawn_itself(voila_server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1500})
    page = context.new_page()
    log = watch(page)
    page.add_init_script(WATCH_JS)
    try:
        page.goto(voila_server["url"], wait_until="commit", timeout=120_000)
        page.wait_for_function(READY_JS, timeout=120_000, polling=100)
        page.wait_for_selector("#drmath-preview", state="detached", timeout=10_000)
        watched = page.evaluate("window.__preview")
        assert watched["seen"] is not None and watched["cards"] is not None
        assert watched["seen"] < watched["cards"], watched  # on screen before the widgets drew
        assert watched["texts"] == opening()
        steps = [int(s) for s in watched["steps"]]
        assert steps and steps == sorted(steps) and steps[-1] > steps[0], steps  # the bar moved, forward only
        assert page.locator(".drmath-cards").first.is_visible()
        assert not page.evaluate("document.body.classList.contains('drmath-previewing')")
        assert problems(log) == []
    finally:
        page.close(run_before_unload=True)
        context.close()
