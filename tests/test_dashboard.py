"""drmath.dashboard, kernel side: set widget values in Python, check cards and figures == plan()."""

import html
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

import drmath
from drmath import answer, dashboard, formatting, viz
from drmath.dashboard import AUTO, CARDS, CONTROLS, FIGURES, build_app, cards_html
from drmath.io import scenarios
from drmath.units import Gbit_per_s, minute

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import assert_kpis_match_plan  # noqa: E402

KPI = re.compile(r'class="drmath-kpi drmath-kpi-(\w+)(?: drmath-bad)?" data-value="([^"]*)">([^<]*)<')


def kpis(app):
    """{field: (data-value, text)} from the cards' HTML."""
    out = {}
    for name, card in app.cards.items():
        field, value, text = KPI.search(card.value).groups()
        assert field == name
        out[name] = (value, html.unescape(text))
    return out


def assert_cards_match(app, p):
    assert_kpis_match_plan(kpis(app), p)


def specs_for(p):
    return dashboard.Dashboard._specs(None, p)


@pytest.fixture
def app():
    return build_app()


def test_every_control_and_card_has_its_hook(app):
    assert set(app.controls) == set(CONTROLS)
    for path, widget in app.controls.items():
        section, field = path.split(".")
        assert f"drmath-control-{section}-{field}" in widget._dom_classes
    assert set(kpis(app)) == set(CARDS)
    for name in FIGURES:
        assert f"drmath-figure-{name}" in app.figures[name]._dom_classes
    # the dashboard draws its five figures of the registry; the notebooks' figures stay out of it
    assert list(app.figures) == list(FIGURES) == ["rpo", "ettr", "rto", "cost_tier", "cost_link"]
    assert set(FIGURES) < set(viz.FIGURES)


def test_opens_on_the_worked_answer_with_the_seed_one_click_away(app):
    """Issue 35: the page opened on the seed's unsolved design, its site RPO missed in red, while notebook 00 and
    `drmath solve` gave the answer. It opens on the answer's design now, the seed pinned as its baseline."""
    solved = answer.worked_answer()  # the search itself, not the shipped copy the page reads
    assert app.scenario == solved.scenario and solved.feasible
    assert_cards_match(app, solved.plan)
    assert app.controls["checkpoint.interval"].value == solved.scenario.checkpoint.interval
    assert app.controls["replication.link_bandwidth"].value == solved.scenario.replication.link_bandwidth
    assert app.controls["failover.tier"].value == solved.scenario.failover.tier
    assert app.warnings.value == "" and "missed" not in "".join(card.value for card in app.cards.values())
    assert "Worked answer" in app.opened.value and 'style="visibility: hidden"> · edited' in app.opened.value
    # the seed is the baseline, pinned: every card says what the answer changed, and one click shows the seed
    seed = drmath.plan(scenarios.seed())
    assert app.baseline.scenario == scenarios.seed() and app.pin.description == "clear baseline"
    assert "vs baseline" in app.cards["rpo_site"].value
    toggle = app.compare_view.toggle
    assert not toggle.disabled and not toggle.value and app.compare_view.root.layout.display == "none"
    toggle.value = True  # the one click
    assert app.compare_view.root.layout.display == "flex"
    table = html.unescape(app.compare_view.table.value)
    assert seed.format("rpo_site") in table and solved.plan.format("rpo_site") in table
    assert seed.format("total_dr_cost") in table and solved.plan.format("total_dr_cost") in table
    assert "replication.link_bandwidth" in table and "checkpoint.interval" in table  # what the answer changed


@pytest.mark.parametrize("path, pick", [
    ("training.gpus", lambda w: 16384),
    ("training.mfu", lambda w: 0.3),
    ("training.params", lambda w: drmath.presets.MODELS["llama3-70b"].params),
    ("checkpoint.interval", lambda w: 10 * minute),
    ("replication.link_bandwidth", lambda w: 400 * Gbit_per_s),
    ("replication.interval", lambda w: 10 * minute),
    ("failures.gpu_failure_rate", lambda w: drmath.presets.FAILURE_RATES["rsc-1"].gpu_failure_rate),
    ("failover.tier", lambda w: "hot"),
    ("failover.standby_fraction", lambda w: 0.5),
    ("failover.detection_time", lambda w: 15 * minute),
    ("failover.decision_time", lambda w: 0.0),
])
def test_moving_a_control_re_derives_everything(app, path, pick):
    widget = app.controls[path]
    value = pick(widget)
    widget.value = value
    want = scenarios.answer().with_changes({path: value})
    assert app.scenario == want
    p = drmath.plan(want)
    assert_cards_match(app, p)
    for name, spec in specs_for(p).items():
        assert app.figures[name].figure == spec, name
    flat = json.loads(html.unescape(re.search(r'data-scenario="([^"]*)"', app.scenario_view.value).group(1)))
    assert flat[path] == value


