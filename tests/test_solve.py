"""Requirements in, the cheapest design out: targets in the plan, the port-priced link, solve() and the CLI."""

import itertools
import json
import math
import re
import shlex

import numpy as np
import pytest

from drmath import Scenario, cost, plan, presets, solve, sweep
from drmath._solve import SEARCHED
from drmath.cli import apply_sets, main
from drmath.quantities import TARGETS as TARGETS_
from drmath.scenario import FIELDS
from drmath.units import Gbit_per_s, day, hour, minute

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
    for tier, *levers in itertools.product(presets.SEARCHED_TIERS, *SMALL.values()):  # what solve() searches
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
    # the cheapest design that meets the targets is on the front; the answer is that design rounded (issue 34)
    from drmath._solve import ROUNDING_COST

    cheapest = front["total_cost_of_resilience"][front["meets_requirements"]].min()
    assert cheapest <= seed_solution.plan.total_cost_of_resilience <= cheapest * (1 + ROUNDING_COST)


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


@pytest.mark.parametrize("path, value, text", [
    ("replication.link_bandwidth", 100 * Gbit_per_s, "100 Gbps"),
    ("replication.interval", 1.5 * hour, "1.5 h"),
    ("replication.interval", 5 * minute, "5 min"),  # 0.0833333 h reads back as 299.99988 s: minutes are exact
    ("replication.interval", 700.0, "700 s"),  # a rounded design reads in seconds where no larger unit is exact
    ("replication.interval", 1000 / 3, repr(1000 / 3)),  # no unit is exact: the number itself
    ("checkpoint.interval", None, "unset"),
    ("failover.tier", "warm", "warm"),
    ("failover.standby_fraction", 0.5, "0.5"),
])
def test_a_set_flag_reads_back_through_the_files_parser_to_the_same_value(path, value, text):
    # set_flags() checks its text with units.parse_quantity (the core may not import drmath.io); --set reads it with
    # io.scenarios.parse_value, which gives unit text to that same parser
    from drmath._solve import _flag_text
    from drmath.io.scenarios import parse_value

    assert _flag_text(path, value) == text
    assert parse_value(path, text) == value


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


# --------------------------------------------------------------------------- the optimum it claims (issue 21)


def test_a_site_rpo_under_the_old_grid_is_met():
    # a cold tier with a 1,000 Gbit/s link, copies every minute and checkpoints every 3 min meets 5 min (4.97 min);
    # the old grid's off-site cadence started at 5 min, so anything under ~6.4 min was called infeasible
    witness = plan(Scenario().with_changes({"failover.tier": "cold", "replication.link_bandwidth": 1000 * Gbit_per_s,
                                            "replication.interval": minute, "checkpoint.interval": 3 * minute,
                                            "requirements.rpo_site": 5 * minute}))
    assert witness.meets_requirements and witness.rpo_site == pytest.approx(4.97 * minute, abs=0.01 * minute)
    s = solve(Scenario().with_changes({"requirements.rpo_site": 5 * minute}))
    assert s.feasible and s.plan.rpo_site <= 5 * minute
    assert s.plan.total_cost_of_resilience <= witness.total_cost_of_resilience


def test_nothing_cheaper_hides_between_grid_points(seed_solution):
    # a warm standby of 5% of the primary, between the old grid's standby sizes, meets 15 min / 4 h for less than
    # the old answer (multi-site, $6.29M)
    witness = plan(Scenario().with_changes({**TARGETS, "failover.tier": "warm", "failover.standby_fraction": 0.05,
                                            "replication.link_bandwidth": 400 * Gbit_per_s,
                                            "replication.interval": 10 * minute, "checkpoint.interval": 220.0}))
    assert witness.meets_requirements
    assert seed_solution.plan.total_cost_of_resilience <= witness.total_cost_of_resilience


