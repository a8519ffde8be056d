"""Tests for drmath.simulate: the Monte Carlo against the closed forms and against hand arithmetic."""

import math

import numpy as np
import pytest

from drmath import Scenario, plan, recovery, replication
from drmath.simulate import TRIAL_ARRAYS, TRIAL_UNITS, SimulationResult, _Pipeline, ettr_sweep, simulate_run
from drmath.units import day, hour

NO_SITE = {"failures.site_event_rate": 0.0}
NEVER_FAILS = {"failures.gpu_failure_rate": 1e-15}   # M ~ 4,000 years for 8,000 GPUs


# --- cross-check with the closed form where its assumptions hold (delta, u0 << M) ---------------
# Kokolis et al. 2024, E[ETTR] = (1 - (u0 + tau/2)/M) / (1 + delta/tau), first order in 1/M.
# The band is the central 99% of the per-trial ETTR; "within 2%" is of the simulated mean.
@pytest.mark.parametrize("changes", [
    pytest.param({}, id="default-30d"),
    pytest.param({"training.gpus": 16_384}, id="16k-gpus"),
    pytest.param({"checkpoint.mode": "sync"}, id="sync"),
    pytest.param({"checkpoint.interval": 1800.0}, id="tau-30min"),
    pytest.param({"failures.launch_time": 60.0, "failures.validation_time": 30.0}, id="fast-restart"),
    pytest.param({"training.gpus": 2_000, "training.window": 60 * day}, id="2k-gpus-60d"),
])
def test_closed_form_ettr_inside_simulated_band(changes):
    s = Scenario().with_changes({"training.window": 30 * day, **NO_SITE, **changes})
    p = plan(s)
    assert (p.restart_overhead + p.checkpoint_stall) / p.mtbf < 0.1   # the regime under test
    r = simulate_run(s, trials=2_000, seed=3)
    lo, hi = r.ettr_interval(0.99)
    assert lo <= p.ettr <= hi
    assert abs(p.ettr / r.ettr.mean() - 1) < 0.02


def test_expected_interruptions_match_poisson_rate():
    # E[N(T)] = G*lambda*E[T] for a Poisson process stopped at the completion time (Wald).
    s = Scenario().with_changes({"training.window": 30 * day, **NO_SITE})
    r = simulate_run(s, trials=4_000, seed=5)
    rate = s.training.gpus * s.failures.gpu_failure_rate
    expected = rate * r.completion_time.mean()
    tolerance = 5 * math.sqrt(expected / r.trials) + 0.5     # 5 standard errors of the mean count
    assert abs(r.interruptions.mean() - expected) < tolerance
    # and the count over the planned window, G*lambda*T from plan()
    assert r.interruptions.mean() == pytest.approx(plan(s).expected_interruptions, rel=0.01)
    # Poisson: variance about equal to the mean
    assert r.interruptions.var() / r.interruptions.mean() == pytest.approx(1.0, abs=0.15)


def test_no_failures_is_pure_checkpoint_arithmetic():
    # with no failures the run is C of compute plus one stall per checkpoint, none at the end
    s = Scenario().with_changes({**NEVER_FAILS, **NO_SITE, "checkpoint.interval": 3600.0,
                                 "training.tokens": 1e12})
    p = plan(s)
    r = simulate_run(s, trials=20, seed=0)
    C, tau, delta = p.compute_time, p.checkpoint_interval, p.checkpoint_stall
    expected = C + delta * (math.ceil(C / tau) - 1)
    np.testing.assert_allclose(r.completion_time, expected, rtol=1e-12)
    np.testing.assert_allclose(r.ettr, C / expected, rtol=1e-12)
    assert r.interruptions.sum() == 0 and np.all(r.lost_gpu_hours == 0)


