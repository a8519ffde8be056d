"""How far drmath.solve() is from the cheapest design a large independent search finds (issue 34).

Run:  .venv/bin/python bench/bench_solve_exact.py [--designs 500000] [--seed 34] [--shipped]

For each requirement set: ``solve()``'s total cost of resilience against the cheapest design of a random
search over every tier's levers (the checkpoint interval log-uniform from its floor to 30 days, copies of
every k-th checkpoint with k log-uniform to 2,000, the link a random size of drmath's port ladder, the
standby size uniform in [1%, 100%], multi-site's per-site capacity in [50%, 100%]), then a local search
around its 32 best designs (each lever jittered, the link moved along the ladder, 12 rounds). Every design
goes through the plan's own steps (``_derive``), vectorised, and nothing of ``solve()``'s stages. It prints
the gap per set (negative: solve() is cheaper); it asserts nothing.

Then ``solve(confidence=0.95)`` on the seed file with issue 34's spreads (failure rate, decision time 10 min-2 h,
link efficiency 0.5-0.95, write bandwidth 1-3 TB/s; 2,000 draws) against a search over the same draws: every
tier over a grid of checkpoint intervals, cadences and links, each design at the smallest standby that meets
every target in 95% of the draws (bisected), compared on the mean total cost over the draws.
"""

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from _figures import record  # noqa: E402

from drmath import Scenario, plan, presets, solve  # noqa: E402
from drmath._plan import _derive  # noqa: E402
from drmath._search import link_ladder  # noqa: E402
from drmath._uncertainty import draw_inputs  # noqa: E402
from drmath.io import scenarios  # noqa: E402
from drmath.units import day, hour, minute  # noqa: E402

SETS = {
    "seed (site RPO 15 min, site RTO 4 h, slip 7 days)": None,
    "local RPO 5 min, site RTO 2 h, slip 1 day": {"requirements.rpo_local": 5 * minute,
                                                  "requirements.rto_site": 2 * hour, "requirements.max_slip": day},
    "site RTO 30 min, slip 3 days": {"requirements.rto_site": 30 * minute, "requirements.max_slip": 3 * day},
    "slip 2 days": {"requirements.max_slip": 2 * day},
}
"""The requirement sets of issue 34, on the seed's inputs (``Scenario()``; the first is the seed file's own)."""


def _evaluate(v, tier, tau, k, ladder_index, fraction):
    ladder = link_ladder()
    out = _derive({**v, "failover.tier": tier, "checkpoint.interval": tau,
                   "replication.interval": np.clip(tau * k, 60.0, 2.592e6),
                   "replication.link_bandwidth": ladder[ladder_index], "failover.standby_fraction": fraction})
    total = np.broadcast_to(np.asarray(out["total_cost_of_resilience"], float), tau.shape)
    ok = np.broadcast_to(np.asarray(out["meets_requirements"], bool), tau.shape) & np.isfinite(total)
    return np.where(ok, total, np.inf)


def brute_force(scenario, designs=500_000, seed=34, rounds=12, keep=32):
    """The cheapest design (cost, {lever: value}) a random search of ``designs`` designs and a local search find."""
    v = scenario.with_changes({"cost.link_hour_price": None}).flat()
    floor = plan(scenario).checkpoint_interval_floor
    rng = np.random.default_rng(seed)
    n_ladder = len(link_ladder())
    best = []  # (cost, tier, tau, k, index, fraction)
    per_tier = designs // (len(presets.DR_TIERS) * (1 + rounds))
    for tier in presets.DR_TIERS:
        tau = np.exp(rng.uniform(np.log(floor), np.log(2.592e6), per_tier))
        k = np.floor(np.exp(rng.uniform(0, np.log(2000), per_tier)))
        index = np.minimum(np.floor(np.exp(rng.uniform(0, np.log(n_ladder), per_tier))).astype(int) - 1, n_ladder - 1)
        low = 0.01 if presets.DR_TIERS[tier].sites == 1 else 0.5  # a site that trains holds its half at least
        fraction = rng.uniform(low, 1.0, per_tier)
        cost_ = _evaluate(v, tier, tau, k, index, fraction)
        for _ in range(rounds):  # jitter around the best designs so far
            top = np.argsort(cost_, kind="stable")[:keep]
            top = top[np.isfinite(cost_[top])]
            if not len(top):
                break
            pick = rng.choice(top, per_tier)
            scale = rng.choice([0.3, 0.05, 0.005], per_tier)
            t2 = np.clip(tau[pick] * np.exp(rng.normal(0, scale)), floor, 2.592e6)
            k2 = np.maximum(1.0, np.round(k[pick] * np.exp(rng.normal(0, scale))))
            i2 = np.clip(index[pick] + np.round(rng.normal(0, 40 * scale)).astype(int), 0, n_ladder - 1)
            f2 = np.clip(fraction[pick] + rng.normal(0, scale / 3), low, 1.0)
            c2 = _evaluate(v, tier, t2, k2, i2, f2)
            tau, k, index, fraction = (np.concatenate(p) for p in ((tau, t2), (k, k2), (index, i2), (fraction, f2)))
            cost_ = np.concatenate([cost_, c2])
        j = int(np.argmin(cost_))
        best.append((float(cost_[j]), tier, float(tau[j]), float(k[j]), float(link_ladder()[index[j]]),
                     float(fraction[j])))
    return min(best)


SPREADS = {"uncertainty.failures.gpu_failure_rate": (3e-9, 1e-8),
           "uncertainty.failover.decision_time": {"low": 10 * minute, "high": 2 * hour},
           "uncertainty.replication.efficiency": (0.5, 0.95),
           "uncertainty.checkpoint.write_bandwidth": (1e12, 3e12)}
