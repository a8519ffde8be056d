r"""Run-event logs: a JSONL file of a run's events in, its measured goodput out (:mod:`drmath.measure`).

A run log is a text file of one JSON object a line::

    {"time": "2026-03-01T00:00:00Z", "event": "job_start"}
    {"time": "2026-03-01T00:02:10Z", "event": "step", "step": 1}
    {"time": "2026-03-01T00:40:00Z", "event": "checkpoint_saved", "step": 170, "duration": 1.2}

- ``time``: ISO 8601 text (a time without a zone is UTC) or a number of seconds from any origin; one style
  in a file, since seconds and dates have no common origin.
- ``event``: one of :data:`drmath.measure.EVENTS`.
- ``step``: a whole number; ``step`` and ``checkpoint_loaded`` records need it.
- ``duration`` (``checkpoint_saved`` only, optional): seconds the save blocked the training loop.

Other keys are ignored; blank lines are skipped. :func:`drmath.measure.measure_events` says how each stretch of
time is read. Bad input is refused with one line naming the file and the line: invalid JSON, a record that is not
an object, a missing or ill-typed field, an unknown event, mixed time styles, and what the measure refuses (a time
going back, a step going back with no ``checkpoint_loaded`` before it, …).

What a hostile file can cost is bounded before it is parsed: at most :data:`MAX_RUN_BYTES` read
(:func:`drmath.io.files.read_input`, the guard every input goes through), :data:`MAX_RUN_LINES` lines (counted
as :func:`drmath.io.incidents.count_lines` counts them) and :data:`MAX_RECORD_CHARS` a line, so no line can
nest deep enough to trouble the JSON parser: the largest file (a million records) is read and measured in
some 4 s. Well-formed logs are parsed in one piece; a log with a problem is read again line by line, to name it.

    >>> events = parse_run_log('{"time": 0, "event": "job_start"}\n{"time": 60, "event": "step", "step": 1}\n')
    >>> events["time"].tolist(), events["line"]
    ([0.0, 60.0], [1, 2])
"""

import datetime as dt
import json
import math
from pathlib import Path

import numpy as np

from .._validate import short_repr, visible
from ..measure import EVENTS, STEP_REQUIRED, measure_events
from . import files
from .incidents import count_lines

__all__ = ["MAX_RUN_BYTES", "MAX_RUN_LINES", "MAX_RECORD_CHARS", "parse_run_log", "read_run_log", "measure_run_log",
           "measure_run_bytes",
           "to_jsonl", "write_run_log", "example_run_log"]

MAX_RUN_BYTES = 64 * 2**20
"""Largest run log read [B] (64 MiB: a million records of some 60 bytes)."""

MAX_RUN_LINES = 1_000_000
"""Most lines of a run log [1]: a 54-day run logging every 10 s step has about 470,000."""

MAX_RECORD_CHARS = 4096
"""Longest line [1]; a record is some 80 characters."""

_MAX_TIME_CHARS = 64


