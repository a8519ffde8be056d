r"""Incident logs: a CSV file of incidents in, its events and their fit out (:class:`~drmath.calibrate.Calibration`).

An incident log is a CSV file with one row per incident, exported by whatever the fleet uses, so its columns are
mapped by name (:func:`read_incidents`): a start time, and either an end time or a duration with its unit;
optionally a cause, a scope (node, rack, site) and a flag that joins a row to the previous event. The rows become
events by the rules below, and :func:`drmath.calibrate.fit_events` fits them.

The rules that turn rows into events, stated once:

- **Filter.** ``where`` keeps the rows whose cell equals a value (spaces around it dropped): the
  conditions on different columns must all hold; several values for one column are alternatives.
- **Duplicates.** A kept row identical to one before it in the file (every cell the same) is one incident
  exported twice: it is dropped, and counted (``rows_duplicate``).
- **Times.** Each time is read by the formats given (``time_format``, one or several), tried in order; with
  none, by ISO 8601, then by the formats inferred from the values it leaves unread, one at a time from the first
  such value (at most :data:`MAX_INFERRED`), so a ticket export mixing ``2025-03-01T02:36:31Z`` and
  ``2025-03-01 02:36:31 UTC`` is read whole. The formats that read a time, and how many cells each read, are
  kept (``time_formats``, ``time_format_cells``) and the summary names them. A time that none reads is a problem.
- **Open incidents.** A row with a start time and a blank end time is an incident still open when the log was
  exported: it is a failure like any other (counted in the events and the MTBF), and its repair is
  right-censored at the window's end (``until``, or without it the latest time the log records, a start or an
  end), so the lognormal repair fit takes it as "longer than this", never as a repair done; an event holding an
  open row is open. The count is kept (``open_incidents``, ``repairs_censored``) and the summary says so. A
  repair censored at 0 (an incident opened at the window's end) says nothing and is left out of the fit.
- **Time order.** The kept rows are put in order of their start times (rows that start together keep
  the file's order): logs are not written in time order, and every rule below reads "the row before"
  in time.
- **Joined rows.** A row whose join flag is set (``1``, ``true``, ``yes``, ``y``, ``x``; blank,
  ``0``, ``false``, ``no`` or ``n`` is not set) belongs to the event of the row before it in time:
  one interruption logged as several rows.
- **Merged rows (the window).** A row that starts at most ``merge_within`` after the row before it
  in time belongs to that row's event: an interruption restarts the job once however many nodes it
  took down, and the plan's MTBF counts interruptions. The default, :data:`MERGE_WITHIN` = 0, merges
  rows that start at the same recorded time; a log kept to the minute therefore merges two failures
  in one minute. The rows merged are counted (``rows_simultaneous``) and the summary says so.
  An event starts at its first row's start, ends at its rows' latest end, and takes its first
  row's cause and scope; the Weibull fit's gap to the next event runs from its last row's start, so a
  merged row's time is not carried into the gap after it.
- **Window.** Times without a zone are read as UTC. The window opens at ``since``, or, without
  it, at the first event, which then only opens the window: the gap before it is unknown, so it is
  not counted as a failure inside the window. The window closes at ``until``, or at the latest time
  the log records (the latest start or end). Events outside the window are left out (and counted).
- **Resolution.** Start times that are all whole hours, minutes or seconds (:data:`RESOLUTIONS`)
  were recorded to that resolution: a time is the start of its minute, so a gap is known to a minute
  either side, and gaps of one minute or none were merged. The Weibull fit treats the gaps as
  interval-censored and conditioned on not being merged (:func:`drmath.calibrate.weibull_fit_grouped`),
  so merging same-minute rows does not bias the shape; the summary states the resolution.
- **Censoring.** The time from the last event to the window's end is a gap still running: it is
  right-censored in the Weibull fit and counted as exposure in the exponential one. The time from
  ``since`` to the first event is exposure for the exponential fit; the Weibull fit leaves it out,
  since it is a forward recurrence time, not a gap.

Bad input is refused, never skipped: every row that the filter keeps is checked, and a file with
problems raises :class:`IncidentLogError` (a ``ValueError``) naming the row (as a spreadsheet numbers
it: the header is row 1) and the column of the first ten problems and counting all of them. Nothing
is fitted from a file that is partly wrong. Before anything is parsed, the text is held to the reader's
bounds (:func:`check_table`: :data:`MAX_ROWS` lines, counting CR, LF and CRLF alike, :data:`MAX_LINE_CHARS`
a line, :data:`MAX_COLUMNS` columns, :data:`MAX_CELLS` cells, then :data:`MAX_CELL_CHARS` a cell), a
``time_format`` is checked on its own, and a time is parsed only if it has at most :data:`MAX_TIME_CHARS`
characters, so a hostile file answers in about a second. Every name and value a message quotes is shown with
its control characters escaped (:func:`drmath.io.files.visible`), so none reaches a terminal or a page.

pandas is imported inside the functions that use it.

Examples
--------
>>> text = ("start,minutes,cause\n2024-05-01 00:00,30,GPU\n2024-05-01 05:00,12,NIC\n"
...         "2024-05-01 09:00,45,GPU\n2024-05-01 16:00,20,GPU\n")
>>> fit = parse_incidents(text, start_column="start", duration_column="minutes", duration_unit="min",
...                       since="2024-05-01 00:00", until="2024-05-02 00:00")
>>> fit.events, fit.window / 3600, fit.mtbf / 3600
(4, 24.0, 6.0)
"""

