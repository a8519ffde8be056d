"""Figures for drmath.solve: how long the inverse problem takes, and what it answers.

Run:  .venv/bin/python bench/bench_solve.py [--repeat N]

The seed scenario with a site RPO target of 15 min and a site RTO target of 4 h: the first call in a fresh
process (pandas imported on the way) and the best of N warm calls, on one core, with the design it finds and
its cost. Timings are printed, never asserted (tests stay independent of the machine).
"""

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")      # one core
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _figures import record  # noqa: E402

from drmath import Scenario, solve  # noqa: E402

TARGETS = {"requirements.rpo_site": 15 * 60.0, "requirements.rto_site": 4 * 3600.0}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    scenario = Scenario().with_changes(TARGETS)
    start = time.perf_counter()
    solution = solve(scenario)
    first = time.perf_counter() - start
    warm = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        solve(scenario)
        warm.append(time.perf_counter() - start)
    best = min(warm)
    p = solution.plan
    print(f"solve(seed, site RPO <= 15 min, site RTO <= 4 h): {solution.searched:,} designs")
    print(f"  first call {first:.3f} s (imports pandas), best of {args.repeat} warm calls {best:.3f} s")
    print("  design: " + " ".join(f"--set {flag}" for flag in solution.set_flags()))
    print(f"  total cost of resilience {p.format('total_cost_of_resilience')} (total DR cost "
          f"{p.format('total_dr_cost')}, goodput lost {p.format('goodput_lost_cost')}); "
          f"site RPO {p.format('rpo_site')}, site RTO {p.format('rto_site')}; meets {solution.meets}")
    for tier, why in solution.reasons.items():
        print(f"  {tier}: {why}")
    print(f"  Pareto front: {len(solution.front)} designs")
    record("solve: seed, site RPO <= 15 min and RTO <= 4 h (first call)", f"{first:.3f} s", "<= 1 s", first <= 1,
           note=f"{solution.searched:,} designs; warm {best:.3f} s")
    record("solve: the design it finds", f"{p.scenario.failover.tier}, {p.format('total_cost_of_resilience')}",
           note=", ".join(solution.set_flags()))


if __name__ == "__main__":
    main()