def _number(value):
    """Whether ``value`` is a JSON number that is a finite float (an integer of 400 digits is not)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _iso(text, where):
    if len(text) > _MAX_TIME_CHARS:
        raise ValueError(f"{where}: time of {len(text)} characters is not ISO 8601")
    try:
        stamp = dt.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{where}: time {short_repr(visible(text), 80)} is neither ISO 8601 nor a number of "
                         "seconds") from None
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=dt.UTC)


def _record(line, where):
    """One line's (time, event, step, duration), each checked; time as given (number or datetime)."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{where}: not valid JSON ({getattr(exc, 'msg', 'nested too deep')})") from None
    if not isinstance(record, dict):
        raise ValueError(f"{where}: a record is a JSON object {{\"time\": ..., \"event\": ...}}, got "
                         f"{type(record).__name__ if not isinstance(record, list) else 'an array'}")
    for key in ("time", "event"):
        if key not in record:
            raise ValueError(f"{where}: no {key!r} field")
    event = record["event"]
    if event not in EVENTS:
        raise ValueError(f"{where}: unknown event {short_repr(visible(str(event)), 60)}: must be one of "
                         f"{', '.join(EVENTS)}")
    time = record["time"]
    if isinstance(time, str):
        time = _iso(time, where)
    elif not _number(time):
        raise ValueError(f"{where}: time {short_repr(time, 60)} is neither ISO 8601 text nor a number of seconds")
    step = record.get("step")
    if step is None:
        if event in ("step", "checkpoint_loaded"):
            raise ValueError(f"{where}: no 'step' field: a {event!r} record needs its step number")
        step = math.nan
    elif not _number(step) or step < 0 or step != int(step) or step > 2**53:
        raise ValueError(f"{where}: step {short_repr(step, 60)} must be a whole number >= 0")
    duration = record.get("duration")
    if duration is None:
        duration = math.nan
    elif event != "checkpoint_saved":
        raise ValueError(f"{where}: 'duration' belongs to 'checkpoint_saved' records, not {event!r}")
    elif not _number(duration) or duration < 0:
        raise ValueError(f"{where}: duration {short_repr(duration, 60)} must be a number of seconds >= 0")
    return time, event, float(step), float(duration)


def _by_line(kept, name):
    """The columns of the records, each line parsed and checked on its own: the first problem names its line."""
    times, events, steps, durations = [], [], [], []
    style = None
    for number, line in kept:
        where = f"{name} line {number:,}"
        time, event, step, duration = _record(line, where)
        kind = "ISO 8601" if isinstance(time, dt.datetime) else "seconds"
        if style is None:
            style = (kind, number)
        elif kind != style[0]:
            raise ValueError(f"{where}: time in {kind}, but line {style[1]:,} gives {style[0]}: one style a log")
        times.append(time)
        events.append(event)
        steps.append(step)
        durations.append(duration)
    return times, events, steps, durations, style[0]


def _columns(lines):
    """The columns of well-formed records in one JSON parse (some 5 times faster than line by line); None when
    any record is not plainly well formed, so :func:`_by_line` finds and names the problem."""
    try:
        records = json.loads("[" + ",".join(lines) + "]")
        if len(records) != len(lines) or any(type(record) is not dict for record in records):
            return None
        events, times = [r["event"] for r in records], [r["time"] for r in records]
        steps, durations = [r.get("step") for r in records], [r.get("duration") for r in records]
        if (not set(map(type, events)) <= {str} or not set(events) <= set(EVENTS)
                or not set(map(type, steps)) <= {int, type(None)}
                or not set(map(type, durations)) <= {int, float, type(None)}):
            return None
        kinds = set(map(type, times))
        if kinds <= {int, float}:
            style = "seconds"
            if not np.isfinite(np.array(times, dtype=float)).all():
                return None
        elif kinds == {str} and max(map(len, times)) <= _MAX_TIME_CHARS:
            style = "ISO 8601"
            times = [dt.datetime.fromisoformat(time) for time in times]
            times = [time if time.tzinfo is not None else time.replace(tzinfo=dt.UTC) for time in times]
        else:
            return None
        steps = np.array([math.nan if step is None else step for step in steps], dtype=float)
        durations = np.array([math.nan if d is None else d for d in durations], dtype=float)
    except (ValueError, RecursionError, KeyError, TypeError, OverflowError):
        return None
    saves = np.array(events, dtype=object) == "checkpoint_saved"
    given = ~np.isnan(durations)
    if ((steps < 0) | (steps > 2**53)).any() or (given & ~saves).any() or (durations[given] < 0).any() \
            or not np.isfinite(durations[given]).all() \
            or (np.isnan(steps) & np.isin(np.array(events, dtype=object), STEP_REQUIRED)).any():
        return None
    return times, events, steps.tolist(), durations.tolist(), style


