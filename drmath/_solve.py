"""``solve()``: requirements in, the cheapest design out, with the Pareto front and why the cheaper tiers fail.

Every design is derived through the same steps as :func:`drmath.plan` (:data:`drmath._plan.STEPS`),
vectorised over a grid of the levers in :data:`SEARCHED`: one pass per DR tier. The objective is the
total cost of resilience (total DR cost + the goodput the cadences cost).

This module is private, as scikit-learn's are: :func:`drmath.solve` and :class:`drmath.Solution` are its
public names, so the module and the function never share a name.
"""

import dataclasses

import numpy as np

from . import presets
from ._plan import Plan, _derive, plan
from ._validate import short_repr
from .formatting import format_quantity
from .quantities import _TARGETS
from .scenario import FIELDS, Scenario

__all__ = ["solve", "Solution", "SEARCHED", "DEFAULT_GRID"]


SEARCHED = ("failover.tier", "replication.link_bandwidth", "replication.interval", "checkpoint.interval",
            "failover.standby_fraction")
"""The inputs :func:`solve` searches: the DR tier and the four levers each tier is tuned with."""

_GBIT = 1e9 / 8  # [B/s] per Gbit/s
_MIN = 60.0  # [s]

DEFAULT_GRID = {
    "replication.link_bandwidth": tuple(g * _GBIT for g in (10, 20, 40, 100, 200, 400, 800, 1200, 1600, 3200)),
    "replication.interval": tuple(m * _MIN for m in (5, 10, 15, 20, 30, 45, 60, 120, 240, 480)),
    "checkpoint.interval": (None,) + tuple(m * _MIN for m in (1, 2, 5, 10, 15, 30, 60)),
    "failover.standby_fraction": (None, 0.25, 0.5, 0.75, 1.0),
}
"""What :func:`solve` tries for each numeric lever; None is the field unset (Daly's optimum, the tier's own size).
Link sizes are whole ports or bundles of them (10 to 3,200 Gbit/s), cadences from minutes to hours."""


@dataclasses.dataclass(frozen=True)
class Solution:
    """What :func:`solve` found: the design, its plan, each target met or not, the Pareto front and why the
    cheaper tiers fail."""

    scenario: Scenario  #: the design: the input scenario with the searched levers set
    plan: Plan  #: its plan
    feasible: bool  #: whether it meets every target
    meets: dict  #: ``{requirement path: met}`` for each set target
    changes: dict  #: ``{path: value}`` of the searched levers (None: unset)
    front: object  #: pandas DataFrame, cheapest first: the Pareto front of total cost of resilience against site RPO
    #: and site RTO over every searched design (the levers of :data:`SEARCHED`, NaN where a lever is unset, then
    #: total_cost_of_resilience, total_dr_cost, rpo_site, rto_site, meets_requirements; SI)
    reasons: dict  #: ``{tier: why}`` for every other tier: the target it cannot meet, or what it costs
    message: str  #: one paragraph: the answer, or the closest design and what it would take
    searched: int  #: grid points evaluated

    def set_flags(self):
        """The design as ``--set section.field=value`` arguments (readable units, exact values).

        >>> s = Scenario().with_changes({"requirements.rto_site": 14_400.0})
        >>> solve(s).set_flags()[0]
        'failover.tier=multi-site'
        """
        return [f"{path}={_flag_text(path, value)}" for path, value in self.changes.items()]


def _flag_text(path, value):
    """A value as text that reads back to exactly the same number (units where they are exact)."""
    from .scenario_io import parse_value

    if value is None:
        return "unset"
    if isinstance(value, str):
        return value
    candidates = []
    if FIELDS[path].unit == "[B/s]":
        candidates.append(f"{value / _GBIT:g} Gbps")
    if FIELDS[path].unit == "[s]":
        candidates += [f"{value / 3600:g} h", f"{value / _MIN:g} min"]
    for text in candidates:
        if parse_value(path, text) == value:
            return text
    return repr(float(value))


def _pareto(cost_, rpo, rto):
    """Indices of the points no other point dominates (lower or equal on all three, lower on one)."""
    order = np.lexsort((rto, rpo, cost_))  # a dominating point always sorts strictly earlier
    keys = np.stack([cost_[order], rpo[order], rto[order]], axis=1)
    keep_unique = np.ones(len(order), dtype=bool)
    keep_unique[1:] = np.any(keys[1:] != keys[:-1], axis=1)  # equal points: keep one
    dominated = np.zeros(len(order), dtype=bool)
    r, t = rpo[order], rto[order]
    for level in np.unique(t):
        seen = np.where(t <= level, r, np.inf)
        before = np.concatenate([[np.inf], np.minimum.accumulate(seen)[:-1]])  # best RPO earlier, RTO <= level
        at = t == level
        dominated[at] |= before[at] <= r[at]
    return order[keep_unique & ~dominated]


