"""An incident log taken from a web page: a CSV's bytes in, bounded; its columns mapped; its fit out, or one line.

What the dashboard's "your own fleet" panel (:class:`~drmath.dashboard.fleet.FleetPanel`) and notebook 08's
upload (:class:`LogUpload`, whose fit redraws the page's :class:`Sections`) both need, written once:
:class:`LogForm` holds the upload button (:class:`~drmath.dashboard.upload.UploadButton`), "use the example log",
the dropdowns that map the log's columns (start; end, or duration and its unit; optionally cause, scope, a filter
and the fleet's GPU count), "fit" and the error line, and turns them into the keywords of
:func:`drmath.io.incidents.parse_incidents` (:meth:`LogForm.read`).

The public page is hostile ground, so the form bounds what it takes before parsing: :data:`MAX_UPLOAD_BYTES`
(under the server's one-message limit, ``drmath.serve.MAX_MESSAGE_SIZE``; the upload button checks it in the page
and sends a bigger file's name and size only, so a refused file gets this form's message rather than an ended
session; the kernel checks it again), :data:`MAX_UPLOAD_ROWS` lines (CR, LF and CRLF each end one: a file of CR-only
line ends is counted as a spreadsheet counts it) and :data:`MAX_COLUMNS`, checked by the reader's own
:func:`drmath.io.incidents.check_table` before anything is parsed. It takes bytes only: no path, so a page's
visitor never reads a file of the server. Every failure shows as one line in ``.drmath-fleet-error`` and changes
nothing; no control character of the file or its name reaches the page (each is shown as its escape, ``\\x1b``).

    >>> form = LogUpload()
    >>> fits = []
    >>> form.on_fit(fits.append)
    >>> form.use_example(), form.fit() is fits[0], fits[0].events
    (True, True, 404)
"""

import html
from types import SimpleNamespace

import ipywidgets as W

from .. import offline
from ..io import incidents
from ..io.files import visible
from ..viz.palette import css_variables
from .upload import UploadButton

__all__ = ["LogForm", "LogUpload", "Sections", "one_line", "MAX_UPLOAD_BYTES", "MAX_UPLOAD_ROWS", "MAX_COLUMNS",
           "EXAMPLE", "EXAMPLE_MAPPING", "NONE", "STYLE"]

MAX_UPLOAD_BYTES = 768 * 2**10
"""Largest incident log the page takes [B]: under the server's 1 MiB limit on one websocket message
(``drmath.serve.MAX_MESSAGE_SIZE``), which the upload travels in. About 9,000 rows of 80 B; a bigger log is
the CLI's (``drmath calibrate``), which reads up to ``drmath.io.files.MAX_TABLE_BYTES``."""

MAX_UPLOAD_ROWS = 20_000
"""Most lines an uploaded log may have besides its header [1]: bounds the parse whatever the bytes hold. CR, LF
and CRLF each end a line (:func:`drmath.io.incidents.count_lines`): counting LF alone let a log of CR-only line ends
parse 58,000 rows while the panel said "0 lines"."""

MAX_COLUMNS = 64
"""Most columns an uploaded log's header may name [1]: the dropdowns list them."""

EXAMPLE = "incidents_example.csv"
"""The shipped example log's name (:func:`drmath.io.incidents.example_log`; generated from stated parameters)."""

EXAMPLE_MAPPING = {"start": "start", "end": "end", "cause": "cause", "scope": "scope", "where": "cluster",
                   "where_value": "primary", "gpus": 16384}
"""How "use the example log" maps the example's columns: its primary cluster, 16,384 GPUs."""

NONE = "(none)"
"""The dropdown choice for a column left unmapped."""

