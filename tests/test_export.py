"""Every notebook exports to HTML with its figures, and they draw offline.

``jupyter nbconvert --to html --execute`` is what a reader runs to keep a notebook; the HTML it writes must show
every figure the notebook makes with no network. The export runs here as that command does, in two steps, so the
figures the notebook makes can be counted from the executed notebook: nbclient executes it (what ``--execute``
runs; :func:`conftest.executed_notebook`, the execution ``tests/test_notebook_markdown.py`` reads too), then
nbconvert's ``HTMLExporter`` writes it (what ``--to html`` runs). The notebooks export in parallel, two at a time.

Each HTML is then opened in headless Chromium from disk with every request that leaves the file refused: each
figure must draw (a plotly graph with its SVG). What the HTML asks of other hosts is listed and must be nbconvert's
own page template only (:data:`TEMPLATE_FETCHES`, MathJax and require.js): nothing of the figures.
"""

import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import CHROMIUM, executed_notebook

from drmath.offline import PLOTLY_MIMETYPE

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
TEMPLATE_FETCHES = ("cdnjs.cloudflare.com/ajax/libs/mathjax/", "cdnjs.cloudflare.com/ajax/libs/require.js/",
                   "unpkg.com/@jupyter-widgets/html-manager@")
"""What nbconvert's own ``lab`` template loads from a CDN whatever the notebook holds (its MathJax for the
formulas, its require.js, and the widget manager that would bring the sliders back): outside the notebooks'
reach, and not needed by any figure."""
DRAWN_JS = ("() => [...document.querySelectorAll('.plotly-graph-div')]"
            ".filter(d => d._fullLayout && d.querySelector('.main-svg')).length")
"""How many plotly figures the page has drawn: laid out and an SVG made (a diagram may have shapes and no
trace)."""


class _Fetches(HTMLParser):
    """The URLs an HTML page fetches by itself: ``src`` of scripts, images, frames; ``href`` of stylesheets."""

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "img", "iframe", "audio", "video", "source", "embed") and attrs.get("src"):
            self.urls.append(attrs["src"])
        if tag == "link" and attrs.get("href"):
            self.urls.append(attrs["href"])


def _export(notebook, out, tmp_path_factory):
    """``notebook`` executed as ``jupyter nbconvert --execute`` does, then its HTML written with nbconvert's
    ``HTMLExporter`` (``--to html``); the executed notebook and the HTML's path."""
    from nbconvert import HTMLExporter

    nb = executed_notebook(notebook, tmp_path_factory)
    html, _ = HTMLExporter().from_notebook_node(nb, resources={"metadata": {"name": notebook.stem}})
    path = out / notebook.with_suffix(".html").name
    path.write_text(html)
    return nb, path


@pytest.fixture(scope="module")
def exported(request, tmp_path_factory):
    """``{notebook name: (executed notebook, HTML path)}`` for the notebooks this run tests, two at a time."""
    wanted = {item.callspec.params.get("notebook") for item in request.session.items
              if getattr(item, "module", None) is request.module and hasattr(item, "callspec")}  # not doctests
    notebooks = [nb for nb in NOTEBOOKS if nb.name in wanted]
    out = tmp_path_factory.mktemp("export")
    with ThreadPoolExecutor(max_workers=2) as pool:
        exports = pool.map(lambda nb: _export(nb, out, tmp_path_factory), notebooks)
        return dict(zip([nb.name for nb in notebooks], exports))


def figures_made(nb):
    """The figures a notebook made: the outputs that carry plotly's figure JSON, in its cells and in its widgets
    (an ``ipywidgets.Output``'s outputs live in the widget state nbclient saves, which an offline page cannot
    draw) alike."""
    outputs = [output for cell in nb["cells"] for output in cell.get("outputs", [])]
    state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    outputs += [output for model in state.values() for output in model.get("state", {}).get("outputs", [])]
    return sum(PLOTLY_MIMETYPE in output.get("data", {}) for output in outputs)


@pytest.mark.parametrize("notebook", [nb.name for nb in NOTEBOOKS])
def test_the_export_holds_every_figure_and_fetches_none(exported, notebook):
    nb, html_path = exported[notebook]
    made = figures_made(nb)
    html = html_path.read_text()
    assert len(re.findall(r'class="plotly-graph-div"', html)) == made
    parser = _Fetches()
    parser.feed(html)
    remote = [u for u in parser.urls if re.match(r"(?:https?:)?//", u)]
    assert [u for u in remote if not any(t in u for t in TEMPLATE_FETCHES)] == []


@pytest.mark.browser
@pytest.mark.parametrize("notebook", [nb.name for nb in NOTEBOOKS])
def test_every_exported_figure_draws_offline(exported, browser, notebook):
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is absent")
    nb, html_path = exported[notebook]
    made = figures_made(nb)
    page = browser.new_page(viewport={"width": 1200, "height": 1400})
    refused = []
    page.route(lambda url: not url.startswith("file:"), lambda route: (refused.append(route.request.url),
                                                                       route.abort()))
    try:
        page.goto(html_path.as_uri(), wait_until="load", timeout=120_000)
        try:
            page.wait_for_function(f"(n) => ({DRAWN_JS})() >= n", arg=made, timeout=120_000)
        finally:
            drawn = page.evaluate(DRAWN_JS)
    finally:
        page.close()
    assert drawn == made
    assert all(any(t in u for t in TEMPLATE_FETCHES) for u in refused), refused
