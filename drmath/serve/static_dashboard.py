"""The static dashboard (issue 24): the live dashboard's first screen, box for box, drawn without a kernel.

A page sent static first opens on it (:mod:`drmath.serve.static`), so that the live page, when it takes over,
lands on the same boxes: nothing jumps. It is the live page's own widget tree, the one a kernel displays
(:func:`drmath.dashboard.build_app`, then :meth:`~drmath.dashboard.Dashboard.restore` of the link's query
when it has one, as the kernel does with its request), written out as the HTML that ipywidgets draws for
each widget: the same elements, CSS classes and layout styles, and the layout rules of ipywidgets that size them
(``drmath/data/widgets/static_first.css``), so that the browser lays it out as it lays out the live page.
Its controls are drawn as they stand, disabled: their label and value, nothing to touch until the live page.
Its figures are the same specs the live figures draw (:attr:`~drmath.dashboard.Dashboard.figures`), in boxes of
the same classes and sizes: shown as SVG drawn once by the server from those specs
(:mod:`drmath.serve.figure_svg`), or drawn by plotly.js in the page where the server has none.

Every ``drmath-*`` class is written ``drmath-s-*`` (in the dashboard's style too): the static twin keeps its
layout but never answers a selector meant for the live page (a test's ``.drmath-figure``, a live script's).

    >>> from drmath.dashboard.page import FIGURES
    >>> html, figures = static_dashboard("")
    >>> html.count('class="lm-Widget drmath-s-figure drmath-s-figure-'), sorted(figures) == sorted(FIGURES)
    (5, True)
    >>> 'class="drmath-kpi ' in html, 'drmath-s-kpi drmath-s-kpi-ettr' in html
    (False, True)
"""

import html
import re
import threading

from .._resources import data_file
from ..viz import PLOTLY_CONFIG

__all__ = ["static_dashboard", "dashboard_block", "PLOT_CONFIG"]

PLOT_CONFIG = {**PLOTLY_CONFIG, "modeBarButtonsToRemove": [*PLOTLY_CONFIG["modeBarButtonsToRemove"], "autoScale2d"]}
"""plotly.js's config for the figures: the house one (:data:`drmath.viz.PLOTLY_CONFIG`: no "Share chart…"), as the
live PlotlyView sets it (``drmath/data/widgets/plotly_view.js``, which also removes autoscale)."""

_BUILDING = threading.Lock()  # one static dashboard built at a time: each closes the widgets it made
_CLASS = re.compile(r'class="([^"]*)"')
_SELECTOR = re.compile(r"\.drmath-(?=[a-zA-Z])")
_STYLE_BLOCK = re.compile(r"<style>(.*?)</style>", re.S)


def _renamed(classes):
    """``classes`` (a class attribute's text) with every ``drmath-`` class written ``drmath-s-``."""
    return " ".join("drmath-s-" + c[len("drmath-"):] if c.startswith("drmath-") else c for c in classes.split())


def _static_names(text):
    """``text`` (HTML) with the ``drmath-`` classes of its elements and of its style's selectors renamed."""
    text = _CLASS.sub(lambda m: f'class="{_renamed(m.group(1))}"', text)
    return _STYLE_BLOCK.sub(lambda m: "<style>" + _SELECTOR.sub(".drmath-s-", m.group(1)) + "</style>", text)


def _layout_style(widget):
    """The inline style ipywidgets writes for a widget's Layout (only the traits that are set)."""
    layout = getattr(widget, "layout", None)
    if layout is None:
        return ""
    rules = []
    for name in layout.keys:
        value = getattr(layout, name)
        if name.startswith("_") or value is None or not isinstance(value, str):
            continue
        prop = "gap" if name == "grid_gap" else name.replace("_", "-")
        rules.append(f"{prop}: {value}")
    return "; ".join(rules)


def _open(tag, classes, widget, extra_style=""):
    """``<tag class=... style=...>`` for ``widget``, its own classes after ``classes``."""
    names = " ".join([classes, *getattr(widget, "_dom_classes", ())])
    style = "; ".join(s for s in (_layout_style(widget), extra_style) if s)
    return f'<{tag} class="{html.escape(names)}"' + (f' style="{html.escape(style)}"' if style else "") + ">"


