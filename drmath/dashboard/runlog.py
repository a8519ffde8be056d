"""The fleet panel's "your run" part: a run's event log in, its measured goodput beside the plan on screen.

A run log (one JSON object a line: ``drmath measure``'s input, :mod:`drmath.io.runs`) is uploaded as bytes, never
read from a path; its size is checked in the page and again here. The measure is the library's
(:func:`drmath.io.runs.measure_run_bytes`); this module only lays out its table and figure beside the plan the
dashboard shows. A log it refuses gives one line, and what was shown stays.
"""

import html

import ipywidgets as W

from ..io import runs
from ..io.files import visible
from ..viz.run import badput_spec, run_table_html
from .logform import MAX_UPLOAD_BYTES, one_line
from .upload import UploadButton
from .widgets import PlotlyView

__all__ = ["RunSection"]


class RunSection:
    """A run log's upload, its measured goodput against the plan of the dashboard's scenario, and its badput.

    Parameters
    ----------
    app : Dashboard
        The dashboard whose plan the run is held to.

    Attributes
    ----------
    root : ipywidgets.VBox
        The section, to place in the fleet panel.
    measurement : RunMeasurement or None
        The last log's measurement; None before one.

    Examples
    --------
    >>> from drmath.dashboard import build_app
    >>> section = RunSection(build_app())
    >>> section.use_example().failures, "goodput (plan: ETTR)" in section.table.value
    (7, True)
    >>> section.load("bad.jsonl", b"not json"), section.error.value
    (None, 'bad.jsonl line 1: not valid JSON (Expecting value)')
    """

    def __init__(self, app):
        self.app = app
        self.measurement = None
        self.upload = UploadButton(max_bytes=MAX_UPLOAD_BYTES, accept=".jsonl,.json,.txt,application/x-ndjson",
                                   description="upload a run log (JSONL)", layout=W.Layout(width="auto"))
        self.upload.add_class("drmath-run-upload")
        self.upload.on_file(self.load)
        self.upload.on_refused(self._refuse)
        self.example = W.Button(description="use the example run", layout=W.Layout(width="auto"))
        self.example.add_class("drmath-run-example")
        self.example.on_click(lambda _: self.use_example())
        self.error = W.HTML("").add_class("drmath-run-error")
        self.table = W.HTML("").add_class("drmath-run-summary")
        self.figure = PlotlyView(layout=W.Layout(width="100%", display="none")).add_class("drmath-run-figure")
        head = W.HTML('<div class="drmath-section">Your run: its measured goodput beside this plan</div>'
                      '<div class="drmath-note">A run\'s event log, one JSON object a line ({"time", "event", '
                      '"step"}; the events job_start, step, checkpoint_saved, checkpoint_loaded, failure, job_end), '
                      "as <code>drmath measure</code> reads it.</div>")
        self.root = W.VBox([head, W.HBox([self.upload, self.example], layout=W.Layout(grid_gap="8px")),
                            self.error, self.table, self.figure], layout=W.Layout(width="100%"))
        self.root.add_class("drmath-run")

    def _refuse(self, name, size):
        """Say why the upload button refused a file (``size`` [B], or None: unreadable); nothing changes."""
        name = html.escape(visible(name))
        self.error.value = (f"{name} is {size / 2**10:,.0f} KiB: this page takes run logs of at most "
                            f"{MAX_UPLOAD_BYTES // 2**10:,} KiB; measure a bigger one with drmath measure"
                            if size is not None else f"{name}: the browser could not read it")

    def load(self, name, raw):
        """Measure an uploaded log and show it beside the dashboard's plan; on error, one line and no change.

        Parameters
        ----------
        name : str
            The file's name, for messages.
        raw : bytes
            Its content: at most :data:`~drmath.dashboard.logform.MAX_UPLOAD_BYTES` bytes of UTF-8 JSONL.

        Returns
        -------
        measurement : RunMeasurement or None
            The measurement; None when refused (what was shown stays).
        """
        name = visible(name)
        if len(raw) > MAX_UPLOAD_BYTES:  # the page's check is the page's: this one is ours
            self._refuse(name, len(raw))
            return None
        try:
            measured = runs.measure_run_bytes(raw, name)
            plan = self.app.plan
            table, spec = run_table_html(measured, plan), badput_spec(measured, plan)
        except ValueError as exc:
            self.error.value = html.escape(one_line(exc))
            return None
        self.measurement, self.error.value, self.table.value = measured, "", table
        with self.figure.hold_sync():
            self.figure.revision += 1
            self.figure.figure = spec
        self.figure.layout.display = "block"
        return measured

    def use_example(self):
        """Measure the shipped example run (``data/run_example.jsonl``, generated by the simulator).

        Returns
        -------
        measurement : RunMeasurement
        """
        path = runs.example_run_log()
        return self.load(path.name, path.read_bytes())
