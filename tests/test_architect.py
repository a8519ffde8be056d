"""What the architect sees on the dashboard and in the report (issue 22), kernel side: the HTML and the
figure objects the page draws, read as a reader reads them."""

import datetime
import html
import math
import re
from html.parser import HTMLParser

import pytest

import drmath
from drmath import drills, presets, quantities, report
from drmath.dashboard import CARDS, cards_html
from drmath.io import scenarios
from drmath.viz import headline

# --------------------------------------------------------------------------- helpers


class _Text(HTMLParser):
    """The text a reader sees in an HTML fragment (attributes, scripts and styles left out), by element."""

    def __init__(self):
        super().__init__()
        self.chunks, self._skip = [], 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag):
        self._skip -= tag in ("script", "style")

    def handle_data(self, data):
        if not self._skip:
            self.chunks.append(data)


def visible_text(fragment):
    parser = _Text()
    parser.feed(fragment)
    return " ".join(" ".join(parser.chunks).split())


def _report(scenario=None):
    return report.build_report(scenario or drmath.Scenario(), include_plotlyjs=False)


# --------------------------------------------------------------------------- 8. the report


def test_report_numbers_each_section_once_and_in_order():
    page = _report()
    titles = [visible_text(t) for t in re.findall(r"<h2>(.*?)</h2>", page)]
    numbers = [int(t.split(".", 1)[0]) for t in titles if re.match(r"\d+\.", t)]
    assert numbers == list(range(1, len(titles) + 1)), titles  # every section numbered, once each


