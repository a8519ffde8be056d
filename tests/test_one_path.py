"""One numpy path per formula: a number and a one-element array give the same answer.

Every public formula is written once, in numpy, so a float and ``np.array([float])`` must take the
same path: the same value (NaN and inf included), the same error, and a Python number back for the
float. Each formula's inputs are drawn from its documented ranges, corners (0, 1, inf, 1e30) included.
"""

import inspect
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drmath import checkpoint, cost, recovery, reliability, replication, training, units
from drmath._validate import HUGE

INF = math.inf


def _floats(low, high, *, open_low=False, corners=()):
    """Floats in [low, high] (or (low, high]), with the corners drawn often."""
    body = st.floats(low, high, exclude_min=open_low, allow_nan=False)
    return st.one_of(st.sampled_from(corners), body) if corners else body


POSITIVE = _floats(0.0, HUGE, open_low=True, corners=(1.0, HUGE))  # require_positive: (0, 1e30]
NONNEGATIVE = _floats(0.0, HUGE, corners=(0.0, HUGE))  # require_nonnegative: [0, 1e30]
UNBOUNDED = st.one_of(st.sampled_from((0.0, INF)), st.floats(0.0, INF, allow_nan=False))  # >= 0, inf allowed
FRACTION = _floats(0.0, 1.0, open_low=True, corners=(1.0,))  # (0, 1]
SHARE = _floats(0.0, 1.0, corners=(0.0, 1.0))  # [0, 1]
SIGNED = st.one_of(st.sampled_from((0.0, INF, -INF)), st.floats(-HUGE, HUGE))  # a number, ±inf allowed
COMPRESSION = _floats(1.0, HUGE, corners=(1.0,))  # >= 1
FLAG = st.booleans()

_TRAIN = dict(params=POSITIVE, peak_flop_rate=POSITIVE, mfu=FRACTION, ettr=SHARE, flops_per_param_token=POSITIVE)

