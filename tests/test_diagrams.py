"""The two hand-built diagrams draw the plan's numbers, and only those."""

import subprocess
import sys

import pytest

from drmath import Scenario, formatting, plan, viz
from drmath.formatting import format_quantity

pytest.importorskip("plotly")
from drmath.viz import diagrams  # noqa: E402  (needs plotly)

SLOW_LINK = {"replication.link_bandwidth": 1e9}  # 8 Gbit/s: 5.67 TB takes ~1.75 h per copy
CASES = {
    "default": {},
    "sync-cold": {"checkpoint.mode": "sync", "failover.tier": "cold"},
    "slow-link": SLOW_LINK,
    "multi-site": {"failover.tier": "multi-site"},
}


@pytest.fixture(params=list(CASES), ids=list(CASES))
def p(request):
    return plan(Scenario().with_changes(CASES[request.param]))


def _annotation(fig, name):
    found = [a for a in fig.layout.annotations if a.name == name]
    assert len(found) == 1, f"expected one annotation named {name!r}, found {len(found)}"
    return found[0].text


# --------------------------------------------------------------------------- data path


def test_data_path_has_every_station_and_hop(p):
    fig = diagrams.data_path_figure(p)
    names = {a.name for a in fig.layout.annotations}
    assert {f"node:{n}" for n in diagrams.NODES} <= names
    assert {f"edge:{e}" for e in diagrams.EDGES} <= names


@pytest.mark.parametrize("edge, fields", [
    ("host_copy", ["checkpoint_stall"]),
    ("persist", ["checkpoint_write_time"]),
    ("upload", ["object_store_time"]),
    ("link", ["link_time"]),
    ("restore", ["checkpoint_load_time"]),
])
def test_data_path_hop_times_are_the_plans(p, edge, fields):
    text = _annotation(diagrams.data_path_figure(p), f"edge:{edge}")
    for name in fields:
        assert f"<b>{p.format(name)}</b>" in text


def test_data_path_bandwidths_are_the_scenarios(p):
    s = p.scenario
    fig = diagrams.data_path_figure(p)
    link = _annotation(fig, "edge:link")
    assert f"{s.replication.link_bandwidth * 8 / 1e9:g} Gbit/s" in link
    assert "2.00 TB/s" in _annotation(fig, "edge:persist")      # fails if write bandwidth is not drawn
    assert "87.5 GB/s" in _annotation(fig, "edge:upload")


def test_data_path_stations_carry_size_cadence_and_rpo(p):
    fig = diagrams.data_path_figure(p)
    assert p.format("checkpoint_size") in _annotation(fig, "node:filesystem")
    assert p.format("checkpoint_interval") in _annotation(fig, "node:primary")
    assert p.format("replication_interval") in _annotation(fig, "node:object_store")
    assert p.format("rpo_site") in _annotation(fig, "node:remote")
    assert p.format("rto_site") in _annotation(fig, "node:standby")
    assert p.format("checkpoint_write_time") in _annotation(fig, "mark:durable")
    assert p.format("replication_time") in _annotation(fig, "mark:offsite")


def test_data_path_restore_shows_staging_only_when_needed():
    warm = diagrams.data_path_figure(plan())
    cold_plan = plan(Scenario().with_changes({"failover.tier": "cold"}))
    cold = diagrams.data_path_figure(cold_plan)
    assert "lands on standby storage" in _annotation(warm, "edge:restore")
    assert "<b>0 s</b>" in _annotation(warm, "edge:restore")
    staging = cold_plan.rto_site_phases["staging"]
    assert staging > 0
    assert "stage at" in _annotation(cold, "edge:restore")
    assert f"<b>{cold_plan.format('object_store_time')}</b>" in _annotation(cold, "edge:restore")


def test_data_path_flags_a_link_that_does_not_keep_up():
    slow = plan(Scenario().with_changes(SLOW_LINK))
    assert not slow.replication_keeps_up
    fig = diagrams.data_path_figure(slow)
    assert "DOES NOT KEEP UP" in _annotation(fig, "edge:link")
    assert "RPO unbounded" in _annotation(fig, "mark:offsite")
    assert "no bound" in _annotation(fig, "node:remote")
    assert "DOES NOT KEEP UP" not in _annotation(diagrams.data_path_figure(plan()), "edge:link")


def test_data_path_says_which_checkpoints_ship(p):
    text = _annotation(diagrams.data_path_figure(p), "node:object_store")
    assert f"<br>{formatting.every(p.replication_every)}<br>" in text


