"""``solve()``: requirements in, the cheapest design out, with the Pareto front and why the cheaper tiers fail.

Every design is derived through the same steps as :func:`drmath.plan` (:data:`drmath._plan.STEPS`),
vectorised over the levers in :data:`SEARCHED`, each over its whole valid range: a coarse pass per DR tier,
then each target's boundary, each design's cheapest standby and three zooms (see :func:`solve`'s Notes). The
objective is the total cost of resilience (total DR cost + the goodput the cadences cost).

This module is private, as scikit-learn's are: :func:`drmath.solve` and :class:`drmath.Solution` are its
public names, so the module and the function never share a name.
"""

import dataclasses
import functools

import numpy as np

from . import presets
from ._plan import Plan, _derive, plan
from ._search import WANTED, Search
from ._validate import short_repr
from .formatting import format_quantity
from .quantities import TARGETS
from .scenario import FIELDS, Scenario
from .units import parse_quantity

__all__ = ["solve", "Solution", "SEARCHED", "DEFAULT_GRID", "ROUNDING_COST"]


SEARCHED = ("failover.tier", "replication.link_bandwidth", "replication.interval", "checkpoint.interval",
            "failover.standby_fraction")
"""The inputs :func:`solve` searches: the DR tier and the four levers each tier is tuned with."""

_GBIT = 1e9 / 8  # [B/s] per Gbit/s
ROUNDING_COST = 1e-4
"""How much a design's total cost of resilience may grow when :func:`solve` rounds its values [1]: each is given
the fewest significant digits that still meet every target at no more than this share over the exact design."""
_ROUNDED = ("failover.standby_fraction", "replication.interval", "checkpoint.interval")  # the margin-giving first
_MIN = 60.0  # [s]

