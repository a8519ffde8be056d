"""How :func:`drmath.solve` chooses a design for a confidence level: every candidate judged on the same draws.

``solve(scenario, confidence=p)`` wants the cheapest design whose targets all hold with probability at least
``p`` over the scenario's uncertain inputs (:attr:`drmath.Scenario.uncertainty`). The inputs are drawn once
(:func:`drmath._uncertainty.draw_inputs`) and every candidate design is derived over the same draws (common
random numbers), so two designs are compared on the same luck. A design's cost is its total cost of
resilience averaged over the draws.

Candidates come from the point search (:class:`drmath._search.Search`): the cheapest designs of each tier that
meet the targets tightened by a share :math:`\\lambda` (0 to 90%), then searches at the tightening where a
design first reaches the confidence and half-way below it, whose cheapest designs join the candidates. One share
for every target would spend the margin badly (a standby bought to protect the slip where the site RPO needed
it), so each candidate's standby is then chosen over the draws (:func:`refit_standby`): the cheapest size with
which it meets every target in at least ``p`` of them. Each candidate's probability is counted exactly over the
draws; the answer is the cheapest candidate that reaches ``p`` (found to about :data:`TOLERANCE` of its cost, the
step of the tightening and the search's own).
"""

import numpy as np

from . import presets
from ._plan import _derive
from ._search import Search, standby_low
from .quantities import TARGETS

__all__ = ["TOLERANCE", "LEVELS", "over_draws", "robust_choice"]

TOLERANCE = 0.02
"""How close to the cheapest design that reaches the confidence the answer is, relative to its cost [1]."""

LEVELS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
"""The shares by which every set target is tightened to find candidates [1]."""

_PER_TIER = 6  # cheapest designs of each tier, at each tightening, judged over the draws
_CHUNK = 24  # designs derived over the draws at once (memory: designs x draws x ~150 arrays)
_NARROW = 2  # passes that narrow each design's smallest standby reaching the confidence
_SPAN = 7  # sizes tried inside the bracket per pass


def over_draws(v, inputs, designs):
    """Each design over the draws: the share of draws where it meets every target, and its mean cost.

    ``v`` is the flat scenario (targets included), ``inputs`` ``{path: ndarray (n,)}`` the draws, ``designs``
    a list of ``{path: value}`` of the searched levers (None: unset). Returns two arrays, one value per design:
    probability [1] and mean total cost of resilience [USD] (inf if any draw's is)."""
    prob, cost = np.zeros(len(designs)), np.zeros(len(designs))
    groups = {}
    for i, d in enumerate(designs):
        groups.setdefault((d["failover.tier"], d["checkpoint.interval"] is None), []).append(i)
    for (tier, unset), members in groups.items():
        own = presets.DR_TIERS[tier].standby_fraction
        for start in range(0, len(members), _CHUNK):
            rows = members[start:start + _CHUNK]

            def column(path, default=None, rows=rows):
                return np.array([[default if designs[i][path] is None else designs[i][path]] for i in rows], float)

            w = dict(v)
            w.update({path: x[None, :] for path, x in inputs.items()})
            w.update({"failover.tier": tier, "replication.interval": column("replication.interval"),
                      "replication.link_bandwidth": column("replication.link_bandwidth"),
                      "failover.standby_fraction": column("failover.standby_fraction", own),
                      "checkpoint.interval": None if unset else column("checkpoint.interval")})
            out = _derive(w)
            shape = (len(rows), len(next(iter(inputs.values()))))
            total = np.broadcast_to(np.asarray(out["total_cost_of_resilience"], float), shape)
            met = np.broadcast_to(np.asarray(out["meets_requirements"], bool), shape) & np.isfinite(total)
            prob[rows], cost[rows] = met.mean(axis=1), total.mean(axis=1)
    return prob, cost


