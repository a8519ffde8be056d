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
draw through it, and :func:`slider_figures` precomputes a knob's steps for the
standalone report.

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
"""

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import _resources, presets
from ._plan import plan, sweep
from .formatting import duration_unit, format_quantity, line_rate, money, money_unit, short_duration
from .scenario import FIELDS
from .units import Gbit_per_s, day, hour, minute, week, year

PLOTLY_JS_VERSION = "4.1.1"
"""Version of the vendored plotly.js "basic" bundle (scatter, bar and pie traces only)."""

PLOTLY_BASIC_JS = _resources.plotly_bundle(PLOTLY_JS_VERSION)
"""The bundle's file: the Voilà template serves it to the dashboard, and reports inline it."""

BASIC_TRACES = frozenset({"scatter", "bar", "pie"})
"""The trace types that bundle can draw: every builder here uses only these."""

__all__ = [
    "FigureInfo", "FIGURES", "KNOBS", "figure_spec", "figure_specs", "plan_figure", "in_section",
    "slider_figures", "rpo_spec", "rpo_figure", "rpo_link_spec", "rpo_link_figure", "time_mfu_spec",
    "time_mfu_figure", "ettr_spec", "ettr_figure", "rto_spec", "rto_figure", "standby_spec", "standby_figure",
    "cost_tier_spec", "cost_tier_figure", "cost_link_spec", "cost_link_figure", "pareto_spec", "pareto_figure",
    "compare_spec", "compare_figure", "simulation_spec", "simulation_figure", "PALETTE", "SERIES", "PHASE_COLOURS",
    "FONT", "rgba", "css_variables", "duration_unit", "jsonable", "PLOTLY_JS_VERSION", "PLOTLY_BASIC_JS",
    "BASIC_TRACES",
]

# --------------------------------------------------------------------------- the palette

PALETTE = {
    # a quiet palette that reads in print and on a projector
    "ink": "#1f2933", "muted": "#52606d", "faint": "#7b8794", "grid": "#e4e7eb", "bg": "#f8fafc",
    "blue": "#2563eb", "orange": "#ea580c", "green": "#16a34a", "grey": "#9aa5b1", "red": "#dc2626",
    "purple": "#7c3aed", "pink": "#db2777", "teal": "#0d9488",
    # tints for messages on a page: errors, notices, notes, formulas
    "red-ink": "#b91c1c", "red-tint": "#fef2f2", "red-line": "#fecaca",
    "amber-ink": "#92400e", "amber-tint": "#fffbeb", "amber-line": "#fde68a",
    "blue-tint": "#eff6ff", "indigo-tint": "#eef2ff",
}
"""Every colour drmath draws with, by name: figures, diagrams, the dashboard and the report
(pages get them as CSS variables, :func:`css_variables`)."""

INK, MUTED, GRID = PALETTE["ink"], PALETTE["muted"], PALETTE["grid"]
BLUE, ORANGE, GREEN, GREY = PALETTE["blue"], PALETTE["orange"], PALETTE["green"], PALETTE["grey"]
RED, PURPLE, PINK, TEAL = PALETTE["red"], PALETTE["purple"], PALETTE["pink"], PALETTE["teal"]

SERIES = (BLUE, ORANGE, GREEN, PURPLE)
"""One colour per plan when plans are overlaid, in order."""

PHASE_COLOURS = {"detection": PURPLE, "decision": PINK, "reschedule": ORANGE, "readiness": ORANGE,
                 "staging": TEAL, "launch": BLUE, "load": GREEN, "validation": GREY}
"""The colour of each recovery phase (:data:`drmath.recovery.SITE_PHASES`) on a timeline."""

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
"""The font stack of every figure and page."""


def rgba(colour, alpha):
    """A palette colour made translucent, for fills.

    Parameters
    ----------
    colour : str
        ``"#rrggbb"``.
    alpha : float
        Opacity from 0 (clear) to 1.

    Returns
    -------
    css : str
        ``"rgba(r, g, b, alpha)"``.

    Examples
    --------
    >>> rgba(RED, 0.08)
    'rgba(220, 38, 38, 0.08)'
    """
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha:g})"


BAD_FILL = rgba(RED, 0.08)


def css_variables():
    """The palette and font as CSS custom properties, for a page's stylesheet.

    Returns
    -------
    css : str
        A ``:root`` rule: ``--drmath-<name>`` for each colour of :data:`PALETTE`, and
        ``--drmath-font``.

    Examples
    --------
    >>> css_variables().split("; ")[0]
    ':root { --drmath-ink: #1f2933'
    """
    props = [f"--drmath-{name}: {value}" for name, value in PALETTE.items()] + [f"--drmath-font: {FONT}"]
    return ":root { " + "; ".join(props) + "; }"


# --------------------------------------------------------------------------- shared pieces


