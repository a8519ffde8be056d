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


# --------------------------------------------------------------------------- the exact ETTR


def test_ettr_exact_hand_value():
    # τ = 600, δ = 10, W = 60, u0 = 600, M = 20,000:
    # 600 · e^{-(600 + 60 - 10)/20,000} / (20,000 · (e^{610/20,000} - 1)) = 580.813 / 619.398 = 0.937707
    assert reliability.ettr_exact(600.0, 10.0, 60.0, 600.0, 20_000.0) == pytest.approx(0.937707, rel=1e-5)


def test_ettr_exact_is_daly_when_the_persist_is_the_stall():
    # synchronous checkpoints are durable when the stall ends (W = δ): Daly's complete model
    taus = np.array([60.0, 600.0, 7_000.0, 50_000.0])
    exact = reliability.ettr_exact(taus, 300.0, 300.0, 600.0, 20_000.0)
    np.testing.assert_allclose(exact, 1 - reliability.daly_waste(taus, 300.0, 600.0, 20_000.0), rtol=1e-12)


def test_ettr_exact_first_order_is_kokolis_with_the_persist_in_the_rework():
    # for τ, u0, W ≪ M the exact form is τ/(τ+δ) · (1 - (u0 + τ/2 + W - δ/2)/M) + O(1/M²)
    tau, delta, write, u0, m = 600.0, 10.0, 60.0, 300.0, 1e8
    exact = reliability.ettr_exact(tau, delta, write, u0, m)
    first = reliability.ettr(tau, delta, u0 + write - delta / 2, m)
    assert abs(exact - first) < 10 * (tau / m) ** 2


def test_ettr_exact_stays_positive_and_smooth_past_the_collapse():
    # the first-order form reaches 0 at u0 + τ/2 = M; the exact one keeps falling smoothly
    u0 = np.linspace(0.0, 5 * 1000.0, 201)
    exact = reliability.ettr_exact(60.0, 1.0, 5.0, u0, 1000.0)
    assert np.all(exact > 0) and np.all(np.diff(exact) < 0)
    np.testing.assert_allclose(exact[1:] / exact[:-1], np.exp(-25.0 / 1000.0))  # e^{-u0/M}, exactly
    assert reliability.ettr(60.0, 1.0, 1000.0, 1000.0) == 0.0
    # 60 · e^{-(1000 + 5 - 1)/1000} / (1000 · (e^{61/1000} - 1)) = 21.985 / 62.899 = 0.3495
    assert reliability.ettr_exact(60.0, 1.0, 5.0, 1000.0, 1000.0) == pytest.approx(0.3495, abs=1e-4)


def test_ettr_exact_is_monotone_and_bounded():
    base = dict(checkpoint_interval=600.0, checkpoint_cost=10.0, write_time=60.0, restart_overhead=600.0,
                mtbf=20_000.0)
    value = reliability.ettr_exact(**base)
    assert reliability.ettr_exact(**{**base, "write_time": 120.0}) < value  # a later durable checkpoint loses more
    assert reliability.ettr_exact(**{**base, "restart_overhead": 900.0}) < value
    assert reliability.ettr_exact(**{**base, "mtbf": 40_000.0}) > value
    assert value < reliability.ettr_ceiling(600.0, 20_000.0) == pytest.approx(np.exp(-0.03))
    assert reliability.ettr_exact(1e-3, 0.0, 0.0, 600.0, 20_000.0) == pytest.approx(np.exp(-0.03), rel=1e-6)
    assert reliability.ettr_exact(600.0, 0.0, 0.0, 0.0, 1e30) == 1.0


def test_ettr_exact_underflows_only_where_progress_is_nil():
    assert reliability.ettr_exact(21_600.0, 0.1, 3.0, 603.0, 270.0) == pytest.approx(1.7e-34, rel=0.05)
    assert reliability.ettr_exact(1e30, 0.0, 0.0, 0.0, 1.0) == 0.0


def test_goodput_collapsed():
    # restart ≥ MTBF, or ETTR under 1/e (the most a restart of one MTBF allows)
    np.testing.assert_array_equal(
        reliability.goodput_collapsed(np.array([0.9, 0.9, 0.36, 0.37]), np.array([600.0, 1000.0, 600.0, 600.0]),
                                      1000.0),
        [False, True, True, False])
    assert reliability.COLLAPSED_ETTR == pytest.approx(reliability.ettr_ceiling(1.0, 1.0))


# --------------------------------------------------------------------------- published helpers


def test_availability_interval_exceeds_young_and_meets_it_in_the_limit():
    # T_c = T_s + sqrt(2 (T_f + T_r) T_s + T_s²): 300 + sqrt(2 · 87,000 · 300 + 90,000) = 300 + 7,231.2 s
    assert reliability.availability_interval(300.0, 600.0, 86_400.0) == pytest.approx(7531.2, abs=0.1)
    assert reliability.availability_interval(1e-6, 0.0, 1e6) == pytest.approx(reliability.young_interval(1e-6, 1e6),
                                                                               rel=1e-6)


def test_overhead_budget_interval():
    np.testing.assert_allclose(reliability.overhead_budget_interval(np.array([10.0, 50.0]), 0.02), [500.0, 2500.0])
    assert reliability.overhead_budget_interval(0.0, 0.01) == 0.0  # a free checkpoint can be taken at any time


def test_mtbf_from_count():
    assert reliability.mtbf_from_count(1000.0, 4) == 250.0
    np.testing.assert_allclose(reliability.mtbf_from_count(1000.0, np.array([1.0, 10.0])), [1000.0, 100.0])


