"""The site RTO's figures: its phases as a waterfall, and slip and cost against the standby's size."""

import numpy as np

from .. import presets
from ..formatting import duration_unit, format_quantity, money_unit
from ..units import day
from ._common import _as_figure, _axis, _current, _layout, _nice_top, _top, jsonable
from .palette import BLUE, GREEN, ORANGE


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
    text = [format_quantity(v, "duration") if v > 0 else "none" for v in values]  # a bare "0" reads as a misprint
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
    ([16, 11, 5, 0], 'standby cost [$M]')
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
             f"<b>{p.format('schedule_slip')}</b>, standby cost <b>{p.format('standby_cost')}</b>")
    layout = _layout(title, "standby size [% of the primary]", "expected slip [days]")
    layout["margin"]["r"] = 64
    layout["yaxis"]["range"] = [0, _top(slip / day, p.schedule_slip / day)]
    layout["yaxis2"] = dict(_axis(f"standby cost [${suffix}]"), overlaying="y", side="right", showgrid=False,
                            tickmode="auto", range=[0, _top(cost / scale, p.standby_cost / scale)])
    return {"data": data, "layout": layout}


standby_figure = _as_figure(standby_spec)