def jsonable(value, digits=6):
    """Turn numbers and arrays into JSON-safe lists: ``inf``/``nan`` become ``None``.

    Parameters
    ----------
    value : float or array_like
        Numbers in any unit.
    digits : int, default 6
        Significant figures kept (the payload stays small).

    Returns
    -------
    out : float, list or None
        The same numbers, rounded, with non-finite ones as ``None``.

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


def _axis(title):
    # "allow": plotly otherwise measures every tick label (a forced layout each) to hide the ones
    # past the div; our fixed margins keep them inside, and a redraw is ~15% cheaper
    return {"title": {"text": title}, "gridcolor": GRID, "zeroline": False, "linecolor": GREY,
            "ticklabeloverflow": "allow"}


def _layout(title, xtitle, ytitle, height=300, **extra):
    layout = {
        "title": {"text": title, "x": 0.01, "xanchor": "left", "y": 0.975, "yanchor": "top",
                  "yref": "container", "font": {"size": 14, "color": INK}},
        "height": height,
        "margin": {"l": 60, "r": 16, "t": 64, "b": 44},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "font": {"family": FONT, "size": 12, "color": INK},
        "xaxis": _axis(xtitle),
        "yaxis": _axis(ytitle),
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0, "yanchor": "bottom",
                   "bgcolor": "rgba(0,0,0,0)", "font": {"size": 11}},
        "hovermode": "closest",
        "showlegend": True,
    }
    layout.update(extra)
    return layout


def _panels(rows, cols, titles, height, gap=(0.16, 0.1)):
    """A layout of ``rows × cols`` panels, axes ``x, x2, …`` and ``y, y2, …`` row by row, each titled."""
    layout = _layout("", "", "", height=height, margin={"l": 60, "r": 16, "t": 50, "b": 44})
    del layout["title"], layout["xaxis"], layout["yaxis"]
    vgap, hgap = gap
    h, w = (1 - vgap * (rows - 1)) / rows, (1 - hgap * (cols - 1)) / cols
    notes = []
    for i, title in enumerate(titles):
        row, col = divmod(i, cols)
        n = "" if i == 0 else str(i + 1)
        x0, y1 = col * (w + hgap), 1 - row * (h + vgap)
        layout[f"xaxis{n}"] = dict(_axis(""), domain=[max(x0, 0.0), min(x0 + w, 1.0)], anchor=f"y{n}")
        layout[f"yaxis{n}"] = dict(_axis(""), domain=[max(y1 - h, 0.0), min(y1, 1.0)], anchor=f"x{n}")
        notes.append({"text": title, "x": x0 + w / 2, "y": y1, "xref": "paper", "yref": "paper",
                      "xanchor": "center", "yanchor": "bottom", "showarrow": False,
                      "font": {"size": 13, "color": INK}})
    layout["annotations"] = notes
    return layout


def _first_true(x, mask):
    """The first x where mask holds (x ascending), or None."""
    idx = np.flatnonzero(np.asarray(mask, dtype=bool))
    return float(np.asarray(x)[idx[0]]) if idx.size else None


def _bad_region(x0, x1):
    return {"type": "rect", "xref": "x", "yref": "paper", "x0": x0, "x1": x1, "y0": 0, "y1": 1,
            "fillcolor": BAD_FILL, "line": {"width": 0}, "layer": "below"}


def _refs(axis):
    """x and y references: the single plot's (axis None, y over the whole paper) or one panel's."""
    return ("x", "paper") if axis is None else (f"x{axis}", f"y{axis} domain")


def _vline(x, color, dash="dash", axis=None):
    xref, yref = _refs(axis)
    return {"type": "line", "xref": xref, "yref": yref, "x0": x, "x1": x, "y0": 0, "y1": 1,
            "line": {"color": color, "width": 1.5, "dash": dash}}


def _note(x, text, color, y=1.0, yanchor="top", xanchor="left", log=True, axis=None):
    # annotations on a log axis are placed in log10 units (shapes take data units)
    x = math.log10(x) if log and x and x > 0 else x
    xref, yref = _refs(axis)
    return {"x": x, "y": y, "xref": xref, "yref": yref, "text": text, "showarrow": False,
            "font": {"size": 11, "color": color}, "xanchor": xanchor, "yanchor": yanchor,
            "bgcolor": "rgba(255,255,255,0.8)"}


def _keeps_up_marks(boundary, x, xs, scale, what, left=None):
    """Shade where replication falls behind and mark where it starts to keep up: at ``boundary``
    (the smallest swept value that keeps up, in x's unit), None when no value on the axis does.
    The shading starts at ``left`` (the axis' left end, in x's unit) when it lies below the sweep."""
    shapes, notes = [], []
    if left is not None and math.isfinite(left) and 0 < left < xs[0]:
        xs = [jsonable(left / 10 ** 0.1), *xs[1:]]
    if boundary is None:
        shapes.append(_bad_region(xs[0], xs[-1]))
        notes.append(_note(xs[0], f"replication never keeps up: {what} has no bound", RED, y=0.9))
    elif boundary > x[0]:
        b = jsonable(boundary / scale)
        shapes += [_bad_region(xs[0], b), _vline(b, RED)]
        notes.append(_note(b, " keeps up →", RED, y=0.02, yanchor="bottom"))
        notes.append(_note(xs[0], "falls behind:<br>no bound", RED, y=0.5, yanchor="middle"))
    return shapes, notes


def _current(x, y, hover):
    return {"type": "scatter", "mode": "markers", "name": "current", "x": [x], "y": [y],
            "marker": {"color": ORANGE, "size": 12, "symbol": "circle", "line": {"color": "white", "width": 1.5}},
            "hovertemplate": f"current: {hover}<extra></extra>"}


def _mark_current(x, value, scale, kind, data, shapes, notes):
    """The current choice: a dot at ``value`` (SI), or a line at x when ``value`` has no bound."""
    if math.isfinite(value):
        data.append(_current(x, jsonable(value / scale), format_quantity(value, kind)))
    else:
        shapes.append(_vline(x, ORANGE, dash="solid"))
        notes.append(_note(x, "current: no bound", ORANGE, y=0.9))


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


def _top(values, *marks):
    """:func:`_nice_top` over the finite values of a curve and the marked points (0 if none)."""
    arr = np.append(np.asarray(values, dtype=float).ravel(), marks)
    return _nice_top(arr[np.isfinite(arr)].max(initial=0.0))


def _log_x(xs, *marks):
    """A log x-axis range (log10 units) over the swept values and the marks that must stay in view.

    The marks are the current choice: a link or an interval off the sweep's grid widens the axis
    (by a tenth of a decade beyond it) rather than leave its marker outside the plot.
    """
    lo, hi = math.log10(xs[0]), math.log10(xs[-1])
    for mark in marks:
        if mark is not None and math.isfinite(mark) and mark > 0:
            at = math.log10(mark)
            lo, hi = (at - 0.1 if at < lo else lo), (at + 0.1 if at > hi else hi)
    return [lo, hi]


def _figure(spec):
    import plotly.graph_objects as go
    return go.Figure(spec)


def _as_figure(builder, name=None):
    """``builder``'s figure as a :class:`plotly.graph_objects.Figure`: ``rpo_spec`` gives ``rpo_figure``."""

    @functools.wraps(builder)
    def figure(*args, **kwargs):
        return _figure(builder(*args, **kwargs))

    figure.__name__ = figure.__qualname__ = name or builder.__name__.replace("_spec", "_figure")
    figure.__doc__ = (f":func:`{builder.__name__}` as a validated :class:`plotly.graph_objects.Figure`, for "
                      "notebooks and export; same parameters.")
    return figure


# --------------------------------------------------------------------------- RPO


def rpo_spec(p, intervals, curves):
    """Site RPO against the remote-replication interval, with the keeps-up boundary.

    Parameters
    ----------
    p : Plan
        The current plan; its replication target and site RPO are marked.
    intervals : array_like
        Replication targets swept (``replication.interval``), ascending. [s]
    curves : dict of str to ndarray
        ``sweep(p.scenario, "replication.interval", intervals, ...)`` with
        ``rpo_site``, ``rpo_site_expected`` and ``replication_keeps_up``. [s]

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure (``data`` and ``layout``).

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
    current = jsonable(p.scenario.replication.interval / scale)
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
    shapes, notes = _keeps_up_marks(_first_true(x, keeps), x, xs, scale, "site RPO", left=current)
    _mark_current(current, p.rpo_site, scale, "duration", data, shapes, notes)
    title = f"Site RPO vs replication interval: <b>{format_quantity(p.rpo_site, 'duration')}</b> now"
    layout = _layout(title, f"replication target interval [{unit}]", f"RPO [{unit}]",
                     shapes=shapes, annotations=notes)
    layout["xaxis"].update(type="log", range=_log_x(xs, current))
    layout["yaxis"].update(type="log", range=_log_range(worst / scale, expected / scale, [p.rpo_local / scale]))
    return {"data": data, "layout": layout}


rpo_figure = _as_figure(rpo_spec)


def rpo_link_spec(p, bandwidths, curves):
    """Worst-case site RPO against the cross-site link, ending where replication stops keeping up.

    Parameters
    ----------
    p : Plan
        The current plan; its link, site RPO and ``replication_bandwidth_needed`` are marked.
    bandwidths : array_like
        Link line rates swept (``replication.link_bandwidth``), ascending. [B/s]
    curves : dict of str to ndarray
        ``sweep(p.scenario, "replication.link_bandwidth", bandwidths, ["rpo_site"])``. [s]

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure: x in Gbit/s on a log axis, y in hours. Below the bandwidth
        replication needs the site RPO has no bound: the curve ends there, and a dashed line
        marks that bandwidth.

    Examples
    --------
    >>> import numpy as np, drmath
    >>> from drmath.units import Gbit_per_s
    >>> p = drmath.plan()
    >>> x = np.geomspace(1, 400, 50) * Gbit_per_s
    >>> spec = rpo_link_spec(p, x, drmath.sweep(p.scenario, "replication.link_bandwidth", x, ["rpo_site"]))
    >>> line = next(s for s in spec["layout"]["shapes"] if s["type"] == "line")
    >>> round(line["x0"], 2), spec["data"][0]["y"][0]
    (13.61, None)
    """
    x = np.asarray(bandwidths, dtype=float)
    worst = np.asarray(curves["rpo_site"], dtype=float)
    xs = jsonable(x / Gbit_per_s)
    needed = p.replication_bandwidth_needed
    data = [{"type": "scatter", "mode": "lines", "name": "site RPO, worst", "x": xs, "y": jsonable(worst / hour),
             "line": {"color": BLUE, "width": 2.5},
             "hovertemplate": "link %{x:.3g} Gbit/s<br>worst %{y:.3g} h<extra></extra>"}]
    cx = jsonable(p.scenario.replication.link_bandwidth / Gbit_per_s)
    shapes, notes = _keeps_up_marks(needed if needed <= x[-1] else None, x, xs, Gbit_per_s, "site RPO", left=cx)
    _mark_current(cx, p.rpo_site, hour, "duration", data, shapes, notes)
    keeps = f"keeps up above {line_rate(needed)}" if math.isfinite(needed) else "no link keeps up"
    title = f"Site RPO vs cross-site link: <b>{format_quantity(p.rpo_site, 'duration')}</b> now; {keeps}"
    layout = _layout(title, "cross-site link [Gbit/s]", "site RPO, worst case [h]", shapes=shapes,
                     annotations=notes, showlegend=False)
    layout["xaxis"].update(type="log", range=_log_x(xs, cx))
    layout["yaxis"]["range"] = [0, _top(worst / hour, p.rpo_site / hour)]
    return {"data": data, "layout": layout}


rpo_link_figure = _as_figure(rpo_link_spec)


# --------------------------------------------------------------------------- time to train


def time_mfu_spec(p, mfus, curves):
    """Time to train against MFU, the current MFU marked.

    Parameters
    ----------
    p : Plan
        The current plan; its MFU and time to train are marked.
    mfus : array_like
        Model FLOPs utilisations swept (``training.mfu``), ascending. [1]
    curves : dict of str to ndarray
        ``sweep(p.scenario, "training.mfu", mfus, ["time_to_train"])``. [s]

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure: MFU in percent, time in days. When the scenario fixes the
        window rather than the tokens, MFU moves the tokens and not the time; a note says so.

    Examples
    --------
    >>> import numpy as np, drmath
    >>> window = drmath.plan()  # the tokens that fit in three months at 40% MFU, now held fixed
    >>> p = drmath.plan(window.scenario.with_changes({"training.tokens": window.tokens}))
    >>> x = np.linspace(0.2, 0.6, 5)
    >>> spec = time_mfu_spec(p, x, drmath.sweep(p.scenario, "training.mfu", x, ["time_to_train"]))
    >>> [round(y) for y in spec["data"][0]["y"]]
    [180, 120, 90, 72, 60]
    """
    x = np.asarray(mfus, dtype=float)
    time = np.asarray(curves["time_to_train"], dtype=float)
    mfu = p.scenario.training.mfu
    data = [{"type": "scatter", "mode": "lines", "name": "time to train", "x": jsonable(100 * x),
             "y": jsonable(time / day), "line": {"color": BLUE, "width": 2.5},
             "hovertemplate": "MFU %{x:.3g}%<br>%{y:.3g} days<extra></extra>"},
            _current(jsonable(100 * mfu), jsonable(p.time_to_train / day),
                     f"{p.format('time_to_train')} at {format_quantity(mfu, 'fraction')}")]
    notes = []
    if p.run_driver == "window":
        notes.append({"x": 0.5, "y": 0.2, "xref": "paper", "yref": "paper", "showarrow": False,
                      "text": "the window sets the run: MFU moves the tokens, not the time",
                      "font": {"size": 11, "color": MUTED}})
    title = f"Time to train vs MFU: <b>{p.format('time_to_train')}</b> at {format_quantity(mfu, 'fraction')}"
    layout = _layout(title, "MFU [%]", "time to train [days]", showlegend=False, annotations=notes)
    layout["yaxis"]["range"] = [0, _top(time / day, p.time_to_train / day)]
    return {"data": data, "layout": layout}


time_mfu_figure = _as_figure(time_mfu_spec)


# --------------------------------------------------------------------------- ETTR


def ettr_spec(p, intervals, curves):
    """ETTR against the checkpoint interval, with the Young and Daly optima marked.

    The ETTR axis starts below the lowest ETTR within ten times the largest of the
    optimum, the current interval and the persist floor: far longer intervals, where
    ETTR falls away, leave the axis and keep the optimum readable.

    Parameters
    ----------
    p : Plan
        The current plan: its interval, floor and optima are marked.
    intervals : array_like
        Checkpoint intervals swept (``checkpoint.interval``), ascending. [s]
    curves : dict of str to ndarray
        ``sweep(p.scenario, "checkpoint.interval", intervals, ["ettr"])``. [1]

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure.

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
        _current(jsonable(p.checkpoint_interval / scale), jsonable(100 * p.ettr),
                 f"{format_quantity(p.ettr, 'fraction')} at {format_quantity(p.checkpoint_interval, 'duration')}"),
    ]
    young, daly = jsonable(p.young_interval / scale), jsonable(p.daly_interval / scale)
    shapes = [_vline(young, GREEN, "dot"), _vline(daly, PURPLE, "dash")]
    notes = [_note(young, "Young ", GREEN, y=0.02, yanchor="bottom", xanchor="right"),
             _note(daly, " Daly", PURPLE, y=0.12, yanchor="bottom", xanchor="left")]
    floor = p.checkpoint_interval_floor
    if floor > x[0]:
        shapes.append(_bad_region(xs[0], jsonable(floor / scale)))
        notes.append(_note(xs[0], "below the<br>persist floor", RED, y=0.5, yanchor="middle"))
    near = x <= 10 * max(p.daly_interval, p.checkpoint_interval, floor)
    finite = ettr[np.isfinite(ettr) & near]
    finite = finite if finite.size else ettr[np.isfinite(ettr)]
    low = float(np.clip(math.floor((finite.min() * 100 - 1) / 5) * 5, 0, 95)) if finite.size else 0.0
    title = f"ETTR vs checkpoint interval: <b>{format_quantity(p.ettr, 'fraction')}</b> now"
    layout = _layout(title, f"checkpoint interval [{unit}]", "ETTR [%]", shapes=shapes, annotations=notes,
                     showlegend=False)
    layout["xaxis"].update(type="log", range=_log_x(xs))
    layout["yaxis"]["range"] = [low, 100.5]
    return {"data": data, "layout": layout}


