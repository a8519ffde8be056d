r"""Pure plotly builders and the one figure registry: numbers from :func:`drmath.plan` / :func:`drmath.sweep` in.

No physics lives here. Every builder takes a :class:`~drmath.Plan` (for the
current choice) and, for curves, the arrays that :func:`~drmath.sweep` returned,
and only converts SI to display units (through :mod:`drmath.formatting`), lays
the traces out and marks the current choice.

Each figure comes in two forms:

- ``*_spec(...) -> dict``: a plain, JSON-ready ``{"data": [...], "layout": {...}}``
  (``inf``/``nan`` become ``None``, arrays become lists). The dashboard sends
  these straight to the browser, which keeps a slider move cheap: no plotly
  validation in the kernel.
- ``*_figure(...) -> plotly.graph_objects.Figure``: the same, validated, for
  notebooks and export.

The plan's figures are registered once, in :data:`FIGURES`: what each sweeps,
on which grid, which outputs, how it is drawn, which group of quantities it
illustrates and whether the report shows it. :func:`figure_spec` draws one for
a plan; the dashboard, the report and the notebooks (:func:`plan_figure`) all
draw through it. For the standalone report, :func:`slider_steps` gives a knob's
steps as scenarios and :func:`slider_figure` draws the plans the report made of
them. Nothing here calls :func:`drmath.plan`: views draw plans, clients make them.

    >>> import drmath
    >>> p = drmath.plan()
    >>> figure_spec("rto", p)["data"][0]["type"]
    'bar'
    >>> FIGURES["ettr"].path, FIGURES["ettr"].section
    ('checkpoint.interval', 'cadence')

:func:`compare_figure` overlays several plans and :func:`simulation_figure`
draws :mod:`drmath.simulate` runs against the closed form. One palette
(:data:`PALETTE`) colours every figure, diagram and page. plotly is imported
lazily, only by the ``*_figure`` functions.

The two hand-built diagrams, the data path and the recovery timelines, are in
:mod:`drmath.viz.diagrams` (``from drmath.viz import diagrams``), which imports
plotly as it loads: this package does not import it.
"""

from .. import _resources
from .._moved import forwarder
from ..formatting import duration_unit
from ._common import PLOTLY_CONFIG, jsonable
from .comparison import compare_figure, compare_spec
from .cost import cost_link_figure, cost_link_spec, cost_tier_figure, cost_tier_spec
from .fleet import FLEET_FIGURES, cause_table_html, fleet_specs, gaps_figure, gaps_spec, trend_figure, trend_spec
from .palette import (
    BLUE,
    FONT,
    GREEN,
    GREY,
    GRID,
    INK,
    MUTED,
    ORANGE,
    PALETTE,
    PHASE_COLOURS,
    PINK,
    PURPLE,
    RED,
    SERIES,
    TEAL,
    TIER_COLOURS,
    css_variables,
    rgba,
)
from .pareto import pareto_figure, pareto_spec, stale_pareto_spec
from .registry import (
    FIGURES,
    KNOBS,
    FigureInfo,
    SliderSteps,
    figure_spec,
    figure_specs,
    in_section,
    plan_figure,
    slider_figure,
    slider_steps,
)
from .rpo import rpo_figure, rpo_link_figure, rpo_link_spec, rpo_spec
from .rto import rto_figure, rto_spec, standby_figure, standby_spec
from .simulation import simulation_figure, simulation_spec
from .training import ettr_figure, ettr_spec, time_mfu_figure, time_mfu_spec

PLOTLY_JS_VERSION = _resources.PLOTLY_JS_VERSION
"""Version of the vendored plotly.js "basic" bundle (scatter, bar and pie traces only):
:data:`drmath._resources.PLOTLY_JS_VERSION`."""

PLOTLY_BASIC_JS = _resources.plotly_bundle(PLOTLY_JS_VERSION)
"""The bundle's file: the Voilà template serves it to the dashboard, and reports inline it."""

BASIC_TRACES = frozenset({"scatter", "bar", "pie"})
"""The trace types that bundle can draw: every builder here uses only these."""

__all__ = [
    "FigureInfo", "FIGURES", "KNOBS", "PLOTLY_CONFIG", "figure_spec", "figure_specs", "plan_figure", "in_section",
    "slider_steps", "slider_figure", "SliderSteps", "rpo_spec", "rpo_figure", "rpo_link_spec", "rpo_link_figure",
    "time_mfu_spec",
    "time_mfu_figure", "ettr_spec", "ettr_figure", "rto_spec", "rto_figure", "standby_spec", "standby_figure",
    "cost_tier_spec", "cost_tier_figure", "cost_link_spec", "cost_link_figure", "pareto_spec", "pareto_figure",
    "stale_pareto_spec",
    "compare_spec", "compare_figure", "simulation_spec", "simulation_figure", "PALETTE", "SERIES", "PHASE_COLOURS",
    "FONT", "rgba", "css_variables", "duration_unit", "jsonable", "PLOTLY_JS_VERSION", "PLOTLY_BASIC_JS",
    "BASIC_TRACES", "INK", "MUTED", "GRID", "BLUE", "ORANGE", "GREEN", "GREY", "RED", "PURPLE", "PINK", "TEAL",
    "TIER_COLOURS", "FLEET_FIGURES", "fleet_specs", "gaps_spec", "gaps_figure", "trend_spec", "trend_figure",
    "cause_table_html",
]

MOVED = {"slider_figures": "drmath.report"}
"""Names that moved out, each with its new module: a view draws the plans its client made (issue 33)."""

__getattr__ = forwarder(__name__, MOVED)
