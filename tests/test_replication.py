import numpy as np
import pytest

from drmath import replication


def test_transfer_time():
    # 1 TB at 10 GB/s, 80% efficient, 2:1 compressed, 1 s latency: 1 + 0.5e12 / 8e9 = 63.5 s
    assert replication.transfer_time(1e12, 10e9, 0.8, 1.0, 2.0) == pytest.approx(63.5)
    np.testing.assert_allclose(replication.transfer_time(1e12, np.array([1e9, 1e10])), [1000, 100])


def test_chain_time():
    assert replication.chain_time([10.0, 30.0]) == 40.0
    assert replication.chain_time([10.0, 30.0], streamed=True) == 30.0
    np.testing.assert_allclose(replication.chain_time([np.array([1.0, 50.0]), 30.0], streamed=True), [30, 50])


def test_every_and_keeping_up():
    assert replication.replication_every(3600.0, 600.0) == 6.0
    assert replication.replication_every(3600.0, 601.0) == 6.0
    assert replication.replication_every(3600.0, 599.0) == 7.0
    assert replication.replication_every(60.0, 600.0) == 1.0
    assert replication.replication_utilization(300.0, 600.0) == 0.5
    assert replication.replication_keeps_up(600.0, 600.0) is True
    assert replication.replication_keeps_up(601.0, 600.0) is False


@pytest.mark.parametrize("call, match", [
    (lambda: replication.transfer_time(1e12, 1e9, efficiency=1.2), r"efficiency must be in \(0, 1\], got 1.2"),
    (lambda: replication.transfer_time(1e12, 1e9, compression=0.5), "compression must be >= 1, got 0.5"),
    (lambda: replication.transfer_time(1e12, 1e9, latency=-1), "latency must be finite and >= 0, got -1"),
    (lambda: replication.chain_time([]), "hop_times must name at least one hop"),
    (lambda: replication.chain_time([1.0, -2.0]), r"hop_times\[1\] must be finite and >= 0"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