def test_figures_carry_the_sweeps(app):
    app.controls["training.gpus"].value = 4096
    p = app.plan
    ettr = viz.FIGURES["ettr"]
    curves = drmath.sweep(p.scenario, ettr.path, ettr.grid, ["ettr"])
    assert app.figures["ettr"].figure["data"][0]["y"] == viz.jsonable(100 * curves["ettr"])
    assert app.figures["ettr"].figure == viz.figure_spec("ettr", p)  # the registry's figure, as the report's


def test_cards_read_the_registry(app):
    from drmath.viz import headline

    assert CARDS == headline.CARDS
    p = app.plan
    for name in CARDS:
        card = app.cards[name].value
        title = re.search(r'<div class="drmath-card-title" title="([^"]+)">([^<]*)</div>', card)
        assert html.unescape(title.group(2)) == headline.card_title(name)
        assert html.unescape(title.group(1)) == dashboard.DEFINITIONS[name]  # every card title is defined
        assert f'<div class="drmath-card-sub">{formatting.html_text(headline.card_detail(p, name))}</div>' in card
    assert app.replication_note.value.startswith(f"→ {formatting.every(p.replication_every)}: ")


def test_figure_grids_cover_every_control_value(app):
    swept = {viz.FIGURES[name].path: name for name in FIGURES if viz.FIGURES[name].path in app.controls}
    assert set(swept) == {"checkpoint.interval", "replication.interval", "replication.link_bandwidth"}
    for path, name in swept.items():
        grid = viz.FIGURES[name].grid
        values = [v for _, v in app.controls[path].options if v != AUTO]
        assert grid[0] <= min(values) and max(values) <= grid[-1] * (1 + 1e-9), name


def test_widget_code_and_style_ship_as_files():
    for widget in (dashboard.PlotlyView, dashboard.ShareLink):
        esm, css = str(widget._esm), str(widget._css)
        assert "export default" in esm and "render(" in esm
        assert css.strip() and "var(--drmath-" in css
    style = build_app().root.children[0].value
    assert style.startswith("<style>") and viz.css_variables() in style and ".drmath-kpi" in style


def test_unset_optional_fields_through_auto(app):
    app.controls["checkpoint.interval"].value = 5 * minute
    assert app.scenario.checkpoint.interval == 5 * minute
    app.controls["checkpoint.interval"].value = AUTO
    assert app.scenario.checkpoint.interval is None
    assert app.plan.checkpoint_interval == drmath.plan(scenarios.answer().with_changes(
        {"checkpoint.interval": None})).checkpoint_interval


def test_rejected_input_changes_nothing(app):
    app.controls["training.gpus"].value = 16384
    before_cards = {k: c.value for k, c in app.cards.items()}
    before_figs = {k: f.figure for k, f in app.figures.items()}
    scenario = app.scenario
    assert app.apply({"training.gpus": 16384 * 2, "training.mfu": 1.5}) is False
    assert "training.mfu = 1.5 is out of range" in html.unescape(app.error.value)
    assert app.scenario is scenario
    assert {k: c.value for k, c in app.cards.items()} == before_cards
    assert {k: f.figure for k, f in app.figures.items()} == before_figs
    assert app.controls["training.gpus"].value == 16384  # controls still show the scenario
    # the next valid change clears the error
    app.controls["failover.tier"].value = "hot"
    assert app.error.value == ""


def test_keeps_up_card_and_unbounded_rpo(app):
    app.controls["replication.link_bandwidth"].value = 1 * Gbit_per_s
    app.controls["replication.interval"].value = 5 * minute
    p = app.plan
    assert not p.replication_keeps_up and math.isinf(p.rpo_site)
    cards = kpis(app)
    assert cards["replication_keeps_up"] == ("false", "no")
    assert cards["rpo_site"] == ("inf", "no bound")
    assert "drmath-bad" in app.cards["rpo_site"].value


def test_show_the_math_renders_explain(app):
    toggle = app.math_toggles["rpo_site"]
    assert "rpo_site" not in app.math_views  # made on first use
    toggle.value = True
    view = app.math_views["rpo_site"]
    assert "drmath-math-rpo_site" in view._dom_classes
    assert view.layout.display == "block"
    text = view.outputs[0]["data"]["text/markdown"]
    try:
        want = app.plan.explain("rpo_site")
    except Exception as exc:  # the explainer is written concurrently; the view says so
        assert "not available" in text
        pytest.skip(f"Plan.explain is not available yet: {exc}")
    assert text == want
    # it follows the inputs while open
    app.controls["replication.interval"].value = 2 * 3600.0
    assert view.outputs[0]["data"]["text/markdown"] == app.plan.explain("rpo_site")
    toggle.value = False
    assert view.layout.display == "none"