def _label(widget):
    """The description label of a control, as ipywidgets draws it (hidden when it has none)."""
    text = getattr(widget, "description", "")
    style = getattr(widget, "style", None)
    width = getattr(style, "description_width", "") if style is not None else ""
    css = "display: none" if not text else (f"width: {width}" if width else "")
    return '<label class="widget-label"' + (f' style="{css}"' if css else "") + f">{html.escape(text)}</label>"


def _button(widget, kind):
    classes = f"lm-Widget jupyter-widgets jupyter-button {kind}"
    if getattr(widget, "button_style", "") == "primary":
        classes += " mod-primary"
    if kind == "widget-toggle-button" and widget.value:
        classes += " mod-active"
    return _open("button", classes, widget)[:-1] + " disabled>" + html.escape(widget.description) + "</button>"


def _slider(widget):
    """A slider, its handle where the value is, disabled: the label, the track, the readout."""
    options = list(getattr(widget, "options", ()))
    index = getattr(widget, "index", 0) or 0
    shift = 1000.0 * (1 - index / (len(options) - 1)) if len(options) > 1 else 0.0
    readout = options[index][0] if options and isinstance(options[0], tuple) else str(widget.value)
    return (_open("div", "lm-Widget widget-hslider widget-slider widget-inline-hbox", widget) + _label(widget)
            + '<div class="slider-container"><div class="slider noUi-target noUi-ltr noUi-horizontal '
              'noUi-txt-dir-ltr" disabled><div class="noUi-base"><div class="noUi-connects"></div>'
              f'<div class="noUi-origin" style="transform: translate(-{shift:.3f}%, 0px); z-index: 4;">'
              '<div class="noUi-handle noUi-handle-lower"><div class="noUi-touch-area"></div></div></div></div>'
              f'</div></div><div class="widget-readout">{html.escape(str(readout))}</div></div>')


def _toggle_buttons(widget):
    style = getattr(widget.style, "button_width", "") or ""
    buttons = "".join(
        f'<button type="button" class="widget-toggle-button jupyter-button{" mod-active" if i == widget.index else ""}"'
        + (f' style="width: {html.escape(style)}"' if style else "") + f" disabled>{html.escape(label)}<i></i></button>"
        for i, label in enumerate(widget._options_labels))
    return _open("div", "lm-Widget widget-toggle-buttons", widget) + _label(widget) + f"<div>{buttons}</div></div>"


def _dropdown(widget):
    label = widget.label if widget.label is not None else ""
    return (_open("div", "lm-Widget jupyter-widgets widget-inline-hbox widget-dropdown", widget) + _label(widget)
            + f"<select disabled><option>{html.escape(label)}</option></select></div>")


def _figure(widget, figures):
    name = next(c[len("drmath-figure-"):] for c in widget._dom_classes if c.startswith("drmath-figure-"))
    figures[name] = widget.figure
    return (_open("div", "lm-Widget", widget)[:-1] + f' data-figure="{html.escape(name)}">'
            '<div class="drmath-plot"></div></div>')


def _widget_html(widget, figures):
    """The HTML ipywidgets draws for ``widget`` (and its children), its figures' specs added to ``figures``."""
    import ipywidgets as W

    from ..dashboard.widgets import PlotlyView, ShareLink

    if isinstance(widget, W.Box):
        kind = ("widget-gridbox" if isinstance(widget, W.GridBox) else
                "widget-box " + ("widget-vbox" if isinstance(widget, W.VBox) else "widget-hbox"))
        inner = "".join(_widget_html(child, figures) for child in widget.children)
        return _open("div", f"lm-Widget lm-Panel jupyter-widgets widget-container {kind}", widget) + inner + "</div>"
    if isinstance(widget, W.HTML):
        return (_open("div", "lm-Widget jupyter-widgets widget-inline-hbox widget-html", widget) + _label(widget)
                + f'<div class="widget-html-content">{widget.value}</div></div>')
    if isinstance(widget, W.ToggleButton):
        return _button(widget, "widget-toggle-button")
    if isinstance(widget, W.Button):
        return _button(widget, "widget-button")
    if isinstance(widget, W.ToggleButtons):
        return _toggle_buttons(widget)
    if isinstance(widget, W.Dropdown):
        return _dropdown(widget)
    if isinstance(widget, (W.SelectionSlider, W.FloatSlider, W.IntSlider)):
        return _slider(widget)
    if isinstance(widget, PlotlyView):
        if any(c.startswith("drmath-figure-") for c in widget._dom_classes):
            return _figure(widget, figures)
        return _open("div", "lm-Widget", widget) + "</div>"  # a figure drawn only later (the Pareto front)
    if isinstance(widget, ShareLink):
        return (_open("div", "lm-Widget", widget) + '<button class="drmath-copy-link jupyter-button" disabled>'
                'copy link</button><input readonly class="drmath-share-link" disabled>'
                '<span class="drmath-share-status"></span></div>')
    # an output area (empty until a derivation is shown); any other kind is drawn as an empty box, marked
    mark = "" if isinstance(widget, W.Output) else ' data-static="unknown"'
    return _open("div", "lm-Widget", widget)[:-1] + mark + "></div>"


