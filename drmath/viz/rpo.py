"""The site RPO's figures: against the replication interval and against the cross-site link."""

import math
import statistics

import numpy as np

from ..formatting import duration_unit, format_quantity, line_rate
from ..units import Gbit_per_s, hour
from ._common import (
    _as_figure,
    _first_true,
    _keeps_up_marks,
    _layout,
    _log_range,
    _log_x,
    _mark_current,
    _top,
    jsonable,
)
from ._ticks import log_ticks
from .palette import BLUE, GREY

MARKER_ROOM = 0.03
"""Share of the x-axis kept between the current point and either end, so its 12 px marker is drawn whole. [1]"""


def _room(axis_range, mark):
    """``axis_range`` (log10 units) widened so that ``mark`` (a value on the axis) sits ``MARKER_ROOM`` inside it.

    The sweeps end at the largest link or interval offered, which is often the current one: without room its
    marker is cut in half at the plot's edge.
    """
    lo, hi = axis_range
    if mark is None or not (math.isfinite(mark) and mark > 0):
        return [lo, hi]
    at, pad = math.log10(mark), MARKER_ROOM * (hi - lo)
    return [min(lo, at - pad), max(hi, at + pad)]


def rpo_spec(p, intervals, curves):
    """Site RPO against the remote-replication interval, with the keeps-up boundary.

    Parameters
    ----------
    p : Plan
        The current plan; its off-site copy interval and site RPO are marked.
    intervals : array_like
        Off-site copy intervals swept (``replication.interval``), ascending. [s]
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
    scale, unit = duration_unit(statistics.median(x))
    xs = jsonable(x / scale)
    current = jsonable(p.scenario.replication.interval / scale)
    data = [
        {"type": "scatter", "mode": "lines", "name": "site RPO, worst", "x": xs,
         "y": jsonable(worst / scale), "line": {"color": BLUE, "width": 2.5},
         "hovertemplate": f"copies every %{{x:.3g}} {unit}<br>worst %{{y:.3g}} {unit}<extra></extra>"},
        {"type": "scatter", "mode": "lines", "name": "site RPO, expected", "x": xs,
         "y": jsonable(expected / scale), "line": {"color": BLUE, "width": 1.5, "dash": "dot"},
         "hovertemplate": f"copies every %{{x:.3g}} {unit}<br>expected %{{y:.3g}} {unit}<extra></extra>"},
        {"type": "scatter", "mode": "lines", "name": "local RPO", "x": [xs[0], xs[-1]],
         "y": [jsonable(p.rpo_local / scale)] * 2, "line": {"color": GREY, "width": 1.5, "dash": "dash"},
         "hoverinfo": "skip"},
    ]
    shapes, notes = _keeps_up_marks(_first_true(x, keeps), x, xs, scale, "site RPO", left=current)
    _mark_current(current, p.rpo_site, scale, "duration", data, shapes, notes)
    title = f"Site RPO vs replication interval: <b>{format_quantity(p.rpo_site, 'duration')}</b> now"
    layout = _layout(title, f"off-site copy interval [{unit}]", f"RPO [{unit}]",
                     shapes=shapes, annotations=notes)
    y_range = _log_range(worst / scale, expected / scale, [p.rpo_local / scale])
    x_range = _room(_log_x(xs, current), current)
    layout["xaxis"].update(type="log", range=x_range, **log_ticks(x_range))
    layout["yaxis"].update(type="log", range=y_range, **log_ticks(y_range))  # full labels, never a bare "2"
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
    (13.55, None)
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
    x_range = _room(_log_x(xs, cx), cx)
    layout["xaxis"].update(type="log", range=x_range, **log_ticks(x_range))
    layout["yaxis"]["range"] = [0, _top(worst / hour, p.rpo_site / hour)]
    return {"data": data, "layout": layout}


rpo_link_figure = _as_figure(rpo_link_spec)
