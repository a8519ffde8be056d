"""Every notebook page is served to its end: plain Voilà runs each notebook's cells and sends the whole page.

Voilà runs a page's cells with nbclient and streams the page as they run. A cell that drew into an
``ipywidgets.Output`` with ``with output: display(...)`` had nbclient capture the display and send the widget's
new outputs back to the kernel on the shell channel, while it waited on that same channel for the cell's reply.
On this project's 2-core machines that reply was then never seen (nbclient issue #312): the kernel was idle,
nbclient waited for ever, and the page stopped after its first figure's cell, its widgets never connected.
Notebook 01 stopped so in every one of a dozen first loads. :class:`drmath.offline.Redraw` now sets the
widget's outputs itself, so nbclient has nothing to capture and sends nothing.

Read as a reader's browser reads it: the page's bytes as they arrive, until its end; notebook 01 in a browser,
its figure in the widget that redraws it, redrawn when its slider moves; and the worked answer's loading box,
gone as its cells are shown.
"""

import http.client
import sys
import time
import urllib.parse
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import NOTEBOOKS, watch

DEADLINE = 120
"""Time a page may take to arrive whole [s]: ~3–15 s each on a quiet 2-core machine (06 simulates); a stopped
page sends only Voilà's heartbeat, every 10 s, for ever."""


def read_page(url, deadline):
    """The body of ``url`` as far as it arrived within ``deadline`` seconds, and whether it arrived whole."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    body, end = b"", time.monotonic() + deadline
    try:
        conn.request("GET", parts.path)
        response = conn.getresponse()
        assert response.status == 200
        while time.monotonic() < end:
            chunk = response.read1(65536)
            if not chunk:
                return body.decode(), True
            body += chunk
        return body.decode(), False
    finally:
        conn.close()


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_the_notebook_page_arrives_whole(notebook_server, notebook):
    body, whole = read_page(f"{notebook_server}voila/render/{notebook}", DEADLINE)
    cells = body.count("voila_process(")
    assert whole, f"{notebook}: the page stopped after {cells} cells; its last bytes: {body[-300:]!r}"
    assert body.rstrip().endswith("</html>")
    assert "Traceback" not in body


FIGURES_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(d =>
  (d.closest('.widget-output') ? 'in its widget: ' : 'outside any widget: ') +
  ((d.querySelector('.gtitle') || {}).textContent || '(no title yet)'))"""
"""Each figure of the page: whether it lies in an ``ipywidgets.Output`` (where Redraw draws), and its title."""


def test_the_notebook_figure_is_drawn_in_its_widget_and_redrawn_when_a_slider_moves(browser, notebook_server):
    context = browser.new_context(viewport={"width": 1200, "height": 1400})
    page = context.new_page()
    log = watch(page)

    def one_figure(title):
        """Wait until the page holds one figure, in its widget, with a title ``title`` accepts; that title."""
        page.wait_for_function(f"() => {{ const f = ({FIGURES_JS})(); return f.length === 1 && ({title})(f[0]); }}",
                               timeout=120_000, polling=200)
        return page.evaluate(FIGURES_JS)[0]

    try:
        page.goto(f"{notebook_server}voila/render/01_time_to_train.ipynb", wait_until="commit", timeout=120_000)
        # a figure drawn outside the widget (as a cell's output) would never be redrawn
        assert one_figure("t => t.startsWith('in its widget: ')") == \
            "in its widget: Time to train vs MFU: 90.0 days at 40.0%"
        page.locator(".widget-slider .noUi-handle").first.focus()  # GPUs: 8,000
        # one step: one redraw, so the title waited for below is the last (with four, a later redraw could land
        # after it was read, and the comparison at the end failed on a clean CI run: 74.4 days read, 70.8 drawn)
        page.keyboard.press("ArrowRight")
        moved = one_figure("t => t.startsWith('in its widget: ') && !t.includes('90.0 days')")
        assert moved.startswith("in its widget: Time to train vs MFU: "), moved  # fewer days on more GPUs
        page.wait_for_timeout(1000)  # an error thrown after the figure was drawn (as one was, by its renderer)
        assert [e for e in log["errors"] if e.startswith("page error:")] == []
        assert page.evaluate(FIGURES_JS) == [moved]
    finally:
        context.close()


# installed before any page script: when the cells are shown (Voilà shows #rendered_cells) and when the drlab
# template's loading box (#drmath-preview, over the page) goes, each on the first animation frame that sees it
SHOWN_JS = """window.__shown = {cells: null, box: null, status: null};
(function poll() {
  const s = window.__shown, cells = document.getElementById('rendered_cells');
  const box = document.getElementById('drmath-preview');
  if (box && !s.status) s.status = box.querySelector('[role=status]').innerText.replace(/\\s+/g, ' ').trim();
  if (s.cells === null && cells && cells.style.display !== 'none') s.cells = performance.now();
  if (s.cells !== null && !box) { s.box = performance.now(); return; }
  requestAnimationFrame(poll);
})();"""


def test_a_notebook_page_shows_its_cells_as_soon_as_they_are_run(browser, notebook_server):
    """The drlab template's loading box waited for the dashboard's cards, which a notebook has none of: the
    worked answer stayed hidden under "The live workbook is starting… static preview" for 20 s after its
    cells were shown (cells at 4.7 s, box gone at 24.7 s in a measurement)."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.add_init_script(SHOWN_JS)
    try:
        page.goto(f"{notebook_server}voila/render/00_worked_answer.ipynb", wait_until="commit", timeout=120_000)
        page.wait_for_function("() => window.__shown.cells !== null", timeout=120_000, polling=200)
        page.wait_for_function("() => window.__shown.box !== null", timeout=15_000, polling=200)
        shown = page.evaluate("window.__shown")
        assert shown["box"] - shown["cells"] < 500, shown  # the box goes as the cells are shown
        assert shown["status"].startswith("The notebook is running"), shown["status"]
        assert "preview" not in shown["status"], shown["status"]  # a notebook has no static preview
    finally:
        context.close()
