"""drmath.viz: pure builders; every number they draw comes from plan()/sweep()."""

import json
import math

import numpy as np
import pytest

import drmath
from drmath import viz
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


def test_jsonable_and_duration_unit():
    assert viz.jsonable(float("nan")) is None
    assert viz.jsonable([0.0, -1.5, float("-inf")]) == [0.0, -1.5, None]
    assert viz.duration_unit(30.0) == (1.0, "s")
    assert viz.duration_unit(3 * 86400.0) == (86400.0, "days")


def test_viz_does_not_import_plotly_until_a_figure_is_built():
    import subprocess
    import sys

    code = ("import sys, drmath, drmath.viz as v; v.rto_spec(drmath.plan()); "
            "print('plotly' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
