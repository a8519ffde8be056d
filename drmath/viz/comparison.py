"""Several plans side by side: their curves overlaid, one colour per plan."""

import numpy as np

from ..formatting import duration_unit, money_unit
from ..units import Gbit_per_s
from ._common import _as_figure, _panels, jsonable
from ._labels import label_of, title_of
from ._ticks import log_axis
from .palette import SERIES
from .registry import FIGURES


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
        interval, site RPO (worst) against the off-site copy interval, total expected DR cost
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
    curves = [(p.sweep(ettr.path, ettr.grid, ["ettr"])["ettr"], p.sweep(rpo.path, rpo.grid, ["rpo_site"])["rpo_site"],
               p.sweep(link.path, link.grid, ["total_dr_cost"])["total_dr_cost"]) for p in plans]
    c_scale, c_unit = duration_unit(np.median(ettr.grid))
    r_scale, r_unit = duration_unit(np.median(rpo.grid))
    m_scale, m_suffix = money_unit([c[2] for c in curves])
    layout = _panels(3, 1, ("ETTR vs checkpoint interval", "Site RPO (worst) vs off-site copy interval",
                            f"{title_of('total_dr_cost')} vs link bandwidth"), height=900, gap=(0.1, 0))
    layout["legend"]["y"] = 1.04
    layout["margin"]["t"] = 80
    data, seen = [], {"x": [], "x2": [], "x3": [], "y2": [], "y3": []}  # what each log axis shows
    for i, (p, name, (e, r, c)) in enumerate(zip(plans, names, curves)):
        s = p.scenario
        panels = [
            ("", ettr.grid / c_scale, 100 * e, p.checkpoint_interval / c_scale, 100 * p.ettr),
            ("2", rpo.grid / r_scale, r / r_scale, s.replication.interval / r_scale, p.rpo_site / r_scale),
            ("3", link.grid / Gbit_per_s, c / m_scale, s.replication.link_bandwidth / Gbit_per_s,
             p.total_dr_cost / m_scale),
        ]
        for axis, x, y, cx, cy in panels:
            seen[f"x{axis}"] += [x, [cx]]
            if axis:
                seen[f"y{axis}"] += [y, [cy]]
            refs = {"xaxis": f"x{axis}", "yaxis": f"y{axis}", "legendgroup": str(i)}
            data.append(dict(refs, type="scatter", mode="lines", name=name, x=jsonable(x), y=jsonable(y),
                             showlegend=axis == "", line={"color": SERIES[i], "width": 2.2}))
            data.append(dict(refs, type="scatter", mode="markers", name=f"{name} (current)", x=[jsonable(cx)],
                             y=[jsonable(cy)], showlegend=False,
                             marker={"color": SERIES[i], "size": 11, "line": {"color": "white", "width": 1.5}}))
    titles = [(f"checkpoint interval [{c_unit}]", "ETTR [%]"), (f"off-site copy interval [{r_unit}]",
                                                                  f"site RPO [{r_unit}]"),
              ("link line rate [Gbit/s]", f"{label_of('total_dr_cost')} [${m_suffix}]")]
    for n, (xtitle, ytitle) in zip(("", "2", "3"), titles):
        layout[f"xaxis{n}"].update(log_axis(*seen[f"x{n}"]), title={"text": xtitle})
        layout[f"yaxis{n}"].update({"type": "linear"} if n == "" else log_axis(*seen[f"y{n}"]), title={"text": ytitle})
    return {"data": data, "layout": layout}


compare_figure = _as_figure(compare_spec)