def test_build_app_from_changes():
    app = build_app({"training.gpus": 4096, "checkpoint.interval": 7 * minute})
    # values not among the slider's stops are added, so the control shows the scenario
    assert app.controls["checkpoint.interval"].value == 7 * minute
    assert_cards_match(app, drmath.plan(scenarios.seed().with_changes(
        {"training.gpus": 4096, "checkpoint.interval": 7 * minute})))


def test_controls_are_labelled_in_human_units(app):
    labels = {v: text for text, v in app.controls["replication.link_bandwidth"].options}
    assert labels[100 * Gbit_per_s] == "100 Gbit/s"
    labels = {v: text for text, v in app.controls["replication.interval"].options}
    assert labels[3600.0] == "1 h"
    assert all(not w.continuous_update for w in app.controls.values() if hasattr(w, "continuous_update"))


@pytest.mark.parametrize("name", list(scenarios.shipped_scenarios()))
def test_loading_a_shipped_scenario_shows_its_true_values(app, name):
    """Issue 13: after "Frontier: 100,000 H100s" the GPU slider showed 8,000 and one nudge set 10,000."""
    from drmath.io import scenarios

    want = scenarios.load(scenarios.shipped_scenarios()[name])
    app.picker.value = name
    assert app.scenario == want and app.error.value == ""
    for path, control in app._controls.items():
        assert control.widget.value == control.from_si(want.get(path)), path
    # a nudge moves to the neighbouring stop of the true value, not of the stale one
    gpus = app.controls["training.gpus"]
    values = [v for _, v in gpus.options]
    assert want.training.gpus in values and values == sorted(values)
    gpus.index = values.index(want.training.gpus) - 1
    assert app.scenario.training.gpus == values[values.index(want.training.gpus) - 1]


def test_values_off_the_grid_join_the_options(app):
    assert app.load(drmath.Scenario().with_changes({
        "training.gpus": 100_000, "training.mfu": 0.415, "checkpoint.interval": 7 * minute,
        "replication.link_bandwidth": 300 * Gbit_per_s, "failures.gpu_failure_rate": 1e-8,
        "failover.standby_fraction": 0.25, "training.params": 1.2e11}))
    assert app.error.value == ""
    for path, control in app._controls.items():
        assert control.widget.value == control.from_si(app.scenario.get(path)), path
    labels = {v: text for text, v in app.controls["training.gpus"].options}
    assert labels[100_000] == "100,000"
    assert {v: t for t, v in app.controls["replication.link_bandwidth"].options}[300 * Gbit_per_s] == "300 Gbit/s"


def test_saved_toml_keeps_the_opened_scenario(app):
    import base64
    import tomllib

    from drmath.io import scenarios

    def saved():
        b64 = re.search(r"base64,([^\"]+)\"", app.save_link.value).group(1)
        return base64.b64decode(b64).decode()

    name = "Frontier: 100,000 H100s at RSC-1's rate"
    path = scenarios.shipped_scenarios()[name]
    app.picker.value = name
    # " · edited" is there but hidden, keeping its room so that the first edit moves nothing on the page
    assert "showing: " + html.escape(name) in app.opened.value
    assert 'style="visibility: hidden"> · edited' in app.opened.value
    data = tomllib.loads(saved())
    assert data["scenario"]["name"] == name and data["scenario"]["sources"] == scenarios.read_meta(path)["sources"]
    assert data["failures"]["gpu_failure_rate"] == "rsc-1"
    assert scenarios.loads(saved()) == app.scenario
    app.controls["failover.tier"].value = "warm"
    assert '<span class="drmath-edited"> · edited' in app.opened.value and "hidden" not in app.opened.value
    assert tomllib.loads(saved())["scenario"]["name"] == name + " (edited)"
    assert scenarios.loads(saved()) == app.scenario


def test_detection_and_decision_times_are_controls(app):
    """Issue 13: the 30-minute decision dominates the hot tier, yet it was no control."""
    app.controls["failover.tier"].value = "hot"
    before = app.plan.rto_site
    app.controls["failover.decision_time"].value = 5 * minute
    assert app.scenario.failover.decision_time == 5 * minute
    assert app.plan.rto_site < before
    assert app.plan.rto_site == drmath.plan(app.scenario).rto_site
    labels = {v: t for t, v in app.controls["failover.detection_time"].options}
    assert labels[0.0] == "none" and labels[300.0] == "5 min" and app.controls["failover.detection_time"].value == 300.0


