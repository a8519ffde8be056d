r"""Pure plotly builders: numbers from :func:`drmath.plan` / :func:`drmath.sweep` in, figures out.

No physics lives here. Every builder takes a :class:`~drmath.Plan` (for the
current choice) and, for curves, the arrays that :func:`~drmath.sweep` returned,
and only converts SI to display units (through :mod:`drmath.units`), lays the
traces out and marks the current choice.

Each figure comes in two forms:

- ``*_spec(...) -> dict``: a plain, JSON-ready ``{"data": [...], "layout": {...}}``
  (``inf``/``nan`` become ``None``, arrays become lists). The dashboard sends
  these straight to the browser, which keeps a slider move cheap: no plotly
  validation in the kernel.
- ``*_figure(...) -> plotly.graph_objects.Figure``: the same, validated, for
  notebooks and export.

    >>> import numpy as np, drmath
    >>> p = drmath.plan()
    >>> fig = rto_figure(p)
    >>> fig.data[0].type
    'bar'

plotly is imported lazily, only by the ``*_figure`` functions.
"""

import math
from pathlib import Path

import numpy as np

from . import presets
from .units import Gbit_per_s, day, format_quantity, hour, minute, year

PLOTLY_JS_VERSION = "4.1.1"
"""Version of the vendored plotly.js "basic" bundle (scatter, bar and pie traces only). [1]"""

PLOTLY_BASIC_JS = (Path(__file__).resolve().parent.parent / "share" / "jupyter" / "voila" / "templates" / "drlab"
                   / "static" / f"plotly-basic-{PLOTLY_JS_VERSION}.min.js")
"""The bundle's file: the Voilà template serves it to the dashboard, and reports inline it. [1]"""

BASIC_TRACES = frozenset({"scatter", "bar", "pie"})
"""The trace types that bundle can draw: every builder here uses only these. [1]"""

__all__ = [
    "rpo_spec", "rpo_figure", "ettr_spec", "ettr_figure", "rto_spec", "rto_figure",
    "cost_tier_spec", "cost_tier_figure", "cost_link_spec", "cost_link_figure",
    "duration_unit", "jsonable", "PLOTLY_JS_VERSION", "PLOTLY_BASIC_JS", "BASIC_TRACES",
]

# a quiet palette that reads in print and on a projector
INK = "#1f2933"
GRID = "#e4e7eb"
BLUE = "#2563eb"
ORANGE = "#ea580c"
GREEN = "#16a34a"
GREY = "#9aa5b1"
RED = "#dc2626"
PURPLE = "#7c3aed"
BAD_FILL = "rgba(220, 38, 38, 0.08)"

_DURATION_UNITS = ((year, "years"), (day, "days"), (hour, "h"), (minute, "min"), (1.0, "s"))


def duration_unit(seconds):
    """The display unit for a set of durations: the largest that keeps them ≥ 1.

    Parameters
    ----------
    seconds : float or array_like
        Representative durations; the largest finite one decides. [s]

    Returns
    -------
    scale : float
        Seconds per display unit. [s]
    name : str
        The unit's name, e.g. ``"h"``. [1]

    Examples
    --------
    >>> duration_unit(5400.0)
    (3600.0, 'h')
    >>> duration_unit([30.0, float("inf")])
    (1.0, 's')
    """
    arr = np.asarray(seconds, dtype=float).ravel()
    arr = arr[np.isfinite(arr)]
    top = float(arr.max()) if arr.size else 1.0
    for scale, name in _DURATION_UNITS:
        if top >= scale:
            return scale, name
    return 1.0, "s"


