"""The worked answer's opening summary (drmath.answer.summary: a lead and a table), as notebook 00 builds it, and the
scenario date its drill promise is judged on."""

import dataclasses
import datetime as dt
import re

import pytest

from drmath import answer, drills, plan, presets, solve, units
from drmath.formatting import format_quantity
from drmath.io import scenarios
from drmath.io.drills import example_log, read_drill_records
from drmath.quantities import QUANTITIES, SCALARS, TARGETS

SEED = scenarios.SCENARIO_DIR / "seed.toml"
REQUIREMENTS = {"requirements.rpo_site": 15 * units.minute, "requirements.rto_site": 4 * units.hour,
                "requirements.max_slip": 7 * units.day}
"""The worked answer's stated requirements, as notebook 00 sets them."""
NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")


def _text(markdown):
    """The summary as read: money's markup undone (each span holds one amount)."""
    return re.sub(r'<span class="drmath-money">&#36;([^<]*)</span>', r"$\1", markdown)


def _rows(markdown):
    """The summary table's rows: {point: (figure, what it means)}, markup kept."""
    rows = {}
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("**"):
            rows[cells[0].strip("*")] = (cells[1], cells[2])
    return rows


@pytest.fixture(scope="module")
def worked():
    meta = scenarios.read_meta(SEED)
    solution = solve(scenarios.load(SEED).with_changes(REQUIREMENTS))
    promise = drills.promised_rto(read_drill_records(example_log()), 0.95, as_of=meta["date"])
    return meta, solution, promise, answer.summary(solution, promise)


def test_the_example_promise_stays_valid_a_month_after_the_seeds_date():
    meta = scenarios.read_meta(SEED)
    assert isinstance(meta["date"], dt.date)
    promise = drills.promised_rto(read_drill_records(example_log()), 0.95, as_of=meta["date"])
    assert promise.valid and promise.expires - meta["date"] >= dt.timedelta(days=30)
    text = scenarios.dumps(scenarios.load(SEED), meta)
    assert "date = 2025-05-26" in text.splitlines()
    assert scenarios.loads(text) == scenarios.load(SEED)


def test_the_summary_says_which_drill_ends_the_promise_and_when(worked):
    meta, _, promise, markdown = worked
    assert promise.expiring  # the drills whose phases go stale the day after promise.expires
    for name in promise.expiring:
        drill = drills.DRILLS[name]
        last = max(e.last for e in promise.phases.values() if e.owner == name)
        assert last + dt.timedelta(seconds=drill.cadence) == promise.expires
        assert (f"the {answer.cadence_words(drill.cadence)} {drill.label.lower()} drill (last run "
                f"{last.isoformat()})") in markdown
    days = (promise.expires - meta["date"]).days
    assert f"valid until {promise.expires.isoformat()} ({days} days after {meta['date'].isoformat()})" in markdown


def test_a_date_that_is_not_a_toml_date_is_refused(tmp_path):
    f = tmp_path / "dated.toml"
    f.write_text('[scenario]\nname = "x"\ndate = "2025-05-26"\n')
    with pytest.raises(ValueError, match=r"dated.toml: scenario.date = '2025-05-26' has the wrong type \(str\): "
                                         r"must be a TOML date \(date = 2025-05-26\) \(line 3\)"):
        scenarios.read_meta(f)


def test_the_summary_has_a_short_lead_and_a_row_for_each_point(worked):
    _, solution, _, markdown = worked
    lead, table = markdown.split("\n\n", 1)
    assert lead.startswith("**The answer.**") and len(_text(lead).split()) <= 80  # a lead, not the 250-word paragraph
    rows = _rows(table)
    targets = [f"Requirement: {t.label[0].lower()}{t.label[1:]} ≤ {format_quantity(target, 'duration')}"
               for t in TARGETS if (target := solution.scenario.get(t.input)) is not None]
    assert len(targets) == len(REQUIREMENTS)
    others = [f"Why not {presets.DR_TIERS[n].label.lower()}" for n in solution.reasons]
    assert list(rows) == [*targets, "Site RPO", "Site RTO promised", "Site RTO planned", "Replication", "DR tier",
                          *others, "Cost", "Drills"]


def test_each_figure_links_to_the_section_that_derives_it(worked):
    _, solution, promise, markdown = worked
    p = solution.plan
    rows = _rows(markdown)
    link = re.compile(r"^\[(.+)\]\(#([a-z-]+)\)$")
    for point, (figure, _) in rows.items():
        assert link.match(figure), (point, figure)
        assert link.match(figure).group(2) in answer.SECTIONS.values()
    want = {"Site RPO": (p.format("rpo_site"), "rpo"), "Site RTO planned": (p.format("rto_site"), "rto"),
            "Site RTO promised": (format_quantity(promise.promised, "duration"), "drills"),
            "Cost": (p.format("total_cost_of_resilience"), "cost")}
    for point, (figure, section) in want.items():
        text, anchor = link.match(_text(rows[point][0])).groups()
        assert (text, anchor) == (figure, answer.SECTIONS[section]), point


def test_each_requirement_says_whether_it_is_met(worked):
    _, solution, _, markdown = worked
    p = solution.plan
    rows = _rows(markdown)
    for path, value, margin, label, *_ in TARGETS:
        target = solution.scenario.get(path)
        if target is None:
            continue
        figure, means = rows[f"Requirement: {label[0].lower()}{label[1:]} ≤ {format_quantity(target, 'duration')}"]
        assert figure.startswith(f"[{p.format(value)}]")
        assert means == f"met, {format_quantity(getattr(p, margin), 'duration')} to spare"


