"""The notebooks' plotly renderer and the offline HTML export (:mod:`drmath.offline`), on small notebooks built here.

``tests/test_export.py`` exports the real notebooks and opens them in Chromium (slow); these check each rule of
the export in a second: the math becomes MathML, plotly.js comes once (the basic bundle when it can draw every
trace), widgets become a note, and nothing is fetched.
"""

import copy
import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from drmath import cli, offline, viz

FIGURE = {"data": [{"type": "scatter", "x": [1, 2], "y": [3, 4]}], "layout": {"title": {"text": "a line"}}}
BANNER = re.compile(r"/\*\*?\s*\*?\s*plotly\.js (?:\(\w+ - minified\) )?v\d")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture
def renderer(monkeypatch):
    monkeypatch.delenv("VOILA_KERNEL_ID", raising=False)
    return offline._renderer_class()()


def _figure_output(renderer, fig=FIGURE):
    # plotly renders each figure with a shallow copy of the registered renderer (plotly.io._renderers)
    return new_output("display_data", data=copy.copy(renderer).to_mimebundle(fig))


def _notebook(renderer, fig=FIGURE):
    slider = {"model_name": "FloatSliderModel", "state": {"description": "GPUs", "value": 8000}}
    box = {"model_name": "HBoxModel", "state": {"children": ["IPY_MODEL_s"]}}
    empty = {"model_name": "OutputModel", "state": {"outputs": []}}
    nb = new_notebook(cells=[
        new_markdown_cell(r"The rate is $r = S / \tau$:" "\n\n" r"$$T = \frac{k\,N\,D}{G\,P}$$"),
        new_code_cell("show()", outputs=[
            new_output("display_data", data={"text/markdown": r"**Rate**: $$\left(\frac{a}{b}\right)$$",
                                             "text/plain": "rate"}),
            _figure_output(renderer, fig), _figure_output(renderer, fig),
            new_output("display_data", data={"text/latex": r"$$\frac{1}{2}\,\mathrm{h}$$",  # IPython's Math
                                             "text/plain": "<IPython.core.display.Math object>"})]),
        new_code_cell("controls", outputs=[
            new_output("display_data", data={WIDGET_VIEW: {"model_id": "b", "version_major": 2}}),
            new_output("display_data", data={WIDGET_VIEW: {"model_id": "o", "version_major": 2}})]),
    ])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "version_major": 2, "version_minor": 0, "state": {"s": slider, "b": box, "o": empty}}}
    return nb


def test_the_renderer_inlines_plotlyjs_with_the_first_figure_only(renderer):
    # failed before: each copy set its own flag, so every figure carried the 4.8 MB (three in notebook 00)
    first, second = (_figure_output(renderer)["data"]["text/html"] for _ in range(2))
    assert len(BANNER.findall(first)) == 1 and BANNER.findall(second) == []


def test_the_export_typesets_every_formula_as_mathml(renderer):
    html = offline.export_html(_notebook(renderer), name="small")
    body = re.sub(r"<script.*?</script>|<style.*?</style>", "", html[html.index("<body"):], flags=re.S)
    assert body.count("<math") == 4
    assert re.findall(r"\$|\\(?:frac|tau|left|right|mathrm)", re.sub(r"<[^>]+>", "", body)) == []
    assert body.count("<mfrac>") == 3


def test_the_export_has_plotlyjs_once_the_basic_bundle_and_nothing_to_fetch(renderer):
    html = offline.export_html(_notebook(renderer), name="small")
    assert html.count('class="plotly-graph-div"') == 2
    assert len(BANNER.findall(html)) == 1 and viz.PLOTLY_BASIC_JS.read_text(encoding="utf-8") in html
    tags = re.sub(r"(<script[^>]*>).*?</script>", r"\1", html, flags=re.S)  # the tags, not the scripts' code
    assert re.findall(r"""(?:src|href)=["']?(?:https?:)?//""", tags) == []
    assert "require" not in tags and "MathJax" not in tags and "cdnjs" not in tags


def test_a_trace_the_basic_bundle_cannot_draw_brings_the_full_plotlyjs(renderer):
    fig = {"data": [{"type": "heatmap", "z": [[1, 2], [3, 4]]}], "layout": {}}
    html = offline.export_html(_notebook(renderer, fig), name="small")
    assert len(BANNER.findall(html)) == 1 and "plotly.js v" in html
    assert viz.PLOTLY_BASIC_JS.read_text(encoding="utf-8") not in html


def test_the_export_says_a_widget_cannot_run_and_keeps_no_widget_state(renderer):
    nb = _notebook(renderer)
    before = copy.deepcopy(nb)
    html = offline.export_html(nb, name="small")
    assert nb == before  # the caller's notebook is left as it was
    notes = re.findall(r'<p class="drmath-widget-note">(.*?)</p>', html)
    assert len(notes) == 1 and "controls (GPUs)" in notes[0] and "static page cannot run them" in notes[0]
    assert "widget-state+json" not in html and WIDGET_VIEW not in html


def test_an_output_widgets_figure_is_shown_and_tex_that_will_not_convert_stays_visible(renderer):
    nb = _notebook(renderer)
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    state["o"]["state"]["outputs"] = [_figure_output(renderer)]
    nb.cells[0].source = r"Broken: $\left( x$"
    with pytest.warns(UserWarning, match=r"a formula stays TeX .*\\\\left\( x"):
        html = offline.export_html(nb, name="small")
    assert html.count('class="plotly-graph-div"') == 3
    assert r'<code class="drmath-tex">\left( x</code>' in html


def test_drmath_export_writes_a_saved_notebook_and_refuses_what_is_not_one(renderer, tmp_path, capsys):
    source = tmp_path / "saved.ipynb"
    nbformat.write(_notebook(renderer), source)
    assert cli.main(["export", str(source), "--no-execute"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "saved.html")
    assert (tmp_path / "saved.html").read_text(encoding="utf-8").count("<math") == 4
    assert cli.main(["export", str(tmp_path / "none.ipynb")]) == 2
    assert capsys.readouterr().err.strip() == f"drmath: error: {tmp_path / 'none.ipynb'}: not a notebook file (.ipynb)"