STYLE = "<style>\n" + css_variables() + """
.drmath-fleet { border-top: 1px solid var(--drmath-grid); padding-top: 6px; }
.drmath-fleet-summary pre { font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  white-space: pre-wrap; margin: 4px 0; }
.drmath-fleet-error-message { color: var(--drmath-red-ink); background: var(--drmath-red-tint);
  border: 1px solid var(--drmath-red-line); padding: 4px 8px; border-radius: 4px; font-size: 13px; }
.drmath-fleet-note { font-size: 12.5px; color: var(--drmath-muted); margin: 2px 4px; }
.drmath-cause-table { border-collapse: collapse; font-size: 12.5px; margin: 4px; }
.drmath-cause-table th, .drmath-cause-table td { padding: 2px 8px; text-align: left; }
.drmath-cause-table td { text-align: right; font-variant-numeric: tabular-nums; }
.drmath-cause-table caption { text-align: left; font-weight: 600; }
</style>"""
"""The CSS of the form and of the fit shown beside it (the panel's classes; a notebook page has no other), with the
palette's colours as CSS variables (:func:`drmath.viz.palette.css_variables`), which a notebook page has no other way
to get."""


def _too_big(name, size):
    """The one line refusing a log of ``size`` bytes [B], over :data:`MAX_UPLOAD_BYTES`."""
    return (f"{name} is {size / 2**10:,.0f} KiB: this page takes logs of at most {MAX_UPLOAD_BYTES // 2**10:,} KiB; "
            "fit a bigger one with drmath calibrate")


def one_line(exc):
    """An error as one line: the first problem, and how many there are in all when several.

    Parameters
    ----------
    exc : Exception
        Usually a ``ValueError`` of the library (an :class:`~drmath.io.incidents.IncidentLogError` lists one
        problem a line and counts them on its last).

    Returns
    -------
    line : str
        Without a newline.

    Examples
    --------
    >>> one_line(ValueError("the first problem\\nthe second"))
    'the first problem (2 lines)'
    """
    lines = str(exc).splitlines() or [type(exc).__name__]
    if len(lines) == 1:
        return lines[0]
    tail = lines[-1].split(": ", 1)[-1] if isinstance(exc, incidents.IncidentLogError) else f"{len(lines)} lines"
    return f"{lines[0]} ({tail})"


