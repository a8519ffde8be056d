"""A run's measured goodput (:class:`drmath.measure.RunMeasurement`): its wall time as a stacked bar.

No arithmetic of the run lives here: the parts and their shares are the measurement's, the plan's ETTR is the
plan's. A builder only lays them out, with the bar traces of the dashboard's plotly.js "basic" bundle.

    >>> from drmath.measure import measure_events
    >>> m = measure_events([0, 60, 160, 170, 270], ["job_start", "step", "step", "checkpoint_saved", "job_end"],
    ...                    [float("nan"), 1, 2, 2, float("nan")])
    >>> [t["name"] for t in badput_spec(m)["data"]]
    ['Productive steps', 'Rework', 'Downtime', 'Restart and load', 'Checkpoint stalls']
"""

import html
import math

from ..formatting import short_duration
from ..measure import PART_TITLES
from ._common import _as_figure, _layout, jsonable
from .palette import BLUE, GREY, ORANGE, PURPLE, RED, TEAL

__all__ = ["badput_spec", "badput_figure", "run_table_html", "PART_COLOURS"]

PART_COLOURS = {"productive": BLUE, "rework": RED, "downtime": GREY, "restart": ORANGE, "checkpoint_stall": PURPLE}
"""The colour of each part of the wall time (:data:`drmath.measure.PARTS`)."""


def badput_spec(measurement, plan=None):
    """The wall time of a run as one stacked bar of its parts, in percent; with a plan, its ETTR beside it.

    Parameters
    ----------
    measurement : RunMeasurement
        A run log's measurement (:func:`drmath.measure.measure_events`).
    plan : Plan, optional
        The run's plan: a second bar, its ETTR against the rest (the plan does not split its badput).

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure: horizontal bars stacked to 100%, one trace per part, each segment's
        hover giving its share and its time; the title gives the measured goodput.
    """
    shares, parts = measurement.shares, measurement.parts
    rows = ["measured"] + (["plan"] if plan is not None else [])
    data = []
    for name, title in PART_TITLES.items():
        data.append({"type": "bar", "orientation": "h", "name": title, "y": ["measured"],
                     "x": [jsonable(100 * shares[name])], "marker": {"color": PART_COLOURS[name]},
                     "customdata": [short_duration(parts[name]) if parts[name] else "0 s"],
                     "hovertemplate": f"{title}: %{{x:.2f}}% (%{{customdata}})<extra></extra>"})
    if plan is not None:
        ettr = float(plan.ettr)
        data.append({"type": "bar", "orientation": "h", "name": "plan: ETTR", "y": ["plan"],
                     "x": [jsonable(100 * ettr)], "marker": {"color": TEAL},
                     "hovertemplate": "plan's ETTR: %{x:.2f}%<extra></extra>"})
        data.append({"type": "bar", "orientation": "h", "name": "plan: the rest", "y": ["plan"],
                     "x": [jsonable(100 * (1 - ettr))], "marker": {"color": GREY, "opacity": 0.5},
                     "hovertemplate": "the plan's badput: %{x:.2f}%<extra></extra>"})
    title = f"Where the run's wall time went: goodput {100 * measurement.goodput:.1f}%"
    layout = _layout(title, "share of wall time [%]", "", height=160 + 60 * len(rows), barmode="stack")
    layout["xaxis"]["range"] = [0.0, 100.0]
    layout["yaxis"].update(categoryorder="array", categoryarray=rows[::-1])
    return {"data": data, "layout": layout}


badput_figure = _as_figure(badput_spec)


def run_table_html(measurement, plan):
    """A run's measured figures beside its plan's, as an HTML table: goodput against ETTR, the time between
    failures, the failure rate per GPU (on the plan's GPU count), the stall per checkpoint and the restart per job
    start; each cell escaped and its ``data-value`` the number in SI.

    Parameters
    ----------
    measurement : RunMeasurement
        A run log's measurement (:func:`drmath.measure.measure_events`).
    plan : Plan
        The plan of the same run.

    Returns
    -------
    html : str
        A ``<table class="drmath-run-table">``; "none" where the log has no failure (or no checkpoint).

    Examples
    --------
    >>> import drmath
    >>> from drmath.io import runs
    >>> table = run_table_html(runs.measure_run_log(runs.example_run_log()), drmath.plan())
    >>> table.count("<tr"), "goodput (plan: ETTR)" in table
    (6, True)
    """
    m, gpus = measurement, plan.scenario.training.gpus

    def time(seconds, there=True):
        return (seconds, short_duration(seconds)) if there and math.isfinite(seconds) else (None, "none")

    def rate(per_second):
        return (per_second, f"{per_second:.3g} /s") if math.isfinite(per_second) else (None, "none")

    rows = (("goodput (plan: ETTR)", (m.goodput, f"{m.goodput:.2%}"), (plan.ettr, f"{plan.ettr:.2%}")),
            ("time between failures", time(m.mtbf, m.failures), time(plan.mtbf)),
            ("failure rate per GPU", rate(m.failure_rate(gpus)), rate(plan.scenario.failures.gpu_failure_rate)),
            ("stall per checkpoint", time(m.mean_stall, m.checkpoints), time(plan.checkpoint_stall)),
            ("restart and load per job start", time(m.mean_restart, m.jobs), time(plan.restart_overhead)))
    body = "".join(f"<tr><th>{html.escape(name)}</th>"
                   + "".join(f'<td data-value="{"" if v is None else repr(float(v))}">{html.escape(text)}</td>'
                             for v, text in cells) + "</tr>" for name, *cells in rows)
    return (f'<table class="drmath-run-table"><caption>Measured against the plan ({m.failures} failures, '
            f'{gpus:,} GPUs)</caption><thead><tr><th></th><th>measured</th><th>plan</th></tr></thead>'
            f"<tbody>{body}</tbody></table>")
