"""The site (issue 35): the dashboard, the worked answer and every chapter, each a page of one server.

``python -m drmath.serve`` serves :data:`DASHBOARD` at its base URL and each numbered notebook
(:func:`drmath._resources.notebook_files`: ``notebooks/`` of a checkout, ``drmath/data/notebooks/`` of a wheel) at
``notebooks/<name>`` under it (:func:`pages`): ``/notebooks/00_worked_answer`` is the worked answer,
``/notebooks/01_time_to_train`` … ``/notebooks/08_your_fleet`` the chapters. Every other path under ``notebooks/``
is a 404 that runs nothing (:class:`~drmath.serve.pages.SiteNotebookHandler`'s routes are the pages' own names,
matched whole, and a catch-all answers the rest). Every page carries the site's navigation (:func:`nav_html`).

Each notebook page opens static first, as the dashboard does: its text and figures from a render of the notebook
(:func:`render_notebook`: the notebook executed once by nbclient in a kernel of its own, outside Voilà, so its
figures are cell outputs, then written as HTML here), kept in memory by the server
(:class:`~drmath.serve.pages.Explainers`: one render at a time, in a worker thread, at most
:data:`~drmath.serve.settings.MAX_RENDERS` waiting, each page rendered once and kept, at most
:data:`~drmath.serve.settings.NOTEBOOK_CACHE_BYTES`), and goes live in the same response when a seat is free. The
server renders every page once after it starts, the worked answer first, one at a time, at a lower CPU priority
(``--no-prerender``: on first request only); a page asked for before its turn is rendered at once.

    >>> [page.route for page in pages()][:2]
    ['', 'notebooks/00_worked_answer']
    >>> page_label("03_replication_and_rpo")
    'Replication and RPO'
"""

import functools
import html
import os
import re
import sys

from .. import _resources

__all__ = ["Page", "DASHBOARD", "pages", "page_label", "nav_html", "notebook_html", "render_notebook",
           "notebook_prelude", "site_resources", "NAV_MARKER", "NOTEBOOK_PREFIX"]

NOTEBOOK_PREFIX = "notebooks/"
"""Where the notebook pages are, under the server's base URL."""

NAV_MARKER = "<!--drmath-site-nav-->"
"""Where the ``drlab`` template's page takes the site's navigation (:func:`nav_html`), filled by the server."""

_UPPER = {"rpo": "RPO", "rto": "RTO", "mfu": "MFU"}


class Page:
    """One page of the site: ``route`` under the base URL ("" for the dashboard), its ``label`` and its notebook
    ``stem`` (None for the dashboard) and ``path``."""

    __slots__ = ("route", "label", "stem", "path")

    def __init__(self, route, label, stem=None, path=None):
        self.route, self.label, self.stem, self.path = route, label, stem, path

    def __repr__(self):
        return f"Page({self.route!r}, {self.label!r})"


DASHBOARD = Page("", "Dashboard")
"""The dashboard: the server's base URL."""


def page_label(stem):
    """A notebook's label in the navigation, from its name: ``"00_worked_answer"`` -> ``"Worked answer"``.

    >>> page_label("08_your_fleet")
    'Your fleet'
    """
    words = [_UPPER.get(w, w) for w in stem.split("_")[1:]] or [stem]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


@functools.cache
def pages():
    """The site's pages in the navigation's order: the dashboard, then every numbered notebook.

    Returns
    -------
    pages : tuple of Page
    """
    found = _resources.notebook_files()
    return (DASHBOARD, *(Page(NOTEBOOK_PREFIX + stem, page_label(stem), stem, path) for stem, path in found.items()))


