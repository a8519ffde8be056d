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

__all__ = ["WANTED", "Search", "merge", "link_ladder", "standby_low"]


WANTED = tuple(dict.fromkeys(("total_cost_of_resilience", "total_dr_cost", "rpo_site", "rto_site",
                               "goodput_collapsed", *(t.value for t in TARGETS))))
_SPAN = 32  # points tried inside each bracketed boundary: a boundary is found to 1/32 of the step around it
_KEEP = 40  # designs kept from each boundary pass
_AROUND = 3  # designs each zoom looks around
_NARROW = 3  # passes that narrow each design's smallest sufficient standby, each to 1/33 of the bracket


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


def standby_low(tier):
    """The smallest standby a tier can have [1]: 1% of the primary (the field's floor), or, for sites that train
    together, the survivors' own split ((n - 1)/n): a surviving site keeps training on the GPUs it holds, so its
    per-site capacity is a lever only above that."""
    sites = presets.DR_TIERS[tier].sites
    return FIELDS["failover.standby_fraction"].low if sites == 1 else (sites - 1) / sites


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

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, tier, tau, k, bandwidth, fraction, record=True):
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
        if not record:  # a step of a bisection: only its end is a design worth keeping
            return ok, cost_
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
        """Search one tier: a coarse pass at the largest standby (where every design that can meet the targets
        does), each target's boundary in the checkpoint interval, the cheapest standby of every design that meets
        them (:meth:`fit_standby`), then zooms around the best designs and a last local pass."""
        taus = np.unique(np.append(np.geomspace(self.tau_low, self.tau_high, 28), self.optimum))
        ks = np.unique(np.concatenate([np.arange(1.0, 7.0), np.round(np.geomspace(
            6, max(6.0, np.ceil(self.trep_high / self.tau_low)), 30))]))
        ladder = _coarse_ladder()
        ok, cost_ = self.evaluate(tier, taus[:, None, None], ks[None, :, None], ladder[None, None, :], 1.0)
        shape = ok.shape
        designs = self._tau_boundaries(tier, taus, np.broadcast_to(ks[None, :, None], shape),
                                       np.broadcast_to(ladder[None, None, :], shape), ok, cost_)
        if not len(designs):
            return
        for ratio, width in ((1.12, 13), (1.02, 7), (1.004, 5)):
            designs = self._zoom(tier, designs, ratio, width)

    def fit_standby(self, tier, tau, k, bandwidth):
        """The cheapest standby size of each design (flat arrays of the other levers) that meets every target.

        A larger standby never misses a target a smaller one meets, so each design's smallest sufficient size is
        bracketed on a grid of sizes, then narrowed (to 1/33³ of the bracket) where that can beat the cheapest design
        found: where the cost just below the bracket (a bound while the standby costs more than it saves) is
        under it. The cheapest of that size and the grid's larger ones is kept (a standby can also pay for itself
        in a shorter slip). Returns rows (tau, k, bandwidth, fraction, cost) that meet every target, cheapest
        first."""
        own = presets.DR_TIERS[tier].standby_fraction
        grid = np.unique(np.concatenate([np.geomspace(standby_low(tier), 1.0, 12), [own]]))
        tau, k, bandwidth = (np.asarray(x, dtype=float)[:, None] for x in (tau, k, bandwidth))
        ok, cost_ = self.evaluate(tier, tau, k, bandwidth, grid[None, :], record=False)
        masked = np.where(ok, cost_, np.inf)
        pick = np.argmin(masked, axis=1)
        rows_ = np.arange(len(pick))
        fraction, total = grid[pick], masked[rows_, pick]
        first = np.argmax(ok, axis=1)
        below = cost_[rows_, np.maximum(first - 1, 0)]
        edge = ok.any(axis=1) & (first > 0) & (below <= np.min(total))
        if edge.any():
            low, high = grid[first[edge] - 1], grid[first[edge]]
            t, kk, b = tau[edge, 0], k[edge, 0], bandwidth[edge, 0]
            for _ in range(_NARROW):  # each pass cuts the bracket into _SPAN + 1 and keeps the one that flips
                inside = low[:, None] + (high - low)[:, None] * np.linspace(0.0, 1.0, _SPAN + 2)[None, 1:-1]
                good, _ = self.evaluate(tier, t[:, None], kk[:, None], b[:, None], inside, record=False)
                j = np.argmax(good, axis=1)  # the first size inside that meets the targets (none: the top)
                found, at = good.any(axis=1), np.arange(len(j))
                low = np.where(found, np.where(j > 0, inside[at, j - 1], low), inside[:, -1])
                high = np.where(found, inside[at, j], high)
            good, at = self.evaluate(tier, t, kk, b, high, record=False)
            better = good & (at < total[edge])
            fraction[np.flatnonzero(edge)[better]] = high[better]
            total[np.flatnonzero(edge)[better]] = at[better]
        keep = np.isfinite(total)
        rows = np.stack([tau[keep, 0], k[keep, 0], bandwidth[keep, 0], fraction[keep], total[keep]], axis=1)
        self.evaluate(tier, *rows[:, :4].T)  # the table keeps each design at its cheapest standby
        return rows[np.argsort(rows[:, 4], kind="stable")]

    def _tau_boundaries(self, tier, taus, k, bandwidth, ok, cost_):
        """Where meeting the targets (or keeping up) changes between two neighbouring checkpoint intervals (at the
        largest standby), try ``_SPAN`` intervals between them: each target's boundary to 1/32 of the step. Every
        design that meets the targets then gets its cheapest standby; returns the best rows (see :meth:`_best`)."""
        keeps = np.isfinite(cost_)
        flips = (ok[1:] != ok[:-1]) | (keeps[1:] != keeps[:-1])
        i, *cell = np.nonzero(flips)
        taus_all = np.broadcast_to(taus.reshape((-1,) + (1,) * (ok.ndim - 1)), ok.shape)
        parts = [(taus_all[ok], k[ok], bandwidth[ok])]
        if len(i):
            cell = tuple(cell)
            step = np.geomspace(1.0, taus[i + 1] / taus[i], _SPAN + 2, axis=-1)[:, 1:-1]
            tau_in = taus[i][:, None] * step
            k_in, bw_in = k[1:][(i, *cell)][:, None], bandwidth[1:][(i, *cell)][:, None]
            ok_in, _ = self.evaluate(tier, tau_in, k_in, bw_in, 1.0)
            shape = ok_in.shape
            parts.append((tau_in[ok_in], np.broadcast_to(k_in, shape)[ok_in], np.broadcast_to(bw_in, shape)[ok_in]))
        tau, k, bw = (np.concatenate([p[j] for p in parts]) for j in range(3))
        if not len(tau):
            return np.empty((0, 5))
        return self.fit_standby(tier, tau, k, bw)[:_KEEP]

    def _zoom(self, tier, designs, ratio, width):
        """Around the best designs: intervals within ``ratio``, every whole k near, the ladder's sizes near, each
        at the largest standby, their boundaries, and the cheapest standby of each design that meets the targets."""
        ladder, coarse = link_ladder(), _coarse_ladder()
        rows = []
        for tau, k, bw, _, _ in designs[:_AROUND]:
            taus = np.unique(np.append(np.clip(tau * np.geomspace(1 / ratio, ratio, width), self.tau_low,
                                               self.tau_high), self.optimum if abs(np.log(self.optimum / tau))
                                       < np.log(ratio) else tau))
            spread = 1 + 2 * (ratio - 1)
            ks = np.unique(np.concatenate([np.clip(np.round(k * np.geomspace(1 / spread, spread, 15)), 1, None),
                                           np.clip(k + np.arange(-2, 3), 1, None)]))
            at = np.searchsorted(ladder, bw)
            if ratio > 1.05:
                c = np.searchsorted(coarse, bw)
                low, high = coarse[max(c - 1, 0)], coarse[min(c + 1, len(coarse) - 1)]
                near = ladder[(ladder >= low) & (ladder <= high)]
                if len(near) > 12:
                    near = near[np.linspace(0, len(near) - 1, 12).astype(int)]
            else:
                near = ladder[max(at - 3, 0):at + 4]
            near = np.unique(np.append(near, bw))
            shape = (len(taus), len(ks), len(near))
            kk = np.broadcast_to(ks[None, :, None], shape)
            bb = np.broadcast_to(near[None, None, :], shape)
            ok, cost_ = self.evaluate(tier, taus[:, None, None], kk, bb, 1.0)
            rows.append(self._tau_boundaries(tier, taus, kk, bb, ok, cost_))
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
