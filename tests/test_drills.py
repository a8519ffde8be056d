"""Tests for drmath.drills (the catalogue and the promised RTO) and drmath.io.drills (the record format)."""

import datetime as dt
import itertools
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drmath import Scenario, drills, plan
from drmath._resources import shipped_file
from drmath.drills import (
    DRILLS,
    PHASES,
    DrillRecord,
    drill_costs,
    drill_schedule,
    phase_owner,
    promise_sentence,
    promised_rto,
)
from drmath.formatting import format_quantity
from drmath.io import drills as drill_log
from drmath.io.drills import example_log, parse_drill_records, read_drill_records
from drmath.recovery import LOCAL_PHASES, SITE_PHASES
from drmath.units import day, week

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = example_log()
HEADER = "date,drill,phase,seconds,outcome\n"
DAY0 = dt.date(2025, 1, 6)


def _local(detection=(100.0,), reschedule=(60.0,), launch=(60.0,), load=(60.0,), validation=(60.0,),
           when=DAY0):
    values = dict(detection=detection, reschedule=reschedule, launch=launch, load=load, validation=validation)
    out = []
    for phase, seconds in values.items():
        drill = "detection-alerting" if phase == "detection" else "checkpoint-restore"
        out += [DrillRecord(when, drill, f"local.{phase}", float(s), "pass") for s in seconds]
    return out


def test_catalogue_covers_every_phase_with_four_drills():
    assert set(DRILLS) == {"checkpoint-restore", "replication-verification", "failover-game-day",
                           "detection-alerting"}
    assert PHASES["local"] == tuple(f"local.{p}" for p in LOCAL_PHASES)
    assert PHASES["site"] == tuple(f"site.{p}" for p in SITE_PHASES)
    for phase in PHASES["local"] + PHASES["site"]:
        owner = phase_owner(phase)
        assert phase in owner.measures
        assert owner.cadence == min(d.cadence for d in DRILLS.values() if phase in d.measures)
    for drill in DRILLS.values():
        assert drill.cadence > 0 and drill.measures and drill.source


def test_drill_costs_by_hand():
    s = Scenario().with_changes({"training.gpus": 4_000})
    p = plan(s)
    costs = drill_costs(p)
    G, local = 4_000, p.rto_local_phases
    assert costs["detection-alerting"]["each"] == pytest.approx(G * p.restart_overhead / 3600)
    assert costs["checkpoint-restore"]["each"] == pytest.approx(
        G * (local["reschedule"] + local["launch"] + local["load"] + local["validation"]) / 3600)
    assert costs["failover-game-day"]["each"] == pytest.approx(G * p.rto_site / 3600)
    assert costs["replication-verification"]["total"] == 0
    assert costs["failover-game-day"]["per_run"] == math.ceil(p.time_to_train / (30 * day))   # 90 d -> 3
    assert costs["detection-alerting"]["total"] == pytest.approx(
        costs["detection-alerting"]["each"] * math.ceil(p.time_to_train / week))
    with pytest.raises(TypeError, match="plan must be a Plan"):
        drill_costs(s)


def test_example_csv_is_labelled_illustrative_and_complete():
    assert EXAMPLE == shipped_file("drills_example.csv") and EXAMPLE.is_file()  # the shipped file, public
    text = EXAMPLE.read_text()
    assert "ILLUSTRATIVE" in text.splitlines()[0]
    records = read_drill_records(EXAMPLE)
    phases = {r.phase for r in records}
    assert set(PHASES["local"] + PHASES["site"]) <= phases
    assert {r.drill for r in records} == set(DRILLS)
    last = max(r.date for r in records)
    for scope in ("local", "site"):
        promise = promised_rto(records, 0.9, scope=scope, as_of=last)
        assert promise.valid