def nav_html(base, current=""):
    """The site's navigation: a small menu fixed at the page's top right, every page a link under ``base``.

    Parameters
    ----------
    base : str
        The server's base URL (``"/"``).
    current : str
        The route of the page it is on (``aria-current``).

    Returns
    -------
    html : str

    Examples
    --------
    >>> nav = nav_html("/", "notebooks/00_worked_answer")
    >>> nav.count("<li>"), 'href="/notebooks/00_worked_answer" aria-current="page"' in nav  # the dashboard, 00 to 09
    (11, True)
    """
    e = functools.partial(html.escape, quote=True)
    items = "".join(
        f'<li><a href="{e(base + page.route)}"' + (' aria-current="page"' if page.route == current else "")
        + f">{(page.stem[:2] + ' · ') if page.stem else ''}{e(page.label)}</a></li>" for page in pages())
    return (f"<style>{_NAV_CSS}</style>"
            '<nav id="drmath-site-nav" aria-label="The workbook\'s pages"><details><summary>Pages</summary>'
            f"<ol>{items}</ol></details></nav>")


_NAV_CSS = """#drmath-site-nav { position: fixed; top: 4px; right: 6px; z-index: 10001;
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
#drmath-site-nav summary { cursor: pointer; list-style: none; padding: 2px 10px; border: 1px solid #c7d7fe;
  border-radius: 6px; background: #eef4ff; color: #1d4ed8; }
#drmath-site-nav summary::-webkit-details-marker { display: none; }
#drmath-site-nav ol { position: absolute; right: 0; margin: 4px 0 0; padding: 6px 0; list-style: none;
  background: white; border: 1px solid #c7d7fe; border-radius: 6px; box-shadow: 0 4px 12px rgba(0,0,0,0.12);
  min-width: 15em; max-height: 80vh; overflow: auto; }
#drmath-site-nav li a { display: block; padding: 4px 12px; color: #1f2933; text-decoration: none; white-space: nowrap; }
#drmath-site-nav li a:hover, #drmath-site-nav li a:focus { background: #eef4ff; }
#drmath-site-nav li a[aria-current="page"] { font-weight: 600; color: #1d4ed8; }
@media print { #drmath-site-nav { display: none; } }"""


# --------------------------------------------------------------------------- the static render of a notebook

_MATH = re.compile(r"\$\$(.+?)\$\$|(?<![\\$\w])\$(?=\S)([^$\n]+?)(?<=\S)\$(?![\w$])", re.S)


@functools.cache
def _markdown():
    """Markdown as the notebooks write it: tables, math as MathML (:func:`drmath.report.latex_html`), their own
    HTML (the section anchors ``<a id=…>``) kept: the notebooks and their outputs are the project's own text."""
    import mistune

    from ..report import latex_html

    class Renderer(mistune.HTMLRenderer):
        def block_math(self, text):
            return f'<div class="math">{_math(text, True, latex_html)}</div>\n'

        def inline_math(self, text):
            return _math(text, False, latex_html)

    return mistune.create_markdown(escape=False, renderer=Renderer(escape=False), plugins=["table", "math",
                                                                                           "strikethrough"])


def _math(tex, display, typeset):
    """``tex`` as MathML, or as its escaped source where latex2mathml cannot read it."""
    try:
        return typeset(tex, display=display)
    except Exception:  # noqa: BLE001 - a formula it cannot typeset stays readable as TeX
        return f'<code class="tex">{html.escape(tex)}</code>'


def _text(value):
    return "".join(value) if isinstance(value, list) else str(value)


def _output_html(output, figures):
    """One cell output as static HTML; a plotly figure's spec goes to ``figures`` (its element id -> spec)."""
    from ..offline import PLOTLY_MIMETYPE

    kind = output.get("output_type")
    if kind == "stream":
        if output.get("name") != "stdout":
            return ""
        return f'<pre class="drmath-static-stream">{html.escape(_text(output.get("text", "")))}</pre>'
    if kind not in ("display_data", "execute_result"):
        return ""  # errors are not shown (Voilà shows none either)
    data = output.get("data", {})
    if PLOTLY_MIMETYPE in data:
        name = f"drmath-static-nbfig-{len(figures)}"
        figures[name] = data[PLOTLY_MIMETYPE]
        height = (figures[name].get("layout") or {}).get("height") or 450
        return f'<div class="drmath-static-nbfigure" id="{name}" style="min-height: {int(height)}px"></div>'
    if "application/vnd.jupyter.widget-view+json" in data:
        return ('<p class="drmath-static-controls">Its controls come with the live page, in a few seconds; '
                "what follows is drawn at their first values.</p>")
    if "text/html" in data:
        return f'<div class="drmath-static-html">{_text(data["text/html"])}</div>'
    if "text/markdown" in data:
        return _markdown()(_text(data["text/markdown"]))
    if "text/latex" in data:
        return _markdown()(_text(data["text/latex"]))
    if "image/svg+xml" in data:
        return _text(data["image/svg+xml"])
    if "image/png" in data:
        return f'<img alt="" src="data:image/png;base64,{_text(data["image/png"]).strip()}">'
    if "text/plain" in data:
        return f'<pre class="drmath-static-stream">{html.escape(_text(data["text/plain"]))}</pre>'
    return ""


