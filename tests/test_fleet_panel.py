"""The dashboard's "your own fleet" panel (drmath.dashboard.fleet): a log in, bounded; its fit shown; applied whole.

Each refusal is one clear line in the panel's error area, and nothing moves: not the scenario, not the fit.
"""

import datetime
import html
import re

import pytest

from drmath import _resources, calibrate, viz
from drmath.dashboard import build_app
from drmath.dashboard import fleet as panel_module
from drmath.dashboard.fleet import MAX_UPLOAD_BYTES, MAX_UPLOAD_ROWS, NONE, FleetPanel

GOOD = ("start,minutes,cause\n2024-05-01 00:00,30,GPU\n2024-05-01 05:00,12,NIC\n"
        "2024-05-01 09:00,45,GPU\n2024-05-01 16:00,20,GPU\n")


def shown_error(panel):
    """The panel's error as a reader sees it: the text, tags stripped."""
    return html.unescape(re.sub(r"<[^>]+>", "", panel.error.value))


@pytest.fixture()
def panel():
    return FleetPanel(build_app())


def test_the_panel_costs_one_toggle_until_opened(panel):
    assert panel.box is None and panel.root.children == (panel.toggle,)
    panel.toggle.value = True
    assert panel.box is not None and panel.root.children == (panel.toggle, panel.box)
    panel.toggle.value = False
    assert panel.box.layout.display == "none"


def test_the_example_log_fits_and_shows_its_figures_summary_and_causes(panel):
    assert panel.use_example()
    fit = panel.fit()
    want = calibrate.read_incidents(_resources.shipped_file("incidents_example.csv"), start_column="start",
                                    end_column="end", where=["cluster=primary"], gpus=16384)
    assert fit == want and panel.calibration is fit
    assert panel.summary.value == f"<pre>{html.escape(want.summary())}</pre>"
    for name, spec in viz.fleet_specs(want).items():
        assert panel.figures[name].figure == spec and panel.figures[name].layout.display == "block"
    assert panel.causes.value == viz.cause_table_html(want)
    assert not panel.apply_button.disabled and panel.error.value == ""


def test_an_upload_goes_through_the_file_upload_widget(panel):
    panel.open()
    when = datetime.datetime(2024, 5, 1, tzinfo=datetime.UTC)
    panel.upload.value = ({"name": "mine.csv", "type": "text/csv", "size": len(GOOD), "last_modified": when,
                           "content": memoryview(GOOD.encode())},)
    assert panel.columns == ["start", "minutes", "cause"] and panel.upload.value == ()
    assert panel.start.value == "start" and panel.cause.value == "cause" and panel.duration.value == NONE
    panel.map_columns(start="start", duration="minutes", unit="min", cause="cause")
    fit = panel.fit()
    assert fit.events == 3 and fit.provenance["file"] == "mine.csv"


@pytest.mark.parametrize("name, raw, message", [
    ("big.csv", b"start\n" + b"2024-05-01\n" * (MAX_UPLOAD_BYTES // 11 + 1),
     r"^big\.csv is \d+ KiB: this page takes logs of at most 768 KiB; fit a bigger one with drmath calibrate$"),
    ("rows.csv", b"s\n" + b"1\n" * (MAX_UPLOAD_ROWS + 5),
     r"^rows\.csv has 20,007 lines: this page takes at most 20,000 rows"),
    ("latin.csv", "start,cause\n2024-05-01,défaut\n".encode("latin-1"), r"^latin\.csv: not a UTF-8 text file"),
    ("wide.csv", (",".join(f"c{i}" for i in range(100)) + "\n").encode(), r"^wide\.csv has 100 columns"),
    ("empty.csv", b"# only a comment\n\n", r"^empty\.csv: no header"),
])
def test_a_refused_upload_is_one_line_and_keeps_the_log_before(panel, name, raw, message):
    assert panel.load("before.csv", GOOD.encode())
    assert not panel.load(name, raw)
    text = shown_error(panel)
    assert re.search(message, text) and "\n" not in text
    assert panel.columns == ["start", "minutes", "cause"]  # the previous log stays


def test_a_bad_csv_names_row_and_column_in_one_line_and_fits_nothing(panel):
    app = panel.app
    before = app.scenario
    bad = GOOD.replace("2024-05-01 05:00", "yesterday").replace(",45,", ",-3,")
    assert panel.load("bad.csv", bad.encode())
    panel.map_columns(start="start", duration="minutes", unit="min")
    assert panel.fit() is None
    text = shown_error(panel)
    assert text.startswith("bad.csv row 3, column start: 'yesterday' is not a time") and "\n" not in text
    assert "2 problems in 2 rows" in text and "nothing fitted" in text
    assert panel.calibration is None and panel.apply_button.disabled and app.scenario == before


@pytest.mark.parametrize("mapping, message", [
    ({"duration": "minutes"}, "map the start column"),
    ({"start": "start"}, "map an end column or a duration column, not neither"),
    ({"start": "start", "end": "minutes", "duration": "minutes"}, "not both"),
    ({"start": "start", "duration": "minutes", "where": "cause"}, "keep where cause equals what?"),
])
def test_an_unmapped_column_is_one_clear_line_and_nothing_applied(panel, mapping, message):
    app = panel.app
    before = app.scenario
    assert panel.load("log.csv", GOOD.encode())
    panel.map_columns(**{"start": NONE, **mapping})
    assert panel.fit() is None
    assert message in shown_error(panel) and panel.calibration is None
    assert not panel.apply() and app.scenario == before
    assert shown_error(panel) == "fit a log first: nothing to apply"


def test_a_column_the_log_lacks_is_refused_by_name(panel):
    panel.load("log.csv", GOOD.encode())
    with pytest.raises(ValueError, match=r"'stop' is not a column of log\.csv; the columns are start, minutes"):
        panel.map_columns(start="start", end="stop")


def test_a_filter_that_keeps_nothing_says_so(panel):
    panel.use_example()
    panel.map_columns(start="start", end="end", where="cluster", where_value="nowhere")
    assert panel.fit() is None
    assert shown_error(panel).startswith("incidents_example.csv: no row left after the filter cluster=nowhere")


def test_a_refused_application_changes_nothing(panel, monkeypatch):
    app = panel.app
    panel.use_example()
    panel.fit()
    before, plan = app.scenario, app.plan

    def refuse(self, scenario):
        raise ValueError("failures.gpu_failure_rate = 1.0 is out of range [1e-12, 1e-3] [1/s]")

    monkeypatch.setattr(calibrate.Calibration, "apply", refuse, raising=False)
    assert not panel.apply()
    assert shown_error(panel) == "failures.gpu_failure_rate = 1.0 is out of range [1e-12, 1e-3] [1/s]"
    assert app.scenario is before and app.plan is plan and panel.applied.value == ""


@pytest.mark.skipif(not hasattr(calibrate.Calibration, "apply"), reason="needs Calibration.apply (issue 23 part 3)")
def test_apply_sets_the_fitted_failure_model_on_the_dashboard(panel):
    app = panel.app
    panel.use_example()
    fit = panel.fit()
    want = fit.apply(app.scenario)
    assert panel.apply()
    assert app.scenario == want and app.plan.scenario == want
    assert app.scenario.failures.gpu_failure_rate == pytest.approx(fit.gpu_failure_rate)
    assert "applied:" in panel.applied.value and panel.error.value == ""


def test_the_upload_bound_is_under_the_servers_message_limit():
    from drmath.serve import MAX_MESSAGE_SIZE

    assert panel_module.MAX_UPLOAD_BYTES < MAX_MESSAGE_SIZE  # else a big file ends the session, unexplained
