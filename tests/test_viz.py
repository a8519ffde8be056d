"""drmath.viz: pure builders; every number they draw comes from plan()/sweep()."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

import drmath
from drmath import formatting, report, viz
from drmath.units import Gbit_per_s, hour
from drmath.viz import _common

RPO_OUT = ["rpo_site", "rpo_site_expected", "replication_keeps_up"]
COST_OUT = ["total_dr_cost", "standby_cost", "replication_cost", "expected_disaster_loss", "replication_keeps_up"]
X_REPL = np.geomspace(60, 7 * 86400, 40)
X_CKPT = np.geomspace(10, 3 * hour, 40)
X_LINK = np.geomspace(1 * Gbit_per_s, 3200 * Gbit_per_s, 40)
X_MFU = np.linspace(0.2, 0.6, 9)
X_STANDBY = np.linspace(0.25, 1.0, 7)
# the vendored plotly.js "basic" bundle draws only these
BASIC_TRACES = viz.BASIC_TRACES


def all_specs(p):
    s = p.scenario
    return {
        "rpo": viz.rpo_spec(p, X_REPL, drmath.sweep(s, "replication.interval", X_REPL, RPO_OUT)),
        "ettr": viz.ettr_spec(p, X_CKPT, drmath.sweep(s, "checkpoint.interval", X_CKPT, ["ettr"])),
        "rto": viz.rto_spec(p),
        "cost_tier": viz.cost_tier_spec(p),
        "cost_link": viz.cost_link_spec(p, X_LINK, drmath.sweep(s, "replication.link_bandwidth", X_LINK, COST_OUT)),
        "rpo_link": viz.rpo_link_spec(p, X_LINK, drmath.sweep(s, "replication.link_bandwidth", X_LINK, ["rpo_site"])),
        "time_mfu": viz.time_mfu_spec(p, X_MFU, drmath.sweep(s, "training.mfu", X_MFU, ["time_to_train"])),
        "standby": viz.standby_spec(p, X_STANDBY, drmath.sweep(s, "failover.standby_fraction", X_STANDBY,
                                                                ["schedule_slip", "standby_cost"])),
    }


@pytest.fixture(params=[{}, {"replication.link_bandwidth": 1 * Gbit_per_s},
                        {"failover.tier": "cold", "training.gpus": 16_384}])
def p(request):
    return drmath.plan(drmath.Scenario().with_changes(request.param))


def test_specs_are_json_and_use_only_basic_traces(p):
    for name, spec in all_specs(p).items():
        text = json.dumps(spec, allow_nan=False)  # no inf/nan may reach the browser
        assert "NaN" not in text and "Infinity" not in text, name
        assert {t["type"] for t in spec["data"]} <= BASIC_TRACES, name


def test_specs_validate_as_plotly_figures(p):
    go = pytest.importorskip("plotly.graph_objects")
    for spec in all_specs(p).values():
        go.Figure(spec)  # raises on any invalid property


def test_rpo_curve_is_the_sweep_in_hours():
    p = drmath.plan()
    curves = drmath.sweep(p.scenario, "replication.interval", X_REPL, RPO_OUT)
    spec = viz.rpo_spec(p, X_REPL, curves)
    worst = spec["data"][0]
    assert worst["name"] == "site RPO, worst"
    scale, unit = viz.duration_unit(np.median(X_REPL))
    assert unit == "h" and spec["layout"]["yaxis"]["title"]["text"] == "RPO [h]"
    expected = [None if not math.isfinite(v) else v / scale for v in curves["rpo_site"]]
    for got, want in zip(worst["y"], expected):
        assert (got is None and want is None) or got == pytest.approx(want, rel=1e-5)
    current = next(t for t in spec["data"] if t["name"] == "current")
    assert current["y"][0] == pytest.approx(p.rpo_site / scale, rel=1e-5)


def test_rpo_marks_the_keeps_up_boundary():
    p = drmath.plan()
    curves = drmath.sweep(p.scenario, "replication.interval", X_REPL, RPO_OUT)
    spec = viz.rpo_spec(p, X_REPL, curves)
    boundary = X_REPL[np.argmax(curves["replication_keeps_up"].astype(bool))]
    lines = [s for s in spec["layout"]["shapes"] if s["type"] == "line"]
    assert any(s["x0"] == pytest.approx(boundary / hour, rel=1e-5) for s in lines)
    # below the boundary the site RPO has no bound: drawn as a gap, never a number
    assert spec["data"][0]["y"][0] is None


def test_rpo_when_replication_never_keeps_up():
    p = drmath.plan(drmath.Scenario().with_changes({"replication.link_bandwidth": 1e6}))
    assert not p.replication_keeps_up
    spec = viz.rpo_spec(p, X_REPL, drmath.sweep(p.scenario, "replication.interval", X_REPL, RPO_OUT))
    assert all(y is None for y in spec["data"][0]["y"])
    assert "no bound" in spec["layout"]["title"]["text"]
    assert not any(t["name"] == "current" for t in spec["data"])


def test_ettr_marks_young_daly_and_current():
    p = drmath.plan()
    spec = viz.ettr_spec(p, X_CKPT, drmath.sweep(p.scenario, "checkpoint.interval", X_CKPT, ["ettr"]))
    scale, _ = viz.duration_unit(np.median(X_CKPT))
    xs = {round(s["x0"], 6) for s in spec["layout"]["shapes"] if s["type"] == "line"}
    assert round(viz.jsonable(p.young_interval / scale), 6) in xs
    assert round(viz.jsonable(p.daly_interval / scale), 6) in xs
    current = spec["data"][1]
    assert current["y"][0] == pytest.approx(100 * p.ettr, rel=1e-5)
    assert {a["text"].strip() for a in spec["layout"]["annotations"]} >= {"Young", "Daly"}


def test_rto_phases_stack_to_the_site_rto():
    p = drmath.plan()
    spec = viz.rto_spec(p)
    phases, total = spec["data"]
    scale, _ = viz.duration_unit(p.rto_site)
    assert phases["x"] == list(p.rto_site_phases)
    top = phases["base"][-1] + phases["y"][-1]
    assert top == pytest.approx(p.rto_site / scale, rel=1e-4)
    assert total["y"][0] == pytest.approx(p.rto_site / scale, rel=1e-5)


MONEY_SCALE = {suffix: scale for scale, suffix in formatting.MONEY_UNITS}
TIER_PARTS = {"standby": "tier_standby_costs", "links": "tier_link_costs", "loss": "tier_disaster_losses"}


def money_scale(axis):
    """Dollars per unit of a cost axis, read from its title ("expected cost [$M]")."""
    return MONEY_SCALE[axis["title"]["text"].rsplit("[$", 1)[1].rstrip("]")]


def duration_scale(axis):
    """Seconds per unit of a log duration axis, read from its labelled ticks ("10 min" at 0.1667 means hours; the
    Pareto figure's floor reads "≤ 1 s")."""
    from drmath.units import parse_quantity

    ticks = [(value, text.removeprefix("≤ ")) for value, text in zip(axis["tickvals"], axis["ticktext"], strict=True)]
    assert len(ticks) >= 2, axis  # fails if the axis lost its labels
    scales = [parse_quantity(text) / value for value, text in ticks]
    assert scales == pytest.approx([scales[0]] * len(scales), rel=1e-4)  # one unit under every label
    return scales[0]


def test_cost_tier_stacks_the_plans_parts_to_its_totals(p):
    spec = viz.cost_tier_spec(p)
    *bars, totals, rto = spec["data"]
    names = list(p.tier_total_costs)
    assert spec["layout"]["barmode"] == "stack"
    assert [b["name"] for b in bars] == list(TIER_PARTS) and {b["type"] for b in bars} == {"bar"}
    scale = money_scale(spec["layout"]["yaxis"])
    for bar in bars:
        want = getattr(p, TIER_PARTS[bar["name"]])
        assert bar["x"] == names
        for tier, y, hover in zip(names, bar["y"], bar["customdata"], strict=True):
            assert hover == formatting.format_quantity(want[tier], "usd")
            if math.isfinite(want[tier]):
                assert y * scale == pytest.approx(want[tier], rel=1e-5, abs=1e-6 * scale)
            else:
                assert y is None
    finite = [n for n in names if math.isfinite(p.tier_total_costs[n])]
    for i, tier in enumerate(names):
        if tier in finite:  # the parts stack to the plan's total, and the label on top says it
            stacked = sum(b["y"][i] for b in bars) * scale
            assert stacked == pytest.approx(p.tier_total_costs[tier], rel=1e-4)
            assert totals["y"][i] * scale == pytest.approx(p.tier_total_costs[tier], rel=1e-5)
            assert formatting.money(p.tier_total_costs[tier], 2) in totals["text"][i]
            assert formatting.format_quantity(p.tier_total_costs[tier], "usd") in totals["hovertext"][i]
    top = max(totals["y"])
    assert spec["layout"]["yaxis"]["range"][1] >= top


@pytest.mark.parametrize("tier", ["hot", "cold", "multi-site"])
def test_cost_tier_highlights_the_current_tier(tier):
    p = drmath.plan(drmath.Scenario().with_changes({"failover.tier": tier}))
    spec = viz.cost_tier_spec(p)
    names = spec["data"][0]["x"]
    i = names.index(tier)
    band = next(s for s in spec["layout"]["shapes"] if s["type"] == "rect")
    assert band["x0"] < i < band["x1"] and band["x1"] - band["x0"] <= 1  # this column and no other
    assert band["fillcolor"] == viz.rgba(viz.ORANGE, 0.12)
    ticks = spec["layout"]["xaxis"]["ticktext"]
    assert [("<b>" in t) for t in ticks] == [n == tier for n in names]
    totals = spec["data"][3]["text"]
    assert [("<b>" in t) for t in totals] == [n == tier for n in names]
    assert formatting.format_quantity(p.total_dr_cost, "usd") in spec["layout"]["title"]["text"]


def test_cost_tier_draws_each_tiers_site_rto_on_a_log_axis():
    for changes in ({}, {"failover.detection_time": 3600.0}):
        p = drmath.plan(drmath.Scenario().with_changes(changes))
        spec = viz.cost_tier_spec(p)
        rto = spec["data"][-1]
        assert rto["name"] == "site RTO" and rto["yaxis"] == "y2" and rto["xaxis"] == "x2"
        tiers = spec["layout"]["xaxis"]["tickvals"]  # column i of the tiers' axis is at i of the hidden one
        assert tiers == list(p.tier_rto_sites) and [round(x) for x in rto["x"]] == list(range(len(tiers)))
        axis = spec["layout"]["yaxis2"]
        assert axis["type"] == "log" and axis["overlaying"] == "y" and axis["side"] == "right"
        scale = duration_scale(axis)
        assert [y * scale for y in rto["y"]] == pytest.approx(list(p.tier_rto_sites.values()), rel=1e-5)
        lo, hi = axis["range"]
        assert all(lo <= math.log10(y) <= hi for y in rto["y"])  # every tier's RTO in view
        assert rto["hovertext"] == [f"site RTO {formatting.format_quantity(r, 'duration')}"
                                    for r in p.tier_rto_sites.values()]


def test_cost_tier_when_replication_cannot_keep_up():
    p = drmath.plan(drmath.Scenario().with_changes({"replication.link_bandwidth": 1e8}))
    # every tier that relies on the off-site copy has no bound; multi-site keeps its state at each site (issue 21)
    behind = [t for t in p.tier_total_costs if t != "multi-site"]
    assert not p.replication_keeps_up and not any(math.isfinite(p.tier_total_costs[t]) for t in behind)
    assert math.isfinite(p.tier_total_costs["multi-site"])
    spec = viz.cost_tier_spec(p)
    json.dumps(spec, allow_nan=False)
    standby, links, loss, totals, rto = spec["data"]
    unbounded = [i for i, t in enumerate(loss["x"]) if t in behind]
    assert all(loss["y"][i] is None and loss["customdata"][i] == "no bound" for i in unbounded)
    assert all("∞" in totals["text"][i] and "no bound" in totals["hovertext"][i] for i in unbounded)
    scale = money_scale(spec["layout"]["yaxis"])
    # the finite parts still stand, and the labels sit on top of them
    for i in unbounded:
        tier = totals["x"][i]
        finite = p.tier_standby_costs[tier] + p.tier_link_costs[tier]
        assert (standby["y"][i] + links["y"][i]) * scale == pytest.approx(finite, rel=1e-4)
        assert totals["y"][i] * scale == pytest.approx(finite, rel=1e-5)
    assert any("no bound" in a["text"] for a in spec["layout"]["annotations"])
    assert "no bound" in spec["layout"]["title"]["text"]
    assert None not in rto["y"]


def test_titles_sit_below_the_modebar_and_legends_clear_of_the_ticks():
    p = drmath.plan()
    s = drmath.Scenario().with_changes({"requirements.rpo_site": 900.0})
    for spec in (viz.cost_tier_spec(p), viz.pareto_spec(drmath.solve(s))):
        layout = spec["layout"]
        title = layout["title"]
        # placed in pixels from the top (the report's slider makes a figure taller), below the modebar's band
        assert (title["yref"], title["y"], title["yanchor"]) == ("container", 1.0, "top")
        assert title["pad"]["t"] > _common._TITLE_TOP and layout["margin"]["t"] > title["pad"]["t"] + 20
        assert title["text"].count("<br>") == 1
        head = title["text"].split("<br>")[0]
        assert len(head) <= 30  # readable on a 300 px phone figure
        assert layout["legend"]["yref"] == "container" and layout["legend"]["y"] == 0


def test_cost_link_marks_the_current_link():
    p = drmath.plan()
    curves = drmath.sweep(p.scenario, "replication.link_bandwidth", X_LINK, COST_OUT)
    spec = viz.cost_link_spec(p, X_LINK, curves)
    assert [t["name"] for t in spec["data"][:4]] == ["total", "standby", "replication", "expected disaster loss"]
    current = spec["data"][-1]
    assert current["x"][0] == pytest.approx(100, rel=1e-6)
    assert current["y"][0] == pytest.approx(p.total_dr_cost / 1e6, rel=1e-5)


def test_rpo_link_ends_where_replication_stops_keeping_up():
    p = drmath.plan()
    curves = drmath.sweep(p.scenario, "replication.link_bandwidth", X_LINK, ["rpo_site"])
    spec = viz.rpo_link_spec(p, X_LINK, curves)
    worst = spec["data"][0]
    assert worst["x"] == viz.jsonable(X_LINK / Gbit_per_s)
    below = X_LINK < p.replication_bandwidth_needed
    assert below.any() and (~below).any()  # fails if the grid stops straddling the seed's needed bandwidth
    # below the bandwidth needed there is no bound: no point is drawn; above it, the sweep in hours
    assert all(y is None for y, b in zip(worst["y"], below, strict=True) if b)
    assert worst["y"][-1] == pytest.approx(curves["rpo_site"][-1] / hour, rel=1e-5)
    assert spec["layout"]["yaxis"]["title"]["text"] == "site RPO, worst case [h]"
    dashed = [s for s in spec["layout"]["shapes"] if s["type"] == "line" and s["line"]["dash"] == "dash"]
    assert [s["x0"] for s in dashed] == [pytest.approx(p.replication_bandwidth_needed / Gbit_per_s, rel=1e-5)]
    assert f"keeps up above {formatting.line_rate(p.replication_bandwidth_needed)}" in spec["layout"]["title"]["text"]
    current = next(t for t in spec["data"] if t["name"] == "current")
    assert current["x"] == [pytest.approx(100.0)] and current["y"] == [pytest.approx(p.rpo_site / hour, rel=1e-5)]


def test_rpo_link_when_no_link_on_the_axis_keeps_up():
    # a slow object store: the upload alone outlasts the interval, so no link is fast enough
    p = drmath.plan(drmath.Scenario().with_changes({"replication.object_store_bandwidth": 1e9}))
    assert p.replication_bandwidth_needed == math.inf
    spec = viz.rpo_link_spec(p, X_LINK, drmath.sweep(p.scenario, "replication.link_bandwidth", X_LINK, ["rpo_site"]))
    assert all(y is None for y in spec["data"][0]["y"])
    assert any("never keeps up" in n["text"] for n in spec["layout"]["annotations"])
    assert "no link keeps up" in spec["layout"]["title"]["text"]
    # a one-minute target needs 329 Gbit/s: still on the 1-400 Gbit/s axis, so the curve starts just below its end
    p = drmath.plan(drmath.Scenario().with_changes({"replication.interval": 60.0}))
    grid = viz.FIGURES["rpo_link"].grid
    assert grid[0] < p.replication_bandwidth_needed < grid[-1]
    spec = viz.figure_spec("rpo_link", p)
    assert spec["data"][0]["y"][-1] is not None and spec["data"][0]["y"][0] is None


LOG_X = ("rpo", "rpo_link", "cost_link", "ettr")


@pytest.mark.parametrize("changes", [{}, {"replication.link_bandwidth": "dx-10g"},
                                     {"replication.link_bandwidth": 1e8}, {"replication.interval": 900.0}])
def test_log_axis_labels_sit_on_their_lines_and_the_axis_fits_the_sweep(changes):
    """On a log axis shapes take data units and annotations log10 units: each label is at its line,
    and the axis spans the sweep and the current choice, never decades beyond (issue 13: 100T Gbit/s)."""
    p = drmath.plan(drmath.Scenario().with_changes(changes))
    for name in LOG_X:
        spec = viz.figure_spec(name, p)
        layout = spec["layout"]
        assert layout["xaxis"]["type"] == "log", name
        lines = [sh["x0"] for sh in layout.get("shapes", []) if sh["type"] == "line"]
        for note in layout.get("annotations", []):
            if note["xref"] == "x" and note["text"].strip() in ("keeps up →", "current: no bound"):
                assert any(math.isclose(note["x"], math.log10(x), abs_tol=1e-9) for x in lines), (name, note)
        grid = viz.jsonable(np.asarray(viz.FIGURES[name].grid) / (Gbit_per_s if "link" in name else 1.0))
        xs = [x for t in spec["data"] for x in t.get("x", []) if isinstance(x, (int, float)) and x > 0]
        lo, hi = layout["xaxis"]["range"]
        assert lo <= math.log10(min(xs)) + 1e-9 and math.log10(max(xs)) <= hi + 1e-9, name  # every point in view
        assert hi - lo <= math.log10(max(grid[-1], max(xs)) / min(grid[0], min(xs))) + 0.25, name


def test_a_current_link_below_the_sweep_stays_in_view_and_shaded():
    p = drmath.plan(drmath.Scenario().with_changes({"replication.link_bandwidth": 1e8}))  # 0.8 Gbit/s
    for name in ("rpo_link", "cost_link"):
        layout = viz.figure_spec(name, p)["layout"]
        assert layout["xaxis"]["range"][0] < math.log10(0.8) < layout["xaxis"]["range"][1], name
        shade = next(sh for sh in layout["shapes"] if sh["type"] == "rect")
        assert shade["x0"] < 0.8, name
        note = next(a for a in layout["annotations"] if a["text"] == "current: no bound")
        assert note["x"] == pytest.approx(math.log10(0.8)), name


def test_time_mfu_marks_the_current_mfu():
    window = drmath.plan()
    p = drmath.plan(window.scenario.with_changes({"training.tokens": window.tokens, "training.mfu": 0.3}))
    spec = viz.time_mfu_spec(p, X_MFU, drmath.sweep(p.scenario, "training.mfu", X_MFU, ["time_to_train"]))
    line, current = spec["data"]
    assert line["x"] == viz.jsonable(100 * X_MFU) and spec["layout"]["yaxis"]["title"]["text"] == "time to train [days]"
    # time is inversely proportional to MFU: twice the MFU, half the time
    assert line["y"][0] == pytest.approx(2 * line["y"][4], rel=1e-9)
    assert current["x"] == [pytest.approx(30.0)] and current["y"] == [pytest.approx(p.time_to_train / 86400, rel=1e-5)]
    assert spec["layout"]["annotations"] == []
    flat = viz.time_mfu_spec(window, X_MFU, drmath.sweep(window.scenario, "training.mfu", X_MFU, ["time_to_train"]))
    assert "the window sets the run" in flat["layout"]["annotations"][0]["text"]


def test_standby_draws_slip_and_cost_on_two_axes():
    p = drmath.plan(drmath.Scenario().with_changes({"failover.standby_fraction": 0.5}))
    curves = drmath.sweep(p.scenario, "failover.standby_fraction", X_STANDBY, ["schedule_slip", "standby_cost"])
    spec = viz.standby_spec(p, X_STANDBY, curves)
    slip, cost, *marks = spec["data"]
    # a full-size standby still slips by the work lost and the outage (issue 21), not by reduced capacity
    assert slip["y"] == viz.jsonable(curves["schedule_slip"] / 86400)
    assert slip["y"][-1] == pytest.approx((p.rpo_site_expected + p.rto_site) / 86400, rel=1e-5)
    scale, suffix = formatting.money_unit(curves["standby_cost"])
    assert cost["yaxis"] == "y2" and cost["y"] == viz.jsonable(curves["standby_cost"] / scale)
    assert spec["layout"]["yaxis2"]["title"]["text"] == f"standby cost [${suffix}]"
    assert spec["layout"]["yaxis2"]["overlaying"] == "y"
    assert [m["x"] for m in marks] == [[50.0], [50.0]]
    assert marks[0]["y"] == [pytest.approx(p.schedule_slip / 86400, rel=1e-5)]
    assert marks[1]["y"] == [pytest.approx(p.standby_cost / scale, rel=1e-5)] and marks[1]["yaxis"] == "y2"


def test_figure_wrappers_match_specs():
    go = pytest.importorskip("plotly.graph_objects")
    p = drmath.plan()
    fig = viz.rto_figure(p)
    assert isinstance(fig, go.Figure)
    assert list(fig.data[0].x) == list(p.rto_site_phases)
    fig = viz.plan_figure("cost_link", p)
    assert isinstance(fig, go.Figure) and fig.layout.xaxis.type == "log"
    assert viz.plan_figure.__name__ == "plan_figure" and viz.cost_link_figure.__name__ == "cost_link_figure"


def test_jsonable_and_duration_unit():
    assert viz.jsonable(float("nan")) is None
    assert viz.jsonable([0.0, -1.5, float("-inf")]) == [0.0, -1.5, None]
    assert viz.duration_unit is formatting.duration_unit  # re-exported: one unit picker
    assert viz.duration_unit(3 * 86400.0) == (86400.0, "days")


def test_viz_does_not_import_plotly_until_a_figure_is_built():
    import subprocess
    import sys

    code = ("import sys, drmath, drmath.viz as v; v.rto_spec(drmath.plan()); "
            "print('plotly' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- the figure registry


def test_each_registered_figure_is_its_builder_over_drmath_sweep(p):
    for name, info in viz.FIGURES.items():
        spec = viz.figure_spec(name, p)
        if info.path is None:
            assert spec == info.spec(p), name
            continue
        assert np.all(np.diff(info.grid) > 0), name
        curves = drmath.sweep(p.scenario, info.path, info.grid, list(info.outputs))
        assert spec == info.spec(p, info.grid, curves), name
    assert list(viz.figure_specs(p)) == list(viz.FIGURES)


def test_registry_places_every_figure_in_a_report_section():
    from drmath.quantities import GROUPS

    assert {info.section for info in viz.FIGURES.values()} <= set(GROUPS)
    shown = [n for n, info in viz.FIGURES.items() if info.report]
    assert [n for g in GROUPS for n in viz.in_section(g)] == sorted(shown, key=lambda n: list(GROUPS).index(
        viz.FIGURES[n].section))
    assert viz.in_section("cadence") == ["ettr"] and viz.in_section("cost") == ["cost_tier", "cost_link"]
    assert viz.in_section("rpo") == ["rpo", "rpo_link"] and viz.in_section("rto") == ["rto", "standby"]
    # time to train against MFU is the notebooks' alone: the default scenario fixes the window, a flat line
    assert viz.in_section("run") == [] and viz.FIGURES["time_mfu"].section == "run"
    assert list(report.report_figures(drmath.Scenario())) == shown
    assert all(info.knob in viz.KNOBS for info in viz.FIGURES.values() if info.report)
    assert all(info.caption for info in viz.FIGURES.values())
    with pytest.raises(ValueError, match="figure 'time_mfu' has no slider knob"):
        report.report_figures(drmath.Scenario(), names=["time_mfu"])
    with pytest.raises(ValueError, match="figure 'time_mfu' has no slider knob"):
        viz.slider_steps("time_mfu", drmath.Scenario(), drmath.plan())


def test_notebook_figures_sweep_what_the_notebooks_asked():
    link, mfu, standby = (viz.FIGURES[n] for n in ("rpo_link", "time_mfu", "standby"))
    assert (link.path, link.outputs) == ("replication.link_bandwidth", ("rpo_site",))
    assert link.grid[[0, -1]] == pytest.approx([1 * Gbit_per_s, 400 * Gbit_per_s])
    assert (mfu.path, mfu.outputs, mfu.grid[0], mfu.grid[-1]) == ("training.mfu", ("time_to_train",), 0.2, 0.6)
    assert (standby.path, standby.outputs) == ("failover.standby_fraction", ("schedule_slip", "standby_cost"))
    assert (standby.grid[0], standby.grid[-1]) == (0.25, 1.0)


def test_unknown_figure_is_refused():
    with pytest.raises(ValueError, match="unknown figure 'nope': choose from rpo, ettr"):
        viz.figure_spec("nope", drmath.plan())


def test_slider_steps_are_the_registry_figures_of_each_step():
    s = drmath.Scenario()
    p = drmath.plan(s)
    fig = report.report_figures(s, names=["rpo", "standby"])["rpo"]
    slider = fig["layout"]["sliders"][0]
    labels = [step["label"] for step in slider["steps"]]
    # the interval is unset in the default scenario: the plan's optimum is the active step
    assert labels[slider["active"]] == "optimal " + formatting.short_duration(p.checkpoint_interval, 2)
    want = viz.figure_spec("rpo", drmath.plan(s.with_changes({"checkpoint.interval": 10 * 60.0})))
    restyle, relayout = slider["steps"][labels.index("10 min")]["args"]
    assert restyle["y"][0] == want["data"][0]["y"]
    assert relayout["title.text"] == want["layout"]["title"]["text"]
    assert fig["data"][0]["y"] == viz.figure_spec("rpo", p)["data"][0]["y"]


def test_a_slider_is_drawn_from_the_plans_it_is_handed():
    # the report plans each step; viz only draws what it is handed, so a plan handed for a step is that step
    s = drmath.Scenario()
    steps = viz.slider_steps("rto", s, drmath.plan(s))
    assert steps.knob == "DR tier" and steps.labels == list(drmath.presets.DR_TIERS)
    assert [x.failover.tier for x in steps.scenarios] == steps.labels and steps.labels[steps.active] == "warm"
    hot = drmath.plan(s.with_changes({"failover.tier": "hot"}))
    fig = viz.slider_figure("rto", [hot] * len(steps.scenarios), steps)
    restyle, _ = fig["layout"]["sliders"][0]["steps"][0]["args"]
    assert restyle["y"][0] == viz.figure_spec("rto", hot)["data"][0]["y"]
    assert fig["layout"]["sliders"][0]["active"] == steps.active and fig["data"][0]["y"] == restyle["y"][0]
    with pytest.raises(ValueError, match=f"one plan per step: {len(drmath.presets.DR_TIERS)} steps, 1 plans"):
        viz.slider_figure("rto", [hot], steps)


def test_the_old_slider_figures_name_forwards_to_the_report():
    with pytest.warns(FutureWarning, match="drmath.viz.slider_figures moved to drmath.report"):
        moved = viz.slider_figures
    assert moved is report.report_figures


def test_viz_never_plans():
    # views draw the plans their clients made (issue 33): no module of drmath.viz imports drmath to call plan(),
    # sweep(), bands() or solve(); a docstring's example may
    import ast

    for path in sorted(Path(viz.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] != "drmath" for a in node.names), f"{path.name}:{node.lineno}"
            elif isinstance(node, ast.ImportFrom) and (node.module == "drmath" or node.level == 2 and not node.module):
                assert not {a.name for a in node.names} & {"plan", "sweep", "bands", "uncertainty", "solve"}, path.name


def test_slider_steps_relayout_the_second_y_axis():
    s = drmath.Scenario()
    fig = report.report_figures(s, names=["standby"])["standby"]
    steps = {step["label"]: step["args"] for step in fig["layout"]["sliders"][0]["steps"]}
    cold = viz.figure_spec("standby", drmath.plan(s.with_changes({"failover.tier": "cold"})))
    restyle, relayout = steps["cold"]
    assert relayout["yaxis2.title.text"] == cold["layout"]["yaxis2"]["title"]["text"]
    assert restyle["y"][1] == cold["data"][1]["y"]


def test_ettr_axis_keeps_the_optimum_and_the_current_point_in_view():
    for changes in ({}, {"training.gpus": 131_072}, {"checkpoint.interval": 12 * hour}):
        p = drmath.plan(drmath.Scenario().with_changes(changes))
        low, high = viz.figure_spec("ettr", p)["layout"]["yaxis"]["range"]
        assert low <= 100 * p.ettr <= high, changes


# --------------------------------------------------------------------------- comparison and simulation


def test_compare_overlays_each_plan_in_its_own_colour():
    a = drmath.plan()
    b = drmath.plan(a.scenario.with_changes({"training.gpus": 16_384}))
    spec = viz.compare_spec([a, b], ["seed", "16k"])
    json.dumps(spec, allow_nan=False)
    lines = [t for t in spec["data"] if t["mode"] == "lines"]
    assert [(t["name"], t["yaxis"]) for t in lines] == [(n, y) for n in ("seed", "16k") for y in ("y", "y2", "y3")]
    assert {t["line"]["color"] for t in lines if t["name"] == "16k"} == {viz.SERIES[1]}
    ettr = viz.FIGURES["ettr"]
    want = drmath.sweep(b.scenario, ettr.path, ettr.grid, ["ettr"])["ettr"]
    assert lines[3]["y"] == viz.jsonable(100 * want)
    assert {t["type"] for t in spec["data"]} <= BASIC_TRACES


@pytest.mark.parametrize("n", [1, 5])
def test_compare_needs_two_to_four_plans(n):
    with pytest.raises(ValueError, match=f"compare needs 2 to 4 scenarios, got {n}"):
        viz.compare_spec([drmath.plan()] * n, ["x"] * n)


def test_simulation_figure_draws_the_runs_and_the_promise():
    from drmath import drills, simulate
    from drmath.io.drills import example_log, read_drill_records

    s = drmath.Scenario().with_changes({"training.tokens": 1e11, "failures.site_event_rate": 0.0})
    result = simulate.simulate_run(s, 300, seed=1)
    promise = drills.promised_rto(read_drill_records(example_log()), 0.8, trials=5_000)
    drift = simulate.ettr_sweep(s, "training.gpus", [4_000, 16_000], trials=50)
    spec = viz.simulation_spec(result, promise, drift, bins=30)
    json.dumps(spec, allow_nan=False)
    assert {t["type"] for t in spec["data"]} <= BASIC_TRACES
    times, ettrs, sums = spec["data"][:3]
    assert sum(times["y"]) == result.trials and sum(ettrs["y"]) == result.trials
    assert sum(sums["y"]) == promise.samples.size and len(sums["x"]) == 30
    scale, unit = formatting.duration_unit(np.median(promise.samples))
    marks = {n["text"]: s["x0"] for n, s in zip(spec["layout"]["annotations"][4:], spec["layout"]["shapes"])}
    assert marks["promise (80%)"] == pytest.approx(promise.promised / scale, rel=1e-5)
    assert marks["best cases"] == pytest.approx(promise.best_case_sum / scale, rel=1e-5)
    assert spec["layout"]["xaxis3"]["title"]["text"] == f"summed recovery phases [{unit}]"
    closed = spec["data"][-1]
    assert closed["y"] == viz.jsonable(100 * np.asarray(drift["analytic"]))


# --------------------------------------------------------------------------- the palette


def test_one_palette_for_figures_and_pages():
    css = viz.css_variables()
    assert all(f"--drmath-{name}: {colour};" in css for name, colour in viz.PALETTE.items())
    assert set(viz.SERIES) | set(viz.PHASE_COLOURS.values()) <= set(viz.PALETTE.values())
    assert viz.rgba("#102030", 0.5) == "rgba(16, 32, 48, 0.5)"
    colours = {t.get("line", {}).get("color") for spec in all_specs(drmath.plan()).values() for t in spec["data"]}
    assert colours - {None} <= set(viz.PALETTE.values())
    assert set(viz.TIER_COLOURS.values()) <= set(viz.PALETTE.values())


def test_each_colour_is_written_once_in_the_palette():
    # figures, diagrams, the dashboard's widgets and the report take their colours from drmath.viz.palette;
    # a hex colour written anywhere else is a second definition that drifts
    import re

    from drmath import _resources

    root = Path(drmath.__file__).parent
    # (the server's own busy and error pages are not drawn with the palette yet: serve.py is left out)
    sources = [*(path for path in root.glob("*.py") if path.name != "serve.py"), *root.glob("viz/*.py"),
               *root.glob("dashboard/*.py"),
               *(path for path in _resources.data_file("widgets").glob("*.*")
                 if path.name != "static_first.css"),  # ipywidgets' and Lumino's own rules, copied: their colours
               _resources.data_file("report", "report.css")]
    hex_colour = re.compile(r"#[0-9a-fA-F]{6}\b")
    written = {path.relative_to(root).as_posix(): hex_colour.findall(path.read_text("utf-8")) for path in sources}
    assert {path for path, found in written.items() if found} == {"viz/palette.py"}
    assert sorted(written["viz/palette.py"]) == sorted(list(viz.PALETTE.values()) + ["#1f2933"])  # + its doctest
    assert "var(--drmath-" in _resources.data_file("report", "report.css").read_text("utf-8")


# --------------------------------------------------------------------------- the solver's front


@pytest.fixture(scope="module")
def targets_met():
    s = drmath.Scenario().with_changes({"requirements.rpo_site": 900.0, "requirements.rto_site": 4 * hour,
                                        "requirements.max_slip": None})  # two targets; the seed also sets a slip
    return drmath.solve(s)


@pytest.fixture(scope="module")
def targets_missed():
    return drmath.solve(drmath.Scenario().with_changes({"requirements.rpo_site": 1.0}))


def panel_traces(spec, axis):
    return [t for t in spec["data"] if t["xaxis"] == f"x{axis}"]


def test_pareto_draws_the_front_and_marks_the_chosen_design(targets_met):
    solution = targets_met
    assert solution.feasible
    spec = viz.pareto_spec(solution)
    json.dumps(spec, allow_nan=False)
    assert {t["type"] for t in spec["data"]} <= BASIC_TRACES
    layout, p, front = spec["layout"], solution.plan, solution.front
    cost_scale = money_scale(layout["yaxis"])
    assert money_scale(layout["yaxis2"]) == cost_scale
    for axis, column, value in (("", "rpo_site", p.rpo_site), ("2", "rto_site", p.rto_site)):
        scale = duration_scale(layout[f"xaxis{axis}"])
        assert layout[f"xaxis{axis}"]["type"] == "log"
        traces = panel_traces(spec, axis)
        chosen = next(t for t in traces if t["name"] == "chosen")
        assert chosen["x"][0] * scale == pytest.approx(value, rel=1e-5)
        assert chosen["y"][0] * cost_scale == pytest.approx(p.total_cost_of_resilience, rel=1e-5)
        assert chosen["marker"]["symbol"] == "star"
        # every design of the front, once per panel, at its own cost and RPO (or RTO), coloured by tier
        points = [(x * scale, y * cost_scale) for t in traces if t["name"] != "chosen"
                  for x, y in zip(t["x"], t["y"], strict=True)]
        # drawn no lower than the figure's floor (1 s), which its axis labels "≤ 1 s"
        want = sorted(zip(np.maximum(front[column], 1.0), front["total_cost_of_resilience"]))
        assert len(points) == len(want)
        for j in (0, 1):  # each coordinate as a multiset: near-equal designs of a dense front may swap places
            assert sorted(pt[j] for pt in points) == pytest.approx(sorted(pt[j] for pt in want), rel=1e-5)
        for t in traces:
            if t["name"] != "chosen":
                rows = front[front["failover.tier"] == t["name"]]
                assert t["marker"]["color"] == viz.TIER_COLOURS[t["name"]]
                assert t["marker"]["symbol"] == ["circle" if m else "circle-open" for m in rows["meets_requirements"]]
    assert solution.scenario.failover.tier in layout["title"]["text"] and "chosen design" in layout["title"]["text"]


def test_pareto_draws_designs_under_a_second_at_a_labelled_floor_with_their_value_said():
    # the seed's sweep reaches designs that checkpoint so rarely that the run makes almost no progress, so a site
    # loss costs almost none (site RPO 3.7e-41 s): drawn at 1 s, the axis spanned 40 decades, labels crammed right
    solution = drmath.solve(drmath.Scenario())
    assert solution.front["rpo_site"].min() < 1e-3  # fails if the sweep stops reaching them: then pick another case
    spec = viz.pareto_spec(solution)
    axis = spec["layout"]["xaxis"]
    scale = duration_scale(axis)
    assert axis["range"][0] >= math.log10(1.0 / scale) - 0.6  # at most half a decade under the floor
    assert axis["ticktext"][0] == "≤ 1 s"
    lowest = min((x, h) for t in panel_traces(spec, "") if t["name"] != "chosen"
                 for x, h in zip(t["x"], t["hovertext"], strict=True))
    assert lowest[0] * scale == pytest.approx(1.0) and "site RPO under 1 s" in lowest[1]
    assert "10⁻" not in json.dumps(spec, ensure_ascii=False)  # no "3.70 × 10⁻³⁸ ms" in a hover


def test_pareto_draws_each_target_with_the_missing_side_shaded(targets_met):
    spec = viz.pareto_spec(targets_met)
    layout = spec["layout"]
    for axis, target in (("", 900.0), ("2", 4 * hour)):
        scale = duration_scale(layout[f"xaxis{axis}"])
        line = next(s for s in layout["shapes"] if s["type"] == "line" and s["xref"] == f"x{axis}")
        assert line["x0"] * scale == pytest.approx(target, rel=1e-5) and line["line"]["color"] == viz.RED
        shade = next(s for s in layout["shapes"] if s["type"] == "rect" and s["xref"] == f"x{axis}")
        # the side beyond the target misses it: shaded from the line to the axis' right end (shapes in data units)
        assert shade["x0"] == line["x0"]
        assert shade["x1"] == pytest.approx(10 ** layout[f"xaxis{axis}"]["range"][1], rel=1e-5)
        label = next(a for a in layout["annotations"] if a["xref"] == f"x{axis}")
        assert label["x"] == pytest.approx(math.log10(line["x0"]))  # annotations on a log axis take log10 units
        assert formatting.short_duration(target) in label["text"]
    none_set = viz.pareto_spec(drmath.solve(drmath.Scenario().with_changes(
        {"requirements.rpo_site": None, "requirements.rto_site": None, "requirements.max_slip": None})))
    assert none_set["layout"]["shapes"] == [] and none_set["layout"]["annotations"] == []


def test_pareto_hover_gives_the_levers_in_readable_units(targets_met):
    spec = viz.pareto_spec(targets_met)
    design = targets_met.scenario
    chosen = next(t for t in spec["data"] if t["name"] == "chosen")["hovertext"][0]
    assert formatting.line_rate(design.replication.link_bandwidth) in chosen and "Gbit/s" in chosen
    assert f"copies every {formatting.short_duration(design.replication.interval)}" in chosen
    assert formatting.format_quantity(targets_met.plan.rto_site, "duration") in chosen
    assert "e+" not in chosen
    front = targets_met.front
    first = next(t for t in spec["data"] if t["name"] == front["failover.tier"].iloc[0] and t["xaxis"] == "x")
    assert formatting.line_rate(front["replication.link_bandwidth"].iloc[0]) in first["hovertext"][0]


def test_pareto_when_no_design_meets_the_targets(targets_missed):
    solution = targets_missed
    assert not solution.feasible
    spec = viz.pareto_spec(solution)
    json.dumps(spec, allow_nan=False)
    layout = spec["layout"]
    assert "no design meets every target" in layout["title"]["text"]
    closest = [t for t in spec["data"] if t["name"] == "closest"]
    assert [t["xaxis"] for t in closest] == ["x", "x2"]
    scale = duration_scale(layout["xaxis"])
    assert closest[0]["x"][0] * scale == pytest.approx(solution.plan.rpo_site, rel=1e-5)
    assert closest[0]["y"][0] * money_scale(layout["yaxis"]) == pytest.approx(
        solution.plan.total_cost_of_resilience, rel=1e-5)
    # nothing on the front meets the target: every design an open circle, and the 1 s target stays in view
    assert all(s == "circle-open" for t in spec["data"] if t["name"] != "closest" for s in t["marker"]["symbol"])
    line = next(s for s in layout["shapes"] if s["type"] == "line")
    lo, hi = layout["xaxis"]["range"]
    assert line["x0"] * scale == pytest.approx(1.0) and lo <= math.log10(line["x0"]) <= hi


def test_pareto_figure_validates():
    go = pytest.importorskip("plotly.graph_objects")
    solution = drmath.solve(drmath.Scenario().with_changes({"requirements.rto_site": 4 * hour}))
    fig = viz.pareto_figure(solution)
    assert isinstance(fig, go.Figure) and viz.pareto_figure.__name__ == "pareto_figure"
    assert "pareto" not in viz.FIGURES  # it needs a solve, not a sweep: the dashboard calls pareto_spec itself