def test_data_path_uses_the_palette():
    fig = diagrams.data_path_figure(plan(Scenario().with_changes(SLOW_LINK)))
    colours = {a.font.color for a in fig.layout.annotations} | {s.line.color for s in fig.layout.shapes}
    assert colours - {None} <= set(viz.PALETTE.values())
    assert viz.RED in colours  # the link that does not keep up


# --------------------------------------------------------------------------- timelines


def _phase_bars(fig, axis):
    return [t for t in fig.data if t.xaxis == axis and t.name != "work lost"]


def _axis_unit(fig, axis):
    """Seconds per unit of a timeline's x axis, read from its title (``… [h]``)."""
    name = fig.layout[f"xaxis{axis[1:]}"].title.text.split("[")[1].rstrip("]")
    return {n: scale for scale, n in formatting.DURATION_UNITS}[name]


@pytest.mark.parametrize("axis, phases_field, rto_field", [
    ("x", "rto_local_phases", "rto_local"),
    ("x2", "rto_site_phases", "rto_site"),
])
def test_timeline_bars_are_the_phases_end_to_end(p, axis, phases_field, rto_field):
    fig = diagrams.recovery_timeline_figure(p)
    bars = _phase_bars(fig, axis)
    phases = getattr(p, phases_field)
    assert [b.name for b in bars] == list(phases)
    unit = _axis_unit(fig, axis)
    for bar, (name, duration) in zip(bars, phases.items()):
        assert bar.x[0] * unit == pytest.approx(duration)
        assert bar.text[0].startswith(format_quantity(duration, "duration"))
        assert bar.marker.color == viz.PHASE_COLOURS[name]
    for before, after in zip(bars, bars[1:]):             # each phase starts where the last ended
        assert after.base[0] == pytest.approx(before.base[0] + before.x[0])
    end = bars[-1].base[0] + bars[-1].x[0]
    assert end * unit == pytest.approx(getattr(p, rto_field))


def test_timeline_titles_carry_the_rtos(p):
    fig = diagrams.recovery_timeline_figure(p)
    titles = [a.text for a in fig.layout.annotations][:2]
    assert f"RTO <b>{p.format('rto_local')}</b>" in titles[0]
    assert f"RTO <b>{p.format('rto_site')}</b>" in titles[1]


def test_timeline_draws_the_work_lost_before_the_failure():
    p = plan()
    fig = diagrams.recovery_timeline_figure(p)
    lost = [t for t in fig.data if t.name == "work lost"]
    assert len(lost) == 2
    local, site = lost
    assert local.base[0] == pytest.approx(-local.x[0])
    assert local.x[0] * _axis_unit(fig, "x") == pytest.approx(p.rpo_local)
    assert site.x[0] * _axis_unit(fig, "x2") == pytest.approx(p.rpo_site)
    assert p.format("rpo_site") in site.text[0]


def test_timeline_says_unbounded_when_replication_lags():
    p = plan(Scenario().with_changes(SLOW_LINK))
    fig = diagrams.recovery_timeline_figure(p)
    site = [t for t in fig.data if t.name == "work lost"][1]
    assert site.x[0] == 0
    assert "unbounded" in site.text[0]
    assert "RPO unbounded" in fig.layout.annotations[1].text


def test_timeline_unit_follows_the_span():
    cold_plan = plan(Scenario().with_changes({"failover.tier": "cold"}))
    cold = diagrams.recovery_timeline_figure(cold_plan)
    assert cold_plan.rto_site > 86400 and cold_plan.rto_local < 3600
    assert cold.layout.xaxis2.title.text.endswith("[days]")
    assert cold.layout.xaxis.title.text.endswith("[min]")


def test_import_drmath_does_not_import_plotly():
    code = "import sys, drmath; drmath.plan(); print('plotly' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_old_module_still_gives_each_name_with_a_warning_naming_its_new_home():
    import drmath.diagrams as old

    for name in diagrams.__all__:
        with pytest.warns(FutureWarning, match=rf"drmath\.diagrams\.{name} moved to drmath\.viz\.diagrams\.{name};"):
            assert getattr(old, name) is getattr(diagrams, name)
    with pytest.warns(FutureWarning, match="moved to drmath.viz.diagrams"):
        from drmath.diagrams import data_path_figure
    assert data_path_figure is diagrams.data_path_figure
    assert sorted(old.__all__) == sorted(diagrams.__all__)
    with pytest.raises(AttributeError, match="no attribute '_bw'"):
        old._bw  # noqa: B018  (only the public names moved with a forward)


def test_importing_the_old_module_alone_loads_no_plotly_and_warns_nothing():
    code = ("import sys, warnings; warnings.simplefilter('error'); import drmath.diagrams, drmath.viz; "
            "print('plotly' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