class LogForm:
    """A log's bytes in (an upload or the example), bounded and decoded; its columns mapped; its fit read.

    The widgets are made by :meth:`_build` when first needed (:meth:`_ensure`); a subclass places them
    (:meth:`form`) and wires "fit" (:attr:`fit_button`).

    Attributes
    ----------
    columns : list of str
        The loaded log's header, each name shown with its control characters escaped; [] before a log.
    error : ipywidgets.HTML or None
        The last failure, one line; empty when none (None until the widgets are made).
    is_example : bool
        Whether the log loaded is the shipped example (:meth:`use_example`), not an upload.
    """

    def __init__(self):
        self.is_example = False
        self.columns = []
        self._raw = {}  # a column's name as shown (control characters escaped) -> as the log spells it
        self._text = self._name = None
        self.error = None

    # ---- the widgets

    def _ensure(self):
        """Make the widgets if they are not yet made (a subclass may show itself here)."""
        if self.error is None:
            self._build()

    def _dropdown(self, name, description, options=(NONE,)):
        widget = W.Dropdown(options=list(options), value=options[0], description=description,
                            layout=W.Layout(width="260px"), style={"description_width": "80px"})
        return widget.add_class(f"drmath-fleet-{name}")

    def _build(self):
        self.upload = UploadButton(max_bytes=MAX_UPLOAD_BYTES, accept=".csv,text/csv", description="upload a CSV",
                                   layout=W.Layout(width="auto")).add_class("drmath-fleet-upload")
        self.upload.on_file(self.load)
        self.upload.on_refused(self._refuse)
        self.example = W.Button(description="use the example log", layout=W.Layout(width="auto"),
                                tooltip="a generated log: 54 days of 16,384 GPUs with a falling failure rate")
        self.example.add_class("drmath-fleet-example")
        self.example.on_click(lambda _: self.use_example())
        self.source = W.HTML("").add_class("drmath-fleet-source")
        self.start, self.end = self._dropdown("start", "start"), self._dropdown("end", "end")
        self.duration = self._dropdown("duration", "or duration")
        self.unit = self._dropdown("unit", "in", tuple(incidents.DURATION_UNITS))
        self.cause, self.scope = self._dropdown("cause", "cause"), self._dropdown("scope", "scope")
        self.where = self._dropdown("where", "keep where")
        self.where_value = W.Text(value="", description="equals", layout=W.Layout(width="260px"),
                                  style={"description_width": "80px"}).add_class("drmath-fleet-where-value")
        self.gpus = W.BoundedIntText(value=0, min=0, max=10**8, description="GPUs", layout=W.Layout(width="260px"),
                                     style={"description_width": "80px"},
                                     tooltip="GPUs of the fleet the log covers (0: not given; the fit then "
                                             "sets the cluster's MTBF, not a per-GPU rate)")
        self.gpus.add_class("drmath-fleet-gpus")
        self.fit_button = W.Button(description="fit", button_style="primary", disabled=True,
                                   layout=W.Layout(width="auto")).add_class("drmath-fleet-fit")
        self.error = W.HTML("", layout=W.Layout(width="100%")).add_class("drmath-fleet-error")

    def form(self):
        """The form's widgets as one column: the note, the log's source, the mapping (not "fit" nor the error).

        Returns
        -------
        form : list of ipywidgets.Widget
            Made by :meth:`_build` already.
        """
        note = W.HTML('<div class="drmath-fleet-note">A CSV of incidents, one a row, of at most '
                      f"{MAX_UPLOAD_BYTES // 2**10:,} KiB and {MAX_UPLOAD_ROWS:,} rows (bigger logs: "
                      "<code>drmath calibrate</code>). Nothing leaves this page's kernel.</div>")
        mapping = W.HBox([W.VBox([self.start, self.end, self.duration, self.unit]),
                          W.VBox([self.cause, self.scope, self.where, self.where_value, self.gpus])],
                         layout=W.Layout(flex_flow="row wrap"))
        return [W.HTML(STYLE), note, W.HBox([self.upload, self.example, self.source],
                                            layout=W.Layout(align_items="center", grid_gap="8px")), mapping]

    def _show_error(self, message):
        self.error.value = (f'<div class="drmath-fleet-error-message">{html.escape(visible(message))}</div>'
                            if message else "")

    # ---- a log in

    def _refuse(self, name, size):
        """Say why the upload button refused a file (``size`` [B], or None: unreadable); nothing changes."""
        self._ensure()
        self._show_error(_too_big(name, size) if size is not None else f"{name}: the browser could not read it")

    def _loaded(self):
        """Called when a new log is taken, before its columns are offered (a subclass drops its old fit here)."""

    def load(self, name, raw):
        """Take a log's bytes, bounded and decoded, and offer its columns; nothing is fitted yet.

        Parameters
        ----------
        name : str
            The file's name, for messages.
        raw : bytes
            Its content: at most :data:`MAX_UPLOAD_BYTES` bytes of UTF-8, at most :data:`MAX_UPLOAD_ROWS`
            lines and :data:`MAX_COLUMNS` columns.

        Returns
        -------
        loaded : bool
            False when refused (the reason is in :attr:`error`; the previous log and fit stay).
        """
        self._ensure()
        name = visible(name.replace("\n", " ")[:120]) or "upload.csv"
        try:
            text, columns = self._checked(name, raw)
        except ValueError as exc:
            self._show_error(one_line(exc))
            return False
        self._text, self._name, self.is_example = text, name, False
        self.columns = [visible(column) for column in columns]
        self._raw = dict(zip(self.columns, columns))
        self.fit_button.disabled = False
        self._loaded()
        self._offer_columns()
        self._show_error("")
        self.source.value = (f'<span class="drmath-fleet-note">{html.escape(name)}: '
                             f"{len(self.columns)} columns, {incidents.count_lines(text):,} lines</span>")
        return True

    def _checked(self, name, raw):
        """The log's text and its header's names, or ValueError naming what is over its bound."""
        if len(raw) > MAX_UPLOAD_BYTES:
            raise ValueError(_too_big(name, len(raw)))
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{name}: not a UTF-8 text file (byte {exc.start})") from None
        text = text.removeprefix("\ufeff")
        columns = incidents.check_table(text, name, max_rows=MAX_UPLOAD_ROWS, max_columns=MAX_COLUMNS,
                                        reader="this page", hint="; fit a bigger log with drmath calibrate")[3]
        return text, columns

    def use_example(self):
        """Load the shipped example log (:data:`EXAMPLE`) and map its columns (:data:`EXAMPLE_MAPPING`).

        Returns
        -------
        loaded : bool
            True when loaded.
        """
        path = incidents.example_log()
        if not self.load(EXAMPLE, path.read_bytes()):
            return False
        self.map_columns(**EXAMPLE_MAPPING)
        self.is_example = True
        return True

    def _offer_columns(self):
        options = [NONE, *self.columns]
        guess = {name.lower(): name for name in self.columns}
        for widget, wanted in ((self.start, "start"), (self.end, "end"), (self.duration, "duration"),
                               (self.cause, "cause"), (self.scope, "scope"), (self.where, None)):
            widget.options = options
            widget.value = guess.get(wanted, NONE) if wanted else NONE
        self.where_value.value = ""

    def map_columns(self, start=NONE, end=NONE, duration=NONE, unit="min", cause=NONE, scope=NONE, where=NONE,
                    where_value="", gpus=0):
        """Set the column mapping, as the dropdowns do (column names of the loaded log, or :data:`NONE`).

        Raises
        ------
        ValueError
            If a name is not a column of the loaded log.
        """
        self._ensure()
        for widget, value in ((self.start, start), (self.end, end), (self.duration, duration),
                              (self.cause, cause), (self.scope, scope), (self.where, where)):
            if value not in widget.options:
                raise ValueError(f"{value!r} is not a column of {self._name}; the columns are "
                                 f"{', '.join(self.columns)}")
            widget.value = value
        self.unit.value, self.where_value.value, self.gpus.value = unit, where_value, gpus

    # ---- the fit

    def keywords(self):
        """The keywords of :func:`drmath.io.incidents.parse_incidents` the dropdowns say.

        Returns
        -------
        keywords : dict
            ``start_column``, ``end_column``, ``duration_column``, ``duration_unit``, ``cause_column``,
            ``scope_column``, ``where``, ``gpus`` and ``name``.

        Raises
        ------
        ValueError
            No log loaded, no start column, both or neither of end and duration, or a filter without a value.
        """
        def column(widget):
            return None if widget.value == NONE else self._raw.get(widget.value, widget.value)

        if self._text is None:
            raise ValueError("no incident log yet: upload a CSV or use the example log")
        if column(self.start) is None:
            raise ValueError("map the start column: which column holds each incident's start time?")
        if (column(self.end) is None) == (column(self.duration) is None):
            raise ValueError("map an end column or a duration column, not "
                             + ("both" if column(self.end) else "neither"))
        where = []
        if column(self.where) is not None:
            if not self.where_value.value.strip():
                raise ValueError(f"keep where {self.where.value} equals what? Give a value, or choose (none)")
            where = [f"{column(self.where)}={self.where_value.value.strip()}"]
        return {"start_column": column(self.start), "end_column": column(self.end),
                "duration_column": column(self.duration),
                "duration_unit": self.unit.value if column(self.duration) else None,
                "cause_column": column(self.cause), "scope_column": column(self.scope), "where": where,
                "gpus": self.gpus.value or None, "name": self._name}

    def read(self):
        """The loaded log fitted with the mapping on screen.

        Returns
        -------
        fit : Calibration
            :func:`drmath.io.incidents.parse_incidents` of the log's text with :meth:`keywords`.

        Raises
        ------
        ValueError
            As :meth:`keywords` and :func:`~drmath.io.incidents.parse_incidents`.
        """
        self._ensure()
        return incidents.parse_incidents(self._text, **self.keywords())


