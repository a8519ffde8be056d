"""The dashboard's bands (drmath.dashboard.bands): each card's 90% range and the shaded figures, from
drmath.bands.

No uncertainty, no draws: the default page never calls drmath.bands. With it, one call per input change,
and every range shown is the Bands object's, in the figure's own unit.
"""

import html
import re

import pytest

import drmath
from drmath.dashboard import CARDS, FIGURES, build_app
from drmath.dashboard import bands as bands_module
from drmath.dashboard.app import bands_for
from drmath.dashboard.bands import DRAWS, SHADED, band_html, shade, whole_changes
from drmath.io import incidents, scenarios


@pytest.fixture(scope="module")
def fit():
    return incidents.read_incidents(incidents.example_log(), start_column="start", end_column="end",
                                    where=["cluster=primary"], gpus=16384)


@pytest.fixture()
def calls(monkeypatch):
    """Every drmath.bands call the dashboard makes, by scenario."""
    seen = []
    real = drmath.bands

    def counted(scenario=None, draws=2000, seed=0):
        seen.append(scenario)
        return real(scenario, draws=draws, seed=seed)

    monkeypatch.setattr(drmath, "bands", counted)
    return seen


def test_no_uncertainty_draws_nothing_and_shows_no_range(calls):
    app = build_app()
    assert app.apply({"training.gpus": 16_384})
    assert calls == [] and app.bands is None
    assert not any("drmath-band" in app.cards[name].value for name in CARDS)
    assert not any(t.get("name") == "90% range" for view in app.figures.values() for t in view.figure["data"])


def test_each_card_shows_its_90_percent_range_once_per_change(calls, fit):
    app = build_app()
    app.fleet.use_example()
    app.fleet.fit()
    assert app.fleet.apply()
    want = drmath.bands(app.scenario, draws=DRAWS)
    assert len(calls) == 2 and calls[0] == app.scenario  # the dashboard's one call, then this test's
    assert any(not want.varies(name) for name in CARDS)  # the window's 90 days, a full standby's 0 s
    for name in CARDS:
        card = app.cards[name].value
        if not want.varies(name):  # no "90.0 days – 90.0 days": a band only where the quantity varies
            assert "drmath-band-" not in card, name
            continue
        assert card.count("drmath-band-") == 1, name
        inner = re.search(r'class="drmath-band drmath-band-\w+"[^>]*>(.*?)</div>', card).group(1)
        assert html.unescape(re.sub(r"<[^>]+>", "", inner)) == want.format_range(name), name
        assert "$" not in inner, name  # money as an entity in its span: MathJax pairs no two amounts
        low, high = want.range(name)
        assert f'data-p05="{low!r}"' in card or low == float("inf")
    assert app.cards["ettr"].value.index("drmath-kpi-ettr") < app.cards["ettr"].value.index("drmath-band-ettr")
    calls.clear()
    assert app.apply({"checkpoint.interval": 600.0})
    assert len(calls) == 1  # one input change, one set of draws, for the cards and the figures
    assert app.bands.scenario == app.scenario and app.bands.plan == app.plan


def test_the_bands_module_draws_nothing_it_shows_what_it_is_handed(calls):
    # the controller draws the bands (issue 33): a band shown is the Bands handed in, and no call is made here
    s = drmath.Scenario().replace(**{"uncertainty.failover.detection_time": (60.0, 1800.0)})
    handed = drmath.bands(s, seed=7)
    p = handed.plan
    assert f'data-p05="{handed.range("rto_site")[0]!r}"' in band_html(handed, "rto_site")
    spec = drmath.viz.figure_spec("rto", p)
    shade("rto", spec, handed, p)
    assert len(calls) == 1  # this test's own
    with pytest.warns(FutureWarning, match="drmath.dashboard.bands.bands_for moved to drmath.dashboard.app"):
        assert bands_module.bands_for is bands_for


