r"""The ipywidgets app: controls, KPI cards and live figures over one :func:`drmath.plan`.

:func:`build_app` returns a :class:`Dashboard`; display it (the Voilà notebook
``drmath/data/dashboard.ipynb`` is just that). Every control edits one Scenario
field through :meth:`Dashboard.apply`, which builds a new Scenario with
``with_changes``, derives ``plan()`` and the curves with ``sweep()``, and only
then updates the view. A ``ValueError`` shows its message in the error area and
leaves the previous scenario, plan and controls as they were.

Test hooks (a contract; the browser tests use them):

- each control carries the CSS class ``drmath-control-<section>-<field>``;
- each card renders an element with class ``drmath-kpi-<plan field>`` whose
  ``data-value`` is the SI value from ``plan()`` (``repr`` of the float, ``inf``
  for no bound, ``true``/``false`` for a flag) and whose text is the human reading;
- ``.drmath-scenario`` has ``data-scenario``: the current inputs as flat JSON
  (unset fields as ``null``);
- each figure is a ``.drmath-figure-<name>`` holding a ``.js-plotly-plot``;
- ``.drmath-error`` holds the last rejected input's message (empty when none).

Figures are drawn by :class:`PlotlyView`, a small anywidget that loads plotly.js
once per page from a cacheable static file of the ``drlab`` Voilà template
(:data:`PLOTLY_STATIC`, the 1.2 MB "basic" bundle), instead of plotly's
FigureWidget, which sends its ~4.9 MB bundle over the websocket for every
figure on every page view. Only scatter and bar traces are used. What each
figure sweeps and how it is drawn is :data:`drmath.viz.FIGURES`, shared with the
report; each card's title and sub-line come from :mod:`drmath.quantities`. The
widgets' JavaScript and the page's CSS ship as files in ``drmath/data/widgets/``.

    >>> app = build_app()
    >>> app.apply({"training.gpus": 16_384})
    True
    >>> app.scenario.training.gpus
    16384
    >>> app.apply({"training.mfu": 1.5})
    False
    >>> app.scenario.training.mfu, "training.mfu" in app.error.value
    (0.4, True)
"""

import base64
import html
import json
import math

import anywidget
import ipywidgets as W
import numpy as np
import traitlets
from ipywidgets.widgets.widget_bool import ToggleButtonStyle
from ipywidgets.widgets.widget_description import DescriptionStyle
from ipywidgets.widgets.widget_string import HTMLStyle

from . import _resources, presets, quantities, scenario_io, viz
from ._plan import plan
from ._solve import solve
from .formatting import change, every, format_quantity, line_rate, short_duration
from .quantities import card_detail, card_title
from .report import markdown_html
from .scenario import FIELDS, Scenario
from .units import Gbit_per_s, day, hour, minute

__all__ = ["build_app", "Dashboard", "PlotlyView", "ShareLink", "CARDS", "CONTROLS", "FIGURES", "PLOTLY_STATIC",
           "PLOTLY_JS_VERSION",
           "data_value", "short_duration"]

PLOTLY_JS_VERSION = viz.PLOTLY_JS_VERSION
PLOTLY_STATIC = f"voila/templates/drlab/static/plotly-basic-{PLOTLY_JS_VERSION}.min.js?v={PLOTLY_JS_VERSION}"
"""plotly.js (the scatter/bar/pie "basic" bundle, vendored in the drlab template), relative to
the server's base URL. The versioned query makes tornado mark it cacheable for ten years."""

CARDS = quantities.CARDS
"""The plan fields shown as KPI cards, in order: :data:`drmath.quantities.CARDS`."""

CONTROLS = ("training.gpus", "training.mfu", "training.params", "checkpoint.interval",
            "replication.link_bandwidth", "replication.interval", "failures.gpu_failure_rate",
            "failover.tier", "failover.standby_fraction", "failover.detection_time", "failover.decision_time",
            "requirements.rpo_site", "requirements.rto_site", "requirements.max_slip")
"""The Scenario fields the dashboard controls, in order."""

FIGURES = ("rpo", "ettr", "rto", "cost_tier", "cost_link")
"""The dashboard's five figures, by name (CSS class ``drmath-figure-<name>``), in its grid's order: keys of
:data:`drmath.viz.FIGURES`, which says what each sweeps and how it is drawn. The registry's other figures
are the notebooks' (and the report's)."""

AUTO = "auto"  # option value for an unset optional field (None in the Scenario)


class PlotlyView(anywidget.AnyWidget):
    """A plotly figure drawn in the browser from a plain ``{"data", "layout"}`` dict.

    Setting :attr:`figure` redraws it with ``Plotly.react``. plotly.js is loaded
    once per page from :data:`PLOTLY_STATIC` (a static file the browser caches), by
    the ``drlab`` Voilà template that ``python -m drmath.serve`` uses.

    Examples
    --------
    >>> view = PlotlyView(figure={"data": [{"type": "bar", "x": ["a"], "y": [1]}], "layout": {}})
    >>> view.figure["data"][0]["type"]
    'bar'
    """

    _esm = _resources.data_file("widgets", "plotly_view.js")
    _css = _resources.data_file("widgets", "plotly_view.css")
    figure = traitlets.Dict().tag(sync=True)
    revision = traitlets.Int(0).tag(sync=True)