DEFAULT_GRID = {
    "replication.link_bandwidth": tuple(g * _GBIT for g in (10, 20, 40, 100, 200, 400, 800, 1200, 1600, 3200)),
    "replication.interval": tuple(m * _MIN for m in (5, 10, 15, 20, 30, 45, 60, 120, 240, 480)),
    "checkpoint.interval": (None,) + tuple(m * _MIN for m in (1, 2, 5, 10, 15, 30, 60)),
    "failover.standby_fraction": (None, 0.25, 0.5, 0.75, 1.0),
}
"""The values ``solve(grid=...)`` tries for a lever the grid leaves out; None is the field unset (Daly's optimum,
the tier's own size). The default search does not use it: it searches each lever's whole range.
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
    reasons: dict  #: ``{tier: why}`` for every other tier: the target it cannot meet, or what it costs
    message: str  #: one paragraph: the answer, or the closest design and what it would take
    searched: int  #: designs evaluated
    _table: dict = dataclasses.field(default=None, repr=False, compare=False)  # every design evaluated (SI)
    confidence: float | None = None  #: the probability asked for (``solve(confidence=p)``), else None
    probability_met: float | None = None  #: share of the draws where the design meets every target (with confidence)
    point_design_miss_probability: float | None = None  #: share of the draws where the point design misses one

    @functools.cached_property
    def front_size(self):
        """How many designs the Pareto front of :attr:`front` holds (counted without building it, or pandas)."""
        t = self._table
        return len(_front_rows(t["total_cost_of_resilience"], t["rpo_site"], t["rto_site"]))

    @functools.cached_property
    def front(self):
        """pandas DataFrame, cheapest first: the Pareto front of total cost of resilience against site RPO and
        site RTO over every searched design (the levers of :data:`SEARCHED`, NaN where a lever is unset, then
        total_cost_of_resilience, total_dr_cost, rpo_site, rto_site, meets_requirements; SI). Built on first use
        (it imports pandas)."""
        import pandas as pd

        t = self._table
        keep = _front_rows(t["total_cost_of_resilience"], t["rpo_site"], t["rto_site"])
        fraction = t["fraction"][keep]
        own = np.array([presets.DR_TIERS[name].standby_fraction for name in t["tier"][keep]])
        front = pd.DataFrame({
            "failover.tier": t["tier"][keep], "replication.link_bandwidth": t["bandwidth"][keep],
            "replication.interval": t["trep"][keep],
            "checkpoint.interval": np.where(t["tau_unset"][keep], np.nan, t["tau"][keep]),
            "failover.standby_fraction": np.where(fraction == own, np.nan, fraction),
            **{name: t[name][keep] for name in ("total_cost_of_resilience", "total_dr_cost", "rpo_site",
                                                "rto_site", "meets_requirements")}})
        return front.sort_values("total_cost_of_resilience", kind="stable").reset_index(drop=True)

    def set_flags(self):
        """The design as ``--set section.field=value`` arguments (readable units, exact values).

        >>> s = Scenario().with_changes({"requirements.rto_site": 14_400.0})
        >>> solve(s).set_flags()[0]
        'failover.tier=warm'
        """
        return [f"{path}={_flag_text(path, value)}" for path, value in self.changes.items()]


def _flag_text(path, value):
    """A value as text that reads back to exactly the same number (units where they are exact).

    Each candidate is a number and a unit, read back by :func:`drmath.units.parse_quantity`: the parser
    :func:`drmath.io.scenarios.parse_value` gives such text to, so ``--set`` reads the same number.
    """
    if value is None:
        return "unset"
    if isinstance(value, str):
        return value
    candidates = []
    if FIELDS[path].unit == "[B/s]":
        candidates.append(f"{_short(value / _GBIT)} Gbps")
    if FIELDS[path].unit == "[s]":
        candidates += [f"{_short(value / 3600)} h", f"{_short(value / _MIN)} min", f"{_short(value)} s"]
    candidates.sort(key=lambda text: abs(float(text.split()[0])) < 1)  # '3.45 min' before '0.0575 h'
    for text in candidates + [_short(value)]:
        if parse_quantity(text) == value:
            return text
    return repr(float(value))


def _short(x):
    """``x`` to 6 significant digits, never in scientific notation (2000000, not 2e+06)."""
    text = f"{x:g}"
    return np.format_float_positional(float(text), trim="-") if "e" in text else text


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


def _front_rows(cost_, rpo, rto):
    """Indices of the Pareto front of (cost, site RPO, site RTO) among the designs of finite cost.

    Within one site RTO, only a design with a lower site RPO than every cheaper one can be on the front: that
    two-way filter (one sort) leaves a few designs per RTO, and :func:`_pareto` finishes on those."""
    finite = np.flatnonzero(np.isfinite(cost_))
    if not len(finite):
        return finite
    c, r, t = cost_[finite], rpo[finite], rto[finite]
    order = np.lexsort((r, c, t))
    levels = np.unique(t[order], return_inverse=True)[1]
    ranks = np.unique(r[order], return_inverse=True)[1].astype(float)
    shifted = ranks + (levels.max() - levels) * (ranks.max() + 1)  # earlier levels never lower a later minimum
    before = np.concatenate([[np.inf], np.minimum.accumulate(shifted)[:-1]])
    start = np.concatenate([[True], levels[1:] != levels[:-1]])
    before[start] = np.inf
    kept = order[shifted < before]
    return finite[kept[_pareto(c[kept], r[kept], t[kept])]]


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


def _searched(tiers):
    """The tiers to search: :data:`drmath.presets.SEARCHED_TIERS` when omitted; each checked, replica groups refused."""
    tiers = list(presets.SEARCHED_TIERS) if tiers is None else list(tiers)
    if not tiers:
        raise ValueError("solve() needs at least one DR tier")
    for name in tiers:
        FIELDS["failover.tier"].coerce(name)
        if name not in presets.SEARCHED_TIERS:
            raise ValueError(f"solve() does not search tier {name!r}: its goodput is a first-order model no "
                             f"simulation holds; compare it in the tier table instead (searched: "
                             f"{', '.join(presets.SEARCHED_TIERS)})")
    return tiers


def solve(scenario=None, tiers=None, grid=None, confidence=None, draws=2000, seed=0):
    r"""The cheapest design that meets every requirement, and the Pareto front of cost against site RPO and RTO.

    Searches the DR tier, the replication link's bandwidth, the replication interval, the checkpoint interval
    and the standby size (:data:`SEARCHED`), every design through the same steps as :func:`plan`, vectorised.
    The objective is ``total_cost_of_resilience`` (total DR cost + the goodput the cadences cost); the link is
    priced by its bandwidth (``cost.link_hour_price`` is unset in every design, since the search moves the
    bandwidth).

    Parameters
    ----------
    scenario : Scenario, optional
        The inputs, with the targets in its ``requirements`` section; the seed case when omitted.
    tiers : sequence of str, optional
        DR tiers to search; :data:`drmath.presets.SEARCHED_TIERS` (every checkpoint-restart tier) when omitted.
    grid : mapping of str to sequence, optional
        Search only these values of these levers, every combination (None: the field unset), and
        :data:`DEFAULT_GRID`'s values for the other levers: an exhaustive search of a small grid, for
        comparisons. When omitted (the default), each lever is searched over its whole valid range.

    Returns
    -------
    solution : Solution
        The design (or, when nothing meets every target, the closest one), its plan, ``meets``, the front as
        a DataFrame, the reason each other tier loses, and a one-paragraph message.

    Notes
    -----
    Each tier is searched over its continuous inputs, within their valid ranges
    (:data:`drmath.scenario.FIELDS`): the checkpoint interval :math:`\tau` from its floor (a checkpoint
    cannot start before the previous one is durable) to 30 days, the off-site cadence as every :math:`k`-th
    checkpoint (:math:`k \ge 1`, so down to the checkpoint interval; ``replication.interval`` is set to
    :math:`k\tau`), the standby from 1% of the primary to all of it (for multi-site, what the surviving site
    runs at: its per-site capacity, beyond its half charged as idle GPUs), and the link from the port ladder:
    whole ports or bundles of one port size (10, 100 or 400 Gbit/s, :data:`drmath.presets.LINKS`), each the
    largest line rate at its price, up to the field's 800 Tbit/s (a size between two of them costs the larger
    one's ports and carries less).

    1. A coarse pass over every tier at the largest standby (a larger standby never misses a target a smaller
       one meets, so every design that can meet the targets does there): 28 checkpoint intervals (log-spaced,
       and Daly's optimum) x about 36 cadences :math:`k` x 18 link sizes.
    2. Wherever meeting every target, or replication keeping up, changes between two neighbouring intervals,
       32 intervals between them: each target's boundary to 1/32 of a step (about 2%), and any feasible
       band narrower than a step is found (between "does not keep up" and "site RPO too long").
    3. Every design that meets the targets gets its cheapest standby (:meth:`drmath._search.Search.fit_standby`):
       the smallest sufficient size, bracketed on 12 sizes and narrowed to 1/33³ of the bracket, or a larger
       one where the standby pays for itself. Ranking designs at their own standby is what finds a faster link
       that shortens the slip and lets the standby shrink; a multi-site tier's standby is its per-site
       capacity (the survivor's share), searched the same way.
    4. Three zooms around the three best: intervals within 12% (then 2%, then 0.4%), every whole :math:`k`
       near, the ladder's sizes near, each with its boundaries and standby as in 2 and 3.

    The answer is then rounded (not a grid's): the standby, the off-site cadence and the checkpoint interval
    each unset where that still meets every target, else given the fewest significant digits that do, each
    rounding re-checked through the plan's own steps at a cost within :data:`ROUNDING_COST` of the exact design
    (with ``confidence``, over the same draws); the plan and the cost are the rounded design's.

    "Infeasible" means no design in these ranges meets every target. The closest design is then the one whose
    worst shortfall (relative to its target, or to a minute for a shorter one) is smallest, the cheapest of
    those: the search runs again with every target relaxed by that shortfall, where each target's best reach
    over the whole search gives its lower bound. A checkpoint interval equal to Daly's optimum, or a standby of
    the tier's own size, is reported unset.

    Examples
    --------
    >>> s = Scenario().with_changes({"requirements.rpo_site": 900.0, "requirements.rto_site": 14_400.0})
    >>> solution = solve(s)
    >>> solution.feasible, solution.meets
    (True, {'requirements.rpo_site': True, 'requirements.rto_site': True})
    >>> solution.plan.rpo_site <= 900.0 and solution.plan.rto_site <= 14_400.0
    True

    A site RPO of 3 minutes: without a second site training, it takes copies of every checkpoint over a fast
    link; multi-site keeps the state at both sites, so its site RPO is the local one and it is cheaper:

    >>> fast = solve(Scenario().with_changes({"requirements.rpo_site": 180.0}), tiers=["cold", "warm", "hot"])
    >>> fast.feasible, fast.plan.replication_every, fast.plan.rpo_site <= 180.0
    (True, 1.0, True)
    >>> solve(Scenario().with_changes({"requirements.rpo_site": 180.0})).scenario.failover.tier
    'multi-site'
    """
    scenario = Scenario() if scenario is None else scenario
    if not isinstance(scenario, Scenario):
        raise TypeError(f"solve() needs a Scenario, got {type(scenario).__name__}")
    tiers = _searched(tiers)
    if confidence is not None:
        return _at_confidence(scenario, tiers, grid, _check_confidence(confidence), draws, seed)
    base = scenario.with_changes({"cost.link_hour_price": None})
    targets = {t.input: scenario.get(t.input) for t in TARGETS}
    if grid is not None:
        table = _grid_search(base, tiers, {**DEFAULT_GRID, **dict(grid)})
    else:
        search = Search(base.flat(), {})
        for tier in tiers:
            search.tier(tier)
        table = search.table()
    margins = _margins(table, targets)
    ok = np.all(margins >= 0, axis=1) & np.isfinite(table["total_cost_of_resilience"])
    cost_ = table["total_cost_of_resilience"]
    feasible = bool(ok.any())
    if feasible:
        best = int(np.flatnonzero(ok)[np.argmin(cost_[ok])])
    elif grid is not None:
        best = _closest(scenario, margins, cost_)
    else:
        table, best = _closest_search(base, tiers, scenario, table, margins)
        margins = _margins(table, targets)
        ok = np.all(margins >= 0, axis=1) & np.isfinite(table["total_cost_of_resilience"])
    table["meets_requirements"] = ok
    changes = _changes(table, best)
    if grid is None:  # a grid's own values stay as given; a closest miss misses by no more once rounded
        scale = _scale(scenario)
        shortfall = None if feasible else float(np.max(np.maximum(-margins[best], 0.0) / scale))
        changes = _rounded(base.flat(), changes, table["total_cost_of_resilience"][best],
                           candidates=functools.partial(_passes, base.flat(), table["total_cost_of_resilience"][best],
                                                        scale=scale, shortfall=shortfall))
    if scenario.cost.link_hour_price is not None:
        changes["cost.link_hour_price"] = None
    design = scenario.with_changes(changes)
    result = plan(design)
    _record(table, best, changes, result)
    reasons = _reasons(scenario, table, tiers, table["tier"][best], cost_[best] if feasible else None)
    meets = {t.input: bool(getattr(result, t.margin) >= 0) for t in TARGETS if scenario.get(t.input) is not None}
    message = (_answer(result, design) if feasible else _shortfall(scenario, table, result))
    return Solution(scenario=design, plan=result, feasible=feasible, meets=meets, changes=changes,
                    reasons=reasons, message=message, searched=len(table["tier"]), _table=table)


def _check_confidence(confidence):
    """``confidence`` as a float in (0, 1), or a ValueError naming it."""
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.integer, np.floating)) \
            or not 0.0 < float(confidence) < 1.0:  # NaN fails the comparison too
        raise ValueError(f"confidence = {short_repr(confidence)} is out of range: must be in (0, 1), e.g. 0.95")
    return float(confidence)


def _at_confidence(scenario, tiers, grid, confidence, draws, seed):
    """solve() for a confidence level (:mod:`drmath._confidence`): the point answer first, then the cheapest
    design that meets every target in at least ``confidence`` of the draws, judged on the same draws."""
    from ._confidence import over_draws, robust_choice
    from ._uncertainty import check_draws, draw_inputs

    draws, seed = check_draws(draws, seed)
    point = solve(scenario, tiers=tiers, grid=grid)
    inputs = draw_inputs(scenario, draws, seed)
    base = scenario.with_changes({"cost.link_hour_price": None})
    searched = {path: point.changes[path] for path in SEARCHED}
    if not inputs:  # nothing uncertain: every draw is the point scenario
        met = 1.0 if point.feasible else 0.0
        return dataclasses.replace(point, confidence=confidence, probability_met=met,
                                   point_design_miss_probability=1.0 - met,
                                   message=point.message + _confidence_text(confidence, met, 1.0 - met, draws, True))
    (point_met,), _ = over_draws(base.flat(), inputs, [searched])
    tiers = _searched(tiers)
    chosen = robust_choice(scenario, base, tiers, point._table, inputs, confidence, _changes, refine=grid is None)
    if chosen is None:  # no candidate in any tier (every design's goodput collapses): the point search's closest
        chosen = searched, float(point_met), float("nan"), False
    changes, met, mean, feasible = chosen
    if feasible and grid is None:  # rounded as the point answer is, each rounding re-checked over the same draws

        def enough(rounded, path, values):
            designs = [{**rounded, path: None if x is None else float(x)} for x in values]
            prob, cost_ = over_draws(base.flat(), inputs, designs)
            return (prob >= confidence) & (cost_ <= mean * (1 + ROUNDING_COST))

        changes = _rounded(None, changes, mean, candidates=enough)
        (met,), _ = over_draws(base.flat(), inputs, [changes])
        met = float(met)
    if scenario.cost.link_hour_price is not None:
        changes = {**changes, "cost.link_hour_price": None}
    design = scenario.with_changes(changes)
    result = plan(design)
    meets = {t.input: bool(getattr(result, t.margin) >= 0) for t in TARGETS if scenario.get(t.input) is not None}
    head = _answer(result, design) if feasible else (
        f"No searched design meets every target in {confidence:.0%} of the draws; the most reliable is below.")
    message = head + _confidence_text(confidence, met, 1.0 - point_met, draws, feasible)
    return dataclasses.replace(point, scenario=design, plan=result, feasible=feasible, meets=meets, changes=changes,
                               message=message, confidence=confidence, probability_met=met,
                               point_design_miss_probability=1.0 - float(point_met))


def _confidence_text(confidence, met, point_miss, draws, feasible):
    """What the confidence answer adds: how often the design meets every target, how often the point one misses."""
    chosen = "this design" if feasible else "the closest design"
    return (f" At {confidence:.0%} confidence over {draws:,} draws of the uncertain inputs, {chosen} meets every "
            f"target in {met:.1%} of them; the point-estimate design would miss in {point_miss:.1%}.")


def _margins(table, targets):
    """target − value for each target (inf where unset), one column per target: the plan's own margins.

    A design whose goodput has collapsed meets nothing (its losses are clipped at the little progress it
    makes, as ``requirements_step`` says): every margin of it is −inf, so it is never the answer nor the
    closest miss."""
    margins = np.stack([np.full(len(table["tier"]), np.inf) if targets[t.input] is None
                        else targets[t.input] - table[t.value] for t in TARGETS], axis=1)
    margins[np.asarray(table["goodput_collapsed"], dtype=bool)] = -np.inf
    return margins


def _changes(table, i):
    """The searched levers of design ``i``, as ``{path: value}`` (None: unset)."""
    tier = table["tier"][i]
    fraction = float(table["fraction"][i])
    own = presets.DR_TIERS[tier].standby_fraction
    return {"failover.tier": tier, "replication.link_bandwidth": float(table["bandwidth"][i]),
            "replication.interval": float(table["trep"][i]),
            "checkpoint.interval": None if table["tau_unset"][i] else float(table["tau"][i]),
            "failover.standby_fraction": None if np.isnan(fraction) or fraction == own else fraction}


def _roundings(x, path):
    """``x`` to 1, 2, ... 15 significant digits, each to nearest, up and down, within the field's range: the
    candidates in the order they are preferred (fewest digits first)."""
    info = FIELDS[path]
    out = []
    for digits in range(1, 16):
        nearest = float(f"{x:.{digits - 1}e}")
        unit = 10.0 ** (np.floor(np.log10(abs(x))) - digits + 1)
        for y in (nearest, nearest + unit if nearest < x else nearest, nearest - unit if nearest > x else nearest):
            y = float(f"{y:.{digits - 1}e}")
            if info.low <= y <= info.high:
                out.append(y)
    return np.array(list(dict.fromkeys(out + [x])))


def _rounded(v, changes, exact_cost, candidates=None):
    """The design with each value of :data:`_ROUNDED` unset where that still meets every target (Daly's optimum,
    the tier's own standby), else given the fewest significant digits that do, each re-checked through the plan's
    own steps at a cost within :data:`ROUNDING_COST` of ``exact_cost``.

    ``v`` is the flat scenario with its targets; one lever at a time, the others as rounded so far.
    ``candidates``, when given, judges a design instead (``candidates(changes, path, values)`` -> ok per value,
    None among them: the field unset)."""
    changes = dict(changes)
    for path in _ROUNDED:
        x = changes[path]
        if x is None:
            continue
        unset = [None] if FIELDS[path].optional else []
        values = unset + list(_roundings(x, path))  # the exact value is the last candidate, and it passes
        ok = (candidates or functools.partial(_passes, v, exact_cost))(changes, path, values)
        if np.any(ok):
            changes[path] = values[int(np.argmax(ok))]
    return changes


def _passes(v, exact_cost, changes, path, values, scale=None, shortfall=None):
    """Whether each value of ``path`` (None: unset) meets every target at no more than ROUNDING_COST over the cost;
    with ``shortfall`` (a closest miss), whether its worst shortfall relative to ``scale`` stays within it."""
    ok = []
    for group in ([None] if values[0] is None else [], np.asarray(values[values[0] is None:], dtype=float)):
        if not len(group):
            continue
        out = _derive({**v, **changes, path: group[0] if group[0] is None else group})
        n = (len(group),)
        total = np.broadcast_to(np.asarray(out["total_cost_of_resilience"], float), n)
        if shortfall is None:
            met = np.broadcast_to(out["meets_requirements"], n)
        else:
            short = np.max([np.broadcast_to(np.maximum(-np.asarray(out[t.margin], float), 0.0) / x, n)
                            for t, x in zip(TARGETS, scale)], axis=0)
            met = (short <= shortfall * (1 + 1e-9)) & ~np.broadcast_to(out["goodput_collapsed"], n)
        floored = np.broadcast_to(out["checkpoint_interval_floored"], n)  # a value the plan would not use
        ok.append(met & ~floored & np.isfinite(total) & (total <= exact_cost * (1 + ROUNDING_COST)))
    return np.concatenate(ok)


def _record(table, i, changes, result):
    """Row ``i`` of the table becomes the design as rounded (``changes``, its plan ``result``): the front and the
    reasons then show the design the answer gives."""
    fraction = changes["failover.standby_fraction"]
    row = {"tau": result.checkpoint_interval, "tau_unset": changes["checkpoint.interval"] is None,
           "trep": changes["replication.interval"], "bandwidth": changes["replication.link_bandwidth"],
           "fraction": np.nan if fraction is None else fraction, "ok": bool(result.meets_requirements)}
    row.update({name: getattr(result, name) for name in WANTED})
    for name, value in row.items():
        table[name][i] = value


def _closest_search(base, tiers, scenario, table, margins):
    """When nothing meets every target: the design with the smallest worst relative shortfall, the cheapest of
    those, found by searching again with every target relaxed by that shortfall."""
    scale = _scale(scenario)
    reach = np.max(np.maximum(-np.max(margins, axis=0), 0.0) / scale)  # no design can do better than this
    low, high = reach, None
    tables = [table]
    for _ in range(12):  # more only when the targets conflict: bisect between the bound and a shortfall reached
        level = low if high is None else 0.5 * (low + high)
        relaxed = {t.input: None if scenario.get(t.input) is None else scenario.get(t.input) + level * s * (1 + 1e-9)
                   for t, s in zip(TARGETS, scale)}
        search = Search(base.flat(), relaxed)
        for tier in tiers:
            search.tier(tier)
        tables.append(search.table())
        found = search.table()["ok"]
        if found.any():
            high = level
            if level == reach or high - low <= 1e-6 * max(high, 1e-12):
                break
        elif high is None:
            every = _concat(tables)
            worst = np.max(np.maximum(-_margins(every, {t.input: scenario.get(t.input) for t in TARGETS}), 0.0) / scale,
                           axis=1)
            high = float(np.min(worst))
            low = level
        else:
            low = level
    table = _concat(tables)
    return table, _closest(scenario, _margins(table, {t.input: scenario.get(t.input) for t in TARGETS}),
                           table["total_cost_of_resilience"])


def _concat(tables):
    return {name: np.concatenate([t[name] for t in tables]) for name in tables[0]}


def _grid_search(base, tiers, grid):
    """Every combination of a grid's values, one vectorised pass per tier (``solve(grid=...)``)."""
    for path in grid:
        if path not in SEARCHED[1:]:
            raise ValueError(f"solve() searches {', '.join(SEARCHED[1:])}; got {short_repr(path)}")
    points = _grid_points(base, grid)
    search = Search(base.flat(), {})
    for tier in tiers:
        own = presets.DR_TIERS[tier].standby_fraction
        fraction = points["failover.standby_fraction"]
        if presets.DR_TIERS[tier].sites > 1:
            fraction = np.full_like(fraction, np.nan)
        tau = np.where(np.isnan(points["checkpoint.interval"]), search.optimum, points["checkpoint.interval"])
        w = dict(search.v)
        w.update({"failover.tier": tier, "checkpoint.interval": tau,
                  "replication.interval": points["replication.interval"],
                  "replication.link_bandwidth": points["replication.link_bandwidth"],
                  "failover.standby_fraction": np.where(np.isnan(fraction), own, fraction)})
        out = _derive(w)
        n = len(tau)
        search.columns["tier"].append(np.full(n, tier, dtype=object))
        search.columns["tau"].append(tau)
        search.columns["tau_unset"].append(np.isnan(points["checkpoint.interval"]))
        search.columns["trep"].append(points["replication.interval"])
        search.columns["bandwidth"].append(points["replication.link_bandwidth"])
        search.columns["fraction"].append(fraction)
        cost_ = np.broadcast_to(np.asarray(out["total_cost_of_resilience"], dtype=float), (n,))
        search.columns["ok"].append(np.broadcast_to(out["meets_requirements"], (n,)) & np.isfinite(cost_))
        for name in WANTED:
            search.columns[name].append(np.broadcast_to(np.asarray(out[name], dtype=float), (n,)))
    return search.table()


# --------------------------------------------------------------------------- the search

def _scale(scenario):
    """What each target's shortfall is measured against: the target, or a minute for a shorter one."""
    return np.array([max(scenario.get(t.input) or 0.0, _MIN) for t in TARGETS])


def _closest(scenario, margins, cost_):
    """The point whose worst relative shortfall over the set targets is smallest."""
    shortfall = np.max(np.maximum(-margins, 0.0) / _scale(scenario), axis=1)
    return int(np.lexsort((cost_, shortfall))[0])  # the smallest shortfall; the cheapest of those


def _fmt(value, kind="duration"):
    return format_quantity(value, kind)


def _answer(p, design):
    tier = presets.DR_TIERS[design.failover.tier]
    targets = "; ".join(f"{t.label} {_fmt(getattr(p, t.value))} ≤ {_fmt(design.get(t.input))}"
                        for t in TARGETS if design.get(t.input) is not None)
    link = _fmt(design.replication.link_bandwidth / _GBIT, "plain")
    return (f"Cheapest design meeting every target: {tier.label}, a {link} Gbit/s link, "
            f"off-site copies every {_fmt(p.replication_interval)}, checkpoints every "
            f"{_fmt(p.checkpoint_interval)}, standby {_fmt(p.standby_fraction, 'fraction')} of the primary. "
            f"Total cost of resilience {_fmt(p.total_cost_of_resilience, 'usd')} "
            f"(DR {_fmt(p.total_dr_cost, 'usd')} + goodput lost {_fmt(p.goodput_lost_cost, 'usd')})"
            + (f"; {targets}." if targets else "; no targets set."))


def _shortfall(scenario, table, p):
    """Which target is closest to being met, and what meeting each missed target would take."""
    parts = []
    for path, value, _, label, _, levers in TARGETS:
        target = scenario.get(path)
        if target is None:
            continue
        running = ~np.asarray(table["goodput_collapsed"], dtype=bool)  # a collapsed run's clipped loss reaches nothing
        reach = float(np.min(table[value][running])) if running.any() else np.inf
        if reach > target:
            parts.append(f"{label}: no searched design reaches {_fmt(target)} (the best is {_fmt(reach)}); it would "
                         f"take relaxing {path} to {_fmt(reach)}, or {levers} beyond what the search moves")
    missed = {t.label: -getattr(p, t.margin) for t in TARGETS
              if scenario.get(t.input) is not None and getattr(p, t.margin) < 0}
    closest = ", ".join(f"{label} by {_fmt(by)}" for label, by in missed.items()) or "nothing"
    head = ("No searched design meets every target. The closest "
            f"({presets.DR_TIERS[p.scenario.failover.tier].label}) misses {closest}.")
    if not parts:
        parts.append("each target alone can be met, but no design meets them all at once: relax one of them")
    return head + " " + "; ".join(parts) + "."


def priced_reason(cost, more=None):
    """Why not a tier that meets every target: what its cheapest design costs [USD], and how much more than the
    design chosen [USD] (None: no design was chosen).

    >>> priced_reason(32.93e6, 14.03e6)
    'meets every target, at best for $32.93M, $14.03M more'
    """
    return (f"meets every target, at best for {_fmt(cost, 'usd')}"
            + ("" if more is None else f", {_fmt(more, 'usd')} more"))


def _reasons(scenario, table, tiers, chosen, best_cost):
    """For every tier but the chosen one: the target it cannot meet, or what its cheapest passing design costs."""
    reasons = {}
    for tier in tiers:
        if tier == chosen:
            continue
        rows = table["tier"] == tier
        ok = rows & table["meets_requirements"]
        if ok.any():
            cheapest = float(np.min(table["total_cost_of_resilience"][ok]))
            reasons[tier] = priced_reason(cheapest, None if best_cost is None else cheapest - best_cost)
            continue
        missed = []
        running = rows & ~np.asarray(table["goodput_collapsed"], dtype=bool)  # a collapsed run reaches nothing
        for path, value, _, label, *_ in TARGETS:
            target = scenario.get(path)
            reach = float(np.min(table[value][running])) if running.any() else np.inf
            if target is not None and reach > target:
                missed.append(f"{label} at best {_fmt(reach)} > {_fmt(target)}")
        reasons[tier] = ("; ".join(missed) if missed
                         else "no design of this tier meets every target at once")
    return reasons