def _brute_force(scenario, seed=21, rounds=10):
    """The cheapest design meeting every target by an independent search, through the plan's own steps, vectorised:
    per tier, an exhaustive coarse grid of all four levers (standby sizes included, multi-site's per-site capacity
    too, from its half), random designs (the link a whole number of ports), then ``rounds`` of local search around
    the 32 best (every lever jittered at three scales). Nothing of solve()'s stages. Returns (cost or inf, designs
    evaluated).

    Its answer is an upper bound on the true optimum, found to well under 0.5% on these sets (the 500,000-design
    search of bench/bench_solve_exact.py finds nothing cheaper than solve()), so solve() may exceed it by at most
    0.5%, the issue's bar: a solver that skips a region of designs (a faster link that lets the standby shrink,
    multi-site's per-site capacity) misses by more than that and fails."""
    from drmath._plan import _derive

    v = scenario.with_changes({"cost.link_hour_price": None}).flat()
    floor = plan(scenario).checkpoint_interval_floor
    rng = np.random.default_rng(seed)
    ports = np.concatenate([b * np.arange(1, 65) for b in (10, 100, 400)] + [[800_000]]) * Gbit_per_s
    best, n = math.inf, 0

    def evaluate(tier, t, kk, b, f):
        out = _derive({**v, "failover.tier": tier, "checkpoint.interval": t,
                       "replication.interval": np.clip(t * kk, 60, 2.592e6), "replication.link_bandwidth": b,
                       "failover.standby_fraction": f})
        shape = np.broadcast_shapes(*(np.shape(x) for x in (t, kk, b, f)))
        cost_ = np.broadcast_to(np.asarray(out["total_cost_of_resilience"], dtype=float), shape)
        return np.where(np.broadcast_to(out["meets_requirements"], shape) & np.isfinite(cost_), cost_, np.inf)

    for tier, info in ((name, presets.DR_TIERS[name]) for name in presets.SEARCHED_TIERS):
        low = 0.01 if info.sites == 1 else 0.5  # sites that train together each hold their half at least
        grid = np.meshgrid(np.geomspace(max(1.0, floor), 1e5, 24), np.unique(np.round(np.geomspace(1, 600, 20))),
                           np.array([10, 20, 40, 100, 200, 400, 800, 1600, 3200, 6400, 800_000]) * Gbit_per_s,
                           np.linspace(max(low, 0.1), 1, 10), indexing="ij")
        m = 20_000  # and random designs, the link a whole number of ports
        draws = (np.exp(rng.uniform(np.log(max(1.0, floor)), np.log(1e5), m)),
                 np.floor(np.exp(rng.uniform(0, np.log(400), m))), rng.choice(ports, m), rng.uniform(low, 1, m))
        levers = [np.concatenate([g.ravel(), d]) for g, d in zip(grid, draws)]
        cost_ = evaluate(tier, *levers)
        for _ in range(rounds):  # local search: jitter the best designs so far
            top = np.argsort(cost_, kind="stable")[:32]
            top = top[np.isfinite(cost_[top])]
            if not len(top):
                break
            pick, scale = rng.choice(top, 8000), rng.choice([0.2, 0.03, 0.003], 8000)
            t, kk, b, f = (x[pick] for x in levers)
            moved = [np.clip(t * np.exp(rng.normal(0, scale)), max(1.0, floor), 2.592e6),
                     np.maximum(1.0, np.round(kk * np.exp(rng.normal(0, scale)))),
                     np.clip(np.round(b * np.exp(rng.normal(0, scale)) / (10 * Gbit_per_s)), 1, None) * 10 * Gbit_per_s,
                     np.clip(f + rng.normal(0, scale / 3), low, 1.0)]
            levers = [np.concatenate([x, y]) for x, y in zip(levers, moved)]
            cost_ = np.concatenate([cost_, evaluate(tier, *moved)])
        n += len(cost_)
        best = min(best, float(cost_.min()))
    return best, n