class ShareLink(anywidget.AnyWidget):
    """Keeps the page URL's query string equal to the scenario, with a "copy link" button.

    Setting :attr:`query` (from :func:`drmath.scenario_io.to_query`) rewrites the
    address bar with ``history.replaceState``; the button copies the link.

    Examples
    --------
    >>> ShareLink(query="training.gpus=4096").query
    'training.gpus=4096'
    """

    _esm = _resources.data_file("widgets", "share_link.js")
    _css = _resources.data_file("widgets", "share_link.css")
    query = traitlets.Unicode("").tag(sync=True)


VOILA_PARAMETERS = scenario_io.VOILA_PARAMETERS
"""Query keys that belong to Voilà, not to the scenario (defined with the link format)."""


# --------------------------------------------------------------------------- labels


def data_value(value):
    """The ``data-value`` attribute of a KPI card: the SI value, losslessly.

    Parameters
    ----------
    value : float or bool
        A plan field in SI.

    Returns
    -------
    text : str
        ``repr`` of the float, ``"inf"`` for no bound, ``"true"``/``"false"`` for a flag.

    Examples
    --------
    >>> data_value(0.25), data_value(float("inf")), data_value(True)
    ('0.25', 'inf', 'true')
    """
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


def _with_current(options, current, label, ordered=True):
    """Insert the scenario's value into a control's options if it is not there.

    A slider's options stay in order of value (``ordered``); a list of presets gets it at its end.
    """
    values = [v for _, v in options]
    if current in values:
        return options
    if not ordered:
        return list(options) + [(label(current), current)]
    numeric = [(text, v) for text, v in options if v != AUTO]
    auto = [(text, v) for text, v in options if v == AUTO]
    numeric.append((label(current), current))
    numeric.sort(key=lambda o: o[1])
    return auto + numeric


class _Control:
    """One widget bound to one Scenario field, with the SI mapping both ways.

    ``label`` names a value that is not among the widget's options (a loaded scenario's
    100,000 GPUs): :meth:`show` adds it to the options, so a control always shows its true value.
    """

    def __init__(self, path, widget, optional=False, label=None, ordered=True):
        self.path = path
        self.widget = widget
        self.optional = optional
        self.label = label
        self.ordered = ordered
        section, name = path.split(".")
        widget.add_class(f"drmath-control-{section}-{name}")
        widget.add_class("drmath-control")

    def to_si(self, value):
        return None if (self.optional and value == AUTO) else value

    def from_si(self, value):
        return AUTO if (self.optional and value is None) else value

    def show(self, si):
        """Set the widget to the SI value ``si``, adding it to the options when it is off their grid.

        Raises
        ------
        traitlets.TraitError
            If the value cannot be shown (a choice the widget does not offer and no label for it).
        """
        value = self.from_si(si)
        if self.widget.value == value:
            return
        options = list(self.widget.options)
        if self.label is not None and value not in [v for _, v in options]:
            with self.widget.hold_sync():  # one message: options and value together
                self.widget.options = _with_current(options, value, self.label, self.ordered)
                self.widget.value = value
        else:
            self.widget.value = value


