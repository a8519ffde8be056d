"""A ticket export as it comes (issue 35, point 5): two time styles, open tickets, duplicated rows.

drmath.io.incidents reads them (its rules "Duplicates", "Times" and "Open incidents"), drmath.calibrate fits
the open tickets' repairs as right-censored (lognormal_fit), and README.md's command fits the shipped export.
"""

import json
import math
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from drmath import calibrate
from drmath.cli import CALIBRATE_EXAMPLE, main
from drmath.io.incidents import MAX_FORMATS, IncidentLogError, parse_incidents

ROOT = Path(__file__).resolve().parents[1]
TICKETS = ROOT / "data" / "tickets_example.csv"

# six incidents on 2025-03-01, the two time styles of a ticket export mixed in each column
MIXED = ("Created,Resolved\n"
         "2025-03-01T00:00:00Z,2025-03-01T00:30:00Z\n"
         "2025-03-01 03:00:00 UTC,2025-03-01 03:10:00 UTC\n"
         "2025-03-01T06:00:00Z,2025-03-01 07:00:00 UTC\n"
         "2025-03-01 09:00:00 UTC,2025-03-01T09:40:00Z\n"
         "2025-03-01T12:00:00Z,2025-03-01T12:20:00Z\n"
         "2025-03-01 15:00:00 UTC,2025-03-01 16:30:00 UTC\n")
COLUMNS = {"start_column": "Created", "end_column": "Resolved"}


def readme_command():
    """The command README.md's ticket section shows, as the words after ``drmath``."""
    block = (ROOT / "README.md").read_text().split("<!-- readme-tickets -->")[1].split("```console")[1]
    line = next(line for line in block.splitlines() if line.startswith("$ "))
    words = shlex.split(line[2:])
    assert words[0].endswith("drmath")
    return words[1:]


def run(capsys, monkeypatch, words):
    monkeypatch.chdir(ROOT)  # the README's paths are the checkout's
    status = main(words)
    out = capsys.readouterr()
    assert status == 0, out.err
    return out.out


def test_the_readme_command_fits_the_ticket_export(capsys, monkeypatch):
    # the export was refused whole (one format: 421 or 113 problems; open tickets: "missing end time")
    words = readme_command()
    assert words[:2] == ["calibrate", "data/tickets_example.csv"]
    text = run(capsys, monkeypatch, words)
    assert "Rows            63 rows, 60 events: 3 duplicates dropped, 0 merged, 0 joined" in text
    assert re.search(r"^Times           ISO 8601 \(\d+ cells\), '%Y-%m-%d %H:%M:%S %Z' \(\d+ cells\)", text, re.M)
    assert "Open            4 events with no end time: counted as failures, their repairs right-censored" in text
    assert "--until moves it" in text  # the command line names its own option
    shown = [line for line in (ROOT / "README.md").read_text().split("<!-- readme-tickets -->")[1]
             .split("```")[1].splitlines()[2:] if not line.endswith("...")]
    for line in shown:  # the README's output lines are the command's, not typed-in copies
        assert line in text.splitlines(), line


def test_help_shows_the_readme_command():
    # --help's example is the README's command (line continuations aside), so the two cannot drift
    example = " ".join(CALIBRATE_EXAMPLE.replace("\\\n", " ").split())
    assert " ".join(["drmath", *readme_command()]) in example


def test_the_text_counts_agree_with_the_json_provenance(capsys, monkeypatch):
    # "Events 218" beside "Repairs over 219 events" said nothing of the duplicate; the counts now add up
    words = readme_command()
    text = run(capsys, monkeypatch, words)
    fit = json.loads(run(capsys, monkeypatch, [*words, "--json"]))
    p = fit["provenance"]
    rows, events, dup, merged, joined = map(int, re.search(
        r"Rows +(\d+) rows, (\d+) events: (\d+) duplicates? dropped, (\d+) merged, (\d+) joined", text).groups())
    assert (rows, dup, merged, joined) == (p["rows_used"], p["rows_duplicate"], p["rows_simultaneous"],
                                           p["rows_joined"])
    assert events == rows - dup - merged - joined == fit["events"] + 1  # the first event opens the window
    assert int(re.search(r"Open +(\d+) events", text).group(1)) == p["open_incidents"] == 4
    cells = [int(n) for n in re.findall(r"\((\d+) cells\)", text)]
    assert cells == p["time_format_cells"] and p["time_formats"][0] == "ISO 8601"


