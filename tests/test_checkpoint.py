import numpy as np
import pytest

from drmath import Scenario, checkpoint, plan


def test_checkpoint_bytes():
    assert checkpoint.checkpoint_bytes(70e9) == 980e9  # fails if the default 14 B/param changes
    assert checkpoint.checkpoint_bytes(70e9, 2) == 140e9
    np.testing.assert_allclose(checkpoint.checkpoint_bytes(np.array([1e9, 2e9])), [14e9, 28e9])


def test_write_time_is_capped_by_writers():
    # 1 TB over a 2 TB/s filesystem: 0.5 s when writers can feed it, 10 s when 10 writers × 10 GB/s cap it
    assert checkpoint.checkpoint_write_time(1e12, 2e12, 1000, 10e9) == pytest.approx(0.5)
    assert checkpoint.checkpoint_write_time(1e12, 2e12, 10, 10e9) == pytest.approx(10.0)


def test_stall_async_and_sync():
    staging = checkpoint.checkpoint_staging_time(1e9, 1e9)
    assert staging == pytest.approx(1.0)
    assert checkpoint.checkpoint_stall(5.0, staging, asynchronous=True) == pytest.approx(1.0)
    assert checkpoint.checkpoint_stall(5.0, staging, asynchronous=False) == pytest.approx(5.0)
    out = checkpoint.checkpoint_stall(np.array([5.0, 6.0]), staging, asynchronous=np.array([True, False]))
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
    staging = checkpoint.checkpoint_staging_time(shard, 677e6)
    assert checkpoint.checkpoint_stall(write, staging) == write
    assert checkpoint.checkpoint_stall(write, staging, asynchronous=False) == write
    # at 8,000 GPUs the host copy is the faster choice and stays
    size_8k = checkpoint.shard_bytes(size, 8_000)
    staging_8k = checkpoint.checkpoint_staging_time(size_8k, 677e6)
    assert checkpoint.checkpoint_stall(2.835, staging_8k) == pytest.approx(size_8k / 677e6)
    gpus = np.geomspace(8, 131_072, 40)
    shards = checkpoint.shard_bytes(size, gpus)
    writes = checkpoint.checkpoint_write_time(size, 2e12, gpus, 6.25e9)
    assert np.all(checkpoint.checkpoint_stall(writes, checkpoint.checkpoint_staging_time(shards, 677e6)) <= writes)


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


# --------------------------------------------------------------------------- blocking time, as the systems publish it

IBM_7B_SYNC, IBM_7B_ASYNC = 148.8, 6.3  # [s]: the 7B model's checkpoint "down time", sync and async
CRUSOE_STAGING = 0.78  # [s]: GPU blocked for staging, Llama3-70B on 1,856 H200


def _ibm_7b(mode, params=7e9):
    """The IBM + Meta 7B case (PyTorch blog 2024, "Reducing Model Checkpointing Times by Over 10x with PyTorch
    Distributed Asynchronous Checkpointing"). The post gives the times, not the cluster, so its two rates are read
    off the 7B times: the aggregate persist rate from the synchronous 148.8 s (a sync save blocks for the whole
    persist, which async "does not compress"), the per-GPU staging rate from the asynchronous 6.3 s (the first
    phase "copies the data from each gpu/rank from GPU to CPU. This is the visible downtime"). 14 B per parameter
    and 64 GPUs are assumptions (domain.md's default layout; the post names neither); both times scale with the
    bytes alike and the GPU count cancels out of them, so neither moves the ratio."""
    gpus, size = 64, 7e9 * 14
    return plan(Scenario().with_changes({
        "training.params": params, "training.gpus": gpus, "checkpoint.mode": mode,
        "checkpoint.write_bandwidth": size / IBM_7B_SYNC,
        "checkpoint.host_copy_bandwidth": size / gpus / IBM_7B_ASYNC}))