def test_the_page_opens_with_a_story(app):
    text = re.sub(r"<[^>]+>", "", app.root.children[1].value)
    for words in ("training run", "checkpoints", "RPO", "RTO", "ETTR", "MFU", "work is lost"):
        assert words in text
    assert "plan()" not in text and "sweep()" not in text
    assert set(dashboard.DEFINITIONS) >= set(CARDS)


# ---- issue 13: the architect's screen (targets, baseline, tier table, site loss)

TARGETS = {"requirements.rpo_site": 15 * minute, "requirements.rto_site": 4 * 3600.0,
           "requirements.max_slip": 7 * 86400.0}


def target_verdict(app, card):
    match = re.search(r'class="drmath-target drmath-target-(met|missed)" data-margin="([^"]*)">([^<]*)<',
                      app.cards[card].value)
    return None if match is None else (match.group(1), float(match.group(2)), html.unescape(match.group(3)))


def test_site_loss_card_adds_work_lost_resume_and_slip(app):
    """Issue 13: with a 50% standby the 45-day slip showed on no card."""
    app.controls["failover.tier"].value = "multi-site"
    p = app.plan
    assert p.site_loss_time == pytest.approx(p.rpo_site_expected + p.rto_site + p.reduced_capacity_time)
    assert p.site_loss_time == p.schedule_slip  # issue 21: the slip is the whole delay of the run's end
    assert p.reduced_capacity_time > 0
    assert kpis(app)["site_loss_time"] == (repr(p.site_loss_time), p.format("site_loss_time"))
    assert formatting.html_text(p.format("site_loss_cost")) in app.cards["site_loss_time"].value
    assert p.site_loss_cost == pytest.approx(p.site_loss_time * (p.fleet_cost_rate + p.scenario.cost.delay_cost))


def test_targets_are_controls_and_every_card_says_met_or_missed():
    # issue 21: the page opens on the seed's targets, the worked answer's
    assert {path: build_app().scenario.get(path) for path in TARGETS} == TARGETS
    app = build_app(scenarios.seed())  # the seed's own design, which misses one
    assert {path: app.scenario.get(path) for path in TARGETS} == TARGETS
    app.controls["requirements.rpo_site"].value = AUTO
    assert target_verdict(app, "rpo_site") is None  # no target set, no verdict
    for path, value in TARGETS.items():
        app.controls[path].value = value
    assert {path: app.scenario.get(path) for path in TARGETS} == TARGETS
    p = app.plan
    for card, margin in (("rpo_site", "rpo_site_margin"), ("rto_site", "rto_site_margin"),
                         ("site_loss_time", "max_slip_margin")):
        state, shown, text = target_verdict(app, card)
        assert shown == getattr(p, margin)
        assert state == ("met" if getattr(p, margin) >= 0 else "missed")
    assert target_verdict(app, "rpo_site")[0] == "missed"  # 1.19 h against 15 min
    assert "missed by" in target_verdict(app, "rpo_site")[2]
    app.controls["requirements.rpo_site"].value = AUTO
    assert app.scenario.requirements.rpo_site is None and target_verdict(app, "rpo_site") is None


def test_the_cheapest_design_is_applied_and_its_front_drawn():
    app = build_app(scenarios.seed())
    for path, value in TARGETS.items():
        app.controls[path].value = value
    before = app.scenario
    app.solve_button.click()
    expected = drmath.solve(before)
    assert expected.feasible and app.scenario == expected.scenario == scenarios.answer()  # the page's opening
    assert all(target_verdict(app, card)[0] == "met" for card in ("rpo_site", "rto_site", "site_loss_time"))
    assert app.controls["failover.tier"].value == expected.scenario.failover.tier
    assert app.pareto.layout.display == "block" and app.pareto.figure["data"]
    assert "applied" in app.solution.value and not app.solve_button.disabled
    app.controls["training.mfu"].value = 0.3
    assert "changed since this search" in app.solution.value


def test_no_design_meets_the_targets_then_nothing_is_applied(app):
    app.apply({"requirements.rpo_site": 1.0})
    before = app.scenario
    solution = app.solve()
    assert not solution.feasible and app.scenario == before
    assert "nothing applied" in app.solution.value and app.pareto.figure["data"]


