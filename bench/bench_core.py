"""Speed of the core: the dashboard's sweeps, and plan() latency (bench_import.py times the import).

Prints figures; asserts nothing. Run: .venv/bin/python bench/bench_core.py

Targets (issue: drmath core):
- five 200-point sweeps (one dashboard update's curves) <= 5 ms together: the figure that matters.

plan() of the default scenario is printed for reference, without a target: every formula runs its
argument checks on one numpy path, and a dashboard update costs tens of ms elsewhere.
"""

import statistics
import time

import numpy as np
from _figures import record

from drmath import Scenario, plan, sweep


def plan_latency(runs=2000):
    s = Scenario()
    plan(s)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        plan(s)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3, np.percentile(times, 95) * 1e3


SWEEPS = [
    ("checkpoint.interval", np.geomspace(10, 7200, 200)),
    ("replication.interval", np.geomspace(60, 86_400, 200)),
    ("replication.link_bandwidth", np.geomspace(1e8, 1e12, 200)),
    ("training.gpus", np.round(np.geomspace(64, 100_000, 200))),
    ("training.mfu", np.linspace(0.2, 0.6, 200)),
]


def sweep_latency(runs=200):
    s = Scenario()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        for path, values in SWEEPS:
            sweep(s, path, values)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def main():
    rows = []
    total = sweep_latency()
    rows.append(("five 200-point sweeps", f"{total:.2f} ms", "<= 5 ms", total <= 5, "median of 200 rounds"))
    median, p95 = plan_latency()
    rows.append(("plan() of the default scenario", f"{median:.3f} ms", "", None,
                 f"for reference; median of 2,000; p95 {p95:.3f} ms"))
    for name, value, target, ok, note in rows:
        record(name, value, target, ok, note)
        verdict = "" if ok is None else "pass" if ok else "FALLS SHORT"
        print(f"{name:<36} {value:>10}  {'target ' + target if target else '':<16} {verdict:<11} {note}")
    return rows


if __name__ == "__main__":
    main()