ettr_figure = _as_figure(ettr_spec)


# --------------------------------------------------------------------------- site RTO


def rto_spec(p):
    """The site-RTO phases of the current tier as a waterfall (floating bars, then the total).

    Parameters
    ----------
    p : Plan
        The current plan; uses ``rto_site_phases`` and ``rto_site``.

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure: bar traces only, so the small plotly.js bundle draws it.

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


rto_figure = _as_figure(rto_spec)


def standby_spec(p, fractions, curves):
    """Expected schedule slip and standby cost against the standby's size, the current size marked.

    Parameters
    ----------
    p : Plan
        The current plan; its standby fraction, slip and standby cost are marked.
    fractions : array_like
        Standby sizes over the primary's swept (``failover.standby_fraction``), ascending. [1]
    curves : dict of str to ndarray
        ``sweep(p.scenario, "failover.standby_fraction", fractions, ["schedule_slip", "standby_cost"])``:
        the slip [s] and the standby's cost over the run [USD].

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure: size in percent, slip in days on the left axis, cost on the
        right axis in the unit of :func:`drmath.formatting.money_unit`.

    Examples
    --------
    >>> import numpy as np, drmath
    >>> p = drmath.plan()
    >>> x = np.linspace(0.25, 1.0, 4)
    >>> spec = standby_spec(p, x, drmath.sweep(p.scenario, "failover.standby_fraction", x,
    ...                                        ["schedule_slip", "standby_cost"]))
    >>> [round(y) for y in spec["data"][0]["y"]], spec["layout"]["yaxis2"]["title"]["text"]
    ([16, 10, 5, 0], 'standby cost [$M]')
    """
    x = jsonable(100 * np.asarray(fractions, dtype=float))
    slip = np.asarray(curves["schedule_slip"], dtype=float)
    cost = np.asarray(curves["standby_cost"], dtype=float)
    scale, suffix = money_unit(cost)
    size = jsonable(100 * p.standby_fraction)
    data = [
        {"type": "scatter", "mode": "lines", "name": "expected slip", "x": x, "y": jsonable(slip / day),
         "line": {"color": BLUE, "width": 2.5},
         "hovertemplate": "standby %{x:.3g}%<br>slip %{y:.3g} days<extra></extra>"},
        {"type": "scatter", "mode": "lines", "name": "standby cost", "x": x, "y": jsonable(cost / scale),
         "yaxis": "y2", "line": {"color": GREEN, "width": 2.5},
         "hovertemplate": f"standby %{{x:.3g}}%<br>cost $%{{y:.3g}}{suffix}<extra></extra>"},
        _current(size, jsonable(p.schedule_slip / day), p.format("schedule_slip")),
        dict(_current(size, jsonable(p.standby_cost / scale), p.format("standby_cost")), yaxis="y2",
             showlegend=False),
    ]
    title = (f"Standby at {format_quantity(p.standby_fraction, 'fraction')} of the primary: slip "
             f"<b>{p.format('schedule_slip')}</b>, cost <b>{p.format('standby_cost')}</b>")
    layout = _layout(title, "standby size [% of the primary]", "expected slip [days]")
    layout["margin"]["r"] = 64
    layout["yaxis"]["range"] = [0, _top(slip / day, p.schedule_slip / day)]
    layout["yaxis2"] = dict(_axis(f"standby cost [${suffix}]"), overlaying="y", side="right", showgrid=False,
                            tickmode="auto", range=[0, _top(cost / scale, p.standby_cost / scale)])
    return {"data": data, "layout": layout}


standby_figure = _as_figure(standby_spec)


# --------------------------------------------------------------------------- cost


_TITLE_TOP = 28
"""Pixels above a two-line title: the band plotly's modebar takes at the top right, so it never covers the title
on a phone (a 300 px figure leaves the title no room beside it)."""


def _two_line_title(head, detail):
    """A title in two short lines below the modebar's band: a heading, then the numbers in a smaller font.

    Its place is in pixels from the top, whatever the figure's height (the report's slider makes it taller):
    plotly lifts a title of two lines by about a line, 28 px, so the padding is that more than the band.
    """
    return {"text": f"{head}<br><span style='font-size:12px'>{detail}</span>", "x": 0.01, "xanchor": "left",
            "xref": "container", "y": 1.0, "yanchor": "top", "yref": "container", "pad": {"t": _TITLE_TOP + 16},
            "font": {"size": 14, "color": INK}}


def _bottom_legend():
    """A horizontal legend at the foot of the figure, two entries a row: plotly wraps a legend to the plot's
    width, a phone's 190 px, where four entries in a row would stack one a row over the tick labels."""
    return {"orientation": "h", "x": 0, "xanchor": "left", "xref": "container", "y": 0, "yanchor": "bottom",
            "yref": "container", "bgcolor": "rgba(0,0,0,0)", "font": {"size": 11}, "itemwidth": 30,
            "entrywidth": 0.5, "entrywidthmode": "fraction", "traceorder": "normal"}