def _controls(s):
    """The widgets, labelled in human units, for scenario ``s``."""
    # one layout and one style model shared by the controls (each widget would otherwise bring two
    # models of its own for the page to build)
    wide = W.Layout(width="100%")
    slider_style = W.SliderStyle(description_width="130px")
    dropdown_style = DescriptionStyle(description_width="130px")

    def slider(path, description, options, label, optional=False):
        current = s.get(path)
        value = AUTO if current is None else current
        if current is not None:
            options = _with_current(options, current, label)
        w = W.SelectionSlider(options=options, value=value, description=description,
                              continuous_update=False, readout=True, style=slider_style, layout=wide,
                              tooltip=FIELDS[path].doc)
        return _Control(path, w, optional, label)

    def dropdown(path, description, options, label):
        current = s.get(path)
        options = _with_current(options, current, label, ordered=False)
        w = W.Dropdown(options=options, value=current, description=description, style=dropdown_style,
                       layout=wide, tooltip=FIELDS[path].doc)
        return _Control(path, w, label=label, ordered=False)

    gpus = [512, 1024, 2048, 4096, 6000, 8000, 10000, 12000, 16384, 24576, 32768, 65536, 131072]
    mfu = [round(0.20 + 0.01 * i, 2) for i in range(41)]
    ckpt = [30.0, minute, 2 * minute, 3 * minute, 5 * minute, 10 * minute, 15 * minute, 20 * minute,
            30 * minute, hour, 2 * hour, 3 * hour, 6 * hour, 12 * hour]
    links = [1, 10, 25, 40, 50, 100, 200, 400, 800, 1600, 3200]
    repl = [5 * minute, 10 * minute, 15 * minute, 20 * minute, 30 * minute, hour, 2 * hour, 3 * hour,
            4 * hour, 6 * hour, 8 * hour, 12 * hour, day]
    standby = [round(0.1 * i, 1) for i in range(1, 11)]
    detect = [0.0, 30.0, minute, 2 * minute, 5 * minute, 10 * minute, 15 * minute, 30 * minute, hour, 2 * hour]
    decide = [0.0, minute, 5 * minute, 10 * minute, 15 * minute, 30 * minute, hour, 2 * hour, 4 * hour, 8 * hour]
    instant = lambda v: "none" if v == 0 else short_duration(v)  # noqa: E731
    pct = lambda v: f"{100 * v:.0f}%"  # noqa: E731
    per_kday = lambda r: f"{r * 8 * day * 1000:.3g} per 1k node-days"  # noqa: E731

    controls = [
        slider("training.gpus", "GPUs", [(f"{n:,}", n) for n in gpus], lambda n: f"{n:,}"),
        slider("training.mfu", "MFU", [(pct(v), v) for v in mfu], pct),
        dropdown("training.params", "Model",
                 [(f"{m.name} · {m.params / 1e9:.4g}B", m.params) for m in presets.MODELS.values()],
                 lambda v: f"custom · {v / 1e9:.4g}B"),
        slider("checkpoint.interval", "Checkpoint every",
               [("optimal (Daly)", AUTO)] + [(short_duration(v), v) for v in ckpt], short_duration,
               optional=True),
        slider("replication.link_bandwidth", "Link",
               [(line_rate(g * Gbit_per_s), g * Gbit_per_s) for g in links], line_rate),
        slider("replication.interval", "Ship off-site every", [(short_duration(v), v) for v in repl],
               short_duration),
        dropdown("failures.gpu_failure_rate", "Failure rate",
                 [(f"{f.name} · {per_kday(f.gpu_failure_rate)}", f.gpu_failure_rate)
                  for f in presets.FAILURE_RATES.values()],
                 lambda r: f"custom · {per_kday(r)}"),
    ]
    tier = W.ToggleButtons(options=[(t.name, t.name) for t in presets.DR_TIERS.values()],
                           value=s.failover.tier, description="DR tier",
                           style={"description_width": "130px", "button_width": "auto"},
                           tooltips=[f"{t.label}: {t.assumptions}" for t in presets.DR_TIERS.values()],
                           layout=wide)
    controls.append(_Control("failover.tier", tier))
    controls.append(slider("failover.standby_fraction", "Standby size",
                           [("tier's own", AUTO)] + [(pct(v), v) for v in standby], pct, optional=True))
    # a site loss: confirming it, then deciding to fail over (automatic tiers skip the decision)
    controls.append(slider("failover.detection_time", "Detect a site loss", [(instant(v), v) for v in detect],
                           instant))
    controls.append(slider("failover.decision_time", "Decide to fail over", [(instant(v), v) for v in decide],
                           instant))
    # the targets the design must meet: "none" leaves one unset
    for path, description, values in TARGET_CONTROLS:
        controls.append(slider(path, description, [("none", AUTO)] + [(short_duration(v), v) for v in values],
                               short_duration, optional=True))
    return {c.path: c for c in controls}


TARGET_CONTROLS = (
    ("requirements.rpo_site", "Site RPO at most", (minute, 5 * minute, 10 * minute, 15 * minute, 30 * minute, hour,
                                                    2 * hour, 4 * hour, 12 * hour, day)),
    ("requirements.rto_site", "Site RTO at most", (10 * minute, 30 * minute, hour, 2 * hour, 4 * hour, 8 * hour,
                                                    12 * hour, day, 3 * day, 7 * day, 30 * day)),
    ("requirements.max_slip", "Slip at most", (0.0, hour, day, 3 * day, 7 * day, 14 * day, 30 * day, 60 * day)),
)
"""The target controls of the "meet these targets" panel: (input, label, the values offered) [s]."""

TARGET_OF_CARD = {value if value != "schedule_slip" else "site_loss_time": (path, margin)
                  for path, value, margin, *_ in quantities._TARGETS}
"""Which card shows which target's verdict: ``{card: (requirement path, margin quantity)}``."""


# --------------------------------------------------------------------------- cards