SPECS = {
    "training.training_flops": dict(params=POSITIVE, tokens=NONNEGATIVE, flops_per_param_token=POSITIVE),
    "training.time_to_train": dict(tokens=NONNEGATIVE, gpus=POSITIVE, **_TRAIN),
    "training.gpus_for_deadline": dict(tokens=NONNEGATIVE, deadline=POSITIVE, **_TRAIN),
    "training.tokens_in_window": dict(window=POSITIVE, gpus=POSITIVE, **_TRAIN),
    "training.mfu_from_throughput": dict(achieved_flop_rate=POSITIVE, peak_flop_rate=POSITIVE),
    "training.effective_flop_rate": dict(training_flops=NONNEGATIVE, gpu_time=POSITIVE),
    "checkpoint.checkpoint_bytes": dict(params=POSITIVE, bytes_per_param=POSITIVE),
    "checkpoint.shard_bytes": dict(size=POSITIVE, writers=POSITIVE),
    "checkpoint.checkpoint_write_time": dict(size=POSITIVE, write_bandwidth=POSITIVE, writers=POSITIVE,
                                             per_writer_bandwidth=POSITIVE),
    "checkpoint.checkpoint_staging_time": dict(shard=POSITIVE, host_copy_bandwidth=POSITIVE),
    "checkpoint.checkpoint_stall": dict(write_time=POSITIVE, staging_time=POSITIVE, asynchronous=FLAG,
                                        blocking_time=POSITIVE),
    "checkpoint.checkpoint_load_time": dict(size=POSITIVE, read_bandwidth=POSITIVE, readers=POSITIVE,
                                            per_reader_bandwidth=st.one_of(st.just(INF), POSITIVE)),
    "checkpoint.checkpoint_interval_floor": dict(write_time=POSITIVE, stall=POSITIVE),
    "checkpoint.checkpoint_bandwidth_share": dict(size=POSITIVE, interval=POSITIVE, write_bandwidth=POSITIVE),
    "checkpoint.min_gpus_for_state": dict(state_bytes=POSITIVE, hbm=POSITIVE),
    "checkpoint.state_fits_hbm": dict(state_bytes=POSITIVE, gpus=POSITIVE, hbm=POSITIVE),
    "checkpoint.storage_saturated": dict(bandwidth_share=UNBOUNDED),
    "checkpoint.provisioned_bandwidth": dict(capacity=POSITIVE, bandwidth_per_capacity=POSITIVE),
    "checkpoint.capacity_for_bandwidth": dict(bandwidth=POSITIVE, bandwidth_per_capacity=POSITIVE),
    "replication.transfer_time": dict(size=POSITIVE, bandwidth=POSITIVE, efficiency=FRACTION, latency=NONNEGATIVE,
                                      compression=COMPRESSION),
    "replication.chain_time": dict(hop_times=st.lists(NONNEGATIVE, min_size=1, max_size=3), streamed=FLAG),
    "replication.replication_every": dict(replication_interval=POSITIVE, checkpoint_interval=POSITIVE),
    "replication.replication_utilization": dict(replication_time=NONNEGATIVE, replication_interval=POSITIVE),
    "replication.replication_keeps_up": dict(replication_time=NONNEGATIVE, replication_interval=POSITIVE),
    "replication.bandwidth_needed": dict(size=POSITIVE, interval=POSITIVE, efficiency=FRACTION, latency=NONNEGATIVE,
                                         upload_time=NONNEGATIVE, compression=COMPRESSION, streamed=FLAG),
    "replication.bytes_shipped": dict(run_time=UNBOUNDED, replication_interval=POSITIVE, size=POSITIVE,
                                      compression=COMPRESSION, cycle=NONNEGATIVE),
    "replication.pipeline_cycle": dict(hop_times=st.lists(NONNEGATIVE, min_size=1, max_size=3)),
    "replication.bottleneck_hop": dict(hop_times=st.lists(NONNEGATIVE, min_size=1, max_size=3)),
    "replication.pipeline_throughput": dict(size=POSITIVE, cycle=POSITIVE, compression=COMPRESSION),
    "replication.hop_bandwidth_needed": dict(size=POSITIVE, replication_interval=POSITIVE, efficiency=FRACTION,
                                             latency=NONNEGATIVE, compression=COMPRESSION),
    "reliability.cluster_mtbf": dict(gpus=POSITIVE, gpu_failure_rate=POSITIVE),
    "reliability.expected_interruptions": dict(duration=UNBOUNDED, mtbf=POSITIVE),
    "reliability.young_interval": dict(checkpoint_cost=POSITIVE, mtbf=POSITIVE),
    "reliability.daly_interval": dict(checkpoint_cost=POSITIVE, mtbf=POSITIVE),
    "reliability.waste": dict(checkpoint_interval=POSITIVE, checkpoint_cost=POSITIVE, restart_overhead=NONNEGATIVE,
                              mtbf=POSITIVE),
    "reliability.daly_waste": dict(checkpoint_interval=POSITIVE, checkpoint_cost=POSITIVE,
                                   restart_overhead=NONNEGATIVE, mtbf=POSITIVE),
    "reliability.ettr": dict(checkpoint_interval=POSITIVE, checkpoint_cost=NONNEGATIVE, restart_overhead=NONNEGATIVE,
                             mtbf=POSITIVE),
    "reliability.ettr_exact": dict(checkpoint_interval=POSITIVE, checkpoint_cost=NONNEGATIVE, write_time=NONNEGATIVE,
                                   restart_overhead=NONNEGATIVE, mtbf=POSITIVE),
    "reliability.ettr_weibull": dict(checkpoint_interval=POSITIVE, checkpoint_cost=NONNEGATIVE,
                                     write_time=NONNEGATIVE, restart_overhead=NONNEGATIVE, mtbf=POSITIVE,
                                     shape=_floats(0.1, 10.0, corners=(0.1, 1.0, 10.0))),
    "reliability.ettr_ceiling": dict(restart_overhead=NONNEGATIVE, mtbf=POSITIVE),
    "reliability.replica_group_goodput": dict(committed_steps=NONNEGATIVE, total_steps=POSITIVE,
                                              participating_groups=NONNEGATIVE, groups=POSITIVE),
    "reliability.committed_step_fraction": dict(step_time=NONNEGATIVE, mtbf=POSITIVE),
    "reliability.participating_fraction": dict(rejoin_time=NONNEGATIVE, mtbf=POSITIVE, groups=POSITIVE),
    "reliability.ettr_replica_groups": dict(checkpoint_interval=POSITIVE, checkpoint_cost=NONNEGATIVE,
                                            step_time=NONNEGATIVE, rejoin_time=NONNEGATIVE, mtbf=POSITIVE,
                                            groups=POSITIVE),
    "reliability.goodput_collapsed": dict(ettr=SHARE, restart_overhead=NONNEGATIVE, mtbf=POSITIVE),
    "reliability.availability_interval": dict(checkpoint_cost=POSITIVE, recovery_time=NONNEGATIVE, mtbf=POSITIVE),
    "reliability.overhead_budget_interval": dict(checkpoint_cost=NONNEGATIVE, overhead_budget=FRACTION),
    "reliability.mtbf_from_count": dict(duration=POSITIVE, interruptions=NONNEGATIVE),
    "reliability.interruption_shares": dict(counts=st.dictionaries(st.text(min_size=1, max_size=8), NONNEGATIVE,
                                                                   min_size=1, max_size=4)),
    "reliability.downtime_from_availability": dict(availability=SHARE, period=POSITIVE),
    "reliability.availability_from_downtime": dict(downtime=NONNEGATIVE, period=POSITIVE),
    "recovery.rpo_local": dict(checkpoint_interval=POSITIVE, write_time=NONNEGATIVE, expected=FLAG,
                               progress=UNBOUNDED),
    "recovery.rpo_local_replica_groups": dict(step_time=NONNEGATIVE, expected=FLAG, progress=UNBOUNDED),
    "recovery.rpo_site_pipeline": dict(replication_interval=POSITIVE, write_time=NONNEGATIVE,
                                       hop_times=st.lists(NONNEGATIVE, min_size=1, max_size=3), newest_only=FLAG,
                                       expected=FLAG, streamed=FLAG, launch_spacing=POSITIVE, progress=UNBOUNDED,
                                       checkpoint_interval=POSITIVE),
    "recovery.schedule_slip": dict(work_lost=UNBOUNDED, outage=UNBOUNDED, reduced_capacity_time=UNBOUNDED),
    "replication.launch_spacing": dict(replication_every=POSITIVE, checkpoint_interval=POSITIVE, stall=NONNEGATIVE),
    "cost.excess_site_gpus": dict(gpus=NONNEGATIVE, standby_fraction=SHARE, sites=COMPRESSION),
    "recovery.local_rto_phases": {name: NONNEGATIVE for name in recovery.LOCAL_PHASES},
    "recovery.site_rto_phases": {name: NONNEGATIVE for name in recovery.SITE_PHASES},
    "recovery.rto": dict(phases=st.dictionaries(st.sampled_from(recovery.SITE_PHASES), NONNEGATIVE, min_size=1)),
    "recovery.resume_slip": dict(remaining_time=UNBOUNDED, standby_fraction=FRACTION, rebuild_time=UNBOUNDED),
    "recovery.expected_remaining_run": dict(run_time=UNBOUNDED),
    "cost.gpu_hours": dict(gpus=NONNEGATIVE, duration=UNBOUNDED),
    "cost.run_cost": dict(gpus=NONNEGATIVE, duration=UNBOUNDED, gpu_hour_price=NONNEGATIVE),
    "cost.standby_cost": dict(standby_gpus=NONNEGATIVE, duration=UNBOUNDED, gpu_hour_price=NONNEGATIVE,
                              reserved_share=SHARE),
    "cost.replication_cost": dict(shipped=UNBOUNDED, egress_price=NONNEGATIVE, retained=NONNEGATIVE,
                                  storage_month_price=NONNEGATIVE, duration=UNBOUNDED, link_hour_price=NONNEGATIVE),
    "cost.site_event_probability": dict(site_event_rate=NONNEGATIVE, duration=UNBOUNDED, sites=COMPRESSION),
    "cost.expected_disaster_loss": dict(probability=SHARE, lost_time=UNBOUNDED, fleet_cost_rate=NONNEGATIVE,
                                        delay_cost=NONNEGATIVE),
    "cost.break_even_delay_cost": dict(extra_cost=SIGNED, saved_time=SIGNED, probability=SHARE,
                                       fleet_cost_rate=NONNEGATIVE),
    "cost.fleet_cost_rate": dict(gpus=NONNEGATIVE, gpu_hour_price=NONNEGATIVE),
    "cost.lost_time_saved": dict(baseline_lost_time=UNBOUNDED, lost_time=UNBOUNDED),
    "cost.cross_site_bandwidth": dict(params=POSITIVE, step_time=POSITIVE, sites=COMPRESSION,
                                      bytes_per_gradient=POSITIVE),
    "cost.link_cost": dict(bandwidth=NONNEGATIVE, duration=UNBOUNDED, bandwidth_hour_price=NONNEGATIVE),
    "cost.link_hour_price": dict(bandwidth=NONNEGATIVE),
    "cost.goodput_lost_cost": dict(fleet_cost_rate=NONNEGATIVE, ettr=SHARE, duration=UNBOUNDED),
}
"""Each public formula's arguments and the strategy drawing their valid values."""

