"""The yardstick: a straightforward event-by-event simulation of drmath.simulate's model.

Plain Python, one trial at a time, one event at a time: every failure, every
checkpoint (end of compute, end of stall, persist done), every restart, the
site event and the replication copy it falls back to. It shares no code with
``drmath.simulate`` beyond ``drmath.plan()`` for the inputs, so agreement
between the two (bench/bench_simulate.py runs a two-sample KS test on ETTR) is
evidence that the vectorised modulo arithmetic is right.

The model, as in drmath/simulate.py's module docstring:
- the run must do C = plan.compute_time of training on the primary;
- training alternates tau of compute and a stall delta; the checkpoint started
  at the stall is durable W later; no checkpoint at the very end;
- interruptions: renewal process on wall-clock time, exponential (or Weibull)
  gaps of mean M; an interruption in training loses the work since the newest
  durable checkpoint; each is followed by a gamma restart of mean u0; failures
  during a restart abandon it and a new restart is drawn;
- the first site event (rate failures.site_event_rate) loses the work since the
  newest off-site copy (copy n snapshots the newest durable checkpoint at n*R
  and lands at R + (n-1)*max(R, t_rep) + t_rep), waits a gamma site RTO of mean
  plan.rto_site, then the rest runs on the standby at speed G_s/G, failing at
  G_s*lambda.

Usage: ``python bench/reference_sim.py [trials]`` prints the mean ETTR.
"""

import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from drmath import Scenario, plan  # noqa: E402


def _gamma(rng, mean, cv):
    if mean <= 0 or cv == 0:
        return mean
    shape = 1.0 / (cv * cv)
    return rng.gammavariate(shape, mean / shape)


def _gap(rng, rate, shape):
    if shape == 1.0:
        return rng.expovariate(rate)
    scale = 1.0 / (rate * math.gamma(1.0 + 1.0 / shape))
    return rng.weibullvariate(scale, shape)


def _cluster(rng, work, rate, tau, delta, write, u0, restart_cv, shape,
             site_time=math.inf, snap_time=-math.inf):
    """One cluster, event by event. Returns a dict: done time (or None if the
    site event struck), counts, lost work, restart time, progress at the site
    event and durable progress at the replication snapshot."""
    t = 0.0
    progress = durable = 0.0
    pending = None                  # (durable_at, progress) of the checkpoint persisting
    mode, mode_end = "compute", min(tau, work)   # compute | stall | restart
    next_fail = _gap(rng, rate, shape)
    count, lost, restarting = 0, 0.0, 0.0
    snap_progress = 0.0
    snap_pending = snap_time >= 0.0
    while True:
        # the earliest of: failure, site event, snapshot, persist done, end of phase
        when, what = next_fail, "fail"
        if site_time < when:
            when, what = site_time, "site"
        if snap_pending and snap_time < when:
            when, what = snap_time, "snap"
        if pending is not None and pending[0] < when:
            when, what = pending[0], "durable"
        if mode_end < when or (mode_end == when and what == "fail"):
            when, what = mode_end, "phase"
        # advance the clock
        if mode == "compute":
            progress += when - t
        elif mode == "restart":
            restarting += when - t
        t = when
        if what == "durable":
            durable = pending[1]
            pending = None
        elif what == "snap":
            snap_progress = durable
            snap_pending = False
        elif what == "site":
            return dict(done=None, count=count, lost=lost, restarting=restarting,
                        hit_progress=progress, snap_progress=snap_progress)
        elif what == "fail":
            count += 1
            if mode != "restart":
                lost += progress - durable
            progress = durable
            pending = None
            mode, mode_end = "restart", t + _gamma(rng, u0, restart_cv)
            next_fail = t + _gap(rng, rate, shape)
        elif mode == "compute":              # a compute chunk ends
            if progress >= work - 1e-9 * work:
                return dict(done=t, count=count, lost=lost, restarting=restarting,
                            hit_progress=progress, snap_progress=snap_progress)
            pending = (t + write, progress)
            mode, mode_end = "stall", t + delta
        else:                                # a stall or a restart ends
            mode, mode_end = "compute", t + min(tau, work - progress)


def reference_run(scenario=None, trials=100, seed=0, failure_shape=1.0, restart_cv=0.5,
                  site_rto_cv=0.5):
    """Per-trial lists: ettr, completion_time, interruptions, site_event."""
    scenario = Scenario() if scenario is None else scenario
    p = plan(scenario)
    rng = random.Random(seed)
    G = scenario.training.gpus
    lam = scenario.failures.gpu_failure_rate
    site_rate = scenario.failures.site_event_rate
    args = (p.checkpoint_interval, p.checkpoint_stall, p.checkpoint_write_time, p.restart_overhead,
            restart_cv, failure_shape)
    work = p.compute_time
    R, t_rep = p.replication_interval, p.replication_time
    out = {"ettr": [], "completion_time": [], "interruptions": [], "site_event": []}
    for _ in range(trials):
        site_time = rng.expovariate(site_rate) if site_rate > 0 else math.inf
        landed = math.floor((site_time - R - t_rep) / max(R, t_rep)) + 1 if site_time < math.inf else 0
        snap_time = landed * R if landed >= 1 else -math.inf
        run = _cluster(rng, work, G * lam, *args, site_time=site_time, snap_time=snap_time)
        count = run["count"]
        if run["done"] is not None:
            done = run["done"]
        else:
            fraction = p.standby_gpus / G
            rto = _gamma(rng, p.rto_site, site_rto_cv)
            rest = _cluster(rng, (work - run["snap_progress"]) / fraction, p.standby_gpus * lam, *args)
            done = site_time + rto + rest["done"]
            count += rest["count"]
        out["ettr"].append(work / done)
        out["completion_time"].append(done)
        out["interruptions"].append(count)
        out["site_event"].append(run["done"] is None)
    return out


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    result = reference_run(trials=n)
    print(f"{n} trials: mean ETTR {sum(result['ettr']) / n:.5f}")
