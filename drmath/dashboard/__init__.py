r"""The ipywidgets app: controls, KPI cards and live figures over one :func:`drmath.plan`.

:func:`build_app` returns a :class:`Dashboard`; display it (the Voilà notebook
``drmath/data/dashboard.ipynb`` is just that). The package's modules name their jobs:

- :mod:`~drmath.dashboard.page`: the page's story and which controls and figures it shows;
- :mod:`~drmath.dashboard.cards`: the KPI cards and the tier table as HTML, pure string
  builders over a :class:`~drmath.Plan` (:func:`~drmath.dashboard.cards.cards_html`);
- :mod:`~drmath.dashboard.widgets`: the anywidgets and the controls;
- :mod:`~drmath.dashboard.inert`: which controls do nothing for the chosen DR tier, probed from ``plan()``;
- :mod:`~drmath.dashboard.baseline`: the "compare with baseline" view (every card, baseline against now);
- :mod:`~drmath.dashboard.app`: the controller, :class:`Dashboard` and :func:`build_app`.

Importing this package, :mod:`~drmath.dashboard.page` or :mod:`~drmath.dashboard.cards` loads
neither ipywidgets nor anywidget: the web server reads the story, :data:`PLOTLY_STATIC` and the
cards from here to draw a static preview. The widget names (:func:`build_app`, :class:`Dashboard`,
:class:`PlotlyView`, :class:`ShareLink`, ``AUTO``) load the widget modules on first use.

Test hooks (a contract; the browser tests use them):

- each control carries the CSS class ``drmath-control-<section>-<field>``;
- each card renders an element with class ``drmath-kpi-<plan field>`` whose
  ``data-value`` is the SI value from ``plan()`` (``repr`` of the float, ``inf``
  for no bound, ``true``/``false`` for a flag) and whose text is the human reading;
- ``.drmath-scenario`` has ``data-scenario``: the current inputs as flat JSON
  (unset fields as ``null``);
- each figure is a ``.drmath-figure-<name>`` holding a ``.js-plotly-plot``;
- ``.drmath-error`` holds the last rejected input's message (empty when none).

Figures are drawn by :class:`PlotlyView`, a small anywidget that loads plotly.js
once per page from a cacheable static file of the ``drlab`` Voilà template
(:data:`PLOTLY_STATIC`, the 1.2 MB "basic" bundle), instead of plotly's
FigureWidget, which sends its ~4.9 MB bundle over the websocket for every
figure on every page view. Only scatter and bar traces are used. What each
figure sweeps and how it is drawn is :data:`drmath.viz.FIGURES`, shared with the
report; each card's title and sub-line come from :mod:`drmath.quantities`. The
widgets' JavaScript and the page's CSS ship as files in ``drmath/data/widgets/``.

    >>> app = build_app({"training.gpus": 16_384})
    >>> app.scenario.training.gpus
    16384
"""

import importlib

from .._resources import PLOTLY_JS_VERSION, PLOTLY_STATIC
from ..formatting import short_duration
from .cards import (
    CARDS,
    DEFINITIONS,
    TARGET_CONTROLS,
    TARGET_OF_CARD,
    TIER_COLUMNS,
    cards_html,
    data_value,
    tier_table_html,
)
from .page import CONTROLS, FIGURES, STORY

__all__ = ["build_app", "Dashboard", "PlotlyView", "ShareLink", "CARDS", "CONTROLS", "FIGURES", "PLOTLY_STATIC",
           "PLOTLY_JS_VERSION", "STORY", "DEFINITIONS", "TARGET_CONTROLS", "TARGET_OF_CARD", "TIER_COLUMNS",
           "cards_html", "tier_table_html", "data_value", "short_duration"]

_WIDGET_NAMES = {"build_app": "app", "Dashboard": "app", "VOILA_PARAMETERS": "app",
                 "PlotlyView": "widgets", "ShareLink": "widgets", "AUTO": "widgets"}
"""Names that need ipywidgets, by the module that holds them: loaded on first use (:func:`__getattr__`)."""


def __getattr__(name):
    """A widget name from its module, imported on first use (PEP 562), so the package itself stays light."""
    if name in _WIDGET_NAMES:
        value = getattr(importlib.import_module(f"{__name__}.{_WIDGET_NAMES[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_WIDGET_NAMES))
