"""What the architect sees on the dashboard and in the report (issue 22), kernel side: the HTML and the
figure objects the page draws, read as a reader reads them."""

import datetime
import re
from html.parser import HTMLParser

import pytest

import drmath
from drmath import drills, quantities, report, scenario_io
from drmath.dashboard import CARDS, cards_html

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
    scenario = scenario_io.seed()
    page = _report(scenario)
    section = re.search(r'<section id="drills">(.*?)</section>', page, re.S).group(1)
    rows = re.findall(r"<tr[^>]*data-drill=\"([\w-]+)\"[^>]*>(.*?)</tr>", section, re.S)
    assert [name for name, _ in rows] == list(drills.DRILLS)
    schedule = drills.drill_schedule(drmath.plan(scenario), datetime.date(2025, 5, 26))  # held: not the date
    for name, row in rows:
        cells = [visible_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        assert drills.DRILLS[name].label in visible_text(row)
        assert str(int(schedule.loc[name, "held"])) in cells, (name, cells)


@pytest.mark.parametrize("changes", [{}, {"requirements.rpo_site": 900.0}], ids=["no-target", "one-target"])
def test_a_target_not_set_is_never_called_met(changes):
    scenario = drmath.Scenario().with_changes(changes)
    p = drmath.plan(scenario)
    unset = [(path, name) for path, _, name, *_ in quantities._TARGETS if scenario.get(path) is None]
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