def notebook_html(nb):
    """An executed notebook as the static page's content: its markdown and its outputs (no code), its figures drawn
    by the static page's drawer (``data/widgets/static_figures.js``) with plotly.js.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The notebook, executed outside Voilà (its figures cell outputs, not widgets).

    Returns
    -------
    html : str
        ``<div class="drmath-static-notebook">`` with every cell, then the script that hands the figures' specs to
        the drawer.

    Examples
    --------
    >>> import nbformat.v4 as v4
    >>> nb = v4.new_notebook(cells=[v4.new_markdown_cell("# T\\n<a id='x'></a>\\n\\n$a_b$"),
    ...     v4.new_code_cell(outputs=[v4.new_output("display_data",
    ...                                                 {"application/vnd.plotly.v1+json": {"data": []}})])])
    >>> page = notebook_html(nb)
    >>> "<a id='x'></a>" in page, "<math" in page, 'id="drmath-static-nbfig-0"' in page
    (True, True, True)
    """
    from ..report import _json_script
    from ..viz import PLOTLY_CONFIG

    parts, figures = [], {}
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            parts.append(f'<div class="drmath-static-cell">{_markdown()(_text(cell.source))}</div>')
        elif cell.cell_type == "code":
            shown = "".join(_output_html(output, figures) for output in cell.get("outputs", []))
            if shown:
                parts.append(f'<div class="drmath-static-cell">{shown}</div>')
    draw = ("<script>(function(){var C=" + str(_json_script(PLOTLY_CONFIG)) + ";var F=" + str(_json_script(figures))
            + ";var S=window.drmathStaticFigures;Object.keys(F).forEach(function(d){"
            "var e=document.getElementById(d);if(S&&e)S.add(e,F[d],C);});})();</script>")
    return '<div class="drmath-static-notebook">' + "".join(parts) + "</div>" + draw