def test_site_event_hand_arithmetic_with_no_local_failures():
    # a hot standby half the size; no local failures, so every site event can be replayed by hand from
    # the replication schedule (multi-site no longer ships its state off-site: each site holds it, issue 21)
    s = Scenario().with_changes({**NEVER_FAILS, "failures.site_event_rate": 1e-6, "failover.standby_fraction": 0.5,
                                 "failover.tier": "hot", "checkpoint.interval": 600.0,
                                 "training.window": 30 * day})
    p = plan(s)
    r = simulate_run(s, trials=400, seed=11, site_rto_cv=0.0)
    hit = np.flatnonzero(r.site_event)
    assert hit.size > 100
    C, tau, delta, W = p.compute_time, p.checkpoint_interval, p.checkpoint_stall, p.checkpoint_write_time
    c = tau + delta
    k, L = p.replication_every, p.replication_time
    assert p.replication_keeps_up                         # every copy enters the pipeline when durable
    for i in hit[:50]:
        ts = r.site_time[i]
        # checkpoint n*k*tau starts at n*k*c - delta, is durable W later and off-site L after that
        n = max(math.floor((ts + delta - W - L) / (k * c)), 0)
        offsite = n * k * tau
        cycles = math.floor(ts / c)
        at_event = cycles * tau + min(ts - cycles * c, tau)
        assert r.site_rpo[i] == pytest.approx(at_event - offsite, rel=1e-9, abs=1e-6)
        assert r.site_rto[i] == pytest.approx(p.rto_site)
        rest = (C - offsite) / 0.5                        # the standby runs at half speed
        done = ts + p.rto_site + rest + delta * (math.ceil(rest / tau) - 1)
        assert r.completion_time[i] == pytest.approx(done, rel=1e-9)
        # the realised RPO never exceeds the plan's worst case (the launch rule is the formula's)
        assert r.site_rpo[i] <= p.rpo_site
    assert np.isnan(r.site_rpo[~r.site_event]).all()


def test_site_rpo_grows_when_replication_cannot_keep_up():
    s = Scenario().with_changes({"failures.site_event_rate": 1e-5, "replication.link_bandwidth": 1e9,
                                 "training.window": 30 * day})
    p = plan(s)
    assert not p.replication_keeps_up and math.isinf(p.rpo_site)
    r = simulate_run(s, trials=300, seed=2)
    hit = r.site_event
    # the backlog: a copy is due every k*tau but the link passes one per t_link, so the data ages with the run
    corr = np.corrcoef(r.site_time[hit], r.site_rpo[hit])[0, 1]
    assert corr > 0.8
    late = hit & (r.site_time > 10 * day)
    finite_bound = p.replication_interval + p.replication_time + p.checkpoint_write_time
    assert np.all(r.site_rpo[late] > finite_bound)


def _replay(segments, k, tau, delta, write, cycle, latency, newest, site_time):
    """Progress off-site at ``site_time``, copy by copy: the launch rule written out plainly."""
    c = tau + delta
    arrivals = []                                       # (durable time, progress) of shipped checkpoints
    for start, saved, end in segments:
        j = 1
        while start + j * c - delta + write <= end:
            if round(saved / tau + j) % k == 0:
                arrivals.append((start + j * c - delta + write, saved + j * tau))
            j += 1
    best, free, i = 0.0, -math.inf, 0
    while i < len(arrivals):
        if newest:                                      # a free server takes the newest copy waiting
            while i + 1 < len(arrivals) and arrivals[i + 1][0] <= free:
                i += 1
        when, progress = arrivals[i]
        entered = max(when, free)
        free = entered + cycle
        if entered + latency <= site_time:
            best = max(best, progress)
        i += 1
    return best