def test_report_drills_section_carries_the_schedule_table():
    scenario = scenarios.seed()
    page = _report(scenario)
    section = re.search(r'<section id="drills">(.*?)</section>', page, re.S).group(1)
    rows = re.findall(r"<tr[^>]*data-drill=\"([\w-]+)\"[^>]*>(.*?)</tr>", section, re.S)
    assert [name for name, _ in rows] == list(drills.DRILLS)
    schedule = drills.drill_schedule(drmath.plan(scenario), datetime.date(2025, 5, 26))  # held: not the date
    for name, row in rows:
        cells = [visible_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        assert drills.DRILLS[name].label in visible_text(row)
        assert str(int(schedule.loc[name, "held"])) in cells, (name, cells)


def test_report_drill_schedule_gives_dates_from_the_runs_first_day():
    start = datetime.date(2025, 5, 26)
    page = report.build_report(drmath.Scenario(), include_plotlyjs=False, start=start)
    row = visible_text(re.search(r'<tr data-drill="failover-game-day">(.*?)</tr>', page, re.S).group(1))
    assert "2025-05-26" in row and "2025-07-25" in row, row  # the first and the last game day of the run


@pytest.mark.parametrize("changes", [{}, {"requirements.rpo_site": 900.0}], ids=["no-target", "one-target"])
def test_a_target_not_set_is_never_called_met(changes):
    scenario = drmath.Scenario().with_changes(changes)
    p = drmath.plan(scenario)
    unset = [(t.input, t.margin) for t in quantities.TARGETS if scenario.get(t.input) is None]
    assert unset
    for path, name in unset:
        note = p.explain(name)
        assert path in note and not re.search(r"\bmet\b", note), note
    text = visible_text(_report(scenario))
    assert not re.search(r"no target set[^.]*\bmet\b", text, re.I)
    assert "so it is met" not in text
    for name in CARDS:  # the dashboard's cards neither
        card = visible_text(cards_html(p))
        assert not re.search(r"no target[^.]*\bmet\b", card, re.I), name


# --------------------------------------------------------------------------- 1. the cards' parts and symbols

BASE = scenarios.seed()
SCENARIOS = {
    "seed": BASE, "default": drmath.Scenario(),
    "multi-site": BASE.with_changes({"failover.tier": "multi-site"}),
    "cold-half": BASE.with_changes({"failover.tier": "cold", "failover.standby_fraction": 0.5}),
    "tokens": BASE.with_changes({"training.tokens": 15e12}),
    "behind": BASE.with_changes({"replication.link_bandwidth": 1.25e8, "replication.interval": 300.0}),
    "clipped": BASE.with_changes({"checkpoint.interval": 30 * 86400.0, "training.window": 20 * 86400.0}),
    "newest": BASE.with_changes({"replication.policy": "newest", "replication.link_bandwidth": 1.25e8}),
    "pilot": BASE.with_changes({"failover.tier": "pilot-light"}),
}

_MONEY = r"−?\$[\d,]+(?:\.\d+)?[kMBT]?"
_DURATION = r"[\d,]+(?:\.\d+)? (?:s|min|h|days?|weeks?|years?)\b"
_AMOUNT = rf"(?:{_MONEY}|{_DURATION})"
_CHAIN = re.compile(rf"(?:[A-Za-z][\w -]*? )?{_AMOUNT}(?:\s*[+·]\s*(?:[A-Za-z][\w -]*? )?{_AMOUNT})+")
_SCALE = {"": 1.0, "k": 1e3, "M": 1e6, "B": 1e9, "T": 1e12, "s": 1.0, "min": 60.0, "h": 3600.0, "day": 86400.0,
          "days": 86400.0, "week": 604800.0, "weeks": 604800.0, "year": 365 * 86400.0, "years": 365 * 86400.0}


def _amount(text):
    """An amount as read off the page: (SI value, half a unit of its last digit: the rounding)."""
    m = re.search(r"(−?)\$?([\d,]+)(?:\.(\d+))?\s?([kMBT]|s|min|h|days?|weeks?|years?)?$", text.strip())
    sign, whole, frac, unit = m.groups()
    scale = _SCALE[unit or ""]
    value = float(whole.replace(",", "") + "." + (frac or "0")) * scale
    return (-value if sign else value), 0.5 * 10 ** -len(frac or "") * scale


def _card_parts(card_html):
    """Each card's value and every chain of parts its sub-line shows: {name: (value, [[part text, ...], ...])}."""
    out = {}
    for name, value, sub in re.findall(r'drmath-kpi-(\w+)[^"]*" data-value="([^"]*)">.*?'
                                       r'<div class="drmath-card-sub">(.*?)</div>', card_html, re.S):
        text = visible_text(sub)
        out[name] = (float(value) if value not in ("true", "false") else value,
                     [re.split(r"\s*[+·]\s*", m.group(0)) for m in _CHAIN.finditer(text)])
    return out


@pytest.mark.parametrize("key", list(SCENARIOS))
def test_every_card_that_shows_parts_lists_all_of_them_and_they_sum(key):
    p = drmath.plan(SCENARIOS[key])
    cards = _card_parts(cards_html(p))
    assert set(cards) == set(CARDS)
    chains = 0
    for name, (value, found) in cards.items():
        for chain in found:
            amounts = [_amount(re.search(_AMOUNT + "$", part).group(0)) for part in chain]
            total, slack = sum(a for a, _ in amounts), sum(s for _, s in amounts)
            assert abs(total - value) <= slack + 1e-9 * abs(value), (name, chain, value)
            chains += 1
    assert chains >= 2  # the total DR cost and the site loss show theirs
    assert _card_parts(cards_html(p))["total_dr_cost"][1], "the total DR cost shows its parts"


_OPERATORS = {r"\frac", r"\tfrac", r"\left", r"\right", r"\min", r"\max", r"\sum", r"\le", r"\ge", r"\quad",
              r"\times", r"\sqrt", r"\infty", r"\cdot", r"\;", r"\,", r"\ ", "e", "i"}


def _formula_symbols(tex):
    """The symbols of a TeX formula, read the way a reader reads them (operators and text left out)."""
    tex = re.sub(r"\\text\{[^}]*\}", " ", tex)
    sub = r"(?:_\{[^}]*\}|_[A-Za-z0-9])?"
    tokens = re.findall(rf"\\mathrm\{{\w+\}}{sub}|\\Delta\s*[A-Za-z]{sub}|\\[A-Za-z]+{sub}|\\.|[A-Za-z]{sub}", tex)
    return {t for t in tokens if t not in _OPERATORS and not t.startswith(r"\sum")}


@pytest.mark.parametrize("key", list(SCENARIOS))
def test_every_symbol_in_show_the_math_is_defined_where_it_appears(key):
    p = drmath.plan(SCENARIOS[key])
    for name in CARDS:
        text = p.explain(name)
        formula = re.search(r"\$\$(.*?)\$\$", text, re.S).group(1)
        where = next((para for para in text.split("\n\n") if para.startswith("Where ")), "")
        defined = {s.replace(" ", "") for s in re.findall(r"\$([^$]+)\$ is ", where)}
        missing = {s for s in _formula_symbols(formula) if s.replace(" ", "") not in defined}
        assert not missing, (name, formula, missing)


# --------------------------------------------------------------------------- 3. the tier table explains its columns


def test_every_tier_table_column_is_defined_in_its_caption_and_on_its_header():
    from drmath.dashboard import TIER_COLUMNS, tier_table_html

    table = tier_table_html(drmath.plan(BASE))
    caption = visible_text(re.search(r"<caption>(.*?)</caption>", table, re.S).group(1))
    headers = {heading: title for title, heading in re.findall(r'<th title="([^"]+)">([^<]+)</th>', table)}
    for _, heading in TIER_COLUMNS:
        definition = re.search(rf"{re.escape(heading)} ?: ([^.]+)", caption)
        assert definition and len(definition.group(1).split()) >= 5, (heading, caption)  # a sentence, seen
        assert html.unescape(headers.get(heading, "")).startswith(definition.group(1)), heading  # on hover too
    assert "cost of delay" in caption and "cold" in caption  # what "pays for itself above" is weighed against


# --------------------------------------------------------------------------- 7. chart details, on the figure objects


def _all_specs(p):
    from drmath import viz

    specs = viz.figure_specs(p, [n for n in viz.FIGURES if n != "simulation"])
    specs["pareto"] = viz.pareto_spec(drmath.solve(p.scenario))
    other = drmath.plan(p.scenario.with_changes({"failover.tier": "hot"}))
    specs["compare"] = viz.compare_spec([p, other], ["now", "hot"])
    return specs


@pytest.fixture(scope="module")
def specs():
    return _all_specs(drmath.plan(BASE))


def test_rto_waterfall_labels_every_phase_with_a_unit_or_none():
    from drmath import viz

    for tier in presets.DR_TIERS:
        p = drmath.plan(BASE.with_changes({"failover.tier": tier}))
        labels = viz.rto_spec(p)["data"][0]["text"]
        for label, value in zip(labels, p.rto_site_phases.values()):
            assert (label == "none") == (value == 0), (tier, labels)
            assert label == "none" or re.fullmatch(_DURATION, label), (tier, label)


def test_log_axes_label_whole_values_never_a_bare_digit(specs):
    checked = 0
    for name, spec in specs.items():
        for key, axis in spec["layout"].items():
            if not (key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict) and axis.get("type") == "log"):
                continue
            assert axis.get("tickmode") == "array", (name, key)  # plotly's own labels write 2 and 5 bare
            for value, text in zip(axis["tickvals"], axis["ticktext"]):
                if re.fullmatch(r"[\d,.]+", text):  # a number: the whole value, not its first digit
                    assert float(text.replace(",", "")) == pytest.approx(value), (name, key, text, value)
            checked += 1
    assert checked >= 6


