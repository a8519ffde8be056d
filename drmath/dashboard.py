r"""The ipywidgets app: controls, KPI cards and live figures over one :func:`drmath.plan`.

:func:`build_app` returns a :class:`Dashboard`; display it (the Voilà notebook
``notebooks/dashboard.ipynb`` is just that). Every control edits one Scenario
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
figure on every page view. Only scatter and bar traces are used.

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

from . import presets, scenario_io, viz
from .scenario import FIELDS, PLAN_FIELDS, Scenario, plan, sweep
from .units import Gbit_per_s, day, hour, minute

__all__ = ["build_app", "Dashboard", "PlotlyView", "ShareLink", "CARDS", "CONTROLS", "FIGURES", "PLOTLY_STATIC",
           "PLOTLY_JS_VERSION",
           "data_value", "short_duration"]

PLOTLY_JS_VERSION = viz.PLOTLY_JS_VERSION
PLOTLY_STATIC = f"voila/templates/drlab/static/plotly-basic-{PLOTLY_JS_VERSION}.min.js?v={PLOTLY_JS_VERSION}"
"""plotly.js (the scatter/bar/pie "basic" bundle, vendored in the drlab template), relative to
the server's base URL. The versioned query makes tornado mark it cacheable for ten years."""

CARDS = ("rpo_local", "rpo_site", "rto_local", "rto_site", "ettr", "time_to_train", "total_dr_cost",
         "replication_keeps_up")
"""The plan fields shown as KPI cards, in order."""

CONTROLS = ("training.gpus", "training.mfu", "training.params", "checkpoint.interval",
            "replication.link_bandwidth", "replication.interval", "failures.gpu_failure_rate",
            "failover.tier", "failover.standby_fraction")
"""The Scenario fields the dashboard controls, in order."""

FIGURES = ("rpo", "ettr", "rto", "cost_tier", "cost_link")
"""The figures, by name (CSS class ``drmath-figure-<name>``)."""

REPLICATION_GRID = np.geomspace(minute, 7 * day, 80)
CHECKPOINT_GRID = np.geomspace(10.0, 3 * hour, 80)
LINK_GRID = np.geomspace(1 * Gbit_per_s, 3200 * Gbit_per_s, 80)
_COST_CURVES = ["total_dr_cost", "standby_cost", "replication_cost", "expected_disaster_loss",
                "replication_keeps_up"]

AUTO = "auto"  # option value for an unset optional field (None in the Scenario)

_ESM = r"""
async function loadPlotly() {
  if (window.Plotly) return window.Plotly;
  // the drlab Voilà template defines the loader (plotly.js is one of its static files)
  if (window.__drmathLoadPlotly) return window.__drmathLoadPlotly();
  throw new Error('plotly.js comes with the drlab Voilà template: serve with python -m drmath.serve');
}
export default {
  async render({ model, el }) {
    const div = document.createElement('div');
    div.className = 'drmath-plot';
    el.appendChild(div);
    let Plotly;
    try { Plotly = await loadPlotly(); }
    catch (e) { div.className = 'drmath-figure-error'; div.textContent = String(e.message || e); return; }
    const config = { displaylogo: false, responsive: true,
                     modeBarButtonsToRemove: ['lasso2d', 'select2d', 'autoScale2d'] };
    let configured = false;
    const draw = () => {
      const f = model.get('figure') || {};
      const revision = String(model.get('revision'));
      // the config goes in once: given again, plotly deep-copies its defaults on every redraw
      const drawn = configured ? Plotly.react(div, f.data || [], f.layout || {})
                               : Plotly.react(div, f.data || [], f.layout || {}, config);
      configured = true;
      drawn.then(() => { el.dataset.revision = revision; });
    };
    draw();
    model.on('change:figure', draw);
    // the widget may be laid out after the first draw (or re-laid out): fit the plot to its box
    let width = 0;
    const resized = new ResizeObserver(() => {
      const w = el.clientWidth;
      if (w > 0 && Math.abs(w - width) > 2) { width = w; Plotly.Plots.resize(div); }
    });
    resized.observe(el);
    return () => { resized.disconnect(); model.off('change:figure', draw); Plotly.purge(div); };
  }
};
"""


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

    _esm = _ESM
    figure = traitlets.Dict().tag(sync=True)
    revision = traitlets.Int(0).tag(sync=True)


