"""The dashboard's "your own fleet" panel: an incident log in, its fit shown, and applied as the failure model.

A visitor uploads a CSV (:class:`~drmath.dashboard.upload.UploadButton`) or takes the shipped example log, maps its
columns with dropdowns (start; end, or duration and its unit; optionally cause, scope, a filter and the
fleet's GPU count), presses "fit" and sees :meth:`drmath.calibrate.Calibration.summary`, the gaps against
the fitted densities, the failures over time and the cause table (:mod:`drmath.viz.fleet`). "apply as
failure model" sets the dashboard's scenario to :meth:`Calibration.apply` of the one on screen, through the
dashboard's one funnel (:meth:`Dashboard.load`): all of it or nothing.

The form (the upload, the example, the column mapping, the bounds, the one-line errors) is
:class:`~drmath.dashboard.logform.LogForm`, shared with notebook 08's upload; this module shows the fit and applies
it. The public page is hostile ground, so the panel bounds what it takes before parsing:
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
from .logform import (
    EXAMPLE,
    EXAMPLE_MAPPING,
    MAX_COLUMNS,
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_ROWS,
    NONE,
    LogForm,
    one_line,
)
from .runlog import RunSection
from .widgets import PlotlyView

__all__ = ["FleetPanel", "confidence_choice", "searching_html", "CONFIDENCES", "MAX_UPLOAD_BYTES", "MAX_UPLOAD_ROWS",
           "MAX_COLUMNS", "EXAMPLE", "EXAMPLE_MAPPING", "NONE"]


class FleetPanel(LogForm):
    """The "your own fleet" panel of a :class:`~drmath.dashboard.Dashboard`: the log's form
    (:class:`~drmath.dashboard.logform.LogForm`), the fit shown, and "apply as failure model".

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
        super().__init__()
        self.app = app
        self.calibration = None
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

    def _ensure(self):
        self.open()

    def _build(self):
        super()._build()
        self.fit_button.on_click(lambda _: self.fit())
        self.apply_button = W.Button(description="apply as failure model", disabled=True,
                                     layout=W.Layout(width="auto")).add_class("drmath-fleet-apply")
        self.apply_button.on_click(lambda _: self.apply())
        self.applied = W.HTML("").add_class("drmath-fleet-applied")
        self.summary = W.HTML("", layout=W.Layout(width="100%")).add_class("drmath-fleet-summary")
        self.figures = {name: PlotlyView(layout=W.Layout(width="100%", display="none")).add_class(
            f"drmath-fleet-{name}").add_class("drmath-fleet-figure") for name in viz.FLEET_FIGURES}
        self.causes = W.HTML("").add_class("drmath-fleet-causes")
        self.run = RunSection(self.app)  # a run's event log: its measured goodput beside this plan
        self.box = W.VBox([*self.form(), W.HBox([self.fit_button, self.apply_button, self.applied],
                                                layout=W.Layout(align_items="center", grid_gap="8px")),
                           self.error, self.summary, *self.figures.values(), self.causes, self.run.root],
                          layout=W.Layout(width="100%")).add_class("drmath-fleet")

    def _loaded(self):
        self.calibration = None
        self.apply_button.disabled = True
        self._clear_fit()

    # ---- the fit

    def fit(self):
        """Fit the loaded log with the mapping on screen and show the fit; on error, one line and no change.

        Returns
        -------
        fit : Calibration or None
            The fit; None when refused (the previous fit stays shown and applicable).
        """
        self.open()
        try:
            fit = self.read()
            specs = viz.fleet_specs(fit)
        except ValueError as exc:
            self._show_error(one_line(exc))
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
            self._show_error(one_line(exc))
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
