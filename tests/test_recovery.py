import math

import numpy as np
import pytest

from drmath import recovery


def test_rpo_local():
    assert recovery.rpo_local(600.0, 3.0) == 603.0
    assert recovery.rpo_local(600.0, 3.0, expected=True) == 303.0


def test_rpo_local_expected_matches_uniform_failure_time():
    # a failure at uniform t in [0, τ) loses τ + t while the checkpoint persists (t < W), else t
    tau, w = 600.0, 90.0
    t = np.linspace(0, tau, 600_001)[:-1]
    lost = np.where(t < w, tau + t, t)
    assert lost.mean() == pytest.approx(recovery.rpo_local(tau, w, expected=True), rel=1e-4)
    assert lost.max() == pytest.approx(recovery.rpo_local(tau, w), rel=1e-4)


def test_rpo_site_one_hop_that_keeps_up_or_falls_behind():
    # one hop: its time is the chain's and the cycle's; kτ = 1 h, W = 3 s, t_rep = 500 s
    assert recovery.rpo_site_pipeline(3600.0, 3.0, [500.0]) == 4103.0
    assert recovery.rpo_site_pipeline(3600.0, 3.0, [500.0], expected=True) == 2303.0
    assert math.isinf(recovery.rpo_site_pipeline(3600.0, 3.0, [5000.0]))
    out = recovery.rpo_site_pipeline(3600.0, 3.0, [np.array([500.0, 5000.0])])
    assert out[0] == 4103.0 and math.isinf(out[1])


HOPS = [283.5, 504.0]
"""A 283.5 s upload then a 504 s link: a 787.5 s chain whose slowest hop takes 504 s."""


def test_rpo_site_pipeline_by_policy():
    # every 10 min, W = 3 s, a 787.5 s chain whose slowest hop takes 504 s: both policies agree
    for newest in (False, True):
        assert recovery.rpo_site_pipeline(600.0, 3.0, HOPS, newest) == 600 + 3 + 787.5
        assert recovery.rpo_site_pipeline(600.0, 3.0, HOPS, newest, expected=True) == 300 + 3 + 787.5
    # keeps-up is judged hop by hop: the chain's 787.5 s latency exceeds kτ, yet it only adds to the loss
    assert recovery.rpo_site_pipeline(600.0, 3.0, HOPS) == recovery.rpo_site_pipeline(600.0, 3.0, [0.0]) + 787.5
    # every 5 min the 504 s hop falls behind: every-k has no bound, newest-only adds one cycle (half, expected)
    assert math.isinf(recovery.rpo_site_pipeline(300.0, 3.0, HOPS))
    assert math.isinf(recovery.rpo_site_pipeline(300.0, 3.0, HOPS, expected=True))
    assert recovery.rpo_site_pipeline(300.0, 3.0, HOPS, True) == 300 + 3 + 787.5 + 504
    assert recovery.rpo_site_pipeline(300.0, 3.0, HOPS, True, True) == 150 + 3 + 787.5 + 252
    out = recovery.rpo_site_pipeline(300.0, 3.0, [283.5, np.array([200.0, 504.0])], np.array([False, False]))
    assert out[0] == 300 + 3 + 483.5 and math.isinf(out[1])


def test_rpo_site_pipeline_newest_expected_matches_a_uniform_phase():
    # newest-only, a busy pipeline: the copy taken is a uniform [0, kτ) old, it lands L later, and the
    # site event falls uniformly within the next cycle T: E = kτ/2 + L + T/2 + W
    k_tau, W, L, T = 300.0, 3.0, 787.5, 504.0
    age, since = np.meshgrid(np.linspace(0, k_tau, 601)[:-1], np.linspace(0, T, 1009)[:-1])
    loss = age + L + since + W
    assert loss.mean() == pytest.approx(recovery.rpo_site_pipeline(k_tau, W, [L - T, T], True, True), rel=1e-3)
    assert loss.max() <= recovery.rpo_site_pipeline(k_tau, W, [L - T, T], True)


def test_phases_and_rto():
    local = recovery.local_rto_phases(1.0, 2.0, 3.0, 4.0, 5.0)
    assert tuple(local) == recovery.LOCAL_PHASES and recovery.rto(local) == 15.0
    site = recovery.site_rto_phases(1, 2, 3, 4, 5, 6, 7)
    assert tuple(site) == recovery.SITE_PHASES and recovery.rto(site) == 28.0


def test_resume_slip():
    assert recovery.resume_slip(100.0, 1.0) == 0.0
    assert recovery.resume_slip(100.0, 0.25) == 300.0


def test_expected_remaining_run_is_the_mean_over_a_uniform_event_time():
    run = 90 * 86_400.0
    t = np.linspace(0, run, 100_001)
    assert recovery.expected_remaining_run(run) == pytest.approx((run - t).mean(), rel=1e-9)
    assert recovery.expected_remaining_run(np.inf) == np.inf
    assert recovery.resume_slip(recovery.expected_remaining_run(run), 0.5) == pytest.approx(run / 2)


@pytest.mark.parametrize("call, match", [
    (lambda: recovery.local_rto_phases(-1.0, 0, 0, 0, 0), "detection must be finite and >= 0, got -1.0"),
    (lambda: recovery.rto({}), "phases must name at least one phase"),
    (lambda: recovery.rto({"detection": 60.0, "load": -1.0}), "load must be finite and >= 0, got -1.0"),
    (lambda: recovery.expected_remaining_run(-1.0), r"run_time must be >= 0 \(inf allowed\)"),
    (lambda: recovery.resume_slip(10.0, 0.0), r"standby_fraction must be in \(0, 1\], got 0.0"),
    (lambda: recovery.rpo_site_pipeline(0.0, 1.0, [1.0]), "replication_interval must be finite and > 0"),
    (lambda: recovery.rpo_site_pipeline(600.0, 3.0, [283.5, -1.0]), r"hop_times\[1\] must be finite and >= 0"),
    (lambda: recovery.rpo_site_pipeline(600.0, float("nan"), HOPS), "write_time must be finite and >= 0"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_rpo_site_pipeline_policy_is_a_flag():
    with pytest.raises(TypeError, match="newest_only must be True or False, got str 'newest'"):
        recovery.rpo_site_pipeline(600.0, 3.0, HOPS, "newest")
