"""Measured goodput (issue 36, point 4): a run's event log in, goodput and badput out.

Hand-built logs whose every part is added up here from the log's own times; logs the simulator writes, whose
goodput the simulation knows; each kind of bad log, refused in one line naming its line; and the CLI.
"""

import datetime as dt
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drmath import Scenario, plan
from drmath.cli import main
from drmath.io import runs
from drmath.measure import EVENTS, PARTS, implied_failure_rate, measure_events, measured_goodput
from drmath.simulate import simulate_run_log

NAN = math.nan


def _log(records, start=None):
    """JSONL text of (time, event[, step[, duration]]) tuples; with ``start``, times as ISO 8601 from it."""
    lines = []
    for time, event, *rest in records:
        record = {"time": (start + dt.timedelta(seconds=time)).isoformat() if start else time, "event": event}
        if rest and rest[0] is not None:
            record["step"] = rest[0]
        if len(rest) > 1:
            record["duration"] = rest[1]
        lines.append(json.dumps(record))
    return "\n".join(lines) + "\n"


def _measure(records, tmp_path, start=None):
    path = tmp_path / "run.jsonl"
    path.write_text(_log(records, start))
    return runs.measure_run_log(path)


def _adds_up(m):
    assert math.fsum(m.parts.values()) == m.wall_time
    assert math.fsum(m.shares.values()) == pytest.approx(1.0, abs=1e-15)
    assert m.goodput + m.badput == pytest.approx(1.0, abs=1e-15)


# --------------------------------------------------------------------------- hand-built logs


def test_a_run_without_failure_is_its_steps_its_warm_up_and_its_stalls(tmp_path):
    # start at 0; the first step (warm-up) ends at 130; then a step every 100 s; a save after step 3 blocks 20 s
    records = [(0, "job_start"), (130, "step", 1), (230, "step", 2), (330, "step", 3),
               (350, "checkpoint_saved", 3), (450, "step", 4), (550, "step", 5), (550, "job_end")]
    m = _measure(records, tmp_path)
    productive = (230 - 130) + (330 - 230) + (450 - 350) + (550 - 450)  # steps 2 to 5
    assert m.parts == {"productive": productive, "rework": 0, "downtime": 0, "restart": 130,
                       "checkpoint_stall": 350 - 330}
    assert m.wall_time == 550 and m.goodput == 400 / 550
    assert (m.failures, m.jobs, m.loads, m.checkpoints, m.steps) == (0, 1, 0, 1, 5)
    assert m.mtbf == math.inf and m.failure_rate() == 0.0
    _adds_up(m)


def test_one_failure_gives_rework_downtime_and_a_restart_with_its_load(tmp_path):
    records = [(0, "job_start"), (100, "step", 1), (200, "step", 2), (210, "checkpoint_saved", 2),
               (310, "step", 3), (410, "step", 4), (460, "failure"),          # step 5 cut short after 50 s
               (1060, "job_start"),                                           # 600 s down
               (1300, "checkpoint_loaded", 2),                                # 240 s to load step 2
               (1420, "step", 3),                                             # warm-up: with the restart
               (1520, "step", 4),                                             # done before: rework
               (1620, "step", 5), (1720, "step", 6), (1720, "job_end")]
    m = _measure(records, tmp_path)
    expected = {"productive": (200 - 100) + (310 - 210) + (410 - 310) + (1620 - 1520) + (1720 - 1620),
                "rework": (460 - 410) + (1520 - 1420),
                "downtime": 1060 - 460,
                "restart": 100 + (1300 - 1060) + (1420 - 1300),
                "checkpoint_stall": 10}
    assert m.parts == expected
    assert m.goodput == 500 / 1720
    assert m.shares["downtime"] == 600 / 1720 and m.shares["rework"] == 150 / 1720
    assert (m.failures, m.jobs, m.loads, m.steps) == (1, 2, 1, 6)
    assert m.exposure == 1720 - 600 and m.mtbf == 1120
    assert m.failure_rate(gpus=8) == 1 / (8 * 1120)
    _adds_up(m)