import csv
import io
import math
import re
import warnings
from pathlib import Path

import numpy as np

from .._validate import clip, short_repr, visible
from .._validate import visible_list as _listed
from ..calibrate import MIN_EVENTS, fit_events
from . import files

__all__ = ["IncidentLogError", "read_incidents", "parse_incidents", "example_log", "count_lines", "check_table",
           "DURATION_UNITS", "MAX_LISTED", "MAX_ROWS", "MAX_COLUMNS", "MAX_CELLS", "MAX_LINE_CHARS", "MAX_CELL_CHARS",
           "MAX_TIME_CHARS", "MAX_FORMAT_CHARS", "MAX_DURATION", "MERGE_WITHIN", "MAX_MERGE_WITHIN", "MAX_FORMATS",
           "MAX_INFERRED", "MAX_GUESSES"]

DURATION_UNITS = {"s": 1.0, "min": 60.0, "h": 3600.0}
"""The units a duration column may be in, and their length [s]."""

MAX_LISTED = 10
"""Most problems an :class:`IncidentLogError` lists, one a line; the rest are counted [1]."""


# The reader's bounds, all checked before the text is parsed (check_table, then the cells of _read_table): each
# hostile file of tests/test_hostile_files.py gets its clear message in under 1.5 s of CPU and 230 MB, where a
# 1 MiB cell of digits took 117 s (dateutil's fallback parse is quadratic), a 4 MiB header of commas passed
# 1.2 GB in 40 s (a MemoryError at ~2.7 GB) and 16 MiB of bad rows took 72.8 s and 1.77 GB.

MAX_ROWS = 300_000
"""Most lines a log may have besides its header [1]; CR, LF and CRLF each end one. A 16 MiB file
(:data:`drmath.io.files.MAX_TABLE_BYTES`) of real rows (50-80 B) holds 200,000-350,000; 500,000 short rows, each
with a value too many, peaked at 285 MB."""

MAX_COLUMNS = 256
"""Most columns a log's header may name [1]."""

MAX_CELLS = 2_000_000
"""Most cells, data lines times the header's columns [1]: each cell is a Python string (~60 B), so this
bounds the table's memory whatever the shape (2 million cells, as 299,000 lines of 6 columns or 7,900 of 250:
a peak RSS of 138-169 MB, of which ~120 MB is Python, pandas and scipy)."""

MAX_LINE_CHARS = 65_536
"""Longest line, the header's included [characters]."""

MAX_CELL_CHARS = 4_096
"""Longest cell [characters]; a longer one is refused before any value is parsed."""

MAX_TIME_CHARS = 64
"""Longest time or date read [characters]: an ISO time with nanoseconds and a zone is 35. Parsing a
longer one costs time that grows with the square of its length (64 KiB of digits: 1.5 s)."""

MAX_FORMAT_CHARS = 256
"""Longest ``time_format`` [characters]."""

MAX_DURATION = 100 * 365.25 * 86400.0
"""Longest incident [s]: a century. A duration past it is refused naming its row, before any time is
computed from it (``1e308 h`` overflowed to an error naming no row)."""

MERGE_WITHIN = 0.0
"""Rows that start at most this long after the row before them (in time order) are one event, by default [s]: 0,
rows that start at the same recorded time (the same minute in a log kept to the minute). ``merge_within``
(``drmath calibrate --merge-within``) sets it."""

RESOLUTIONS = (3600.0, 60.0, 1.0)
"""The resolutions a log's start times are recognised in, the longest first [s]: a log whose starts are all whole
minutes is kept to the minute, and each gap between two of them is known only to within a minute either side;
the Weibull fit treats such gaps as interval-censored (:func:`drmath.calibrate.weibull_fit_grouped`)."""

MAX_MERGE_WITHIN = 86400.0
"""Longest ``merge_within`` [s]: a day."""

MAX_FORMATS = 8
"""Most ``time_format`` values given, each tried in order on the cells the ones before it left [1]."""

ISO = "ISO 8601"
"""How a summary names the ISO 8601 times (pandas' ``format="ISO8601"``)."""

MAX_INFERRED = 4
"""Most formats tried, without a ``time_format``, on a log's values (ISO 8601 counted, then those inferred) [1]:
each costs a parse of the cells the ones before it left."""

MAX_GUESSES = 16
"""Most cells a format is guessed from, without a ``time_format`` [1]: each guess costs a parse of the column, so a
file of 300,000 distinct bad times costs 16, not 300,000."""

_STAMP = "datetime64[us, UTC]"  # microseconds: every year from 1 to 9999 (nanoseconds end in 2262)
_TRUE = frozenset({"1", "true", "yes", "y", "x", "t"})
_FALSE = frozenset({"", "0", "false", "no", "n", "f"})
_DEFAULTS = {"cause_column": "cause", "scope_column": "scope", "join_column": "joins_previous"}


class IncidentLogError(ValueError):
    """An incident log that cannot be fitted: one problem a line, the first naming its row and column.

    Attributes
    ----------
    problems : list of str
        The first :data:`MAX_LISTED` problems, as ``"<file> row <r>, column <c>: ..."``.
    count : int
        How many problems there are in all [1].
    rows : int
        How many rows hold them [1].
    """

    def __init__(self, problems, count=None, rows=None, name="incidents.csv"):
        self.problems = list(problems)[:MAX_LISTED]
        self.count = len(self.problems) if count is None else count
        self.rows = self.count if rows is None else rows
        lines = list(self.problems)
        if self.count > 1:
            more = self.count - len(self.problems)
            lines.append(f"{name}: {self.count:,} problems in {self.rows:,} rows"
                         + (f" ({more:,} not shown)" if more else "") + "; the file was refused, nothing fitted")
        super().__init__("\n".join(lines))