def test_mixed_time_styles_are_read_without_a_format_and_named():
    # before: ISO 8601 read one style and the format guessed from the first value missed the other
    fit = parse_incidents(MIXED, **COLUMNS)
    p = fit.provenance
    assert p["time_formats"] == ["ISO 8601", "%Y-%m-%d %H:%M:%S %Z"] and p["time_format_cells"] == [6, 6]
    assert not p["time_formats_given"] and fit.events == 5
    assert "Times           ISO 8601 (6 cells), '%Y-%m-%d %H:%M:%S %Z' (6 cells)   (no format given" in fit.summary()
    assert fit.repair_median == pytest.approx(calibrate.lognormal_fit(np.array([30, 10, 60, 40, 20, 90]) * 60.0)[0])


def test_several_time_formats_are_tried_in_order_on_each_cell():
    # each cell takes the first format that reads it; a cell no format reads is a problem naming row and column
    formats = ["%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S %Z"]
    fit = parse_incidents(MIXED, time_format=formats, **COLUMNS)
    assert fit.provenance["time_formats"] == formats and fit.provenance["time_formats_given"]
    assert fit.provenance["time_format_cells"] == [6, 6]
    with pytest.raises(IncidentLogError, match=r"^incidents.csv row 3, column Created: '2025-03-01 03:00:00 UTC' "
                                               r"is not a time in the format '%Y-%m-%dT%H:%M:%S%z'"):
        parse_incidents(MIXED, time_format=formats[:1], **COLUMNS)
    bad = MIXED.replace("2025-03-01 09:00:00 UTC", "01/03/2025 09:00")
    with pytest.raises(IncidentLogError, match=r"^incidents.csv row 5, column Created: '01/03/2025 09:00' is not a "
                                               r"time in the formats '%Y-%m-%dT%H:%M:%S%z', '%Y-%m-%d %H:%M:%S %Z'$"):
        parse_incidents(bad, time_format=formats, **COLUMNS)
    with pytest.raises(ValueError, match=rf"time_format \(--time-format\) is given {MAX_FORMATS + 1} times"):
        parse_incidents(MIXED, time_format=["%Y"] * (MAX_FORMATS + 1), **COLUMNS)


def test_time_format_may_be_given_twice_on_the_command_line(tmp_path, capsys, monkeypatch):
    log = tmp_path / "mixed.csv"
    log.write_text(MIXED)
    text = run(capsys, monkeypatch, ["calibrate", str(log), "--start-column", "Created", "--end-column", "Resolved",
                                     "--time-format", "%Y-%m-%d %H:%M:%S %Z", "--time-format", "%Y-%m-%dT%H:%M:%S%z"])
    assert ("Times           '%Y-%m-%d %H:%M:%S %Z' (6 cells), '%Y-%m-%dT%H:%M:%S%z' (6 cells)   "
            "(the formats given by --time-format, tried in order)") in text


def test_open_incidents_are_failures_with_censored_repairs():
    # rows 3 and 6 still open: never a refusal of the file; counted as failures; repairs censored, not complete
    text = MIXED.replace("2025-03-01 03:10:00 UTC", "").replace("2025-03-01 16:30:00 UTC", "")
    fit = parse_incidents(text, until="2025-03-01 18:00", **COLUMNS)
    closed = parse_incidents(MIXED, until="2025-03-01 18:00", **COLUMNS)
    assert fit.events == closed.events == 5 and fit.mtbf == closed.mtbf  # the failure count includes them
    assert fit.provenance["open_incidents"] == 2 and fit.provenance["repairs_censored"] == 2
    done = np.array([30, 60, 40, 20]) * 60.0
    censored = np.array([15 * 3600.0, 3 * 3600.0])  # open at 03:00 and 15:00, censored at until (18:00)
    assert (fit.repair_median, fit.repair_sigma) == pytest.approx(calibrate.lognormal_fit(done, censored))
    as_complete = calibrate.lognormal_fit(np.r_[done, censored])  # what treating them as repairs done would say
    assert fit.repair_median > as_complete[0]  # "longer than 15 h" pulls the median up more than "15 h" does
    assert "2 events with no end time: counted as failures, their repairs right-censored at the window's end " \
           "(2025-03-01T18:00:00Z)" in fit.summary()
    assert "4 repairs done and 2 still open, right-censored" in fit.summary()


