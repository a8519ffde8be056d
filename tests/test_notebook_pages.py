"""Notebook pages in plain Voilà: the figure in the widget that redraws it, and the loading box.

Notebook 01 in a browser: its figure is drawn in the ``ipywidgets.Output`` that :class:`drmath.offline.Redraw`
sets, and redrawn there when its slider moves; the worked answer's loading box goes as its cells are shown. That
every notebook's page arrives to its end (nbclient issue #312 stopped them half-way) is read by
``test_rendered_text``, which renders each of them.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import watch  # noqa: E402

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
