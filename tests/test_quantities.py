"""The registry of plan outputs is the one list: everything that lists quantities agrees with it."""

import dataclasses
import math

import numpy as np
import pytest

import drmath
from drmath import Plan, Scenario, plan, quantities
from drmath._explain import _PLACEHOLDER, Explanation
from drmath._plan import STEPS
from drmath.formatting import KINDS, markdown_text
from drmath.quantities import COMPARED, GROUPS, QUANTITIES, SCALARS, TABLES
from drmath.viz import headline
from drmath.viz.headline import CARDS

# the Plan's fields that are not quantities: the inputs, and what a quantity's derivation is made of
NOT_QUANTITIES = {"scenario", "run_driver", "checkpoint_interval_floored", "rto_local_phases", "rto_site_phases"}

SCENARIOS = {
    "seed": Scenario(),
    "tokens drive the run": Scenario().with_changes({"training.tokens": 15.6e12}),
    "replication behind": Scenario().with_changes({"replication.link_bandwidth": 1e8}),
    "sync, interval set below the floor": Scenario().with_changes({"checkpoint.mode": "sync",
                                                                  "checkpoint.interval": 1.0}),
    "streamed, hot, half standby": Scenario().with_changes({"replication.streamed": True, "failover.tier": "hot",
                                                           "failover.standby_fraction": 0.5}),
    "cold": Scenario().with_changes({"failover.tier": "cold"}),
}


@pytest.mark.parametrize("case", list(SCENARIOS))
def test_plan_holds_what_the_steps_derived(case):
    # The Plan's fields are made from SCALARS, so comparing the two proves nothing. Run the steps by hand
    # instead and hold plan() to them: fails if plan() drops, renames or mis-converts an output (a flag
    # that turns into 1.0 in the JSON, a numpy scalar left in a field, a field read from the wrong step).
    s = SCENARIOS[case]
    out, v = {}, s.flat()
    for _, step in STEPS:
        out.update(step(v, out))
    p = plan(s)
    fields = {f.name for f in dataclasses.fields(Plan)} - {"scenario"}
    assert fields <= set(out), fields - set(out)
    for name in sorted(fields):
        value, derived = getattr(p, name), out[name]
        if isinstance(derived, dict):
            assert type(value) is dict and value == {k: float(x) for k, x in derived.items()}, name
        elif isinstance(derived, str):
            assert value == derived, name
        elif isinstance(derived, (bool, np.bool_)):
            assert type(value) is bool and value == bool(derived), name
        else:
            assert type(value) is float, (name, type(value))
            assert value == float(derived) or (math.isnan(value) and math.isnan(derived)), name
    assert {name for name in TABLES if isinstance(getattr(Plan, name), property)} == set(TABLES)


def test_every_step_output_is_declared():
    out, v = {}, Scenario().flat()
    for name, step in STEPS:
        produced = step(v, out)
        public = {k for k in produced if not k.startswith("_")} - NOT_QUANTITIES
        assert public <= set(QUANTITIES), (name, public - set(QUANTITIES))
        out.update(produced)
    assert set(SCALARS) <= set(out)


def test_every_quantity_is_complete():
    for name, q in QUANTITIES.items():
        assert q.name == name
        assert q.kind in KINDS, name
        assert q.unit.startswith("[") and q.unit.endswith("]"), name
        assert q.group in GROUPS, name
        assert q.title and q.formula, name
    assert len(set(CARDS)) == len(CARDS) and {m for n in CARDS for m in headline.card_moves(n)} <= set(SCALARS)
    assert set(COMPARED) <= set(SCALARS) and set(CARDS) <= set(SCALARS)
    assert [n for g in GROUPS for n in quantities.in_group(g)] == list(QUANTITIES)


@pytest.mark.parametrize("case", list(SCENARIOS))
def test_every_quantity_is_explained_with_its_number(case):
    p = plan(SCENARIOS[case])
    for name in QUANTITIES:
        text = p.explain(name)
        assert isinstance(text, Explanation) and text._repr_markdown_() == text
        assert not _PLACEHOLDER.search(text), (name, text)  # every placeholder was filled
        assert "$$" in text, name
        if name in SCALARS:
            money = markdown_text(p.format(name), span=False)
            assert text.startswith(f"**{QUANTITIES[name].title}: {money}**"), (name, text)
    assert p.explain("mtbf", "ettr") == p.explain("mtbf") + "\n" + p.explain("ettr")


def test_explain_refuses_what_is_not_a_quantity():
    with pytest.raises(ValueError, match=r"unknown plan field 'nope': choose from .*break_even_delay_costs"):
        plan().explain("nope")
    with pytest.raises(ValueError, match="needs at least one quantity"):
        plan().explain()


def test_the_requirements_contract_names_each_targets_parts():
    from drmath.scenario import FIELDS

    targets = quantities.TARGETS
    assert {t.input for t in targets} == {path for path in FIELDS if path.startswith("requirements.")}
    p = plan()
    for t in targets:
        assert isinstance(t, quantities.Target) and t._fields[:3] == ("input", "value", "margin")
        assert QUANTITIES[t.value].kind == QUANTITIES[t.margin].kind == "duration"
        assert QUANTITIES[t.margin].title == f"{t.label} margin" and t.symbol in QUANTITIES[t.margin].tex(p)
        assert getattr(p, t.margin) == (math.inf if p.scenario.get(t.input) is None
                                        else p.scenario.get(t.input) - getattr(p, t.value))
    # every margin, in the contract's order, is what meets_requirements takes the least of
    margins = [n for n in QUANTITIES if QUANTITIES[n].group == "requirements" and n != "meets_requirements"]
    assert margins == [t.margin for t in targets]


