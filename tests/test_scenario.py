import dataclasses
import json
import math

import numpy as np
import pytest

from drmath import Scenario, plan, presets, sweep
from drmath.quantities import PLAN_FIELDS
from drmath.scenario import FIELDS, SECTIONS
from drmath.units import Gbit_per_s, day, hour, minute


def test_defaults_are_the_seed_case():
    s = Scenario()
    assert s.training.gpus == 8000
    assert s.training.peak_flop_rate == 989.4e12
    assert s.training.mfu == 0.40
    assert s.training.window == 90 * day and s.training.tokens is None
    assert s.training.params == 405e9
    assert s.checkpoint.bytes_per_param == 14 and s.checkpoint.mode == "async"
    assert s.failures.gpu_failure_rate == presets.FAILURE_RATES["llama3"].gpu_failure_rate
    assert s.failover.tier == "warm"
    assert s.replication.link_bandwidth == 100 * Gbit_per_s


def test_every_field_has_unit_range_and_basis():
    assert set(SECTIONS) == {"training", "checkpoint", "replication", "failures", "failover", "cost", "requirements"}
    for path, info in FIELDS.items():
        assert info.unit.startswith("[") and info.unit.endswith("]"), path
        assert info.basis and info.doc, path
        assert info.choices or info.kind == "flag" or (info.low is not None and info.high is not None), path
        assert info.coerce(info.default) == info.default, path


@pytest.mark.parametrize("path, value, error, match", [
    ("training.mfu", 1.5, ValueError, r"training.mfu = 1.5 is out of range: must be in \[0.01, 1\]"),
    ("training.mfu", 0.0, ValueError, r"training.mfu = 0.0 is out of range"),
    ("training.gpus", 100.5, ValueError,
     r"training.gpus = 100.5 is not a whole number: must be a whole number in \[1, 1e\+07\]"),
    ("training.gpus", -8, ValueError, r"training.gpus = -8 is out of range: must be a whole number in \[1, 1e\+07\]"),
    ("training.gpus", float("nan"), ValueError, r"training.gpus = nan is not finite"),
    ("training.params", float("inf"), ValueError, r"training.params = inf is not finite"),
    ("training.gpus", "many", TypeError, r"training.gpus = 'many' has the wrong type \(str\): must be a whole"),
    ("training.gpus", True, TypeError, r"training.gpus = True has the wrong type \(bool\)"),
    ("failover.tier", "tepid", ValueError, r"failover.tier = 'tepid' is not valid: must be one of 'cold'"),
    ("checkpoint.mode", "lazy", ValueError, r"checkpoint.mode = 'lazy' is not valid"),
    ("replication.efficiency", 1.01, ValueError, r"replication.efficiency = 1.01 is out of range"),
    ("replication.streamed", "yes", TypeError,
     r"replication.streamed = 'yes' has the wrong type \(str\): must be true or false"),
    ("training.window", None, ValueError, r"training.window = None is not allowed"),
    ("training.bogus", 1, ValueError, r"unknown field 'training.bogus': training has gpus"),
    ("nosuch.field", 1, ValueError, r"unknown field 'nosuch.field': sections are training"),
])
def test_bad_values_name_field_value_and_range(path, value, error, match):
    with pytest.raises(error, match=match):
        Scenario().with_changes({path: value})


def test_nothing_is_half_applied():
    s = Scenario()
    with pytest.raises(ValueError, match="training.mfu"):
        s.with_changes({"training.gpus": 1024, "training.mfu": 7.0})
    assert s.training.gpus == 8000  # the original is untouched, and no partial copy exists


def test_changes_nested_flat_and_presets():
    s = Scenario.from_dict({"training": {"gpus": 1024.0}, "failover.tier": "hot",
                            "failures": {"gpu_failure_rate": "rsc-1"}})
    assert s.training.gpus == 1024 and isinstance(s.training.gpus, int)
    assert s.failover.tier == "hot"
    assert s.failures.gpu_failure_rate == presets.FAILURE_RATES["rsc-1"].gpu_failure_rate
    with pytest.raises(ValueError, match="unknown section 'bogus'"):
        Scenario.from_dict({"bogus": {"x": 1}})


def test_scenario_is_immutable_and_round_trips():
    s = Scenario().with_changes({"checkpoint.interval": 600.0, "training.tokens": 15e12})
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field"):
        s.training.gpus = 1
    assert Scenario.from_dict(s.to_dict()) == s
    assert "interval" not in Scenario().to_dict()["checkpoint"]  # unset stays unset


def test_default_plan_numbers():
    p = plan()
    # hand arithmetic for the seed case
    assert p.checkpoint_size == pytest.approx(405e9 * 14)
    assert p.checkpoint_write_time == pytest.approx(5.67e12 / 2e12)
    assert p.mtbf == pytest.approx(1 / (8000 * 419 / (16_384 * 54 * day)))
    assert p.mtbf / hour == pytest.approx(6.33, abs=0.01)  # domain ref §9: 6.3 h at 1,000 nodes
    assert p.expected_interruptions == pytest.approx(341, abs=1)  # domain ref §1: ≈ 341 in 90 days
    assert p.time_to_train == 90 * day and p.run_driver == "window"
    assert p.rto_local == pytest.approx(10 * minute + p.checkpoint_load_time)  # §9: u0 = 10 min
    assert p.checkpoint_interval == p.optimal_interval == pytest.approx(p.daly_interval)
    assert p.replication_keeps_up
    # kτ of training between shipped checkpoints (their wall-clock spacing P = k(τ + δ) is replication_interval)
    assert p.rpo_site == pytest.approx(p.replication_every * p.checkpoint_interval + p.checkpoint_write_time
                                       + p.replication_time)
    assert p.replication_interval == pytest.approx(p.replication_every * (p.checkpoint_interval + p.checkpoint_stall))
    assert p.rto_site == pytest.approx(sum(p.rto_site_phases.values()))
    assert p.total_dr_cost == pytest.approx(p.standby_cost + p.replication_cost + p.expected_disaster_loss)
    assert p.tier_total_costs["warm"] == pytest.approx(p.total_dr_cost)


