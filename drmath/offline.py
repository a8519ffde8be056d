"""The notebooks' plotly renderer: figures that Voilà and JupyterLab draw live and an HTML export shows offline.

plotly's ``plotly_mimetype`` renderer writes only plotly's own MIME type, which JupyterLab and Voilà draw through
the plotly extension but ``jupyter nbconvert --to html`` drops: an exported notebook loses every figure. plotly's
HTML renderers (``notebook``, ``notebook_connected``) write a ``<script>`` that loads MathJax from a CDN into every
figure, and ``notebook_connected`` plotly.js too. :func:`use` registers and selects ``"drmath"``, which writes
both:

- ``application/vnd.plotly.v1+json``, the figure as JSON, which Voilà and JupyterLab draw (they rank it above
  HTML, so they never run the HTML);
- ``text/html``, a ``<div>`` and the ``Plotly.newPlot`` call that draw it, with no MathJax and nothing fetched;
  plotly.js itself, inlined from the installed plotly package, comes once, with the first figure of the kernel.

Under Voilà (its kernels carry ``VOILA_KERNEL_ID``) the HTML is left out: the page draws the JSON, and the
4.8 MB of plotly.js would only weigh it down.

A figure that a notebook redraws as its controls move goes through :class:`Redraw`: under Voilà into an
``ipywidgets.Output`` (the page's only live channel), elsewhere into the cell's own output, updated in place by
display id, so that an export (which cannot run widgets offline) holds the figure as it was last drawn.

:func:`export_html` writes an executed notebook as one HTML file that needs no network (``drmath export``, what
README.md gives): nbconvert's ``lab`` page with its CDN scripts taken out (the template
``drmath/data/nbconvert/drmath-offline/``), the Markdown's TeX typeset as MathML at export time (the report's
:func:`drmath.report.latex_html`; Chromium, Firefox and Safari draw MathML Core themselves), each figure drawn from
its plotly JSON with plotly.js inlined once, in the page's head (the 1.2 MB basic bundle when every trace is one it
draws), and each widget replaced by a line saying what it was: a static page cannot run it.

    >>> RENDERER, PLOTLY_MIMETYPE
    ('drmath', 'application/vnd.plotly.v1+json')
"""

import copy
import os
import re

__all__ = ["use", "Redraw", "export_html", "execute", "RENDERER", "PLOTLY_MIMETYPE", "TEMPLATE"]

RENDERER = "drmath"
"""The name :func:`use` registers the renderer under, in ``plotly.io.renderers``."""

PLOTLY_MIMETYPE = "application/vnd.plotly.v1+json"
"""plotly's MIME type: the figure as JSON, drawn by the plotly extension of JupyterLab and Voilà."""


def _renderer_class():
    from plotly.io._base_renderers import MimetypeRenderer, PlotlyRenderer

    from .viz import PLOTLY_CONFIG

    class OfflineRenderer(MimetypeRenderer):
        """plotly's JSON for live pages and, outside Voilà, an HTML figure that needs no network."""

        def __init__(self):
            self.json = PlotlyRenderer(config=PLOTLY_CONFIG)  # the house config: no "Share chart…"
            # plotly.js inlined already, with an earlier figure of this kernel; a list, because plotly renders
            # with a shallow copy of the renderer (plotly.io._renderers), and a flag set on the copy was lost:
            # every figure inlined it again (three copies, 14.9 MB, in notebook 00)
            self.shipped = [False]

        def to_mimebundle(self, fig_dict):
            from plotly.io import to_html
            from plotly.offline import get_plotlyjs

            bundle = self.json.to_mimebundle(fig_dict)
            if in_voila():
                return bundle
            html = to_html(fig_dict, config=PLOTLY_CONFIG, include_plotlyjs=False, include_mathjax=False,
                           full_html=False, default_width="100%", default_height=525, validate=False)
            if not self.shipped[0]:
                # plotly.js is UMD: with an AMD loader on the page (nbconvert's require.js) it would register
                # with it and leave window.Plotly unset, so the loader is hidden while it runs
                html = ("<script>window.__drmathDefine = window.define; window.define = undefined;</script>"
                        f"<script>{get_plotlyjs()}</script>"
                        "<script>window.define = window.__drmathDefine;</script>" + html)
                self.shipped[0] = True
            return {**bundle, "text/html": html}

    return OfflineRenderer