def test_a_stall_with_its_duration_leaves_the_rest_of_its_stretch_to_the_next_step(tmp_path):
    # the save's record comes 30 s after step 1, but it blocked 12 s: 18 s go with step 2's stretch
    records = [(0, "job_start"), (50, "step", 1), (80, "checkpoint_saved", 1, 12.0), (150, "step", 2),
               (160, "checkpoint_saved", 2), (260, "step", 3), (290, "checkpoint_saved", 3, 5.5), (290, "job_end")]
    m = _measure(records, tmp_path)
    assert m.checkpoint_stall == 12.0 + 10 + 5.5
    assert m.productive == (150 - 80 + 18) + (260 - 160)
    assert m.restart == 50
    # the last save's 24.5 s beyond its duration go with the next stretch, the job's end: downtime
    assert m.downtime == 290 - 260 - 5.5
    assert m.mean_stall == pytest.approx(27.5 / 3)
    _adds_up(m)
    # with no record after it, they stay with the stall
    m = _measure(records[:-1], tmp_path)
    assert m.checkpoint_stall == 12.0 + 10 + 30 and m.downtime == 0
    _adds_up(m)


def test_two_failures_one_in_a_restart(tmp_path):
    t0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
    records = [(0, "job_start"), (60, "step", 1), (120, "step", 2), (125, "checkpoint_saved", 2),
               (185, "step", 3), (200, "failure"),
               (500, "job_start"), (650, "failure"),                          # fails again while it starts
               (700, "job_start"), (900, "checkpoint_loaded", 2), (960, "step", 3), (1020, "step", 4),
               (1080, "step", 5), (1090, "job_end")]
    m = _measure(records, tmp_path, start=t0)
    assert m.parts == {"productive": (120 - 60) + (185 - 125) + (1020 - 960) + (1080 - 1020),
                       "rework": 200 - 185,
                       "downtime": (500 - 200) + (700 - 650) + (1090 - 1080),
                       "restart": 60 + (650 - 500) + (900 - 700) + (960 - 900),
                       "checkpoint_stall": 5}
    assert m.failures == 2 and m.jobs == 3 and m.goodput == 240 / 1090
    assert m.exposure == 1090 - 360
    _adds_up(m)


def test_a_log_of_every_kth_step_splits_a_stretch_by_its_repeated_and_new_steps(tmp_path):
    records = [(0, "job_start"), (100, "step", 10), (1100, "step", 20), (1200, "failure"),
               (1300, "job_start"), (1400, "checkpoint_loaded", 10), (1500, "step", 12),
               (2500, "step", 22), (2500, "job_end")]  # steps 13-22: 13-20 done before, 21-22 new
    m = _measure(records, tmp_path)
    assert m.rework == 100 + 1000 * 8 / 10 and m.productive == 1000 + 1000 * 2 / 10
    assert m.steps == 22
    _adds_up(m)


def test_measured_goodput_and_the_implied_rate_are_the_formulas():
    assert measured_goodput(3.0, 4.0) == 0.75
    assert implied_failure_rate(419, 54 * 86400.0, 16384) == pytest.approx(419 / (54 * 86400 * 16384))
    with pytest.raises(ValueError, match="wall_time"):
        measured_goodput(1.0, 0.0)


# --------------------------------------------------------------------------- logs the simulator writes


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_measure_of_a_simulated_log_is_the_goodput_the_simulation_knows(seed):
    s = Scenario().with_changes({"training.window": 2 * 86400.0, "failures.gpu_failure_rate": 2e-8})
    log = simulate_run_log(s, seed=seed)
    m = measure_events(log["time"], log["event"], log["step"], log["duration"])
    assert m.failures == log["failures"] >= 3
    assert m.wall_time == pytest.approx(log["completion_time"], rel=1e-12)
    assert m.goodput == pytest.approx(log["goodput"], rel=0.005)
    assert math.fsum(m.parts.values()) == pytest.approx(m.wall_time, rel=1e-12)
    assert m.downtime == 0 and m.rework > 0 and m.checkpoint_stall > 0


def test_a_simulated_log_round_trips_through_jsonl(tmp_path):
    s = Scenario().with_changes({"training.window": 12 * 3600.0, "failures.gpu_failure_rate": 2e-8})
    log = simulate_run_log(s, seed=5)
    direct = measure_events(log["time"], log["event"], log["step"], log["duration"])
    for start in (None, dt.datetime(2026, 3, 1, tzinfo=dt.UTC)):
        path = runs.write_run_log(tmp_path / "run.jsonl", log, start)
        m = runs.measure_run_log(path)
        for part in PARTS:
            assert getattr(m, part) == pytest.approx(getattr(direct, part), abs=1e-3)
        assert m.goodput == pytest.approx(log["goodput"], rel=0.005)


def test_the_example_log_is_small_and_measures_as_the_simulation_wrote_it():
    path = runs.example_run_log()
    assert path.stat().st_size < 200_000
    m = runs.measure_run_log(path)
    assert m.failures == 7 and m.goodput == pytest.approx(0.8186, rel=0.005)  # make_run_example.py's line


