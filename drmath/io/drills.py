r"""Drill-record logs: a CSV file of timed recovery phases in, the :class:`~drmath.drills.DrillRecord` list out.

A drill-record log is a CSV with the columns ``date, drill, phase, seconds, outcome`` (:data:`COLUMNS`), one row a
timed phase of one drill of :data:`drmath.drills.DRILLS`. :func:`read_drill_records` reads a file through the file
guards (:func:`drmath.io.files.read_input`: regular files only, up to :data:`drmath.io.files.MAX_TABLE_BYTES`),
:func:`parse_drill_records` reads text, with pandas, and validates every value: every error names the file's row,
numbered as in a spreadsheet, and the column, and nothing is returned from a file that is partly wrong. pandas is
imported only when records are read. :func:`example_log` is the illustrative log that ships with drmath.

What the records say, the RTO you can promise from them, is :func:`drmath.drills.promised_rto`: it takes the
records this module reads.

Examples
--------
>>> from drmath import drills
>>> records = read_drill_records(example_log())
>>> drills.promised_rto(records, 0.95, as_of=records[-1].date).valid
True
"""

import io
from pathlib import Path

import numpy as np

from .._resources import shipped_file
from .._validate import short_repr
from ..drills import DRILLS, OUTCOMES, DrillRecord
from . import files

__all__ = ["read_drill_records", "parse_drill_records", "example_log", "COLUMNS", "MAX_ERRORS"]

COLUMNS = ("date", "drill", "phase", "seconds", "outcome")
"""Columns of a drill-record CSV, in order."""

MAX_ERRORS = 10
"""Most bad values a drill-record error lists one by one; the rest are counted."""

_MAX_CELL = 131_072  # [characters] the longest value read: Python's csv field limit, far above any valid value


def parse_drill_records(text, name="drills.csv"):
    r"""Read drill records from CSV text, validating every value.

    Parameters
    ----------
    text : str
        CSV with the header ``date,drill,phase,seconds,outcome``, read by
        :func:`pandas.read_csv` (values may be quoted as in [1]_, but not
        across lines). Lines whose first non-blank character is ``#`` are
        comments; blank lines are skipped; a leading byte-order mark, as
        spreadsheets write it, is skipped; CRLF, LF or CR end a line. Dates
        are ISO ``YYYY-MM-DD``; ``seconds`` is a finite number >= 0. Spaces
        around a value are dropped.
    name : str, default "drills.csv"
        The file name used in error messages.

    Returns
    -------
    records : list of DrillRecord
        In file order.

    Raises
    ------
    ValueError
        Listing the first :data:`MAX_ERRORS` bad values, one a line, as
        ``"<name> row <r>, column <c>: ..."`` (rows numbered as in a
        spreadsheet: the first line is row 1, and comments and blank lines
        count), then how many more there are; each value is echoed at most
        ~200 characters long. A row that is not one record of five values
        (too few or too many values, an open quote, a value over 131,072
        characters) is named as ``"<name> row <r>: ..."``.

    Notes
    -----
    A record is valid when its drill is in :data:`drmath.drills.DRILLS`, its phase is one
    that drill measures, and its outcome is in :data:`drmath.drills.OUTCOMES`.

    References
    ----------
    .. [1] RFC 4180, "Common Format and MIME Type for CSV Files".

    Examples
    --------
    >>> text = "date,drill,phase,seconds,outcome\n2025-01-06,detection-alerting,local.detection,170,pass\n"
    >>> parse_drill_records(text)[0].seconds
    170.0
    >>> parse_drill_records(text.replace("170", "abc"))
    Traceback (most recent call last):
    ...
    ValueError: drills.csv row 2, column seconds: 'abc' is not a number >= 0
    >>> parse_drill_records(text.splitlines()[0] + "\n" + "x,y,z,w,v\n" * 1000)
    Traceback (most recent call last):
    ...
    ValueError: drills.csv row 2, column date: 'x' is not a date YYYY-MM-DD
    ...
    drills.csv: 3,990 more errors not shown (4,000 errors in 1,000 rows)
    """
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    # rows as a spreadsheet counts them, the first line being row 1; blank lines and comments are skipped
    lines = {row: line for row, line in enumerate(lines, 1) if (bare := line.strip()) and bare[0] != "#"}
    if not lines:
        raise ValueError(f"{name}: no header; expected columns {','.join(COLUMNS)}")
    try:
        cells, problems = _read_cells(lines)
    except ValueError as exc:  # pandas.errors.ParserError, which _read_cells could not get round
        raise ValueError(f"{name}: cannot read as CSV: {exc}") from None
    head = next(iter(lines))
    if head not in cells.index or tuple(cells.loc[head]) != COLUMNS:
        raise ValueError(f"{name} row {head}: header is {short_repr(lines[head].strip())}; "
                         f"expected {','.join(COLUMNS)!r}")
    cells = cells.drop(head)
    bad, dates, seconds = _cell_errors(cells)
    count = len(problems) + int(bad.to_numpy().sum())
    if count:
        flagged = sorted(set(problems).union(bad.index[bad.any(axis=1)]))
        shown = []
        for row in flagged:
            if row in problems:
                shown.append(f"{name} row {row}: {problems[row]}")
            else:
                shown += [f"{name} row {row}, column {column}: {_cell_error(column, cells.loc[row])}"
                          for column in COLUMNS if bad.at[row, column]]
            if len(shown) >= MAX_ERRORS:
                break
        shown = shown[:MAX_ERRORS]
        if count > len(shown):
            shown.append(f"{name}: {count - len(shown):,} more errors not shown "
                         f"({count:,} errors in {len(flagged):,} rows)")
        raise ValueError("\n".join(shown))
    return [DrillRecord(*fields) for fields in zip(
        dates.dt.date.tolist(), cells["drill"].tolist(), cells["phase"].tolist(), seconds.tolist(),
        cells["outcome"].tolist(), cells.index.tolist())]


