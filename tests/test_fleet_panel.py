"""The dashboard's "your own fleet" panel (drmath.dashboard.fleet): a log in, bounded; its fit shown; applied whole.

Each refusal is one clear line in the panel's error area, and nothing moves: not the scenario, not the fit.
"""

import html
import re
from pathlib import Path

import pytest

from drmath import _resources, calibrate, viz
from drmath.dashboard import build_app
from drmath.dashboard import fleet as panel_module
from drmath.dashboard.fleet import MAX_UPLOAD_BYTES, MAX_UPLOAD_ROWS, NONE, FleetPanel
from drmath.dashboard.upload import UploadButton
from drmath.io import incidents

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
    want = incidents.read_incidents(_resources.shipped_file("incidents_example.csv"), start_column="start",
                                    end_column="end", where=["cluster=primary"], gpus=16384)
    assert fit == want and panel.calibration is fit
    assert panel.summary.value == f"<pre>{html.escape(want.summary())}</pre>"
    for name, spec in viz.fleet_specs(want).items():
        assert panel.figures[name].figure == spec and panel.figures[name].layout.display == "block"
    assert panel.causes.value == viz.cause_table_html(want)
    assert not panel.apply_button.disabled and panel.error.value == ""


def test_an_upload_goes_through_the_upload_button(panel):
    panel.open()
    assert isinstance(panel.upload, UploadButton) and panel.upload.max_bytes == MAX_UPLOAD_BYTES
    # as the page sends it: a custom message, the bytes as its one binary buffer
    panel.upload._handle_custom_msg({"event": "file", "name": "mine.csv", "size": len(GOOD)},
                                    [memoryview(GOOD.encode())])
    assert panel.columns == ["start", "minutes", "cause"] and panel.error.value == ""
    assert panel.start.value == "start" and panel.cause.value == "cause" and panel.duration.value == NONE
    panel.map_columns(start="start", duration="minutes", unit="min", cause="cause")
    fit = panel.fit()
    assert fit.events == 3 and fit.provenance["file"] == "mine.csv"


def test_a_file_the_page_refused_for_its_size_is_one_line_and_changes_nothing(panel):
    assert panel.load("before.csv", GOOD.encode())
    panel.upload._handle_custom_msg({"event": "refused", "name": "big.csv", "size": 2**20}, [])
    assert shown_error(panel) == ("big.csv is 1,024 KiB: this page takes logs of at most 768 KiB; "
                                  "fit a bigger one with drmath calibrate")
    assert panel.columns == ["start", "minutes", "cause"] and panel._name == "before.csv"