def test_the_rpo_rto_and_cost_figures_shade_the_bands_range(fit):
    # the seed, whose site RPO and DR cost move with the failure rate (the worked answer's copies every 700 s
    # over 400 Gbit/s hold its site RPO whatever the rate, so nothing would shade there)
    app = build_app(scenarios.seed())
    app.fleet.use_example()
    app.fleet.fit()
    app.fleet.apply()
    s = app.scenario.with_changes({"uncertainty.failover.detection_time": (60.0, 3600.0)})  # RTO moves too
    assert app.load(s)
    bands, p = app.bands, app.plan
    assert set(SHADED) <= set(FIGURES)
    for name, (quantity, mark, per_tier) in SHADED.items():
        spec = app.figures[name].figure
        trace = next(t for t in spec["data"] if t["name"] == mark)
        i = trace["x"].index(p.scenario.failover.tier) if per_tier else 0
        per = trace["y"][i] / getattr(p, quantity)
        band = next(t for t in spec["data"] if t["name"] == "90% range")
        rect = next(s for s in spec["layout"]["shapes"] if s.get("name") == "band")
        low, high = bands.range(quantity)
        assert (rect["y0"], rect["y1"]) == (pytest.approx(low * per), pytest.approx(high * per)), name
        y = band["y"][0]
        assert y - band["error_y"]["arrayminus"][0] == pytest.approx(low * per), name
        assert y + band["error_y"]["array"][0] == pytest.approx(high * per), name
    rto = app.figures["rto"].figure
    assert next(s for s in rto["layout"]["shapes"] if s.get("name") == "band")["y1"] > \
        next(t for t in rto["data"] if t["name"] == "site RTO")["y"][0]  # the detection time's spread shows


def test_shade_leaves_a_figure_alone_without_bands():
    p = drmath.plan()
    spec = drmath.viz.figure_spec("rpo", p)
    assert shade("rpo", spec, None, p) is spec
    assert shade("ettr", spec, bands_for(p.scenario.replace(**{"uncertainty.training.mfu": (0.3, 0.5)})), p) is spec
    assert band_html(drmath.bands(), "rpo_site") == ""  # a Bands without uncertainty shows nothing


def test_loading_a_scenario_keeps_its_spreads_and_clears_the_old_ones():
    app = build_app()
    spread = scenarios.seed().replace(**{"uncertainty.training.mfu": (0.3, 0.5)})
    assert app.load(spread)
    assert app.scenario == spread and app.bands is not None
    assert app.load(scenarios.seed())
    assert app.scenario.uncertainty == {} and app.bands is None
    assert scenarios.seed().with_changes(whole_changes(scenarios.seed(), spread)) == spread


def test_the_draws_match_the_clis_default():
    import inspect

    assert DRAWS == inspect.signature(drmath.bands).parameters["draws"].default
    assert bands_module.SEED == 0


def test_the_confidence_solve_shows_progress_and_how_often_the_point_design_misses(monkeypatch):
    app = build_app()
    app.fleet.use_example()
    app.fleet.fit()
    app.fleet.apply()
    before = app.scenario
    assert app.confidence.value == 0.0 and [label for label, _ in app.confidence.options][1:] == [
        "at 90% confidence", "at 95% confidence"]
    app.confidence.value = 0.95
    seen = {}
    real = drmath.solve

    def watched(scenario, confidence=None, **kwargs):
        seen["progress"], seen["confidence"] = app.solution.value, confidence
        return real(scenario, confidence=confidence, **kwargs)

    monkeypatch.setattr(drmath, "solve", watched)
    solution = app.solve()
    assert seen == {"progress": '<div class="drmath-solution-message">searching the designs at 95% confidence over '
                                "2,000 draws…</div>", "confidence": 0.95}
    want = real(before, confidence=0.95)
    assert solution.confidence == 0.95 and solution.message == want.message
    assert solution.point_design_miss_probability == want.point_design_miss_probability
    shown = html.unescape(re.sub(r"<[^>]+>", "", app.solution.value))
    assert "At 95% confidence over 2,000 draws" in shown
    assert f"the point-estimate design would miss in {want.point_design_miss_probability:.1%}" in shown
    assert app.solve_button.description == "apply the cheapest design" and not app.solve_button.disabled


def test_the_point_estimate_is_the_default_solve(monkeypatch):
    app = build_app()
    seen = []

    def recorded(scenario, confidence="not given", **kwargs):
        seen.append(confidence)
        raise ValueError("recorded")

    monkeypatch.setattr(drmath, "solve", recorded)
    assert app.solve() is None
    assert seen == [None]
