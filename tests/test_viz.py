"""drmath.viz: pure builders; every number they draw comes from plan()/sweep()."""

import json
import math

import numpy as np
import pytest

import drmath
from drmath import formatting, viz
from drmath.units import Gbit_per_s, hour

RPO_OUT = ["rpo_site", "rpo_site_expected", "replication_keeps_up"]
COST_OUT = ["total_dr_cost", "standby_cost", "replication_cost", "expected_disaster_loss", "replication_keeps_up"]
X_REPL = np.geomspace(60, 7 * 86400, 40)
X_CKPT = np.geomspace(10, 3 * hour, 40)
X_LINK = np.geomspace(1 * Gbit_per_s, 3200 * Gbit_per_s, 40)
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
    for name, spec in all_specs(p).items():
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


def test_cost_tier_highlights_the_current_tier():
    p = drmath.plan(drmath.Scenario().with_changes({"failover.tier": "hot"}))
    bars = viz.cost_tier_spec(p)["data"][0]
    assert bars["x"] == list(p.tier_total_costs)
    colors = dict(zip(bars["x"], bars["marker"]["color"]))
    assert colors["hot"] == viz.ORANGE and colors["cold"] == viz.BLUE
    assert bars["y"][bars["x"].index("hot")] == pytest.approx(p.total_dr_cost / 1e6, rel=1e-5)


def test_cost_link_marks_the_current_link():
    p = drmath.plan()
    curves = drmath.sweep(p.scenario, "replication.link_bandwidth", X_LINK, COST_OUT)
    spec = viz.cost_link_spec(p, X_LINK, curves)
    assert [t["name"] for t in spec["data"][:4]] == ["total", "standby", "replication", "expected disaster loss"]
    current = spec["data"][-1]
    assert current["x"][0] == pytest.approx(100, rel=1e-6)
    assert current["y"][0] == pytest.approx(p.total_dr_cost / 1e6, rel=1e-5)


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
    assert [n for g in GROUPS for n in viz.in_section(g)] == sorted(viz.FIGURES, key=lambda n: list(GROUPS).index(
        viz.FIGURES[n].section))
    assert viz.in_section("cadence") == ["ettr"] and viz.in_section("cost") == ["cost_tier", "cost_link"]
    assert all(info.knob in viz.KNOBS and info.caption for info in viz.FIGURES.values())


def test_unknown_figure_is_refused():
    with pytest.raises(ValueError, match="unknown figure 'nope': choose from rpo, ettr"):
        viz.figure_spec("nope", drmath.plan())


def test_slider_steps_are_the_registry_figures_of_each_step():
    s = drmath.Scenario()
    p = drmath.plan(s)
    fig = viz.slider_figures(s, names=["rpo"])["rpo"]
    slider = fig["layout"]["sliders"][0]
    labels = [step["label"] for step in slider["steps"]]
    # the interval is unset in the default scenario: the plan's optimum is the active step
    assert labels[slider["active"]] == "optimal " + formatting.short_duration(p.checkpoint_interval, 2)
    want = viz.figure_spec("rpo", drmath.plan(s.with_changes({"checkpoint.interval": 10 * 60.0})))
    restyle, relayout = slider["steps"][labels.index("10 min")]["args"]
    assert restyle["y"][0] == want["data"][0]["y"]
    assert relayout["title.text"] == want["layout"]["title"]["text"]
    assert fig["data"][0]["y"] == viz.figure_spec("rpo", p)["data"][0]["y"]


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
    from drmath._resources import data_file

    s = drmath.Scenario().with_changes({"training.tokens": 1e11, "failures.site_event_rate": 0.0})
    result = simulate.simulate_run(s, 300, seed=1)
    promise = drills.promised_rto(data_file("drills_example.csv"), 0.8, trials=5_000)
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
