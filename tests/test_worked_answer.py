"""The worked answer's opening paragraph (drmath.answer.paragraph), as notebook 00 builds it, and the scenario date
its drill promise is judged on."""

import dataclasses
import datetime as dt
import re

import pytest

from drmath import answer, drills, plan, presets, scenario_io, solve, units
from drmath.formatting import format_quantity
from drmath.quantities import QUANTITIES, SCALARS

SEED = scenario_io.SCENARIO_DIR / "seed.toml"
REQUIREMENTS = {"requirements.rpo_site": 15 * units.minute, "requirements.rto_site": 4 * units.hour,
                "requirements.max_slip": 7 * units.day}
"""The worked answer's stated requirements, as notebook 00 sets them."""
NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")


def _text(markdown):
    """The paragraph as read: money unescaped."""
    return markdown.replace("\\$", "$")


@pytest.fixture(scope="module")
def worked():
    meta = scenario_io.read_meta(SEED)
    solution = solve(scenario_io.load(SEED).with_changes(REQUIREMENTS))
    promise = drills.promised_rto(drills.example_log(), 0.95, as_of=meta["date"])
    return meta, solution, promise, answer.paragraph(solution, promise)


def test_the_seed_has_a_date_that_keeps_the_example_promise_current():
    meta = scenario_io.read_meta(SEED)
    assert isinstance(meta["date"], dt.date)
    newest = max(r.date for r in drills.read_drill_records(drills.example_log()))
    assert meta["date"] == newest + dt.timedelta(days=1)
    assert drills.promised_rto(drills.example_log(), 0.95, as_of=meta["date"]).valid
    text = scenario_io.dumps(scenario_io.load(SEED), meta)
    assert "date = 2025-05-26" in text.splitlines()
    assert scenario_io.loads(text) == scenario_io.load(SEED)


def test_a_date_that_is_not_a_toml_date_is_refused(tmp_path):
    f = tmp_path / "dated.toml"
    f.write_text('[scenario]\nname = "x"\ndate = "2025-05-26"\n')
    with pytest.raises(ValueError, match=r"dated.toml: scenario.date = '2025-05-26' has the wrong type \(str\): "
                                         r"must be a TOML date \(date = 2025-05-26\) \(line 3\)"):
        scenario_io.read_meta(f)


def test_the_paragraph_names_the_tier_solve_picks_and_why_not_the_others(worked):
    _, solution, _, markdown = worked
    text = _text(markdown)
    chosen = presets.DR_TIERS[solution.scenario.failover.tier]
    assert re.search(r"The tier is a \*\*(.+?)\*\*", text).group(1) == chosen.label.lower()
    assert solution.feasible and "the cheapest design that meets every target" in text
    assert set(solution.reasons) == set(presets.DR_TIERS) - {solution.scenario.failover.tier}
    for name, why in solution.reasons.items():
        assert f"{presets.DR_TIERS[name].label}: {why}" in text


def test_the_paragraph_makes_its_promise_until_a_date_not_before_the_scenarios(worked):
    meta, solution, promise, markdown = worked
    text = _text(markdown)
    assert promise.valid and "expired" not in text
    until = dt.date.fromisoformat(re.search(r"valid until (\d{4}-\d\d-\d\d)", text).group(1))
    assert until == promise.expires and until >= meta["date"]
    assert f"we can promise is {format_quantity(promise.promised, 'duration')}, the 95th percentile" in text
    assert f"at most **{solution.plan.format('rpo_site')}** of training" in text
    within = "within" if promise.promised <= solution.scenario.requirements.rto_site else "over"
    assert f"{within} the {format_quantity(solution.scenario.requirements.rto_site, 'duration')} target" in text


def test_a_late_promise_reads_expired(worked):
    _, solution, promise, _ = worked
    late = drills.promised_rto(drills.example_log(), 0.95, as_of=promise.expires + dt.timedelta(days=1))
    text = _text(answer.paragraph(solution, late))
    assert not late.valid
    assert f"expired after {promise.expires.isoformat()}" in text
    assert "valid until" not in text and "we can promise" not in text
    for name in late.due:
        assert drills.DRILLS[name].label.lower() in text


def test_every_number_is_a_formatted_output(worked):
    """Each number in the paragraph is one that plan(), solve(), the drills or the requirements format."""
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
                promise.expires.isoformat(), format_quantity(held, "count"),
                format_quantity(gpu_hours, "gpu_hours"),
                format_quantity(gpu_hours / p.gpu_hours, "fraction")]
    sources += [format_quantity(c["per_run"], "count") for c in costs.values()]
    sources += [answer.cadence_words(d.cadence) for d in drills.DRILLS.values()]
    allowed = {n for text in sources for n in NUMBER.findall(text)}
    found = NUMBER.findall(_text(markdown))
    assert found and set(found) <= allowed, set(found) - allowed
    for key in ("rpo_site", "rto_site", "replication_interval", "replication_time", "replication_bandwidth_needed",
                "standby_gpus", "total_cost_of_resilience", "total_dr_cost", "goodput_lost_cost"):
        assert p.format(key) in _text(markdown), key


def test_money_is_escaped_for_mathjax(worked):
    markdown = worked[3]
    assert "$" in markdown and not re.search(r"(?<!\\)\$", markdown)


def test_drills_are_listed_with_their_cadence(worked):
    _, solution, _, markdown = worked
    costs = drills.drill_costs(solution.plan)
    for name, drill in drills.DRILLS.items():
        count = format_quantity(costs[name]["per_run"], "count")
        assert f"{drill.label.lower()} {answer.cadence_words(drill.cadence)} ({count})" in markdown


def test_when_nothing_meets_the_targets_the_paragraph_says_so(worked):
    meta, _, promise, _ = worked
    hopeless = solve(scenario_io.load(SEED).with_changes({**REQUIREMENTS, "requirements.rto_site": units.minute}))
    text = _text(answer.paragraph(hopeless, promise))
    assert not hopeless.feasible and "No searched design meets every target; the closest is a **" in text
    assert "the cheapest design that meets every target" not in text


def test_replication_that_falls_behind_is_said_to(worked):
    _, solution, promise, _ = worked
    slow = solution.scenario.with_changes({"replication.link_bandwidth": "dx-10g"})
    behind = dataclasses.replace(solution, scenario=slow, plan=plan(slow))
    text = _text(answer.paragraph(behind, promise))
    assert not behind.plan.replication_keeps_up
    assert (f"Replication does not keep up over the 10 Gbit/s link: it needs "
            f"{behind.plan.format('replication_bandwidth_needed')}, so the site RPO has no bound") in text


def test_bad_arguments_raise(worked):
    _, solution, promise, _ = worked
    with pytest.raises(TypeError, match="solution must be a Solution"):
        answer.paragraph(solution.plan, promise)
    with pytest.raises(TypeError, match="promise must be an RTOPromise"):
        answer.paragraph(solution, promise.promised)