def refit_standby(v, inputs, designs, confidence):
    """Each design at the standby that is cheapest over the draws among those meeting every target in at least
    ``confidence`` of them: ``[(design, probability, mean cost)]`` for the designs some standby makes reach it.

    A larger standby never misses a target a smaller one meets, in any draw, so the share of draws met grows with
    the standby: the smallest size that reaches the confidence is bracketed on a grid of sizes and narrowed
    (:data:`_NARROW` passes, each to 1/(_SPAN + 1) of the bracket); the grid's larger sizes stay candidates (a
    standby can pay for itself). This is what spends the margin where it is cheapest: the standby protects the
    slip only as much as the draws need, and the cadences and the link take the rest."""
    if not designs:
        return []
    grids = [np.unique(np.concatenate([np.geomspace(standby_low(d["failover.tier"]), 1.0, 10),
                                       [presets.DR_TIERS[d["failover.tier"]].standby_fraction]])) for d in designs]
    expanded = [{**d, "failover.standby_fraction": float(f)} for d, grid in zip(designs, grids) for f in grid]
    prob, cost = over_draws(v, inputs, expanded)
    found, start = [], 0
    brackets = []
    for d, grid in zip(designs, grids):
        p, c = prob[start:start + len(grid)], cost[start:start + len(grid)]
        start += len(grid)
        if not (p >= confidence).any():
            continue
        j = int(np.argmax(p >= confidence))
        k = j + int(np.argmin(c[j:]))
        found.append(({**d, "failover.standby_fraction": float(grid[k])}, float(p[k]), float(c[k])))
        if j > 0:
            brackets.append([d, grid[j - 1], grid[j], float(p[j]), float(c[j])])
    for _ in range(_NARROW):
        if not brackets:
            break
        steps = np.linspace(0.0, 1.0, _SPAN + 2)[1:-1]
        inside = [{**d, "failover.standby_fraction": float(low + (high - low) * t)}
                  for d, low, high, *_ in brackets for t in steps]
        p, c = over_draws(v, inputs, inside)
        for n, b in enumerate(brackets):
            pp, cc = p[n * len(steps):(n + 1) * len(steps)], c[n * len(steps):(n + 1) * len(steps)]
            fs = b[1] + (b[2] - b[1]) * steps
            if (pp >= confidence).any():
                j = int(np.argmax(pp >= confidence))
                b[1:] = [fs[j - 1] if j > 0 else b[1], fs[j], float(pp[j]), float(cc[j])]
            else:
                b[1] = fs[-1]
    found += [({**d, "failover.standby_fraction": float(high)}, p_, c_) for d, _, high, p_, c_ in brackets]
    return found


def _tightened(scenario, level):
    return {t.input: None if scenario.get(t.input) is None else scenario.get(t.input) * (1.0 - level) for t in TARGETS}


def _cheapest(table, targets, masks):
    """Row indices of the cheapest designs of each tier (``masks``: its rows) that meet ``targets`` (point values
    of the table)."""
    cost_ = table["total_cost_of_resilience"]
    ok = np.isfinite(cost_) & ~np.asarray(table["goodput_collapsed"], dtype=bool)
    for t in TARGETS:
        if targets[t.input] is not None:
            ok &= table[t.value] <= targets[t.input]
    rows = []
    for mask in masks:
        mine = np.flatnonzero(ok & mask)
        rows += list(mine[np.argsort(cost_[mine], kind="stable")[:_PER_TIER]])
    return rows


def robust_choice(scenario, base, tiers, table, inputs, confidence, changes_of, refine=True):
    """The cheapest design that meets every target in at least ``confidence`` of the draws.

    ``table`` is the point search's, ``changes_of(table, i)`` a row's levers. Returns ``(changes, probability,
    mean_cost, feasible)``: when no candidate reaches the confidence, the one that meets the targets most often
    (the cheapest of those) and ``feasible`` False; None when the search found no candidate at all (at inputs
    where every searched design's goodput collapses). ``refine`` False judges the table's designs only (a grid)."""
    v = base.flat()
    index, designs = {}, []

    def judge(tab, levels):
        """The candidates of each tightening, as indices into ``designs`` (each design judged once)."""
        masks = [tab["tier"] == tier for tier in tiers]
        return {level: [index_of(tab, i) for i in _cheapest(tab, _tightened(scenario, level), masks)]
                for level in levels}

    def index_of(tab, i):
        d = changes_of(tab, i)
        key = tuple(sorted((k, repr(x)) for k, x in d.items()))
        if key not in index:
            index[key] = len(designs)
            designs.append(d)
        return index[key]

    by_level = judge(table, LEVELS)
    prob, cost = over_draws(v, inputs, designs)
    reached = [level for level, found in by_level.items() if any(prob[i] >= confidence for i in found)]
    first = reached[0] if reached else LEVELS[-1]
    below = LEVELS[max(LEVELS.index(first) - 1, 0)]
    before = len(designs)
    for level in sorted({first, (first + below) / 2.0}) if refine else ():
        search = Search(v, _tightened(scenario, level))
        for tier in tiers:
            search.tier(tier)
        judge(search.table(), [level])
    if len(designs) > before:
        more_prob, more_cost = over_draws(v, inputs, designs[before:])
        prob, cost = np.concatenate([prob, more_prob]), np.concatenate([cost, more_cost])
    refit = refit_standby(v, inputs, designs, confidence)
    if refit:
        designs = designs + [d for d, _, _ in refit]
        prob = np.concatenate([prob, [p for _, p, _ in refit]])
        cost = np.concatenate([cost, [c for _, _, c in refit]])
    if not designs:  # no tightening found a candidate in any tier: the caller keeps the point search's closest
        return None
    good = prob >= confidence
    if good.any():
        best = int(np.flatnonzero(good)[np.argmin(cost[good])])
    else:
        best = int(np.lexsort((cost, -prob))[0])
    return designs[best], float(prob[best]), float(cost[best]), bool(good.any())