def test_dcp_async_blocks_for_the_staging_only_ibm_meta_7b():
    sync, async_ = _ibm_7b("sync"), _ibm_7b("async")
    # PyTorch blog (IBM + Meta, 2024): "7B model 'down time' for a checkpoint goes from an average of 148.8 seconds
    # to 6.3 seconds, or 23.62x faster." The plan's async stall is the staging alone and its sync stall the whole
    # persist; the post prints the ratio to two decimals, so the tolerance is half a unit of its last digit.
    assert sync.checkpoint_stall == pytest.approx(IBM_7B_SYNC, rel=1e-9)
    assert async_.checkpoint_stall == pytest.approx(async_.checkpoint_staging_time, rel=1e-12)
    assert async_.checkpoint_stall == pytest.approx(IBM_7B_ASYNC, rel=1e-9)
    assert sync.checkpoint_stall / async_.checkpoint_stall == pytest.approx(23.62, abs=0.005)
    # The persist still runs (behind training): it floors the interval and is the write time of the RPO in both
    # modes, so an async checkpoint is durable no sooner than a sync one (domain.md caveat 5).
    for p in (sync, async_):
        assert p.checkpoint_write_time == pytest.approx(IBM_7B_SYNC, rel=1e-9)
        assert p.checkpoint_interval_floor == pytest.approx(IBM_7B_SYNC, rel=1e-9)
        assert p.rpo_local == pytest.approx(p.checkpoint_interval + IBM_7B_SYNC, rel=1e-9)
    # A prediction the fit did not see: the post's "6 - 14 seconds for 7B-13B model sizes" of staging. On the same
    # cluster the model stages a 13B model's shard in 6.3 x 13/7 = 11.7 s, inside the published range.
    assert 6.0 <= _ibm_7b("async", params=13e9).checkpoint_stall <= 14.0


def test_a_measured_blocking_time_replaces_the_model_meta_crusoe_70b():
    # PyTorch blog 2025-04-30 (Meta + Crusoe), Llama3-70B on 1,856 H200 with HSDP2: the GPU is "blocked" 0.78 s
    # for staging, while the background persist takes ~67 s (after the fix; ~436 s before). The persist rate is
    # read off the 67 s; 14 B per parameter is domain.md's default layout.
    base = Scenario().with_changes({"training.params": 70e9, "training.gpus": 1_856,
                                    "checkpoint.write_bandwidth": 70e9 * 14 / 67.0})
    measured = plan(base.with_changes({"checkpoint.blocking_time": CRUSOE_STAGING}))
    assert measured.checkpoint_stall == CRUSOE_STAGING  # the plan's stall is the measurement, exactly
    assert measured.checkpoint_interval_floor == pytest.approx(67.0, rel=1e-9)  # the persist, behind training
    assert measured.rpo_local == pytest.approx(measured.checkpoint_interval + 67.0, rel=1e-9)
    # the measurement wins over any modelled staging rate, and in sync mode over the persist
    slow_copy = plan(base.with_changes({"checkpoint.blocking_time": CRUSOE_STAGING,
                                        "checkpoint.host_copy_bandwidth": 1e7}))
    assert slow_copy.checkpoint_stall == CRUSOE_STAGING and slow_copy.checkpoint_staging_time > 50.0
    sync = plan(base.with_changes({"checkpoint.blocking_time": 30.0, "checkpoint.mode": "sync"}))
    assert sync.checkpoint_stall == 30.0
    # Unset, the model's staging gives the same 0.78 s: the default per-GPU rate (677 MB/s) was derived from this
    # case (70e9 x 14 B / 1,856 / 0.78 s = 676.9 MB/s), and rounding it to 677 moves the time by 0.02%.
    modelled = plan(base)
    assert modelled.checkpoint_stall == modelled.checkpoint_staging_time == pytest.approx(CRUSOE_STAGING, rel=1e-3)
    # the derivation says which is which
    assert "Measured blocking time" in measured.explain("checkpoint_stall")
    assert "staging to host" in modelled.explain("checkpoint_stall")
    assert "behind training" in modelled.explain("checkpoint_write_time")


def test_blocking_time_must_be_positive():
    with pytest.raises(ValueError, match=r"checkpoint\.blocking_time = 0"):
        Scenario().with_changes({"checkpoint.blocking_time": 0.0})
    with pytest.raises(ValueError, match="blocking_time must be finite and > 0, got -1.0"):
        checkpoint.checkpoint_stall(2.0, 1.0, blocking_time=-1.0)
