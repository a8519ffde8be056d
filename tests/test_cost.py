import math

import numpy as np
import pytest

from drmath import cost
from drmath.units import day, hour, month


def test_gpu_hours_and_run_cost():
    assert cost.gpu_hours(100, 10 * hour) == 1000.0
    assert cost.run_cost(100, 10 * hour, 2.0) == 2000.0
    assert cost.standby_cost(100, 10 * hour, 2.0, 0.25) == 500.0


def test_replication_cost_parts():
    # 1 TB shipped at $1e-11/B = $10; 1 TB held a month at $2e-11/B = $20; 1 h of a $5 port = $5
    assert cost.replication_cost(1e12, 1e-11, 1e12, 2e-11, month, 0.0) == pytest.approx(30.0)
    assert cost.replication_cost(0.0, 0.0, 0.0, 0.0, hour, 5.0) == pytest.approx(5.0)


def test_site_event_probability():
    assert cost.site_event_probability(0.0, day) == 0.0
    assert cost.site_event_probability(1 / day, day) == pytest.approx(1 - math.exp(-1))
    assert cost.site_event_probability(1e-9, math.inf) == 1.0


def test_expected_loss_and_inf():
    assert cost.expected_disaster_loss(0.1, 100.0, 2.0, 3.0) == pytest.approx(50.0)
    assert math.isinf(cost.expected_disaster_loss(0.1, math.inf, 2.0, 3.0))
    assert cost.expected_disaster_loss(0.0, math.inf, 2.0, 3.0) == 0.0


def test_break_even():
    # ΔC = 1,000, P ΔL = 0.1 × 100 = 10 → D* = 100 - F
    assert cost.break_even_delay_cost(1000.0, 100.0, 0.1, 40.0) == pytest.approx(60.0)
    assert cost.break_even_delay_cost(1000.0, 100.0, 0.1, 400.0) == 0.0   # pays at any delay cost
    assert math.isinf(cost.break_even_delay_cost(1000.0, -5.0, 0.1, 4.0))  # slower and dearer: never
    assert cost.break_even_delay_cost(-1.0, -5.0, 0.1, 4.0) == 0.0        # cheaper: always
    np.testing.assert_allclose(cost.break_even_delay_cost(np.array([1000.0, 2000.0]), 100.0, 0.1, 0.0), [100, 200])


def test_break_even_edges():
    # an unbounded saving pays for any finite extra cost; an unbounded extra cost never pays back a finite saving
    assert cost.break_even_delay_cost(1e6, math.inf, 0.1, 5.0) == 0.0
    assert math.isinf(cost.break_even_delay_cost(math.inf, 100.0, 0.1, 5.0))
    # no chance of an event: nothing is ever saved, so a dearer tier never pays, however much it would save
    assert math.isinf(cost.break_even_delay_cost(math.inf, math.inf, 0.0, 5.0))
    # inf/inf has no answer: refused (floats gave 0.0 and arrays NaN before there was one path)
    for extra, saved in [(math.inf, math.inf), (np.array([1.0, math.inf]), np.array([1.0, math.inf]))]:
        with pytest.raises(ValueError, match="extra_cost and saved_time must not both be inf"):
            cost.break_even_delay_cost(extra, saved, 0.5, 0.0)


def test_fleet_cost_rate():
    # 3,600 GPUs at $2/h: $7,200/h = $2/s; and a run costs the rate times its length
    assert cost.fleet_cost_rate(3_600, 2.0) == pytest.approx(2.0)
    assert cost.run_cost(8_000, 90 * day, 4.92) == pytest.approx(cost.fleet_cost_rate(8_000, 4.92) * 90 * day)


def test_lost_time_saved():
    assert cost.lost_time_saved(5_000.0, 1_000.0) == 4_000.0
    assert cost.lost_time_saved(1_000.0, 5_000.0) == -4_000.0  # the tier loses more (a half-size standby)
    assert cost.lost_time_saved(math.inf, 1_000.0) == math.inf
    assert cost.lost_time_saved(1_000.0, math.inf) == -math.inf
    assert cost.lost_time_saved(math.inf, math.inf) == 0.0  # replication behind: no tier saves anything
    np.testing.assert_array_equal(cost.lost_time_saved(np.array([math.inf, 3.0]), np.array([math.inf, 1.0])), [0, 2])
    # fed to the break-even: saving nothing never pays
    assert math.isinf(cost.break_even_delay_cost(1.0, cost.lost_time_saved(math.inf, math.inf), 0.1, 0.0))


def test_either_site_interrupts_a_multi_site_run():
    rate, run = 0.0667 / (365 * day), 90 * day
    one = cost.site_event_probability(rate, run)
    two = cost.site_event_probability(rate, run, sites=2)
    assert two == pytest.approx(1 - math.exp(-2 * rate * run))
    assert two == pytest.approx(1 - (1 - one) ** 2)  # not every site survives
    assert one < two < 2 * one
    assert cost.site_event_probability(rate, run, sites=1) == one
    np.testing.assert_allclose(cost.site_event_probability(1 / day, day, np.array([1.0, 3.0])),
                               [1 - math.exp(-1), 1 - math.exp(-3)])


