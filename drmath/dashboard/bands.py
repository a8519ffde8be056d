"""The dashboard's bands: each headline card's 90% range, and the band shaded on the RPO, RTO and cost figures.

When the scenario on screen has uncertain inputs (:attr:`drmath.Scenario.uncertainty`, e.g. a fitted failure
model applied by the "your own fleet" panel), the dashboard's controller draws them once per input change
(:func:`drmath.dashboard.app.bands_for`, :func:`drmath.bands` with :data:`DRAWS` and :data:`SEED`) and hands
the :class:`drmath.Bands` here; without any it hands None and nothing here draws anything. Nothing here calls the
model: :func:`band_html` writes a card's range (:meth:`Bands.format_range`), and :func:`shade` lays a translucent
band and an error bar over a figure, in the figure's own unit (read off the figure's mark of the current design).

Nothing here imports ipywidgets or plotly: the cards (:mod:`drmath.dashboard.cards`) call :func:`band_html`.

Test hooks: a card's range is a ``.drmath-band.drmath-band-<plan field>`` with ``data-p05`` and ``data-p95``
(SI); a figure's band is the trace named ``"90% range"`` and a shape named ``"band"``.

    >>> import drmath
    >>> s = drmath.Scenario().replace(**{"uncertainty.failures.gpu_failure_rate": (2e-7 / 3600, 4e-7 / 3600)})
    >>> band_html(drmath.bands(s, draws=DRAWS, seed=SEED), "ettr")[:46]
    '<div class="drmath-band drmath-band-ettr" data'
"""

import html
import math

from .._moved import forwarder
from ..formatting import html_text
from ..scenario import MODEL, PREFIX
from ..viz.palette import ORANGE, rgba

__all__ = ["DRAWS", "SEED", "SHADED", "band_html", "shade", "shade_all", "whole_changes"]

DRAWS = 2000
"""Draws of the uncertain inputs per input change [1]: the CLI's default, so the dashboard's ranges are
``drmath plan``'s; one vectorised pass, a few ms (``bench/bench_uncertainty.py``)."""

SEED = 0
"""Seed of the draws [1]: the same inputs always show the same ranges."""

SHADED = {"rpo": ("rpo_site", "current", False), "cost_link": ("total_dr_cost", "current", False),
          "rto": ("rto_site", "site RTO", False), "cost_tier": ("total_dr_cost", "total", True)}
"""The figures that shade a band: ``{figure: (quantity, the trace marking the current design, whether that trace
has one point per DR tier)}``."""


def _si(value):
    value = float(value)
    return ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)


def band_html(bands, name):
    """A card's 90% range, to stand under its value; empty without bands.

    Parameters
    ----------
    bands : Bands or None
        The bands of the scenario on screen (the dashboard's :func:`~drmath.dashboard.app.bands_for`).
    name : str
        The card's plan field.

    Returns
    -------
    html : str
        ``<div class="drmath-band drmath-band-<name>" data-p05=… data-p95=…>`` holding
        :meth:`Bands.format_range`; ``""`` when ``bands`` is None or has no uncertainty.

    Examples
    --------
    >>> band_html(None, "rpo_site")
    ''
    """
    if bands is None or not bands.has_uncertainty or name not in bands.percentiles or not bands.varies(name):
        return ""  # no band where the quantity does not vary ("90.0 days – 90.0 days" says nothing)
    low, high = bands.range(name)
    return (f'<div class="drmath-band drmath-band-{name}" data-p05="{_si(low)}" data-p95="{_si(high)}" '
            f'style="{_STYLE}">{html_text(bands.format_range(name))}</div>')  # money no MathJax takes for math


_STYLE = "font-size: 11.5px; color: var(--drmath-orange); margin: 1px 0 2px; font-variant-numeric: tabular-nums"
"""A range's look, inline: the cards show one on any page whose scenario has uncertainty, panel open or not."""