# --------------------------------------------------------------------------- bad logs: one line naming the line

GOOD = '{"time": 0, "event": "job_start"}\n{"time": 10, "event": "step", "step": 1}\n'

BAD = [
    (GOOD + '{"time": 20, "event": "step", "step": 2\n', r"line 3: not valid JSON"),
    (GOOD + '[1, 2]\n', r"line 3: a record is a JSON object"),
    (GOOD + '{"event": "step", "step": 2}\n', r"line 3: no 'time' field"),
    (GOOD + '{"time": 20, "step": 2}\n', r"line 3: no 'event' field"),
    (GOOD + '{"time": 20, "event": "step"}\n', r"line 3: no 'step' field"),
    (GOOD + '{"time": 20, "event": "checkpoint_loaded"}\n', r"line 3: no 'step' field"),
    (GOOD + '{"time": 20, "event": "preempted"}\n', r"line 3: unknown event 'preempted': must be one of job_start"),
    (GOOD + '{"time": 5, "event": "step", "step": 2}\n', r"line 3: time goes back: 5 s is before 10 s of line 2"),
    (GOOD + '{"time": 20, "event": "step", "step": 1}\n', r"line 3: step 1 repeats step 1 \(line 2\) with no "
     r"'checkpoint_loaded'"),
    (GOOD + '{"time": 20, "event": "step", "step": 2}\n{"time": 30, "event": "step", "step": 1}\n',
     r"line 4: step 1 goes back from step 2 \(line 3\) with no 'checkpoint_loaded' before it"),
    (GOOD + '{"time": 20, "event": "failure"}\n{"time": 30, "event": "job_start"}\n'
     '{"time": 40, "event": "step", "step": 1}\n', r"line 5: step 1 repeats step 1 \(line 2\)"),
    (GOOD + '{"time": "2026-03-01T00:00:20Z", "event": "step", "step": 2}\n',
     r"line 3: time in ISO 8601, but line 1 gives seconds: one style a log"),
    (GOOD + '{"time": "yesterday", "event": "step", "step": 2}\n', r"line 3: time 'yesterday' is neither ISO 8601"),
    (GOOD + '{"time": 20, "event": "step", "step": -2}\n', r"line 3: step -2 must be a whole number >= 0"),
    (GOOD + '{"time": 20, "event": "step", "step": 2.5}\n', r"line 3: step 2.5 must be a whole number"),
    (GOOD + '{"time": 20, "event": "step", "step": true}\n', r"line 3: step True must be a whole number"),
    (GOOD + '{"time": 20, "event": "checkpoint_saved", "duration": 15}\n', r"line 3: 'checkpoint_saved' blocked for "
     r"duration 15 s, longer than the 10 s"),
    (GOOD + '{"time": 20, "event": "step", "step": 2, "duration": 1}\n', r"line 3: 'duration' belongs to"),
    (GOOD + '{"time": 20, "event": "checkpoint_loaded", "step": 9}\n', r"line 3: 'checkpoint_loaded' of step 9, past "
     r"the newest step finished, 1 \(line 2\)"),
    (GOOD + '{"time": 20, "event": "failure"}\n{"time": 30, "event": "step", "step": 2}\n',
     r"line 4: 'step' while no job runs \(the job stopped at line 3\); a 'job_start' must come first"),
    (GOOD + '{"time": 20, "event": "job_start"}\n', r"line 3: 'job_start' while the job started at line 1 still runs"),
    ('{"time": 0, "event": "step", "step": 1}\n{"time": 1, "event": "job_start"}\n',
     r"line 1: a run log begins with 'job_start', got 'step'"),
    ('\n\n{"time": 0, "event": "job_start"}\n', r"needs at least two records"),
    ('{"time": 3, "event": "job_start"}\n{"time": 3, "event": "job_end"}\n', r"spans no time"),
    ('\n \n', r"no records"),
    ('{"time": 0, "event": "job_start", "pad": "' + "x" * 5000 + '"}\n', r"line 1: a line of 5,0\d\d characters"),
    ("[" * 2000 + "]" * 2000 + "\n", r"line 1: not valid JSON \(nested too deep\)"),
    ('{"time": 0, "event": "job_start"}\n{"time": NaN, "event": "job_end"}\n', r"line 2: time nan is neither"),
    ('{"time": 0, "event": "job_start"}\n{"time": 1' + "0" * 400 + ', "event": "job_end"}\n',
     r"line 2: time 1000.* is neither ISO 8601 text nor a number of seconds"),
    (GOOD + '{"time": 20, "event": "step", "step": 1' + "0" * 400 + '}\n', r"line 3: step 1000.* must be a whole"),
]