def jsonable(value, digits=6):
    """Turn numbers and arrays into JSON-safe lists: ``inf``/``nan`` become ``None``.

    Parameters
    ----------
    value : float or array_like
        Numbers in any unit. [1]
    digits : int, default 6
        Significant figures kept (the payload stays small). [1]

    Returns
    -------
    out : float, list or None
        The same numbers, rounded, with non-finite ones as ``None``. [1]

    Examples
    --------
    >>> jsonable([1.23456789, float("inf")])
    [1.23457, None]
    """
    arr = np.asarray(value, dtype=float)
    finite = np.isfinite(arr)
    rounded = np.where(finite, arr, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mag = np.where(rounded != 0, np.floor(np.log10(np.abs(rounded))), 0.0)
    factor = 10.0 ** (digits - 1 - mag)
    rounded = np.round(rounded * factor) / factor
    if arr.ndim == 0:
        return float(rounded) if bool(finite) else None
    return [float(r) if f else None for r, f in zip(rounded.tolist(), finite.tolist())]


def _layout(title, xtitle, ytitle, height=300, **extra):
    layout = {
        "title": {"text": title, "x": 0.01, "xanchor": "left", "y": 0.975, "yanchor": "top",
                  "yref": "container", "font": {"size": 14, "color": INK}},
        "height": height,
        "margin": {"l": 60, "r": 16, "t": 64, "b": 44},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 12,
                 "color": INK},
        # "allow": plotly otherwise measures every tick label (a forced layout each) to hide the
        # ones past the div; our fixed margins keep them inside, and a redraw is ~15% cheaper
        "xaxis": {"title": {"text": xtitle}, "gridcolor": GRID, "zeroline": False, "linecolor": GREY,
                  "ticklabeloverflow": "allow"},
        "yaxis": {"title": {"text": ytitle}, "gridcolor": GRID, "zeroline": False, "linecolor": GREY,
                  "ticklabeloverflow": "allow"},
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0, "yanchor": "bottom",
                   "bgcolor": "rgba(0,0,0,0)", "font": {"size": 11}},
        "hovermode": "closest",
        "showlegend": True,
    }
    layout.update(extra)
    return layout


def _first_true(x, mask):
    """The first x where mask holds (x ascending), or None."""
    idx = np.flatnonzero(np.asarray(mask, dtype=bool))
    return float(np.asarray(x)[idx[0]]) if idx.size else None


def _bad_region(x0, x1):
    return {"type": "rect", "xref": "x", "yref": "paper", "x0": x0, "x1": x1, "y0": 0, "y1": 1,
            "fillcolor": BAD_FILL, "line": {"width": 0}, "layer": "below"}


def _vline(x, color, dash="dash"):
    return {"type": "line", "xref": "x", "yref": "paper", "x0": x, "x1": x, "y0": 0, "y1": 1,
            "line": {"color": color, "width": 1.5, "dash": dash}}


def _note(x, text, color, y=1.0, yanchor="top", xanchor="left", log=True):
    # annotations on a log axis are placed in log10 units (shapes take data units)
    x = math.log10(x) if log and x and x > 0 else x
    return {"x": x, "y": y, "xref": "x", "yref": "paper", "text": text, "showarrow": False,
            "font": {"size": 11, "color": color}, "xanchor": xanchor, "yanchor": yanchor,
            "bgcolor": "rgba(255,255,255,0.8)"}


def _log10(x):
    return math.log10(x)


def _log_range(*arrays, step=0.5):
    """A fixed log-axis range (log10 units) around the finite positive values, snapped to
    half-decades so that it changes rarely as the inputs move (a fixed range redraws faster)."""
    arr = np.concatenate([np.asarray(a, dtype=float).ravel() for a in arrays])
    arr = arr[np.isfinite(arr) & (arr > 0)]
    if not arr.size:
        return [0.0, 1.0]
    lo = math.floor(math.log10(arr.min()) / step) * step
    hi = math.ceil(math.log10(arr.max()) / step) * step
    return [lo - 0.05, hi + 0.05] if hi > lo else [lo - step, hi + step]