NOT_FORMULAS = {
    "units.parse_quantity": "reads text into a number",
}
"""Public functions that compute no quantity from numbers, with the reason."""

ARRAY_FLAGS = {("checkpoint.checkpoint_stall", "asynchronous"), ("recovery.rpo_local", "expected"),
               ("recovery.rpo_local_replica_groups", "expected"), ("recovery.rpo_site_pipeline", "newest_only"),
               ("recovery.rpo_site_pipeline", "expected")}
"""Flags documented as ``bool or array_like``: the array call passes them as one-element arrays too."""

MODULES = (training, checkpoint, replication, reliability, recovery, cost, units)


def _function(name):
    module, attr = name.split(".")
    return getattr(globals()[module], attr)


def _one_element(name, arg, value):
    """The value as a one-element array (sequences and dicts element by element)."""
    if isinstance(value, list):
        return [np.array([v]) for v in value]
    if isinstance(value, dict):
        return {k: np.array([v]) for k, v in value.items()}
    if isinstance(value, bool) and (name, arg) not in ARRAY_FLAGS:
        return value
    return np.array([value])


def _outcome(func, kwargs):
    try:
        return "value", func(**kwargs)
    except (ValueError, TypeError) as exc:
        return "error", f"{type(exc).__name__}: {exc}"


