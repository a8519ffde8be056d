"""The fit of an incident log (:class:`drmath.calibrate.Calibration`): the gaps against the fitted densities,
the failures over time against a constant rate, and the cause table.

No statistics live here. The fits, their intervals and the trend test are the Calibration's; the
densities are :mod:`scipy.stats`' ``weibull_min`` and ``expon`` with the fitted parameters. A builder only
bins the gaps for display, converts seconds to a display unit and lays the traces out, with the trace
types of the dashboard's plotly.js "basic" bundle (bars and lines, no ``histogram`` or ``table`` trace):
the cause table is HTML (:func:`cause_table_html`).

These figures are of a log, not of a plan, so they are registered here (:data:`FLEET_FIGURES`), not in
:data:`drmath.viz.FIGURES`, whose builders take a plan.

    >>> from drmath.calibrate import fit_events
    >>> fit = fit_events([0.0, 3000.0, 9000.0, 10000.0, 18000.0], 0.0, 20000.0, causes=list("ABAAB"))
    >>> [t["name"] for t in gaps_spec(fit)["data"]]
    ['gaps (histogram)', 'Weibull fit', 'exponential fit']
    >>> list(fleet_specs(fit))
    ['gaps', 'trend']
"""

import html
import math
import textwrap

import numpy as np

from ..formatting import duration_unit, short_duration
from ._common import _as_figure, _layout, _two_line_title, jsonable
from .palette import BLUE, GREY, ORANGE

__all__ = ["gaps_spec", "gaps_figure", "trend_spec", "trend_figure", "cause_table_html", "fleet_specs",
           "FLEET_FIGURES", "MOST_BINS"]

MOST_BINS = 60
"""Most bars in the gaps' histogram [1]: numpy's ``"auto"`` rule, capped (a long tail of 100,000 gaps would
otherwise draw thousands of bars)."""

_CURVE_POINTS = 200  # per density curve


def _needs(fit, attribute):
    value = getattr(fit, attribute, None)
    if value is None:
        raise ValueError(f"the calibration carries no {attribute}: build it with drmath.calibrate "
                         "(read_incidents, parse_incidents or fit_events)")
    return np.asarray(value, dtype=float)


def gaps_spec(fit):
    """The gaps between failures as a density histogram, against the fitted Weibull and exponential densities.

    Parameters
    ----------
    fit : Calibration
        An incident log's fit (:mod:`drmath.calibrate`), with its ``gaps``.

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure: bars of the gaps' density (area 1) and the two fitted densities
        (:func:`scipy.stats.weibull_min.pdf` with the fitted shape and scale, :func:`scipy.stats.expon.pdf`
        with the fitted MTBF as its scale), all per display unit of time.

    Raises
    ------
    ValueError
        If the calibration carries no gaps.

    Examples
    --------
    >>> from drmath.calibrate import fit_events
    >>> spec = gaps_spec(fit_events([0.0, 3000.0, 9000.0, 10000.0, 18000.0], 0.0, 20000.0))
    >>> spec["data"][0]["type"], spec["layout"]["xaxis"]["title"]["text"]
    ('bar', 'time between failures [h]')
    """
    from scipy import stats

    gaps = _needs(fit, "gaps")
    edges = np.histogram_bin_edges(gaps, bins="auto")
    if edges.size > MOST_BINS + 1:
        edges = np.histogram_bin_edges(gaps, bins=MOST_BINS)
    density, edges = np.histogram(gaps, bins=edges, density=True)
    scale, unit = duration_unit(np.median(gaps))
    x = np.linspace(0.0, edges[-1], _CURVE_POINTS + 1)[1:]  # not at 0: a shape below 1 has an infinite density there
    weibull = stats.weibull_min.pdf(x, fit.weibull_shape, scale=fit.weibull_scale)
    exponential = stats.expon.pdf(x, scale=fit.mtbf)
    xs = jsonable(x / scale)
    per = f"1/{unit}"
    lo, hi = fit.weibull_shape_ci
    data = [
        {"type": "bar", "name": "gaps (histogram)", "x": jsonable((edges[:-1] + edges[1:]) / 2 / scale),
         "y": jsonable(density * scale), "width": jsonable(np.diff(edges) / scale),
         "marker": {"color": GREY, "line": {"width": 0}}, "opacity": 0.7,
         "hovertemplate": f"gap %{{x:.3g}} {unit}<br>density %{{y:.3g}} {per}<extra></extra>"},
        {"type": "scatter", "mode": "lines", "name": "Weibull fit", "x": xs, "y": jsonable(weibull * scale),
         "line": {"color": BLUE, "width": 2.5},
         "hovertemplate": f"Weibull: %{{y:.3g}} {per} at %{{x:.3g}} {unit}<extra></extra>"},
        {"type": "scatter", "mode": "lines", "name": "exponential fit", "x": xs, "y": jsonable(exponential * scale),
         "line": {"color": ORANGE, "width": 2, "dash": "dash"},
         "hovertemplate": f"exponential: %{{y:.3g}} {per} at %{{x:.3g}} {unit}<extra></extra>"},
    ]
    interval = f"{lo:.3g} to {hi:.3g}" if math.isfinite(hi) else f"{lo:.3g} to inf"
    detail = (f"{gaps.size:,} gaps · Weibull shape {fit.weibull_shape:.3g} (95%: {interval}), "
              f"scale {short_duration(fit.weibull_scale)} · MTBF {short_duration(fit.mtbf)}")
    layout = _layout("", f"time between failures [{unit}]", f"density [{per}]", height=340, bargap=0)
    layout["title"] = _two_line_title("Time between failures against the fitted densities", detail)
    layout["margin"] = dict(layout["margin"], t=96)
    layout["legend"].update(y=1.0, yanchor="top", x=1.0, xanchor="right", orientation="v")
    return {"data": data, "layout": layout}