def _nice_top(value):
    """A round axis top above value·1.15: 1, 2, 2.5 or 5 times a power of ten."""
    if not (math.isfinite(value) and value > 0):
        return 1.0
    target = value * 1.15
    power = 10.0 ** math.floor(math.log10(target))
    for m in (1, 2, 2.5, 5, 10):
        if m * power >= target:
            return m * power
    return 10 * power


def _log_x(xs):
    return [math.log10(xs[0]), math.log10(xs[-1])]


def _figure(spec):
    import plotly.graph_objects as go
    return go.Figure(spec)


# --------------------------------------------------------------------------- RPO


def rpo_spec(p, intervals, curves):
    """Site RPO against the remote-replication interval, with the keeps-up boundary.

    Parameters
    ----------
    p : Plan
        The current plan; its replication target and site RPO are marked. [1]
    intervals : array_like
        Replication targets swept (``replication.interval``), ascending. [s]
    curves : dict of str to ndarray
        ``sweep(p.scenario, "replication.interval", intervals, ...)`` with
        ``rpo_site``, ``rpo_site_expected`` and ``replication_keeps_up``. [s]

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure (``data`` and ``layout``). [1]

    Examples
    --------
    >>> import numpy as np, drmath
    >>> p = drmath.plan()
    >>> x = np.geomspace(60, 86400, 50)
    >>> c = drmath.sweep(p.scenario, "replication.interval", x,
    ...                  ["rpo_site", "rpo_site_expected", "replication_keeps_up"])
    >>> [t["name"] for t in rpo_spec(p, x, c)["data"]][:2]
    ['site RPO, worst', 'site RPO, expected']
    """
    x = np.asarray(intervals, dtype=float)
    worst = np.asarray(curves["rpo_site"], dtype=float)
    expected = np.asarray(curves["rpo_site_expected"], dtype=float)
    keeps = np.asarray(curves["replication_keeps_up"]).astype(bool)
    scale, unit = duration_unit(np.median(x))
    xs = jsonable(x / scale)
    current = p.scenario.replication.interval
    data = [
        {"type": "scatter", "mode": "lines", "name": "site RPO, worst", "x": xs,
         "y": jsonable(worst / scale), "line": {"color": BLUE, "width": 2.5},
         "hovertemplate": f"target %{{x:.3g}} {unit}<br>worst %{{y:.3g}} {unit}<extra></extra>"},
        {"type": "scatter", "mode": "lines", "name": "site RPO, expected", "x": xs,
         "y": jsonable(expected / scale), "line": {"color": BLUE, "width": 1.5, "dash": "dot"},
         "hovertemplate": f"target %{{x:.3g}} {unit}<br>expected %{{y:.3g}} {unit}<extra></extra>"},
        {"type": "scatter", "mode": "lines", "name": "local RPO", "x": [xs[0], xs[-1]],
         "y": [jsonable(p.rpo_local / scale)] * 2, "line": {"color": GREY, "width": 1.5, "dash": "dash"},
         "hoverinfo": "skip"},
    ]
    shapes, notes = [], []
    boundary = _first_true(x, keeps)
    if boundary is None:
        shapes.append(_bad_region(xs[0], xs[-1]))
        notes.append(_note(xs[0], "replication never keeps up: site RPO has no bound", RED, y=0.9))
    elif boundary > x[0]:
        b = jsonable(boundary / scale)
        shapes += [_bad_region(xs[0], b), _vline(b, RED)]
        notes.append(_note(b, " keeps up →", RED, y=0.02, yanchor="bottom"))
        notes.append(_note(xs[0], "falls behind:<br>no bound", RED, y=0.5, yanchor="middle"))
    if math.isfinite(p.rpo_site):
        data.append({"type": "scatter", "mode": "markers", "name": "current",
                     "x": [jsonable(current / scale)], "y": [jsonable(p.rpo_site / scale)],
                     "marker": {"color": ORANGE, "size": 12, "symbol": "circle",
                                "line": {"color": "white", "width": 1.5}},
                     "hovertemplate": f"current: {format_quantity(p.rpo_site, 'duration')}<extra></extra>"})
    else:
        shapes.append(_vline(jsonable(current / scale), ORANGE, dash="solid"))
        notes.append(_note(jsonable(current / scale), "current: no bound", ORANGE, y=0.9))
    title = f"Site RPO vs replication interval: <b>{format_quantity(p.rpo_site, 'duration')}</b> now"
    layout = _layout(title, f"replication target interval [{unit}]", f"RPO [{unit}]",
                     shapes=shapes, annotations=notes)
    layout["xaxis"].update(type="log", range=_log_x(xs))
    layout["yaxis"].update(type="log", range=_log_range(worst / scale, expected / scale, [p.rpo_local / scale]))
    return {"data": data, "layout": layout}