class LogUpload(LogForm):
    """The form alone, for a page that redraws itself from the fit: "fit" hands the fit to its callbacks.

    A callback may refuse the fit by raising ``ValueError`` (its message shows as one line); callbacks should
    compute everything before they show anything, so that a refused fit leaves the page as it was.

    Attributes
    ----------
    root : ipywidgets.VBox
        The form, to place on the page: ``.drmath-fleet``, with "fit", a status line and the error line.
    """

    def __init__(self):
        super().__init__()
        self._callbacks = []
        self._build()
        self.status = W.HTML("").add_class("drmath-fleet-status")
        self.fit_button.on_click(lambda _: self.fit())
        self.root = W.VBox([*self.form(), W.HBox([self.fit_button, self.status],
                                                 layout=W.Layout(align_items="center", grid_gap="8px")),
                            self.error], layout=W.Layout(width="100%")).add_class("drmath-fleet")

    def on_fit(self, callback):
        """Call ``callback(fit)`` with each fit (a :class:`~drmath.calibrate.Calibration`)."""
        self._callbacks.append(callback)

    def fit(self):
        """Fit the loaded log with the mapping on screen and hand the fit on; on error, one line and no change.

        Returns
        -------
        fit : Calibration or None
            The fit; None when refused (by the reader or by a callback). A ``ValueError`` shows as its one line;
            anything else a callback raises as one line naming it (a bug of the model, not of the log, but the
            page's reader gets no traceback).
        """
        self.status.value = f'<span class="drmath-fleet-note">fitting {html.escape(self._name or "")}…</span>'
        try:
            fit = self.read()
            for callback in self._callbacks:
                callback(fit)
        except ValueError as exc:
            self._show_error(one_line(exc))
            return None
        except Exception as exc:  # a log the model cannot take, whatever it raised: one line on the page, never
            # a traceback, and the page as it was (the callbacks compute before they show)
            self._show_error(f"{self._name}: the page could not be drawn from this log ({type(exc).__name__}: "
                             f"{one_line(exc)}); nothing changed")
            return None
        finally:
            self.status.value = ""
        self._show_error("")
        self.status.value = f'<span class="drmath-fleet-note">shown: {html.escape(self._name)}</span>'
        return fit