def _read_cells(lines):
    """Read data lines with :func:`pandas.read_csv`: their cells, and what stops a row being read.

    ``lines`` maps row numbers to text lines. Returns ``(cells, problems)``: a frame of the stripped
    cells of every row that reads as a record (indexed by row, one column per name of
    :data:`COLUMNS`), and a dict from each other row to the reason it does not.

    pandas does the CSV reading (RFC 4180 quoting). To keep the row numbers, each line goes in
    tagged with its row number at both ends: a record's first cell says which row it came from,
    pandas skips a row with too many values (so its tag goes missing), and the position of the
    closing tag counts a row's values, where pandas would pad a short row with empty cells.
    """
    import pandas as pd

    n, names = len(COLUMNS), ",".join(COLUMNS)
    # an odd number of quotes leaves one open, and pandas would read on into the next rows
    problems = {row: 'cannot read as CSV: a quote (") is not closed'
                for row, line in lines.items() if '"' in line and line.count('"') % 2}
    order = [row for row in lines if row not in problems]
    text = "\n".join(f"{row},{lines[row]},{row}" for row in order)

    def read(text):
        return pd.read_csv(io.StringIO(text), header=None, names=range(n + 2), dtype=object, na_filter=False,
                           on_bad_lines="skip", engine="c")

    try:
        raw = read(text) if order else pd.DataFrame(columns=range(n + 2), dtype=object)
    except pd.errors.ParserError:  # a quote opened mid-value (x"y,"z) that no later line closes: close it
        raw = read(text + '"')
    raw.index = raw.pop(0).astype(int)
    # a quote opened mid-value (x"y,"z) carries a record on over the next rows, line breaks and all
    carried = set()
    for row in raw.index.intersection([row for row in order if '"' in lines[row]]):
        breaks = sum(cell.count("\n") for cell in raw.loc[row])
        if breaks:
            at = order.index(row)
            problems[row] = f"cannot read as CSV: a quoted value runs on to row {order[at + breaks]}"
            carried.update(order[at + 1:at + 1 + breaks])
    found = set(raw.index)
    problems.update((row, f"has more than {n} values, expected {n} ({names})")
                    for row in order if row not in found and row not in carried)
    for row in raw.index.intersection([row for row in order if len(lines[row]) > _MAX_CELL]):
        if row not in problems and max(map(len, raw.loc[row])) > _MAX_CELL:
            problems[row] = f"cannot read as CSV: field larger than field limit ({_MAX_CELL})"
    cells = raw.to_numpy(dtype=object)
    values = (cells != "").cumsum(axis=1).argmax(axis=1)    # the closing tag's position: the row's values
    for row, count in zip(raw.index[values != n], values[values != n]):
        problems.setdefault(row, f"has {count} values, expected {n} ({names})")
    keep = ~raw.index.isin(list(problems))
    strip = np.frompyfunc(str.strip, 1, 1)
    return pd.DataFrame(strip(cells[keep, :n]), index=raw.index[keep], columns=list(COLUMNS)), problems