def rpo_figure(p, intervals, curves):
    """:func:`rpo_spec` as a :class:`plotly.graph_objects.Figure`.

    Parameters
    ----------
    p : Plan
        The current plan. [1]
    intervals : array_like
        Replication targets swept. [s]
    curves : dict of str to ndarray
        The sweep, as for :func:`rpo_spec`. [s]

    Returns
    -------
    fig : plotly.graph_objects.Figure
        The figure. [1]

    Examples
    --------
    >>> import numpy as np, drmath
    >>> p = drmath.plan()
    >>> x = np.geomspace(60, 86400, 20)
    >>> c = drmath.sweep(p.scenario, "replication.interval", x,
    ...                  ["rpo_site", "rpo_site_expected", "replication_keeps_up"])
    >>> rpo_figure(p, x, c).layout.xaxis.type
    'log'
    """
    return _figure(rpo_spec(p, intervals, curves))


# --------------------------------------------------------------------------- ETTR


def ettr_spec(p, intervals, curves):
    """ETTR against the checkpoint interval, with the Young and Daly optima marked.

    Parameters
    ----------
    p : Plan
        The current plan: its interval, floor and optima are marked. [1]
    intervals : array_like
        Checkpoint intervals swept (``checkpoint.interval``), ascending. [s]
    curves : dict of str to ndarray
        ``sweep(p.scenario, "checkpoint.interval", intervals, ["ettr"])``. [1]

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure. [1]

    Examples
    --------
    >>> import numpy as np, drmath
    >>> p = drmath.plan()
    >>> x = np.geomspace(10, 86400, 50)
    >>> spec = ettr_spec(p, x, drmath.sweep(p.scenario, "checkpoint.interval", x, ["ettr"]))
    >>> spec["layout"]["yaxis"]["title"]["text"]
    'ETTR [%]'
    """
    x = np.asarray(intervals, dtype=float)
    ettr = np.asarray(curves["ettr"], dtype=float)
    scale, unit = duration_unit(np.median(x))
    xs = jsonable(x / scale)
    data = [
        {"type": "scatter", "mode": "lines", "name": "ETTR", "x": xs, "y": jsonable(100 * ettr),
         "line": {"color": BLUE, "width": 2.5},
         "hovertemplate": f"interval %{{x:.3g}} {unit}<br>ETTR %{{y:.2f}}%<extra></extra>"},
        {"type": "scatter", "mode": "markers", "name": "current",
         "x": [jsonable(p.checkpoint_interval / scale)], "y": [jsonable(100 * p.ettr)],
         "marker": {"color": ORANGE, "size": 12, "line": {"color": "white", "width": 1.5}},
         "hovertemplate": f"current: {format_quantity(p.ettr, 'fraction')} at "
                          f"{format_quantity(p.checkpoint_interval, 'duration')}<extra></extra>"},
    ]
    young, daly = jsonable(p.young_interval / scale), jsonable(p.daly_interval / scale)
    shapes = [_vline(young, GREEN, "dot"), _vline(daly, PURPLE, "dash")]
    notes = [_note(young, "Young ", GREEN, y=0.02, yanchor="bottom", xanchor="right"),
             _note(daly, " Daly", PURPLE, y=0.12, yanchor="bottom", xanchor="left")]
    floor = p.checkpoint_interval_floor
    if floor > x[0]:
        f = jsonable(floor / scale)
        shapes.append(_bad_region(xs[0], f))
        notes.append(_note(xs[0], "below the<br>persist floor", RED, y=0.5, yanchor="middle"))
    finite = ettr[np.isfinite(ettr)]
    low = float(np.clip(math.floor((finite.min() * 100 - 1) / 5) * 5, 0, 95)) if finite.size else 0.0
    title = f"ETTR vs checkpoint interval: <b>{format_quantity(p.ettr, 'fraction')}</b> now"
    layout = _layout(title, f"checkpoint interval [{unit}]", "ETTR [%]", shapes=shapes, annotations=notes,
                     showlegend=False)
    layout["xaxis"].update(type="log", range=_log_x(xs))
    layout["yaxis"]["range"] = [low, 100.5]
    return {"data": data, "layout": layout}


