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


def test_bandwidth_needed_hand_value():
    # 1 TB, 2:1 compressed, every 1,000 s, 80% efficient, 10 s latency, 490 s upload:
    # 0.5e12 / (0.8 × (1000 - 10 - 490)) = 0.5e12 / 400 = 1.25e9 B/s
    assert replication.bandwidth_needed(1e12, 1000.0, 0.8, 10.0, 490.0, 2.0) == pytest.approx(1.25e9)


def test_bandwidth_needed_just_keeps_up():
    # at the rate needed, the store-and-forward chain takes exactly the interval
    size, interval, eta, latency, upload = 5.67e12, 3600.0, 0.8, 1.0, 64.8
    rate = replication.bandwidth_needed(size, interval, eta, latency, upload, 1.5)
    link = replication.transfer_time(size, rate, eta, latency, 1.5)
    assert replication.chain_time([upload, link]) == pytest.approx(interval, rel=1e-12)
    assert replication.replication_keeps_up(replication.chain_time([upload, link * 1.001]), interval) is False


def test_bandwidth_needed_unbounded_without_budget():
    # the upload and latency fill the interval (exactly, or more): no line rate is enough
    assert replication.bandwidth_needed(1e12, 100.0, 1.0, 10.0, 90.0) == np.inf
    np.testing.assert_array_equal(replication.bandwidth_needed(1e12, np.array([100.0, 10.0, 1010.0]), 1.0, 10.0, 0.0),
                                  [1e12 / 90, np.inf, 1e9])


def test_pipeline_keeps_up_hop_by_hop():
    # a 283.5 s upload then a 504 s link, a copy every 600 s: 787.5 s end to end, yet each hop fits
    hops = [283.5, 504.0]
    assert replication.chain_time(hops) == 787.5                      # latency: a copy crosses every hop
    assert replication.pipeline_cycle(hops) == 504.0                  # throughput: one copy per slowest hop
    assert replication.bottleneck_hop(hops) == 1.0
    assert [replication.replication_utilization(t, 600.0) for t in hops] == [0.4725, 0.84]
    assert replication.replication_keeps_up(replication.pipeline_cycle(hops), 600.0) is True
    assert replication.replication_keeps_up(replication.chain_time(hops), 600.0) is False   # the old, wrong test
    # streamed or not, the same hop is the bottleneck and the same cycle paces the pipeline
    assert replication.pipeline_cycle(hops) == replication.chain_time(hops, streamed=True)
    np.testing.assert_array_equal(replication.bottleneck_hop([np.array([700.0, 10.0, 504.0]), 504.0]), [0, 1, 0])


def test_pipeline_throughput():
    # 1 TB at 2:1 over a 50 s slowest hop: 0.5e12 / 50 = 1e10 B/s
    assert replication.pipeline_throughput(1e12, 50.0, 2.0) == pytest.approx(1e10)


def test_hop_bandwidth_needed_makes_the_hop_just_fit():
    size, every, eta, latency, c = 5.67e12, 600.0, 0.9, 0.05, 1.5
    rate = replication.hop_bandwidth_needed(size, every, eta, latency, c)
    assert replication.transfer_time(size, rate, eta, latency, c) == pytest.approx(every, rel=1e-12)
    assert replication.replication_keeps_up(replication.transfer_time(size, rate * 0.999, eta, latency, c),
                                            every) is False
    # never more than the one-copy-in-flight rate, which also waits for the upload
    assert rate <= replication.bandwidth_needed(size, every, eta, latency, 283.5, c)
    assert replication.hop_bandwidth_needed(1e12, 10.0, latency=10.0) == np.inf
    # the case: the 100 Gbit/s link (12.5 GB/s) fits, the old rule asked for 19.9 GB/s
    assert replication.hop_bandwidth_needed(size, every, eta, latency) == pytest.approx(1.0501e10, rel=1e-4)


def test_bytes_shipped_is_capped_by_the_slowest_hop():
    # 1 Gbit/s, 90% efficient: a 5.67 TB copy takes 50,400 s, so 90 days carry 154 copies, 0.875 PB
    run, cycle = 90 * 86_400.0, 5.67e12 / (1.25e8 * 0.9)
    assert replication.bytes_shipped(run, 3600.0, 5.67e12, cycle=cycle) == pytest.approx(1.25e8 * 0.9 * run)
    assert replication.bytes_shipped(run, 3600.0, 5.67e12) == pytest.approx(run / 3600.0 * 5.67e12)
    # a hop that keeps up does not cap anything
    assert replication.bytes_shipped(run, 3600.0, 5.67e12, cycle=504.0) == replication.bytes_shipped(run, 3600.0,
                                                                                                      5.67e12)


def test_bytes_shipped():
    # 10 h of a run, a copy every 2 h, 1 TB at 2:1: 5 copies of 0.5 TB
    assert replication.bytes_shipped(36_000.0, 7_200.0, 1e12, 2.0) == pytest.approx(2.5e12)
    assert replication.bytes_shipped(0.0, 7_200.0, 1e12) == 0.0
    assert replication.bytes_shipped(np.inf, 7_200.0, 1e12) == np.inf  # a run that never ends ships forever


@pytest.mark.parametrize("call, match", [
    (lambda: replication.bandwidth_needed(1e12, 0.0, 1.0, 0.0, 0.0), "interval must be finite and > 0, got 0.0"),
    (lambda: replication.bandwidth_needed(1e12, 10.0, 1.0, 0.0, -1.0), "upload_time must be finite and >= 0"),
    (lambda: replication.bytes_shipped(-1.0, 10.0, 1e12), r"run_time must be >= 0 \(inf allowed\), got -1.0"),
    (lambda: replication.bytes_shipped(1.0, 10.0, 1e12, 0.9), "compression must be >= 1, got 0.9"),
    (lambda: replication.bytes_shipped(1.0, 10.0, 1e12, cycle=-1.0), "cycle must be finite and >= 0, got -1.0"),
    (lambda: replication.hop_bandwidth_needed(1e12, 0.0), "replication_interval must be finite and > 0, got 0.0"),
    (lambda: replication.hop_bandwidth_needed(1e12, 10.0, 0.0), r"efficiency must be in \(0, 1\], got 0.0"),
    (lambda: replication.pipeline_throughput(1e12, 0.0), "cycle must be finite and > 0, got 0.0"),
    (lambda: replication.pipeline_cycle([]), "hop_times must name at least one hop"),
    (lambda: replication.bottleneck_hop([1.0, float("nan")]), r"hop_times\[1\] must be finite and >= 0, got nan"),
])
def test_bad_input_of_the_derived_formulas(call, match):
    with pytest.raises(ValueError, match=match):
        call()


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