def shade(name, spec, bands, p):
    """A figure with its quantity's 90% range shaded: a translucent band across the plot and an error bar on the
    current design's mark.

    Parameters
    ----------
    name : str
        The figure's name (a key of :data:`SHADED`; any other figure is returned as it is).
    spec : dict
        The figure (:func:`drmath.viz.figure_spec` of ``p``); not modified.
    bands : Bands or None
        The plan's bands; None or without uncertainty returns ``spec`` unchanged.
    p : Plan
        The plan drawn.

    Returns
    -------
    spec : dict
        A copy with the band, or ``spec`` itself when there is nothing to shade (no uncertainty, an
        unbounded value or range, no mark of the current design).

    Examples
    --------
    >>> import drmath
    >>> from drmath import viz
    >>> s = drmath.Scenario().replace(**{"uncertainty.failover.detection_time": (60.0, 1800.0)})
    >>> p = drmath.plan(s)
    >>> shaded = shade("rto", viz.figure_spec("rto", p), drmath.bands(s), p)
    >>> shaded["data"][-1]["name"], shaded["layout"]["shapes"][-1]["name"]
    ('90% range', 'band')
    """
    if bands is None or not bands.has_uncertainty or name not in SHADED:
        return spec
    quantity, mark, per_tier = SHADED[name]
    if not bands.varies(quantity):
        return spec
    trace = next((t for t in spec["data"] if t.get("name") == mark), None)
    value = float(getattr(p, quantity))
    low, high = bands.range(quantity)
    if trace is None or not all(math.isfinite(v) for v in (value, low, high)) or value <= 0:
        return spec
    i = trace["x"].index(p.scenario.failover.tier) if per_tier else 0
    x, y = trace["x"][i], trace["y"][i]
    if y is None:
        return spec
    per = y / value  # the figure's unit: its mark of the current design over the plan's value [1/SI]
    band = {"type": "scatter", "mode": "markers", "name": "90% range", "x": [x], "y": [y],
            "marker": {"color": ORANGE, "size": 1, "opacity": 0}, "showlegend": False,
            "error_y": {"type": "data", "symmetric": False, "array": [max(high * per - y, 0.0)],
                        "arrayminus": [max(y - low * per, 0.0)], "color": rgba(ORANGE, 0.6), "thickness": 6,
                        "width": 0},
            "hovertemplate": f"{html.escape(bands.format_range(quantity))}<extra></extra>"}
    if trace.get("yaxis"):
        band["yaxis"] = trace["yaxis"]
    rect = {"type": "rect", "name": "band", "xref": "paper", "yref": trace.get("yaxis", "y"), "x0": 0, "x1": 1,
            "y0": low * per, "y1": high * per, "fillcolor": rgba(ORANGE, 0.15), "line": {"width": 0},
            "layer": "below"}
    layout = dict(spec["layout"], shapes=[*spec["layout"].get("shapes", []), rect])
    return dict(spec, data=[*spec["data"], band], layout=layout)


def shade_all(specs, bands, p):
    """:func:`shade` over a dict of figures ``{name: spec}``; the same dict when there are no bands.

    Examples
    --------
    >>> import drmath
    >>> from drmath import viz
    >>> specs = viz.figure_specs(drmath.plan(), ["rto"])
    >>> shade_all(specs, None, drmath.plan()) is specs
    True
    """
    if bands is None or not bands.has_uncertainty:
        return specs
    return {name: shade(name, spec, bands, p) for name, spec in specs.items()}


def whole_changes(old, new):
    """The changes that turn scenario ``old`` into ``new`` in full: every field, and every spread set or cleared.

    :meth:`drmath.Scenario.flat` holds the fields only, so a whole scenario shown through the dashboard's
    funnel (:meth:`Dashboard.apply`) needs its spreads too, and those of the scenario before cleared.

    Parameters
    ----------
    old, new : Scenario
        The scenario on screen, and the one to show.

    Returns
    -------
    changes : dict
        ``{"section.field": value}`` and ``{"uncertainty.section.field": Spread or None}``;
        ``old.with_changes(changes) == new``.

    Examples
    --------
    >>> import drmath
    >>> s = drmath.Scenario().replace(**{"uncertainty.training.mfu": (0.3, 0.5)})
    >>> drmath.Scenario().with_changes(whole_changes(drmath.Scenario(), s)) == s
    True
    >>> s.with_changes(whole_changes(s, drmath.Scenario())).uncertainty == {}
    True
    """
    changes = new.flat()
    if new.training.model is not None:  # the counts come from the architecture: carry it, not its numbers
        changes = {k: v for k, v in changes.items() if k not in ("training.params", "training.active_share")}
        changes[MODEL] = new.training.model
    changes.update({PREFIX + path: spread for path, spread in new.uncertainty.items()})
    changes.update({PREFIX + path: None for path in old.uncertainty if path not in new.uncertainty})
    return changes


MOVED = {"bands_for": "drmath.dashboard.app"}
"""Names that moved out, each with its new module: the controller draws the bands, this module only shows them."""

__getattr__ = forwarder(__name__, MOVED)