def test_no_bar_label_sits_under_a_marker(specs):
    spec = specs["cost_tier"]
    tiers = spec["layout"]["xaxis"]["tickvals"]  # a category's centre is its index, on any axis over the same range
    labels = [tiers.index(x) for t in spec["data"] if "text" in t.get("mode", "") for x in t["x"]]
    for trace in spec["data"]:
        if trace["type"] == "scatter" and "markers" in trace["mode"] and trace["marker"].get("size", 6) > 2:
            assert "lines" not in trace["mode"], trace["name"]  # a line between markers would cross the labels
            for x in trace["x"]:
                x = tiers.index(x) if x in tiers else x
                assert min(abs(x - at) for at in labels) >= 0.35, (trace["name"], x, labels)


def test_every_cost_label_says_which_cost(specs):
    names = sorted((q.title.lower() for q in quantities.QUANTITIES.values() if q.kind in ("usd", "usd_rate")),
                   key=len, reverse=True) + ["cost of delay"]
    for name, spec in specs.items():
        layout = spec["layout"]
        labels = [layout.get("title")] + [a.get("text") for a in layout.get("annotations", [])]
        labels += [v.get("title") for k, v in layout.items() if k.startswith(("xaxis", "yaxis")) and isinstance(v, dict)
                   ]
        labels += [t.get("name") for t in spec["data"]]
        for label in labels:
            text = label.get("text", "") if isinstance(label, dict) else (label or "")
            text = re.sub(r"<[^>]+>", " ", text).lower()
            for title in names:
                text = text.replace(title, "")
            assert "cost" not in text, (name, label)


# --------------------------------------------------------------------------- 2. the Pareto figure goes stale visibly


def test_the_pareto_figure_marks_itself_stale_when_the_inputs_change_and_says_how_to_refresh():
    from drmath.dashboard import build_app

    app = build_app()
    app.solve()

    def stale_notes():
        return [a["text"] for a in app.pareto.figure["layout"].get("annotations", []) if "stale" in a["text"]]

    assert not stale_notes()
    fresh = app.pareto.figure
    app.apply({"training.gpus": 16_384})
    notes = stale_notes()
    assert len(notes) == 1 and app.solve_button.description in notes[0], notes  # what to press
    assert all(t.get("opacity", 1) <= 0.4 for t in app.pareto.figure["data"])  # greyed
    assert "stale" in app.pareto.figure["layout"]["title"]["text"]
    app.apply({"training.gpus": 8_000})  # back to the inputs searched: fresh again
    assert app.pareto.figure == fresh
    app.apply({"training.gpus": 16_384})
    app.solve()
    assert not stale_notes()


