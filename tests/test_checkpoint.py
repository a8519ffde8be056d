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


def test_async_stall_never_exceeds_a_sync_write():
    # 8 GPUs of a 405B checkpoint: 709 GB each at 677 MB/s to host is 1,047 s; writing it is 113.4 s
    size = checkpoint.checkpoint_bytes(405e9)
    write = checkpoint.checkpoint_write_time(size, 2e12, 8, 6.25e9)
    shard = checkpoint.shard_bytes(size, 8)
    assert write == pytest.approx(113.4)
    assert checkpoint.checkpoint_stall(write, shard, 677e6) == write
    assert checkpoint.checkpoint_stall(write, shard, 677e6, asynchronous=False) == write
    # at 8,000 GPUs the host copy is the faster choice and stays
    size_8k = checkpoint.shard_bytes(size, 8_000)
    assert checkpoint.checkpoint_stall(2.835, size_8k, 677e6) == pytest.approx(size_8k / 677e6)
    gpus = np.geomspace(8, 131_072, 40)
    shards = checkpoint.shard_bytes(size, gpus)
    writes = checkpoint.checkpoint_write_time(size, 2e12, gpus, 6.25e9)
    assert np.all(checkpoint.checkpoint_stall(writes, shards, 677e6) <= writes)


def test_load_goes_through_the_same_limits_as_a_write():
    size = checkpoint.checkpoint_bytes(405e9)
    for gpus in (8, 64, 320, 8_000, 100_000):
        write = checkpoint.checkpoint_write_time(size, 2e12, gpus, 6.25e9)
        assert checkpoint.checkpoint_load_time(size, 2e12, gpus, 6.25e9) == write  # same bandwidths, same time
    assert checkpoint.checkpoint_load_time(size, 2e12, 8, 6.25e9) == pytest.approx(113.4)  # 8 NICs' share: 50 GB/s
    assert checkpoint.checkpoint_load_time(size, 2e12) == pytest.approx(2.835)  # no per-reader limit: S / B_r
    assert checkpoint.checkpoint_load_time(size, 2e12, 8, np.inf) == pytest.approx(2.835)
    readers = np.array([1, 10, 1000])
    np.testing.assert_allclose(checkpoint.checkpoint_load_time(1e12, 1e12, readers, 1e9), [1000, 100, 1])


def test_state_in_hbm():
    # ZeRO's 16 B per parameter: 405B → 6.48 TB of state, 81 × 80 GB exactly
    state = checkpoint.checkpoint_bytes(405e9, 16)
    assert checkpoint.min_gpus_for_state(state, 80e9) == 81
    assert checkpoint.state_fits_hbm(state, 81, 80e9) is True
    assert checkpoint.state_fits_hbm(state, 80, 80e9) is False
    assert checkpoint.state_fits_hbm(state, 8, 80e9) is False  # 810 GB per GPU
    assert checkpoint.min_gpus_for_state(state + 1, 80e9) == 82  # one byte over needs one more GPU
    assert checkpoint.min_gpus_for_state(state, 141e9) == 46  # H200: ceil(45.96)
    # the flag and the minimum always agree
    gpus = np.arange(1, 200)
    fits = checkpoint.state_fits_hbm(state, gpus, 80e9)
    np.testing.assert_array_equal(fits, gpus >= checkpoint.min_gpus_for_state(state, 80e9))


def test_storage_saturated():
    assert checkpoint.storage_saturated(0.5) is False
    assert checkpoint.storage_saturated(1.0) is True
    assert checkpoint.storage_saturated(np.inf) is True
    np.testing.assert_array_equal(checkpoint.storage_saturated(np.array([0.99, 1.0, 3.0])), [False, True, True])
    # an interval floored at a storage-bound write saturates the storage, rounding notwithstanding
    rng = np.random.default_rng(1)
    size, bandwidth = 10 ** rng.uniform(9, 14, 2000), 10 ** rng.uniform(9, 13, 2000)
    write = checkpoint.checkpoint_write_time(size, bandwidth, 1e6, 1e9)  # 1e6 writers x 1 GB/s never bind
    assert checkpoint.storage_saturated(checkpoint.checkpoint_bandwidth_share(size, write, bandwidth)).all()


def test_provisioned_bandwidth():
    from drmath.units import MB_per_s, TiB

    assert checkpoint.provisioned_bandwidth(10 * TiB, 1000 * MB_per_s / TiB) == pytest.approx(10e9)
    assert checkpoint.capacity_for_bandwidth(10e9, 1000 * MB_per_s / TiB) == pytest.approx(10 * TiB)
    beta = np.array([125, 250, 500, 1000]) * MB_per_s / TiB
    np.testing.assert_allclose(checkpoint.provisioned_bandwidth(checkpoint.capacity_for_bandwidth(2e12, beta), beta),
                               2e12)


_PER_READER = r"per_reader_bandwidth must be > 0 \(inf allowed\), got "


@pytest.mark.parametrize("call, match", [
    (lambda: checkpoint.checkpoint_bytes(0), "params must be finite and > 0, got 0"),
    (lambda: checkpoint.checkpoint_bytes(1e9, -2), "bytes_per_param must be finite and > 0, got -2"),
    (lambda: checkpoint.checkpoint_write_time(1e12, 0, 10, 1e9), "write_bandwidth must be finite and > 0"),
    (lambda: checkpoint.checkpoint_load_time(1e12, float("nan")), "read_bandwidth must be finite and > 0, got nan"),
    (lambda: checkpoint.checkpoint_load_time(1e12, 1e12, 0, 1e9), "readers must be finite and > 0, got 0"),
    (lambda: checkpoint.checkpoint_load_time(1e12, 1e12, 8, 0.0), _PER_READER + "0.0"),
    (lambda: checkpoint.checkpoint_load_time(1e12, 1e12, 8, -1.0), _PER_READER + "-1.0"),
    (lambda: checkpoint.checkpoint_load_time(1e12, 1e12, 8, float("nan")), "per_reader_bandwidth must be a number"),
    (lambda: checkpoint.min_gpus_for_state(6.48e12, 0), "hbm must be finite and > 0, got 0"),
    (lambda: checkpoint.state_fits_hbm(6.48e12, -8, 80e9), "gpus must be finite and > 0, got -8"),
    (lambda: checkpoint.storage_saturated(-0.1), r"bandwidth_share must be >= 0 \(inf allowed\), got -0.1"),
    (lambda: checkpoint.provisioned_bandwidth(0, 1e-4), "capacity must be finite and > 0, got 0"),
    (lambda: checkpoint.capacity_for_bandwidth(1e9, 0), "bandwidth_per_capacity must be finite and > 0, got 0"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
