"""Requirements in, the cheapest design out: targets in the plan, the port-priced link, solve() and the CLI."""

import itertools
import json
import math
import shlex

import numpy as np
import pytest

from drmath import Scenario, cost, plan, presets, solve, sweep
from drmath._solve import SEARCHED
from drmath.cli import apply_sets, main
from drmath.units import Gbit_per_s, hour, minute

TARGETS = {"requirements.rpo_site": 15 * minute, "requirements.rto_site": 4 * hour, "requirements.max_slip": None}
"""The two-target question: the seed also sets the worked answer's slip target (issue 21); here it is unset."""
SMALL = {"replication.link_bandwidth": (10 * Gbit_per_s, 100 * Gbit_per_s, 400 * Gbit_per_s),
         "replication.interval": (5 * minute, 15 * minute, hour),
         "checkpoint.interval": (None, 5 * minute),
         "failover.standby_fraction": (None, 0.5)}


@pytest.fixture(scope="module")
def seed_solution():
    return solve(Scenario().with_changes(TARGETS))


# --------------------------------------------------------------------------- targets in the plan


def test_unset_targets_are_met_with_infinite_margin():
    p = plan(Scenario().with_changes({"requirements.rpo_site": None, "requirements.rto_site": None,
                                      "requirements.max_slip": None}))
    assert p.meets_requirements is True
    assert all(math.isinf(getattr(p, name)) for name in ("rpo_site_margin", "rto_site_margin", "max_slip_margin"))
    assert "No target set" in p.explain("rpo_site_margin")


def test_a_missed_target_warns_by_how_much():
    p = plan(Scenario().with_changes(TARGETS))
    assert p.rpo_site_margin == pytest.approx(15 * minute - p.rpo_site)  # target − value
    assert p.rto_site_margin == pytest.approx(4 * hour - p.rto_site) and p.rto_site_margin > 0
    assert p.meets_requirements is False
    warning = p.warnings()["rpo_site_margin"]
    assert "missed" in warning and p.format("rpo_site") in warning and "requirements.rpo_site" in warning


def test_requirements_validated():
    with pytest.raises(ValueError, match=r"requirements.rto_site = -1 is out of range"):
        Scenario().with_changes({"requirements.rto_site": -1})
    assert Scenario().with_changes({"requirements.max_slip": 0.0}).requirements.max_slip == 0.0


# --------------------------------------------------------------------------- the link priced by its bandwidth


def test_link_price_scales_with_bandwidth():
    # AWS Direct Connect port-hours: 10G $2.25, 100G $22.50, 400G $85.00 (domain.md §6)
    assert cost.link_hour_price(100 * Gbit_per_s) == 22.50 == plan().link_hour_price
    assert cost.link_hour_price(400 * Gbit_per_s) == 85.00
    assert cost.link_hour_price(800 * Gbit_per_s) == 170.00  # two 400G ports
    curve = sweep(Scenario(), "replication.link_bandwidth", np.array([10, 100, 400, 1600]) * Gbit_per_s,
                  ["replication_cost", "link_hour_price"])
    assert np.all(np.diff(curve["replication_cost"]) > 0)  # more link is never free
    # a set price is the price, whatever the bandwidth
    fixed = sweep(Scenario().with_changes({"cost.link_hour_price": 22.5}), "replication.link_bandwidth",
                  [1e10, 1e11], ["link_hour_price"])
    assert list(fixed["link_hour_price"]) == [22.5, 22.5]


# --------------------------------------------------------------------------- solve


def test_solution_meets_every_target(seed_solution):
    s = seed_solution
    assert s.feasible and s.meets == {"requirements.rpo_site": True, "requirements.rto_site": True}
    assert s.plan.rpo_site <= 15 * minute and s.plan.rto_site <= 4 * hour and s.plan.meets_requirements
    assert s.plan == plan(s.scenario)
    assert set(s.changes) == set(SEARCHED)
    # the cheaper tiers fail on the site RTO: weeks to obtain GPUs, days for a pilot light
    assert "Site RTO" in s.reasons["cold"] and "Site RTO" in s.reasons["pilot-light"]


