"""The one figure registry: what each figure of the plan sweeps and how it is drawn, and the
report's figures with their knobs as slider steps.

Nothing here plans: a figure is drawn from a :class:`~drmath.Plan` (its curves swept by the plan,
:meth:`drmath.Plan.sweep`), and a slider's steps are given as scenarios (:func:`slider_steps`) that the
report plans and hands back to :func:`slider_figure`.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import presets
from ..formatting import line_rate, short_duration
from ..scenario import FIELDS
from ..units import Gbit_per_s, hour, minute
from ._common import _as_figure
from .cost import cost_link_spec, cost_tier_spec
from .rpo import rpo_link_spec, rpo_spec
from .rto import rto_spec, standby_spec
from .training import ettr_spec, time_mfu_spec


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
               "Site RPO against the off-site copy interval. Left of the red line replication falls behind and the "
               "site RPO has no bound; the slider changes the checkpoint interval τ (every k-th checkpoint ships, "
               "kτ ≥ the copy interval)."),
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
               "than the replication interval and the site RPO has no bound; the slider changes the off-site copy "
               "interval."),
    FigureInfo("time_mfu", "run", time_mfu_spec, "training.mfu", np.linspace(0.2, 0.6, 81), ("time_to_train",),
               None, "Time to train the scenario's tokens against MFU; the dot is the current MFU.", report=False),
    FigureInfo("standby", "rto", standby_spec, "failover.standby_fraction", np.linspace(0.25, 1.0, 61),
               ("schedule_slip", "standby_cost"), "failover.tier",
               "Expected schedule slip after a site loss (left axis) and the standby's cost (right axis) against "
               "the standby's size; the slider steps through the DR tiers, each with its own standby size."),
)}
"""Every figure of the plan, by name: the dashboard's five first, in its order, then the
notebooks'. The grids: off-site copy interval 1 min to 2 days (the dashboard's slider goes to
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
    "replication.interval": ("off-site copy interval",
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
    """One registered figure for a plan, its curves swept by the plan (:meth:`drmath.Plan.sweep`).

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
    return info.spec(p, info.grid, p.sweep(info.path, info.grid, list(info.outputs)))


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
            for key in ("tickvals", "ticktext"):  # labels placed for this step's range, not the first step's
                if key in lay[axis]:
                    relayout[f"{axis}.{key}"] = lay[axis][key]
            if "range" in lay[axis]:
                relayout[f"{axis}.range"] = lay[axis]["range"]
            else:
                relayout[f"{axis}.autorange"] = True
        steps.append({"label": label, "method": "update", "args": [restyle, relayout]})
    base = specs[active]
    layout = dict(base["layout"])
    layout["height"] = layout.get("height", 300) + 90
    layout["margin"] = dict(layout.get("margin", {}), b=layout.get("margin", {}).get("b", 44) + 86)  # below a legend
    layout["sliders"] = [{"active": active, "steps": steps, "x": 0.0, "len": 1.0, "y": 0, "yanchor": "top",
                          "pad": {"t": 58, "b": 0}, "currentvalue": {"prefix": f"{knob}: ", "font": {"size": 12}},
                          "font": {"size": 10}}]
    return {"data": padded(base), "layout": layout}


class SliderSteps(NamedTuple):
    """A report figure's knob as slider steps (:func:`slider_steps`): what the report plans, one plan a step, and
    hands back to :func:`slider_figure` to draw."""

    knob: str  #: the knob's label, e.g. ``"DR tier"`` (:data:`KNOBS`)
    labels: list  #: each step's label
    scenarios: list  #: each step's scenario: the one given with the knob set to the step's value
    active: int  #: the index of the scenario's own step


def slider_steps(name, scenario, p):
    """The steps of a report figure's slider: the scenarios to plan, one a step, with their labels.

    Parameters
    ----------
    name : str
        A key of :data:`FIGURES` with a knob (:attr:`FigureInfo.knob`).
    scenario : Scenario
        The inputs on show.
    p : Plan
        Its plan: an optional input left unset steps through the value the plan derived for it.

    Returns
    -------
    steps : SliderSteps
        The knob's label, a label and a scenario per step (the knob's values of :data:`KNOBS` and the
        scenario's own value, ascending) and the index of the scenario's own step.

    Raises
    ------
    ValueError
        If the figure is unknown, or has no knob (the report leaves it out).

    Examples
    --------
    >>> import drmath
    >>> steps = slider_steps("rto", drmath.Scenario(), drmath.plan())
    >>> steps.knob, steps.labels[steps.active], steps.scenarios[0].failover.tier
    ('DR tier', 'warm', 'cold')
    """
    knob = _info(name).knob
    if knob is None:
        raise ValueError(f"figure {name!r} has no slider knob: the report leaves it out")
    return SliderSteps(KNOBS[knob][0], *_knob_steps(scenario, p, knob))


def slider_figure(name, plans, steps):
    """One registered figure with its knob as slider steps, each step drawn from its plan.

    The client that plans (the standalone report, :func:`drmath.report.report_figures`) plans each of
    :func:`slider_steps`' scenarios and hands the plans back; nothing here plans.

    Parameters
    ----------
    name : str
        A key of :data:`FIGURES` with a knob.
    plans : sequence of Plan
        The plan of each step's scenario, in the order of ``steps.scenarios``.
    steps : SliderSteps
        What :func:`slider_steps` gave for the figure.

    Returns
    -------
    spec : dict
        A JSON-ready plotly spec with a slider [1]_ over the figure's knob, its active step the scenario's own.

    Raises
    ------
    ValueError
        If the figure is unknown, or not one plan is given per step.

    References
    ----------
    .. [1] plotly.js, "Sliders", https://plotly.com/javascript/sliders/ (the ``update`` method).

    Examples
    --------
    >>> import drmath
    >>> steps = slider_steps("rto", drmath.Scenario(), drmath.plan())
    >>> spec = slider_figure("rto", [drmath.plan(s) for s in steps.scenarios], steps)
    >>> slider = spec["layout"]["sliders"][0]
    >>> [s["label"] for s in slider["steps"]][slider["active"]]
    'warm'
    """
    _info(name)
    plans = list(plans)
    if len(plans) != len(steps.scenarios):
        raise ValueError(f"slider_figure needs one plan per step: {len(steps.scenarios)} steps, {len(plans)} plans")
    return _slider_spec([figure_spec(name, q) for q in plans], steps.labels, steps.active, steps.knob)
