"""The dashboard's "compare with baseline" view: the pinned design against the one on screen.

Each card shows one line of change against the pinned baseline; this view puts them side by side: every card's
number for the baseline and now (:func:`drmath.comparison.compare_html`), the inputs that differ
(:func:`drmath.comparison.compare_inputs`) and one chart of both designs' curves (:func:`drmath.viz.compare_spec`),
the same comparison ``drmath compare`` prints. Nothing is computed here: the rows come from the two plans and the
curves from :func:`drmath.sweep`, drawn only while the view is open.
"""

import html

import ipywidgets as W

from .. import comparison, viz
from .cards import CARDS
from .widgets import PlotlyView

__all__ = ["BaselineView"]

NAMES = ("baseline", "now")
"""The two columns' headings."""


def inputs_html(rows):
    """The inputs that differ between the baseline and now (:func:`drmath.comparison.compare_inputs`) as a table.

    >>> import drmath
    >>> a = drmath.plan()
    >>> b = drmath.plan(a.scenario.with_changes({"training.gpus": 16_384}))
    >>> "8,000</td><td" in inputs_html(comparison.compare_inputs([a, b]))
    True
    """
    if not rows:
        return '<p class="drmath-compare-inputs">No input differs: the two designs are the same.</p>'
    pad = ' style="padding:4px 10px;text-align:left"'
    body = "".join(f"<tr><td{pad}><code>{html.escape(r['field'])}</code></td>"
                   + "".join(f"<td{pad}>{html.escape(t)}</td>" for t in r["texts"]) + "</tr>" for r in rows)
    return ('<table class="drmath-compare-inputs" style="border-collapse:collapse;font-size:13px">'
            f"<caption style=\"text-align:left\">The inputs that differ</caption><thead><tr><th{pad}>input</th>"
            + "".join(f"<th{pad}>{n}</th>" for n in NAMES) + f"</tr></thead><tbody>{body}</tbody></table>")


class BaselineView:
    """A "compare with baseline" toggle and what it opens: a table of every card, baseline against now, the
    inputs that differ, and one chart of both designs' curves.

    Attributes
    ----------
    toggle : ipywidgets.ToggleButton
        Opens and closes the view; disabled until a baseline is pinned.
    table : ipywidgets.HTML or None
        Every card's number for the baseline and now, and the inputs that differ (None until first opened).
    figure : PlotlyView or None
        Both designs' curves (:func:`drmath.viz.compare_spec`; None until first opened).
    root : ipywidgets.VBox
        The view, hidden while closed.

    Examples
    --------
    >>> import drmath
    >>> view = BaselineView()
    >>> a = drmath.plan()
    >>> view.update(a, drmath.plan(a.scenario.with_changes({"training.gpus": 16_384})))
    >>> view.toggle.value = True
    >>> view.table.value.count("<tr>") >= len(CARDS)
    True
    """

    def __init__(self):
        self.toggle = W.ToggleButton(value=False, description="compare with baseline", disabled=True,
                                     layout=W.Layout(width="auto"),
                                     tooltip="pin a baseline first: then every card, baseline against now")
        self.toggle.add_class("drmath-compare-toggle")
        self.table = self.figure = None  # made on first opening: fewer widgets for every page to build
        self.root = W.VBox([], layout=W.Layout(display="none", width="100%"))
        self.root.add_class("drmath-compare-view")
        self._plans = (None, None)
        self.toggle.observe(lambda change: self._draw(), "value")

    def update(self, baseline, current):
        """Show ``current`` against ``baseline`` (a Plan each; no baseline closes the view and disables it)."""
        self._plans = (baseline, current)
        self.toggle.disabled = baseline is None
        if baseline is None and self.toggle.value:
            self.toggle.value = False  # draws, closed
        else:
            self._draw()

    def _draw(self):
        baseline, current = self._plans
        on = self.toggle.value and baseline is not None
        self.root.layout.display = "flex" if on else "none"
        self.toggle.description = "hide the comparison" if on else "compare with baseline"
        if not on:
            return
        if self.table is None:
            self.table = W.HTML("").add_class("drmath-compare-table")
            self.figure = PlotlyView().add_class("drmath-compare-figure")
            self.root.children = (self.table, self.figure)
        plans = [baseline, current]
        self.table.value = (comparison.compare_html(plans, NAMES, CARDS)
                            + inputs_html(comparison.compare_inputs(plans)))
        spec = viz.compare_spec(plans, NAMES)
        if self.figure.figure != spec:
            with self.figure.hold_sync():
                self.figure.revision += 1
                self.figure.figure = spec