def test_the_summary_names_the_tier_solve_picks_and_why_not_the_others(worked):
    _, solution, _, markdown = worked
    rows = _rows(_text(markdown))
    chosen = presets.DR_TIERS[solution.scenario.failover.tier]
    assert rows["DR tier"][0].startswith(f"[{chosen.label}, {solution.plan.format('standby_gpus')} GPUs]")
    assert solution.feasible and rows["DR tier"][1].startswith("the cheapest design that meets every requirement")
    assert set(solution.reasons) == set(presets.DR_TIERS) - {solution.scenario.failover.tier}
    for name, why in solution.reasons.items():
        assert rows[f"Why not {presets.DR_TIERS[name].label.lower()}"][1] == why


def test_the_summary_makes_its_promise_until_a_date_not_before_the_scenarios(worked):
    meta, solution, promise, markdown = worked
    text = _text(markdown)
    assert promise.valid and "expired" not in text
    until = dt.date.fromisoformat(re.search(r"valid until (\d{4}-\d\d-\d\d)", text).group(1))
    assert until == promise.expires and until >= meta["date"] + dt.timedelta(days=30)
    assert "the 95th percentile of the drilled recoveries" in text
    assert f"a site loss costs at most {solution.plan.format('rpo_site')} of training" in text


def test_a_late_promise_reads_expired(worked):
    _, solution, promise, _ = worked
    late = drills.promised_rto(read_drill_records(example_log()), 0.95, as_of=promise.expires + dt.timedelta(days=1))
    text = _text(answer.summary(solution, late))
    assert not late.valid
    assert f"**expired** after {promise.expires.isoformat()}" in text
    assert "valid until" not in text and "we can promise" not in text
    for name in late.due:
        assert drills.DRILLS[name].label.lower() in text


def test_every_number_is_a_formatted_output(worked):
    """Each number in the summary is one that plan(), solve(), the drills or the requirements format."""
    meta, solution, promise, markdown = worked
    p, s = solution.plan, solution.scenario
    costs = drills.drill_costs(p)
    held = sum(c["per_run"] for c in costs.values())
    gpu_hours = sum(c["total"] for c in costs.values())
    sources = [p.format(name) for name in SCALARS if QUANTITIES[name].kind != "flag"]
    sources += list(solution.reasons.values())
    sources += [format_quantity(s.get(path), "duration") for path in REQUIREMENTS]
    sources += [format_quantity(s.replication.link_bandwidth, "line_rate"),
                format_quantity(promise.promised, "duration"), f"{100 * promise.confidence:.0f}",
                promise.expires.isoformat(), meta["date"].isoformat(), str((promise.expires - meta["date"]).days),
                format_quantity(held, "count"), format_quantity(gpu_hours, "gpu_hours"),
                format_quantity(gpu_hours / p.gpu_hours, "fraction")]
    sources += [e.last.isoformat() for e in promise.phases.values()]
    sources += [format_quantity(c["per_run"], "count") for c in costs.values()]
    sources += [answer.cadence_words(d.cadence) for d in drills.DRILLS.values()]
    sources += [format_quantity(getattr(p, t.margin), "duration") for t in TARGETS]
    allowed = {n for text in sources for n in NUMBER.findall(text)}
    found = NUMBER.findall(re.sub(r"#\w+;", "", _text(markdown)))
    assert found and set(found) <= allowed, set(found) - allowed
    for key in ("rpo_site", "rto_site", "replication_interval", "replication_time", "replication_bandwidth_needed",
                "standby_gpus", "total_cost_of_resilience", "total_dr_cost", "goodput_lost_cost"):
        assert p.format(key) in _text(markdown), key


def test_money_is_written_so_that_mathjax_pairs_none(worked):
    markdown = worked[3]
    assert "$" not in markdown  # no dollar for a Markdown renderer's math pass
    assert markdown.count('<span class="drmath-money">&#36;') == _text(markdown).count("$") > 0


def test_drills_are_listed_with_their_cadence(worked):
    _, solution, _, markdown = worked
    costs = drills.drill_costs(solution.plan)
    for name, drill in drills.DRILLS.items():
        count = format_quantity(costs[name]["per_run"], "count")
        assert f"{drill.label.lower()} {answer.cadence_words(drill.cadence)} ({count})" in markdown


def test_when_nothing_meets_the_targets_the_summary_says_so(worked):
    meta, _, promise, _ = worked
    hopeless = solve(scenarios.load(SEED).with_changes({**REQUIREMENTS, "requirements.rto_site": units.minute}))
    text = _text(answer.summary(hopeless, promise))
    assert not hopeless.feasible and "no searched design meets every requirement: this one comes closest" in text
    assert "**missed** by" in text
    assert "the cheapest design that meets every requirement" not in text


def test_replication_that_falls_behind_is_said_to(worked):
    _, solution, promise, _ = worked
    slow = solution.scenario.with_changes({"replication.link_bandwidth": "dx-10g"})
    behind = dataclasses.replace(solution, scenario=slow, plan=plan(slow))
    text = _text(answer.summary(behind, promise))
    assert not behind.plan.replication_keeps_up
    assert (f"**does not keep up**: it needs {behind.plan.format('replication_bandwidth_needed')}, so the site RPO "
            "has no bound") in text


def test_bad_arguments_raise(worked):
    _, solution, promise, _ = worked
    with pytest.raises(TypeError, match="solution must be a Solution"):
        answer.summary(solution.plan, promise)
    with pytest.raises(TypeError, match="promise must be an RTOPromise"):
        answer.summary(solution, promise.promised)