def test_cards_have_titles_and_details():
    p = plan(SCENARIOS["replication behind"])
    for name in CARDS:
        assert headline.card_title(name)
        assert headline.card_detail(p, name)
    assert "needs ≥" in headline.card_detail(p, "replication_keeps_up")
    assert headline.card_detail(p, "rpo_site") == "replication falls behind"
    assert headline.card_detail(plan(), "rpo_site") == f"expected {plan().format('rpo_site_expected')}"
    assert headline.card_detail(p, "mtbf") == ""


def test_the_registry_holds_no_card_layout_and_the_old_names_forward():
    # the cards' order, sub-lines and what they show are the views' (drmath.viz.headline); the registry keeps
    # each quantity's model facts, its short title among them
    fields = {f.name for f in dataclasses.fields(quantities.Quantity)}
    assert not fields & {"card", "detail", "moves"} and {"short", "note", "symbols", "banded"} <= fields
    for name in ("CARDS", "card_title", "card_detail"):
        with pytest.warns(FutureWarning, match=f"drmath.quantities.{name} moved to drmath.viz.headline.{name}"):
            assert getattr(quantities, name) is getattr(headline, name)
    with pytest.raises(AttributeError, match="has no attribute 'card'"):
        quantities.card  # noqa: B018 - an old name that never was public stays unknown


def test_to_series_and_compare_read_the_registry():
    p = plan()
    series = p.to_series()
    assert list(series.index) == list(SCALARS)
    assert series["rpo_site"] == p.rpo_site
    behind = plan(SCENARIOS["replication behind"])
    table = drmath.compare([p, behind], ["seed", "behind"])
    assert list(table.index) == list(COMPARED)
    assert list(table.columns) == ["title", "seed", "behind"]
    assert math.isinf(table.loc["rpo_site", "behind"]) and table.loc["rpo_site", "seed"] == p.rpo_site
    with pytest.raises(ValueError, match="one distinct name per plan"):
        drmath.compare([p, behind], ["same", "same"])
    with pytest.raises(ValueError, match="unknown plan field 'bogus'"):
        drmath.compare([p], fields=["bogus"])


def test_the_cli_lists_exactly_the_registry():
    from drmath import cli

    listed = [n for names in cli._GROUPS.values() for n in names]
    assert listed == list(SCALARS)  # every number once, in the registry's order (the tables go to explain)
    assert list(cli._GROUPS) == [g.title for g in GROUPS.values()]
    table = cli.render_table(plan())
    for name in SCALARS:
        assert QUANTITIES[name].title in table, name


def test_the_report_shows_exactly_the_registry():
    from drmath import comparison, report

    assert [n for *_, names, _ in report.REPORT_SECTIONS for n in names] == list(QUANTITIES)
    assert [sid for sid, *_ in report.REPORT_SECTIONS] == list(GROUPS)
    assert report.HEADLINE == list(CARDS) and comparison.COMPARE_FIELDS == list(COMPARED)
    page = report.build_report(Scenario(), include_plotlyjs=False)
    for name in SCALARS:
        assert f'data-field="{name}"' in page, name


def test_the_dashboard_cards_are_the_registrys():
    pytest.importorskip("ipywidgets")
    from drmath import dashboard

    assert tuple(dashboard.CARDS) == CARDS
    app = dashboard.build_app()
    shown = {name for name in CARDS if f"drmath-kpi-{name}" in app.cards[name].value}
    assert shown == set(CARDS)


def test_every_view_shows_what_is_wrong():
    """A registered warning (state beyond HBM, saturated storage, replication behind) reaches each view."""
    from drmath import cli, dashboard, report

    # the dashboard opens on the seed, whose design misses its own 15-min site RPO target (issue 21: the seed
    # carries the worked answer's targets, and solve() finds the design that meets them); here, no targets
    untargeted = {"requirements.rpo_site": None, "requirements.rto_site": None, "requirements.max_slip": None}
    small = Scenario().with_changes({"training.gpus": 8, **untargeted})
    p = plan(small)
    assert list(p.warnings()) == ["state_fits_hbm"] and not p.state_fits_hbm and p.min_gpus_for_state == 81
    assert "at least 81 GPUs" in p.warnings()["state_fits_hbm"]
    assert plan(Scenario().with_changes(untargeted)).warnings() == {}
    assert "! The training state does not fit" in cli.render_table(p)
    page = report.build_report(small, include_plotlyjs=False)
    assert page.count('<div class="callout">') == 1 and "at least 81 GPUs" in page
    app = dashboard.build_app(untargeted)
    assert app.warnings.value == ""
    app.apply({"training.gpus": 8})
    assert "drmath-warning-state_fits_hbm" in app.warnings.value and "at least 81 GPUs" in app.warnings.value
    app.apply({"training.gpus": 8000})
    assert app.warnings.value == ""
