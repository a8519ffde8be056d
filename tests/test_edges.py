"""Issue 21, findings 2-8: the answers at the edges, each reproduced as the issue states it.

Finding 6 (the bound over hops that each take the newest copy) is in ``test_pipeline_bound.py``, with the
event simulation it is checked against.
"""

import json
import math

import numpy as np
import pytest

from drmath import Scenario, plan, presets, recovery, replication, solve
from drmath.cli import main
from drmath.io import scenarios
from drmath.simulate import simulate_run
from drmath.units import MB_per_s, day, hour, minute

NO_SITE_TARGETS = {"requirements.rpo_site": None, "requirements.rto_site": None}


# --------------------------------------------------------------------------- 2. slip is the delay of the run's end


def test_slip_counts_the_work_lost_the_outage_and_the_reduced_capacity_for_every_tier():
    p = plan()
    for tier in presets.DR_TIERS:
        q = plan(p.scenario.with_changes({"failover.tier": tier}))
        assert q.schedule_slip == pytest.approx(q.rpo_site_expected + q.rto_site + q.reduced_capacity_time)
        assert q.schedule_slip == pytest.approx(p.tier_schedule_slips[tier])
        assert q.schedule_slip >= q.rto_site > 0
    cold = plan(p.scenario.with_changes({"failover.tier": "cold"}))
    assert cold.schedule_slip > 21 * day  # three weeks to obtain a cluster: the run ends three weeks late


def test_the_expected_loss_counts_each_part_of_the_slip_once():
    for tier in presets.DR_TIERS:
        q = plan(Scenario().with_changes({"failover.tier": tier}))
        assert q.site_loss_time == pytest.approx(q.schedule_slip)
        assert q.expected_disaster_loss == pytest.approx(
            q.site_event_probability * q.schedule_slip * (q.fleet_cost_rate + q.scenario.cost.delay_cost))


def test_max_slip_of_three_days_rules_out_cold():
    # before: "drmath solve --set requirements.max_slip='3 days'" picked cold, "Schedule slip 0 s <= 3.00 days"
    s = Scenario().with_changes({**NO_SITE_TARGETS, "requirements.max_slip": 3 * day})
    sol = solve(s)
    assert sol.feasible and sol.scenario.failover.tier not in ("cold", "multi-site")
    assert sol.plan.schedule_slip <= 3 * day
    assert "Schedule slip" in sol.reasons["cold"]


def test_time_at_reduced_capacity_has_its_own_card():
    from drmath.quantities import QUANTITIES
    from drmath.viz.headline import CARDS

    assert "reduced_capacity_time" in CARDS and QUANTITIES["reduced_capacity_time"].unit == "[s]"
    half = plan(Scenario().with_changes({"failover.standby_fraction": 0.5}))
    assert half.reduced_capacity_time == pytest.approx(10.5 * day)  # min(45 d x 1, 21 d x 0.5)


# --------------------------------------------------------------------------- 3-4. multi-site is what it says


def test_multi_site_loses_the_survivors_local_rpo():
    p = plan(Scenario().with_changes({"failover.tier": "multi-site"}))
    assert p.rpo_site == p.rpo_local and p.rpo_site_expected == p.rpo_local_expected
    assert p.tier_rpo_sites["multi-site"] == p.rpo_local
    assert p.tier_rpo_sites["warm"] > p.rpo_local  # the others keep the off-site copy's RPO
    # the link does not enter it: copies that protect nothing
    slow = plan(p.scenario.with_changes({"replication.link_bandwidth": 1e9, "replication.interval": 8 * hour}))
    assert slow.rpo_site == p.rpo_site
    assert "holds the training state" in p.explain("rpo_site")


def test_solve_buys_multi_site_no_link_for_its_rpo():
    # before: for site RPO <= 15 min and RTO <= 4 h, multi-site bought a 400 Gbit/s link and 10-min copies ($6.29M)
    s = Scenario().with_changes({"requirements.rpo_site": 15 * minute, "requirements.rto_site": 4 * hour,
                                 "requirements.max_slip": None})
    sol = solve(s, tiers=["multi-site"])
    assert sol.feasible
    grid_links = sorted({x for x in sol.front["replication.link_bandwidth"] if not math.isnan(x)})
    assert sol.scenario.replication.link_bandwidth == grid_links[0]  # the cheapest link on offer


def test_multi_site_charges_a_survivor_larger_than_its_half():
    # before: failover.standby_fraction=1.0 with multi-site gave slip 0 for $5.23M in total
    base = Scenario().with_changes({"failover.tier": "multi-site"})
    split, full = plan(base), plan(base.with_changes({"failover.standby_fraction": 1.0}))
    assert split.excess_site_gpus == 0 and full.excess_site_gpus == pytest.approx(base.training.gpus)
    # the split half at the tier's share, as before, plus a second fleet's worth of idle GPUs at full price
    assert full.standby_cost == pytest.approx(split.standby_cost + full.run_cost)
    warm = plan(Scenario())
    assert full.total_dr_cost > warm.total_dr_cost


def test_the_simulator_keeps_the_survivors_checkpoint_under_multi_site():
    s = Scenario().with_changes({"failover.tier": "multi-site", "failures.site_event_rate": 1e-6,
                                 "training.window": 10 * day})
    r = simulate_run(s, trials=400, seed=3)
    loss = r.site_rpo[r.site_event]
    assert loss.size > 10 and loss.max() <= r.plan.rpo_local * (1 + 1e-9)  # the survivor's own checkpoint