def count_lines(text):
    r"""How many lines ``text`` holds: CR, LF and CRLF each end one, and a last line without an end counts.

    Parameters
    ----------
    text : str
        CSV text. [1]

    Returns
    -------
    lines : int
        As a spreadsheet counts them (old Mac files end lines with CR alone). [1]

    Examples
    --------
    >>> count_lines("a\r\nb\rc\nd"), count_lines("a\n"), count_lines("")
    (4, 1, 0)
    """
    ends = text.count("\n") + text.count("\r") - text.count("\r\n")
    return ends + (1 if text and text[-1] not in "\r\n" else 0)


def _skipped(lines):
    """The rows (from 1) that are skipped, ascending: blank lines and comments (first non-blank character ``#``)."""
    # only a line that is empty or starts with # or a space can be skipped: the others are not stripped
    return [row for row, line in enumerate(lines, 1) if not line or line[0] == "#"
            or (line[0].isspace() and (not (bare := line.strip()) or bare[0] == "#"))]


def check_table(text, name, *, max_rows=MAX_ROWS, max_columns=MAX_COLUMNS, reader="drmath calibrate", hint=""):
    """Refuse CSV text over the reader's bounds before any parser sees it; else its lines and its header.

    The one place the bounds are checked, in order of cost: the lines (:func:`count_lines`, a count of
    line ends), the longest line, then the header's columns and the cells (data lines times columns); the
    text is split into lines only once their count is within the bound. ``drmath calibrate`` checks them
    through :func:`parse_incidents`, and the dashboard's fleet panel with its own, smaller, ``max_rows`` and
    ``max_columns``.

    Parameters
    ----------
    text : str
        CSV text, a byte-order mark removed.
    name : str
        What to call the text in messages (already :func:`drmath.io.files.visible`).
    max_rows : int, default MAX_ROWS
        Most lines besides the header [1].
    max_columns : int, default MAX_COLUMNS
        Most columns the header may name [1].
    reader, hint : str
        Who takes at most so much, and what to add to a refusal of too many lines (where to go instead).

    Returns
    -------
    lines : list of str
        The lines, line ends removed. [1]
    skipped : list of int
        The rows (from 1) that are blank or comments, ascending. [1]
    head_row : int
        The header's row (from 1). [1]
    columns : list of str
        The header's names, spaces around them removed. [1]

    Raises
    ------
    ValueError
        One line naming the file and the bound: more lines than ``max_rows`` and a header, a line of more
        than :data:`MAX_LINE_CHARS` (and its row), no header, more columns than ``max_columns``, or more
        than :data:`MAX_CELLS` cells.

    Examples
    --------
    >>> check_table("start,end\\r2024-05-01,2024-05-02\\r", "mac.csv")[3]
    ['start', 'end']
    >>> check_table("s\\r" * 30, "mac.csv", max_rows=20, reader="this page")
    Traceback (most recent call last):
    ...
    ValueError: mac.csv has 30 lines: this page takes at most 20 rows
    """
    count = count_lines(text)
    if count > max_rows + 1:
        raise ValueError(f"{name} has {count:,} lines: {reader} takes at most {max_rows:,} rows{hint}")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # at most max_rows + 2 of them
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    if lengths.max() > MAX_LINE_CHARS:
        row = int(np.argmax(lengths > MAX_LINE_CHARS))
        raise ValueError(f"{name} row {row + 1:,}: a line of {int(lengths[row]):,} characters; {reader} takes at "
                         f"most {MAX_LINE_CHARS:,}")
    skipped = _skipped(lines)
    if len(skipped) == len(lines):
        raise ValueError(f"{name}: no header: the file holds no row")
    head_row = 1
    for row in skipped:  # ascending: the header is the first row not skipped
        if row > head_row:
            break
        head_row += 1
    columns = [column.strip() for column in next(csv.reader([lines[head_row - 1]]), [])]
    if len(columns) > max_columns:
        raise ValueError(f"{name} has {len(columns):,} columns: {reader} takes at most {max_columns:,}")
    cells = (len(lines) - head_row) * len(columns)
    if cells > MAX_CELLS:
        raise ValueError(f"{name} has {cells:,} cells ({len(lines) - head_row:,} lines of {len(columns)} columns): "
                         f"{reader} takes at most {MAX_CELLS:,}")
    return lines, skipped, head_row, columns


