"""The dashboard's widgets: the two anywidgets (:class:`PlotlyView`, :class:`ShareLink`) and the controls.

:func:`opened_when_built` holds back the widgets a block makes until it ends, so that each reaches the page in one
message with its final state (the app's open: ~120 messages instead of ~240).

Each control is one ipywidget bound to one Scenario field (:class:`_Control`), labelled in human
units and built from the scenario on screen (:func:`_controls`): a value off a slider's grid (a
loaded scenario's 100,000 GPUs) is added to its options, so a control always shows its true value.
Every control carries the CSS class ``drmath-control-<section>-<field>``.
"""

import contextlib

import anywidget
import ipywidgets as W
import traitlets
from ipywidgets.widgets.widget_description import DescriptionStyle

from .. import _resources, presets
from ..formatting import line_rate, params_pair, short_duration
from ..scenario import FIELDS, MODEL
from ..units import Gbit_per_s, day, hour, minute
from .cards import TARGET_CONTROLS

__all__ = ["PlotlyView", "ShareLink", "AUTO", "opened_when_built"]

AUTO = "auto"  # option value for an unset optional field (None in the Scenario)


class PlotlyView(anywidget.AnyWidget):
    """A plotly figure drawn in the browser from a plain ``{"data", "layout"}`` dict.

    Setting :attr:`figure` redraws it with ``Plotly.react``. plotly.js is loaded
    once per page from :data:`drmath.dashboard.PLOTLY_STATIC` (a static file the browser caches), by
    the ``drlab`` Voilà template that ``python -m drmath.serve`` uses.

    Examples
    --------
    >>> view = PlotlyView(figure={"data": [{"type": "bar", "x": ["a"], "y": [1]}], "layout": {}})
    >>> view.figure["data"][0]["type"]
    'bar'
    """

    # as text, not as a path: anywidget connects every instance made from a path to a class-level file-watch
    # signal, which kept every static dashboard's figures alive in the server (issue 32: 120 PlotlyViews after
    # 20 renders, ~1 GB per 5,000 links)
    _esm = _resources.data_file("widgets", "plotly_view.js").read_text("utf-8")
    _css = _resources.data_file("widgets", "plotly_view.css").read_text("utf-8")
    figure = traitlets.Dict().tag(sync=True)
    revision = traitlets.Int(0).tag(sync=True)


class ShareLink(anywidget.AnyWidget):
    """Keeps the page URL's query string equal to the scenario, with a "copy link" button.

    Setting :attr:`query` (from :func:`drmath.io.links.to_query`) rewrites the
    address bar with ``history.replaceState``; the button copies the link.

    Examples
    --------
    >>> ShareLink(query="training.gpus=4096").query
    'training.gpus=4096'
    """

    _esm = _resources.data_file("widgets", "share_link.js").read_text("utf-8")  # text: see PlotlyView
    _css = _resources.data_file("widgets", "share_link.css").read_text("utf-8")
    query = traitlets.Unicode("").tag(sync=True)


def _widgets_in(value):
    """The widgets a trait's value refers to (a widget, or a list, tuple or dict of them)."""
    if isinstance(value, W.Widget):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _widgets_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _widgets_in(item)


@contextlib.contextmanager
def opened_when_built():
    """Open the comms of the widgets made in the block only as it ends, each with its state then.

    A widget opens its comm (one message carrying its whole state) as it is made, and every value set after that
    is one more message. Built inside this block, the dashboard's widgets each send one message, with the values
    its first render gave them, instead of a second for each value set since: half the messages a page's kernel
    sends at open (issue 24). Each widget opens after the widgets its state refers to (its layout, its children).
    If the block raises, its widgets are never opened.

    Examples
    --------
    >>> with opened_when_built():
    ...     box = W.VBox([W.HTML("a")])
    ...     box.children[0].value = "b"
    ...     print(box.comm is None)
    True
    >>> box.comm is not None and box.children[0].comm is not None
    True
    """
    made = []
    open_now = W.Widget.open
    W.Widget.open = lambda widget: made.append(widget)
    try:
        yield
    finally:
        W.Widget.open = open_now

    refers = W.widget_serialization["to_json"]  # how a trait holding widgets is sent (children, layout, style)

    def open_after_its_parts(widget):
        if widget.comm is None:
            for name in widget.keys:
                if widget.trait_metadata(name, "to_json") is refers:
                    for part in _widgets_in(getattr(widget, name)):
                        open_after_its_parts(part)
            open_now(widget)

    for widget in made:
        open_after_its_parts(widget)


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

    def changes(self, value):
        """The scenario changes a widget value makes."""
        return {self.path: self.to_si(value)}

    def current(self, scenario):
        """The SI value the widget shows for ``scenario``."""
        return scenario.get(self.path)

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


class _ModelControl(_Control):
    """The model: a dense preset is its parameter count (every one active); a mixture of experts is its name, which
    sets ``training.model`` (the total for the bytes, the active share for the compute)."""

    def changes(self, value):
        if isinstance(value, str):
            return {MODEL: value}
        return {self.path: value, "training.active_share": 1.0, MODEL: None}

    def current(self, scenario):
        model = scenario.training.model
        if model is not None and model.moe and presets.MODELS.get(model.name) == model:
            return model.name
        return scenario.training.params


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

    def model_dropdown():
        options = [(f"{m.name} · {params_pair(m.params, m.active_params)}",
                    m.name if m.active_params != m.params else m.params) for m in presets.MODELS.values()]
        label = lambda v: f"custom · {params_pair(v, v)}"  # noqa: E731
        control = _ModelControl("training.params", W.Dropdown(options=options, description="Model",
                                                              style=dropdown_style, layout=wide,
                                                              tooltip=FIELDS["training.params"].doc),
                                label=label, ordered=False)
        current = control.current(s)
        control.widget.options = _with_current(options, current, label, ordered=False)
        control.widget.value = current
        return control

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
        model_dropdown(),
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
