"""Recovery without restart: fault-tolerant replica groups (torchft-style), held to the published run and priced
beside checkpoint-restart in the tier table."""

import math

import pytest

from drmath import Scenario, plan, presets, reliability, replication, solve

FT = "fault-tolerant"
HOURS_19 = 19 * 3600.0  # [s]: the torchft run's length


# --------------------------------------------------------------------------- the published run


def test_torchft_training_efficiency_from_its_counts():
    # PyTorch blog on torchft (Jun 2025; domain.md): 300 L40S in 30 replica groups of 10, Llama-3 1B, a failure
    # every 60 s. "5,145/6,249 steps committed = 82.3%; x 29.6/30 groups = 81.2% training efficiency." The blog
    # prints one decimal of a percent, so the tolerance is half of that last digit.
    assert reliability.replica_group_goodput(5_145, 6_249, 30, 30) == pytest.approx(0.823, abs=5e-4)
    assert reliability.replica_group_goodput(5_145, 6_249, 29.6, 30) == pytest.approx(0.812, abs=5e-4)


def test_torchft_misprinted_efficiency_does_not_follow_from_its_figures():
    # The same post, a failure every ~15 s: "268/888 = 30.2% of steps; 18.9/30 groups participating", and it
    # prints 13.4% training efficiency. Its own figures give 0.302 x 0.63 = 19.0% (domain.md notes the misprint):
    # the formula reproduces the figures, not the misprint.
    efficiency = reliability.replica_group_goodput(268, 888, 18.9, 30)
    assert efficiency == pytest.approx(0.190, abs=5e-4)
    assert abs(efficiency - 0.134) > 0.05


def test_committed_steps_of_periodic_and_poisson_failures():
    # The benchmark injected a failure every 60 s: 1,100 failures in 19 h over 6,249 steps. One dropped step per
    # failure leaves 6,249 - 1,100 = 5,149 committed against the 5,145 counted (0.1%). The model's failures are
    # Poisson, where two failures can share a step and cost it once: e^(-t/M) = 83.9%, above the periodic 82.4%
    # and the counted 82.3%, by less than the 2% that the difference between the two arrival laws allows here.
    step, mtbf = HOURS_19 / 6_249, HOURS_19 / 1_100
    assert 1 - step / mtbf == pytest.approx(5_145 / 6_249, rel=1e-3)
    poisson = reliability.committed_step_fraction(step, mtbf)
    assert 5_145 / 6_249 < poisson < 5_145 / 6_249 + 0.02
    # 29.6 of 30 groups on average with a failure every 60 s: by Little's law each failed group is out
    # 0.4 x 60 = 24 s; the expected goodput of Poisson failures at that rate is then within 1.5% of the counted 81.2%
    assert reliability.participating_fraction(24.0, 60.0, 30) * 30 == pytest.approx(29.6, rel=1e-12)
    assert reliability.ettr_replica_groups(3600.0, 0.0, step, 24.0, 60.0, 30) == pytest.approx(0.812, abs=0.015)


def test_replica_group_formulas_refuse_counts_out_of_range():
    with pytest.raises(ValueError, match=r"committed_steps must be in \[0, total_steps\], got 7\.0 > 6\.0"):
        reliability.replica_group_goodput(7, 6, 1, 1)
    with pytest.raises(ValueError, match=r"participating_groups must be in \[0, groups\], got 31\.0 > 30\.0"):
        reliability.replica_group_goodput(1, 1, 31, 30)
    # every group out at once: no progress, and never a negative share
    assert reliability.participating_fraction(1e6, 10.0, 8) == 0.0


# --------------------------------------------------------------------------- the tier in the plan


@pytest.fixture(scope="module")
def ft():
    return plan(Scenario().with_changes({"failover.tier": FT}))


@pytest.fixture(scope="module")
def warm():
    return plan()


def test_the_tier_is_a_preset_with_its_source():
    tier = presets.DR_TIERS[FT]
    assert tier.replica_groups == 8 and "torchft" in tier.source and "81.2%" in tier.source
    assert all(presets.DR_TIERS[name].replica_groups == 0 for name in presets.SEARCHED_TIERS)
    assert set(presets.SEARCHED_TIERS) == set(presets.DR_TIERS) - {FT}