_SHARE_ESM = r"""
export default {
  render({ model, el }) {
    el.classList.add('drmath-share');
    const input = document.createElement('input');
    input.readOnly = true;
    input.className = 'drmath-share-link';
    const button = document.createElement('button');
    button.className = 'drmath-copy-link jupyter-button';
    button.textContent = 'copy link';
    const status = document.createElement('span');
    status.className = 'drmath-share-status';
    el.append(button, input, status);
    const link = () => {
      const url = new URL(window.location.href);
      url.search = model.get('query');
      return url.toString();
    };
    const update = () => {
      const href = link();
      // the page's own URL carries the state, so reloading or bookmarking keeps it
      if (href !== window.location.href) window.history.replaceState(window.history.state, '', href);
      input.value = href;
      el.dataset.link = href;
    };
    button.addEventListener('click', async () => {
      const href = link();
      try { await navigator.clipboard.writeText(href); status.textContent = 'copied'; }
      catch (e) { input.select(); status.textContent = 'select and copy the link'; }
      el.dataset.copied = href;
      setTimeout(() => { status.textContent = ''; }, 2000);
    });
    update();
    model.on('change:query', update);
    return () => model.off('change:query', update);
  }
};
"""


class ShareLink(anywidget.AnyWidget):
    """Keeps the page URL's query string equal to the scenario, with a "copy link" button.

    Setting :attr:`query` (from :func:`drmath.scenario_io.to_query`) rewrites the
    address bar with ``history.replaceState``; the button copies the link.

    Examples
    --------
    >>> ShareLink(query="training.gpus=4096").query
    'training.gpus=4096'
    """

    _esm = _SHARE_ESM
    query = traitlets.Unicode("").tag(sync=True)


VOILA_PARAMETERS = scenario_io.VOILA_PARAMETERS
"""Query keys that belong to Voilà, not to the scenario (defined with the link format). [1]"""


# --------------------------------------------------------------------------- labels


def short_duration(seconds):
    """A control label for a duration: ``"30 s"``, ``"5 min"``, ``"1.5 h"``, ``"2 days"``.

    Parameters
    ----------
    seconds : float
        The duration. [s]

    Returns
    -------
    label : str
        The reading in the largest unit that keeps it ≥ 1. [1]

    Examples
    --------
    >>> short_duration(90.0), short_duration(5400.0), short_duration(2 * 86400.0)
    ('1.5 min', '1.5 h', '2 days')
    """
    for scale, name in ((day, "days"), (hour, "h"), (minute, "min"), (1.0, "s")):
        if seconds >= scale:
            value = seconds / scale
            return f"{value:.3g} {'day' if name == 'days' and value == 1 else name}"
    return f"{seconds:.3g} s"


