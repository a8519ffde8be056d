"""How :func:`drmath.solve` searches: every design of the broadcast levers through the plan's own steps.

:class:`Search` holds every design evaluated (through :func:`drmath._plan._derive`, vectorised) and the stages
that choose what to evaluate next: a coarse pass per DR tier over each lever's whole valid range, the
boundary of each target bracketed and refined, the standby size, and zooms around the cheapest designs. The
link sizes it tries are whole ports or bundles of them (:func:`link_ladder`). :mod:`drmath._solve` turns its table
into the answer.
"""

import functools

import numpy as np

from . import cost, presets
from ._plan import _derive
from .quantities import TARGETS
from .scenario import FIELDS

__all__ = ["WANTED", "Search", "merge", "link_ladder"]


WANTED = tuple(dict.fromkeys(("total_cost_of_resilience", "total_dr_cost", "rpo_site", "rto_site",
                               "goodput_collapsed", *(t.value for t in TARGETS))))
_SPAN = 32  # points tried inside each bracketed boundary: a boundary is found to 1/32 of the step around it
_FLIPS = 400  # boundaries bracketed per pass, the cheapest first (and always those of the largest link)
_TOP = 10  # designs of each tier carried from one stage to the next


@functools.lru_cache(maxsize=1)
def link_ladder():
    """The link sizes worth buying [B/s]: whole ports or bundles of one port size (:data:`drmath.presets.LINKS`),
    each the largest line rate at its price, up to the field's range. Anything between two of them pays for the
    larger one's ports (``cost.link_hour_price``), so it is never cheaper and never carries more."""
    high = FIELDS["replication.link_bandwidth"].high
    sizes = np.unique(np.concatenate([port.bandwidth * np.arange(1, int(high // port.bandwidth) + 1)
                                      for port in presets.LINKS.values()]))
    price = cost.link_hour_price(sizes)
    cheapest_above = np.concatenate([np.minimum.accumulate(price[::-1])[::-1][1:], [np.inf]])
    return sizes[price < cheapest_above]


@functools.lru_cache(maxsize=1)
def _coarse_ladder():
    """About 18 sizes of the ladder, roughly evenly spaced in log, the smallest and largest among them."""
    ladder = link_ladder()
    picks = np.searchsorted(ladder, np.geomspace(ladder[0], ladder[-1], 18))
    return ladder[np.unique(np.clip(picks, 0, len(ladder) - 1))]


class Search:
    """Every design evaluated, through the plan's own steps, and the stages that choose what to evaluate next."""

    def __init__(self, v, targets):
        self.v = dict(v)
        self.v.update(targets)
        self.columns = {name: [] for name in ("tier", "tau", "tau_unset", "trep", "bandwidth", "fraction",
                                              "ok", *WANTED)}
        first = _derive({**self.v, "checkpoint.interval": None})
        self.optimum = float(first["optimal_interval"])
        self.tau_low = max(FIELDS["checkpoint.interval"].low, float(first["checkpoint_interval_floor"]))
        self.tau_high = FIELDS["checkpoint.interval"].high
        self.trep_low, self.trep_high = FIELDS["replication.interval"].low, FIELDS["replication.interval"].high
        self.frac_low = FIELDS["failover.standby_fraction"].low

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, tier, tau, k, bandwidth, fraction):
        """The designs of the broadcast levers (k: copies every k-th checkpoint; fraction None: the tier's own).

        Returns the arrays in the broadcast shape: ok (meets every target at a finite cost) and the cost."""
        tau = np.asarray(tau, dtype=float)
        trep = np.clip(tau * np.asarray(k, dtype=float), self.trep_low, self.trep_high)
        w = dict(self.v)
        w.update({"failover.tier": tier, "checkpoint.interval": tau, "replication.interval": trep,
                  "replication.link_bandwidth": np.asarray(bandwidth, dtype=float),
                  "failover.standby_fraction": fraction})
        out = _derive(w)
        frac = np.nan if fraction is None else np.asarray(fraction, dtype=float)
        shape = np.broadcast_shapes(tau.shape, trep.shape, np.shape(bandwidth), np.shape(frac))
        values = {name: np.broadcast_to(np.asarray(out[name], dtype=float), shape) for name in WANTED}
        cost_ = values["total_cost_of_resilience"]
        ok = np.broadcast_to(np.asarray(out["meets_requirements"], dtype=bool), shape) & np.isfinite(cost_)
        levers = {"tau": tau, "trep": trep, "bandwidth": bandwidth, "fraction": frac}
        self.columns["tier"].append(np.full(int(np.prod(shape)), tier, dtype=object))
        for name, x in levers.items():
            self.columns[name].append(np.broadcast_to(np.asarray(x, dtype=float), shape).ravel())
        self.columns["tau_unset"].append(np.broadcast_to(tau == self.optimum, shape).ravel())
        self.columns["ok"].append(ok.ravel())
        for name, x in values.items():
            self.columns[name].append(x.ravel())
        return ok, cost_

    # ------------------------------------------------------------------ the stages
    def tier(self, tier):
        """Search one tier: a coarse pass, its boundaries, the standby, then two zooms around the best designs."""
        sized = presets.DR_TIERS[tier].sites == 1  # a multi-site standby is the other site: the tier's own size
        best_fraction = 1.0 if sized else None  # the most a standby can help any target
        taus = np.unique(np.append(np.geomspace(self.tau_low, self.tau_high, 28), self.optimum))
        ks = np.unique(np.concatenate([np.arange(1.0, 7.0), np.round(np.geomspace(
            6, max(6.0, np.ceil(self.trep_high / self.tau_low)), 30))]))
        ladder = _coarse_ladder()
        ok, cost_ = self.evaluate(tier, taus[:, None, None], ks[None, :, None], ladder[None, None, :], best_fraction)
        designs = self._tau_boundaries(tier, taus, ks[None, :, None] * np.ones_like(ok, dtype=float),
                                       ladder[None, None, :] * np.ones_like(ok, dtype=float), ok, cost_,
                                       best_fraction, coarse=True)
        if not len(designs):
            return
        for ratio, width in ((1.12, 13), (1.02, 7)):
            designs = self._standby(tier, designs) if sized else designs
            designs = self._zoom(tier, designs, ratio, width)
        if sized:
            self._standby(tier, designs)

    def _tau_boundaries(self, tier, taus, k, bandwidth, ok, cost_, fraction, coarse):
        """Where meeting the targets (or keeping up) changes between two neighbouring checkpoint intervals, try
        ``_SPAN`` intervals between them: the boundary of each target to 1/64 of the step. Returns the best
        (tau, k, bandwidth, fraction) designs that meet every target."""
        keeps = np.isfinite(cost_)
        flips = (ok[1:] != ok[:-1]) | (keeps[1:] != keeps[:-1])
        best = np.min(cost_[ok]) if ok.any() else np.inf
        lower = np.minimum(cost_[1:], cost_[:-1])
        i, *cell = np.nonzero(flips & (lower <= 1.1 * best))
        order = np.argsort(lower[(i, *cell)], kind="stable")[:_FLIPS]  # the cheapest boundaries near the best
        i, cell = i[order], [c[order] for c in cell]
        if coarse:  # and every boundary of the largest link, which bounds each target's reach: none is skipped
            top, *top_cell = np.nonzero(flips & (bandwidth[1:] == bandwidth.max()))
            i, cell = np.concatenate([i, top]), [np.concatenate([c, t]) for c, t in zip(cell, top_cell)]
        cell = tuple(cell)
        designs = [self._best(taus[:, None, None] * np.ones_like(cost_), k, bandwidth, fraction, ok, cost_)]
        if len(i):
            step = np.geomspace(1.0, taus[i + 1] / taus[i], _SPAN + 2, axis=-1)[:, 1:-1]
            tau_in = taus[i][:, None] * step
            k_in, bw_in = k[1:][(i, *cell)][:, None], bandwidth[1:][(i, *cell)][:, None]
            frac_in = fraction if fraction is None or np.ndim(fraction) == 0 else fraction[1:][(i, *cell)][:, None]
            ok_in, cost_in = self.evaluate(tier, tau_in, k_in, bw_in, frac_in)
            designs.append(self._best(tau_in, k_in * np.ones_like(tau_in), bw_in * np.ones_like(tau_in),
                                      frac_in, ok_in, cost_in))
        return merge(designs)

    def _best(self, tau, k, bandwidth, fraction, ok, cost_, top=_TOP):
        """The cheapest distinct designs that meet every target, as rows (tau, k, bandwidth, fraction, cost)."""
        if not ok.any():
            return np.empty((0, 5))
        cost_ = np.where(ok, cost_, np.inf)
        shape = cost_.shape
        frac = np.full(shape, np.nan) if fraction is None else np.broadcast_to(np.asarray(fraction, float), shape)
        rows = np.stack([np.broadcast_to(x, shape).ravel() for x in (tau, k, bandwidth, frac, cost_)], axis=1)
        rows = rows[np.isfinite(rows[:, 4])]
        return rows[np.argsort(rows[:, 4], kind="stable")[:top * 4]]

    def _standby(self, tier, designs):
        """For each design, the standby size: 40 sizes, then the smallest that meets every target."""
        designs = designs[:_TOP]
        own = presets.DR_TIERS[tier].standby_fraction
        fractions = np.unique(np.concatenate([np.geomspace(self.frac_low, 1.0, 32), [own]]))
        tau, k, bw = (designs[:, j][:, None] for j in range(3))
        ok, cost_ = self.evaluate(tier, tau, k, bw, fractions[None, :])
        rows = [self._best(tau * np.ones_like(cost_), k * np.ones_like(cost_), bw * np.ones_like(cost_),
                           fractions[None, :] * np.ones_like(cost_), ok, cost_)]
        first = np.argmax(ok, axis=1)  # the smallest size that meets every target (a larger standby never hurts)
        edge = ok.any(axis=1) & (first > 0)
        if edge.any():
            low, high = fractions[first[edge] - 1], fractions[first[edge]]
            frac_in = low[:, None] + (high - low)[:, None] * np.linspace(0, 1, _SPAN + 2)[1:-1]
            ok_in, cost_in = self.evaluate(tier, tau[edge], k[edge], bw[edge], frac_in)
            rows.append(self._best(tau[edge] * np.ones_like(cost_in), k[edge] * np.ones_like(cost_in),
                                   bw[edge] * np.ones_like(cost_in), frac_in, ok_in, cost_in))
        return merge(rows)

    def _zoom(self, tier, designs, ratio, width):
        """Around the best designs: intervals within ``ratio``, every whole k near, the ladder's sizes near."""
        ladder, coarse = link_ladder(), _coarse_ladder()
        rows = []
        for tau, k, bw, frac, _ in designs[:3]:
            fraction = None if np.isnan(frac) else frac
            taus = np.unique(np.append(np.clip(tau * np.geomspace(1 / ratio, ratio, width), self.tau_low,
                                               self.tau_high), self.optimum if abs(np.log(self.optimum / tau))
                                       < np.log(ratio) else tau))
            ks = np.unique(np.clip(np.round(k * np.geomspace(1 / (1 + 2 * (ratio - 1)), 1 + 2 * (ratio - 1), 15)),
                                   1, None))
            ks = np.unique(np.concatenate([ks, [k]]))
            at = np.searchsorted(coarse, bw)
            low, high = coarse[max(at - 1, 0)], coarse[min(at + 1, len(coarse) - 1)]
            near = ladder[(ladder >= low) & (ladder <= high)] if ratio > 1.05 else ladder[
                max(np.searchsorted(ladder, bw) - 2, 0):np.searchsorted(ladder, bw) + 3]
            if len(near) > 12:
                near = np.unique(np.concatenate([near[np.linspace(0, len(near) - 1, 12).astype(int)], [bw]]))
            shape = (len(taus), len(ks), len(near))
            kk = np.broadcast_to(ks[None, :, None], shape)
            bb = np.broadcast_to(near[None, None, :], shape)
            ok, cost_ = self.evaluate(tier, taus[:, None, None], kk, bb, fraction)
            rows.append(self._tau_boundaries(tier, taus, kk, bb, ok, cost_, fraction, coarse=False))
        return merge(rows + [designs])

    # ------------------------------------------------------------------ the record
    def table(self):
        return {name: np.concatenate(parts) if parts else np.empty(0) for name, parts in self.columns.items()}


def merge(parts):
    """Rows of designs, cheapest first, without repeats."""
    rows = np.concatenate([p for p in parts if len(p)] or [np.empty((0, 5))])
    if not len(rows):
        return rows
    rows = rows[np.argsort(rows[:, 4], kind="stable")]
    _, first = np.unique(np.round(rows[:, :4], 12), axis=0, return_index=True)
    return rows[np.sort(first)]
