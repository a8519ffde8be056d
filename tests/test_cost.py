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


@pytest.mark.parametrize("call, match", [
    (lambda: cost.standby_cost(10, 10.0, 1.0, 1.5), r"reserved_share must be in \[0, 1\], got 1.5"),
    (lambda: cost.run_cost(10, -1.0, 1.0), r"duration must be >= 0 \(inf allowed\), got -1.0"),
    (lambda: cost.expected_disaster_loss(0.1, float("nan"), 1.0, 1.0), "lost_time must be >= 0"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