DEFINITIONS = {
    "rpo_local": "Local RPO (recovery point objective): the training work lost when a GPU or node fails, "
                 "at worst: everything since the last checkpoint that was safely written.",
    "rpo_site": "Site RPO (recovery point objective): the work lost when the whole site is lost, at worst: "
                "everything since the last checkpoint copy that reached the other site.",
    "rto_local": "Local RTO (recovery time objective): how long the run stands still after a GPU or node "
                 "failure: detect it, reschedule, relaunch, load the checkpoint, check it.",
    "rto_site": "Site RTO (recovery time objective): how long until training resumes at the other site after "
                "losing this one: detect, decide, bring up the standby, copy the checkpoint in.",
    "ettr": "ETTR (effective training time ratio): the share of the wall-clock time spent on useful training, "
            "after checkpoint pauses, lost work and restarts.",
    "time_to_train": "Time to train: the wall-clock time the run takes, failures and recoveries included.",
    "total_dr_cost": "Total DR cost: what disaster recovery costs over the run: the standby site, the link "
                     "and the storage, plus the expected loss from a site disaster.",
    "site_loss_time": "Site loss: what losing the whole site costs the run, in time and in dollars: the work since "
                      "the last off-site copy, the time until training resumes at the other site, and the schedule "
                      "slip while a smaller standby carries on.",
    "replication_keeps_up": "Replication keeps up: each off-site copy finishes before the next one starts. "
                            "If not, copies pile up and the site RPO has no bound.",
}
"""What each card's title means, in plain words: its tooltip (the ``title`` attribute)."""

STORY = (
    '<div class="drmath-header"><h2>What does it take to survive a disaster in a frontier training run?</h2>'
    '<p class="drmath-story">A <b>training run</b> keeps thousands of GPUs busy for weeks to make one model. '
    "At that scale something breaks every few hours: a GPU, a node, and, rarely, a whole site (power, "
    "fire, network). The run survives by saving <b>checkpoints</b> and copying them to a second site. "
    "Two numbers say how well: <abbr title='recovery point objective'><b>RPO</b></abbr>, how much work is lost "
    "(the time since the last safe copy), and <abbr title='recovery time objective'><b>RTO</b></abbr>, how "
    "long until training runs again. <abbr title='effective training time ratio'><b>ETTR</b></abbr> is the "
    "share of time spent on useful training; <abbr title='model FLOPs utilisation'><b>MFU</b></abbr> is how "
    "much of the GPUs' peak speed the training uses. Move a control: every number and chart follows; "
    'hover over a card\'s title for its meaning, and "show the math" for its formula.</p></div>')
"""The page's opening: what a run is, what goes wrong, and what RPO, RTO, ETTR and MFU mean."""


def _target_html(p, name):
    """The card's verdict on its target (:data:`TARGET_OF_CARD`): met with what to spare, or missed by how much."""
    if name not in TARGET_OF_CARD:
        return ""
    path, margin_name = TARGET_OF_CARD[name]
    target = p.scenario.get(path)
    if target is None:
        return ""
    margin = getattr(p, margin_name)
    what = "slip " if path == "requirements.max_slip" else ""
    goal = f"target: {what}≤ {short_duration(target)}"
    if margin >= 0:
        text, state = f"{goal} · met, {short_duration(margin)} to spare", "met"
    else:
        text, state = f"{goal} · missed by {'no bound' if math.isinf(margin) else short_duration(-margin)}", "missed"
    return (f'<div class="drmath-target drmath-target-{state}" data-margin="{data_value(margin)}">'
            f'{html.escape(text)}</div>')


def _card_html(p, name, baseline=None):
    """A KPI card: the registry's title, the plan's value, the registry's sub-line, its target's verdict and,
    with a pinned ``baseline`` plan, its change against it."""
    value = getattr(p, name)
    bad = (name == "replication_keeps_up" and not value) or (
        isinstance(value, float) and math.isinf(value))
    delta = ""
    if baseline is not None:
        text = change(value, getattr(baseline, name), quantities.QUANTITIES[name].kind)
        delta = (f'<div class="drmath-delta{" drmath-delta-none" if text == "no change" else ""}">'
                 f'{html.escape(text)} vs baseline</div>')
    return (f'<div class="drmath-card-title" title="{html.escape(DEFINITIONS.get(name, card_title(name)))}">'
            f'{html.escape(card_title(name))}</div>'
            f'<div class="drmath-kpi drmath-kpi-{name}{" drmath-bad" if bad else ""}" '
            f'data-value="{data_value(value)}">{html.escape(p.format(name))}</div>'
            f'<div class="drmath-card-sub">{html.escape(card_detail(p, name))}</div>'
            + _target_html(p, name) + delta)


TIER_COLUMNS = (("tier_rto_sites", "site RTO"), ("rpo_site", "site RPO"), ("tier_total_costs", "total DR cost"),
                ("tier_schedule_slips", "expected slip"), ("break_even_delay_costs", "pays for itself above"))
"""The tier table's columns: (plan quantity, heading); ``rpo_site`` is one value for every tier."""