def static_dashboard(query):
    """The live dashboard of a share link's query, as static HTML.

    Parameters
    ----------
    query : str
        The page's query string as sent (a share link's; "" for the default scenario): the live page's kernel
        restores the page from it, so the static twin does too (a bad link: the defaults and its notice).

    Returns
    -------
    html : str
        The dashboard's widget tree as ipywidgets draws it (its ``drmath-`` classes written ``drmath-s-``),
        every control disabled, each figure an empty ``<div class="drmath-plot">`` in a box
        ``data-figure=NAME``.
    figures : dict of str to dict
        Each figure's plotly spec (``{"data", "layout"}``), by name: the live figures' own.
    """
    from ipywidgets.widgets import widget as registry

    from ..dashboard import build_app

    with _BUILDING:
        before = set(registry._instances)
        try:
            app = build_app()
            if query:  # what the live page's kernel does with its request (the app notebook's second cell)
                app.restore(query)
            figures = {}
            markup = _widget_html(app.root, figures)
        finally:  # nothing of it stays in ipywidgets' registry of live widgets
            for key in set(registry._instances) - before:
                registry._instances[key].close()
    return _static_names(markup), figures


def dashboard_block(query, scope):
    """The static dashboard of ``query`` ready for a page: its style (scoped under ``scope``), the ipywidgets
    wrappers the live page puts around it (same boxes), and the script that shows its figures: the SVGs the
    server draws of them (:mod:`drmath.serve.figure_svg`, which keeps the figures to draw), plotly.js drawing any
    it lacks.

    Parameters
    ----------
    query : str
        The page's query string.
    scope : str
        The CSS selector of the element the block goes into.

    Returns
    -------
    html : str
    """
    from .. import viz
    from ..report import _json_script
    from . import figure_svg, settings
    from .static import scope_css

    markup, figures = static_dashboard(query)
    # under :where(), the rules weigh what they weigh on the live page: the dashboard's own style still wins
    css = scope_css(data_file("widgets", "static_first.css").read_text("utf-8"), f":where({scope} .drmath-s-page)")
    widgets = "\n".join(data_file("widgets", name).read_text("utf-8") for name in ("plotly_view.css", "share_link.css"))
    style = f"<style>{viz.css_variables()}\n{css}\n{_SELECTOR.sub('.drmath-s-', widgets)}</style>"
    # the live page's cell output: a 5 px gap, then a fixed-layout table the width of the page
    page = ('<div class="drmath-s-page" style="padding-top: 5px">'
            '<div style="display: table; table-layout: fixed; width: 100%; overflow: hidden">'
            '<div style="display: table-cell; width: 100%">' + markup + "</div></div></div>")
    # the static page's drawer (drmath/data/widgets/static_figures.js) asks the server for its figures as SVG,
    # each at the rung of the ladder nearest its box (drmath.serve.figure_svg); plotly.js draws those it lacks
    ladder = {"url": figure_svg.URL + figure_svg.remember(figures) + "/", "min": settings.SVG_MIN_WIDTH,
              "step": settings.SVG_STEP, "rungs": settings.SVG_RUNGS, "wait": settings.SVG_WAIT * 1000}
    draw = ("<script>window.drmathStaticFigures.dashboard(document.querySelectorAll('.drmath-s-page [data-figure]'),"
            + str(_json_script(figures)) + "," + str(_json_script(PLOT_CONFIG)) + "," + str(_json_script(ladder))
            + ");</script>")
    return style + page + draw
