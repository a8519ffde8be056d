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


@pytest.mark.parametrize("call, match", [
    (lambda: cost.standby_cost(10, 10.0, 1.0, 1.5), r"reserved_share must be in \[0, 1\], got 1.5"),
    (lambda: cost.run_cost(10, -1.0, 1.0), r"duration must be >= 0 \(inf allowed\), got -1.0"),
    (lambda: cost.expected_disaster_loss(0.1, float("nan"), 1.0, 1.0), "lost_time must be >= 0"),
    (lambda: cost.fleet_cost_rate(-1, 1.0), "gpus must be finite and >= 0, got -1.0"),
    (lambda: cost.lost_time_saved(1.0, -2.0), r"lost_time must be >= 0 \(inf allowed\), got -2.0"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