def test_no_cheaper_point_of_the_grid_meets_the_targets():
    base = Scenario().with_changes(TARGETS)
    solution = solve(base, grid=SMALL)
    best = math.inf
    for tier, *levers in itertools.product(presets.DR_TIERS, *SMALL.values()):
        p = plan(base.with_changes({"failover.tier": tier, **dict(zip(SMALL, levers))}))
        if p.meets_requirements:
            best = min(best, p.total_cost_of_resilience)
    assert solution.plan.total_cost_of_resilience == pytest.approx(best, rel=1e-12)


def test_front_is_pareto(seed_solution):
    front = seed_solution.front
    points = front[["total_cost_of_resilience", "rpo_site", "rto_site"]].to_numpy()
    assert len(points) > 1
    for i, a in enumerate(points):
        others = np.delete(points, i, axis=0)
        dominated = np.all(others <= a, axis=1) & np.any(others < a, axis=1)
        assert not dominated.any(), f"front point {i} is dominated"
    # the cheapest design that meets the targets is on the front
    assert seed_solution.plan.total_cost_of_resilience in set(front["total_cost_of_resilience"])


def test_impossible_target_says_which_is_closest_and_what_it_takes():
    s = solve(Scenario().with_changes({"requirements.rpo_site": 1.0, "requirements.rto_site": 4 * hour}))
    assert not s.feasible and s.meets["requirements.rpo_site"] is False and s.meets["requirements.rto_site"]
    assert "No searched design meets every target" in s.message
    assert "misses Site RPO by" in s.message and "relaxing requirements.rpo_site to" in s.message


def test_bad_arguments():
    with pytest.raises(ValueError, match="solve\\(\\) searches"):
        solve(Scenario(), grid={"training.gpus": [1]})
    with pytest.raises(ValueError, match="failover.tier = 'tepid' is not valid"):
        solve(Scenario(), tiers=["tepid"])


# --------------------------------------------------------------------------- the CLI


def test_cli_round_trip(capsys, seed_solution):
    sets = ["requirements.rpo_site=15 min", "requirements.rto_site=4 h", "requirements.max_slip=unset"]
    assert main(["solve", *(a for s in sets for a in ("--set", s))]) == 0
    out = capsys.readouterr().out
    flags = [shlex.split(line)[1] for line in out.splitlines() if line.strip().startswith("--set ")]
    assert len(flags) == len(SEARCHED)
    base = apply_sets(Scenario(), sets)
    assert plan(apply_sets(base, flags)) == seed_solution.plan
    assert seed_solution.plan.format("total_cost_of_resilience") in out and "met" in out


def test_cli_json(capsys, seed_solution):
    assert main(["solve", "seed", "--set", "requirements.rpo_site=15 min", "--set", "requirements.rto_site=4 h",
                 "--set", "requirements.max_slip=unset", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"design", "plan", "meets", "front"} <= set(data)
    assert data["meets"] == {"requirements.rpo_site": True, "requirements.rto_site": True}
    design = Scenario.from_dict(data["design"])
    assert design.cost.link_hour_price is None  # the seed file's link is priced by its bandwidth
    assert plan(design).total_cost_of_resilience == pytest.approx(seed_solution.plan.total_cost_of_resilience)
    assert len(data["front"]) == len(seed_solution.front)


def test_cli_errors_exit_2_with_one_line(capsys):
    assert main(["solve", "--set", "requirements.rpo_site=soon"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "requirements.rpo_site" in err


def test_cli_impossible_exits_1(capsys):
    assert main(["solve", "--set", "requirements.rpo_site=1 s"]) == 1
    assert "No searched design meets every target" in capsys.readouterr().out