def use():
    """Register the ``"drmath"`` renderer and make it plotly's default in this kernel.

    Returns
    -------
    None
        ``plotly.io.renderers.default`` is ``"drmath"`` afterwards.
    """
    import plotly.io as pio

    if RENDERER not in pio.renderers:
        pio.renderers[RENDERER] = _renderer_class()()
    pio.renderers.default = RENDERER


def in_voila():
    """Whether this kernel runs a page for Voilà (which sets ``VOILA_KERNEL_ID`` in it before the first cell)."""
    return bool(os.environ.get("VOILA_KERNEL_ID"))


class Redraw:
    """Where a notebook draws what its controls change: a figure and the text beside it, redrawn in place.

    Under Voilà each :meth:`show` replaces the content of :attr:`output`, an ``ipywidgets.Output`` to place in
    the page, by setting its ``outputs``: one widget update, and nothing for Voilà's executor to capture.
    (``with output: display(...)`` had nbclient, which runs the page's cells for Voilà, capture the display and
    send the outputs back to the kernel on the channel where it waited for the cell's reply; it then missed the
    reply on 2-core machines, and the page stopped there: nbclient issue #312, ``tests/test_notebook_pages.py``.)

    Elsewhere (JupyterLab, nbclient, ``jupyter nbconvert --execute``) the objects are displayed as the cell's own
    outputs at the first :meth:`show` and updated by display id after it, so that the saved notebook, and its HTML
    export, holds the figure; :attr:`output` then stays empty.
    """

    def __init__(self):
        import ipywidgets

        self.output = ipywidgets.Output()
        self.handles = []

    def show(self, *objects):
        """Show ``objects`` (figures, Markdown, explanations) in place of what was shown before.

        Parameters
        ----------
        *objects : object
            Anything IPython can display; the same number at every call.
        """
        from IPython.display import display
        from IPython.utils.capture import capture_output

        if in_voila():
            with capture_output(stdout=False, stderr=False) as shown:  # what display() would send, kept here
                display(*objects)
            self.output.outputs = tuple({"output_type": "display_data", "data": out.data, "metadata": out.metadata}
                                        for out in shown.outputs)
        elif not self.handles:
            self.handles = [display(obj, display_id=True) for obj in objects]
        else:
            for handle, obj in zip(self.handles, objects):
                handle.update(obj)


# --------------------------------------------------------------------------- the HTML export

TEMPLATE = "drmath-offline"
"""The nbconvert template :func:`export_html` renders with, in ``drmath/data/nbconvert/``: the ``lab`` page
without its CDN scripts (require.js, MathJax, the widget manager, mermaid), plotly.js once in its head."""

_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_INLINE_PLOTLY_JS = re.compile(
    r"<script>window\.__drmathDefine = [^<]*</script><script>.*?</script><script>[^<]*__drmathDefine;</script>"
    r"|<script[^>]*>\s*/\*\*?\s*\*?\s*plotly\.js v.*?</script>", re.S)
"""plotly.js inlined into a figure's HTML: by this renderer (between its hiding of an AMD loader and its restoring
of it) or by plotly's own ``include_plotlyjs=True`` (its banner comment first)."""
_NOT_A_CONTROL = ("OutputModel", "HTMLModel", "HTMLMathModel", "LabelModel", "LayoutModel")