def _read_table(text, name):
    """CSV text -> (cells, problems, columns, header row): str cells indexed by spreadsheet row, and bad rows.

    The text is checked against the reader's bounds first (:func:`check_table`). Comment lines (first
    non-blank character ``#``) and blank lines are skipped but counted, so row numbers are those a
    spreadsheet shows. A file whose rows all hold at most the header's count of values is read in one
    :func:`pandas.read_csv` call (:func:`_read_rows`); otherwise the values of each line are counted
    first, and a row with more than the header's count (which pandas would skip, or take the first column
    of as an index) is reported (:func:`_read_counted`). A cell over :data:`MAX_CELL_CHARS` refuses the file
    before any value is parsed.
    """
    lines, skipped, head_row, _ = check_table(text.removeprefix("\ufeff"), name)
    last = len(lines)
    while skipped and skipped[-1] == last:  # blank lines at the end
        skipped.pop()
        last -= 1
    head = lines[head_row - 1]
    inner = {row for row in skipped if row > head_row}  # comments and blank lines among the rows
    rows = range(head_row + 1, last + 1)
    if inner:
        rows = [row for row in rows if row not in inner]
    body = [lines[row - 1] for row in rows] if inner else lines[head_row:last]
    del lines
    problems = {}
    if '"' in text:
        problems = {row: 'cannot read as CSV: a quote (") is not closed'
                    for row, line in zip(rows, body) if line.count('"') % 2}
    frame = None if problems else _read_rows(head, body, rows)
    if frame is None:
        frame = _read_counted(head, rows, body, problems, name)
    del body
    columns = list(frame.columns)
    long = [(frame.index[bad].to_numpy(), column, lambda row, column=column: (
        f"a cell of {len(frame.at[row, column]):,} characters; at most {MAX_CELL_CHARS:,} are read"))
        for column in frame.columns if (bad := (frame[column].str.len() > MAX_CELL_CHARS).to_numpy()).any()]
    if long:  # refused before any value is parsed, with the rows that are not CSV
        _refuse(name, _kinds(problems) + long)
    return frame, problems, columns, head_row


def _kinds(problems):
    """The rows that are not CSV, ``{row: why}``, as one kind of problem for :func:`_refuse`."""
    return [(np.fromiter(problems, dtype=np.int64, count=len(problems)), "", problems.__getitem__)] if problems else []


def _refuse(name, kinds):
    """Raise :class:`IncidentLogError` when any ``(rows, column, why)`` kind holds a row: ``why(row)`` is built for
    the first :data:`MAX_LISTED` problems only, and all of them are counted (a file of 500,000 bad rows costs
    a count, not 500,000 messages)."""
    kinds = [(np.asarray(rows, dtype=np.int64), column, why) for rows, column, why in kinds if len(rows)]
    if not kinds:
        return
    count = sum(rows.size for rows, _, _ in kinds)
    rows = np.concatenate([rows for rows, _, _ in kinds])
    rows.sort()
    rows = int(rows.size and 1 + np.count_nonzero(np.diff(rows)))  # distinct rows (np.unique's hash is slower)
    first = sorted((int(row), column, why) for some, column, why in kinds for row in np.sort(some)[:MAX_LISTED])
    listed = [f"{name} row {row}: {why(row)}" if not column else
              f"{name} row {row}, column {clip(visible(column))}: {why(row)}"
              for row, column, why in first[:MAX_LISTED]]
    raise IncidentLogError(listed, count, rows, name)


def _read_rows(head, body, rows):
    """Header and body lines -> the frame of str cells indexed by ``rows``, when pandas reads each line as one
    row of at most the header's count of values; else None (:func:`_read_counted` then finds the line)."""
    import pandas as pd

    if head.startswith("\ufeff") or "__row__" in head:  # pandas drops a BOM that starts its text; the tag's name
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a malformed file is read again, line by line
            frame = pd.read_csv(io.BytesIO("\n".join([head, *body]).encode("utf-8")), encoding="utf-8", dtype=str,
                                keep_default_na=False, na_filter=False, on_bad_lines="error", engine="c")
    except (pd.errors.ParserError, ValueError):  # too many values in a row (or a lone surrogate)
        return None
    if (len(frame) != len(rows) or not isinstance(frame.index, pd.RangeIndex)
            or any(str(c).startswith("Unnamed: ") for c in frame.columns)):
        return None  # lines merged by a quote, the first column taken as the index, or a column named by position
    frame.columns = [str(c).strip() for c in frame.columns]
    frame.index = pd.Index(np.asarray(rows, dtype=np.int64), name="row")
    return frame


def _read_counted(head, rows, body, problems, name):
    """The frame of the lines that hold at most the header's count of values (counted by :mod:`csv`, one line at a
    time); each other row goes into ``problems``. Rows already in ``problems`` (a quote not closed) are left out."""
    import pandas as pd

    width = len(next(csv.reader([head]), []))
    why = f"has more than {width} values, the header's count"
    kept, lines = [], []
    try:
        for (row, line), values in zip(((row, line) for row, line in zip(rows, body) if row not in problems),
                                       csv.reader(line for row, line in zip(rows, body) if row not in problems)):
            if len(values) > width:
                problems[row] = why
            else:
                kept.append(row)
                lines.append(line)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = pd.read_csv(io.BytesIO("\n".join([head, *lines]).encode("utf-8")), encoding="utf-8", dtype=str,
                                keep_default_na=False, na_filter=False, index_col=False, engine="c")
    except (csv.Error, pd.errors.ParserError, ValueError) as exc:
        raise ValueError(f"{name}: cannot read as CSV: {clip(visible(str(exc).splitlines()[0]))}") from None
    if len(frame) != len(kept):
        raise ValueError(f"{name}: cannot read as CSV: {len(kept):,} rows read as {len(frame):,}")
    frame.columns = [str(c).strip() for c in frame.columns]
    frame.index = pd.Index(np.asarray(kept, dtype=np.int64), name="row")
    return frame