def test_interruption_shares_from_counts():
    shares = reliability.interruption_shares({"a": 1, "b": 3})
    assert shares == {"a": 0.25, "b": 0.75}
    assert sum(reliability.LLAMA3_CATEGORY_COUNTS.values()) == 419
    assert sum(reliability.interruption_shares(reliability.LLAMA3_CATEGORY_COUNTS).values()) == pytest.approx(1.0)
    out = reliability.interruption_shares({"a": np.array([1.0, 0.0]), "b": np.array([1.0, 2.0])})
    np.testing.assert_allclose(out["a"], [0.5, 0.0])


def test_availability_and_downtime_round_trip():
    from drmath.units import hour, year
    assert reliability.downtime_from_availability(0.999) == pytest.approx(8.76 * hour)
    assert reliability.availability_from_downtime(8.76 * hour) == pytest.approx(0.999)
    assert reliability.availability_from_downtime(hour, period=100 * hour) == pytest.approx(0.99)
    assert reliability.downtime_from_availability(1.0) == 0.0 and reliability.availability_from_downtime(year) == 0.0


@pytest.mark.parametrize("call, match", [
    (lambda: reliability.ettr_exact(600.0, 10.0, -1.0, 600.0, 1e4), "write_time must be finite and >= 0, got -1.0"),
    (lambda: reliability.ettr_exact(600.0, 10.0, 1.0, 600.0, 0.0), "mtbf must be finite and > 0, got 0.0"),
    (lambda: reliability.goodput_collapsed(1.5, 1.0, 1.0), r"ettr must be in \[0, 1\], got 1.5"),
    (lambda: reliability.overhead_budget_interval(50.0, 0.0), r"overhead_budget must be in \(0, 1\], got 0.0"),
    (lambda: reliability.mtbf_from_count(86_400.0, 0), "interruptions must be at least 1 .*, got 0.0"),
    (lambda: reliability.mtbf_from_count(86_400.0, np.array([3.0, 0.5])), "interruptions must be at least 1 .*0.5"),
    (lambda: reliability.interruption_shares({}), "counts must name at least one cause"),
    (lambda: reliability.interruption_shares({"GPU": 0, "Host": 0}), "counts must not all be 0"),
    (lambda: reliability.interruption_shares({"GPU": -1.0}), "GPU must be finite and >= 0, got -1.0"),
    (lambda: reliability.downtime_from_availability(1.2), r"availability must be in \[0, 1\], got 1.2"),
    (lambda: reliability.availability_from_downtime(2.0, 1.0),
     r"downtime must be at most the period \(1.0 s\), got 2.0"),
])
def test_bad_input_of_the_new_formulas(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --------------------------------------------------------------------------- issue 23: Weibull gaps


@pytest.mark.parametrize("mtbf", [100.0, 1063.4, 2e4, 1e7])
@pytest.mark.parametrize("tau", [1.0, 13.29, 600.0, 1e4])
def test_weibull_renewal_at_shape_1_is_the_exponential_form(tau, mtbf):
    args = (tau, 0.5, 2.0, 600.0, mtbf)
    assert reliability.ettr_weibull(*args, 1.0) == pytest.approx(reliability.ettr_exact(*args), rel=1e-6, abs=1e-300)


def test_weibull_renewal_broadcasts_like_the_other_formulas():
    taus, shapes = np.array([100.0, 200.0])[:, None], np.array([0.5, 1.0, 2.0])
    grid = reliability.ettr_weibull(taus, 1.0, 2.0, 600.0, 2e4, shapes)
    assert grid.shape == (2, 3)
    assert grid[1, 2] == reliability.ettr_weibull(200.0, 1.0, 2.0, 600.0, 2e4, 2.0)
    with pytest.raises(ValueError, match="must broadcast together"):
        reliability.ettr_weibull(np.ones(2), 1.0, 2.0, 600.0, 2e4, np.ones(3))


def test_weibull_renewal_keeps_more_when_failures_cluster():
    # the same mean gap: a shape below 1 gives long quiet stretches between clusters, which keep more work
    values = reliability.ettr_weibull(60.0, 1.0, 2.0, 600.0, 3600.0, [0.5, 0.8, 1.0, 1.5, 3.0])
    assert np.all(np.diff(values) < 0)


@pytest.mark.parametrize("shape", [0.0, -1.0, float("nan")])
def test_weibull_renewal_refuses_a_bad_shape(shape):
    with pytest.raises(ValueError, match="shape"):
        reliability.ettr_weibull(60.0, 1.0, 2.0, 600.0, 3600.0, shape)


def test_the_plan_uses_the_renewal_model_only_where_the_shape_is_not_1():
    from drmath import Scenario, plan, sweep

    p = plan()
    assert p.ettr == reliability.ettr_exact(p.checkpoint_interval, p.checkpoint_stall, p.checkpoint_write_time,
                                            p.restart_overhead, p.mtbf)  # exactly today's
    clustered = plan(Scenario().with_changes({"failures.weibull_shape": 0.7}))
    assert clustered.ettr == pytest.approx(reliability.ettr_weibull(
        p.checkpoint_interval, p.checkpoint_stall, p.checkpoint_write_time, p.restart_overhead, p.mtbf, 0.7))
    assert clustered.ettr != p.ettr
    curve = sweep(Scenario(), "failures.weibull_shape", [0.7, 1.0, 1.3], ["ettr"])["ettr"]
    assert curve[1] == p.ettr and curve[0] == pytest.approx(clustered.ettr)


def test_weibull_ettr_is_zero_not_nan_where_nothing_survives():
    # a random hypothesis draw found τ/M overflow times a sum of zero: NaN for valid input
    assert reliability.ettr_weibull(1e30, 0.0, 0.0, 0.0, 1e-300, 0.1) == 0.0
    assert reliability.ettr_weibull([1e30], 0.0, 0.0, 0.0, [1e-300], 0.1).tolist() == [0.0]