# --------------------------------------------------------------------------- 5. an unchanged card says what moved


def _delta(card_html):
    found = re.search(r'<div class="drmath-delta[^"]*">(.*?)</div>', card_html, re.S)
    return visible_text(found.group(1)) if found else None


def test_an_unchanged_card_says_what_moved_instead_of_no_change():
    from drmath.dashboard import build_app

    app = build_app()
    app.pin_baseline()
    app.apply({"training.gpus": 12_000})  # the window drives the run: 90 days either way, 50% more tokens
    assert app.plan.time_to_train == app.baseline.time_to_train
    delta = _delta(app.cards["time_to_train"].value)
    assert "no change" not in delta and "tokens" in delta and "run cost" in delta, delta
    assert "+" in delta  # each with its change
    for name in CARDS:  # and no card says "no change" while what its sub-line shows moved
        moved = [m for m in headline.card_moves(name) if getattr(app.plan, m) != getattr(app.baseline, m)]
        text = _delta(app.cards[name].value)
        if moved and getattr(app.plan, name) == getattr(app.baseline, name):
            assert text.startswith("unchanged") and all(headline.card_title(m).lower() in text.lower()
                                                        or quantities.QUANTITIES[m].title.lower() in text.lower()
                                                        for m in moved), (name, text)


# --------------------------------------------------------------------------- 6. controls that do nothing are disabled


def test_a_control_that_does_nothing_for_the_tier_is_disabled_with_its_reason():
    from drmath.dashboard import build_app

    app = build_app()
    assert not any(w.disabled for w in app.controls.values())
    app.apply({"failover.tier": "multi-site"})
    decision = app.controls["failover.decision_time"]
    assert decision.disabled and "Multi-site" in decision.tooltip, decision.tooltip
    note = visible_text(app.inert_note.value)
    assert decision.description in note and "does nothing" in note, note  # the reason, seen without hovering
    for path, widget in app.controls.items():  # each one disabled truly moves no card
        if widget.disabled:
            values = [v for _, v in widget.options if v != widget.value]
            before = cards_html(app.plan)
            moved = drmath.plan(app.scenario.with_changes({path: None if values[-1] == "auto" else values[-1]}))
            assert cards_html(moved) == before, path
    app.apply({"failover.tier": "warm"})
    assert not decision.disabled and "Multi-site" not in (decision.tooltip or "")
    assert visible_text(app.inert_note.value) == ""


# --------------------------------------------------------------------------- 4. compare with baseline, on screen


def test_compare_with_baseline_shows_every_card_side_by_side_and_one_chart():
    from drmath import viz
    from drmath.dashboard import build_app

    app = build_app(scenarios.seed())  # a scenario of its own: nothing pinned (the worked answer pins the seed)
    view = app.compare_view
    assert view.toggle.disabled  # nothing pinned: nothing to compare
    app.pin_baseline()
    app.apply({"training.gpus": 12_000, "failover.tier": "hot"})
    assert not view.toggle.disabled and view.root.layout.display == "none"
    view.toggle.value = True
    assert view.root.layout.display != "none"
    table = view.table.value
    rows = re.findall(r"<tr><td[^>]*>(.*?)</td>(.*?)</tr>", table, re.S)
    shown = {visible_text(title): [visible_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", cells, re.S)]
             for title, cells in rows}
    for name in CARDS:  # every card: the baseline's number, then the number now
        title = quantities.QUANTITIES[name].title
        assert title in shown, (title, list(shown))
        assert shown[title][0] == app.baseline.format(name) and shown[title][1].startswith(app.plan.format(name))
    assert "training.gpus" in visible_text(table) and "failover.tier" in visible_text(table)  # what differs
    want = viz.compare_figure([app.baseline, app.plan], ["baseline", "now"])
    assert {t["name"] for t in view.figure.figure["data"]} == {t.name for t in want.data}
    app.pin_baseline(False)
    assert view.toggle.disabled and view.root.layout.display == "none"


def test_report_slider_steps_move_the_log_axes_labels_with_their_ranges():
    spec = report.report_figures(drmath.Scenario(), names=["cost_link"])["cost_link"]
    steps = spec["layout"]["sliders"][0]["steps"]
    ticks = {tuple(step["args"][1]["yaxis.tickvals"]) for step in steps}  # each step labels its own range
    for step in steps:
        lo, hi = step["args"][1]["yaxis.range"]
        assert all(lo - 1e-9 <= math.log10(v) <= hi + 1e-9 for v in step["args"][1]["yaxis.tickvals"])
    assert len(ticks) >= 1
