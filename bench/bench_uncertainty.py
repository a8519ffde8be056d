"""Figures for drmath.uncertainty: every headline quantity's percentiles from 2,000 draws.

Run:  .venv/bin/python bench/bench_uncertainty.py [--repeat N] [--draws N]

The seed scenario with the per-GPU failure rate between 2e-7 and 4e-7 per GPU-hour (lognormal, 95%) and the
local-recovery phases uncertain: the first call in a fresh process and the best of N warm calls, on one core.
Timings are printed, never asserted (tests stay independent of the machine).
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

import drmath  # noqa: E402
from drmath.io import scenarios  # noqa: E402

SPREADS = {"uncertainty.failures.gpu_failure_rate": (2e-7 / 3600, 4e-7 / 3600),
           "uncertainty.failures.launch_time": {"low": 120.0, "high": 600.0, "distribution": "uniform"}}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--draws", type=int, default=2000)
    args = parser.parse_args(argv)
    scenario = scenarios.seed().replace(**SPREADS)
    start = time.perf_counter()
    bands = drmath.bands(scenario, draws=args.draws)
    first = time.perf_counter() - start
    warm = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        drmath.bands(scenario, draws=args.draws)
        warm.append(time.perf_counter() - start)
    best = min(warm)
    print(f"bands(seed, 2 uncertain inputs, {args.draws:,} draws): {len(bands.percentiles)} headline quantities")
    print(f"  first call {first:.3f} s, best of {args.repeat} warm calls {best:.3f} s")
    for name in bands.percentiles:
        print(f"  {name:<24} {bands.format_range(name)}")
    record(f"uncertainty: percentiles of every headline quantity, {args.draws:,} draws (warm)", f"{best:.3f} s",
           "<= 0.3 s", best <= 0.3, note=f"first call {first:.3f} s")


if __name__ == "__main__":
    main()