@pytest.mark.parametrize("newest", [False, True], ids=["every-k", "newest"])
@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("cycle", [50.3, 200.7, 290.1, 800.9, 950.3, 2_500.7])
def test_pipeline_closed_form_matches_a_copy_by_copy_replay(newest, k, cycle):
    # random failure segments: the per-segment closed form of the simulator against a plain replay;
    # copies are due every k(tau + delta) = 304.3 or 912.9 s: cycles below, near and far above it
    # (not commensurate with it: an exact tie between a copy and a free server is a float coin toss)
    rng = np.random.default_rng(7)
    tau, delta, write, latency = 300.0, 4.3, 21.7, cycle + 40.0
    n, steps = 200, 12
    site_time = rng.uniform(0, 40_000.0, n)
    pipe = _Pipeline(site_time, k, tau, delta, cycle, latency, newest)
    t, saved, segments = np.zeros(n), np.zeros(n), [[] for _ in range(n)]
    for step in range(steps):
        start = t + (rng.exponential(600.0, n) if step else 0.0)
        stop = start + rng.exponential(4_000.0, n) - (rng.random(n) < 0.1) * 5_000.0  # some restarts are hit
        active = site_time > t
        end = np.minimum(stop, site_time)
        pipe.segment(active & (stop > start), start, saved, end, delta, write)
        for i in np.flatnonzero(active & (stop > start)):
            segments[i].append((start[i], saved[i], end[i]))
        x = stop - start
        saved += np.where(active & (x > 0), np.maximum(np.floor((x + delta - write) / (tau + delta)), 0) * tau, 0)
        t = np.where(active, np.maximum(stop, start), t)
    got = pipe.offsite(np.arange(n))
    want = [_replay(segments[i], k, tau, delta, write, cycle, latency, newest, site_time[i]) for i in range(n)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
    assert np.count_nonzero(got) > n // 2


def test_newest_only_stays_bounded_where_every_k_builds_a_backlog():
    s = Scenario().with_changes({"failures.site_event_rate": 1e-5, "replication.link_bandwidth": 1e9,
                                 "training.window": 30 * day})
    p = plan(s)
    every_k = simulate_run(s, trials=300, seed=2, replication_policy="every-k")
    newest = simulate_run(s, trials=300, seed=2, replication_policy="newest")
    assert np.nanmax(every_k.site_rpo) > 10 * np.nanmax(newest.site_rpo)   # 203,000 s against 15,600 s
    T = replication.pipeline_cycle([p.object_store_time, p.link_time])
    bound = recovery.rpo_site_pipeline(p.replication_every * p.checkpoint_interval, p.checkpoint_write_time,
                                       [p.object_store_time, p.link_time], newest_only=True,
                                       launch_spacing=p.replication_interval)
    assert T > p.replication_interval  # the link is busy
    assert np.nanmax(newest.site_rpo) <= bound


def test_policy_defaults_to_every_k():
    s = Scenario().with_changes({"failures.site_event_rate": 1e-5, "replication.link_bandwidth": 1e9,
                                 "training.window": 10 * day})
    default = simulate_run(s, trials=50, seed=3)
    np.testing.assert_array_equal(default.site_rpo, simulate_run(s, trials=50, seed=3,
                                                                 replication_policy="every-k").site_rpo)


def test_recorded_events_match_local_rpo_and_rto():
    s = Scenario().with_changes({"training.window": 30 * day, **NO_SITE})
    p = plan(s)
    r = simulate_run(s, trials=500, seed=4, record_events=True)
    tau, W = p.checkpoint_interval, p.checkpoint_write_time
    # lost work: uniform over a cycle, so about tau/2 (plus the persist window); never above tau + W
    assert np.all(r.local_rpo >= 0) and np.all(r.local_rpo <= tau + W + 1e-9)
    assert r.local_rpo.mean() == pytest.approx(tau / 2 + W, rel=0.05)
    # each outage lasts at least nothing and on average about u0 (a bit more: restarts get hit)
    assert r.local_rto.mean() == pytest.approx(p.restart_overhead, rel=0.03)
    assert r.local_rto.size <= r.events and r.local_rpo.size <= r.events
    assert np.bincount(r.local_rpo_trial, minlength=r.trials).sum() == r.local_rpo.size


def test_weibull_keeps_mean_rate_and_clusters_failures():
    s = Scenario().with_changes({"training.window": 30 * day, **NO_SITE})
    poisson = simulate_run(s, trials=2_000, seed=8)
    weibull = simulate_run(s, trials=2_000, seed=8, failure_shape=0.7)
    assert weibull.interruptions.mean() == pytest.approx(poisson.interruptions.mean(), rel=0.05)
    assert weibull.interruptions.var() > 1.3 * poisson.interruptions.var()


def test_reproducible_for_a_seed():
    s = Scenario().with_changes({"training.window": 7 * day, "failures.site_event_rate": 1e-6})
    a, b = simulate_run(s, 300, seed=9), simulate_run(s, 300, seed=9)
    c = simulate_run(s, 300, seed=10)
    for name in ("ettr", "completion_time", "lost_gpu_hours", "interruptions", "site_rpo", "site_rto"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert not np.array_equal(a.completion_time, c.completion_time)


def test_result_shapes_percentiles_and_summary():
    r = simulate_run(Scenario().with_changes({"training.window": 7 * day}), trials=200, seed=1)
    assert isinstance(r, SimulationResult)
    for name in ("ettr", "completion_time", "lost_gpu_hours", "interruptions", "site_event",
                 "site_rpo", "site_rto"):
        assert getattr(r, name).shape == (200,)
    q = r.percentiles("completion_time", (5, 50, 95))
    assert q[5.0] <= q[50.0] <= q[95.0]
    assert q[50.0] == pytest.approx(np.median(r.completion_time))
    lo, hi = r.ettr_mean_interval(0.99)
    assert lo < r.ettr.mean() < hi
    assert r.events == r.interruptions.sum()
    summary = r.summary()
    assert summary["ettr_mean"] == pytest.approx(r.ettr.mean())
    assert summary["events"] == r.interruptions.sum()
    assert summary["completion_time_p95"] == pytest.approx(q[95.0])


SOME_SITE_EVENTS = {"training.window": 7 * day, "failures.site_event_rate": 1e-6}   # P(hit) ~ 45%


def test_to_frame_is_one_row_per_run():
    r = simulate_run(Scenario().with_changes(SOME_SITE_EVENTS), trials=300, seed=2)
    runs = r.to_frame()
    assert runs.index.name == "trial" and runs.index.tolist() == list(range(r.trials))
    assert runs.columns.tolist() == list(TRIAL_UNITS) and runs.attrs["units"] == TRIAL_UNITS
    for name in TRIAL_UNITS:
        np.testing.assert_array_equal(runs[name].to_numpy(), getattr(r, name))
    # a row is one run: its site columns are filled exactly when a site event struck it
    assert 0 < runs["site_event"].sum() < r.trials
    for name in ("site_time", "site_rpo", "site_rto"):
        assert (runs[name].notna() == runs["site_event"]).all()


def test_summary_matches_the_per_trial_arrays():
    r = simulate_run(Scenario().with_changes(SOME_SITE_EVENTS), trials=300, seed=2)
    table = r.describe(q=(1, 50, 99))
    assert table.index.name == "quantity" and table.index.tolist() == list(TRIAL_ARRAYS)
    assert table.columns.tolist() == ["unit", "count", "mean", "p1", "p50", "p99"]
    for name in TRIAL_ARRAYS:
        values = np.asarray(getattr(r, name), dtype=float)
        values = values[~np.isnan(values)]
        row = table.loc[name]
        assert row["unit"] == TRIAL_UNITS[name]
        assert row["count"] == values.size
        assert row["mean"] == pytest.approx(values.mean())
        assert row["p50"] == pytest.approx(np.median(values))
        for p, value in r.percentiles(name, (1, 50, 99)).items():
            assert row[f"p{p:g}"] == pytest.approx(value)
    assert table.loc["site_rpo", "count"] == r.site_event.sum() < r.trials
    assert table.loc["ettr", "count"] == r.trials
    assert r.describe().columns.tolist() == ["unit", "count", "mean", "p5", "p50", "p95"]   # the default


def test_summary_without_site_events_has_empty_site_rows():
    r = simulate_run(Scenario().with_changes({"training.window": 2 * day, **NO_SITE}), trials=50, seed=0)
    table = r.describe()
    assert table.loc["site_rpo", "count"] == 0 and table.loc["site_rto", "count"] == 0
    assert table.loc[["site_rpo", "site_rto"], ["mean", "p5", "p50", "p95"]].isna().all().all()
    assert table.loc["ettr", ["mean", "p5", "p50", "p95"]].notna().all()
    with pytest.raises(ValueError, match=r"q must be a number in \[0, 100\], got 101"):
        r.describe(q=(50, 101))


def test_lost_gpu_hours_are_lost_work_plus_restarts():
    # restart_cv = 0: every completed restart is exactly u0; lost GPU-hours = G*(lost + restarts)/h
    s = Scenario().with_changes({"training.window": 30 * day, **NO_SITE})
    p = plan(s)
    r = simulate_run(s, trials=300, seed=6, restart_cv=0.0, record_events=True)
    G = s.training.gpus
    per_trial_lost = np.bincount(r.local_rpo_trial, weights=r.local_rpo, minlength=r.trials)
    restarts = r.lost_gpu_hours * hour / G - per_trial_lost
    # between (completed restarts) * u0 and (interruptions) * u0
    assert np.all(restarts <= r.interruptions * p.restart_overhead + 1e-6)
    assert np.all(restarts >= (r.interruptions * p.restart_overhead) * 0.8)


def test_progress_callback_reaches_one():
    seen = []
    simulate_run(Scenario().with_changes({"training.window": 14 * day}), 100, 0, progress=seen.append)
    assert seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)


def test_ettr_sweep_shows_drift_where_assumptions_break():
    s = Scenario().with_changes({"training.tokens": 1e11, **NO_SITE, "checkpoint.interval": 600.0})
    lam = s.failures.gpu_failure_rate
    out = ettr_sweep(s, "failures.gpu_failure_rate", [lam, 12 * lam], trials=300)
    assert abs(out["first_order_drift"][0]) < 0.02   # u0/M ~ 0.03: the first-order form holds
    assert abs(out["first_order_drift"][1]) > 0.05   # u0/M ~ 0.3: it does not
    # the plan's exact form holds at both (a run this short reads ~1.5% high: it saves its first restart)
    assert np.all(np.abs(out["drift"]) < 0.02)
    np.testing.assert_allclose(out["drift"], out["analytic"] / out["mean"] - 1)
    np.testing.assert_allclose(out["first_order_drift"], out["first_order"] / out["mean"] - 1)


@pytest.mark.parametrize("kwargs, message", [
    ({"trials": 0}, r"trials must be a whole number in \[1, 1e\+07\], got 0"),
    ({"trials": 2.5}, "trials must be a whole number"),
    ({"seed": -1}, "seed must be a whole number"),
    ({"failure_shape": 0.0}, r"failure_shape must be a number in \(0, 10\], got 0.0"),
    ({"restart_cv": -0.1}, r"restart_cv must be a number in \[0, 10\], got -0.1"),
    ({"site_rto_cv": float("nan")}, "site_rto_cv must be a number"),
    ({"replication_policy": "latest"}, "replication_policy must be one of 'every-k', 'newest', got 'latest'"),
    ({"replication_policy": 1}, "replication_policy must be one of 'every-k', 'newest', got 1"),
])
def test_bad_arguments_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        simulate_run(Scenario(), **{"trials": 10, **kwargs})


def test_bad_scenario_and_result_queries_raise():
    with pytest.raises(TypeError, match="scenario must be a Scenario"):
        simulate_run({"training.gpus": 8})
    r = simulate_run(Scenario().with_changes({"training.window": 2 * day}), 20, 0)
    with pytest.raises(ValueError, match="confidence must be a number in"):
        r.ettr_interval(1.0)
    with pytest.raises(ValueError, match="name must be one of"):
        r.percentiles("nope")
    collapsed = Scenario().with_changes({"failures.gpu_failure_rate": 1e-6})  # MTBF 125 s against a 10 min restart
    r = simulate_run(collapsed, 10)  # goodput collapses but never reaches 0: the run still has work to simulate
    assert r.plan.goodput_collapsed and 0 < r.plan.ettr < 0.01 and np.all(r.ettr > 0)


def test_a_measured_mtbf_drives_plan_and_simulator_alike():
    """failures.measured_mtbf replaces 1/(G λ) in the plan, and the simulator draws failures at that rate."""
    s = Scenario().with_changes({"failures.measured_mtbf": 2 * hour, "training.window": 14 * day, **NO_SITE})
    p = plan(s)
    assert p.mtbf == 2 * hour and plan(Scenario()).mtbf != 2 * hour
    r = simulate_run(s, trials=300, seed=3, restart_cv=0.0)
    assert r.ettr.mean() == pytest.approx(p.ettr, abs=0.01)
    assert r.interruptions.mean() == pytest.approx(r.completion_time.mean() / p.mtbf, rel=0.05)


# --- issue 23: the plan's Weibull renewal goodput against the simulator with the same shape -------------------

WEIBULL_RUN = {"training.gpus": 16_384, "failures.gpu_failure_rate": "rsc-1", "training.window": 30 * day,
               **NO_SITE}


@pytest.mark.parametrize("shape", [0.5, 0.75, 1.0, 1.25, 1.5])
def test_the_plans_weibull_goodput_matches_the_simulator_within_1_percent(shape):
    s = Scenario().with_changes({**WEIBULL_RUN, "failures.weibull_shape": shape})
    simulated = float(simulate_run(s, trials=200, seed=5).ettr.mean())  # the scenario's shape
    assert plan(s).ettr == pytest.approx(simulated, rel=0.01)


def test_the_simulator_takes_the_scenarios_weibull_shape():
    s = Scenario().with_changes({**WEIBULL_RUN, "failures.weibull_shape": 0.6})
    assert simulate_run(s, trials=20, seed=1).failure_shape == 0.6
    assert simulate_run(s, trials=20, seed=1, failure_shape=1.0).failure_shape == 1.0


def test_a_tier_the_simulation_does_not_draw_is_refused_not_simulated_as_another():
    # replica groups recover with no restart; simulated as checkpoint-restart, their "simulated ETTR" would sit
    # beside a plan that says otherwise (notebook 06 offered the tier)
    from drmath.simulate import simulate_run_log

    ft = Scenario().with_changes({"failover.tier": "fault-tolerant"})
    for simulate in (lambda s: simulate_run(s, trials=10), simulate_run_log):
        with pytest.raises(ValueError, match=r"failover.tier = 'fault-tolerant' is not simulated.*one of cold"):
            simulate(ft)
