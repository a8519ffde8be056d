"""The model's probe of which inputs move nothing (``drmath._probe``), which the dashboard's inert controls show."""

import pytest

import drmath
from drmath._probe import moves_nothing


def test_a_multi_site_runs_decision_time_moves_nothing_and_a_warm_ones_does():
    probes = {"failover.decision_time": (0.0, 28_800.0), "training.gpus": (512, 131_072)}
    multi = drmath.plan(drmath.Scenario().with_changes({"failover.tier": "multi-site"}))
    warm = drmath.plan(drmath.Scenario().with_changes({"failover.tier": "warm"}))
    assert moves_nothing(multi, probes) == ["failover.decision_time"]  # it fails over automatically
    assert moves_nothing(warm, probes) == []


def test_a_value_that_moves_one_output_is_enough_to_keep_an_input():
    p = drmath.plan()
    # the default itself moves nothing; one value of the pair that changes the plan keeps the input
    assert moves_nothing(p, {"training.gpus": (p.scenario.training.gpus,)}) == ["training.gpus"]
    assert moves_nothing(p, {"training.gpus": (p.scenario.training.gpus, 1024)}) == []


def test_a_value_out_of_range_is_refused_by_the_scenario():
    with pytest.raises(ValueError, match="training.gpus"):
        moves_nothing(drmath.plan(), {"training.gpus": (-1,)})
