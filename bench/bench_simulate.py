"""Figures for drmath.simulate: speed, events per second, and agreement with the yardstick.

Run:  .venv/bin/python bench/bench_simulate.py [--reference-trials N]

1. 10,000 trials of the default scenario (90 days, 8,000 GPUs, ~3.4 million
   interruptions) with drmath.simulate.simulate_run, on one core: best of 3.
2. The same model simulated event by event in plain Python
   (bench/reference_sim.py), which steps through every checkpoint. It is timed
   on fewer trials (default 200) and scaled per trial, since 10,000 would take
   many minutes; the speed-up is per trial.
3. A two-sample KS test (scipy.stats.ks_2samp) on ETTR between the two.

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

import numpy as np  # noqa: E402
from _figures import record  # noqa: E402
from reference_sim import reference_run  # noqa: E402
from scipy.stats import ks_2samp  # noqa: E402

from drmath import Scenario, plan  # noqa: E402
from drmath.simulate import simulate_run  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--reference-trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    scenario = Scenario()
    p = plan(scenario)
    print(f"scenario: default ({scenario.training.gpus:,} GPUs, {p.time_to_train / 86400:.0f} days, "
          f"MTBF {p.mtbf / 3600:.2f} h, tau {p.checkpoint_interval:.0f} s, u0 {p.restart_overhead:.0f} s, "
          f"tier {scenario.failover.tier})")
    print(f"expected interruptions per trial (G*lambda*T): {p.expected_interruptions:.1f}")

    simulate_run(scenario, 500, args.seed)        # warm-up
    timings = []
    for _ in range(3):
        start = time.perf_counter()
        result = simulate_run(scenario, args.trials, args.seed)
        timings.append(time.perf_counter() - start)
    best = min(timings)
    print(f"\n[drmath] {args.trials:,} trials: best of 3 = {best:.3f} s "
          f"(all: {', '.join(f'{t:.3f}' for t in timings)} s)")
    print(f"[drmath] interruptions drawn: {result.events:,} "
          f"({result.events / args.trials:.1f} per trial) -> {result.events / best / 1e6:.2f} million events/s")
    print(f"[drmath] mean ETTR {result.ettr.mean():.5f}, 99% band {result.ettr_interval(0.99)[0]:.5f}"
          f"-{result.ettr_interval(0.99)[1]:.5f}; closed form {p.ettr:.5f}")
    print(f"[drmath] site events in {result.site_event.mean():.2%} of trials "
          f"(plan: P = {p.site_event_probability:.2%})")

    n = args.reference_trials
    start = time.perf_counter()
    ref = reference_run(scenario, n, args.seed + 1)
    ref_time = time.perf_counter() - start
    per_trial_ref = ref_time / n
    per_trial = best / args.trials
    print(f"\n[reference] {n} trials, event by event in plain Python: {ref_time:.1f} s "
          f"({per_trial_ref * 1e3:.1f} ms per trial; scaled to {args.trials:,} trials: "
          f"{per_trial_ref * args.trials / 60:.1f} min; timed on {n} trials and scaled per trial)")
    print(f"[reference] mean ETTR {np.mean(ref['ettr']):.5f}, interruptions per trial "
          f"{np.mean(ref['interruptions']):.1f}")
    print(f"\nspeed-up per trial: {per_trial_ref / per_trial:,.0f}x (target >= 100x)")
    ks = ks_2samp(ref["ettr"], result.ettr)
    print(f"KS two-sample test on ETTR ({n} reference vs {args.trials:,} drmath): "
          f"D = {ks.statistic:.4f}, p = {ks.pvalue:.3f} (target p > 0.01)")
    record(f"simulation: {args.trials:,} trials of the default run", f"{best:.3f} s", "<= 1 s", best <= 1,
           f"one core; {result.events / best / 1e6:.2f} million interruptions/s")
    record("simulation vs event-by-event reference", f"{per_trial_ref / per_trial:,.0f}x", ">= 100x",
           per_trial_ref / per_trial >= 100, f"reference timed on {n} trials, scaled per trial")
    record("simulation agrees with reference (KS on ETTR)", f"p = {ks.pvalue:.3f}", "p > 0.01", ks.pvalue > 0.01,
           f"{n} reference vs {args.trials:,} drmath trials")
    ks_t = ks_2samp(ref["completion_time"], result.completion_time)
    print(f"KS two-sample test on completion time: D = {ks_t.statistic:.4f}, p = {ks_t.pvalue:.3f}")


if __name__ == "__main__":
    main()
