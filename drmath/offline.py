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

    >>> RENDERER, PLOTLY_MIMETYPE
    ('drmath', 'application/vnd.plotly.v1+json')
"""

import os

__all__ = ["use", "Redraw", "RENDERER", "PLOTLY_MIMETYPE"]

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
            self.shipped = False  # plotly.js inlined already, with an earlier figure of this kernel

        def to_mimebundle(self, fig_dict):
            from plotly.io import to_html
            from plotly.offline import get_plotlyjs

            bundle = self.json.to_mimebundle(fig_dict)
            if in_voila():
                return bundle
            html = to_html(fig_dict, config=PLOTLY_CONFIG, include_plotlyjs=False, include_mathjax=False,
                           full_html=False, default_width="100%", default_height=525, validate=False)
            if not self.shipped:
                # plotly.js is UMD: with an AMD loader on the page (nbconvert's require.js) it would register
                # with it and leave window.Plotly unset, so the loader is hidden while it runs
                html = ("<script>window.__drmathDefine = window.define; window.define = undefined;</script>"
                        f"<script>{get_plotlyjs()}</script>"
                        "<script>window.define = window.__drmathDefine;</script>" + html)
                self.shipped = True
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