def tier_table_html(p):
    """Every DR tier side by side (site RTO, RPO, cost, slip, break-even), the plan's own tier highlighted.

    Parameters
    ----------
    p : Plan
        The current plan; its per-tier quantities (:data:`drmath.quantities.TABLES`).

    Returns
    -------
    html : str
        A ``<table class="drmath-tier-table">``; each cell's ``data-value`` is the SI value.

    Examples
    --------
    >>> from drmath import plan
    >>> "drmath-tier-current" in tier_table_html(plan()), tier_table_html(plan()).count("<tr")
    (True, 6)
    """
    current = p.scenario.failover.tier
    head = "".join(f"<th>{html.escape(title)}</th>" for _, title in TIER_COLUMNS)
    rows = []
    for tier in presets.DR_TIERS.values():
        cells = []
        for name, _ in TIER_COLUMNS:
            value = getattr(p, name) if name == "rpo_site" else getattr(p, name)[tier.name]
            kind = quantities.QUANTITIES[name].kind
            shown = ("baseline" if name == "break_even_delay_costs" and tier.name == "cold"
                     else format_quantity(value, kind))
            cells.append(f'<td data-value="{data_value(value)}">{html.escape(shown)}</td>')
        mark = ' class="drmath-tier-current"' if tier.name == current else ""
        rows.append(f'<tr{mark} data-tier="{tier.name}"><th title="{html.escape(tier.assumptions)}">'
                    f'{html.escape(tier.label)}</th>{"".join(cells)}</tr>')
    return (f'<table class="drmath-tier-table"><caption>Every DR tier for these inputs (yours highlighted)'
            f'</caption><thead><tr><th>tier</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')


_STYLE = (f"<style>\n{viz.css_variables()}\n{_resources.data_file('widgets', 'dashboard.css').read_text('utf-8')}"
          "</style>")
"""The page's style: the palette as CSS variables, then ``drmath/data/widgets/dashboard.css``."""


# --------------------------------------------------------------------------- the app