REQUIREMENT_SETS = [
    pytest.param({}, id="no-targets"),
    pytest.param(TARGETS, id="rpo-15min-rto-4h"),
    pytest.param({**TARGETS, "requirements.max_slip": 7 * 86_400.0}, id="seed-file"),
    pytest.param({"requirements.rpo_site": 5 * minute}, id="rpo-5min"),
    pytest.param({"requirements.rpo_site": 3 * minute}, id="rpo-3min"),
    pytest.param({"requirements.rpo_site": hour, "requirements.rpo_local": 5 * minute,
                  "requirements.rto_site": day}, id="rpo-1h-local-5min-rto-1d"),
    # issue 34: a first pass that ranked designs at a full-size standby chose a 10 Gbit/s link (+1.06%, +0.51%):
    # a faster link shortens the slip and lets the standby shrink
    pytest.param({"requirements.rpo_local": 5 * minute, "requirements.rto_site": 2 * hour,
                  "requirements.max_slip": day}, id="local-5min-rto-2h-slip-1d"),
    pytest.param({"requirements.max_slip": 2 * day}, id="slip-2d"),
    # issue 34: called infeasible; multi-site with 86% per-site capacity meets it
    pytest.param({"requirements.rto_site": 30 * minute, "requirements.max_slip": 3 * day}, id="rto-30min-slip-3d"),
]


@pytest.mark.parametrize("targets", REQUIREMENT_SETS)
def test_nothing_cheaper_than_the_solution_by_brute_force(targets):
    scenario = Scenario().with_changes(targets)
    s = solve(scenario)
    best, n = _brute_force(scenario)
    assert n >= 100_000 and math.isfinite(best)
    assert s.feasible and s.plan.meets_requirements
    assert s.plan.total_cost_of_resilience <= best * 1.005, (s.plan.total_cost_of_resilience, best)


def test_multi_site_per_site_capacity_is_searched():
    s = solve(Scenario().with_changes({"requirements.rto_site": 30 * minute, "requirements.max_slip": 3 * day}))
    assert s.feasible and s.scenario.failover.tier == "multi-site"
    assert 0.5 < s.plan.standby_fraction < 1.0  # more than its half, less than a second fleet
    assert s.plan.schedule_slip <= 3 * day and s.plan.rto_site <= 30 * minute
    # no other tier meets a 30 min site RTO, and their reasons say so; none blames multi-site's slip
    assert all("Site RTO" in why for why in s.reasons.values())


def test_a_truly_infeasible_target_is_called_infeasible():
    # 1 s: under any checkpoint's persist time (W = 2.8 s here), so under multi-site's local RPO too (a 10 s
    # target was infeasible until multi-site kept its own state: its site RPO is then the local one, 9.8 s)
    scenario = Scenario().with_changes({"requirements.rpo_site": 1.0})
    s = solve(scenario)
    best, n = _brute_force(scenario)
    assert n >= 100_000 and math.isinf(best)
    assert not s.feasible and "No searched design meets every target" in s.message
    # the closest miss is the true one: the least site RPO any running design reaches, and no brute-force
    # design gets closer
    relaxed = Scenario().with_changes({"requirements.rpo_site": s.plan.rpo_site * (1 - 1e-3)})
    assert math.isinf(_brute_force(relaxed)[0])


# --------------------------------------------------------------------------- issue 23: a confidence level

from drmath._confidence import TOLERANCE  # noqa: E402
from drmath._plan import _derive  # noqa: E402
from drmath._uncertainty import draw_inputs  # noqa: E402
from drmath.io import scenarios  # noqa: E402

UNCERTAIN = {"uncertainty.failures.gpu_failure_rate": (3e-9, 1e-8),
             "uncertainty.failover.decision_time": {"low": 600.0, "high": 4 * hour},
             "uncertainty.replication.efficiency": (0.5, 0.95)}
BRUTE = {"failover.tier": presets.SEARCHED_TIERS,
         "replication.link_bandwidth": tuple(g * Gbit_per_s for g in (100, 200, 400, 800, 1600)),
         "replication.interval": (5 * minute, 10 * minute, 15 * minute),
         "checkpoint.interval": (None, 2 * minute, 5 * minute),
         "failover.standby_fraction": (None, 0.5, 1.0)}
DRAWS = 400