"""Issue 34's spreads on the seed file."""


def _over_draws(v, n, tier, fraction, tau, k, bandwidth):
    out = _derive({**v, "failover.tier": tier, "checkpoint.interval": tau, "replication.interval": tau * k,
                   "replication.link_bandwidth": bandwidth, "failover.standby_fraction": fraction})
    total = np.broadcast_to(np.asarray(out["total_cost_of_resilience"], float), (len(tau), n))
    met = np.broadcast_to(out["meets_requirements"], (len(tau), n)) & np.isfinite(total)
    return met.mean(axis=1), total.mean(axis=1)


def search_over_draws(scenario, inputs, confidence):
    """The cheapest design by mean cost over the draws that meets every target in ``confidence`` of them."""
    n = len(next(iter(inputs.values())))
    v = scenario.with_changes({"cost.link_hour_price": None}).flat()
    v.update({path: x[None, :] for path, x in inputs.items()})
    floor = plan(scenario).checkpoint_interval_floor
    grid = np.meshgrid(np.geomspace(max(floor, 100.0), 1000.0, 16), np.array([1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 40,
                                                                              80, 200, 1000.0]),
                       np.array([10, 40, 100, 200, 300, 400, 500, 600, 800, 1200, 1600, 3200]) * 1.25e8, indexing="ij")
    tau, k, bw = (x.ravel()[:, None] for x in grid)
    best = (np.inf, None)
    for tier, info in presets.DR_TIERS.items():
        reach, _ = _over_draws(v, n, tier, 1.0, tau, k, bw)
        keep = reach >= confidence
        t, kk, b = tau[keep], k[keep], bw[keep]
        low, high = np.full(t.shape, 0.01 if info.sites == 1 else 0.5), np.ones(t.shape)
        for _ in range(16):
            mid = 0.5 * (low + high)
            enough = _over_draws(v, n, tier, mid, t, kk, b)[0][:, None] >= confidence
            low, high = np.where(enough, low, mid), np.where(enough, mid, high)
        for f in (high, np.ones(t.shape)):
            met, mean = _over_draws(v, n, tier, f, t, kk, b)
            mean = np.where(met >= confidence, mean, np.inf)
            if len(mean) and mean.min() < best[0]:
                j = int(np.argmin(mean))
                best = (float(mean[j]), f"{tier}, tau {t[j, 0]:.1f} s, k {kk[j, 0]:.0f}, {b[j, 0] * 8 / 1e9:g} Gbit/s, "
                                        f"standby {f[j, 0]:.4f}, meets {met[j]:.1%}")
    return best


def confidence(draws=2000, seed=0):
    """solve(confidence=0.95) against the search over its own draws."""
    from drmath._confidence import over_draws

    scenario = scenarios.seed().replace(**SPREADS)
    start = time.perf_counter()
    solution = solve(scenario, confidence=0.95, draws=draws, seed=seed)
    took = time.perf_counter() - start
    inputs = draw_inputs(scenario, draws, seed)
    v = scenario.with_changes({"cost.link_hour_price": None}).flat()
    (met,), (mean,) = over_draws(v, inputs, [{path: solution.changes[path] for path in solution.changes
                                              if path != "cost.link_hour_price"}])
    found = search_over_draws(scenario, inputs, 0.95)
    gap = mean / found[0] - 1
    print(f"confidence 0.95, issue 34's spreads, {draws:,} draws: solve() mean ${mean / 1e6:.4f}M (point "
          f"{solution.plan.format('total_cost_of_resilience')}), meets {met:.1%}, in {took:.2f} s; search "
          f"${found[0] / 1e6:.4f}M ({found[1]}); gap {gap:+.3%}")
    print("  solve(): " + " ".join(solution.set_flags()))
    record("solve(confidence=0.95) vs a search over its own draws", f"{gap:+.3%}", "<= +1%", bool(gap <= 0.01))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", type=int, default=500_000)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--shipped", action="store_true",
                        help="also each requirement set on every other shipped scenario's inputs")
    args = parser.parse_args(argv)
    cases = {name: scenarios.seed() if changes is None else Scenario().with_changes(changes)
             for name, changes in SETS.items()}
    if args.shipped:
        for title, path in list(scenarios.shipped_scenarios().items())[1:]:
            cases.update({f"{title}: {name}": scenarios.load(path).with_changes(changes)
                          for name, changes in SETS.items() if changes is not None})
    for name, scenario in cases.items():
        start = time.perf_counter()
        solution = solve(scenario)
        took = time.perf_counter() - start
        found = brute_force(scenario, args.designs, args.seed)
        mine = solution.plan.total_cost_of_resilience if solution.feasible else np.inf
        gap = mine / found[0] - 1 if np.isfinite(found[0]) else np.nan
        state = "feasible" if solution.feasible else "INFEASIBLE"
        print(f"{name}: solve() {state} ${mine / 1e6:.4f}M in {took:.2f} s; "
              f"search ${found[0] / 1e6:.4f}M ({found[1]}, tau {found[2]:.1f} s, k {found[3]:.0f}, "
              f"{found[4] * 8 / 1e9:g} Gbit/s, standby {found[5]:.4f}); gap {gap:+.3%}")
        print("  solve(): " + " ".join(solution.set_flags()))
        record(f"solve vs a {args.designs:,}-design search: {name}", f"{gap:+.3%}", "<= +0.5%",
               bool(gap <= 0.005) if np.isfinite(gap) else None)
    confidence()


if __name__ == "__main__":
    main()