def ettr_figure(p, intervals, curves):
    """:func:`ettr_spec` as a :class:`plotly.graph_objects.Figure`.

    Parameters
    ----------
    p : Plan
        The current plan. [1]
    intervals : array_like
        Checkpoint intervals swept. [s]
    curves : dict of str to ndarray
        The sweep, with ``ettr``. [1]

    Returns
    -------
    fig : plotly.graph_objects.Figure
        The figure. [1]

    Examples
    --------
    >>> import numpy as np, drmath
    >>> p = drmath.plan()
    >>> x = np.geomspace(10, 86400, 20)
    >>> fig = ettr_figure(p, x, drmath.sweep(p.scenario, "checkpoint.interval", x, ["ettr"]))
    >>> len(fig.layout.shapes) >= 2
    True
    """
    return _figure(ettr_spec(p, intervals, curves))


# --------------------------------------------------------------------------- site RTO


def rto_spec(p):
    """The site-RTO phases of the current tier as a waterfall (floating bars, then the total).

    Parameters
    ----------
    p : Plan
        The current plan; uses ``rto_site_phases`` and ``rto_site``. [s]

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure: bar traces only, so the small plotly.js bundle draws it. [1]

    Examples
    --------
    >>> import drmath
    >>> spec = rto_spec(drmath.plan())
    >>> spec["data"][1]["x"], spec["data"][0]["x"][0]
    (['site RTO'], 'detection')
    """
    phases = dict(p.rto_site_phases)
    total = p.rto_site
    scale, unit = duration_unit(total)
    names = list(phases)
    values = np.array([phases[k] for k in names], dtype=float)
    starts = np.concatenate([[0.0], np.cumsum(values)[:-1]])
    text = [format_quantity(v, "duration") if v > 0 else "0" for v in values]
    tier = presets.DR_TIERS[p.scenario.failover.tier]
    data = [
        {"type": "bar", "name": "phase", "x": names, "y": jsonable(values / scale),
         "base": jsonable(starts / scale), "marker": {"color": BLUE}, "text": text,
         "textposition": "outside", "cliponaxis": False,
         "hovertemplate": "%{x}: %{text}<extra></extra>"},
        {"type": "bar", "name": "site RTO", "x": ["site RTO"], "y": [jsonable(total / scale)],
         "marker": {"color": ORANGE}, "text": [format_quantity(total, "duration")],
         "textposition": "outside", "cliponaxis": False,
         "hovertemplate": "site RTO: %{text}<extra></extra>"},
    ]
    title = f"Site RTO by phase, {tier.label}: <b>{format_quantity(total, 'duration')}</b>"
    layout = _layout(title, "", f"time [{unit}]", showlegend=False, bargap=0.25)
    layout["yaxis"]["range"] = [0, _nice_top(total / scale)]
    return {"data": data, "layout": layout}