@pytest.mark.parametrize("line, message", [
    ("2025-01-06,detection-alerting,local.detection,abc,pass",
     r"drills.csv row 4, column seconds: 'abc' is not a number >= 0"),
    ("2025-01-06,detection-alerting,local.detection,-5,pass",
     r"drills.csv row 4, column seconds: '-5' is not a number >= 0"),
    ("2025-01-06,detection-alerting,local.detection,inf,pass", r"row 4, column seconds: 'inf'"),
    ("2025-13-06,detection-alerting,local.detection,5,pass",
     r"drills.csv row 4, column date: '2025-13-06' is not a date YYYY-MM-DD"),
    ("2025-01-06,chaos-monkey,local.detection,5,pass", r"row 4, column drill: 'chaos-monkey' is not a drill"),
    ("2025-01-06,detection-alerting,site.readiness,5,pass",
     r"row 4, column phase: 'site.readiness' is not measured by detection-alerting"),
    ("2025-01-06,detection-alerting,local.detection,5,ok", r"row 4, column outcome: 'ok' is not one of pass, fail"),
    ("2025-01-06,detection-alerting,local.detection,5", r"drills.csv row 4: has 4 values, expected 5"),
    ("2025-01-06,detection-alerting,local.detection,5,pass,late",
     r"drills.csv row 4: has more than 5 values, expected 5 \(date,drill,phase,seconds,outcome\)$"),
    ('2025-01-06,"detection-alerting,local.detection,5,pass', r'drills.csv row 4: cannot read as CSV: a quote \(\"\)'),
    ('2025-01-06,detection-alerting,local.detection,"1,5",pass', r"row 4, column seconds: '1,5' is not a number"),
    ("2025-01-06,detection-alerting,local.detection,nan,pass", r"row 4, column seconds: 'nan' is not a number"),
    ("2025-01-06,detection-alerting,local.detection,,pass", r"row 4, column seconds: '' is not a number"),
])
def test_bad_values_name_row_and_column(line, message):
    # row 1 is a comment, row 2 the header, row 3 a good record, row 4 the bad one
    text = "# comment\n" + HEADER + "2025-01-06,checkpoint-restore,local.load,3,pass\n" + line + "\n"
    with pytest.raises(ValueError, match=message):
        parse_drill_records(text)


def test_every_bad_value_is_reported_and_header_checked():
    text = HEADER + "x,nope,local.load,-1,maybe\n"
    with pytest.raises(ValueError, match="mine.csv row 2, column date") as err:
        parse_drill_records(text, name="mine.csv")
    lines = str(err.value).splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "mine.csv row 2, column date", "mine.csv row 2, column drill",
        "mine.csv row 2, column seconds", "mine.csv row 2, column outcome"]
    with pytest.raises(ValueError, match="drills.csv row 1: header is"):
        parse_drill_records("day,drill,phase,seconds,outcome\n")


GOOD = "2025-01-06,detection-alerting,local.detection,170,pass\n"


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_line_ends_quotes_comments_and_spaces_keep_spreadsheet_rows(ending):
    text = ('# a comment, with "one quote\n' + HEADER + "\n"
            + '"2025-01-06","detection-alerting", local.detection ,"170",pass\n'
            + "   # an indented comment\n" + "2025-01-07,checkpoint-restore,local.load,1.5e2,fail\n")
    records = parse_drill_records(text.replace("\n", ending))
    assert [(r.row, r.date, r.drill, r.phase, r.seconds, r.outcome) for r in records] == [
        (4, DAY0, "detection-alerting", "local.detection", 170.0, "pass"),
        (6, dt.date(2025, 1, 7), "checkpoint-restore", "local.load", 150.0, "fail")]


def test_errors_are_listed_in_row_order_then_counted():
    text = HEADER + "a,b\n" + "x,nope,local.load,-1,maybe\n" + GOOD + "1,2,3,4,5,6\n"
    with pytest.raises(ValueError, match="^drills.csv row 2: has 2 values, expected 5") as err:
        parse_drill_records(text)
    assert [line.split(":")[0] for line in str(err.value).splitlines()] == [
        "drills.csv row 2", "drills.csv row 3, column date", "drills.csv row 3, column drill",
        "drills.csv row 3, column seconds", "drills.csv row 3, column outcome", "drills.csv row 5"]
    with pytest.raises(ValueError, match=r"drills.csv row 2: has 2 values.*\n.*row 3: has 2 values") as err:
        parse_drill_records(HEADER + "a,b\n" * 25 + GOOD)
    lines = str(err.value).splitlines()
    assert len(lines) == 11 and lines[-1] == "drills.csv: 15 more errors not shown (25 errors in 25 rows)"


def test_a_quote_opened_mid_value_names_the_rows_it_runs_over():
    # pandas reads x"y as a value and "z... as a quoted one that never closes; rows 3 and 4 are inside it
    with pytest.raises(ValueError, match=r'^drills.csv row 2: cannot read as CSV: a quoted value runs on to row 4$'):
        parse_drill_records(HEADER + 'x"y,"z,a,b,c\n' + GOOD * 2)