# --------------------------------------------------------------------------- 5. keeps-up for every checkpoint mode

SYNC = {"checkpoint.mode": "sync", "checkpoint.write_bandwidth": 1e10, "checkpoint.interval": 600.0,
        "replication.link_bandwidth": 10e9 / 8}


def test_sync_checkpoints_space_the_copies_by_the_stall():
    # before: the plan said replication falls behind (site RPO unbounded); copies arrive every k(tau + delta)
    p = plan(Scenario().with_changes(SYNC))
    assert p.checkpoint_stall == p.checkpoint_write_time == pytest.approx(567.0)
    assert p.replication_interval == pytest.approx(
        replication.launch_spacing(p.replication_every, p.checkpoint_interval, p.checkpoint_stall))
    assert p.replication_interval == pytest.approx(6 * (600 + 567))
    assert p.replication_keeps_up and math.isfinite(p.rpo_site)
    r = simulate_run(p.scenario.with_changes({"failures.site_event_rate": 1e-6}), trials=300, seed=1)
    loss = r.site_rpo[r.site_event]
    assert loss.size > 10 and loss.max() <= p.rpo_site


# --------------------------------------------------------------------------- 7. flags and clips


def test_newest_over_a_slow_link_is_clipped_and_warned():
    # before: 146 days on a 90-day run, no warning (the warning fired only for every-k)
    p = plan(Scenario().with_changes({"replication.policy": "newest", "replication.link_bandwidth": MB_per_s}))
    assert p.rpo_site == pytest.approx(p.compute_time) and p.rpo_site <= p.time_to_train
    assert "rpo_site" in p.warnings() and "whole progress" in p.warnings()["rpo_site"]


def test_every_k_unbounded_still_warns():
    p = plan(Scenario().with_changes({"replication.link_bandwidth": MB_per_s}))
    assert math.isinf(p.rpo_site) and "rpo_site" in p.warnings()


def test_a_short_run_never_loses_more_than_it_made():
    # before: a 1-hour run with a 30-day off-site cadence reported a 30-day site RPO
    p = plan(Scenario().with_changes({"training.window": hour, "replication.interval": 30 * day}))
    assert p.rpo_site <= p.compute_time < hour and p.rpo_site_expected <= p.compute_time / 2
    assert "rpo_site" in p.warnings()
    assert recovery.rpo_local(30 * day, 3.0, progress=hour) == hour


def test_a_collapsed_run_shows_collapsed(capsys):
    # before: 4.2e-48 tokens and an ETTR of 2.8e-322 beside the collapse warning
    changes = {"training.gpus": 100_000, "failures.launch_time": day}
    p = plan(Scenario().with_changes(changes))
    assert p.goodput_collapsed
    assert p.format("ettr") == p.format("tokens") == "collapsed"
    assert main(["plan", "--set", "training.gpus=100000", "--set", "failures.launch_time=1 day"]) == 0
    out = capsys.readouterr().out
    assert "collapsed" in out and "e-" not in " ".join(line for line in out.splitlines() if "ETTR  " in line)


# --------------------------------------------------------------------------- 8. one answer everywhere

WORKED = {"requirements.rpo_site": 15 * minute, "requirements.rto_site": 4 * hour, "requirements.max_slip": 7 * day}


def test_the_seed_carries_the_worked_answers_requirements():
    seed = scenarios.load(scenarios.SCENARIO_DIR / "seed.toml")
    assert seed == scenarios.seed()
    assert {path: seed.get(path) for path in WORKED} == WORKED
    # every other input is drmath's default; Scenario() sets no targets
    assert seed.with_changes({path: None for path in WORKED}) == Scenario()


def test_cli_dashboard_and_notebook_start_from_the_same_targets_and_agree(capsys):
    from drmath.dashboard import build_app

    app = build_app()
    assert {path: app.controls[path].value for path in WORKED} == WORKED
    assert main(["solve", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert {path: cli["design"][path] for path in WORKED} == WORKED
    sol = app.solve()
    assert sol.feasible and sol.set_flags() == cli["set"]
    assert sol.scenario.failover.tier == cli["design"]["failover.tier"] == "warm"
    # the notebook takes its targets from the seed, and writes none of its own
    source = (scenarios.SCENARIO_DIR.parent.parent / "notebooks" / "00_worked_answer.py").read_text()
    assert "wanted = scenarios.seed()" in source and "solution = answer.worked_answer()" in source
    assert not any(f"{path}\": (" in source and "units." in source.split(path)[1].split("\n")[0]
                   for path in WORKED)
    assert np.isfinite(sol.plan.max_slip_margin)


def test_a_collapsed_run_meets_no_requirement():
    # losses are clipped at the progress made, so a run that barely progresses (a checkpoint every 18 days
    # against a 6.3 h MTBF: ETTR 1e-28) reports a tiny site RPO; that must not count as meeting a target
    p = plan(Scenario().with_changes({"checkpoint.interval": 1.56e6, "requirements.rpo_site": 1.0}))
    assert p.goodput_collapsed and p.rpo_site_margin >= 0
    assert not p.meets_requirements
    assert "goodput has collapsed" in p.explain("meets_requirements")
    s = solve(Scenario().with_changes({"requirements.rpo_site": 1.0}))
    assert not s.feasible and not s.plan.goodput_collapsed  # the closest miss is a run that runs