def test_cross_site_bandwidth():
    # two sites: each sends N b_g per step (reduce-scatter + all-gather of the half it does not own)
    assert cost.cross_site_bandwidth(1e9, 1.0) == pytest.approx(2e9)  # 1e9 x 2 B in 1 s
    assert cost.cross_site_bandwidth(1e9, 1.0, bytes_per_gradient=4) == pytest.approx(4e9)  # fp32: twice
    assert cost.cross_site_bandwidth(1e9, 2.0) == pytest.approx(1e9)  # a longer step halves it
    assert cost.cross_site_bandwidth(1e9, 1.0, sites=1) == 0.0  # one site exchanges nothing across sites
    assert cost.cross_site_bandwidth(1e9, 1.0, sites=4) == pytest.approx(1.5 * 2e9)  # 2(p-1)/p = 1.5
    # the seed case: 405B in bf16, a 16M-token step on 8,000 H100 at 40% MFU
    from drmath import presets, training
    from drmath.units import Gbit_per_s

    step = training.time_to_train(405e9, presets.GLOBAL_BATCHES["llama3-405b"].tokens, 8_000, 989.4e12, 0.4)
    assert step == pytest.approx(12.88, rel=1e-3)
    assert cost.cross_site_bandwidth(405e9, step) / Gbit_per_s == pytest.approx(503, rel=2e-3)


def test_link_cost_scales_with_bandwidth():
    from drmath import presets

    rate = presets.LINKS["dx-400g"].bandwidth_hour_price
    assert cost.link_cost(presets.LINKS["dx-400g"].bandwidth, hour, rate) == pytest.approx(85.0)
    assert cost.link_cost(2e9, 10 * hour, 1e-9) == pytest.approx(20.0)
    assert cost.link_cost(4e9, 10 * hour, 1e-9) == pytest.approx(2 * cost.link_cost(2e9, 10 * hour, 1e-9))
    assert cost.link_cost(0.0, math.inf, 1e-9) == 0.0
    assert math.isinf(cost.link_cost(1.0, math.inf, 1e-9))
    # every Direct Connect port costs within 6% of the same price per bandwidth
    prices = [link.bandwidth_hour_price for link in presets.LINKS.values()]
    assert max(prices) / min(prices) < 1.06


def test_multi_site_slip_uses_the_rebuild_of_the_other_tiers():
    from drmath import presets, recovery

    tier = presets.DR_TIERS["multi-site"]
    assert tier.rebuild_time == presets.DR_TIERS["cold"].readiness == presets.SITE_REBUILD_TIME
    half = 45 * day
    # half speed until the lost half is rebuilt in 3 weeks: 21 days at half speed lose 10.5 days
    assert recovery.resume_slip(half, tier.standby_fraction, tier.rebuild_time) == pytest.approx(10.5 * day)
    # never rebuilt (the old assumption): the whole remaining half at half speed, 45 days late
    assert recovery.resume_slip(half, tier.standby_fraction) == pytest.approx(45 * day)
    # a run that ends before the rebuild finishes on the survivor
    assert recovery.resume_slip(5 * day, 0.5, 21 * day) == pytest.approx(5 * day)
    # the two regimes meet where T_rem = f R
    assert recovery.resume_slip(10.5 * day, 0.5, 21 * day) == pytest.approx(10.5 * day)
    # full-size standbys never slip, rebuilt or not
    assert recovery.resume_slip(math.inf, 1.0, math.inf) == 0.0
    np.testing.assert_allclose(recovery.resume_slip(np.array([1.0, 100.0]) * day, 0.25, 8 * day), [3 * day, 6 * day])


@pytest.mark.parametrize("call, match", [
    (lambda: cost.standby_cost(10, 10.0, 1.0, 1.5), r"reserved_share must be in \[0, 1\], got 1.5"),
    (lambda: cost.run_cost(10, -1.0, 1.0), r"duration must be >= 0 \(inf allowed\), got -1.0"),
    (lambda: cost.expected_disaster_loss(0.1, float("nan"), 1.0, 1.0), "lost_time must be >= 0"),
    (lambda: cost.fleet_cost_rate(-1, 1.0), "gpus must be finite and >= 0, got -1.0"),
    (lambda: cost.lost_time_saved(1.0, -2.0), r"lost_time must be >= 0 \(inf allowed\), got -2.0"),
    (lambda: cost.site_event_probability(1e-9, 10.0, sites=0.5), "sites must be >= 1, got 0.5"),
    (lambda: cost.cross_site_bandwidth(405e9, 0.0), "step_time must be finite and > 0, got 0.0"),
    (lambda: cost.cross_site_bandwidth(405e9, 10.0, sites=0), "sites must be >= 1, got 0.0"),
    (lambda: cost.cross_site_bandwidth(4e11, 9.0, bytes_per_gradient=-2), "bytes_per_gradient must be finite and > 0"),
    (lambda: cost.link_cost(-1.0, 10.0, 1e-9), "bandwidth must be finite and >= 0, got -1.0"),
    (lambda: cost.link_cost(1.0, float("nan"), 1e-9), r"duration must be >= 0 \(inf allowed\), got nan"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