def test_tokens_drive_the_run():
    p = plan(Scenario().with_changes({"training.tokens": 15.6e12}))
    assert p.run_driver == "tokens" and p.tokens == 15.6e12
    assert p.time_to_train == pytest.approx(p.compute_time / p.ettr)


def test_replication_falling_behind_is_unbounded_and_explained():
    p = plan(Scenario().with_changes({"replication.link_bandwidth": 1 * Gbit_per_s}))
    assert p.replication_keeps_up is False
    assert math.isinf(p.rpo_site) and math.isinf(p.total_dr_cost)
    text = p.explain("rpo_site")
    assert "does not keep up" in text
    assert p.format("replication_bandwidth_needed") in text  # says what bandwidth would fix it
    fixed = plan(p.scenario.with_changes({"replication.link_bandwidth": p.replication_bandwidth_needed * 1.001}))
    assert fixed.replication_keeps_up


def test_interval_below_the_floor_is_raised_to_it():
    p = plan(Scenario().with_changes({"checkpoint.interval": 1.0, "checkpoint.mode": "sync"}))
    assert p.checkpoint_interval_floored
    assert p.checkpoint_interval == p.checkpoint_write_time
    assert "below the floor" in p.explain("checkpoint_interval")


def test_sync_stalls_for_the_persist():
    p = plan(Scenario().with_changes({"checkpoint.mode": "sync"}))
    assert p.checkpoint_stall == p.checkpoint_write_time


def test_smaller_standby_slips_the_schedule():
    p = plan(Scenario().with_changes({"failover.standby_fraction": 0.5}))
    assert p.standby_gpus == 4000
    # half the GPUs: 45 days late if the lost site were never rebuilt, but it is rebuilt in three weeks,
    # during which the run goes at half speed: 21 days x (1 - 0.5) = 10.5 days late
    assert presets.SITE_REBUILD_TIME == 21 * day
    assert p.reduced_capacity_time == pytest.approx(10.5 * day)
    # the slip is the whole delay of the run's end: the work lost and the outage as well (issue 21)
    assert p.schedule_slip == pytest.approx(p.rpo_site_expected + p.rto_site + 10.5 * day)


def test_explain_every_field():
    p = plan()
    for name in list(PLAN_FIELDS) + ["rto_site_phases", "tier_total_costs", "break_even_delay_costs"]:
        text = p.explain(name)
        assert "$$" in text or "|" in text, name
        if name in PLAN_FIELDS:
            assert p.format(name).replace("$", r"\$").replace("%", r"\%").replace(",", "{,}") in text \
                or p.format(name) in text, name
    with pytest.raises(ValueError, match="unknown plan field 'nope'"):
        p.explain("nope")


def test_json_is_strict_and_flags_inf():
    p = plan(Scenario().with_changes({"replication.link_bandwidth": 1 * Gbit_per_s}))
    data = json.loads(json.dumps(p.to_json_dict(), allow_nan=False))
    assert data["rpo_site"] is None and data["rpo_site_unbounded"] is True
    assert data["replication_keeps_up"] is False
    assert set(PLAN_FIELDS) <= set(data)


@pytest.mark.parametrize("path, values", [
    ("training.gpus", [1000, 8000, 16_384]),
    ("checkpoint.interval", [60.0, 600.0, 3600.0]),
    ("replication.link_bandwidth", [1e9, 1e10, 1e11]),
    ("training.mfu", [0.2, 0.4, 0.6]),
])
def test_sweep_equals_plan_pointwise(path, values):
    curves = sweep(Scenario(), path, np.array(values, dtype=float))
    for i, value in enumerate(values):
        p = plan(Scenario().with_changes({path: value}))
        for name in PLAN_FIELDS:
            expected = float(getattr(p, name))
            both_unbounded = math.isinf(expected) and math.isinf(curves[name][i])
            assert curves[name][i] == pytest.approx(expected, rel=1e-12) or both_unbounded, (name, value)


def test_sweep_rejects_bad_input():
    with pytest.raises(ValueError, match=r"training.mfu = 2.0 is out of range"):
        sweep(Scenario(), "training.mfu", [0.5, 2.0])
    with pytest.raises(ValueError, match="failover.tier is a choice"):
        sweep(Scenario(), "failover.tier", [1.0])
    with pytest.raises(ValueError, match="training.gpus = 1000.5 is not a whole number"):
        sweep(Scenario(), "training.gpus", [1000.5, 2000])
    with pytest.raises(ValueError, match="unknown plan field 'x'"):
        sweep(Scenario(), "training.gpus", [1000], outputs=["x"])
