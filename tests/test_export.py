"""Every notebook's HTML export, as README.md gives it (``drmath export``), shows its math and figures offline.

``drmath export NOTEBOOK.ipynb`` executes the notebook as ``jupyter nbconvert --execute`` does (nbclient) and writes
it with :func:`drmath.offline.export_html`. The export runs here in those two steps: the execution is
:func:`conftest.executed_notebook` (the one ``tests/test_notebook_markdown.py`` reads too), so the figures the
notebook made can be counted from it; then ``export_html`` writes the page. The notebooks export in parallel, two
at a time.

Each page is then opened in headless Chromium from disk with every request that leaves the file refused, and
must need none: its formulas are MathML the browser typesets (each ``<math>`` laid out, and no TeX left in the
text a reader sees), each figure draws (a plotly graph with its SVG), plotly.js is in the file once, and the file
is at most :data:`MAX_BYTES`.
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

from drmath.offline import PLOTLY_MIMETYPE, export_html

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MAX_BYTES = 5_000_000
"""The most an export may weigh (issue 35: "≤ 5 MB"; each was 5–15 MB, with plotly.js once per figure)."""
PLOTLY_BANNER = re.compile(r"/\*\*?\s*\*?\s*plotly\.js (?:\(\w+ - minified\) )?v\d")
"""The comment plotly.js opens with, full (``plotly.js v4.1.1``) or a partial bundle (``plotly.js (basic -
minified) v4.1.1``): one per copy inlined."""
RAW_TEX = re.compile(r"\$\$|\\[A-Za-z]{2,}|\\[,;:!{}]|\$[^$\n]*[\\^_{}][^$\n]*\$")
r"""TeX a reader would see unrendered: display delimiters, a control word (``\frac``, ``\tau``, ``\left``), a
spacing or brace command, or inline ``$…$`` holding TeX's own characters (money, ``$84.95M … $1.2M``, has none)."""
DRAWN_JS = ("() => [...document.querySelectorAll('.plotly-graph-div')]"
            ".filter(d => d._fullLayout && d.querySelector('.main-svg')).length")
"""How many plotly figures the page has drawn: laid out and an SVG made (a diagram may have shapes and no
trace)."""
PAGE_JS = """() => {
  const maths = [...document.querySelectorAll('math')];
  const body = document.body.cloneNode(true);
  body.querySelectorAll('.jp-InputArea-editor').forEach(e => e.remove());  // the code cells' source
  document.body.append(body);  // innerText needs the clone laid out; it is read and removed at once
  body.style.cssText = 'position:absolute; left:-99999px; top:0; width:1200px';
  const text = body.innerText;
  body.remove();
  return {text, math: maths.length,
          typeset: maths.filter(m => m instanceof MathMLElement && m.getBoundingClientRect().width > 0
                                     && m.getBoundingClientRect().height > 0).length};
}"""
"""What a reader sees of the page: its text outside the code cells' source (which may hold TeX in strings), the
number of formulas, and how many of them the browser typeset (a MathML element with a laid-out box)."""


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
    """``notebook`` executed as ``drmath export`` (and ``jupyter nbconvert --execute``) does, then written with
    :func:`drmath.offline.export_html`; the executed notebook and the HTML's path."""
    nb = executed_notebook(notebook, tmp_path_factory)
    path = out / notebook.with_suffix(".html").name
    path.write_text(export_html(nb, name=notebook.stem), encoding="utf-8")
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
    (an ``ipywidgets.Output``'s outputs live in the widget state nbclient saves) alike."""
    outputs = [output for cell in nb["cells"] for output in cell.get("outputs", [])]
    state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    outputs += [output for model in state.values() for output in model.get("state", {}).get("outputs", [])]
    return sum(PLOTLY_MIMETYPE in output.get("data", {}) for output in outputs)


def formulas_written(nb):
    """Whether the notebook's Markdown (its cells and its Markdown outputs) writes any formula (``$``)."""
    texts = [cell["source"] for cell in nb["cells"] if cell["cell_type"] == "markdown"]
    texts += [output["data"]["text/markdown"] for cell in nb["cells"] for output in cell.get("outputs", [])
              if "text/markdown" in output.get("data", {})]
    return any(re.search(r"(?<![\\&#])\$(?![\d.,]+[kMBT]?\b)", text) for text in texts)


@pytest.mark.parametrize("notebook", [nb.name for nb in NOTEBOOKS])
def test_the_export_holds_every_figure_plotly_once_and_fetches_nothing(exported, notebook):
    nb, html_path = exported[notebook]
    made = figures_made(nb)
    html = html_path.read_text(encoding="utf-8")
    assert made >= 1
    assert len(re.findall(r'class="plotly-graph-div"', html)) == made
    assert len(PLOTLY_BANNER.findall(html)) == 1  # in the head, for every figure
    assert html_path.stat().st_size <= MAX_BYTES
    parser = _Fetches()
    parser.feed(html)
    assert [u for u in parser.urls if not u.startswith(("data:", "#"))] == []
    assert "application/vnd.jupyter.widget-state+json" not in html  # no widget manager will read it


@pytest.mark.browser
@pytest.mark.parametrize("notebook", [nb.name for nb in NOTEBOOKS])
def test_every_exported_formula_and_figure_shows_offline(exported, browser, notebook):
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
        seen = page.evaluate(PAGE_JS)
    finally:
        page.close()
    assert drawn == made
    assert refused == []
    assert RAW_TEX.findall(seen["text"]) == []
    assert seen["typeset"] == seen["math"]
    assert seen["math"] >= 1 or not formulas_written(nb)