class Dashboard:
    """The dashboard: controls → :meth:`apply` → plan/sweep → cards and figures.

    Attributes
    ----------
    scenario : Scenario
        The inputs on screen.
    plan : Plan
        ``plan(scenario)``: every number shown comes from it or from ``sweep``.
    controls : dict of str to ipywidgets.Widget
        The control of each Scenario field, by ``section.field``.
    cards : dict of str to ipywidgets.HTML
        Each KPI card's value, by plan field.
    math_toggles : dict of str to ipywidgets.ToggleButton
        Each card's "show the math" toggle.
    math_views : dict of str to ipywidgets.Output
        The derivations shown so far (``Plan.explain``), made on first toggle.
    figures : dict of str to PlotlyView
        Each figure, by name (see :data:`FIGURES`).
    error : ipywidgets.HTML
        The last rejected input's message; empty when the inputs are valid.
    root : ipywidgets.Widget
        The whole app, to display.

    Examples
    --------
    >>> app = Dashboard()
    >>> app.cards["ettr"].value.count("drmath-kpi-ettr")
    1
    """

    def __init__(self, scenario=None):
        self.scenario = Scenario() if scenario is None else scenario
        self.plan = plan(self.scenario)
        self._syncing = False
        # plain pieces share one layout and one style model: ~60 fewer models for each page to build
        self._plain, self._html_style = W.Layout(), HTMLStyle()
        self._controls = _controls(self.scenario)
        self.controls = {path: c.widget for path, c in self._controls.items()}
        full = self._full = W.Layout(width="100%")
        self.error = self._html("", layout=full).add_class("drmath-error")
        self.scenario_view = self._html("", layout=W.Layout(display="none")).add_class("drmath-scenario-holder")
        self.replication_note = self._html("").add_class("drmath-note")
        self.notice = self._html("", layout=full).add_class("drmath-notice")
        self.warnings = self._html("", layout=full).add_class("drmath-warnings")  # what is wrong with the design
        self.share = ShareLink()
        self._scenario_files = scenario_io.shipped_scenarios()
        self.picker = W.Dropdown(options=[("open a scenario…", "")] + [(n, n) for n in self._scenario_files],
                                 value="", layout=W.Layout(width="300px", max_width="100%"),
                                 tooltip="load one of the scenarios that ship with drmath")
        self.picker.add_class("drmath-scenario-picker")
        self.picker.observe(lambda change: self._pick(change["new"]), "value")
        self.save_link = self._html("").add_class("drmath-save")
        self.opened = self._html("").add_class("drmath-opened-holder")  # the scenario last opened, and if edited
        seed = scenario_io.SCENARIO_DIR / "seed.toml"
        self._opened = (Scenario(), scenario_io.read_meta(seed) if seed.exists() else {"name": "default scenario"})
        # the baseline each card is compared with (pinned by a button), and the "meet these targets" panel
        self.baseline = None
        self.pin = W.Button(description="pin as baseline", icon="", layout=W.Layout(width="auto"),
                            tooltip="keep this design's numbers: every card then shows its change against them")
        self.pin.add_class("drmath-pin")
        self.pin.on_click(lambda _: self.pin_baseline(self.baseline is None))
        self.solve_button = W.Button(description="apply the cheapest design", icon="", button_style="primary",
                                     layout=W.Layout(width="auto"),
                                     tooltip="search tier, link, replication and checkpoint cadence and standby size "
                                             "for the cheapest design that meets every target, and apply it")
        self.solve_button.add_class("drmath-solve")
        self.solve_button.on_click(lambda _: self.solve())
        self.solution = self._html("").add_class("drmath-solution")
        self.solution_view = None  # the last search: (Solution, the scenario it applied)
        # not a "drmath-figure": those five are drawn on every page; this one only after a search
        self.pareto = PlotlyView(layout=W.Layout(display="none")).add_class("drmath-pareto")
        self.tiers = self._html("", layout=W.Layout(width="100%")).add_class("drmath-tiers")
        self.cards, self.math_toggles, self.math_views = {}, {}, {}
        card_boxes = []
        toggle_layout, toggle_style = W.Layout(width="auto"), ToggleButtonStyle()
        for name in CARDS:
            value = self._html("")
            toggle = W.ToggleButton(value=False, description="show the math", icon="",
                                    tooltip=f"the derivation of {name}", layout=toggle_layout, style=toggle_style)
            toggle.add_class(f"drmath-math-toggle-{name}")
            toggle.observe(lambda change, name=name: self._toggle_math(name, change["new"]), "value")
            self.cards[name], self.math_toggles[name] = value, toggle
            card_boxes.append(W.VBox([value, toggle], layout=self._plain).add_class("drmath-card"))
        self.figures = {name: PlotlyView().add_class("drmath-figure").add_class(f"drmath-figure-{name}")
                        for name in FIGURES}
        for path, control in self._controls.items():
            control.widget.observe(lambda change, path=path: self._on_control(path, change), "value")
        self.root = self._layout(card_boxes)
        self._render(self.plan, self._specs(self.plan))

    # ---- layout

    def _layout(self, card_boxes):
        c = self.controls

        def section(text):
            return self._html(f'<div class="drmath-section">{html.escape(text)}</div>')

        controls = W.VBox([
            section("Training"), c["training.gpus"], c["training.mfu"], c["training.params"],
            section("Checkpoints"), c["checkpoint.interval"],
            section("Replication"), c["replication.link_bandwidth"], c["replication.interval"],
            self.replication_note,
            section("Failures and failover"), c["failures.gpu_failure_rate"], c["failover.tier"],
            c["failover.standby_fraction"], c["failover.detection_time"], c["failover.decision_time"],
            section("Meet these targets"), *(c[path] for path, *_ in TARGET_CONTROLS),
            W.HBox([self.solve_button], layout=self._plain).add_class("drmath-solve-row"), self.solution,
        ], layout=self._plain).add_class("drmath-controls")
        # sizes and the grid's areas live in dashboard.css (a Layout would write them inline, out of reach of
        # its media queries): side by side on a wide screen, controls above one column of charts on a phone
        f = self.figures
        for name, area in zip(FIGURES, ("rpo", "ettr", "rto", "tier", "link")):
            f[name].layout = W.Layout(grid_area=area)
        grid = W.GridBox(list(f.values()), layout=self._plain).add_class("drmath-grid")
        header = self._html(STORY, layout=self._full)
        cards = W.HBox(card_boxes, layout=self._full).add_class("drmath-cards")
        # the derivations' views are made on first use: fewer widgets for the page to build
        maths = self._maths = W.VBox([], layout=self._full)
        body = W.HBox([controls, grid], layout=self._plain).add_class("drmath-body")
        files = W.HBox([self.picker, self.opened, self.save_link, self.share, self.pin],
                       layout=W.Layout(width="100%", align_items="center", grid_gap="10px")).add_class("drmath-files")
        return W.VBox([self._html(_STYLE), header, files, self.notice, cards, self.warnings, maths, self.error, body,
                       self.tiers, self.pareto, self.scenario_view],
                      layout=W.Layout(width="100%", grid_gap="10px")).add_class("drmath-app")

    def _html(self, value, layout=None):
        """An HTML widget with the shared style (and the shared plain layout unless given one)."""
        return W.HTML(value, layout=self._plain if layout is None else layout, style=self._html_style)

    def _repr_mimebundle_(self, **kwargs):
        return self.root._repr_mimebundle_(**kwargs)

    # ---- the one funnel for changes

    def apply(self, changes):
        """Apply input changes all at once, or not at all.

        Parameters
        ----------
        changes : mapping
            ``{"section.field": value}`` in SI (None unsets an optional field).

        Returns
        -------
        applied : bool
            True if the scenario changed; False if it was rejected (the message
            is then in :attr:`error` and nothing else moved).

        Examples
        --------
        >>> app = build_app()
        >>> app.apply({"failover.tier": "hot"}), app.plan.scenario.failover.tier
        (True, 'hot')
        """
        try:
            scenario = self.scenario.with_changes(changes)
            p = plan(scenario)
            specs = self._specs(p)
        except (ValueError, TypeError) as exc:
            self._show_error(exc)
            self._sync_controls()
            return False
        self.scenario, self.plan = scenario, p
        self._render(p, specs)
        self._sync_controls()
        return True

    def load(self, scenario):
        """Show a whole scenario (a file, a link); every field is replaced.

        Parameters
        ----------
        scenario : Scenario
            The inputs to show.

        Returns
        -------
        applied : bool
            True when shown.

        Examples
        --------
        >>> app = build_app()
        >>> app.load(Scenario().with_changes({"failover.tier": "cold"})), app.plan.format("rto_site")
        (True, '21.0 days')
        """
        return self.apply(scenario.flat())

    def _pick(self, name):
        if not name:
            return
        try:
            scenario = scenario_io.load(self._scenario_files[name])
        except (ValueError, TypeError, OSError) as exc:
            self._show_error(exc)
        else:
            self.notice.value = ""
            meta = scenario_io.read_meta(self._scenario_files[name])
            if self.load(scenario):
                self._opened = (scenario, meta)
                self._render_file()
        finally:
            self.picker.value = ""

    def restore(self, query):
        """Restore the state a share link encodes; a bad link shows a notice and keeps the defaults.

        Parameters
        ----------
        query : str
            The page URL's query string.

        Returns
        -------
        restored : bool
            True when the link's settings were used.

        Examples
        --------
        >>> app = build_app()
        >>> app.restore("training.gpus=4096"), app.scenario.training.gpus
        (True, 4096)
        >>> app.restore("training.gpus=<script>"), app.scenario.training.gpus
        (False, 8000)
        """
        scenario, notice = scenario_io.from_query(query or "", ignore=VOILA_PARAMETERS)
        self.notice.value = ("" if notice is None else
                             f'<div class="drmath-notice-message">{html.escape(notice)}</div>')
        self.load(scenario)
        return notice is None

    def restore_from_request(self):
        """Restore the page's share link once Voilà hands the request to this kernel.

        A preheated kernel runs the notebook before any visitor arrives and waits
        here for the request (:mod:`drmath._query`, the light kernel end of Voilà's
        request channel: ``voila.utils.get_query_string`` would import Voilà's whole
        server into every kernel). Outside Voilà it returns at once and nothing changes.

        Returns
        -------
        restored : bool
            True when a link's settings were used.

        Examples
        --------
        >>> build_app().restore_from_request()
        False
        """
        from ._query import query_string

        query = query_string()
        return bool(query) and self.restore(query)

    def pin_baseline(self, on=True):
        """Pin the current plan as the baseline every card is compared with, or unpin it.

        Parameters
        ----------
        on : bool, default True
            Pin the design on screen now; False clears the baseline.

        Examples
        --------
        >>> app = build_app()
        >>> app.pin_baseline()
        >>> app.apply({"failover.tier": "hot"}), "vs baseline" in app.cards["rto_site"].value
        (True, True)
        """
        self.baseline = self.plan if on else None
        self.pin.description = "clear baseline" if on else "pin as baseline"
        self._render_cards(self.plan)

    def solve(self):
        """Find the cheapest design that meets every target (:func:`drmath.solve`), apply it and draw its front.

        The search runs on the inputs on screen; when nothing meets the targets, nothing is applied and the
        message says which target is closest and what it would take.

        Returns
        -------
        solution : Solution or None
            The search's result; None when the search was refused (its message is in :attr:`error`).

        Examples
        --------
        >>> app = build_app({"requirements.rto_site": 4 * 3600})
        >>> sol = app.solve()
        >>> sol.feasible, app.scenario.failover.tier == sol.scenario.failover.tier
        (True, True)
        """
        self.solve_button.disabled, self.solve_button.description = True, "searching…"
        self.solution.value = '<div class="drmath-solution-message">searching the designs…</div>'
        try:
            solution = solve(self.scenario)
        except (ValueError, TypeError) as exc:
            self.solution.value = ""
            self._show_error(exc)
            return None
        finally:
            self.solve_button.disabled, self.solve_button.description = False, "apply the cheapest design"
        if solution.feasible:
            self.apply(solution.changes)
        self.solution_view = (solution, self.scenario)
        with self.pareto.hold_sync():
            self.pareto.revision += 1
            self.pareto.figure = viz.pareto_spec(solution)
        self.pareto.layout.display = "block"
        self._render_solution()
        return solution

    def _render_solution(self):
        if self.solution_view is None:
            return
        solution, applied = self.solution_view
        stale = ("" if self.scenario == applied else
                 '<div class="drmath-solution-stale">The inputs changed since this search: press again.</div>')
        verdict = "applied" if solution.feasible else "nothing applied"
        self.solution.value = (f'<div class="drmath-solution-message drmath-solution-'
                               f'{"found" if solution.feasible else "none"}">'
                               f"<b>{verdict}:</b> {markdown_html(solution.message)}</div>{stale}")

    def _show_error(self, exc):
        self.error.value = f'<div class="drmath-error-message">{html.escape(str(exc))}</div>'

    def _on_control(self, path, change):
        if self._syncing:
            return
        self.apply({path: self._controls[path].to_si(change["new"])})

    def _sync_controls(self):
        """Set every control to the current scenario (after a change, a load or a rejection).

        A value off a slider's grid is added to its options; a value no control can show is an error
        (in :attr:`error`), never silently dropped.
        """
        self._syncing = True
        try:
            for path, control in self._controls.items():
                try:
                    control.show(self.scenario.get(path))
                except traitlets.TraitError as exc:
                    self._show_error(ValueError(f"{path}: the control cannot show {self.scenario.get(path)!r} "
                                                f"({exc})"))
        finally:
            self._syncing = False

    # ---- views: numbers from plan() and sweep() only

    def _specs(self, p):
        """Every figure of the plan, through the one registry (:func:`drmath.viz.figure_specs`)."""
        return viz.figure_specs(p, FIGURES)

    def _render_cards(self, p):
        for name in CARDS:
            self.cards[name].value = _card_html(p, name, self.baseline)

    def _render(self, p, specs):
        self.error.value = ""
        self._render_cards(p)
        for name in CARDS:
            if self.math_toggles[name].value:
                self._show_math(name)
        for name, spec in specs.items():
            view = self.figures[name]
            if view.figure != spec:
                with view.hold_sync():
                    view.revision += 1
                    view.figure = spec
        self.warnings.value = "".join(f'<div class="drmath-warning drmath-warning-{name}">{markdown_html(text)}</div>'
                                      for name, text in p.warnings().items())
        self.replication_note.value = (
            f"→ {every(p.replication_every)}: an off-site copy every {p.format('replication_interval')}, "
            f"taking {p.format('replication_time')}")
        flat = {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                for k, v in p.scenario.flat().items()}
        self.scenario_view.value = (f'<div class="drmath-scenario" data-scenario="'
                                    f'{html.escape(json.dumps(flat))}"></div>')
        self.share.query = scenario_io.to_query(p.scenario)
        self.tiers.value = tier_table_html(p)
        self._render_solution()
        self._render_file()

    def _render_file(self):
        """The save link (the TOML keeps the opened file's name and sources) and what is open."""
        opened, meta = self._opened
        edited = self.scenario != opened
        name = meta.get("name") or "drmath scenario"
        saved = dict(meta, name=f"{name} (edited)" if edited else name)
        if edited:
            saved["description"] = (f"Saved from the drmath dashboard: {name!r} with changes. "
                                    + str(meta.get("description") or "")).strip()
        toml = base64.b64encode(scenario_io.dumps(self.scenario, saved).encode()).decode()
        self.save_link.value = (f'<a class="drmath-save-link" download="drmath-scenario.toml" '
                                f'href="data:application/toml;base64,{toml}">save scenario (TOML)</a>')
        self.opened.value = (f'<span class="drmath-opened" title="{html.escape(str(meta.get("description", "")))}">'
                             f'showing: {html.escape(name)}{" · edited" if edited else ""}</span>')

    def _toggle_math(self, name, on):
        if name not in self.math_views:
            view = W.Output(layout=W.Layout(display="none", width="100%"))
            view.add_class(f"drmath-math-{name}").add_class("drmath-math")
            self.math_views[name] = view
            self._maths.children = tuple(self.math_views[n] for n in CARDS if n in self.math_views)
        view = self.math_views[name]
        view.layout.display = "block" if on else "none"
        self.math_toggles[name].description = "hide the math" if on else "show the math"
        if on:
            self._show_math(name)

    def _show_math(self, name):
        try:
            text = self.plan.explain(name)
        except Exception as exc:  # noqa: BLE001 - the explainer is optional to the view
            text = f"*The derivation of `{name}` is not available: {exc}*"
        self.math_views[name].outputs = ({"output_type": "display_data",
                                          "data": {"text/markdown": text, "text/plain": text},
                                          "metadata": {}},)


def build_app(scenario=None):
    """Build the dashboard for a scenario.

    Parameters
    ----------
    scenario : Scenario or mapping, optional
        The inputs it opens with: a Scenario, or changes to the default one
        (``{"training.gpus": 4096}``); the default scenario when omitted.

    Returns
    -------
    app : Dashboard
        Display it; ``app.root`` is the widget tree.

    Examples
    --------
    >>> app = build_app({"training.gpus": 4096})
    >>> app.controls["training.gpus"].value
    4096
    """
    if scenario is not None and not isinstance(scenario, Scenario):
        scenario = Scenario().with_changes(scenario)
    return Dashboard(scenario)