@pytest.mark.parametrize("text, message", BAD, ids=range(len(BAD)))
def test_a_bad_log_gets_one_line_naming_its_line(tmp_path, text, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as caught:
        runs.measure_run_log(path)
    assert "\n" not in str(caught.value) and str(caught.value).startswith("bad.jsonl")


def test_the_cli_refuses_a_bad_log_in_one_line(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text(GOOD + '{"time": 20, "event": "preempted"}\n')
    assert main(["measure", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("drmath: error: bad.jsonl line 3: unknown event 'preempted'")


def test_a_hostile_file_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    path = tmp_path / "many.jsonl"
    path.write_text("\n" * 50)
    monkeypatch.setattr(runs, "MAX_RUN_LINES", 20)
    with pytest.raises(ValueError, match=r"many.jsonl has 50 lines: drmath measure takes at most 20"):
        runs.read_run_log(path)
    monkeypatch.setattr(runs, "MAX_RUN_BYTES", 10)
    with pytest.raises(ValueError, match=r"many.jsonl: cannot read: it is 50 bytes; at most 10 are read"):
        runs.read_run_log(path)
    with pytest.raises(ValueError, match=r"cannot read: it is a directory"):
        runs.read_run_log(tmp_path)


def test_the_core_names_records_when_it_has_no_lines():
    with pytest.raises(ValueError, match=r"record 2: time goes back"):
        measure_events([5.0, 1.0], ["job_start", "job_end"])
    with pytest.raises(ValueError, match=r"record 1: a run log begins with 'job_start', got 'step'"):
        measure_events([0.0, 1.0], ["step", "job_end"], [1, NAN])


# --------------------------------------------------------------------------- the CLI


def _write(tmp_path):
    records = [(0, "job_start"), (100, "step", 1), (200, "step", 2), (210, "checkpoint_saved", 2),
               (310, "step", 3), (410, "step", 4), (460, "failure"), (1060, "job_start"),
               (1300, "checkpoint_loaded", 2), (1420, "step", 3), (1520, "step", 4), (1620, "step", 5),
               (1720, "step", 6), (1720, "job_end")]
    path = tmp_path / "run.jsonl"
    path.write_text(_log(records, dt.datetime(2026, 3, 1)))
    return path


def test_cli_text_gives_each_part_its_share_the_goodput_and_the_failures(tmp_path, capsys):
    assert main(["measure", str(_write(tmp_path)), "--gpus", "8"]) == 0
    out = capsys.readouterr().out
    assert "run.jsonl, 14 records: 2 job starts, 1 failure, 1 checkpoints, 6 new steps" in out
    assert "Productive steps              500.0       0.14   29.07%" in out      # 500 / 1720
    assert "Downtime                      600.0       0.17   34.88%" in out
    assert "Rework                        150.0       0.04    8.72%" in out
    assert "Wall time                   1,720.0       0.48  100.00%" in out
    assert "goodput 29.07% (badput 70.93%)" in out
    assert f"implied failure rate: {1 / (8 * 1120):.3g} /GPU/s on 8 GPUs" in out


@pytest.mark.parametrize("argv, message", [
    (["--scenario", "nope"], "drmath: error: 'nope' is neither a file nor a shipped scenario"),
    (["--gpus", "0"], "drmath: error: --gpus 0 is out of range: must be a whole number in [1, 1e8]"),
])
def test_cli_refuses_a_bad_option_in_one_line(tmp_path, capsys, argv, message):
    assert main(["measure", str(_write(tmp_path)), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_cli_reads_standard_input(tmp_path, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(_write(tmp_path).read_bytes())))
    assert main(["measure", "-"]) == 0
    assert capsys.readouterr().out.startswith("drmath measure: <stdin>, 14 records")


def test_cli_json_is_the_measurement_in_si(tmp_path, capsys):
    assert main(["measure", str(_write(tmp_path)), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["goodput"] == 500 / 1720 and data["wall_time"] == 1720
    assert data["rework"] == 150 and data["shares"]["restart"] == 460 / 1720
    assert data["failures"] == 1 and data["mtbf"] == 1120 and data["failure_rate"] == 1 / 1120
    assert "plan" not in data and "gpu_failure_rate" not in data


def test_cli_with_a_scenario_puts_the_plan_beside_the_measure(tmp_path, capsys):
    path = _write(tmp_path)
    p = plan(Scenario())  # the seed scenario's plan
    assert main(["measure", str(path), "--scenario", "seed", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["plan"]["ettr"] == p.ettr and data["plan"]["mtbf"] == p.mtbf
    assert data["plan"]["gpu_failure_rate"] == p.scenario.failures.gpu_failure_rate
    assert data["plan"]["checkpoint_stall"] == p.checkpoint_stall
    assert data["gpus"] == 8000 and data["gpu_failure_rate"] == 1 / (8000 * 1120)
    assert main(["measure", str(path), "--scenario", "seed"]) == 0
    out = capsys.readouterr().out
    assert "measured beside the plan of seed:" in out
    assert f"goodput (plan: ETTR)                         29.07% {100 * p.ettr:>13.2f}%" in out
    assert f"{1 / (8000 * 1120):.3g} /s" in out and f"{p.scenario.failures.gpu_failure_rate:.3g} /s" in out


def test_cli_measures_the_example_beside_the_seed(capsys):
    assert main(["measure", str(runs.example_run_log()), "--scenario", "seed"]) == 0
    out = capsys.readouterr().out
    assert "goodput 81.82%" in out and "7 failures" in out


def test_the_readme_shows_what_the_command_prints(capsys):
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = readme.split("$ .venv/bin/drmath measure data/run_example.jsonl --scenario seed\n")[1].split("```")[0]
    assert main(["measure", str(runs.example_run_log()), "--scenario", "seed"]) == 0
    assert capsys.readouterr().out == block


def test_the_simulated_log_keeps_its_numpy_dtypes():
    log = simulate_run_log(Scenario().with_changes({"training.window": 3600.0}), seed=1)
    assert log["time"].dtype == np.float64 and np.all(np.diff(log["time"]) >= 0)
    assert log["event"][0] == "job_start" and log["event"][-1] == "job_end"


# --------------------------------------------------------------------------- any text, any valid log

_VALUES = st.one_of(st.integers(-5, 50), st.integers(10**300, 10**400), st.floats(), st.sampled_from(EVENTS),
                    st.text(max_size=12), st.none(), st.booleans(), st.lists(st.integers(), max_size=2),
                    st.sampled_from(["2026-03-01T00:00:00Z", "2026-03-01T00:01:00+02:00", "2026-03-01"]))
_RECORDS = st.builds(json.dumps, st.dictionaries(st.sampled_from(["time", "event", "step", "duration", "x"]),
                                                 _VALUES, max_size=5))


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_RECORDS, st.text(max_size=60)), max_size=10))
def test_any_text_measures_or_is_refused_in_one_line(lines):
    try:
        events = runs.parse_run_log("\n".join(lines))
        m = measure_events(events["time"], events["event"], events["step"], events["duration"], events["line"])
    except ValueError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 1000
    else:
        assert math.fsum(m.parts.values()) == pytest.approx(m.wall_time, rel=1e-9)
        assert min(m.parts.values()) >= 0


def _random_log(rng, n):
    """A valid log of about ``n`` records: jobs that step, save, fail and load at random times."""
    t, records, high = 0.0, [], 0
    while len(records) < n:
        records.append((t, "job_start"))
        t += rng.uniform(0, 100)
        position = high
        if high and rng.random() < 0.9:
            position = int(rng.integers(0, high + 1))
            records.append((t, "checkpoint_loaded", position))
        for _ in range(int(rng.integers(0, 12))):
            t += rng.uniform(0, 60)
            if rng.random() < 0.2:  # a save that blocked at most its stretch, after the step before
                blocked = float(rng.uniform(0, 5))
                t += blocked
                records.append((t, "checkpoint_saved", position, blocked))
                t += rng.uniform(0, 60)
            position += int(rng.integers(1, 4))
            high = max(high, position)
            records.append((t, "step", position))
        t += rng.uniform(0, 60)
        records.append((t, "failure" if rng.random() < 0.7 else "job_end"))
        t += rng.uniform(0, 300)
    return records


@pytest.mark.parametrize("seed", range(20))
def test_the_parts_of_any_valid_log_add_up_and_none_is_negative(seed):
    records = _random_log(np.random.default_rng(seed), 60)
    times = [r[0] for r in records]
    events = [r[1] for r in records]
    steps = [r[2] if len(r) > 2 else NAN for r in records]
    durations = [r[3] if len(r) > 3 else NAN for r in records]
    m = measure_events(times, events, steps, durations)
    assert math.fsum(m.parts.values()) == pytest.approx(times[-1] - times[0], rel=1e-12)
    assert min(m.parts.values()) >= 0 and 0 <= m.goodput <= 1
    assert m.failures == events.count("failure") and m.jobs == events.count("job_start")
    assert m.steps == max(s for s in steps if not math.isnan(s))
