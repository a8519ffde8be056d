"""The DR cost's figures: every tier's cost and site RTO, and the cost against the link bandwidth."""

import math
import statistics

import numpy as np

from .. import presets
from ..formatting import duration_unit, format_quantity, money, money_unit
from ..units import Gbit_per_s
from ._common import (
    _TITLE_TOP,
    _as_figure,
    _axis,
    _bottom_legend,
    _duration_axis,
    _first_true,
    _keeps_up_marks,
    _layout,
    _log_range,
    _log_x,
    _mark_current,
    _nice_top,
    _two_line_title,
    jsonable,
)
from ._labels import label_of, title_of
from ._ticks import log_ticks
from .palette import BLUE, GREEN, INK, ORANGE, PURPLE, RED, TEAL, rgba

_BAR_WIDTH, _RTO_OFFSET = 0.5, 0.38
"""A tier's column is 0.5 wide; its site RTO marker stands 0.38 to its right, in the gap, never on the total's label
(about 0.4 of a column wide on a phone)."""

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
             "width": _BAR_WIDTH,
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
    rto_scale, _ = duration_unit(statistics.median(rto[np.isfinite(rto)]) if np.isfinite(rto).any() else 0.0)
    # beside each column, in the gap, on a hidden numeric axis over the tiers' (column i at i): clear of its label
    data.append({"type": "scatter", "mode": "markers", "name": "site RTO",
                 "x": [i + _RTO_OFFSET for i in range(len(names))], "xaxis": "x2",
                 "y": jsonable(rto / rto_scale), "yaxis": "y2",
                 "marker": {"color": TEAL, "size": 9, "symbol": "diamond", "line": {"color": "white", "width": 1}},
                 "hovertext": [f"site RTO {format_quantity(r, 'duration')}" for r in rto],
                 "hovertemplate": "%{hovertext}<extra></extra>"})
    title = _two_line_title(f"{title_of('total_dr_cost')} & site RTO",  # ≤ 30 characters: one line on a phone
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
    layout = _layout("", "", f"{label_of('total_dr_cost')} [${suffix}]", height=340, barmode="stack",
                     hovermode="x unified", legend=_bottom_legend(), shapes=shapes, annotations=notes,
                     margin={"l": 56, "r": 56, "t": _TITLE_TOP + 52, "b": 84})
    layout["title"] = title
    layout["xaxis"].update(tickmode="array", tickvals=names, ticktext=[b.replace("-", "-<br>") for b in bold],
                           tickangle=0, range=[-0.5, len(names) - 0.5])
    layout["xaxis2"] = {"overlaying": "x", "range": [-0.5, len(names) - 0.5], "visible": False, "fixedrange": True,
                        "title": {"text": ""}}
    headroom = 1.0 if np.isfinite(totals).all() else 1.35  # the note stands above the tallest column
    layout["yaxis"]["range"] = [0, _nice_top(headroom * tops[np.isfinite(tops)].max(initial=0.0) / scale)]
    layout["yaxis2"] = dict(_axis("site RTO"), overlaying="y", side="right", showgrid=False,
                            **_duration_axis(_log_range(rto / rto_scale, step=1.0), rto_scale))
    layout["yaxis2"]["title"]["font"] = {"color": TEAL}
    layout["yaxis2"]["automargin"] = True  # its tick labels and title take what they need, never cut ("site RTC")
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
    title = f"{title_of('total_dr_cost')} vs link bandwidth: <b>{format_quantity(p.total_dr_cost, 'usd')}</b> now"
    layout = _layout(title, "link line rate [Gbit/s]", f"{label_of('total_dr_cost')} [${suffix}]",
                     shapes=shapes, annotations=notes)
    x_range = _log_x(xs, cx)
    y_range = _log_range(*(np.asarray(curves[k], dtype=float) / scale for _, k, _, _, _ in _COST_PARTS))
    layout["xaxis"].update(type="log", range=x_range, **log_ticks(x_range))
    layout["yaxis"].update(type="log", range=y_range, **log_ticks(y_range))
    return {"data": data, "layout": layout}


cost_link_figure = _as_figure(cost_link_spec)