def assert_one_path(name, kwargs):
    """A float call and a one-element-array call of the formula ``name`` agree exactly."""
    func = _function(name)
    kind, number = _outcome(func, kwargs)
    array_kind, array = _outcome(func, {k: _one_element(name, k, v) for k, v in kwargs.items()})
    assert (kind, array_kind) == ("value", "value") or (kind, number) == (array_kind, array), (
        f"{name}({kwargs}): the number gives {kind} {number!r}, the array {array_kind} {array!r}")
    if kind == "error":
        return
    if isinstance(number, dict):  # phases: compare phase by phase
        assert list(number) == list(array)
        pairs = [(number[k], array[k]) for k in number]
    else:
        pairs = [(number, array)]
    for one, many in pairs:
        assert type(one) in (float, bool), f"{name}({kwargs}) returned {type(one).__name__}, not a Python number"
        assert isinstance(many, np.ndarray) and many.shape == (1,), f"{name} returned {many!r} for arrays"
        # equal_nan: NaN matches NaN, inf matches inf, and the dtypes (float or bool) match too
        np.testing.assert_array_equal(np.array([one]), many, strict=True, err_msg=f"{name}({kwargs})")
        assert not np.isnan(many).any(), f"{name}({kwargs}) gave NaN for valid input"


def test_every_public_formula_is_covered():
    """A new formula without a strategy here fails, so the property covers every one."""
    public = {f"{m.__name__.split('.')[-1]}.{n}" for m in MODULES for n in m.__all__
              if inspect.isfunction(getattr(m, n))}
    assert public - set(NOT_FORMULAS) == set(SPECS)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_strategies_name_every_argument(name):
    assert set(SPECS[name]) == set(inspect.signature(_function(name)).parameters)


@pytest.mark.parametrize("name", sorted(SPECS))
@settings(max_examples=50, deadline=None, derandomize=True, database=None)
@given(data=st.data())
def test_a_number_and_a_one_element_array_agree(name, data):
    assert_one_path(name, data.draw(st.fixed_dictionaries(SPECS[name]), label="arguments"))


