import numpy as np
import pytest

from drmath import checkpoint


def test_checkpoint_bytes():
    assert checkpoint.checkpoint_bytes(70e9) == 980e9  # fails if the default 14 B/param changes
    assert checkpoint.checkpoint_bytes(70e9, 2) == 140e9
    np.testing.assert_allclose(checkpoint.checkpoint_bytes(np.array([1e9, 2e9])), [14e9, 28e9])


def test_write_time_is_capped_by_writers():
    # 1 TB over a 2 TB/s filesystem: 0.5 s when writers can feed it, 10 s when 10 writers × 10 GB/s cap it
    assert checkpoint.checkpoint_write_time(1e12, 2e12, 1000, 10e9) == pytest.approx(0.5)
    assert checkpoint.checkpoint_write_time(1e12, 2e12, 10, 10e9) == pytest.approx(10.0)


def test_stall_async_and_sync():
    assert checkpoint.checkpoint_stall(5.0, 1e9, 1e9, asynchronous=True) == pytest.approx(1.0)
    assert checkpoint.checkpoint_stall(5.0, 1e9, 1e9, asynchronous=False) == pytest.approx(5.0)
    out = checkpoint.checkpoint_stall(np.array([5.0, 6.0]), 1e9, 1e9, asynchronous=np.array([True, False]))
    np.testing.assert_allclose(out, [1.0, 6.0])


def test_load_floor_share():
    assert checkpoint.checkpoint_load_time(1e12, 4e11) == pytest.approx(2.5)
    assert checkpoint.checkpoint_interval_floor(3.0, 1.0) == 3.0
    assert checkpoint.checkpoint_bandwidth_share(1e12, 100.0, 1e12) == pytest.approx(0.01)
    assert checkpoint.shard_bytes(8e9, 8) == 1e9


@pytest.mark.parametrize("call, match", [
    (lambda: checkpoint.checkpoint_bytes(0), "params must be finite and > 0, got 0"),
    (lambda: checkpoint.checkpoint_bytes(1e9, -2), "bytes_per_param must be finite and > 0, got -2"),
    (lambda: checkpoint.checkpoint_write_time(1e12, 0, 10, 1e9), "write_bandwidth must be finite and > 0"),
    (lambda: checkpoint.checkpoint_load_time(1e12, float("nan")), "read_bandwidth must be finite and > 0, got nan"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
