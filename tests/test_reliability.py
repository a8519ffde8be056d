import numpy as np
import pytest

from drmath import reliability


def test_mtbf_and_interruptions():
    assert reliability.cluster_mtbf(1000, 1e-6) == pytest.approx(1000.0)
    assert reliability.expected_interruptions(5000.0, 1000.0) == 5.0


def test_young_is_the_minimum_of_first_order_waste():
    tau = reliability.young_interval(10.0, 20_000.0)
    assert tau == pytest.approx(np.sqrt(2 * 10 * 20_000))
    taus = tau * np.array([0.9, 0.99, 1.0, 1.01, 1.1])
    w = reliability.waste(taus, 10.0, 600.0, 20_000.0)
    assert np.argmin(w) == 2


def test_daly_limits():
    # δ ≥ 2M returns M; for δ ≪ M it approaches Young minus δ
    assert reliability.daly_interval(5000.0, 2000.0) == 2000.0
    young = reliability.young_interval(1.0, 1e6)
    assert reliability.daly_interval(1.0, 1e6) == pytest.approx(young - 1.0, rel=1e-3)
    np.testing.assert_allclose(reliability.daly_interval(np.array([5000.0, 300.0]), 2000.0)[0], 2000.0)


def test_daly_minimises_its_own_model():
    tau = reliability.daly_interval(300.0, 86_400.0)
    grid = tau * np.linspace(0.8, 1.2, 41)
    w = reliability.daly_waste(grid, 300.0, 600.0, 86_400.0)
    assert abs(grid[np.argmin(w)] / tau - 1) <= 0.01


def test_ettr_hand_value_and_clip():
    # (1 - (600 + 300)/20,000) / (1 + 10/600) = 0.955 / 1.016667 = 0.939344
    assert reliability.ettr(600.0, 10.0, 600.0, 20_000.0) == pytest.approx(0.939344, rel=1e-5)
    assert reliability.ettr(600.0, 10.0, 30_000.0, 20_000.0) == 0.0
    assert reliability.ettr(600.0, 0.0, 0.0, 1e30) == pytest.approx(1.0)


@pytest.mark.parametrize("call, match", [
    (lambda: reliability.cluster_mtbf(0, 1e-6), "gpus must be finite and > 0, got 0"),
    (lambda: reliability.cluster_mtbf(10, -1e-6), "gpu_failure_rate must be finite and > 0"),
    (lambda: reliability.young_interval(float("nan"), 10.0), "checkpoint_cost must be finite and > 0, got nan"),
    (lambda: reliability.ettr(0.0, 1.0, 1.0, 10.0), "checkpoint_interval must be finite and > 0, got 0.0"),
    (lambda: reliability.ettr(10.0, -1.0, 1.0, 10.0), "checkpoint_cost must be finite and >= 0, got -1.0"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
