"""One answer everywhere (issue 35): the dashboard, the served page, notebook 00, ``drmath solve`` and ``drmath
report`` open on the worked answer's design, the seed's own design one click away as the baseline it improves on.

Before: ``drmath report`` reported the seed's unsolved design ("Site RPO target missed by 56.2 min") and the
dashboard opened on it in red, while notebook 00 and ``drmath solve`` gave the answer. Each test computes the
answer afresh with :func:`drmath.solve`, so none takes the code under test's word for it.
"""

import html
import json
import re

import pytest

from drmath import answer, plan, presets, solve
from drmath.cli import main
from drmath.formatting import format_quantity
from drmath.io import scenarios


@pytest.fixture(scope="module")
def solved():
    """The seed solved here, not through drmath.answer: what every view must show."""
    solution = solve(scenarios.seed())
    assert solution.feasible
    return solution


def test_the_shipped_design_is_the_seed_solved(solved):
    """The dashboard reads its opening design from data/scenarios/answer.toml to skip a 1 s search at page start;
    it must be what solve() finds today, or the page and the answer drift apart."""
    assert scenarios.answer() == solved.scenario, (
        "data/scenarios/answer.toml is not what solve() finds for the seed today: run data/make_answer.py")
    assert answer.worked_answer().scenario == solved.scenario
    assert scenarios.loads(answer.design_toml()) == solved.scenario
    meta = scenarios.read_meta(scenarios.SCENARIO_DIR / "answer.toml")
    assert meta["name"] == answer.DESIGN_META["name"]
    assert meta["date"] == scenarios.read_meta(scenarios.SCENARIO_DIR / "seed.toml")["date"]


def test_drmath_solve_gives_the_same_design(solved, capsys):
    assert main(["solve", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["set"] == solved.set_flags() and out["feasible"]
    assert out["plan"]["total_cost_of_resilience"] == pytest.approx(solved.plan.total_cost_of_resilience)
    assert main(["solve"]) == 0
    text = capsys.readouterr().out
    assert all(f"--set {flag}" in text or f'--set {flag.split("=")[0]}="' in text for flag in solved.set_flags())
    assert f"Total cost of resilience {solved.plan.format('total_cost_of_resilience')}" in text
    assert "MISSED" not in text


def test_the_dashboard_and_the_served_page_open_on_it(solved):
    from drmath.dashboard import build_app
    from drmath.serve import pages
    from drmath.serve.static_dashboard import static_dashboard

    app = build_app()
    assert app.scenario == solved.scenario and app.baseline.scenario == scenarios.seed()
    assert pages.page_scenario("") == (solved.scenario, None)
    markup, _ = static_dashboard("")  # the static-first page's dashboard, box for box
    for name in ("rpo_site", "total_dr_cost", "rto_site"):
        value = repr(float(getattr(solved.plan, name)))
        assert f'drmath-s-kpi-{name}" data-value="{value}"' in markup, name
    assert not re.search(r'class="drmath-s-warning\b', markup) and "clear baseline" in markup


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """``drmath report`` with no scenario: the document, as written."""
    out = tmp_path_factory.mktemp("answer") / "answer.html"
    assert main(["report", "-o", str(out), "--quiet"]) == 0
    return out.read_text(encoding="utf-8")


def _read(document):
    """The document's text as a reader sees it: tags dropped, entities undone, spaces collapsed."""
    text = re.sub(r"<script.*?</script>|<style.*?</style>", " ", document, flags=re.S)
    text = re.sub(r"</?(?:em|strong|a|span|code|b)\b[^>]*>", "", text)  # inline: no space where they stood
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", text)))


def test_drmath_report_with_no_scenario_is_the_worked_answer(report, solved):
    p, s = solved.plan, solved.scenario
    text = _read(report)
    assert "missed" not in text.lower()
    # the design: tier, link, cadences, standby
    tier = presets.DR_TIERS[s.failover.tier].label
    assert f"A {tier.lower()} of {p.format('standby_gpus')} GPUs" in text
    assert f"shipped over a {format_quantity(s.replication.link_bandwidth, 'line_rate')} link" in text
    assert f"checkpoint interval (solved) {format_quantity(s.checkpoint.interval, 'duration')}" in text
    assert f"off-site target interval (solved) {format_quantity(s.replication.interval, 'duration')}" in text
    assert f"one every {p.format('replication_interval')}" in text
    # its cost, in the lead and the headline
    assert f"it costs {p.format('total_cost_of_resilience')} over the run" in text
    assert f'data-field="total_dr_cost" data-si="{json.dumps(p.total_dr_cost)}">{p.format("total_dr_cost")}' in report
    # the requirements, why not each other tier, the derivations, the drills, the talking points
    for path, (what, why) in answer.REASONS.items():
        assert f"{what} {format_quantity(s.get(path), 'duration')} {why}" in text
    for name, why in answer.tier_reasons(solved, answer.tier_solutions(scenarios.seed())).items():  # as its tiers
        assert f"Why not {presets.DR_TIERS[name].label.lower()}" in text and html.unescape(why) in text
    for section in ("answer", "the-requirements", "tiers", "promise", "talking-points", "rpo", "rto", "cost",
                    "drills", "inputs"):
        assert f'<section id="{section}"' in report, section
    assert 'id="d-rpo_site"' in report and "<math" in report  # every derivation, its formula typeset
    assert "What if the link halves?" in text and "Why not hot?" in text
    # each figure of the summary links to a section of this document
    links = set(re.findall(r'<a href="#([^"]+)">', report))
    assert set(answer.REPORT_ANCHORS.values()) <= links
    assert all(f'id="{target}"' in report for target in links)


def test_a_named_scenario_is_still_reported_as_it_is(tmp_path):
    """``drmath report seed`` is the seed's own design, honestly missed where it misses: no answer sections."""
    out = tmp_path / "seed.html"
    assert main(["report", "seed", "-o", str(out), "--quiet"]) == 0
    document = out.read_text(encoding="utf-8")
    assert "target missed" in _read(document) and '<section id="answer"' not in document
    assert f'data-si="{json.dumps(plan(scenarios.seed()).rpo_site)}"' in document


def test_report_help_says_what_it_writes(capsys):
    with pytest.raises(SystemExit, match="0"):
        main(["report", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "With no SCENARIO it is the worked answer" in out
    for part in ("why not each other tier", "derivation", "drill", "follow-up questions", "self-contained"):
        assert part in out, part