def data_value(value):
    """The ``data-value`` attribute of a KPI card: the SI value, losslessly.

    Parameters
    ----------
    value : float or bool
        A plan field in SI. [1]

    Returns
    -------
    text : str
        ``repr`` of the float, ``"inf"`` for no bound, ``"true"``/``"false"`` for a flag. [1]

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


def _ordinal(k):
    k = int(k)
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def _with_current(options, current, label):
    """Insert the scenario's value into a slider's options if it is not there."""
    values = [v for _, v in options]
    if current in values:
        return options
    numeric = [(l, v) for l, v in options if v != AUTO]
    auto = [(l, v) for l, v in options if v == AUTO]
    numeric.append((label(current), current))
    numeric.sort(key=lambda o: o[1])
    return auto + numeric


class _Control:
    """One widget bound to one Scenario field, with the SI mapping both ways."""

    def __init__(self, path, widget, optional=False):
        self.path = path
        self.widget = widget
        self.optional = optional
        section, name = path.split(".")
        widget.add_class(f"drmath-control-{section}-{name}")
        widget.add_class("drmath-control")

    def to_si(self, value):
        return None if (self.optional and value == AUTO) else value

    def from_si(self, value):
        return AUTO if (self.optional and value is None) else value


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
        return _Control(path, w, optional)

    def dropdown(path, description, options, label):
        current = s.get(path)
        if current not in [v for _, v in options]:
            options = options + [(label(current), current)]
        w = W.Dropdown(options=options, value=current, description=description, style=dropdown_style,
                       layout=wide, tooltip=FIELDS[path].doc)
        return _Control(path, w)

    gpus = [512, 1024, 2048, 4096, 6000, 8000, 10000, 12000, 16384, 24576, 32768, 65536, 131072]
    mfu = [round(0.20 + 0.01 * i, 2) for i in range(41)]
    ckpt = [30.0, minute, 2 * minute, 3 * minute, 5 * minute, 10 * minute, 15 * minute, 20 * minute,
            30 * minute, hour, 2 * hour, 3 * hour, 6 * hour, 12 * hour]
    links = [1, 10, 25, 40, 50, 100, 200, 400, 800, 1600, 3200]
    repl = [5 * minute, 10 * minute, 15 * minute, 20 * minute, 30 * minute, hour, 2 * hour, 3 * hour,
            4 * hour, 6 * hour, 8 * hour, 12 * hour, day]
    standby = [round(0.1 * i, 1) for i in range(1, 11)]
    pct = lambda v: f"{100 * v:.0f}%"  # noqa: E731
    gbit = lambda v: f"{v / Gbit_per_s:.3g} Gbit/s"  # noqa: E731
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
               [(gbit(g * Gbit_per_s), g * Gbit_per_s) for g in links], gbit),
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
    return {c.path: c for c in controls}


# --------------------------------------------------------------------------- cards


def _card_sub(p, name):
    f = p.format
    if name == "rpo_local":
        return f"expected {f('rpo_local_expected')}"
    if name == "rpo_site":
        return f"expected {f('rpo_site_expected')}" if p.replication_keeps_up else "replication falls behind"
    if name == "rto_local":
        return f"load {f('checkpoint_load_time')}, MTBF {f('mtbf')}"
    if name == "rto_site":
        return presets.DR_TIERS[p.scenario.failover.tier].label
    if name == "ettr":
        return f"checkpoint every {f('checkpoint_interval')}"
    if name == "time_to_train":
        return f"{p.tokens / 1e12:.3g}T tokens, {f('run_cost')}"
    if name == "total_dr_cost":
        return f"standby {f('standby_cost')} · loss {f('expected_disaster_loss')}"
    if name == "replication_keeps_up":
        if p.replication_keeps_up:
            return f"link {f('replication_utilization')} busy"
        return f"needs ≥ {p.replication_bandwidth_needed / Gbit_per_s:.3g} Gbit/s"
    return ""


def _card_html(p, name):
    value = getattr(p, name)
    title = {"rpo_local": "Local RPO", "rpo_site": "Site RPO", "rto_local": "Local RTO",
             "rto_site": "Site RTO", "ettr": "ETTR", "time_to_train": "Time to train",
             "total_dr_cost": "Total DR cost", "replication_keeps_up": "Replication keeps up"}.get(
        name, PLAN_FIELDS[name][1])
    bad = (name == "replication_keeps_up" and not value) or (
        isinstance(value, float) and math.isinf(value))
    return (f'<div class="drmath-card-title">{html.escape(title)}</div>'
            f'<div class="drmath-kpi drmath-kpi-{name}{" drmath-bad" if bad else ""}" '
            f'data-value="{data_value(value)}">{html.escape(p.format(name))}</div>'
            f'<div class="drmath-card-sub">{html.escape(_card_sub(p, name))}</div>')


_CSS = """
<style>
.drmath-app { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: #1f2933; }
.drmath-header h2 { margin: 0 0 2px 0; font-size: 20px; }
.drmath-header p { margin: 0 0 8px 0; color: #52606d; font-size: 13px; }
.drmath-cards { display: flex; flex-wrap: wrap; gap: 8px; }
.drmath-card { flex: 1 1 150px; min-width: 150px; border: 1px solid #e4e7eb; border-radius: 8px;
  padding: 8px 10px; background: #fff; box-shadow: 0 1px 2px rgba(0,0,0,0.04);
  justify-content: space-between; }
.drmath-card-title { font-size: 12.5px; color: #52606d; font-weight: 500; white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; }
.drmath-kpi { font-size: 24px; font-weight: 600; line-height: 1.25; }
.drmath-kpi.drmath-bad { color: #dc2626; }
.drmath-card-sub { font-size: 11.5px; color: #7b8794; line-height: 1.35; min-height: 2.7em; }
.drmath-card .widget-html, .drmath-card .widget-html-content { line-height: normal; height: auto; }
.drmath-controls .widget-readout { min-width: 104px; max-width: 150px; overflow: visible;
  text-align: left; }
.drmath-controls .widget-toggle-buttons .widget-toggle-button { font-size: 12px; padding: 0 4px; }
.drmath-controls .widget-toggle-buttons { flex-wrap: nowrap; }
.drmath-card .widget-toggle-button { font-size: 11px; height: 22px; line-height: 20px; }
.drmath-math { font-size: 13px; max-width: 100%; overflow-x: auto; }
.drmath-controls { border: 1px solid #e4e7eb; border-radius: 8px; padding: 8px; background: #f8fafc; }
.drmath-controls .drmath-section { font-size: 12px; color: #52606d; text-transform: uppercase;
  letter-spacing: .03em; margin: 6px 0 0 4px; }
.drmath-note { font-size: 12px; color: #52606d; margin: -2px 0 4px 138px; line-height: 1.4; }
.drmath-note .widget-html-content { line-height: 1.4; }
.drmath-error-message { color: #b91c1c; background: #fef2f2; border: 1px solid #fecaca;
  border-radius: 6px; padding: 6px 8px; font-size: 13px; }
.drmath-figure { border: 1px solid #e4e7eb; border-radius: 8px; background: #fff; overflow: hidden;
  min-height: 300px; }
.drmath-figure-error { color: #b91c1c; padding: 8px; }
.drmath-notice-message { color: #92400e; background: #fffbeb; border: 1px solid #fde68a;
  border-radius: 6px; padding: 6px 8px; font-size: 13px; }
.drmath-share { display: flex; align-items: center; gap: 6px; flex: 1 1 auto; }
.drmath-share-link { flex: 1 1 auto; min-width: 200px; font-size: 12px; color: #52606d;
  border: 1px solid #e4e7eb; border-radius: 4px; padding: 3px 6px; }
.drmath-share-status { font-size: 12px; color: #52606d; }
.drmath-save-link { font-size: 13px; white-space: nowrap; }
</style>
"""


# --------------------------------------------------------------------------- the app


class Dashboard:
    """The dashboard: controls → :meth:`apply` → plan/sweep → cards and figures.

    Attributes
    ----------
    scenario : Scenario
        The inputs on screen. [1]
    plan : Plan
        ``plan(scenario)``: every number shown comes from it or from ``sweep``. [1]
    controls : dict of str to ipywidgets.Widget
        The control of each Scenario field, by ``section.field``. [1]
    cards : dict of str to ipywidgets.HTML
        Each KPI card's value, by plan field. [1]
    math_toggles : dict of str to ipywidgets.ToggleButton
        Each card's "show the math" toggle. [1]
    math_views : dict of str to ipywidgets.Output
        The derivations shown so far (``Plan.explain``), made on first toggle. [1]
    figures : dict of str to PlotlyView
        Each figure, by name (see :data:`FIGURES`). [1]
    error : ipywidgets.HTML
        The last rejected input's message; empty when the inputs are valid. [1]
    root : ipywidgets.Widget
        The whole app, to display. [1]

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
        self.share = ShareLink()
        self._scenario_files = scenario_io.shipped_scenarios()
        self.picker = W.Dropdown(options=[("open a scenario…", "")] + [(n, n) for n in self._scenario_files],
                                 value="", layout=W.Layout(width="300px"),
                                 tooltip="load one of the scenarios that ship with drmath")
        self.picker.add_class("drmath-scenario-picker")
        self.picker.observe(lambda change: self._pick(change["new"]), "value")
        self.save_link = self._html("").add_class("drmath-save")
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
            c["failover.standby_fraction"],
        ], layout=W.Layout(width="440px", min_width="400px")).add_class("drmath-controls")
        f = self.figures
        for name, area in zip(FIGURES, ("rpo", "ettr", "rto", "tier", "link")):
            f[name].layout = W.Layout(grid_area=area, width="100%")
        grid = W.GridBox(list(f.values()), layout=W.Layout(
            grid_template_columns="minmax(0, 1fr) minmax(0, 1fr)",
            grid_template_areas='"rpo ettr" "rto tier" "link link"', grid_gap="10px", width="100%",
            flex="1 1 auto"))
        header = self._html('<div class="drmath-header"><h2>drmath: disaster recovery for a frontier training '
                        'run</h2><p>Move a control: every number and curve is re-derived by '
                        '<code>plan()</code> and <code>sweep()</code>. "show the math" gives each '
                        "card's formula with its inputs.</p></div>")
        cards = W.HBox(card_boxes, layout=self._full).add_class("drmath-cards")
        # the derivations' views are made on first use: fewer widgets for the page to build
        maths = self._maths = W.VBox([], layout=self._full)
        body = W.HBox([controls, grid], layout=W.Layout(width="100%", grid_gap="12px",
                                                         align_items="flex-start"))
        files = W.HBox([self.picker, self.save_link, self.share],
                       layout=W.Layout(width="100%", align_items="center", grid_gap="10px"))
        return W.VBox([self._html(_CSS), header, files, self.notice, cards, maths, self.error, body,
                       self.scenario_view],
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
            ``{"section.field": value}`` in SI (None unsets an optional field). [1]

        Returns
        -------
        applied : bool
            True if the scenario changed; False if it was rejected (the message
            is then in :attr:`error` and nothing else moved). [1]

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
            The inputs to show. [1]

        Returns
        -------
        applied : bool
            True when shown. [1]

        Examples
        --------
        >>> app = build_app()
        >>> app.load(Scenario().with_changes({"failover.tier": "cold"}))
        True
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
            self.load(scenario)
        finally:
            self.picker.value = ""

    def restore(self, query):
        """Restore the state a share link encodes; a bad link shows a notice and keeps the defaults.

        Parameters
        ----------
        query : str
            The page URL's query string. [1]

        Returns
        -------
        restored : bool
            True when the link's settings were used. [1]

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
            True when a link's settings were used. [1]

        Examples
        --------
        >>> build_app().restore_from_request()
        False
        """
        from ._query import query_string

        query = query_string()
        return bool(query) and self.restore(query)

    def _show_error(self, exc):
        self.error.value = f'<div class="drmath-error-message">{html.escape(str(exc))}</div>'

    def _on_control(self, path, change):
        if self._syncing:
            return
        self.apply({path: self._controls[path].to_si(change["new"])})

    def _sync_controls(self):
        """Set every control to the current scenario (after a rejection)."""
        self._syncing = True
        try:
            for path, control in self._controls.items():
                value = control.from_si(self.scenario.get(path))
                if control.widget.value != value:
                    try:
                        control.widget.value = value
                    except traitlets.TraitError:
                        pass
        finally:
            self._syncing = False

    # ---- views: numbers from plan() and sweep() only

    def _specs(self, p):
        s = p.scenario
        rpo = sweep(s, "replication.interval", REPLICATION_GRID,
                    ["rpo_site", "rpo_site_expected", "replication_keeps_up"])
        ettr = sweep(s, "checkpoint.interval", CHECKPOINT_GRID, ["ettr"])
        link = sweep(s, "replication.link_bandwidth", LINK_GRID, _COST_CURVES)
        return {"rpo": viz.rpo_spec(p, REPLICATION_GRID, rpo),
                "ettr": viz.ettr_spec(p, CHECKPOINT_GRID, ettr),
                "rto": viz.rto_spec(p),
                "cost_tier": viz.cost_tier_spec(p),
                "cost_link": viz.cost_link_spec(p, LINK_GRID, link)}

    def _render(self, p, specs):
        self.error.value = ""
        for name in CARDS:
            self.cards[name].value = _card_html(p, name)
            if self.math_toggles[name].value:
                self._show_math(name)
        for name, spec in specs.items():
            view = self.figures[name]
            if view.figure != spec:
                with view.hold_sync():
                    view.revision += 1
                    view.figure = spec
        every = _ordinal(p.replication_every)
        self.replication_note.value = (
            f"→ every {every} checkpoint: an off-site copy every {p.format('replication_interval')}, "
            f"taking {p.format('replication_time')}")
        flat = {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                for k, v in p.scenario.flat().items()}
        self.scenario_view.value = (f'<div class="drmath-scenario" data-scenario="'
                                    f'{html.escape(json.dumps(flat))}"></div>')
        self.share.query = scenario_io.to_query(p.scenario)
        toml = base64.b64encode(scenario_io.dumps(p.scenario, {"name": "saved from the drmath dashboard"})
                                .encode()).decode()
        self.save_link.value = (f'<a class="drmath-save-link" download="drmath-scenario.toml" '
                                f'href="data:application/toml;base64,{toml}">save scenario (TOML)</a>')

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
        (``{"training.gpus": 4096}``); the default scenario when omitted. [1]

    Returns
    -------
    app : Dashboard
        Display it; ``app.root`` is the widget tree. [1]

    Examples
    --------
    >>> app = build_app({"training.gpus": 4096})
    >>> app.controls["training.gpus"].value
    4096
    """
    if scenario is not None and not isinstance(scenario, Scenario):
        scenario = Scenario().with_changes(scenario)
    return Dashboard(scenario)