_DURATION_TICKS = ((1.0, 10.0, minute, 10 * minute, hour, day, week, 30 * day, year),
                   (1.0, minute, hour, day, 30 * day, year))
"""Where a log axis of durations is labelled, in whatever unit reads best at each (``10 min``, ``1 h``,
``1 day``): the first set on an axis of up to 4.5 decades, the second, sparser, on a longer one."""


def _duration_axis(log_range, scale):
    """Tick values (in the axis unit, seconds / scale) and labels for a log duration axis over ``log_range``:
    the :data:`_DURATION_TICKS` inside it, each at least 0.7 decades after the last (labels that fit 300 px)."""
    lo, hi = log_range
    inside = []
    for tick in _DURATION_TICKS[hi - lo > 4.5]:
        at = math.log10(tick / scale)
        if lo <= at <= hi and (not inside or at - math.log10(inside[-1] / scale) >= 0.7):
            inside.append(tick)
    return {"type": "log", "range": log_range, "tickmode": "array", "tickvals": jsonable(np.array(inside) / scale),
            "ticktext": [short_duration(t) for t in inside]}


_TIER_PARTS = (("standby", "tier_standby_costs", BLUE, "standby"),
               ("links", "tier_link_costs", GREEN, "replication + cross-site links"),
               ("loss", "tier_disaster_losses", PURPLE, "expected disaster loss"))
"""The parts of a tier's total expected DR cost, stacked: (legend name, plan output, colour, hover name).
Legend names are a word each: a phone's legend has about 50 px of text per entry."""


def cost_tier_spec(p):
    """Every DR tier's expected DR cost, its parts stacked, beside its site RTO; the current tier highlighted.

    Parameters
    ----------
    p : Plan
        The current plan; uses ``tier_standby_costs``, ``tier_link_costs`` (replication + cross-site links),
        ``tier_disaster_losses``, ``tier_total_costs`` and ``tier_rto_sites`` (:meth:`~drmath.Plan.tier_table`).

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure of five traces, always in this order: the three cost parts as stacked
        bars (left axis, in the unit of :func:`drmath.formatting.money_unit`), each tier's total written
        on top, and the site RTO of each tier as markers on a log-scaled right axis (values in the unit
        of :func:`drmath.formatting.duration_unit`, ticks labelled ``10 min``, ``1 h``, ``1 day``). The
        current tier's column is shaded and its name and total bold. A part without a bound (replication
        does not keep up) is left out, its total written "∞" (and "no bound" in the hover), with a note.

    Examples
    --------
    >>> import drmath
    >>> p = drmath.plan()
    >>> spec = cost_tier_spec(p)
    >>> [t["name"] for t in spec["data"]]
    ['standby', 'links', 'loss', 'total', 'site RTO']
    >>> spec["data"][3]["text"][2], spec["data"][4]["hovertext"][2]
    ('<b>$21.5M</b>', 'site RTO 1.67 h')
    """
    names = list(p.tier_total_costs)
    current = p.scenario.failover.tier
    parts = {key: np.array([getattr(p, key)[n] for n in names], dtype=float) for _, key, _, _ in _TIER_PARTS}
    totals = np.array([p.tier_total_costs[n] for n in names], dtype=float)
    rto = np.array([p.tier_rto_sites[n] for n in names], dtype=float)
    finite_parts = sum(np.where(np.isfinite(v), v, 0.0) for v in parts.values())
    tops = np.where(np.isfinite(totals), totals, finite_parts)  # where each column's label sits
    scale, suffix = money_unit(tops)
    bold = [f"<b>{n}</b>" if n == current else n for n in names]
    data = [{"type": "bar", "name": name, "x": names, "y": jsonable(parts[key] / scale), "marker": {"color": colour},
             "customdata": [format_quantity(v, "usd") for v in parts[key]],
             "hovertemplate": f"{hover} %{{customdata}}<extra></extra>"}
            for name, key, colour, hover in _TIER_PARTS]
    # text and an unseen marker: in the unified hover a text-only trace's key reads "Aa"
    data.append({"type": "scatter", "mode": "markers+text", "name": "total", "x": names, "y": jsonable(tops / scale),
                 "marker": {"color": "rgba(0,0,0,0)", "size": 1},
                 "text": [(f"<b>{money(c, 2)}</b>" if n == current else money(c, 2)) if math.isfinite(c) else
                          f"<span style='color:{RED}'>∞</span>" for n, c in zip(names, totals)],
                 "textposition": "top center", "textfont": {"size": 10, "color": INK}, "cliponaxis": False,
                 "showlegend": False,
                 "hovertext": [f"<b>total {format_quantity(c, 'usd')}</b> ({presets.DR_TIERS[n].label})"
                               for n, c in zip(names, totals)],
                 "hovertemplate": "%{hovertext}<extra></extra>"})
    rto_scale, _ = duration_unit(np.median(rto[np.isfinite(rto)]) if np.isfinite(rto).any() else 0.0)
    data.append({"type": "scatter", "mode": "lines+markers", "name": "site RTO", "x": names,
                 "y": jsonable(rto / rto_scale), "yaxis": "y2",
                 "line": {"color": TEAL, "width": 1.5, "dash": "dot"},
                 "marker": {"color": TEAL, "size": 9, "symbol": "diamond", "line": {"color": "white", "width": 1}},
                 "hovertext": [f"site RTO {format_quantity(r, 'duration')}" for r in rto],
                 "hovertemplate": "%{hovertext}<extra></extra>"})
    title = _two_line_title("DR cost and site RTO by tier",
                            f"{current}: <b>{format_quantity(p.total_dr_cost, 'usd')}</b>, "
                            f"RTO <b>{format_quantity(p.rto_site, 'duration')}</b>")
    i = names.index(current)
    shapes = [{"type": "rect", "xref": "x", "yref": "paper", "x0": i - 0.5, "x1": i + 0.5, "y0": 0, "y1": 1,
               "fillcolor": rgba(ORANGE, 0.12), "line": {"width": 0}, "layer": "below"}]
    notes = []
    if not np.isfinite(totals).all():
        notes.append({"x": 0.5, "y": 1.0, "xref": "paper", "yref": "paper", "xanchor": "center", "yanchor": "top",
                      "showarrow": False, "font": {"size": 11, "color": RED}, "bgcolor": "rgba(255,255,255,0.8)",
                      "text": "replication does not keep up:<br>the expected loss has no bound"})
    layout = _layout("", "", f"expected cost [${suffix}]", height=340, barmode="stack", bargap=0.3,
                     hovermode="x unified", legend=_bottom_legend(), shapes=shapes, annotations=notes,
                     margin={"l": 56, "r": 56, "t": _TITLE_TOP + 52, "b": 84})
    layout["title"] = title
    layout["xaxis"].update(tickmode="array", tickvals=names, ticktext=[b.replace("-", "-<br>") for b in bold],
                           tickangle=0)
    headroom = 1.0 if np.isfinite(totals).all() else 1.35  # the note stands above the tallest column
    layout["yaxis"]["range"] = [0, _nice_top(headroom * tops[np.isfinite(tops)].max(initial=0.0) / scale)]
    layout["yaxis2"] = dict(_axis("site RTO"), overlaying="y", side="right", showgrid=False,
                            **_duration_axis(_log_range(rto / rto_scale, step=1.0), rto_scale))
    layout["yaxis2"]["title"]["font"] = {"color": TEAL}
    return {"data": data, "layout": layout}