class Sections:
    """A page's sections drawn from one fit, each in its own place, all redrawn when another log is fitted.

    Each section is a function of the page (a namespace holding the keywords :meth:`refill` was given, ``fit``
    among them) returning the objects it shows; it may set names on the page for the sections after it (a
    design, its bands). :meth:`section` draws one where it is called (a notebook cell) through
    :class:`drmath.offline.Redraw`; :meth:`refill` draws every section again from another fit, computing all of
    them before showing any, so that a refused fit (a ``ValueError``) leaves the page as it was.

    Parameters
    ----------
    **page
        The first page's names: ``fit`` and whatever the sections read.

    Examples
    --------
    >>> page = Sections(fit=3)
    >>> page.refill(fit=4)
    >>> page.page.fit
    4
    """

    def __init__(self, **page):
        self.page = SimpleNamespace(**page)
        self.drawn = []  # (Redraw, section)

    def section(self, draw):
        """Show ``draw(page)`` here, and again at each :meth:`refill`.

        Parameters
        ----------
        draw : callable
            ``draw(page)`` -> a list of objects IPython can display, as many at every call.
        """
        from IPython.display import display

        view = offline.Redraw()
        objects = draw(self.page)
        display(view.output)
        view.show(*objects)
        self.drawn.append((view, draw))

    def refill(self, **page):
        """Draw every section again from a new page; nothing is shown unless every section could be drawn.

        Parameters
        ----------
        **page
            The new page's names, as the constructor's.

        Raises
        ------
        ValueError
            From a section; nothing changed.
        """
        new = SimpleNamespace(**page)
        shown = [draw(new) for _, draw in self.drawn]
        for (view, _), objects in zip(self.drawn, shown):
            view.show(*objects)
        self.page = new