def test_a_pinned_baseline_shows_every_cards_change():
    app = build_app()
    assert "vs baseline" in app.cards["rto_site"].value  # the seed, pinned at the start
    app.pin.click()  # cleared
    assert app.baseline is None and "vs baseline" not in app.cards["rto_site"].value
    assert app.compare_view.toggle.disabled
    app.pin.click()
    base = app.plan
    assert app.baseline is base and app.pin.description == "clear baseline"
    assert "no change vs baseline" in app.cards["rto_site"].value
    app.controls["failover.tier"].value = "hot"
    p = app.plan
    expected = formatting.change(p.rto_site, base.rto_site, "duration")
    assert expected.startswith("−") and f"{expected} vs baseline" in html.unescape(app.cards["rto_site"].value)
    assert "no change vs baseline" in app.cards["rpo_site"].value  # the tier does not move replication
    app.pin.click()
    assert app.baseline is None and "vs baseline" not in app.cards["rto_site"].value


def test_the_tier_table_shows_every_tier_from_the_plan(app):
    rows = dict(re.findall(r'<tr(?: class="drmath-tier-current")? data-tier="([^"]+)">(.*?)</tr>', app.tiers.value))
    p = app.plan
    assert list(rows) == list(p.tier_total_costs)
    for tier, row in rows.items():
        values = [float(v) for v in re.findall(r'data-value="([^"]+)"', row)]
        assert values[:4] == [p.tier_rto_sites[tier], p.tier_rpo_sites[tier], p.tier_total_costs[tier],
                              p.tier_schedule_slips[tier]]
    assert 'class="drmath-tier-current" data-tier="warm"' in app.tiers.value
    app.controls["failover.tier"].value = "cold"
    assert 'class="drmath-tier-current" data-tier="cold"' in app.tiers.value


def test_cards_and_page_text_load_without_widgets():
    # the web server draws its static preview from these, and must not load ipywidgets to do it
    code = ("import sys, drmath.dashboard.cards, drmath.dashboard.page, drmath.dashboard; "
            "from drmath.dashboard import STORY, PLOTLY_STATIC, CARDS, cards_html, tier_table_html; "
            "cards_html(drmath.plan()); tier_table_html(drmath.plan()); "
            "print(sorted(m for m in ('ipywidgets', 'anywidget', 'plotly', 'traitlets') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["[]"], out.stdout + out.stderr
    # the widget names still come from the package, loaded on first use
    assert dashboard.build_app is build_app and dashboard.AUTO == "auto"
    assert {"build_app", "Dashboard", "PlotlyView", "ShareLink"} <= set(dir(dashboard))
    with pytest.raises(AttributeError, match="has no attribute 'nonesuch'"):
        dashboard.nonesuch  # noqa: B018


@pytest.mark.parametrize("pin", [False, True], ids=["alone", "against-a-baseline"])
def test_static_cards_are_the_live_cards(app, pin):
    # cards_html is what the server's preview shows: the live page's cards, in order, with the same hooks
    if pin:
        app.pin_baseline()
        app.apply({"failover.tier": "hot"})
    static = cards_html(app.plan, app.baseline)
    live = "".join(f'<div class="drmath-card">{app.cards[name].value}</div>' for name in CARDS)
    assert static == f'<div class="drmath-cards">{live}</div>'
    assert [m.group(1) for m in KPI.finditer(static)] == list(CARDS)


def test_the_confidence_choice_beside_the_solve_button_shows_its_option_from_the_start():
    # a Dropdown whose value is None shows no option: the choice was blank and unlabelled until picked
    app = build_app()
    assert app.confidence.value == 0.0 and app.confidence.label == "on point estimates"
    assert [label for label, _ in app.confidence.options] == ["on point estimates", "at 90% confidence",
                                                              "at 95% confidence"]


def test_a_missed_target_sends_the_reader_to_the_button_beside_it_not_to_the_command_line():
    app = build_app({"requirements.rpo_site": 1.0})  # no design here ships off-site within a second
    assert "drmath-warning-rpo_site_margin" in app.warnings.value
    assert 'the button "apply the cheapest design", under the controls' in html.unescape(app.warnings.value)
    assert "drmath solve" not in app.warnings.value


def test_the_mfu_control_says_what_it_moves_and_why_no_chart_follows_it():
    # dragging MFU moved no chart and nothing said why: with the window set it moves the tokens alone
    app = build_app()
    assert app.scenario.training.tokens is None  # the window is set, the tokens derived
    assert "no chart moves" in app.mfu_note.value and drmath.plan(app.scenario).format("tokens") in app.mfu_note.value
    app.controls["failover.tier"].value = "multi-site"  # its cross-site link is sized by the step time
    assert "no chart moves" not in app.mfu_note.value and "DR numbers with them" in app.mfu_note.value
    assert "time to train" in build_app({"training.tokens": 1e13}).mfu_note.value