cost_tier_figure = _as_figure(cost_tier_spec)


_COST_PARTS = (("total", "total_dr_cost", ORANGE, 3, "solid"),
               ("standby", "standby_cost", BLUE, 1.5, "dot"),
               ("replication", "replication_cost", GREEN, 1.5, "dot"),
               ("expected disaster loss", "expected_disaster_loss", PURPLE, 1.5, "dot"))


def cost_link_spec(p, bandwidths, curves):
    """Total expected DR cost and its parts against link bandwidth.

    Parameters
    ----------
    p : Plan
        The current plan; its link and total cost are marked.
    bandwidths : array_like
        Link line rates swept (``replication.link_bandwidth``), ascending. [B/s]
    curves : dict of str to ndarray
        The sweep, with ``total_dr_cost``, ``standby_cost``, ``replication_cost``,
        ``expected_disaster_loss`` and ``replication_keeps_up``. [USD]

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure (x in Gbit/s, y in the unit of :func:`drmath.formatting.money_unit`).

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
    scale, suffix = money_unit(curves["total_dr_cost"])
    data = [{"type": "scatter", "mode": "lines", "name": name, "x": xs,
             "y": jsonable(np.asarray(curves[key], dtype=float) / scale),
             "line": {"color": color, "width": width, "dash": dash},
             "hovertemplate": f"%{{x:.3g}} Gbit/s<br>{name} $%{{y:.3g}}{suffix}<extra></extra>"}
            for name, key, color, width, dash in _COST_PARTS]
    cx = jsonable(p.scenario.replication.link_bandwidth / Gbit_per_s)
    shapes, notes = _keeps_up_marks(_first_true(x, keeps), x, xs, Gbit_per_s, "cost", left=cx)
    _mark_current(cx, p.total_dr_cost, scale, "usd", data, shapes, notes)
    title = f"Total expected DR cost vs link bandwidth: <b>{format_quantity(p.total_dr_cost, 'usd')}</b> now"
    layout = _layout(title, "link line rate [Gbit/s]", f"cost [${suffix}]", shapes=shapes, annotations=notes)
    layout["xaxis"].update(type="log", range=_log_x(xs, cx))
    layout["yaxis"].update(type="log", range=_log_range(*(np.asarray(curves[k], dtype=float) / scale
                                                          for _, k, _, _, _ in _COST_PARTS)))
    return {"data": data, "layout": layout}


cost_link_figure = _as_figure(cost_link_spec)


# --------------------------------------------------------------------------- the solver's front


_TIER_COLOURS = {"cold": BLUE, "pilot-light": TEAL, "warm": GREEN, "hot": PURPLE, "multi-site": PINK}
"""One colour per DR tier on the Pareto front (orange is the chosen design's, red the infeasible side's)."""


def _design_hover(row):
    """One searched design in words: its tier, cost, RPO and RTO, and its levers in the units they are set in."""
    tier = row["failover.tier"]
    ckpt, standby = row["checkpoint.interval"], row["failover.standby_fraction"]
    ckpt = "at the optimum" if np.isnan(ckpt) else f"every {short_duration(ckpt)}"
    standby = presets.DR_TIERS[tier].standby_fraction if np.isnan(standby) else standby
    verdict = "meets every target" if row["meets_requirements"] else "misses a target"
    return (f"<b>{presets.DR_TIERS[tier].label}</b>: {verdict}<br>"
            f"cost of resilience {format_quantity(row['total_cost_of_resilience'], 'usd')} "
            f"(DR {format_quantity(row['total_dr_cost'], 'usd')})<br>"
            f"site RPO {format_quantity(row['rpo_site'], 'duration')}, "
            f"site RTO {format_quantity(row['rto_site'], 'duration')}<br>"
            f"link {format_quantity(row['replication.link_bandwidth'], 'line_rate')}, "
            f"copies every {short_duration(row['replication.interval'])}<br>"
            f"checkpoints {ckpt}, standby {format_quantity(standby, 'fraction')} of the primary")


def _target_marks(target, scale, log_range, axis, label):
    """A target on a log duration axis: its line, the side beyond it shaded, and its label at the line."""
    xref, yref = _refs(axis)
    x = jsonable(target / scale)
    beyond = {"type": "rect", "xref": xref, "yref": yref, "x0": x, "x1": jsonable(10 ** log_range[1]),
              "y0": 0, "y1": 1, "fillcolor": BAD_FILL, "line": {"width": 0}, "layer": "below"}
    return [beyond, _vline(x, RED, axis=axis)], [_note(x, f" {label} ≤ {short_duration(target)}", RED,
                                                       y=0.98, axis=axis)]


def pareto_spec(solution):
    """The Pareto front of :func:`drmath.solve`: cost against site RPO and against site RTO, the design marked.

    Parameters
    ----------
    solution : drmath.Solution
        What :func:`drmath.solve` returned: its ``front`` (cheapest first, SI), its ``plan`` (the chosen
        design, or the closest one when nothing meets every target), ``feasible`` and ``scenario`` (whose
        ``requirements`` give the targets).

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure of two stacked panels, total cost of resilience (the solver's
        objective, in the unit of :func:`drmath.formatting.money_unit`) against site RPO (top) and
        against site RTO (bottom), both log-scaled durations. Each tier is one colour; a design that
        meets every target is a filled dot, one that misses an open circle; the hover gives its levers
        (link in Gbit/s, cadences in minutes or hours). The chosen design is a star, labelled the closest
        when no design meets every target. A set ``requirements.rpo_site`` or ``requirements.rto_site``
        is a red line with the side that misses it shaded.

    Examples
    --------
    >>> import drmath
    >>> s = drmath.Scenario().with_changes({"requirements.rpo_site": 900.0, "requirements.rto_site": 14_400.0})
    >>> spec = pareto_spec(drmath.solve(s))
    >>> chosen = [t for t in spec["data"] if t["name"] == "chosen"]
    >>> [t["xaxis"] for t in chosen], chosen[0]["hovertext"][0].split("<br>")[1]
    (['x', 'x2'], '<b>Multi-site (active-active)</b>: meets every target')
    >>> [a["text"] for a in spec["layout"]["annotations"] if "≤" in a["text"]]
    [' site RPO ≤ 15 min', ' site RTO ≤ 4 h']
    """
    front, p = solution.front, solution.plan
    requirements = solution.scenario.requirements
    cost = front["total_cost_of_resilience"].to_numpy(dtype=float)
    rpo, rto = (front[k].to_numpy(dtype=float) for k in ("rpo_site", "rto_site"))
    scale, suffix = money_unit(np.append(cost, p.total_cost_of_resilience))
    axes = []  # (axis suffix, front values, chosen value, target, label, unit scale, log range)
    for n, values, chosen, target, label in (("", rpo, p.rpo_site, requirements.rpo_site, "site RPO"),
                                             ("2", rto, p.rto_site, requirements.rto_site, "site RTO")):
        marks = [v for v in (chosen, target) if v is not None]
        finite = np.append(values, marks)
        t_scale, _ = duration_unit(np.median(finite[np.isfinite(finite)]) if np.isfinite(finite).any() else 0.0)
        axes.append((n, values, chosen, target, label, t_scale, _log_range(values / t_scale,
                                                                           np.array(marks, dtype=float) / t_scale)))
    hover = [_design_hover(row) for row in front.to_dict("records")]
    meets = front["meets_requirements"].to_numpy(dtype=bool)
    tiers = front["failover.tier"].to_numpy()
    data = []
    for tier in dict.fromkeys(tiers):
        rows = np.flatnonzero(tiers == tier)
        colour = _TIER_COLOURS.get(tier, GREY)
        for n, values, _, _, _, t_scale, _ in axes:
            data.append({"type": "scatter", "mode": "markers", "name": tier, "legendgroup": tier,
                         "showlegend": n == "", "x": jsonable(values[rows] / t_scale),
                         "y": jsonable(cost[rows] / scale), "xaxis": f"x{n}", "yaxis": f"y{n}",
                         "marker": {"color": colour, "size": 8, "line": {"color": colour, "width": 1.5},
                                    "symbol": ["circle" if m else "circle-open" for m in meets[rows]]},
                         "hovertext": [hover[i] for i in rows], "hovertemplate": "%{hovertext}<extra></extra>"})
    name = "chosen" if solution.feasible else "closest"
    design = {"failover.tier": p.scenario.failover.tier,
              "replication.link_bandwidth": p.scenario.replication.link_bandwidth,
              "replication.interval": p.scenario.replication.interval,
              "checkpoint.interval": p.checkpoint_interval,
              "failover.standby_fraction": p.standby_fraction, "total_cost_of_resilience": p.total_cost_of_resilience,
              "total_dr_cost": p.total_dr_cost, "rpo_site": p.rpo_site, "rto_site": p.rto_site,
              "meets_requirements": solution.feasible}
    layout = _panels(2, 1, ("cost vs site RPO", "cost vs site RTO"), height=560, gap=(0.2, 0))
    shapes, notes = [], []  # the axes' titles name the panels
    for n, _, chosen, target, label, t_scale, log_range in axes:
        data.append({"type": "scatter", "mode": "markers", "name": name, "legendgroup": "chosen",
                     "showlegend": n == "", "x": [jsonable(chosen / t_scale)],
                     "y": [jsonable(p.total_cost_of_resilience / scale)], "xaxis": f"x{n}", "yaxis": f"y{n}",
                     "marker": {"color": ORANGE, "size": 16, "symbol": "star", "line": {"color": INK, "width": 1}},
                     "hovertext": [f"{name} design<br>" + _design_hover(design)],
                     "hovertemplate": "%{hovertext}<extra></extra>"})
        if target is not None:
            s, a = _target_marks(target, t_scale, log_range, n, label)
            shapes += s
            notes += a
        if not math.isfinite(chosen):
            notes.append({"x": 0.5, "y": 0.5, "xref": f"x{n} domain", "yref": f"y{n} domain", "showarrow": False,
                          "text": f"{name} design: {label} has no bound", "font": {"size": 11, "color": RED}})
    if solution.feasible:
        detail = (f"chosen design: <b>{p.scenario.failover.tier}</b>, "
                  f"<b>{format_quantity(p.total_cost_of_resilience, 'usd')}</b>")
    else:
        detail = f"<b>no design meets every target</b>; closest: {p.scenario.failover.tier}"
    layout.update(title=_two_line_title("Cost vs site RPO and RTO", detail), legend=_bottom_legend(),
                  shapes=shapes, annotations=notes, margin={"l": 60, "r": 16, "t": _TITLE_TOP + 52, "b": 84})
    for n, _, _, _, label, t_scale, log_range in axes:
        layout[f"xaxis{n}"].update(title={"text": label, "standoff": 4}, **_duration_axis(log_range, t_scale))
        layout[f"yaxis{n}"]["title"] = {"text": f"cost [${suffix}]"}
    return {"data": data, "layout": layout}


pareto_figure = _as_figure(pareto_spec)


# --------------------------------------------------------------------------- the figure registry


@dataclass(frozen=True, eq=False)
class FigureInfo:
    """One figure of the plan: what it sweeps, how it is drawn, and where it stands.

    Attributes
    ----------
    name : str
        Its name: the dashboard's CSS class ``drmath-figure-<name>``, the report's ``fig-<name>``.
    section : str
        The group of quantities it illustrates, a :data:`drmath.quantities.GROUPS` id: the report
        section it stands in.
    spec : callable
        The builder: ``spec(plan)``, or ``spec(plan, grid, curves)`` when it sweeps.
    path : str or None
        The scenario field swept, ``section.field``; None for a figure of the plan alone.
    grid : ndarray or None
        The values swept, ascending, in the field's SI unit.
    outputs : tuple of str
        The plan outputs swept.
    knob : str or None
        The scenario field the report's slider steps through (a key of :data:`KNOBS`); None for a
        figure the report leaves out.
    caption : str
        What it shows, under it in the report.
    report : bool, default True
        Whether the standalone report shows it (:func:`in_section`). A notebook draws every
        figure with :func:`plan_figure`; the dashboard draws its own five
        (:data:`drmath.dashboard.FIGURES`).
    """

    name: str
    section: str
    spec: Callable
    path: str | None
    grid: np.ndarray | None
    outputs: tuple
    knob: str | None
    caption: str
    report: bool = True


_POINTS = 80  # per curve: smooth on a log axis, and a dashboard redraw stays cheap
FIGURES = {f.name: f for f in (
    FigureInfo("rpo", "rpo", rpo_spec, "replication.interval", np.geomspace(minute, 48 * hour, _POINTS),
               ("rpo_site", "rpo_site_expected", "replication_keeps_up"), "checkpoint.interval",
               "Site RPO against the replication target. Left of the red line replication falls behind and the "
               "site RPO has no bound; the slider changes the checkpoint interval τ (every k-th checkpoint ships, "
               "kτ ≥ target)."),
    FigureInfo("ettr", "cadence", ettr_spec, "checkpoint.interval", np.geomspace(10.0, 12 * hour, _POINTS),
               ("ettr",), "training.gpus",
               "ETTR against the checkpoint interval. More GPUs mean a shorter MTBF, a shorter optimal interval "
               "and a lower ETTR; drag the slider to change the GPU count."),
    FigureInfo("rto", "rto", rto_spec, None, None, (), "failover.tier",
               "Site RTO as a sum of named phases; the slider steps through the DR tiers."),
    FigureInfo("cost_tier", "cost", cost_tier_spec, None, None, (), "replication.link_bandwidth",
               "Total expected DR cost of each tier (standby + replication + expected disaster loss); the slider "
               "changes the link bandwidth."),
    FigureInfo("cost_link", "cost", cost_link_spec, "replication.link_bandwidth",
               np.geomspace(1 * Gbit_per_s, 3200 * Gbit_per_s, _POINTS),
               ("total_dr_cost", "standby_cost", "replication_cost", "expected_disaster_loss",
                "replication_keeps_up"), "failover.tier",
               "Total expected DR cost and its parts against the link's line rate; the slider changes the DR "
               "tier."),
    FigureInfo("rpo_link", "rpo", rpo_link_spec, "replication.link_bandwidth",
               np.geomspace(1 * Gbit_per_s, 400 * Gbit_per_s, _POINTS), ("rpo_site",), "replication.interval",
               "Worst-case site RPO against the cross-site link. Left of the dashed line each copy takes longer "
               "than the replication interval and the site RPO has no bound; the slider changes the replication "
               "target."),
    FigureInfo("time_mfu", "run", time_mfu_spec, "training.mfu", np.linspace(0.2, 0.6, 81), ("time_to_train",),
               None, "Time to train the scenario's tokens against MFU; the dot is the current MFU.", report=False),
    FigureInfo("standby", "rto", standby_spec, "failover.standby_fraction", np.linspace(0.25, 1.0, 61),
               ("schedule_slip", "standby_cost"), "failover.tier",
               "Expected schedule slip after a site loss (left axis) and the standby's cost (right axis) against "
               "the standby's size; the slider steps through the DR tiers, each with its own standby size."),
)}
"""Every figure of the plan, by name: the dashboard's five first, in its order, then the
notebooks'. The grids: replication target 1 min to 2 days (the dashboard's slider goes to
1 day), checkpoint interval 10 s to 12 h (the slider's range; the optimum of 1k to 131k GPUs
lies between 13 s and 30 min), link 1 to 3,200 Gbit/s (the slider's range), 80 points each,
log-spaced; link 1 to 400 Gbit/s for the RPO (the ports sold, 1 to 400G), MFU 20% to 60% and
the standby's size 25% to 100%, evenly spaced. The time to train against MFU is left out of the
report: a scenario that fixes the window (the default) draws a flat line there."""

KNOBS = {
    "training.gpus": ("GPUs", [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072]),
    "checkpoint.interval": ("checkpoint interval",
                            [m * minute for m in (1, 2, 5, 10, 20, 30)] + [h * hour for h in (1, 2, 4)]),
    "replication.link_bandwidth": ("link", [g * Gbit_per_s for g in (1, 5, 10, 25, 50, 100, 200, 400, 800, 1600)]),
    "replication.interval": ("replication target",
                             [m * minute for m in (15, 30)] + [h * hour for h in (1, 2, 4, 8, 24)]),
    "failover.tier": ("DR tier", list(presets.DR_TIERS)),
}
"""The report's slider knobs: field -> (label, values); the scenario's own value is always added."""


def _info(name):
    try:
        return FIGURES[name]
    except KeyError:
        raise ValueError(f"unknown figure {name!r}: choose from {', '.join(FIGURES)}") from None


def figure_spec(name, p):
    """One registered figure for a plan, its curves swept with :func:`drmath.sweep`.

    Parameters
    ----------
    name : str
        A key of :data:`FIGURES`.
    p : Plan
        The plan to draw.

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure.

    Raises
    ------
    ValueError
        If the figure is unknown.

    Examples
    --------
    >>> import drmath
    >>> spec = figure_spec("ettr", drmath.plan())
    >>> len(spec["data"][0]["x"]) == len(FIGURES["ettr"].grid)
    True
    """
    info = _info(name)
    if info.path is None:
        return info.spec(p)
    return info.spec(p, info.grid, sweep(p.scenario, info.path, info.grid, list(info.outputs)))


def figure_specs(p, names=None):
    """Several registered figures for one plan.

    Parameters
    ----------
    p : Plan
        The plan to draw.
    names : sequence of str, optional
        Keys of :data:`FIGURES`; all of them when omitted.

    Returns
    -------
    specs : dict of str to dict
        ``{name: JSON-ready plotly figure}``, in the order asked.

    Examples
    --------
    >>> import drmath
    >>> list(figure_specs(drmath.plan(), ["rto", "cost_tier"]))
    ['rto', 'cost_tier']
    """
    return {name: figure_spec(name, p) for name in (FIGURES if names is None else names)}


plan_figure = _as_figure(figure_spec, "plan_figure")  # a registered figure for a notebook


def in_section(section):
    """The figures the report shows in one section, in order.

    Parameters
    ----------
    section : str
        A :data:`drmath.quantities.GROUPS` id.

    Returns
    -------
    names : list of str
        Keys of :data:`FIGURES` with this section and :attr:`FigureInfo.report` set.

    Examples
    --------
    >>> in_section("rpo"), in_section("run")
    (['rpo', 'rpo_link'], [])
    """
    return [name for name, info in FIGURES.items() if info.section == section and info.report]


# --------------------------------------------------------------------------- figures with slider steps


def _knob_label(path, value):
    if path == "replication.link_bandwidth":
        return line_rate(value)
    if path == "training.gpus":
        return f"{int(value):,}"
    if FIELDS[path].kind == "duration":
        return short_duration(value, 2)
    return str(value)


_DERIVED = {"checkpoint.interval": "checkpoint_interval", "failover.standby_fraction": "standby_fraction"}
"""The plan output that an optional input's unset value resolves to."""


def _knob_steps(scenario, p, path):
    """(labels, scenario per step, index of the current step) for one knob."""
    _, values = KNOBS[path]
    current = scenario.get(path)
    info = FIELDS[path]
    if info.choices is not None:
        return values, [scenario.with_changes({path: v}) for v in values], values.index(current)
    values = [v for v in values if info.low <= v <= info.high]
    if current is None:  # an optional input left unset: the plan's value is the step, labelled optimal
        points = [(v, v) for v in values] + [(getattr(p, _DERIVED[path]), None)]
    else:
        points = [(v, v) for v in values if not math.isclose(v, current)] + [(current, current)]
    points.sort(key=lambda t: t[0])
    labels = [("optimal " if value is None else "") + _knob_label(path, shown) for shown, value in points]
    scenarios = [scenario if value is None else scenario.with_changes({path: value}) for _, value in points]
    return labels, scenarios, [value for _, value in points].index(current)


_RESTYLE = ("x", "y", "base", "text", "name", "marker", "line", "customdata", "hovertemplate", "mode",
            "showlegend", "visible", "hoverinfo")


def _slider_spec(specs, labels, active, knob):
    """One figure whose slider steps restyle and relayout it to each precomputed spec."""
    n = max(len(s["data"]) for s in specs)

    def padded(spec):
        data = [dict(t, visible=True) for t in spec["data"]]
        data += [{"type": "scatter", "mode": "markers", "x": [], "y": [], "name": "", "visible": False,
                  "showlegend": False, "hoverinfo": "skip"} for _ in range(n - len(data))]
        return data

    steps = []
    for spec, label in zip(specs, labels):
        data, lay = padded(spec), spec["layout"]
        restyle = {k: [t.get(k) for t in data] for k in _RESTYLE}
        relayout = {"title.text": lay["title"]["text"], "shapes": lay.get("shapes", []),
                    "annotations": lay.get("annotations", [])}
        for axis in [k for k in lay if k.startswith(("xaxis", "yaxis"))]:
            relayout[f"{axis}.title.text"] = lay[axis]["title"]["text"]
            if "range" in lay[axis]:
                relayout[f"{axis}.range"] = lay[axis]["range"]
            else:
                relayout[f"{axis}.autorange"] = True
        steps.append({"label": label, "method": "update", "args": [restyle, relayout]})
    base = specs[active]
    layout = dict(base["layout"])
    layout["height"] = layout.get("height", 300) + 90
    layout["margin"] = dict(layout.get("margin", {}), b=130)
    layout["sliders"] = [{"active": active, "steps": steps, "x": 0.0, "len": 1.0, "y": 0, "yanchor": "top",
                          "pad": {"t": 58, "b": 0}, "currentvalue": {"prefix": f"{knob}: ", "font": {"size": 12}},
                          "font": {"size": 10}}]
    return {"data": padded(base), "layout": layout}


def slider_figures(scenario, progress=None, names=None):
    """The registered figures, each with its knob precomputed as slider steps (the standalone report's).

    Parameters
    ----------
    scenario : Scenario
        The inputs.
    progress : callable, optional
        Called with a short message before each figure.
    names : sequence of str, optional
        Keys of :data:`FIGURES`; those the report shows (:attr:`FigureInfo.report`) when omitted.

    Returns
    -------
    figures : dict of str to dict
        ``{name: JSON-ready plotly spec}`` with a slider [1]_ over the figure's knob
        (:attr:`FigureInfo.knob`, values from :data:`KNOBS`); each step's numbers come from
        :func:`~drmath.plan` and :func:`~drmath.sweep`.

    Raises
    ------
    ValueError
        If a figure is unknown, or has no knob (the report leaves it out).

    References
    ----------
    .. [1] plotly.js, "Sliders", https://plotly.com/javascript/sliders/ (the ``update`` method).

    Examples
    --------
    >>> import drmath
    >>> figs = slider_figures(drmath.Scenario(), names=["rto"])
    >>> slider = figs["rto"]["layout"]["sliders"][0]
    >>> [s["label"] for s in slider["steps"]][slider["active"]]
    'warm'
    """
    p = plan(scenario)
    plans = {scenario: p}
    figures = {}
    for name in [n for n, info in FIGURES.items() if info.report] if names is None else names:
        knob = _info(name).knob
        if knob is None:
            raise ValueError(f"figure {name!r} has no slider knob: the report leaves it out")
        if progress:
            progress(f"figure {name}: {KNOBS[knob][0]} steps")
        labels, scenarios, active = _knob_steps(scenario, p, knob)
        specs = []
        for s in scenarios:
            if s not in plans:
                plans[s] = plan(s)
            specs.append(figure_spec(name, plans[s]))
        figures[name] = _slider_spec(specs, labels, active, KNOBS[knob][0])
    return figures


# --------------------------------------------------------------------------- plans side by side


def compare_spec(plans, names):
    """Several plans' curves overlaid: ETTR, site RPO and total DR cost, one colour per plan.

    Parameters
    ----------
    plans : sequence of Plan
        Two to four plans.
    names : sequence of str
        A legend name per plan.

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure of three stacked panels: ETTR against the checkpoint
        interval, site RPO (worst) against the replication target, total expected DR cost
        against the link's line rate, on the grids of :data:`FIGURES`; each plan's current
        point is marked.

    Raises
    ------
    ValueError
        If there are fewer than two or more than four plans, or not one name per plan.

    Examples
    --------
    >>> import drmath
    >>> plans = [drmath.plan(drmath.Scenario().with_changes({"failover.tier": t})) for t in ("cold", "hot")]
    >>> spec = compare_spec(plans, ["cold", "hot"])
    >>> len(spec["data"]), spec["layout"]["yaxis"]["title"]["text"]
    (12, 'ETTR [%]')
    """
    plans, names = list(plans), [str(n) for n in names]
    if not 2 <= len(plans) <= len(SERIES):
        raise ValueError(f"compare needs 2 to {len(SERIES)} scenarios, got {len(plans)}")
    if len(names) != len(plans):
        raise ValueError(f"compare needs one name per scenario: {len(plans)} scenarios, {len(names)} names")
    ettr, rpo, link = FIGURES["ettr"], FIGURES["rpo"], FIGURES["cost_link"]
    curves = [(sweep(p.scenario, ettr.path, ettr.grid, ["ettr"])["ettr"],
               sweep(p.scenario, rpo.path, rpo.grid, ["rpo_site"])["rpo_site"],
               sweep(p.scenario, link.path, link.grid, ["total_dr_cost"])["total_dr_cost"]) for p in plans]
    c_scale, c_unit = duration_unit(np.median(ettr.grid))
    r_scale, r_unit = duration_unit(np.median(rpo.grid))
    m_scale, m_suffix = money_unit([c[2] for c in curves])
    layout = _panels(3, 1, ("ETTR vs checkpoint interval", "Site RPO (worst) vs replication target",
                            "Total expected DR cost vs link bandwidth"), height=900, gap=(0.1, 0))
    layout["legend"]["y"] = 1.04
    layout["margin"]["t"] = 80
    data = []
    for i, (p, name, (e, r, c)) in enumerate(zip(plans, names, curves)):
        s = p.scenario
        panels = [
            ("", ettr.grid / c_scale, 100 * e, p.checkpoint_interval / c_scale, 100 * p.ettr),
            ("2", rpo.grid / r_scale, r / r_scale, s.replication.interval / r_scale, p.rpo_site / r_scale),
            ("3", link.grid / Gbit_per_s, c / m_scale, s.replication.link_bandwidth / Gbit_per_s,
             p.total_dr_cost / m_scale),
        ]
        for axis, x, y, cx, cy in panels:
            refs = {"xaxis": f"x{axis}", "yaxis": f"y{axis}", "legendgroup": str(i)}
            data.append(dict(refs, type="scatter", mode="lines", name=name, x=jsonable(x), y=jsonable(y),
                             showlegend=axis == "", line={"color": SERIES[i], "width": 2.2}))
            data.append(dict(refs, type="scatter", mode="markers", name=f"{name} (current)", x=[jsonable(cx)],
                             y=[jsonable(cy)], showlegend=False,
                             marker={"color": SERIES[i], "size": 11, "line": {"color": "white", "width": 1.5}}))
    titles = [(f"checkpoint interval [{c_unit}]", "ETTR [%]"), (f"replication target [{r_unit}]",
                                                                  f"site RPO [{r_unit}]"),
              ("link line rate [Gbit/s]", f"cost [${m_suffix}]")]
    for n, (xtitle, ytitle) in zip(("", "2", "3"), titles):
        layout[f"xaxis{n}"].update(type="log", title={"text": xtitle})
        layout[f"yaxis{n}"].update(title={"text": ytitle}, type="linear" if n == "" else "log")
    return {"data": data, "layout": layout}


compare_figure = _as_figure(compare_spec)


# --------------------------------------------------------------------------- simulated runs


def _histogram(values, scale, bins, axis, colour, name):
    """A histogram drawn as bars (the basic plotly.js bundle has no histogram trace)."""
    arr = np.asarray(values, dtype=float)
    arr = arr[np.isfinite(arr)] / scale
    counts, edges = np.histogram(arr, bins=bins) if arr.size else (np.zeros(0), np.zeros(1))
    return {"type": "bar", "name": name, "x": jsonable((edges[:-1] + edges[1:]) / 2), "y": counts.tolist(),
            "width": jsonable(np.diff(edges)), "marker": {"color": rgba(colour, 0.6)},
            "xaxis": f"x{axis}", "yaxis": f"y{axis}",
            "hovertemplate": f"%{{x:.3g}}: %{{y}} runs<extra>{name}</extra>"}


def simulation_spec(result, promise, drift, bins=60):
    """Simulated runs against the closed form, and the RTO a drill log can promise.

    Parameters
    ----------
    result : drmath.simulate.SimulationResult
        :func:`drmath.simulate.simulate_run` of a scenario; its ``plan`` gives the closed form.
    promise : drmath.drills.RTOPromise
        :func:`drmath.drills.promised_rto` of a drill log.
    drift : mapping
        :func:`drmath.simulate.ettr_sweep`: ``mtbf`` [s], ``analytic``, ``mean``, ``low`` and
        ``high`` [1].
    bins : int, default 60
        Bars per histogram.

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure of four panels: the completion times and the ETTRs of the
        simulated runs with the closed form marked; the summed recovery phases from the drills
        with the sum of best cases, the sum of means and the promise marked; and the closed-form
        ETTR against the simulated mean and band along the sweep. Seven traces, always in the
        same order, so a ``go.FigureWidget(simulation_figure(...))`` can be redrawn for new runs in
        place: ``fig.update(simulation_spec(...), overwrite=True)`` inside ``fig.batch_update()``.

    Examples
    --------
    >>> from drmath import Scenario, drills, simulate
    >>> s = Scenario().with_changes({"training.tokens": 1e11, "failures.site_event_rate": 0.0})
    >>> result = simulate.simulate_run(s, 200, seed=0)
    >>> promise = drills.promised_rto(drills.example_log(), 0.9, trials=2_000)
    >>> drift = simulate.ettr_sweep(s, "training.gpus", [4_000, 8_000], trials=100)
    >>> spec = simulation_spec(result, promise, drift)
    >>> len(spec["data"]), [a["text"] for a in spec["layout"]["annotations"][:2]]
    (7, ['Completion time', 'ETTR'])
    """
    p = result.plan
    t_scale, t_unit = duration_unit(np.median(result.completion_time))
    r_scale, r_unit = duration_unit(np.median(promise.samples))
    m_scale, m_unit = duration_unit(np.median(np.asarray(drift["mtbf"], dtype=float)))
    layout = _panels(2, 2, ("Completion time", "ETTR", f"{promise.scope.capitalize()} RTO from drills",
                            "Closed form vs simulation"), height=700)
    layout.update(showlegend=False, bargap=0.02)
    mtbf = jsonable(np.asarray(drift["mtbf"], dtype=float) / m_scale)
    band = {"type": "scatter", "mode": "lines", "x": mtbf, "xaxis": "x4", "yaxis": "y4",
            "line": {"width": 0, "color": GREY}, "hoverinfo": "skip"}
    data = [
        _histogram(result.completion_time, t_scale, bins, "", BLUE, "completion time"),
        _histogram(100 * result.ettr, 1.0, bins, "2", BLUE, "ETTR"),
        _histogram(promise.samples, r_scale, bins, "3", BLUE, "summed phases"),
        dict(band, name="simulated band, high", y=jsonable(100 * np.asarray(drift["high"], dtype=float))),
        dict(band, name=f"simulated band ({result.trials:,} runs each)", fill="tonexty", fillcolor=rgba(BLUE, 0.15),
             y=jsonable(100 * np.asarray(drift["low"], dtype=float))),
        {"type": "scatter", "mode": "lines+markers", "name": "simulated mean", "x": mtbf,
         "y": jsonable(100 * np.asarray(drift["mean"], dtype=float)), "xaxis": "x4", "yaxis": "y4",
         "line": {"color": BLUE, "width": 2}},
        {"type": "scatter", "mode": "lines", "name": "closed form", "x": mtbf,
         "y": jsonable(100 * np.asarray(drift["analytic"], dtype=float)), "xaxis": "x4", "yaxis": "y4",
         "line": {"color": INK, "width": 2, "dash": "dash"}},
    ]
    marks = [(p.time_to_train / t_scale, "", INK, "closed form"), (100 * p.ettr, "2", INK, "closed form"),
             (promise.best_case_sum / r_scale, "3", GREEN, "best cases"),
             (promise.mean_sum / r_scale, "3", ORANGE, "means"),
             (promise.promised / r_scale, "3", RED, f"promise ({promise.confidence:.0%})")]
    layout["shapes"] = [_vline(jsonable(x), colour, axis=axis) for x, axis, colour, _ in marks]
    layout["annotations"] += [_note(jsonable(x), label, colour, y=1.0 - 0.1 * max(i - 2, 0), log=False, axis=axis)
                              for i, (x, axis, colour, label) in enumerate(marks)]  # the drills' three stacked
    for n, xtitle, ytitle in (("", f"completion time [{t_unit}]", "runs"), ("2", "ETTR [%]", "runs"),
                              ("3", f"summed recovery phases [{r_unit}]", "draws"),
                              ("4", f"cluster MTBF [{m_unit}]", "ETTR [%]")):
        layout[f"xaxis{n}"]["title"] = {"text": xtitle}
        layout[f"yaxis{n}"]["title"] = {"text": ytitle}
    layout["xaxis4"]["type"] = "log"
    return {"data": data, "layout": layout}


simulation_figure = _as_figure(simulation_spec)
