import numpy as np
import pytest

from drmath import training
from drmath.units import day


def test_training_flops_scalar_and_array():
    assert training.training_flops(1e9, 1e12) == 6e21  # fails if the default k changes
    assert training.training_flops(1e9, 1e12, flops_per_param_token=8) == 8e21
    out = training.training_flops(np.array([1e9, 2e9]), 1e12)
    np.testing.assert_allclose(out, [6e21, 12e21])


def test_time_to_train_hand_value():
    # 6 × 1e9 × 1e12 / (1000 × 1e15 × 0.5 × 0.8) = 15,000 s
    assert training.time_to_train(1e9, 1e12, 1000, 1e15, 0.5, 0.8) == pytest.approx(15_000)


def test_time_to_train_broadcasts():
    gpus = np.array([1000, 2000, 4000])
    out = training.time_to_train(1e9, 1e12, gpus, 1e15, 0.5)
    np.testing.assert_allclose(out, [12_000, 6_000, 3_000])


def test_zero_ettr_means_no_end():
    assert training.time_to_train(1e9, 1e12, 1000, 1e15, 0.5, 0.0) == float("inf")
    assert training.tokens_in_window(1e9, day, 1000, 1e15, 0.5, 0.0) == 0.0


def test_inverses_round_trip():
    t = training.time_to_train(405e9, 15e12, 8000, 989.4e12, 0.4, 0.9)
    assert training.gpus_for_deadline(405e9, 15e12, t, 989.4e12, 0.4, 0.9) == pytest.approx(8000)
    assert training.tokens_in_window(405e9, t, 8000, 989.4e12, 0.4, 0.9) == pytest.approx(15e12)


@pytest.mark.parametrize("kwargs, match", [
    (dict(params=-1.0), "params must be finite and > 0, got -1.0"),
    (dict(mfu=1.5), r"mfu must be in \(0, 1\], got 1.5"),
    (dict(mfu=0.0), r"mfu must be in \(0, 1\], got 0.0"),
    (dict(ettr=1.2), r"ettr must be in \[0, 1\], got 1.2"),
    (dict(gpus=float("nan")), "gpus must be finite and > 0, got nan"),
    (dict(peak_flop_rate=float("inf")), "peak_flop_rate must be finite and > 0, got inf"),
    (dict(tokens=np.array([1e12, -1.0])), "tokens must be finite and >= 0, got -1.0"),
])
def test_bad_input_names_the_argument(kwargs, match):
    args = dict(params=1e9, tokens=1e12, gpus=1000, peak_flop_rate=1e15, mfu=0.5)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        training.time_to_train(**args)


def test_lists_broadcast_like_arrays():
    np.testing.assert_allclose(training.training_flops([1e9, 2e9], (1e12, 1e12)), [6e21, 12e21])


@pytest.mark.parametrize("bad", ["8000", None, True, [1, "a"], {"a": 1}])
def test_wrong_types_name_the_argument(bad):
    with pytest.raises(TypeError, match="gpus must be a number or an array of numbers"):
        training.time_to_train(1e9, 1e12, bad, 1e15, 0.5)


def test_no_progress_fits_no_tokens_even_when_products_underflow():
    # k·N = 1e-300 × 1e-300 underflows to 0 and ETTR 0 gives no throughput: 0/0 was NaN; no progress fits 0 tokens
    assert training.tokens_in_window(1e-300, day, 1.0, 1.0, 1.0, 0.0, flops_per_param_token=1e-300) == 0.0


def test_mismatched_arrays_name_their_shapes():
    with pytest.raises(ValueError, match=r"must broadcast together, got shapes params \(2,\), tokens \(3,\)"):
        training.training_flops(np.ones(2), np.ones(3))


@pytest.mark.parametrize("func", [training.time_to_train, training.gpus_for_deadline])
def test_no_work_needs_nothing_even_with_no_progress(func):
    # 0 tokens at ETTR 0 was 0/0 = NaN (found by tests/test_fuzz.py); no work takes no time and no GPUs,
    # while work that never progresses takes forever
    other = {"gpus": 1.0} if func is training.time_to_train else {"deadline": 1.0}
    args = dict(params=1.0, peak_flop_rate=1.0, mfu=1.0, ettr=0.0, **other)
    assert func(**args, tokens=0.0) == 0.0
    assert func(**args, tokens=1.0) == np.inf
    np.testing.assert_array_equal(func(**{**args, "ettr": np.array([0.0, 1.0, 0.0])}, tokens=np.array([0.0, 6.0, 1.0])),
                                  [0.0, 36.0, np.inf])  # 6·1·6 FLOP at 1 FLOP/s: 36 s, or 36 GPUs for 1 s


def test_mfu_from_throughput():
    assert training.mfu_from_throughput(400e12, 1000e12) == pytest.approx(0.4)
    np.testing.assert_allclose(training.mfu_from_throughput(np.array([1.0, 2.0]), 4.0), [0.25, 0.5])
    assert training.mfu_from_throughput(1.0, 1.0) == 1.0
    with pytest.raises(ValueError, match=r"achieved_flop_rate must be at most peak_flop_rate \(1.5\), got 2.0"):
        training.mfu_from_throughput(np.array([1.0, 2.0]), 1.5)


def test_effective_flop_rate():
    # 3.6e21 FLOP over 1,000 GPU-hours = 3.6e6 GPU-s: 1e15 FLOP/s per GPU
    assert training.effective_flop_rate(3.6e21, 1000 * 3600.0) == pytest.approx(1e15)
    assert training.effective_flop_rate(0.0, 1.0) == 0.0
    with pytest.raises(ValueError, match="gpu_time must be finite and > 0, got 0.0"):
        training.effective_flop_rate(1.0, 0.0)
