"""The solver's front: the cost of each searched design against its site RPO and RTO."""

import math

import numpy as np

from .. import presets
from ..formatting import duration_unit, format_quantity, money_unit, short_duration
from ._common import (
    _TITLE_TOP,
    _as_figure,
    _bottom_legend,
    _duration_axis,
    _log_range,
    _note,
    _panels,
    _refs,
    _two_line_title,
    _vline,
    jsonable,
)
from ._labels import label_of, title_of
from .palette import BAD_FILL, GREY, INK, ORANGE, RED, TIER_COLOURS


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
            f"site RPO {_duration_text(row['rpo_site'])}, site RTO {_duration_text(row['rto_site'])}<br>"
            f"link {format_quantity(row['replication.link_bandwidth'], 'line_rate')}, "
            f"copies every {short_duration(row['replication.interval'])}<br>"
            f"checkpoints {ckpt}, standby {format_quantity(standby, 'fraction')} of the primary")


_FLOOR = 1.0
"""The shortest site RPO or RTO the front draws apart [s]. A design under it is drawn at it, the axis labels it
"≤ 1 s" and the hover says "under 1 s": the solver's sweep reaches designs that checkpoint so rarely that the run
makes almost no progress, so almost none is lost with the site (3.7e-41 s), and a log axis down to such a value
left most of its width empty and its labels crammed at one end."""


def _duration_text(seconds):
    """A site RPO or RTO for the hover: "under 1 s" below :data:`_FLOOR`."""
    return f"under {short_duration(_FLOOR)}" if seconds < _FLOOR else format_quantity(seconds, "duration")


def _target_marks(target, scale, log_range, axis, label):
    """A target on a log duration axis: its line, the side beyond it shaded, and its label at the line, on the
    line's left when the line is in the axis's right third (so the label is not cut at the figure's edge)."""
    xref, yref = _refs(axis)
    x = jsonable(target / scale)
    beyond = {"type": "rect", "xref": xref, "yref": yref, "x0": x, "x1": jsonable(10 ** log_range[1]),
              "y0": 0, "y1": 1, "fillcolor": BAD_FILL, "line": {"width": 0}, "layer": "below"}
    lo, hi = log_range
    right = (math.log10(target / scale) - lo) / (hi - lo) > 2 / 3
    text = f"{label} ≤ {short_duration(target)}"
    note = _note(x, f"{text} " if right else f" {text}", RED, y=0.98, axis=axis, xanchor="right" if right else "left")
    return [beyond, _vline(x, RED, axis=axis)], [note]


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
    rpo, rto = (np.maximum(front[k].to_numpy(dtype=float), _FLOOR) for k in ("rpo_site", "rto_site"))
    scale, suffix = money_unit(np.append(cost, p.total_cost_of_resilience))
    axes = []  # (axis suffix, front values, chosen value, target, label, unit scale, log range)
    for n, values, chosen, target, label in (("", rpo, max(p.rpo_site, _FLOOR), requirements.rpo_site, "site RPO"),
                                             ("2", rto, max(p.rto_site, _FLOOR), requirements.rto_site, "site RTO")):
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
        colour = TIER_COLOURS.get(tier, GREY)
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
    objective = label_of("total_cost_of_resilience")  # the solver's objective: not the tier table's DR cost
    layout = _panels(2, 1, (f"{objective} vs site RPO", f"{objective} vs site RTO"), height=560, gap=(0.2, 0))
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
    head = title_of('total_cost_of_resilience')  # ≤ 30 characters; each panel's title says against what
    layout.update(title=_two_line_title(head, detail), legend=_bottom_legend(),
                  shapes=shapes, annotations=notes, margin={"l": 60, "r": 16, "t": _TITLE_TOP + 52, "b": 84})
    for n, values, chosen, _, label, t_scale, log_range in axes:
        axis = _duration_axis(log_range, t_scale)
        if min(values.min(initial=chosen), chosen) <= _FLOOR:  # designs drawn at the floor: its label says so
            axis["ticktext"] = [f"≤ {t}" if math.isclose(v * t_scale, _FLOOR, rel_tol=1e-4) else t
                                for v, t in zip(axis["tickvals"], axis["ticktext"], strict=True)]
        layout[f"xaxis{n}"].update(title={"text": label, "standoff": 4}, **axis)
        # on two lines: on one, the objective's name ran past its panel's height into the figure's title
        layout[f"yaxis{n}"]["title"] = {"text": f"{objective.replace(' of ', ' of<br>', 1)} [${suffix}]"}
    return {"data": data, "layout": layout}


pareto_figure = _as_figure(pareto_spec)


def stale_pareto_spec(spec, refresh):
    """A Pareto figure whose search no longer matches the inputs: greyed, titled stale, and saying how to refresh.

    Parameters
    ----------
    spec : dict
        A figure of :func:`pareto_spec`. [1]
    refresh : str
        What to press to search again, e.g. the dashboard's button ``"apply the cheapest design"``. [1]

    Returns
    -------
    spec : dict
        A copy: every trace at a third of its opacity, the title's detail line led by "stale", and a note across
        the figure: ``stale: inputs changed — press "…" to refresh``. [1]

    Examples
    --------
    >>> import drmath
    >>> s = drmath.Scenario().with_changes({"requirements.rto_site": 14_400.0})
    >>> stale = stale_pareto_spec(pareto_spec(drmath.solve(s)), "search")
    >>> stale["layout"]["annotations"][-1]["text"]
    'stale: inputs changed — press “search” to refresh'
    """
    import copy

    spec = copy.deepcopy(spec)
    for trace in spec["data"]:
        trace["opacity"] = 0.3
    layout = spec["layout"]
    head, _, detail = layout["title"]["text"].partition("<br>")
    layout["title"]["text"] = head + f"<br><span style='font-size:12px;color:{RED}'><b>stale</b>: the search " \
                                     "below is for earlier inputs</span>"
    layout["annotations"] = list(layout.get("annotations", [])) + [{
        "x": 0.5, "y": 0.5, "xref": "paper", "yref": "paper", "xanchor": "center", "yanchor": "middle",
        "showarrow": False, "bgcolor": "rgba(255,255,255,0.9)", "bordercolor": RED, "borderpad": 6,
        "font": {"size": 13, "color": RED}, "text": f"stale: inputs changed — press “{refresh}” to refresh"}]
    return spec