def parse_run_log(text, name="run.jsonl"):
    """The records of a run log's text, checked, as arrays for :func:`drmath.measure.measure_events`.

    Parameters
    ----------
    text : str
        The JSONL text.
    name : str, default "run.jsonl"
        What messages call it (already :func:`drmath.io.files.visible`).

    Returns
    -------
    events : dict
        ``time`` [s] (float array, from the first record's time), ``event`` (list of str), ``step`` and
        ``duration`` (float arrays, NaN where not given), ``line`` (each record's line, from 1), and
        ``start`` (the first record's time as a timezone-aware datetime, or None for a log in seconds).

    Raises
    ------
    ValueError
        One line, ``"<name> line <n>: ..."``: over the bounds, invalid JSON, not an object, a missing or
        ill-typed field, an unknown event, a time style other than the first record's.
    """
    count = count_lines(text)
    if count > MAX_RUN_LINES:
        raise ValueError(f"{name} has {count:,} lines: drmath measure takes at most {MAX_RUN_LINES:,}")
    kept = [(number, line) for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n")
                                                         .split("\n"), 1) if line.strip()]
    for number, line in kept:
        if len(line) > MAX_RECORD_CHARS:
            raise ValueError(f"{name} line {number:,}: a line of {len(line):,} characters; drmath measure takes at "
                             f"most {MAX_RECORD_CHARS:,}")
    if not kept:
        raise ValueError(f"{name}: no records: a run log is one JSON object a line")
    lines = [number for number, _ in kept]
    columns = _columns([line for _, line in kept])  # one parse of the whole log, or None: then line by line
    times, events, steps, durations, style = columns if columns is not None else _by_line(kept, name)
    start = times[0] if style == "ISO 8601" else None
    seconds = ([(t - start).total_seconds() for t in times] if start is not None
               else [t - times[0] for t in times])
    return {"time": np.array(seconds, dtype=float), "event": events, "step": np.array(steps, dtype=float),
            "duration": np.array(durations, dtype=float), "line": lines, "start": start}


def _name(path):
    return files.STDIN_NAME if isinstance(path, str) and path == files.STDIN else visible(Path(path).name)


def read_run_log(path):
    """The checked records of a run-log file (:func:`parse_run_log` on its text).

    Parameters
    ----------
    path : str or os.PathLike
        A regular file of at most :data:`MAX_RUN_BYTES` bytes (UTF-8), or ``"-"`` for standard input.

    Returns
    -------
    events : dict
        As :func:`parse_run_log`.

    Raises
    ------
    ValueError
        If the file cannot be read (missing, not a regular file, over the ceiling, not UTF-8), or as
        :func:`parse_run_log`; messages start with the file's name.
    """
    return _parse_bytes(files.read_input(path, MAX_RUN_BYTES), _name(path))


def _parse_bytes(raw, name):
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name}: not a UTF-8 text file (byte {exc.start})") from None
    return parse_run_log(text, name)


def _measured(events, name):
    try:
        return measure_events(events["time"], events["event"], events["step"], events["duration"], events["line"])
    except ValueError as exc:
        raise ValueError(f"{name} {exc}" if str(exc).startswith("line ") else f"{name}: {exc}") from None