def _plain_kernel_specs():
    """A kernel spec manager whose ``python3`` is plain ipykernel in this Python: the static render's kernel is not
    a page kernel (no fork from the server's zygote, not counted against its seats)."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    class PlainSpecs(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return KernelSpec(argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                                    "--HistoryManager.enabled=False"],
                              display_name="Python 3 (drmath static render)", language="python",
                              resource_dir=os.path.dirname(__file__))

    return PlainSpecs()


def render_notebook(stem):
    """The static content of a notebook page (:func:`notebook_html`), the notebook executed once by nbclient.

    Runs in the server's worker thread (:class:`~drmath.serve.pages.Explainers`), one at a time; its kernel is
    plain ipykernel, started at a lower CPU priority, outside Voilà (no ``VOILA_KERNEL_ID``), so that the
    notebook's figures are cell outputs; it is shut down when the notebook has run (or failed).

    Parameters
    ----------
    stem : str
        The notebook's name without ``.ipynb`` (a key of :func:`drmath._resources.notebook_files`).

    Returns
    -------
    html : str
    """
    import nbclient
    import nbformat
    from jupyter_client.manager import AsyncKernelManager
    from jupyter_core.utils import run_sync

    from . import settings
    from .kernels import _lower_priority, can_restore_priority

    path = _resources.notebook_files()[stem]
    nb = nbformat.read(path, as_version=4)
    km = AsyncKernelManager(kernel_name="python3", kernel_spec_manager=_plain_kernel_specs())
    env = {k: v for k, v in os.environ.items() if not k.startswith("VOILA_")}
    client = nbclient.NotebookClient(nb, km=km, timeout=settings.NOTEBOOK_RENDER_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}}, allow_errors=True,
                                     store_widget_state=False)
    kwargs = {"preexec_fn": _lower_priority} if can_restore_priority() else {}
    try:
        client.execute(env=env, **kwargs)
    finally:  # nbclient shuts down only a kernel manager it made itself
        if km.has_kernel:
            run_sync(km.shutdown_kernel)(now=True)
    return notebook_html(nb)


def notebook_prelude(block, title, plotly, base, route):
    """The static first part of a notebook page: the navigation, then its content (:func:`render_notebook`) in the
    box where the live page will be, under the notice that it is static, live in a few seconds.

    Parameters
    ----------
    block : str
        The page's static content.
    title : str
        The page's title (text).
    plotly : str
        The URL of plotly.js ("" for none).
    base : str
        The server's base URL.
    route : str
        The page's route (the navigation marks it).

    Returns
    -------
    html : str
        A document's start, up to :data:`~drmath.serve.static.STATIC_END`; the Voilà page follows it.
    """
    from .static import _BOX, _BOX_CSS, _DRAWER, STATIC_END

    e = functools.partial(html.escape, quote=True)
    head = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{e(title)} · drmath</title><link rel="icon" href="data:;base64,=">'
            f"<style>{_BOX_CSS}\n{_NOTEBOOK_CSS.replace('BOX', _BOX)}</style>"
            f"<script>{_DRAWER}</script>"
            + (f'<link rel="preload" as="script" href="{e(plotly)}" data-drmath-static-plotly>' if plotly else "")
            + "</head><body>\n")
    box = (f'<div id="drmath-preview" class="drmath-static drmath-static-page" aria-busy="true" '
           f'data-base="{e(base)}">'
           '<div class="drmath-preview-status">'
           '<div class="drmath-preview-progress" role="progressbar" aria-label="The live page is starting" '
           'aria-valuemin="0" aria-valuemax="100" aria-valuenow="5"><span></span></div>'
           '<p role="status"><strong>This page is static</strong> until its notebook is live: '
           '<strong>live in a few seconds</strong>, with its controls '
           '(<span class="drmath-preview-step">waiting for its kernel</span>).</p>'
           '<div id="loading" hidden><span id="loading_text"></span></div></div>')
    return (head + nav_html(base, route) + box + block + "</div>\n" + _SCROLL_IN_PLACE + STATIC_END + "\n")


_NOTEBOOK_CSS = """BOX .drmath-static-notebook { max-width: 1180px; margin: 0 auto; padding: 8px 16px 140px; }
BOX .drmath-static-notebook table { border-collapse: collapse; margin: 8px 0; }
BOX .drmath-static-notebook th, BOX .drmath-static-notebook td { border: 1px solid #e4e7eb; padding: 3px 8px;
  text-align: left; vertical-align: top; }
BOX .drmath-static-notebook pre { white-space: pre-wrap; background: #f5f7fa; padding: 6px 10px; border-radius: 4px; }
BOX .drmath-static-notebook .math { overflow-x: auto; margin: 6px 0; }
BOX .drmath-static-controls { color: #52606d; font-style: italic; }
BOX .drmath-static-nbfigure { width: 100%; }"""

_SCROLL_IN_PLACE = f"<script>{_resources.template_dir().joinpath('in_page_links.js').read_text('utf-8')}</script>\n"
"""In-page links scroll in place: the ``drlab`` template's own script (the live page runs it too)."""


def site_resources():
    """What the ``drlab`` template needs to know of the site: the names of the notebook pages (a page whose
    notebook is one of them is not the dashboard, whatever ``drmath_dashboard`` says).

    >>> "00_worked_answer" in site_resources()["drmath_notebooks"]
    True
    """
    return {"drmath_notebooks": [page.stem for page in pages() if page.stem]}