def test_a_failed_group_rejoins_from_a_peer_without_a_restart(ft, warm):
    s, groups = ft.scenario, presets.DR_TIERS[FT].replica_groups
    phases = ft.rto_local_phases
    # the state comes from a healthy group over the rejoining group's NICs, not from storage; nothing to validate
    peer = replication.transfer_time(ft.checkpoint_size, s.training.gpus / groups * s.checkpoint.per_writer_bandwidth)
    assert phases["load"] == pytest.approx(peer) and phases["validation"] == 0.0
    assert phases["detection"] == warm.rto_local_phases["detection"]
    assert ft.rto_local == pytest.approx(sum(phases.values())) and ft.rto_local < warm.rto_local
    # goodput: committed steps x participating groups, with the checkpoint stalls still paid
    assert ft.ettr == pytest.approx(reliability.ettr_replica_groups(
        ft.checkpoint_interval, ft.checkpoint_stall, ft.step_time, ft.rto_local, ft.mtbf, groups), rel=1e-12)
    assert ft.ettr > warm.ettr and ft.ettr <= ft.ettr_ceiling <= 1.0
    # what it costs: each group holds the whole state, sharded over its G/R GPUs
    assert ft.state_per_gpu == pytest.approx(groups * warm.state_per_gpu)
    # a local failure costs the step in flight, not the work since the last durable checkpoint
    assert ft.rpo_local == pytest.approx(ft.step_time) and ft.rpo_local_expected == pytest.approx(ft.step_time / 2)
    assert ft.rpo_local < warm.rpo_local and ft.rpo_site == pytest.approx(warm.rpo_site)
    assert "drops the step in flight" in ft.explain("rpo_local")
    assert "committed steps x participating groups" in ft.explain("ettr")
    assert "rejoins" in ft.explain("rto_local")


def test_too_many_groups_for_the_hbm_are_flagged():
    # 405B at 16 B per parameter is 6.48 TB; 8 replicas on 640 H100 (80 GB) need 10.1 GB x 8 = 81 GB per GPU
    p = plan(Scenario().with_changes({"failover.tier": FT, "training.gpus": 640}))
    assert not p.state_fits_hbm and p.min_gpus_for_state == 8 * 81
    assert plan(Scenario().with_changes({"training.gpus": 640})).state_fits_hbm


def test_groups_all_out_collapse_the_goodput():
    p = plan(Scenario().with_changes({"failover.tier": FT, "failures.gpu_failure_rate": 1e-4}))
    assert p.ettr == 0.0 and p.goodput_collapsed


@pytest.mark.parametrize("base", ["warm", FT])
def test_every_tier_row_is_that_tiers_own_plan(base):
    # the tier table reruns every step for a tier whose local recovery differs, whichever tier the scenario has
    table = plan(Scenario().with_changes({"failover.tier": base})).tier_table()
    assert list(table.index) == list(presets.DR_TIERS)
    for name in presets.DR_TIERS:
        own = plan(Scenario().with_changes({"failover.tier": name}))
        for column, field in (("tier_ettrs", "ettr"), ("tier_rto_locals", "rto_local"),
                              ("tier_goodput_lost_costs", "goodput_lost_cost"),
                              ("tier_resilience_costs", "total_cost_of_resilience"),
                              ("tier_total_costs", "total_dr_cost"), ("tier_rto_sites", "rto_site")):
            assert table.loc[name, column] == pytest.approx(getattr(own, field), rel=1e-12), (name, column)


def test_compared_with_checkpoint_restart_in_the_tier_table(warm):
    t = warm.tier_table()
    restart = [name for name in presets.DR_TIERS if name != FT]
    # every checkpoint-restart tier restarts alike; the replica groups lose less goodput and cost it less
    assert len({t.loc[name, "tier_ettrs"] for name in restart}) == 1
    assert all(t.loc[FT, "tier_ettrs"] > t.loc[name, "tier_ettrs"] for name in restart)
    assert all(t.loc[FT, "tier_goodput_lost_costs"] < t.loc[name, "tier_goodput_lost_costs"] for name in restart)
    # its site side is cold's: no standby, the checkpoint staged from the object store after weeks of readiness
    for column in ("tier_rto_sites", "tier_standby_costs", "tier_total_costs", "tier_rpo_sites"):
        assert t.loc[FT, column] == pytest.approx(t.loc["cold", column], rel=1e-12), column
    assert t.loc[FT, "tier_resilience_costs"] < t.loc["cold", "tier_resilience_costs"]
    assert math.isfinite(t.loc[FT, "break_even_delay_costs"])


def test_solve_leaves_the_replica_groups_out_and_says_why():
    with pytest.raises(ValueError, match=r"solve\(\) does not search tier 'fault-tolerant': its goodput is a "
                                         r"first-order model no simulation holds"):
        solve(Scenario(), tiers=[FT])