def execute(path, timeout=600):
    """A notebook executed as ``jupyter nbconvert --execute`` runs it: nbclient, in the notebook's folder.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.ipynb`` file.
    timeout : float, default 600
        The longest a cell may run [s].

    Returns
    -------
    nb : nbformat.NotebookNode
        The notebook with its outputs (and its widgets' state).
    """
    from pathlib import Path

    import nbclient
    import nbformat

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    kernel = nb.metadata.get("kernelspec", {}).get("name") or "python3"
    nbclient.NotebookClient(nb, timeout=timeout, kernel_name=kernel,
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def _mathml(tex, display):
    """A formula as MathML (:func:`drmath.report.latex_html`); TeX it cannot read stays visible as code, with a
    warning, rather than stopping the export."""
    import html
    import warnings

    from .report import latex_html

    try:
        return latex_html(tex, display=display)
    except Exception as exc:  # latex2mathml raises its own errors, and others, on TeX it does not know
        warnings.warn(f"drmath export: a formula stays TeX ({type(exc).__name__}: {exc}): {tex[:80]!r}",
                      stacklevel=2)
        return f'<code class="drmath-tex">{html.escape(tex)}</code>'


def _widget_outputs(output, state):
    """What a static page shows in place of a widget: a note naming its controls (a static page cannot run them),
    then what its ``Output`` widgets hold and its ``HTML`` widgets say, from the widget state nbclient saved."""
    import html

    controls, shown, seen = [], [], set()

    def walk(model_id):
        model_id = model_id.removeprefix("IPY_MODEL_")
        if model_id in seen or model_id not in state:
            return
        seen.add(model_id)
        name, values = state[model_id].get("model_name", ""), state[model_id].get("state", {})
        if name == "OutputModel":
            shown.extend(values.get("outputs", []))
        elif name in ("HTMLModel", "HTMLMathModel", "LabelModel") and values.get("value"):
            kind = "text/plain" if name == "LabelModel" else "text/html"
            shown.append({"output_type": "display_data", "data": {kind: values["value"]}, "metadata": {}})
        elif name not in _NOT_A_CONTROL and not name.endswith("StyleModel") and "children" not in values:
            controls.append(values.get("description") or name.removesuffix("Model").lower())
        for child in values.get("children", []):
            walk(child)

    model_id = str(output["data"][_WIDGET_VIEW].get("model_id", "")).removeprefix("IPY_MODEL_")
    walk(model_id)
    if controls or model_id not in state:  # an empty Output shows nothing, as in JupyterLab
        what = f"controls ({html.escape(', '.join(dict.fromkeys(controls)))})" if controls else "a widget"
        note = (f'<p class="drmath-widget-note">Here the notebook has {what}, which work in JupyterLab or Voilà; '
                "a static page cannot run them, so its figures and numbers are those the notebook drew as it ran."
                "</p>")
        shown.insert(0, {"output_type": "display_data", "data": {"text/html": note}, "metadata": {}})
    return shown


def _figure_html(output):
    """Rewrite a figure's output for the page: its HTML drawn again from its plotly JSON (so a notebook saved by
    JupyterLab, which keeps only the JSON, is drawn too), with no plotly.js of its own. Its trace types (``{None}``
    when its HTML has no JSON to read them from; a diagram may have none), or ``None`` when it is no figure."""
    from plotly.io import to_html

    from .viz import PLOTLY_CONFIG

    data = output.get("data", {})
    if PLOTLY_MIMETYPE in data:
        fig = data[PLOTLY_MIMETYPE]
        data["text/html"] = to_html(fig, config={**PLOTLY_CONFIG, **fig.get("config", {})}, include_plotlyjs=False,
                                    include_mathjax=False, full_html=False, default_width="100%",
                                    default_height=525, validate=False)
        return {trace.get("type", "scatter") for trace in fig.get("data", [])}
    if "plotly-graph-div" in data.get("text/html", ""):
        data["text/html"] = _INLINE_PLOTLY_JS.sub("", data["text/html"])
        return {None}
    return None


def _latex_html(output):
    """A ``text/latex`` output (IPython's ``Math`` and ``Latex``) with no HTML or Markdown beside it, given its
    formula as MathML in ``text/html``: nbconvert would print its TeX."""
    data = output.get("data", {})
    if "text/latex" in data and not {"text/html", "text/markdown"} & set(data):
        tex = str(data["text/latex"]).strip()
        match = re.fullmatch(r"\$\$(.*)\$\$|\$(.*)\$|\\\[(.*)\\\]|\\\((.*)\\\)", tex, re.S)
        tex = next((group for group in match.groups() if group is not None), tex) if match else tex
        data["text/html"] = _mathml(tex, display=True)


def _offline_notebook(nb):
    """A copy of ``nb`` ready for :data:`TEMPLATE`: widgets replaced (:func:`_widget_outputs`), figures redrawn
    (:func:`_figure_html`), LaTeX outputs typeset (:func:`_latex_html`); and the plotly.js the page needs
    (``""`` when it has no figure)."""
    from plotly.offline import get_plotlyjs

    from .viz import BASIC_TRACES, PLOTLY_BASIC_JS

    nb = copy.deepcopy(nb)
    state = nb.metadata.pop("widgets", {}).get(_WIDGET_STATE, {}).get("state", {})
    figures = []  # each figure's trace types
    for cell in nb.cells:
        outputs = []
        for output in cell.get("outputs", []):
            outputs += _widget_outputs(output, state) if _WIDGET_VIEW in output.get("data", {}) else [output]
        figures += [traces for traces in map(_figure_html, outputs) if traces is not None]
        for output in outputs:
            _latex_html(output)
        if "outputs" in cell:
            cell.outputs = outputs
    if not figures:
        return nb, ""
    traces = set().union(*figures)
    return nb, PLOTLY_BASIC_JS.read_text(encoding="utf-8") if traces <= BASIC_TRACES else get_plotlyjs()


def _exporter_class():
    from jinja2 import pass_context
    from nbconvert import HTMLExporter
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    class MathMLRenderer(IPythonRenderer):
        """nbconvert's Markdown renderer, its math typeset as MathML instead of left as TeX for MathJax."""

        def block_math(self, body):
            return _mathml(body, display=True)

        def inline_math(self, body):
            return _mathml(body, display=False)

        def latex_environment(self, name, body):
            return _mathml(f"\\begin{{{name}}}{body}\\end{{{name}}}", display=True)

    class OfflineHTMLExporter(HTMLExporter):
        """``--to html`` with :data:`TEMPLATE` and MathML math."""

        @pass_context
        def markdown2html(self, context, source):
            cell = context.get("cell", {})
            renderer = MathMLRenderer(escape=False, attachments=cell.get("attachments", {}),
                                      embed_images=self.embed_images,
                                      path=context.get("resources", {}).get("metadata", {}).get("path", ""),
                                      anchor_link_text=self.anchor_link_text,
                                      exclude_anchor_links=self.exclude_anchor_links, **self.lexer_options)
            return MarkdownWithMath(renderer=renderer).render(source)

    return OfflineHTMLExporter


def export_html(nb, name="notebook"):
    """An executed notebook as one HTML page that shows its math and figures with no network.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The notebook with its outputs (:func:`execute`); it is not changed.
    name : str, default "notebook"
        The page's title when the notebook's metadata gives none (its file's stem).

    Returns
    -------
    html : str
        The page: nbconvert's ``lab`` look through :data:`TEMPLATE`, every formula MathML, every figure a plotly
        graph drawn by the one plotly.js in its head, no ``src`` or ``href`` that leaves the file.
    """
    from ._resources import data_file

    nb, plotly_js = _offline_notebook(nb)
    exporter = _exporter_class()(template_name=TEMPLATE, extra_template_basedirs=[str(data_file("nbconvert"))])
    html, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": name}, "drmath_plotly_js": plotly_js})
    return html