def _over_the_draws(scenario, designs, inputs):
    """Each design over the draws, one design at a time: the share of draws meeting every target, mean cost."""
    v = scenario.with_changes({"cost.link_hour_price": None}).flat()
    v.update(inputs)
    result = []
    for d in designs:
        tier = presets.DR_TIERS[d["failover.tier"]]
        out = _derive({**v, **d, "failover.standby_fraction": (tier.standby_fraction if d["failover.standby_fraction"]
                                                              is None else d["failover.standby_fraction"])})
        total = np.broadcast_to(out["total_cost_of_resilience"], (DRAWS,))
        met = np.broadcast_to(out["meets_requirements"], (DRAWS,)) & np.isfinite(total)
        result.append((float(met.mean()), float(total.mean())))
    return result


@pytest.fixture(scope="module")
def uncertain_seed():
    return scenarios.seed().replace(**UNCERTAIN)


@pytest.fixture(scope="module")
def at_95(uncertain_seed):
    return solve(uncertain_seed, confidence=0.95, draws=DRAWS, seed=11)


def test_confidence_beats_every_design_of_a_brute_force_grid_on_the_same_draws(uncertain_seed, at_95):
    inputs = draw_inputs(uncertain_seed, DRAWS, 11)
    grid = [dict(zip(BRUTE, values)) for values in itertools.product(*BRUTE.values())]
    judged = _over_the_draws(uncertain_seed, grid, inputs)
    robust = [cost_ for met, cost_ in judged if met >= 0.95]
    assert robust, "the grid should hold a design that meets the confidence"
    chosen = {path: at_95.changes[path] for path in SEARCHED}
    [(met, cost_)] = _over_the_draws(uncertain_seed, [chosen], inputs)
    assert at_95.feasible and met >= 0.95 and met == at_95.probability_met
    assert cost_ <= min(robust) * (1 + TOLERANCE)


def test_confidence_says_how_often_the_point_design_would_miss(uncertain_seed, at_95):
    point = solve(uncertain_seed)
    inputs = draw_inputs(uncertain_seed, DRAWS, 11)
    [(met, _)] = _over_the_draws(uncertain_seed, [{path: point.changes[path] for path in SEARCHED}], inputs)
    assert at_95.point_design_miss_probability == pytest.approx(1 - met)
    assert at_95.point_design_miss_probability > 0.05  # the point design is not good enough at 95%
    assert at_95.confidence == 0.95
    assert f"meets every target in {at_95.probability_met:.1%}" in at_95.message
    assert f"the point-estimate design would miss in {1 - met:.1%}" in at_95.message


def test_without_uncertainty_confidence_gives_the_point_answer():
    s = Scenario().with_changes(TARGETS)
    point, sure = solve(s), solve(s, confidence=0.9, draws=20)
    assert sure.changes == point.changes and sure.probability_met == 1.0
    assert sure.point_design_miss_probability == 0.0 and point.confidence is None


@pytest.mark.parametrize("confidence", [0.0, 1.0, -0.5, 1.5, float("nan"), "high", True])
def test_a_bad_confidence_names_it(confidence):
    with pytest.raises(ValueError, match=r"^confidence = .* is out of range: must be in \(0, 1\)"):
        solve(Scenario().with_changes(TARGETS), confidence=confidence)