def _grid_points(base, grid):
    """The flat lever arrays of the grid (one entry per point), validated against the fields' ranges."""
    axes = []
    for path, values in grid.items():
        info = FIELDS[path]
        numbers = []
        for x in values:
            if x is not None:
                info.coerce(float(x))
            elif not info.optional:
                raise ValueError(f"solve() grid for {path}: None is allowed only for optional fields")
            numbers.append(np.nan if x is None else float(x))
        if not numbers:
            raise ValueError(f"solve() grid for {path} is empty")
        axes.append(np.asarray(numbers))
    mesh = np.meshgrid(*axes, indexing="ij")
    return {path: m.ravel() for path, m in zip(grid, mesh)}


_TARGET_LABELS = {path: label for path, _, _, label, *_ in _TARGETS}


def solve(scenario=None, tiers=None, grid=None):
    """The cheapest design that meets every requirement, and the Pareto front of cost against site RPO and RTO.

    Searches the DR tier, the replication link's bandwidth, the replication interval, the checkpoint interval
    and the standby size (:data:`SEARCHED`) over a grid, every point through the same steps as :func:`plan`,
    vectorised: one pass per tier. The objective is ``total_cost_of_resilience`` (total DR cost + the goodput
    the cadences cost); the link is priced by its bandwidth (``cost.link_hour_price`` is unset in every
    design, since the search moves the bandwidth).

    Parameters
    ----------
    scenario : Scenario, optional
        The inputs, with the targets in its ``requirements`` section; the seed case when omitted.
    tiers : sequence of str, optional
        DR tiers to search; all of :data:`drmath.presets.DR_TIERS` when omitted.
    grid : mapping of str to sequence, optional
        Values to try per numeric lever (None: the field unset); :data:`DEFAULT_GRID` for the rest.

    Returns
    -------
    solution : Solution
        The design (or, when nothing meets every target, the closest one), its plan, ``meets``, the front as
        a DataFrame, the reason each other tier loses, and a one-paragraph message.

    Examples
    --------
    >>> s = Scenario().with_changes({"requirements.rpo_site": 900.0, "requirements.rto_site": 14_400.0})
    >>> solution = solve(s)
    >>> solution.feasible, solution.meets
    (True, {'requirements.rpo_site': True, 'requirements.rto_site': True})
    >>> solution.plan.rpo_site <= 900.0 and solution.plan.rto_site <= 14_400.0
    True
    """
    import pandas as pd

    scenario = Scenario() if scenario is None else scenario
    if not isinstance(scenario, Scenario):
        raise TypeError(f"solve() needs a Scenario, got {type(scenario).__name__}")
    tiers = list(presets.DR_TIERS) if tiers is None else list(tiers)
    if not tiers:
        raise ValueError("solve() needs at least one DR tier")
    for name in tiers:
        FIELDS["failover.tier"].coerce(name)
    grid = {**DEFAULT_GRID, **({} if grid is None else dict(grid))}
    for path in grid:
        if path not in SEARCHED[1:]:
            raise ValueError(f"solve() searches {', '.join(SEARCHED[1:])}; got {short_repr(path)}")
    base = scenario.with_changes({"cost.link_hour_price": None})
    points = _grid_points(base, grid)
    optimum = plan(base.with_changes({"checkpoint.interval": None})).optimal_interval
    columns = {path: [] for path in SEARCHED}
    wanted = tuple(dict.fromkeys(("total_cost_of_resilience", "total_dr_cost", "rpo_site", "rto_site",
                                  "meets_requirements", *(t[2] for t in _TARGETS), *(t[1] for t in _TARGETS))))
    results = {name: [] for name in wanted}
    for tier in tiers:
        v = base.flat()
        v["failover.tier"] = tier
        own = presets.DR_TIERS[tier].standby_fraction
        tier_points = dict(points)
        if presets.DR_TIERS[tier].sites > 1:  # the standby is the other site training beside it: its size is the tier's
            tier_points["failover.standby_fraction"] = np.full_like(points["failover.standby_fraction"], np.nan)
        for path, values in tier_points.items():
            fill = optimum if path == "checkpoint.interval" else own
            v[path] = np.where(np.isnan(values), fill, values)
        out = _derive(v)
        n = len(next(iter(points.values())))
        for name in wanted:
            results[name].append(np.broadcast_to(np.asarray(out[name], dtype=float), (n,)))
        columns["failover.tier"].append(np.full(n, tier, dtype=object))
        for path, values in tier_points.items():
            columns[path].append(values)
    table = pd.DataFrame({**{path: np.concatenate(c) for path, c in columns.items()},
                          **{name: np.concatenate(r) for name, r in results.items()}})
    table["meets_requirements"] = table["meets_requirements"].astype(bool)
    cost_ = table["total_cost_of_resilience"].to_numpy()
    margins = table[[t[2] for t in _TARGETS]].to_numpy()
    feasible = bool(table["meets_requirements"].any())
    if feasible:
        best = int(np.flatnonzero(table["meets_requirements"])[np.argmin(cost_[table["meets_requirements"]])])
    else:
        best = _closest(scenario, margins, cost_)
    row = table.iloc[best]
    changes = {path: (None if isinstance(row[path], float) and np.isnan(row[path]) else
                      (row[path] if path == "failover.tier" else float(row[path]))) for path in SEARCHED}
    if scenario.cost.link_hour_price is not None:
        changes["cost.link_hour_price"] = None
    design = scenario.with_changes(changes)
    result = plan(design)
    front = table.iloc[_pareto(cost_, table["rpo_site"].to_numpy(), table["rto_site"].to_numpy())]
    front = front[list(SEARCHED) + ["total_cost_of_resilience", "total_dr_cost", "rpo_site", "rto_site",
                                    "meets_requirements"]].sort_values("total_cost_of_resilience")
    reasons = _reasons(scenario, table, tiers, row["failover.tier"], cost_[best] if feasible else None)
    meets = {path: bool(getattr(result, name) >= 0) for path, _, name, *_ in _TARGETS
             if scenario.get(path) is not None}
    message = (_answer(result, design) if feasible else _shortfall(scenario, table, margins, result))
    return Solution(scenario=design, plan=result, feasible=feasible, meets=meets, changes=changes,
                    front=front.reset_index(drop=True), reasons=reasons, message=message, searched=len(table))


