"""The dashboard's "your own fleet" panel: an incident log in, its fit shown, and applied as the failure model.

A visitor uploads a CSV (:class:`~drmath.dashboard.upload.UploadButton`) or takes the shipped example log, maps its
columns with dropdowns (start; end, or duration and its unit; optionally cause, scope, a filter and the
fleet's GPU count), presses "fit" and sees :meth:`drmath.calibrate.Calibration.summary`, the gaps against
the fitted densities, the failures over time and the cause table (:mod:`drmath.viz.fleet`). "apply as
failure model" sets the dashboard's scenario to :meth:`Calibration.apply` of the one on screen, through the
dashboard's one funnel (:meth:`Dashboard.load`): all of it or nothing.

The public page is hostile ground, so the panel bounds what it takes before parsing:
:data:`MAX_UPLOAD_BYTES` (under the server's one-message limit, ``drmath.serve.MAX_MESSAGE_SIZE``; the
upload button checks it in the page and sends a bigger file's name and size only, so a refused file gets
this panel's message rather than an ended session; the kernel checks it again), :data:`MAX_UPLOAD_ROWS` lines (CR,
LF and CRLF each end one: a file of CR-only line ends is counted as a spreadsheet counts it) and :data:`MAX_COLUMNS`,
checked by the reader's own :func:`drmath.io.incidents.check_table` before anything is parsed; the file is then read
by :func:`drmath.io.incidents.parse_incidents` with its own guards. Every failure shows as one line in
``.drmath-fleet-error`` and changes nothing; no control character of the file or its name reaches the page (each
is shown as its escape, ``\\x1b``).

The panel's widgets are made when it is first opened (:meth:`FleetPanel.open`): a page that never opens
it pays for one toggle button.

Test hooks: ``.drmath-fleet-toggle``, ``.drmath-fleet-upload`` (its ``button`` opens the file chooser
of a hidden ``input[type=file]``: a browser test takes the chooser it opens),
``.drmath-fleet-example``, ``.drmath-fleet-<start|end|duration|unit|cause|scope|where|where-value|gpus>``,
``.drmath-fleet-fit``, ``.drmath-fleet-apply``, ``.drmath-fleet-summary``, ``.drmath-fleet-gaps`` and
``.drmath-fleet-trend`` (figures), ``.drmath-cause-table``, ``.drmath-fleet-error``, ``.drmath-fleet-applied``.

    >>> from drmath.dashboard import build_app
    >>> panel = FleetPanel(build_app())
    >>> panel.use_example(), panel.fit() is not None
    (True, True)
    >>> panel.calibration.trend["direction"]
    'falling'
"""

import html

import ipywidgets as W

from .. import viz
from ..formatting import short_duration
from ..io import incidents
from ..io.files import visible
from .upload import UploadButton
from .widgets import PlotlyView

__all__ = ["FleetPanel", "confidence_choice", "searching_html", "CONFIDENCES", "MAX_UPLOAD_BYTES", "MAX_UPLOAD_ROWS",
           "MAX_COLUMNS", "EXAMPLE", "EXAMPLE_MAPPING", "NONE"]

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