def rto_figure(p):
    """:func:`rto_spec` as a :class:`plotly.graph_objects.Figure`.

    Parameters
    ----------
    p : Plan
        The current plan. [1]

    Returns
    -------
    fig : plotly.graph_objects.Figure
        The figure. [1]

    Examples
    --------
    >>> import drmath
    >>> rto_figure(drmath.plan()).data[1].name
    'site RTO'
    """
    return _figure(rto_spec(p))


# --------------------------------------------------------------------------- cost


def _musd(value):
    return jsonable(np.asarray(value, dtype=float) / 1e6)


def cost_tier_spec(p):
    """Total expected DR cost of every tier, the current one highlighted.

    Parameters
    ----------
    p : Plan
        The current plan; uses ``tier_total_costs``. [USD]

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure (bars in millions of USD). [1]

    Examples
    --------
    >>> import drmath
    >>> spec = cost_tier_spec(drmath.plan())
    >>> spec["data"][0]["x"][:2]
    ['cold', 'pilot-light']
    """
    names = list(p.tier_total_costs)
    costs = [p.tier_total_costs[n] for n in names]
    current = p.scenario.failover.tier
    colors = [ORANGE if n == current else BLUE for n in names]
    finite = [c for c in costs if math.isfinite(c)]
    data = [{
        "type": "bar", "name": "total DR cost", "x": names, "y": _musd(costs),
        "marker": {"color": colors},
        "text": [format_quantity(c, "usd") for c in costs], "textposition": "outside",
        "cliponaxis": False,
        "customdata": [presets.DR_TIERS[n].label for n in names],
        "hovertemplate": "%{customdata}: %{text}<extra></extra>",
    }]
    title = f"Total expected DR cost by tier: <b>{format_quantity(p.total_dr_cost, 'usd')}</b> ({current})"
    layout = _layout(title, "DR tier (standby + replication + expected disaster loss)", "cost [$M]",
                     showlegend=False)
    if finite:
        layout["yaxis"]["range"] = [0, _nice_top(max(finite) / 1e6)]
    else:
        layout["annotations"] = [{"x": 0.5, "y": 0.5, "xref": "paper", "yref": "paper", "showarrow": False,
                                  "text": "replication does not keep up: every tier's expected loss "
                                          "has no bound", "font": {"color": RED}}]
    return {"data": data, "layout": layout}


def cost_tier_figure(p):
    """:func:`cost_tier_spec` as a :class:`plotly.graph_objects.Figure`.

    Parameters
    ----------
    p : Plan
        The current plan. [1]

    Returns
    -------
    fig : plotly.graph_objects.Figure
        The figure. [1]

    Examples
    --------
    >>> import drmath
    >>> cost_tier_figure(drmath.plan()).data[0].type
    'bar'
    """
    return _figure(cost_tier_spec(p))