def measure_run_bytes(raw, name="run.jsonl"):
    """A run log's measured goodput from its bytes (an upload): :func:`measure_run_log` without a file.

    Parameters
    ----------
    raw : bytes
        The log's content, UTF-8; the caller bounds its size (the dashboard to what one message carries).
    name : str, default "run.jsonl"
        What messages call it (already :func:`drmath.io.files.visible`).

    Returns
    -------
    measurement : drmath.measure.RunMeasurement
        As :func:`measure_run_log`.

    Raises
    ------
    ValueError
        One line naming ``name`` and the line: not UTF-8, as :func:`parse_run_log`, or what the measure refuses.

    Examples
    --------
    >>> records = ['{"time": 0, "event": "job_start"}',
    ...            '{"time": 60, "event": "step", "step": 1}',
    ...            '{"time": 120, "event": "step", "step": 2}',
    ...            '{"time": 180, "event": "step", "step": 3}']
    >>> m = measure_run_bytes("\\n".join(records).encode())  # a start's first step is its restart's
    >>> m.parts["restart"], m.parts["productive"], round(m.goodput, 3)
    (60.0, 120.0, 0.667)
    >>> measure_run_bytes(b"{}", "mine.jsonl")
    Traceback (most recent call last):
    ...
    ValueError: mine.jsonl line 1: no 'time' field
    """
    return _measured(_parse_bytes(raw, name), name)


def measure_run_log(path):
    """A run-log file's measured goodput and badput (:func:`drmath.measure.measure_events`).

    Parameters
    ----------
    path : str or os.PathLike
        As :func:`read_run_log`.

    Returns
    -------
    measurement : drmath.measure.RunMeasurement
        The parts of the wall time in seconds, the goodput, the counts.

    Raises
    ------
    ValueError
        As :func:`read_run_log`, and what the measure refuses, naming the file and the line.

    Examples
    --------
    >>> m = measure_run_log(example_run_log())
    >>> round(m.goodput, 3), m.failures
    (0.818, 7)
    """
    return _measured(read_run_log(path), _name(path))


def _stamp(time):
    """ISO 8601 in UTC ("...Z"), to the second, millisecond or microsecond, as the time needs."""
    spec = "seconds" if not time.microsecond else "milliseconds" if not time.microsecond % 1000 else "microseconds"
    return time.astimezone(dt.UTC).replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def to_jsonl(events, start=None):
    """A run's events as JSONL text, one object a line (what :func:`parse_run_log` reads).

    Parameters
    ----------
    events : dict
        ``time`` [s], ``event``, and optionally ``step`` and ``duration`` (NaN where a record has none), as
        :func:`drmath.simulate.simulate_run_log` gives them.
    start : datetime.datetime, optional
        The time of 0 s: times are then written as ISO 8601 (UTC, to the microsecond); without it, as seconds.

    Returns
    -------
    text : str
        One JSON object a line, ending in a newline.
    """
    n = len(events["event"])
    steps = events.get("step", np.full(n, np.nan))
    durations = events.get("duration", np.full(n, np.nan))
    if start is not None and start.tzinfo is None:
        start = start.replace(tzinfo=dt.UTC)
    out = []
    for time, event, step, duration in zip(np.asarray(events["time"], dtype=float).tolist(), events["event"],
                                           np.asarray(steps, dtype=float).tolist(),
                                           np.asarray(durations, dtype=float).tolist()):
        record = {"time": _stamp(start + dt.timedelta(seconds=round(time, 6))) if start is not None
                  else round(time, 6), "event": str(event)}
        if not math.isnan(step):
            record["step"] = int(step)
        if not math.isnan(duration):
            record["duration"] = round(duration, 6)
        out.append(json.dumps(record))
    return "\n".join(out) + "\n"


def write_run_log(path, events, start=None):
    """Write a run's events as a JSONL file, atomically (:func:`to_jsonl`, :func:`drmath.io.files.atomic_write`).

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    events : dict
        As :func:`to_jsonl`.
    start : datetime.datetime, optional
        As :func:`to_jsonl`.

    Returns
    -------
    path : pathlib.Path
        The file written.
    """
    return files.atomic_write(path, to_jsonl(events, start))


def example_run_log():
    """The run log that ships with drmath: GENERATED by the simulator (``data/make_run_example.py``, a fixed seed).

    Returns
    -------
    path : pathlib.Path
        ``run_example.jsonl`` in drmath's data files.
    """
    from .._resources import shipped_file

    return shipped_file("run_example.jsonl")