gaps_figure = _as_figure(gaps_spec)


def trend_spec(fit):
    """The failures counted over the window against the straight line of a constant rate, with the trend test.

    Parameters
    ----------
    fit : Calibration
        An incident log's fit, with its ``failure_times`` and ``trend``.

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure: the cumulative count of failures against time from the window's start
        (a step line), and the constant-rate line from no failure at the start to all of them at the end
        (the exponential fit's rate, ``events / window``); the title gives the Laplace test's sentence. A
        falling rate bends the steps above the line, a rising one below.

    Raises
    ------
    ValueError
        If the calibration carries no failure times.

    Examples
    --------
    >>> from drmath.calibrate import fit_events
    >>> spec = trend_spec(fit_events([0.0, 3000.0, 9000.0, 10000.0, 18000.0], 0.0, 20000.0))
    >>> spec["data"][0]["y"][-1], spec["data"][1]["y"]
    (5.0, [0.0, 5.0])
    """
    times = _needs(fit, "failure_times")
    scale, unit = duration_unit(fit.window)
    count = np.arange(1, times.size + 1, dtype=float)
    start = fit.provenance.get("window_start")
    start = str(start or "")  # ISO 8601; shown to the minute, which fits a phone's axis
    since = (f" since {start[:16].replace('T', ' ')}{' UTC' if start.endswith('Z') else ''}" if start
             else " since the window's start")
    data = [
        {"type": "scatter", "mode": "lines", "name": "failures counted", "x": jsonable(times / scale),
         "y": jsonable(count), "line": {"color": BLUE, "width": 2, "shape": "hv"},
         "hovertemplate": f"%{{x:.3g}} {unit}: %{{y}} failures<extra></extra>"},
        {"type": "scatter", "mode": "lines", "name": "constant rate", "x": [0.0, jsonable(fit.window / scale)],
         "y": [0.0, float(fit.events)], "line": {"color": GREY, "width": 1.5, "dash": "dash"},
         "hoverinfo": "skip"},
    ]
    sentence = fit.trend["sentence"]
    detail = "<br>".join(html.escape(line) for line in textwrap.wrap(
        f"Laplace U = {fit.trend['statistic']:.3g}: {sentence}", 56, break_on_hyphens=False))  # fits 340 px
    lines = detail.count("<br>") + 1
    layout = _layout("", f"{unit}{since}", "failures counted", height=320 + 16 * lines)
    layout["title"] = _two_line_title("Failures over time against a constant rate", detail)
    layout["margin"] = dict(layout["margin"], t=80 + 16 * lines)
    layout["xaxis"]["range"] = [0.0, jsonable(fit.window / scale)]
    return {"data": data, "layout": layout}


trend_figure = _as_figure(trend_spec)


def cause_table_html(fit):
    """The cause table (:meth:`Calibration.cause_frame`) as an HTML table, every cell escaped.

    Parameters
    ----------
    fit : Calibration
        An incident log's fit.

    Returns
    -------
    html : str
        A ``<table class="drmath-cause-table">`` with a row per cause (count and share, most frequent first)
        and each cell's ``data-value`` the number; a note when the log had no cause column.

    Examples
    --------
    >>> from drmath.calibrate import fit_events
    >>> table = cause_table_html(fit_events([0.0, 10.0, 30.0], 0.0, 40.0, causes=["GPU", "<b>", "GPU"]))
    >>> table.count("<tr"), "&lt;b&gt;" in table
    (3, True)
    """
    frame = fit.cause_frame()
    if frame.empty:
        return '<p class="drmath-cause-table drmath-cause-none">The log has no cause column: no cause table.</p>'
    rows = "".join(f'<tr><th>{html.escape(str(cause))}</th><td data-value="{int(row["count"])}">'
                   f'{int(row["count"]):,}</td><td data-value="{float(row["share"])!r}">{float(row["share"]):.1%}'
                   f"</td></tr>" for cause, row in frame.iterrows())
    return (f'<table class="drmath-cause-table"><caption>Interruptions by cause ({fit.events:,} events)</caption>'
            f"<thead><tr><th>cause</th><th>count</th><th>share</th></tr></thead><tbody>{rows}</tbody></table>")


FLEET_FIGURES = {"gaps": gaps_spec, "trend": trend_spec}
"""The figures of an incident log's fit, by name: ``{name: spec(fit)}`` (the dashboard's class
``drmath-fleet-<name>``)."""


def fleet_specs(fit):
    """Every figure of an incident log's fit (:data:`FLEET_FIGURES`).

    Parameters
    ----------
    fit : Calibration
        An incident log's fit.

    Returns
    -------
    specs : dict of str to dict
        ``{name: JSON-ready plotly figure}``.

    Examples
    --------
    >>> from drmath.calibrate import fit_events
    >>> specs = fleet_specs(fit_events([0.0, 3000.0, 9000.0, 10000.0], 0.0, 12000.0))
    >>> sorted(specs)
    ['gaps', 'trend']
    """
    return {name: spec(fit) for name, spec in FLEET_FIGURES.items()}