def _check_format(time_format):
    """Refuse a ``time_format`` pandas cannot use, in one line naming the option (before any cell is parsed)."""
    import pandas as pd

    what = f"time_format (--time-format) = {short_repr(time_format)}"
    if not isinstance(time_format, str) or not 0 < len(time_format) <= MAX_FORMAT_CHARS:
        raise ValueError(f"{what} is not valid: must be a strftime format of 1 to {MAX_FORMAT_CHARS} characters, "
                         'e.g. "%d/%m/%Y %H:%M"')
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pd.to_datetime(pd.Series(["2024-05-01 00:00"]), format=time_format, utc=True, errors="coerce")
    except (ValueError, TypeError, re.error) as exc:  # re.error: a directive twice ("%Y%Y")
        reason = str(exc).splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"{what} is not valid: {clip(visible(reason))}") from None


def _parse_times(cells, formats):
    """Cells -> (UTC timestamps, NaT where a cell does not parse; ``{format: cells parsed}``), each format given
    tried in order on the cells the ones before it left, or, with none given, the formats inferred per value.

    A cell over :data:`MAX_TIME_CHARS` is not parsed (NaT). Without a format, ISO 8601 is tried, then a format
    guessed from the first cell still unread, and so on (:data:`MAX_INFERRED` formats tried at most, guessed from
    at most :data:`MAX_GUESSES` cells), so a log mixing ``2025-03-01T02:36:31Z`` and ``2025-03-01 02:36:31 UTC`` is read
    whole; pandas' own fallback, dateutil cell by cell, is never taken: its time grows with the square of a cell's
    length (1 MiB of digits: 117 s).
    """
    import pandas as pd
    from pandas.tseries.api import guess_datetime_format

    too_long = (cells.str.len() > MAX_TIME_CHARS).to_numpy()
    if too_long.any():
        cells = cells.where(~too_long, "")  # too long to be a time: never parsed
    values = cells.str.strip()
    parsed = pd.Series(pd.NaT, index=cells.index, dtype=_STAMP)
    given = (values != "").to_numpy().copy()  # the cells still to read
    used, tried, guesses = {}, set(), 0
    pending = list(formats or ["ISO8601"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas' dayfirst warnings: bad cells say more
        while pending and given.any():
            fmt = pending.pop(0)
            tried.add(fmt)
            got = pd.to_datetime(values[given], format=fmt, utc=True, errors="coerce")
            hit = got.notna().to_numpy()
            if hit.any():
                parsed[got.index[hit]] = got[hit].astype(_STAMP)
                given[given] = ~hit
                used[fmt] = used.get(fmt, 0) + int(hit.sum())
            if formats or len(tried) >= MAX_INFERRED:  # each format tried costs a parse of the cells left
                continue
            for cell in values[given].iloc[:MAX_GUESSES - guesses]:  # the next format, from the first cell unread
                guesses += 1
                guess = guess_datetime_format(cell)
                if guess and guess not in tried:
                    pending.append(guess)
                    break
    return parsed.rename(None), used


def _seconds(times):
    """UTC timestamps -> seconds since 1970 [s] (float), whatever their resolution."""
    import pandas as pd

    return ((times - pd.Timestamp("1970-01-01", tz="UTC")) / pd.Timedelta(1, "s")).to_numpy(dtype=float)


def _timestamp(value, what):
    import pandas as pd

    try:
        stamp = pd.NaT if isinstance(value, str) and len(value) > MAX_TIME_CHARS else pd.Timestamp(value)
    except (ValueError, TypeError):
        stamp = pd.NaT
    if stamp is pd.NaT:
        raise ValueError(f"{what} = {short_repr(value)} is not a date or time (e.g. 2024-06-01 or "
                         "2024-06-01T12:00:00Z)")
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


def _where(frame, where, name, columns):
    """The rows that every ``COLUMN=VALUE`` condition keeps (values for one column are alternatives)."""
    wanted = {}
    for item in where:
        if "=" not in item:
            raise ValueError(f"where {short_repr(item)} must look like COLUMN=VALUE")
        column, value = (part.strip() for part in item.split("=", 1))
        if column not in columns:
            raise ValueError(f"{name}: unknown column {short_repr(column)} in where {short_repr(item)}; "
                             f"the columns are {_listed(columns)}")
        wanted.setdefault(column, set()).add(value)
    keep = np.ones(len(frame), dtype=bool)
    for column, values in wanted.items():
        cells = frame[column]
        hit = cells.isin(values).to_numpy().copy()  # a cell equal to a (stripped) value is stripped already
        hit[~hit] = cells[~hit].str.strip().isin(values).to_numpy()
        keep &= hit
    return keep


def _times(frame, start_column, end_column, duration_column, duration_unit, formats, hint=None):
    """The rows' start times, durations [s] (inf for an open incident: an end column's cell blank), the formats
    that read the times (``{format: cells}``) and every problem with them, as ``(start, durations, used,
    errors)``; the errors are ``(rows, column, why)`` kinds for :func:`_refuse` (unparseable time, end before
    start, bad, missing or too long a duration), each row's message built only if it is listed. ``hint`` is
    the option a message on a time that does not parse names, e.g. ``"--time-format"``; None names none."""
    import pandas as pd

    errors = []  # (rows, column, why(row))
    if formats:
        fmt = " in the format" + (f" {short_repr(formats[0])}" if len(formats) == 1 else
                                  f"s {', '.join(short_repr(f) for f in formats)}")
    else:  # the command line's "(give --time-format)"; else what was tried, naming no option
        fmt = f" (give {hint})" if hint else " in ISO 8601 or a format inferred from the log's values"

    def unread(column, parsed, kind, rows):
        cells = frame[column]

        def why(row):
            cell = cells.at[row].strip()
            if not cell:
                return f"missing {kind} time"
            if len(cell) > MAX_TIME_CHARS:
                return f"{short_repr(cell)} is not a time: it is longer than {MAX_TIME_CHARS} characters"
            return f"{short_repr(cell)} is not a time{fmt}"
        errors.append((frame.index[rows].to_numpy(), column, why))

    start, used = _parse_times(frame[start_column], formats)
    unread(start_column, start, "start", start.isna().to_numpy())
    if end_column is not None:
        end, more = _parse_times(frame[end_column], formats)
        for key, count in more.items():
            used[key] = used.get(key, 0) + count
        blank = (frame[end_column].str.strip() == "").to_numpy()  # an open incident: no end yet
        unread(end_column, end, "end", end.isna().to_numpy() & ~blank)
        errors.append((frame.index[(end < start).to_numpy()].to_numpy(), end_column, lambda row: (
            f"{short_repr(frame.at[row, end_column].strip())} is before the start "
            f"{short_repr(frame.at[row, start_column].strip())}")))
        durations = np.where(blank, np.inf, _seconds(end) - _seconds(start))
    else:
        cells = frame[duration_column].str.strip()
        number = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=float)
        with np.errstate(over="ignore", invalid="ignore"):
            durations = number * DURATION_UNITS[duration_unit]
            bad = ~(np.isfinite(durations) & (number >= 0) & (durations <= MAX_DURATION))

        def why(row):
            cell, value = cells.at[row], float(number[frame.index.get_loc(row)])
            if not cell:
                return "missing duration"
            if value < 0:
                return f"{short_repr(cell)} is negative"
            if math.isnan(value):
                return f"{short_repr(cell)} is not a number of {duration_unit}"
            return (f"{short_repr(cell)} {duration_unit} is longer than a century: at most "
                    f"{MAX_DURATION / DURATION_UNITS[duration_unit]:.4g} {duration_unit}")
        errors.append((frame.index[bad].to_numpy(), duration_column, why))
    return start, durations, used, errors


def _events(begin, stop, joins, merge_within=MERGE_WITHIN):
    """Rows into events, in time order: a joined row belongs to the event of the row before it in time, and a row
    that starts at most ``merge_within`` [s] after the row before it in time joins that row's event too.
    ``(event_start [s], event_end [s], event_last [s], first row of each event (index into the rows), rows joined,
    rows merged by the window and not joined)``, ``event_last`` the start of the event's last row (the gap to the
    next event runs from it); rows that start together keep the file's order."""
    order = np.argsort(begin, kind="stable")
    begin, stop, joins = begin[order], stop[order], joins[order]
    near = np.r_[False, np.diff(begin) <= merge_within]
    opens_event = ~(joins | near)
    opens_event[:1] = True  # the first row has no previous event to join
    head = np.flatnonzero(opens_event)
    joins[:1] = False
    merged = int((near & ~joins).sum())
    return (begin[head], np.maximum.reduceat(stop, head), np.maximum.reduceat(begin, head), order[head],
            int(joins.sum()), merged)


def _resolution(times):
    """The resolution the start times [s] were recorded to: the longest of :data:`RESOLUTIONS` that divides every
    one, 0 for times to better than a second."""
    for step in RESOLUTIONS:
        if np.all(np.mod(times, step) == 0):
            return step
    return 0.0


def parse_incidents(text, *, start_column, end_column=None, duration_column=None, duration_unit=None,
                    time_format=None, where=(), since=None, until=None, cause_column="cause",
                    scope_column="scope", join_column="joins_previous", merge_within=MERGE_WITHIN, gpus=None,
                    name="incidents.csv", hints=None):
    """Read an incident log from CSV text and fit it.

    Parameters
    ----------
    text : str
        CSV with a header row [1]_. Lines whose first non-blank character is ``#`` are comments;
        blank lines are skipped; a byte-order mark is skipped.
    start_column : str
        The column of each incident's start time.
    end_column : str, optional
        The column of its end time (repair done, job running again). Give this or
        ``duration_column``.
    duration_column : str, optional
        The column of its duration, a number >= 0 in ``duration_unit``.
    duration_unit : {"s", "min", "h"}, optional
        The unit of ``duration_column`` (:data:`DURATION_UNITS`).
    time_format : str or sequence of str, optional
        :func:`time.strftime` formats of the time columns (``"%d/%m/%Y %H:%M"``), at most :data:`MAX_FORMATS`,
        each tried in order on the cells the ones before it did not read; omitted, the formats are inferred
        from the values (see the module's rules). Times without a zone are UTC.
    where : sequence of str, default ()
        ``COLUMN=VALUE`` conditions that keep rows (see the module's rules).
    since, until : str, optional
        The window's start and end (dates or times); see the module's rules for the defaults.
    cause_column, scope_column, join_column : str, optional
        The columns of the cause, the scope and the join flag. Each default is used when the log
        has a column of that name; any other name must be a column. None uses no such column.
    merge_within : float, default MERGE_WITHIN (0)
        A row that starts at most this long after the row before it in time joins its event, in [0,
        :data:`MAX_MERGE_WITHIN`]; 0 merges rows that start at the same recorded time. [s]
    gpus : int, optional
        GPUs of the fleet the (filtered) log covers, for the per-GPU rate. [1]
    name : str, default "incidents.csv"
        What to call the text in messages (the file's name).
    hints : dict, optional
        How the caller names its options, for messages: ``{"time_format": "--time-format"}`` has a time
        that does not parse say "(give --time-format)" (the command line's wording); None names no option.

    Returns
    -------
    fit : Calibration
        The fits, with ``provenance`` (file, rows read and used, filter, window, duplicate, merged and joined
        rows, open incidents, the time formats that read the times and how many cells each read). [1]

    Raises
    ------
    IncidentLogError
        Naming row and column: a time that does not parse, an end before its start, a missing,
        negative, non-numeric or longer than :data:`MAX_DURATION` duration, a join flag that is not yes
        or no, a cell over :data:`MAX_CELL_CHARS`, a row that is not CSV; the first :data:`MAX_LISTED`
        are listed and all counted.
    ValueError
        An unknown column, both or neither of end and duration, a bad unit, a ``time_format`` (one line
        naming it) or more than :data:`MAX_FORMATS` of them, ``since`` or ``until``, text over a bound of
        :func:`check_table`, no row left after the filter, or fewer than :data:`MIN_EVENTS` events in the window.

    References
    ----------
    .. [1] RFC 4180, "Common Format and MIME Type for CSV Files".

    Examples
    --------
    >>> text = "start,end\\n2024-05-01 00:00,2024-05-01 00:20\\n2024-05-01 02:00,2024-05-01 01:00\\n"
    >>> parse_incidents(text, start_column="start", end_column="end")
    Traceback (most recent call last):
    ...
    drmath.io.incidents.IncidentLogError: incidents.csv row 3, column end: '2024-05-01 01:00' is before the start ...

    Two time formats in one column, a row exported twice and an incident still open:

    >>> text = ("start,end\\n2025-03-01T00:00:00Z,2025-03-01T00:30:00Z\\n2025-03-01 06:00:00 UTC,\\n"
    ...         "2025-03-01T09:00:00Z,2025-03-01T10:00:00Z\\n2025-03-01T09:00:00Z,2025-03-01T10:00:00Z\\n"
    ...         "2025-03-01 12:00:00 UTC,2025-03-01 12:20:00 UTC\\n")
    >>> fit = parse_incidents(text, start_column="start", end_column="end")
    >>> p = fit.provenance
    >>> fit.events, p["rows_duplicate"], p["open_incidents"], p["repairs_censored"], p["time_formats"]
    (3, 1, 1, 1, ['ISO 8601', '%Y-%m-%d %H:%M:%S %Z'])
    """
    import pandas as pd

    if (end_column is None) == (duration_column is None):
        raise ValueError("give an end column or a duration column (with its unit), not "
                         + ("both" if end_column is not None else "neither"))
    if duration_column is not None and duration_unit not in DURATION_UNITS:
        raise ValueError(f"duration_unit = {short_repr(duration_unit)} is not valid: must be one of "
                         f"{', '.join(DURATION_UNITS)}")
    formats = _formats(time_format)
    if isinstance(merge_within, bool) or not (isinstance(merge_within, (int, float, np.integer, np.floating))
                                              and 0 <= merge_within <= MAX_MERGE_WITHIN):
        raise ValueError(f"merge_within (--merge-within) = {short_repr(merge_within)} is out of range: must be a "
                         f"duration in [0, {MAX_MERGE_WITHIN:g}] s")
    name = clip(visible(str(name)))
    frame, problems, columns, head_row = _read_table(text, name)
    optional = {}
    for key, column in (("cause_column", cause_column), ("scope_column", scope_column),
                        ("join_column", join_column)):
        if column is not None and (column in columns or column != _DEFAULTS[key]):
            optional[key] = column
    needed = {"start_column": start_column, "end_column": end_column, "duration_column": duration_column, **optional}
    for key, column in needed.items():
        if column is not None and column not in columns:
            raise ValueError(f"{name}: unknown column {short_repr(column)} ({key.replace('_', ' ')}); "
                             f"the columns are {_listed(columns)}")
    rows_read = len(frame) + len(problems)
    frame = frame[_where(frame, where, name, columns)]
    if frame.empty and not problems:
        raise ValueError(f"{name}: no row left after the filter {_listed(where, ' and ')} "
                         f"(of {rows_read:,} rows)"
                         if where else f"{name}: no data rows under the header (row {head_row})")
    rows_used = len(frame)
    duplicate = frame.duplicated().to_numpy()  # a row exported twice: one incident, counted once
    frame = frame[~duplicate]
    start, durations, used, errors = _times(frame, start_column, end_column, duration_column, duration_unit,
                                            formats, (hints or {}).get("time_format"))
    joins = np.zeros(len(frame), dtype=bool)
    if "join_column" in optional:
        join = optional["join_column"]
        flags = frame[join].str.strip().str.lower()
        joins = flags.isin(_TRUE).to_numpy()
        errors.append((frame.index[~(joins | flags.isin(_FALSE).to_numpy())].to_numpy(), join, lambda row: (
            f"{short_repr(frame.at[row, join])} is not a yes or no (1/0, true/false, yes/no, y/n, x or blank)")))
    _refuse(name, _kinds(problems) + errors)

    begin = _seconds(start)
    stop = begin + durations  # inf for an open incident
    resolution = _resolution(begin)
    event_start, event_end, event_last, first, joined, simultaneous = _events(begin, stop, joins, float(merge_within))
    latest = float(max(begin.max(), stop[np.isfinite(stop)].max(initial=-np.inf)))  # the log's latest time
    a = _seconds(pd.Series([_timestamp(since, "since")]))[0] if since is not None else None
    b = _seconds(pd.Series([_timestamp(until, "until")]))[0] if until is not None else latest
    if a is not None and not b > a:
        raise ValueError(f"until must be after since, got since = {short_repr(since)} and until = "
                         f"{short_repr(until if until is not None else 'the log end')}")
    inside = (event_start <= b) & (event_start >= (a if a is not None else -np.inf))
    outside = int((~inside).sum())
    event_start, event_end, event_last, first = (v[inside] for v in (event_start, event_end, event_last, first))
    if event_start.size < MIN_EVENTS:
        raise ValueError(f"{name}: {event_start.size} events in the window"
                         + (f" (since {clip(visible(str(since)))})" if since is not None else "")
                         + f"; at least {MIN_EVENTS} are needed to fit")
    opens = a is None
    a = float(event_start[0]) if opens else a
    is_open = ~np.isfinite(event_end)  # repair still running: right-censored at the window's end
    event_end = np.where(is_open, b, event_end)
    labels = {key: [visible(c) if c else "(blank)" for c in frame[optional[key]].str.strip().to_numpy()[first]]
              for key in ("cause_column", "scope_column") if key in optional}
    iso = [pd.Timestamp(x, unit="s", tz="UTC").isoformat().replace("+00:00", "Z") for x in (a, b)]
    provenance = {"file": name, "rows_read": rows_read, "rows_used": rows_used, "filter": list(where),
                  "since": None if since is None else str(since), "until": None if until is None else str(until),
                  "window_start": iso[0], "window_end": iso[1],
                  "window_opens_at_first_event": opens, "rows_duplicate": int(duplicate.sum()), "rows_joined": joined,
                  "rows_simultaneous": simultaneous, "merge_within": float(merge_within), "resolution": resolution,
                  "events_outside_window": outside, "open_incidents": int(is_open.sum()),
                  "time_formats": [ISO if f == "ISO8601" else f for f in used],
                  "time_format_cells": list(used.values()), "time_formats_given": bool(formats)}
    event_last = np.minimum(event_last, b)  # a row merged into the window's last event may start after `until`
    return fit_events(event_start, a, b, opens_window=opens, gaps_from=event_last, durations=event_end - event_start,
                      censored=is_open, causes=labels.get("cause_column"), scopes=labels.get("scope_column"),
                      gpus=gpus, provenance=provenance, resolution=resolution, merge_within=float(merge_within))


def _formats(time_format):
    """``time_format`` (None, a format, or a sequence of them) -> the list of formats, each checked; [] for none."""
    if time_format is None:
        return []
    formats = [time_format] if isinstance(time_format, str) else list(time_format)
    if len(formats) > MAX_FORMATS:
        raise ValueError(f"time_format (--time-format) is given {len(formats)} times: at most {MAX_FORMATS}")
    for fmt in formats:
        _check_format(fmt)
    return formats


def read_incidents(path, **columns):
    """Read an incident-log CSV file and fit it (:func:`parse_incidents` on the file's text).

    Parameters
    ----------
    path : str or os.PathLike
        A regular file of at most :data:`drmath.io.files.MAX_TABLE_BYTES` bytes (UTF-8), or ``"-"``
        for standard input.
    **columns
        The keywords of :func:`parse_incidents`: ``start_column``, ``end_column`` or
        ``duration_column`` and ``duration_unit``, ``time_format``, ``where``, ``since``,
        ``until``, ``gpus`` …

    Returns
    -------
    fit : Calibration
        As :func:`parse_incidents`. [1]

    Raises
    ------
    ValueError
        If the file cannot be read (missing, not a regular file, over the ceiling, not UTF-8),
        or as :func:`parse_incidents`; messages start with the file's name.

    Examples
    --------
    >>> import tempfile
    >>> log = Path(tempfile.mkdtemp()) / "log.csv"
    >>> _ = log.write_text("start,hours\\n2024-05-01,1\\n2024-05-03,2\\n2024-05-04,1\\n2024-05-09,4\\n")
    >>> fit = read_incidents(log, start_column="start", duration_column="hours", duration_unit="h")
    >>> fit.events, fit.mtbf / 86400, fit.repair_median / 3600
    (3, 2.7222222222222223, 1.6817928305074274)
    """
    raw = files.read_input(path, files.MAX_TABLE_BYTES)  # the one input guard: regular files or -, a ceiling
    name = files.STDIN_NAME if isinstance(path, str) and path == files.STDIN else visible(Path(path).name)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name}: not a UTF-8 text file (byte {exc.start})") from None
    return parse_incidents(text, name=name, **columns)



def example_log():
    """The incident log that ships with drmath: GENERATED, not a real fleet's, from stated parameters.

    Returns
    -------
    path : pathlib.Path
        ``incidents_example.csv`` in drmath's data files. Its comment lines state how it was made
        (``data/make_incidents_example.py``, a fixed seed): 54 days of a 16,384-GPU cluster ``primary``
        with a falling failure rate (a power-law process, shape 0.8, 419 expected interruptions),
        lognormal repairs (median 40 min, sigma 0.9), causes weighted by Llama 3's Table 5, and a
        cluster ``research`` to filter out.

    Examples
    --------
    >>> fit = read_incidents(example_log(), start_column="start", end_column="end", where=["cluster=primary"])
    >>> fit.events, fit.trend["direction"]
    (404, 'falling')
    """
    from .._resources import shipped_file

    return shipped_file("incidents_example.csv")