def test_cli_solve_at_a_confidence(capsys):
    argv = ["solve", "--confidence", "0.95", "--draws", "100", "--json"]
    for path, spread in UNCERTAIN.items():
        lo, hi = spread.values() if isinstance(spread, dict) else spread
        argv += ["--set", f"{path}={lo!r},{hi!r}"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["confidence"] == 0.95 and data["probability_met"] >= 0.95
    assert 0 <= data["point_design_miss_probability"] <= 1
    assert main(["solve", "--confidence", "1.2"]) == 2
    assert "confidence" in capsys.readouterr().err


# --------------------------------------------------------------------------- issue 34: a design a person can type


def _significant(x):
    """How many significant digits ``x`` has (as the shortest text that reads back to it)."""
    mantissa = repr(float(x)).split("e")[0].replace("-", "").replace(".", "").strip("0")
    return len(mantissa)


def _coarser(x, digits):
    """``x`` at ``digits`` significant digits, to nearest, up and down."""
    unit = 10.0 ** (math.floor(math.log10(abs(x))) - digits + 1)
    return {round(f(x / unit) * unit, 12) for f in (round, math.ceil, math.floor)}


@pytest.mark.parametrize("targets", [
    {"requirements.rpo_local": 5 * minute, "requirements.rto_site": 2 * hour, "requirements.max_slip": day},
    {"requirements.rto_site": 30 * minute, "requirements.max_slip": 3 * day},
    {**TARGETS, "requirements.max_slip": 7 * day},
], ids=["local-5min-rto-2h-slip-1d", "rto-30min-slip-3d", "seed-file"])
def test_the_design_is_rounded_to_the_coarsest_precision_that_meets_every_target(targets):
    from drmath._solve import ROUNDING_COST

    scenario = Scenario().with_changes(targets)
    s = solve(scenario)
    table = s._table
    exact = float(np.min(table["total_cost_of_resilience"][table["meets_requirements"]]))
    # re-checked after rounding: the rounded design meets every target, costs what the output says, little more
    assert s.feasible and s.plan.meets_requirements and s.plan == plan(s.scenario)
    assert s.plan.total_cost_of_resilience <= exact * (1 + ROUNDING_COST)
    assert plan(apply_sets(scenario, s.set_flags())) == s.plan
    rounded = {path: x for path, x in s.changes.items()
               if isinstance(x, float) and path != "replication.link_bandwidth"}  # the link: whole ports already
    assert rounded and all(_significant(x) <= 6 for x in rounded.values()), s.set_flags()
    # the coarsest: one digit fewer on any value, whichever way it is rounded, misses a target or costs more
    for path, x in rounded.items():
        if _significant(x) == 1:
            continue
        for y in _coarser(x, _significant(x) - 1):
            if not FIELDS[path].low <= y <= FIELDS[path].high:
                continue
            p = plan(s.scenario.with_changes({path: y}))
            assert not p.meets_requirements or p.total_cost_of_resilience > exact * (1 + ROUNDING_COST), (path, x, y)


def test_cli_solve_prints_no_raw_float(capsys):
    assert main(["solve", "--set", "requirements.rpo_local=5 min", "--set", "requirements.rto_site=2 h",
                 "--set", "requirements.max_slip=1 day", "--set", "requirements.rpo_site=unset"]) == 0
    out = capsys.readouterr().out
    flags = [line.strip() for line in out.splitlines() if line.strip().startswith("--set ")]
    assert len(flags) == len(SEARCHED)
    assert not any(re.search(r"\d\.\d{6,}", flag) for flag in flags), flags


# --------------------------------------------------------------------------- issue 34: the margin where it is cheapest

ISSUE_34 = {"uncertainty.failures.gpu_failure_rate": (3e-9, 1e-8),
            "uncertainty.failover.decision_time": {"low": 10 * minute, "high": 2 * hour},
            "uncertainty.replication.efficiency": (0.5, 0.95),
            "uncertainty.checkpoint.write_bandwidth": (1e12, 3e12)}


def _search_over_draws(scenario, inputs, confidence):
    """The cheapest design (mean cost over the draws) meeting every target in at least ``confidence`` of the draws,
    by an independent search: every tier over a grid of checkpoint intervals, cadences and links, each design at
    the smallest standby reaching the confidence (bisected over the draws: a larger standby never misses a target
    a smaller one meets, in any draw) or the largest. Returns (mean cost or inf, design)."""
    n = len(next(iter(inputs.values())))
    v = scenario.with_changes({"cost.link_hour_price": None}).flat()
    v.update({path: x[None, :] for path, x in inputs.items()})
    grid = np.meshgrid(np.geomspace(150, 400, 6), np.array([1, 2, 3, 4, 5, 6, 10, 30, 300.0]),
                       np.array([10, 40, 100, 200, 300, 400, 500, 600, 800, 1600]) * Gbit_per_s, indexing="ij")
    tau, k, bw = (x.ravel()[:, None] for x in grid)

    def judge(tier, f, tau, k, bw):
        out = _derive({**v, "failover.tier": tier, "checkpoint.interval": tau, "replication.interval": tau * k,
                       "replication.link_bandwidth": bw, "failover.standby_fraction": f})
        total = np.broadcast_to(np.asarray(out["total_cost_of_resilience"], float), (len(tau), n))
        met = np.broadcast_to(out["meets_requirements"], (len(tau), n)) & np.isfinite(total)
        return met.mean(axis=1), total.mean(axis=1)

    best = (math.inf, None)
    for tier, info in ((name, presets.DR_TIERS[name]) for name in presets.SEARCHED_TIERS):
        reach, _ = judge(tier, 1.0, tau, k, bw)
        keep = reach >= confidence
        t, kk, b = tau[keep], k[keep], bw[keep]
        low, high = np.full(t.shape, 0.01 if info.sites == 1 else 0.5), np.ones(t.shape)
        for _ in range(16):
            mid = 0.5 * (low + high)
            enough = judge(tier, mid, t, kk, b)[0][:, None] >= confidence
            low, high = np.where(enough, low, mid), np.where(enough, mid, high)
        for f in (high, np.ones(t.shape)):
            met, mean = judge(tier, f, t, kk, b)
            mean = np.where(met >= confidence, mean, np.inf)
            if len(mean) and mean.min() < best[0]:
                j = int(np.argmin(mean))
                best = (float(mean[j]), (tier, float(t[j, 0]), float(kk[j, 0]), float(b[j, 0]), float(f[j, 0])))
    return best


def test_confidence_spends_the_margin_where_it_is_cheapest():
    # issue 34: tightening every target by one share bought standby to protect the slip where the site RPO needed
    # the margin: $19.72M where a warm design meeting 95.1% of the same draws costs $19.09M (+3.3%)
    scenario = scenarios.seed().replace(**ISSUE_34)
    s = solve(scenario, confidence=0.95, draws=DRAWS, seed=11)
    inputs = draw_inputs(scenario, DRAWS, 11)
    [(met, mean)] = _over_the_draws(scenario, [{path: s.changes[path] for path in SEARCHED}], inputs)
    best, design = _search_over_draws(scenario, inputs, 0.95)
    assert math.isfinite(best), "the search should find a design that meets the confidence"
    assert s.feasible and met >= 0.95 and met == s.probability_met
    assert mean <= best * 1.01, (mean, best, design, s.set_flags())


def test_a_closest_miss_is_rounded_and_misses_by_no_more():
    # no tier restarts in 5 min; the closest design is rounded as an answer is, without missing by more
    scenario = Scenario().with_changes({"requirements.rto_site": 5 * minute, "requirements.max_slip": day})
    s = solve(scenario)
    assert not s.feasible and "No searched design meets every target" in s.message
    flags = s.set_flags()
    assert not any(re.search(r"\d\.\d{6,}|e[+-]\d", flag) for flag in flags), flags
    scale = np.array([max(scenario.get(t.input) or 0.0, minute) for t in TARGETS_])
    table = s._table
    running = ~np.asarray(table["goodput_collapsed"], dtype=bool)
    shortfalls = np.max([np.maximum(table[t.value] - scenario.get(t.input), 0.0) / x
                         for t, x in zip(TARGETS_, scale) if scenario.get(t.input) is not None], axis=0)
    mine = max(max(getattr(s.plan, t.value) - scenario.get(t.input), 0.0) / x
               for t, x in zip(TARGETS_, scale) if scenario.get(t.input) is not None)
    assert mine <= np.min(shortfalls[running]) * (1 + 1e-9)


def test_a_confidence_solve_where_no_design_survives_answers_with_the_closest_not_an_index_error():
    # a fleet that fails every 3 minutes: every design's goodput collapses, the robust search finds no candidate
    # and indexed an empty array (notebook 08's upload met it); the answer is the point search's closest, refused
    s = Scenario()
    rate = 1 / (180.0 * s.training.gpus)
    s = s.with_changes({"failures.gpu_failure_rate": rate}).replace(
        **{"uncertainty.failures.gpu_failure_rate": (rate / 2, rate * 2)})
    point = solve(s)
    assert not point.feasible
    got = solve(s, confidence=0.95, draws=200)
    assert not got.feasible and got.probability_met == 0.0
    assert got.scenario.failover.tier == point.scenario.failover.tier
    assert got.message.startswith("No searched design meets every target in 95% of the draws")