def _cell_errors(cells):
    """Check the cells of well-formed rows: ``(bad, dates, seconds)``.

    ``bad`` is a frame of bools shaped like ``cells`` (True marks a bad value; a phase is checked
    only against a known drill); ``dates`` and ``seconds`` are the parsed columns.
    """
    import pandas as pd

    def parsed(column, parse):  # each distinct value once: logs repeat their dates, hostile files everything
        codes, distinct = pd.factorize(cells[column])
        return pd.Series(parse(pd.Series(distinct, dtype=object)).to_numpy()[codes], index=cells.index)

    date = parsed("date", lambda s: pd.to_datetime(s, format="%Y-%m-%d", errors="coerce"))
    seconds = parsed("seconds", lambda s: pd.to_numeric(s, errors="coerce").astype(float))
    drill = cells["drill"].isin(list(DRILLS))
    measured = [(d.name, phase) for d in DRILLS.values() for phase in d.measures]
    phase = pd.MultiIndex.from_frame(cells[["drill", "phase"]]).isin(measured)
    bad = pd.DataFrame({"date": date.isna(), "drill": ~drill, "phase": drill & ~phase,
                        "seconds": ~(np.isfinite(seconds) & (seconds >= 0)),
                        "outcome": ~cells["outcome"].isin(list(OUTCOMES))}, index=cells.index)
    return bad, date, seconds


def _cell_error(column, row):
    """The message for one bad cell of a row (a Series of its stripped cells)."""
    value = short_repr(row[column])
    if column == "date":
        return f"{value} is not a date YYYY-MM-DD"
    if column == "drill":
        return f"{value} is not a drill; choose from {', '.join(DRILLS)}"
    if column == "phase":
        return f"{value} is not measured by {row['drill']}; it measures {', '.join(DRILLS[row['drill']].measures)}"
    if column == "seconds":
        return f"{value} is not a number >= 0"
    return f"{value} is not one of {', '.join(OUTCOMES)}"


def read_drill_records(path):
    """Read and validate a drill-record CSV file.

    Parameters
    ----------
    path : str or path-like
        The CSV file [1]_; see :func:`parse_drill_records` for the format. A regular
        file of at most :data:`drmath.io.files.MAX_TABLE_BYTES` bytes, or ``"-"`` for
        standard input.

    Returns
    -------
    records : list of DrillRecord
        In file order.

    Raises
    ------
    ValueError
        If the file cannot be read (missing, not a regular file such as a FIFO or a
        device, over the size ceiling), is not UTF-8 text, or as :func:`parse_drill_records`.

    Notes
    -----
    Errors name the file, its row and column, as in :func:`parse_drill_records`.
    A byte-order mark at the start (as Excel's "CSV UTF-8" writes) is skipped.

    References
    ----------
    .. [1] RFC 4180.

    Examples
    --------
    >>> records = read_drill_records(example_log())
    >>> len(records), records[0].phase, records[0].seconds
    (177, 'local.detection', 145.0)
    """
    raw = files.read_input(path, files.MAX_TABLE_BYTES)  # the one input guard: regular files only, up to a ceiling
    name = "<stdin>" if isinstance(path, str) and path == "-" else Path(path).name
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name}: not a UTF-8 text file (byte {exc.start})") from None
    return parse_drill_records(text, name=name)


def example_log():
    """The drill log that ships with drmath: illustrative, invented numbers that show the format.

    Returns
    -------
    path : pathlib.Path
        ``drills_example.csv`` in drmath's data files: 177 records of 85 drills of the four
        kinds of :data:`drmath.drills.DRILLS`, March to June 2025. Read it with :func:`read_drill_records`;
        they are not measurements of any cluster, so replace it with your own log. It runs a month into
        the seed scenario's run (which starts 2025-05-26); the worked answer makes its promise on the day
        of the newest record (:func:`drmath.answer.promise_day`).

    Examples
    --------
    >>> records = read_drill_records(example_log())
    >>> len({(r.date, r.drill) for r in records})  # drills held
    85
    >>> str(max(r.date for r in records))
    '2025-06-27'
    """
    return shipped_file("drills_example.csv")