def test_promised_rto_matches_exact_convolution():
    # detection in {10, 20, 30}, launch in {1, 2, 4, 8}, the rest fixed at 5: 12 equally likely sums.
    records = _local(detection=(10, 20, 30), launch=(1, 2, 4, 8), reschedule=(5,), load=(5,), validation=(5,))
    sums = sorted(a + b + 15 for a, b in itertools.product((10, 20, 30), (1, 2, 4, 8)))
    exact = sums[math.ceil(0.9 * len(sums)) - 1]        # inverted-CDF 90th percentile: the 11th of 12
    promise = promised_rto(records, 0.9, scope="local", as_of=DAY0)
    assert promise.promised == exact
    assert promise.best_case_sum == 10 + 1 + 15
    assert promise.mean_sum == pytest.approx(20 + 15 / 4 + 15)
    assert promise.worst_case_sum == 30 + 8 + 15
    # the Monte Carlo distribution of the sum matches the exact one
    for value in set(sums):
        assert np.mean(promise.samples <= value) == pytest.approx(
            sum(s <= value for s in sums) / 12, abs=0.01)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 1e5), min_size=1, max_size=8), st.lists(st.floats(0, 1e5), min_size=1, max_size=8),
       st.floats(0.01, 0.99))
def test_promise_lies_between_best_and_worst(detection, launch, confidence):
    promise = promised_rto(_local(detection=detection, launch=launch), confidence, scope="local",
                           trials=1_000, as_of=DAY0)
    assert promise.best_case_sum <= promise.promised <= promise.worst_case_sum
    assert promise.best_case_sum <= promise.mean_sum <= promise.worst_case_sum


def test_staleness_expires_the_promise_and_names_the_drill():
    records = _local() + [DrillRecord(DAY0 - dt.timedelta(days=10), "checkpoint-restore", "local.load", 9.0, "pass")]
    fresh = promised_rto(records, 0.9, scope="local", as_of=DAY0 + dt.timedelta(days=7))
    assert fresh.valid and fresh.expires == DAY0 + dt.timedelta(days=7)     # age == cadence: still fresh
    stale = promised_rto(records, 0.9, scope="local", as_of=DAY0 + dt.timedelta(days=8))
    assert not stale.valid
    assert stale.stale == PHASES["local"]
    assert stale.due == ("detection-alerting", "checkpoint-restore")
    assert stale.message() == promise_sentence(stale)
    assert "expired" in stale.message() and "run detection and alerting and checkpoint restore" in stale.message()
    assert stale.phases["local.load"].last == DAY0 and stale.phases["local.load"].count == 2


def test_only_the_stale_phase_is_named():
    records = _local(when=DAY0) + [DrillRecord(DAY0 + dt.timedelta(days=6), "detection-alerting",
                                               "local.detection", 120.0, "pass")]
    promise = promised_rto(records, 0.9, scope="local", as_of=DAY0 + dt.timedelta(days=9))
    assert promise.stale == ("local.reschedule", "local.launch", "local.load", "local.validation")
    assert promise.due == ("checkpoint-restore",)


PATH_MOVED = r"drmath\.drills\.promised_rto\(path\) moved to drmath\.io\.drills\.read_drill_records"


def test_promised_rto_still_reads_a_csv_path_with_a_warning(tmp_path):
    # deprecated (issue 33): the path goes to the reader drmath.io registered, and gives what reading it first gives
    path = tmp_path / "drills.csv"
    path.write_text(HEADER + "".join(f"2025-01-06,{r.drill},{r.phase},{r.seconds},pass\n" for r in _local()))
    with pytest.warns(FutureWarning, match=PATH_MOVED):
        promise = promised_rto(str(path), 0.5, scope="local", as_of=DAY0)
    assert promise.promised == pytest.approx(340.0)
    assert promise.phases == promised_rto(read_drill_records(path), 0.5, scope="local", as_of=DAY0).phases
    bad = tmp_path / "bad.csv"
    bad.write_text(HEADER + "2025-01-06,checkpoint-restore,local.load,abc,pass\n")
    with pytest.warns(FutureWarning, match=PATH_MOVED), pytest.raises(ValueError, match="bad.csv row 2, column sec"):
        promised_rto(bad)


def test_the_readers_old_names_still_work_with_a_warning():
    assert set(drills.MOVED) == set(drill_log.__all__)  # every name of the reader, and no other
    for name in drills.MOVED:
        with pytest.warns(FutureWarning, match=rf"drmath\.drills\.{name} moved to drmath\.io\.drills\.{name};"):
            assert getattr(drills, name) is getattr(drill_log, name)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        drills.nope  # noqa: B018


def test_the_core_reads_no_file_before_drmath_io_is_imported(tmp_path):
    # drmath.drills imports nothing of drmath.io: a path, before anything imported it, says where the reader is
    code = ("import sys, drmath.drills\nassert not [m for m in sys.modules if m.startswith('drmath.io')]\n"
            f"drmath.drills.promised_rto({str(tmp_path / 'drills.csv')!r})")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1 and out.stderr.strip().splitlines()[-1] == (
        "RuntimeError: drmath.drills.promised_rto(path) moved to drmath.io.drills.read_drill_records: call that (the "
        "old spelling works, until 0.3, once drmath.io.drills is imported)")