def test_without_until_open_repairs_are_censored_at_the_latest_time_the_log_records():
    # the latest time: the open row at 15:00 starts after every end (12:20), so it is censored at 0 and left out
    text = MIXED.replace("2025-03-01 03:10:00 UTC", "").replace("2025-03-01 16:30:00 UTC", "")
    fit = parse_incidents(text, **COLUMNS)
    assert fit.provenance["window_end"] == "2025-03-01T15:00:00Z"
    assert fit.provenance["open_incidents"] == 2 and fit.provenance["repairs_censored"] == 1
    done = np.array([30, 60, 40, 20]) * 60.0
    assert fit.repair_median == pytest.approx(calibrate.lognormal_fit(done, [12 * 3600.0])[0])
    assert "1 opened at that time, which says nothing of its repair, left out of the fit" in fit.summary()


def test_identical_rows_are_dropped_and_counted_and_change_no_number():
    lines = MIXED.splitlines()
    twice = "\n".join([*lines[:3], lines[2], *lines[3:], lines[-1]]) + "\n"  # rows 2 and 6 exported twice
    fit, once = parse_incidents(twice, **COLUMNS), parse_incidents(MIXED, **COLUMNS)
    assert fit.provenance["rows_duplicate"] == 2 and fit.provenance["rows_simultaneous"] == 0
    assert (fit.events, fit.mtbf, fit.weibull_shape, fit.repair_median) == (
        once.events, once.mtbf, once.weibull_shape, once.repair_median)
    assert "Rows            8 rows, 6 events: 2 duplicates dropped, 0 merged, 0 joined" in fit.summary()


def test_the_censored_lognormal_fit_is_scipys():
    # scipy.stats.lognorm.fit on CensoredData is the reference MLE; repairs censored by a uniform export time
    from scipy import stats

    rng = np.random.default_rng(3)
    repair, export = rng.lognormal(np.log(2400.0), 0.9, 300), rng.uniform(0, 8000.0, 300)
    seen = np.minimum(repair, export)
    done = repair <= export
    median, sigma = calibrate.lognormal_fit(seen[done], seen[~done])
    shape, _, scale = stats.lognorm.fit(stats.CensoredData(uncensored=seen[done], right=seen[~done]), floc=0)
    assert (median, sigma) == pytest.approx((scale, shape), rel=1e-5)
    assert math.isclose(calibrate.lognormal_fit(seen[done], [])[0], calibrate.lognormal_fit(seen[done])[0])
    with pytest.raises(ValueError, match=r"censored must be > 0 and finite \[s\], got 0.0"):
        calibrate.lognormal_fit([600.0, 1200.0], [0.0])


def test_the_command_line_names_its_own_options(capsys, monkeypatch):
    # the library's summary names no option (the panel has none); drmath calibrate names its --since and
    # --merge-within where the summary advises them
    text = run(capsys, monkeypatch, ["calibrate", "data/incidents_example.csv", "--start-column", "start",
                                     "--end-column", "end", "--where", "cluster=primary"])
    assert "the whole-window MTBF understates the fleet today, so fit a recent window (--since)" in text
    assert "the row before (--merge-within 0 s); 15 joined by the join column" in text


def test_times_from_year_1_to_9999_still_parse_when_formats_are_combined():
    # the cells each format reads are gathered at one resolution; nanoseconds end in 2262 and broke on 9999
    text = MIXED.replace("2025-03-01T12:20:00Z", "9999-01-01T00:00:00Z")
    fit = parse_incidents(text, since="2025-03-01", until="2025-03-02", **COLUMNS)
    assert fit.provenance["time_format_cells"] == [6, 6] and fit.events == 6


def test_a_log_of_only_open_incidents_is_fitted_not_refused():
    # every repair still running: the failures are fitted, the repairs are not (too few done), and it says so
    text = "\n".join(line.rsplit(",", 1)[0] + "," for line in MIXED.splitlines()[1:])
    fit = parse_incidents("Created,Resolved\n" + text + "\n", **COLUMNS)
    assert fit.events == 5 and fit.provenance["open_incidents"] == 6 and fit.repair_median is None
    assert "Repairs         too few durations > 0 to fit" in fit.summary()