_STYLE = """<style>
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


def _too_big(name, size):
    """The one line refusing a log of ``size`` bytes [B], over :data:`MAX_UPLOAD_BYTES`."""
    return (f"{name} is {size / 2**10:,.0f} KiB: this page takes logs of at most {MAX_UPLOAD_BYTES // 2**10:,} KiB; "
            "fit a bigger one with drmath calibrate")


def _one_line(exc):
    """An error as one line: the first problem, and how many there are in all when several."""
    lines = str(exc).splitlines() or [type(exc).__name__]
    if len(lines) == 1:
        return lines[0]
    tail = lines[-1].split(": ", 1)[-1] if isinstance(exc, incidents.IncidentLogError) else f"{len(lines)} lines"
    return f"{lines[0]} ({tail})"


class FleetPanel:
    """The "your own fleet" panel of a :class:`~drmath.dashboard.Dashboard`.

    Parameters
    ----------
    app : Dashboard
        The dashboard whose scenario "apply as failure model" sets.

    Attributes
    ----------
    root : ipywidgets.VBox
        The panel, to place on the page: a toggle, and the panel once opened.
    calibration : Calibration or None
        The last fit; None before one (or after a new log is loaded).
    error : ipywidgets.HTML or None
        The last failure, one line; empty when none (made with the panel).

    Examples
    --------
    >>> from drmath.dashboard import build_app
    >>> panel = FleetPanel(build_app())
    >>> panel.load("log.csv", b"when,minutes\\n2024-05-01,3\\n"), panel.columns
    (True, ['when', 'minutes'])
    """

    def __init__(self, app):
        self.app = app
        self.calibration = None
        self.columns = []
        self._raw = {}  # a column's name as shown (control characters escaped) -> as the log spells it
        self._text = self._name = None
        self.error = None
        self.toggle = W.ToggleButton(value=False, description="your own fleet: fit an incident log", icon="",
                                     layout=W.Layout(width="auto"),
                                     tooltip="upload your fleet's incident log (CSV), fit its failure model and "
                                             "apply it to this design")
        self.toggle.add_class("drmath-fleet-toggle")
        self.toggle.observe(lambda change: self.open(change["new"]), "value")
        self.box = None
        self.root = W.VBox([self.toggle], layout=W.Layout(width="100%")).add_class("drmath-fleet-holder")

    # ---- the widgets, made on first open

    def open(self, on=True):
        """Show the panel (making its widgets the first time), or hide it.

        Parameters
        ----------
        on : bool, default True
            Show it; False hides it.
        """
        if on and self.box is None:
            self._build()
            self.root.children = (self.toggle, self.box)
        if self.box is not None:
            self.box.layout.display = "flex" if on else "none"
        if self.toggle.value != on:
            self.toggle.value = on

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
        self.fit_button.on_click(lambda _: self.fit())
        self.apply_button = W.Button(description="apply as failure model", disabled=True,
                                     layout=W.Layout(width="auto")).add_class("drmath-fleet-apply")
        self.apply_button.on_click(lambda _: self.apply())
        self.error = W.HTML("", layout=W.Layout(width="100%")).add_class("drmath-fleet-error")
        self.applied = W.HTML("").add_class("drmath-fleet-applied")
        self.summary = W.HTML("", layout=W.Layout(width="100%")).add_class("drmath-fleet-summary")
        self.figures = {name: PlotlyView(layout=W.Layout(width="100%", display="none")).add_class(
            f"drmath-fleet-{name}").add_class("drmath-fleet-figure") for name in viz.FLEET_FIGURES}
        self.causes = W.HTML("").add_class("drmath-fleet-causes")
        note = W.HTML('<div class="drmath-fleet-note">A CSV of incidents, one a row, of at most '
                      f"{MAX_UPLOAD_BYTES // 2**10:,} KiB and {MAX_UPLOAD_ROWS:,} rows (bigger logs: "
                      "<code>drmath calibrate</code>). Nothing leaves this page's kernel.</div>")
        mapping = W.HBox([W.VBox([self.start, self.end, self.duration, self.unit]),
                          W.VBox([self.cause, self.scope, self.where, self.where_value, self.gpus])],
                         layout=W.Layout(flex_flow="row wrap"))
        self.box = W.VBox([W.HTML(_STYLE), note, W.HBox([self.upload, self.example, self.source],
                                                         layout=W.Layout(align_items="center", grid_gap="8px")),
                           mapping, W.HBox([self.fit_button, self.apply_button, self.applied],
                                           layout=W.Layout(align_items="center", grid_gap="8px")),
                           self.error, self.summary, *self.figures.values(), self.causes],
                          layout=W.Layout(width="100%")).add_class("drmath-fleet")

    # ---- a log in

    def _show_error(self, message):
        self.error.value = (f'<div class="drmath-fleet-error-message">{html.escape(visible(message))}</div>'
                            if message else "")

    def _refuse(self, name, size):
        """Say why the upload button refused a file (``size`` [B], or None: unreadable); nothing changes."""
        self.open()
        self._show_error(_too_big(name, size) if size is not None else f"{name}: the browser could not read it")

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
        self.open()
        name = visible(name.replace("\n", " ")[:120]) or "upload.csv"
        try:
            text, columns = self._checked(name, raw)
        except ValueError as exc:
            self._show_error(_one_line(exc))
            return False
        self._text, self._name = text, name
        self.columns = [visible(column) for column in columns]
        self._raw = dict(zip(self.columns, columns))
        self.calibration = None
        self.apply_button.disabled, self.fit_button.disabled = True, False
        self._offer_columns()
        self._clear_fit()
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
        for widget, value in ((self.start, start), (self.end, end), (self.duration, duration),
                              (self.cause, cause), (self.scope, scope), (self.where, where)):
            if value not in widget.options:
                raise ValueError(f"{value!r} is not a column of {self._name}; the columns are "
                                 f"{', '.join(self.columns)}")
            widget.value = value
        self.unit.value, self.where_value.value, self.gpus.value = unit, where_value, gpus

    # ---- the fit

    def _columns(self):
        """The keywords of :func:`drmath.io.incidents.parse_incidents` the dropdowns say, or ValueError."""
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

    def fit(self):
        """Fit the loaded log with the mapping on screen and show the fit; on error, one line and no change.

        Returns
        -------
        fit : Calibration or None
            The fit; None when refused (the previous fit stays shown and applicable).
        """
        self.open()
        try:
            fit = incidents.parse_incidents(self._text, **self._columns())
            specs = viz.fleet_specs(fit)
        except ValueError as exc:
            self._show_error(_one_line(exc))
            return None
        self.calibration = fit
        self._show_error("")
        self.summary.value = f"<pre>{html.escape(fit.summary())}</pre>"
        for name, spec in specs.items():
            view = self.figures[name]
            with view.hold_sync():
                view.revision += 1
                view.figure = spec
            view.layout.display = "block"
        self.causes.value = viz.cause_table_html(fit)
        self.apply_button.disabled = False
        self.applied.value = ""
        return fit

    def _clear_fit(self):
        self.summary.value = self.causes.value = self.applied.value = ""
        for view in self.figures.values():
            view.layout.display = "none"

    def apply(self):
        """Set the dashboard's scenario to the fit applied to it (:meth:`Calibration.apply`): all or nothing.

        Returns
        -------
        applied : bool
            False when there is no fit or the scenario refused it (the message is in :attr:`error`).
        """
        self.open()
        if self.calibration is None:
            self._show_error("fit a log first: nothing to apply")
            return False
        try:
            scenario = self.calibration.apply(self.app.scenario)
        except ValueError as exc:
            self._show_error(_one_line(exc))
            return False
        if not self.app.load(scenario):  # the dashboard kept its scenario and says why above
            self._show_error("the dashboard refused the fitted model (its message is above): nothing applied")
            return False
        self._show_error("")
        fit = self.calibration
        what = (f"{fit.gpu_failure_rate:.3g} failures per GPU-second" if fit.gpu_failure_rate is not None
                else f"a cluster MTBF of {short_duration(fit.mtbf)}")
        self.applied.value = (f'<span class="drmath-fleet-note">applied: {html.escape(what)}, Weibull shape '
                              f"{fit.weibull_shape:.3g}, with their 95% intervals</span>")
        return True


# --------------------------------------------------------------------------- the confidence solve

CONFIDENCES = (("on point estimates", 0.0), ("at 90% confidence", 0.9), ("at 95% confidence", 0.95))
"""The confidence levels "apply the cheapest design" offers: ``(label, p)``; 0 solves on the point estimates.
(Not None: an ipywidgets ``Dropdown`` whose value is None shows no option, so the choice looked blank.)"""


def confidence_choice():
    """The dropdown beside "apply the cheapest design": solve on the point estimate, or at 90% or 95% confidence.

    Returns
    -------
    choice : ipywidgets.Dropdown
        Its value is 0 (solve on the point estimates) or the ``confidence`` of :func:`drmath.solve` (0.9 or
        0.95); CSS class ``drmath-confidence``. Its option reads on from the button: "apply the cheapest design"
        "on point estimates".

    Examples
    --------
    >>> choice = confidence_choice()
    >>> choice.value, choice.label
    (0.0, 'on point estimates')
    """
    choice = W.Dropdown(options=list(CONFIDENCES), value=0.0, layout=W.Layout(width="170px"),
                        tooltip="the probability, over the uncertain inputs, that the design meets every target")
    return choice.add_class("drmath-confidence")


def searching_html(confidence, draws=2000):
    """The progress line while the search runs, saying what it does at a confidence level.

    Parameters
    ----------
    confidence : float or None
        The level asked for (:func:`drmath.solve`'s ``confidence``). [1]
    draws : int, default 2000
        Draws of the uncertain inputs the search judges each design on. [1]

    Returns
    -------
    html : str
        A ``.drmath-solution-message``.

    Examples
    --------
    >>> searching_html(0.95)
    '<div class="drmath-solution-message">searching the designs at 95% confidence over 2,000 draws…</div>'
    """
    what = "" if confidence is None else f" at {confidence:.0%} confidence over {draws:,} draws"
    return f'<div class="drmath-solution-message">searching the designs{what}…</div>'