@pytest.mark.parametrize("kwargs, message", [
    ({"confidence": 1.0}, r"confidence must be a number in \(0, 1\), got 1.0"),
    ({"confidence": 0}, r"confidence must be a number in \(0, 1\), got 0"),
    ({"scope": "region"}, "scope must be one of local, site, got 'region'"),
    ({"trials": 10}, r"trials must be a whole number in \[100, 10000000\], got 10"),
])
def test_bad_arguments_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        promised_rto(_local(), **{"scope": "local", "as_of": DAY0, **kwargs})


def test_missing_phase_names_the_drill_to_run():
    with pytest.raises(ValueError, match="no drill for phase site.detection: run the detection-alerting drill"):
        promised_rto(_local(), scope="site", as_of=DAY0)
    with pytest.raises(ValueError, match="phase must be one of"):
        phase_owner("site.coffee")


def test_drill_schedule_holds_each_drill_once_per_cadence_over_the_run():
    p = plan(Scenario().with_changes({"training.window": 40 * day}))
    start = dt.date(2025, 5, 26)
    schedule = drill_schedule(p, start)
    costs = drill_costs(p)
    end = start + dt.timedelta(seconds=p.time_to_train)
    assert list(schedule.index) == list(DRILLS)
    for name, row in schedule.iterrows():
        drill = DRILLS[name]
        assert row["held"] == costs[name]["per_run"] == len(row["dates"]) == math.ceil(40 * day / drill.cadence)
        assert row["first"] == start and row["last"] == row["dates"][-1] < end
        gaps = {(b - a).days for a, b in itertools.pairwise(row["dates"])}
        assert gaps <= {drill.cadence / day}
        assert row["gpu_hours_each"] == costs[name]["each"] and row["gpu_hours_total"] == costs[name]["total"]
        assert row["label"] == drill.label and row["measures"].split(", ") == list(drill.measures)
    assert schedule.loc["failover-game-day", "dates"] == (start, start + dt.timedelta(days=30))
    noon = drill_schedule(p, dt.datetime(2025, 5, 26, 12, 0))
    assert (noon["first"] == start).all() and noon["dates"].equals(schedule["dates"])


def test_drill_schedule_refuses_bad_arguments():
    with pytest.raises(TypeError, match="start must be a datetime.date, got str '2025-05-26'"):
        drill_schedule(plan(), "2025-05-26")
    with pytest.raises(TypeError, match="plan must be a Plan"):
        drill_schedule(Scenario(), dt.date(2025, 5, 26))


def test_promise_sentence_states_the_promise_or_that_it_expired():
    records = _local(detection=(100.0, 200.0))
    valid = promised_rto(records, 0.9, scope="local", as_of=DAY0)
    assert promise_sentence(valid) == (
        f"The local RTO we can promise is {format_quantity(valid.promised, 'duration')}, the 90th percentile of "
        f"the drilled recoveries, valid until {(DAY0 + dt.timedelta(days=7)).isoformat()}.")
    fresh_detection = records + [DrillRecord(DAY0 + dt.timedelta(days=6), "detection-alerting", "local.detection",
                                             150.0, "pass")]
    one = promised_rto(fresh_detection, 0.9, scope="local", as_of=DAY0 + dt.timedelta(days=8))
    assert one.stale == ("local.reschedule", "local.launch", "local.load", "local.validation")
    text = promise_sentence(one)
    assert text.startswith(f"The local RTO promise of {format_quantity(one.promised, 'duration')} (the 90th "
                           f"percentile of the drilled recoveries) expired after {one.expires.isoformat()}: as of "
                           f"{one.as_of.isoformat()} its reschedule, launch, load and validation phases were ")
    assert text.endswith("run checkpoint restore before promising it again.")
    stale_detection = promised_rto(_local(when=DAY0) + [
        DrillRecord(DAY0 + dt.timedelta(days=5), "checkpoint-restore", p, 60.0, "pass")
        for p in ("local.reschedule", "local.launch", "local.load", "local.validation")],
        0.995, scope="local", as_of=DAY0 + dt.timedelta(days=8))
    assert stale_detection.stale == ("local.detection",)
    assert ("the 99.5th percentile" in promise_sentence(stale_detection)
            and "its detection phase was last drilled longer ago than its drills' cadence; run detection and "
                "alerting before" in promise_sentence(stale_detection))
    with pytest.raises(TypeError, match="promise must be an RTOPromise"):
        promise_sentence(valid.promised)