def _closest(scenario, margins, cost_):
    """The point whose worst relative shortfall over the set targets is smallest."""
    scale = np.array([max(scenario.get(path) or 0.0, _MIN) for path, *_ in _TARGETS])
    shortfall = np.max(np.maximum(-margins, 0.0) / scale, axis=1)
    return int(np.lexsort((cost_, shortfall))[0])  # the smallest shortfall; the cheapest of those


def _fmt(value, kind="duration"):
    return format_quantity(value, kind)


def _answer(p, design):
    tier = presets.DR_TIERS[design.failover.tier]
    targets = "; ".join(f"{_TARGET_LABELS[path]} {_fmt(getattr(p, value))} ≤ {_fmt(design.get(path))}"
                        for path, value, *_ in _TARGETS if design.get(path) is not None)
    link = _fmt(design.replication.link_bandwidth / _GBIT, "plain")
    return (f"Cheapest design meeting every target: {tier.label}, a {link} Gbit/s link, "
            f"off-site copies every {_fmt(p.replication_interval)}, checkpoints every "
            f"{_fmt(p.checkpoint_interval)}, standby {_fmt(p.standby_fraction, 'fraction')} of the primary. "
            f"Total cost of resilience {_fmt(p.total_cost_of_resilience, 'usd')} "
            f"(DR {_fmt(p.total_dr_cost, 'usd')} + goodput lost {_fmt(p.goodput_lost_cost, 'usd')})"
            + (f"; {targets}." if targets else "; no targets set."))


def _shortfall(scenario, table, margins, p):
    """Which target is closest to being met, and what meeting each missed target would take."""
    parts = []
    for path, value, _, label, _, levers in _TARGETS:
        target = scenario.get(path)
        if target is None:
            continue
        reach = float(table[value].min())
        if reach > target:
            parts.append(f"{label}: no searched design reaches {_fmt(target)} (the best is {_fmt(reach)}); it would "
                         f"take relaxing {path} to {_fmt(reach)}, or {levers} beyond what the search moves")
    missed = {label: -getattr(p, name) for path, _, name, label, *_ in _TARGETS
              if scenario.get(path) is not None and getattr(p, name) < 0}
    closest = ", ".join(f"{label} by {_fmt(by)}" for label, by in missed.items()) or "nothing"
    head = ("No searched design meets every target. The closest "
            f"({presets.DR_TIERS[p.scenario.failover.tier].label}) misses {closest}.")
    if not parts:
        parts.append("each target alone can be met, but no design meets them all at once: relax one of them")
    return head + " " + "; ".join(parts) + "."


def _reasons(scenario, table, tiers, chosen, best_cost):
    """For every tier but the chosen one: the target it cannot meet, or what its cheapest passing design costs."""
    reasons = {}
    for tier in tiers:
        if tier == chosen:
            continue
        rows = table[table["failover.tier"] == tier]
        ok = rows[rows["meets_requirements"]]
        if len(ok):
            cheapest = float(ok["total_cost_of_resilience"].min())
            more = "" if best_cost is None else f", {_fmt(cheapest - best_cost, 'usd')} more"
            reasons[tier] = f"meets every target, at best for {_fmt(cheapest, 'usd')}{more}"
            continue
        missed = []
        for path, value, _, label, *_ in _TARGETS:
            target = scenario.get(path)
            if target is not None and float(rows[value].min()) > target:
                missed.append(f"{label} at best {_fmt(float(rows[value].min()))} > {_fmt(target)}")
        reasons[tier] = ("; ".join(missed) if missed
                         else "no design of this tier meets every target at once")
    return reasons