def test_the_kernel_checks_the_size_again_whatever_the_page_says(panel):
    assert panel.load("before.csv", GOOD.encode())
    raw = b"start\n" + b"2024-05-01\n" * (MAX_UPLOAD_BYTES // 11 + 1)  # a page that skipped its check, and lies
    panel.upload._handle_custom_msg({"event": "file", "name": "sly\n.csv", "size": 10}, [memoryview(raw)])
    assert shown_error(panel) == (f"sly .csv is {len(raw) / 2**10:,.0f} KiB: this page takes logs of at most "
                                  "768 KiB; fit a bigger one with drmath calibrate")
    assert panel.columns == ["start", "minutes", "cause"] and panel._name == "before.csv"


def test_the_upload_button_hands_on_no_byte_over_its_bound_whatever_the_page_says():
    button, taken, refused = UploadButton(max_bytes=8), [], []
    button.on_file(lambda name, raw: taken.append((name, raw)))
    button.on_refused(lambda name, size: refused.append((name, size)))
    button._handle_custom_msg({"event": "file", "name": "ok.csv", "size": 8}, [memoryview(b"a,b\n1,2\n")])
    button._handle_custom_msg({"event": "file", "name": "sly.csv", "size": 8}, [memoryview(b"a,b\n1,2\n3")])
    assert taken == [("ok.csv", b"a,b\n1,2\n")] and refused == [("sly.csv", 9)]


@pytest.mark.parametrize("content, buffers", [
    ("file", []), ({"event": "file", "name": "two.csv"}, [b"a\n", b"b\n"]), ({"event": "file", "name": "a.csv"}, []),
    ({"event": "open", "name": "a.csv"}, [b"a\n"]), ({"name": "a.csv"}, [b"a\n"]),
])
def test_a_malformed_message_from_the_page_loads_nothing(panel, content, buffers):
    assert panel.load("before.csv", GOOD.encode())
    panel.upload._handle_custom_msg(content, buffers)
    assert panel.columns == ["start", "minutes", "cause"] and panel._name == "before.csv" and panel.error.value == ""


@pytest.mark.parametrize("size", [None, -1, "big", True])
def test_a_refusal_without_a_size_says_the_file_was_not_read(panel, size):
    panel.open()
    panel.upload._handle_custom_msg({"event": "refused", "name": "odd.csv", "size": size}, [])
    assert shown_error(panel) == "odd.csv: the browser could not read it"


@pytest.mark.parametrize("name, raw, message", [
    ("big.csv", b"start\n" + b"2024-05-01\n" * (MAX_UPLOAD_BYTES // 11 + 1),
     r"^big\.csv is \d+ KiB: this page takes logs of at most 768 KiB; fit a bigger one with drmath calibrate$"),
    ("rows.csv", b"s\n" + b"1\n" * (MAX_UPLOAD_ROWS + 5),
     r"^rows\.csv has 20,006 lines: this page takes at most 20,000 rows"),  # header + 20,005 rows
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


def test_the_panels_messages_name_no_option_it_lacks(panel):
    # issue 35: the panel told its reader to "give --time-format" and "fit a recent window (--since)", options
    # of drmath calibrate that the panel does not have; the command line keeps them (tests/test_calibrate_tickets.py)
    assert panel.use_example()
    panel.map_columns(start="start", end="end", where="cluster", where_value="primary")
    fit = panel.fit()
    assert fit.trend["direction"] == "falling"  # the case whose sentence named --since
    shown = html.unescape(panel.summary.value)
    assert "fit a recent window" in shown and not re.search(r"--[a-z]", shown), shown
    bad = GOOD.replace("2024-05-01 05:00", "yesterday")
    assert panel.load("bad.csv", bad.encode())
    panel.map_columns(start="start", duration="minutes", unit="min")
    assert panel.fit() is None
    text = shown_error(panel)
    assert text.startswith("bad.csv row 3, column start: 'yesterday' is not a time in ISO 8601 or a format inferred")
    assert "--" not in text


def test_the_panel_fits_a_ticket_export_with_open_tickets_and_says_so(panel):
    # the panel reads the same export as the command line: open tickets and duplicates counted, never refused
    log = Path(__file__).resolve().parents[1] / "data" / "tickets_example.csv"
    assert panel.load("tickets.csv", log.read_bytes())
    panel.map_columns(start="Created", end="Resolved", cause="Component", where="Cluster", where_value="prod")
    fit = panel.fit()
    assert fit is not None and panel.error.value == ""
    shown = html.unescape(panel.summary.value)
    assert "3 duplicates dropped" in shown and "4 events with no end time" in shown
    assert not re.search(r"--[a-z]", shown), shown


# --------------------------------------------------------------------------- a run's event log (issue 36, point 4)


def test_the_panel_takes_a_run_log_and_shows_its_measured_goodput_beside_the_plan_on_screen():
    from drmath.io import runs

    app = build_app()
    panel = app.fleet
    panel.open()
    got = panel.run.load("run.jsonl", runs.example_run_log().read_bytes())
    want = runs.measure_run_log(runs.example_run_log())
    assert got == want and panel.run.error.value == ""
    cells = dict(re.findall(r'<tr><th>([^<]+)</th><td data-value="([^"]*)"', panel.run.table.value))
    assert float(cells["goodput (plan: ETTR)"]) == want.goodput
    plan_cells = re.findall(r'<td data-value="([^"]*)">[^<]*</td></tr>', panel.run.table.value)
    assert float(plan_cells[0]) == app.plan.ettr  # the plan column is the plan on screen
    spec = panel.run.figure.figure
    assert panel.run.figure.layout.display == "block"
    assert [t["name"] for t in spec["data"]][-2:] == ["plan: ETTR", "plan: the rest"]
    assert sum(t["x"][0] for t in spec["data"] if t["y"] == ["measured"]) == pytest.approx(100.0)


def test_a_bad_run_log_gets_one_line_and_what_was_shown_stays():
    from drmath.io import runs

    section = build_app().fleet
    section.open()
    section = section.run
    section.use_example()
    shown = section.table.value
    for name, raw, why in (("a.jsonl", b'{"time": 0, "event": "jump"}', "a.jsonl line 1"),
                           ("<b>.jsonl", b"\xff\xfe", "&lt;b&gt;.jsonl: not a UTF-8 text file"),
                           ("big.jsonl", b" " * (MAX_UPLOAD_BYTES + 1), "this page takes run logs of at most")):
        assert section.load(name, raw) is None
        assert why in section.error.value and "\n" not in section.error.value, section.error.value
        assert section.table.value == shown and section.measurement == runs.measure_run_log(runs.example_run_log())
