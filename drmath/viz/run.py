"""A run's measured goodput (:class:`drmath.measure.RunMeasurement`): its wall time as a stacked bar.

No arithmetic of the run lives here: the parts and their shares are the measurement's, the plan's ETTR is the
plan's. A builder only lays them out, with the bar traces of the dashboard's plotly.js "basic" bundle.

    >>> from drmath.measure import measure_events
    >>> m = measure_events([0, 60, 160, 170, 270], ["job_start", "step", "step", "checkpoint_saved", "job_end"],
    ...                    [float("nan"), 1, 2, 2, float("nan")])
    >>> [t["name"] for t in badput_spec(m)["data"]]
    ['Productive steps', 'Rework', 'Downtime', 'Restart and load', 'Checkpoint stalls']
"""

from ..formatting import short_duration
from ..measure import PART_TITLES
from ._common import _as_figure, _layout, jsonable
from .palette import BLUE, GREY, ORANGE, PURPLE, RED, TEAL

__all__ = ["badput_spec", "badput_figure", "PART_COLOURS"]

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