@pytest.mark.parametrize("name, kwargs", [
    # ΔC = ΔL = inf with P > 0: floats gave 0.0, arrays [nan]
    pytest.param("cost.break_even_delay_cost",
                 dict(extra_cost=INF, saved_time=INF, probability=0.5, fleet_cost_rate=0.0), id="break-even-inf-inf"),
    pytest.param("cost.break_even_delay_cost",
                 dict(extra_cost=INF, saved_time=INF, probability=0.0, fleet_cost_rate=1.0), id="break-even-no-event"),
    pytest.param("cost.break_even_delay_cost",
                 dict(extra_cost=1.0, saved_time=INF, probability=0.5, fleet_cost_rate=0.0), id="break-even-inf-saved"),
    pytest.param("cost.lost_time_saved", dict(baseline_lost_time=INF, lost_time=INF), id="saved-both-unbounded"),
    pytest.param("cost.expected_disaster_loss",
                 dict(probability=0.0, lost_time=INF, fleet_cost_rate=1.0, delay_cost=1.0), id="loss-no-event"),
    pytest.param("cost.gpu_hours", dict(gpus=0.0, duration=INF), id="no-gpus-forever"),
    pytest.param("cost.site_event_probability", dict(site_event_rate=0.0, duration=INF), id="no-rate-forever"),
    pytest.param("recovery.resume_slip", dict(remaining_time=INF, standby_fraction=1.0), id="full-standby-forever"),
    pytest.param("recovery.resume_slip", dict(remaining_time=INF, standby_fraction=1.0, rebuild_time=INF),
                 id="full-standby-never-rebuilt"),
    pytest.param("recovery.resume_slip", dict(remaining_time=0.0, standby_fraction=5e-324, rebuild_time=1.0),
                 id="tiny-standby-nothing-left"),
    pytest.param("cost.link_cost", dict(bandwidth=0.0, duration=INF, bandwidth_hour_price=1.0), id="no-link-forever"),
    pytest.param("cost.site_event_probability", dict(site_event_rate=0.0, duration=INF, sites=2.0),
                 id="two-sites-no-rate-forever"),
    pytest.param("checkpoint.checkpoint_load_time", dict(size=1.0, read_bandwidth=1.0, readers=HUGE,
                                                         per_reader_bandwidth=INF), id="load-no-reader-limit"),
    pytest.param("checkpoint.storage_saturated", dict(bandwidth_share=INF), id="saturated-inf"),
    pytest.param("training.time_to_train", dict(params=1.0, tokens=0.0, gpus=1.0, peak_flop_rate=1.0, mfu=1.0,
                                                ettr=0.0), id="no-work-no-progress"),
    pytest.param("replication.bandwidth_needed", dict(size=1.0, interval=10.0, efficiency=1.0, latency=4.0,
                                                      upload_time=6.0), id="no-link-budget"),
    pytest.param("recovery.rpo_site_pipeline", dict(replication_interval=1.0, write_time=0.0, hop_times=[1.0, 2.0]),
                 id="rpo-site-pipeline-behind"),
    pytest.param("recovery.rpo_site_pipeline", dict(replication_interval=1.0, write_time=0.0, hop_times=[1.0, 2.0],
                                                    newest_only=True, expected=True), id="rpo-site-newest-behind"),
    pytest.param("recovery.rpo_site_pipeline", dict(replication_interval=1.0, write_time=0.0, hop_times=[1.0, 2.0],
                                                    newest_only=True, progress=0.0), id="rpo-site-no-progress"),
    pytest.param("replication.hop_bandwidth_needed", dict(size=1.0, replication_interval=4.0, latency=4.0),
                 id="no-hop-budget"),
    pytest.param("replication.bytes_shipped", dict(run_time=INF, replication_interval=1.0, size=1.0, cycle=HUGE),
                 id="shipped-forever-slowly"),
    pytest.param("replication.bottleneck_hop", dict(hop_times=[5.0, 5.0, 1.0]), id="bottleneck-tie"),
    # exact ETTR where an exponent overflows or the cycle underflows: 0 or 1, never NaN
    pytest.param("reliability.ettr_exact", dict(checkpoint_interval=HUGE, checkpoint_cost=HUGE, write_time=HUGE,
                                                restart_overhead=HUGE, mtbf=5e-324), id="ettr-exact-no-mtbf"),
    pytest.param("reliability.ettr_exact", dict(checkpoint_interval=5e-324, checkpoint_cost=0.0, write_time=0.0,
                                                restart_overhead=0.0, mtbf=HUGE), id="ettr-exact-cycle-underflows"),
    pytest.param("reliability.ettr_exact", dict(checkpoint_interval=1.0, checkpoint_cost=HUGE, write_time=0.0,
                                                restart_overhead=0.0, mtbf=5e-324), id="ettr-exact-huge-stall"),
    # first-order ETTR where its loss term is -inf and its stall ratio inf (was -inf/inf = NaN): 0
    pytest.param("reliability.ettr", dict(checkpoint_interval=5e-324, checkpoint_cost=HUGE, restart_overhead=HUGE,
                                          mtbf=5e-324), id="ettr-first-order-inf-over-inf"),
    pytest.param("reliability.interruption_shares", dict(counts={"a": 0.0, "b": 0.0}), id="shares-all-zero"),
])
def test_corners_agree(name, kwargs):
    assert_one_path(name, kwargs)