def cost_link_spec(p, bandwidths, curves):
    """Total expected DR cost and its parts against link bandwidth.

    Parameters
    ----------
    p : Plan
        The current plan; its link and total cost are marked. [1]
    bandwidths : array_like
        Link line rates swept (``replication.link_bandwidth``), ascending. [B/s]
    curves : dict of str to ndarray
        The sweep, with ``total_dr_cost``, ``standby_cost``, ``replication_cost``,
        ``expected_disaster_loss`` and ``replication_keeps_up``. [USD]

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure (x in Gbit/s, y in millions of USD). [1]

    Examples
    --------
    >>> import numpy as np, drmath
    >>> p = drmath.plan()
    >>> x = np.geomspace(1e8, 1e11, 30)
    >>> names = ["total_dr_cost", "standby_cost", "replication_cost", "expected_disaster_loss",
    ...          "replication_keeps_up"]
    >>> spec = cost_link_spec(p, x, drmath.sweep(p.scenario, "replication.link_bandwidth", x, names))
    >>> spec["data"][0]["name"]
    'total'
    """
    x = np.asarray(bandwidths, dtype=float)
    xs = jsonable(x / Gbit_per_s)
    keeps = np.asarray(curves["replication_keeps_up"]).astype(bool)
    parts = [("total", "total_dr_cost", ORANGE, 3, "solid"),
             ("standby", "standby_cost", BLUE, 1.5, "dot"),
             ("replication", "replication_cost", GREEN, 1.5, "dot"),
             ("expected disaster loss", "expected_disaster_loss", PURPLE, 1.5, "dot")]
    data = [{"type": "scatter", "mode": "lines", "name": name, "x": xs, "y": _musd(curves[key]),
             "line": {"color": color, "width": width, "dash": dash},
             "hovertemplate": f"%{{x:.3g}} Gbit/s<br>{name} $%{{y:.3g}}M<extra></extra>"}
            for name, key, color, width, dash in parts]
    link = p.scenario.replication.link_bandwidth
    cx = jsonable(link / Gbit_per_s)
    shapes, notes = [], []
    boundary = _first_true(x, keeps)
    if boundary is None:
        shapes.append(_bad_region(xs[0], xs[-1]))
        notes.append(_note(xs[0], "replication never keeps up: cost has no bound", RED, y=0.9))
    elif boundary > x[0]:
        b = jsonable(boundary / Gbit_per_s)
        shapes += [_bad_region(xs[0], b), _vline(b, RED)]
        notes.append(_note(b, " keeps up →", RED, y=0.02, yanchor="bottom"))
        notes.append(_note(xs[0], "falls behind:<br>no bound", RED, y=0.5, yanchor="middle"))
    if math.isfinite(p.total_dr_cost):
        data.append({"type": "scatter", "mode": "markers", "name": "current", "x": [cx],
                     "y": [_musd(p.total_dr_cost)],
                     "marker": {"color": ORANGE, "size": 12, "line": {"color": "white", "width": 1.5}},
                     "hovertemplate": f"current: {format_quantity(p.total_dr_cost, 'usd')}<extra></extra>"})
    else:
        shapes.append(_vline(cx, ORANGE, dash="solid"))
        notes.append(_note(cx, "current: no bound", ORANGE, y=0.9))
    title = f"Total expected DR cost vs link bandwidth: <b>{format_quantity(p.total_dr_cost, 'usd')}</b> now"
    layout = _layout(title, "link line rate [Gbit/s]", "cost [$M]", shapes=shapes, annotations=notes)
    layout["xaxis"].update(type="log", range=_log_x(xs))
    layout["yaxis"].update(type="log", range=_log_range(*(np.asarray(curves[k], dtype=float) / 1e6
                                                          for _, k, _, _, _ in parts)))
    return {"data": data, "layout": layout}


def cost_link_figure(p, bandwidths, curves):
    """:func:`cost_link_spec` as a :class:`plotly.graph_objects.Figure`.

    Parameters
    ----------
    p : Plan
        The current plan. [1]
    bandwidths : array_like
        Link line rates swept. [B/s]
    curves : dict of str to ndarray
        The sweep, as for :func:`cost_link_spec`. [USD]

    Returns
    -------
    fig : plotly.graph_objects.Figure
        The figure. [1]

    Examples
    --------
    >>> import numpy as np, drmath
    >>> p = drmath.plan()
    >>> x = np.geomspace(1e8, 1e11, 10)
    >>> names = ["total_dr_cost", "standby_cost", "replication_cost", "expected_disaster_loss",
    ...          "replication_keeps_up"]
    >>> fig = cost_link_figure(p, x, drmath.sweep(p.scenario, "replication.link_bandwidth", x, names))
    >>> fig.layout.yaxis.type
    'log'
    """
    return _figure(cost_link_spec(p, bandwidths, curves))
