"""The run's figures: time to train against MFU, and ETTR against the checkpoint interval."""

import math
import statistics

import numpy as np

from ..formatting import duration_unit, format_quantity
from ..units import day
from ._common import _as_figure, _bad_region, _current, _layout, _log_x, _note, _top, _vline, jsonable
from ._ticks import log_ticks
from .palette import BLUE, GREEN, MUTED, PURPLE, RED


def time_mfu_spec(p, mfus, curves):
    """Time to train against MFU, the current MFU marked.

    Parameters
    ----------
    p : Plan
        The current plan; its MFU and time to train are marked.
    mfus : array_like
        Model FLOPs utilisations swept (``training.mfu``), ascending. [1]
    curves : dict of str to ndarray
        ``sweep(p.scenario, "training.mfu", mfus, ["time_to_train"])``. [s]

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure: MFU in percent, time in days. When the scenario fixes the
        window rather than the tokens, MFU moves the tokens and not the time; a note says so.

    Examples
    --------
    >>> import numpy as np, drmath
    >>> window = drmath.plan()  # the tokens that fit in three months at 40% MFU, now held fixed
    >>> p = drmath.plan(window.scenario.with_changes({"training.tokens": window.tokens}))
    >>> x = np.linspace(0.2, 0.6, 5)
    >>> spec = time_mfu_spec(p, x, drmath.sweep(p.scenario, "training.mfu", x, ["time_to_train"]))
    >>> [round(y) for y in spec["data"][0]["y"]]
    [180, 120, 90, 72, 60]
    """
    x = np.asarray(mfus, dtype=float)
    time = np.asarray(curves["time_to_train"], dtype=float)
    mfu = p.scenario.training.mfu
    data = [{"type": "scatter", "mode": "lines", "name": "time to train", "x": jsonable(100 * x),
             "y": jsonable(time / day), "line": {"color": BLUE, "width": 2.5},
             "hovertemplate": "MFU %{x:.3g}%<br>%{y:.3g} days<extra></extra>"},
            _current(jsonable(100 * mfu), jsonable(p.time_to_train / day),
                     f"{p.format('time_to_train')} at {format_quantity(mfu, 'fraction')}")]
    notes = []
    if p.run_driver == "window":
        notes.append({"x": 0.5, "y": 0.2, "xref": "paper", "yref": "paper", "showarrow": False,
                      "text": "the window sets the run: MFU moves the tokens, not the time",
                      "font": {"size": 11, "color": MUTED}})
    title = f"Time to train vs MFU: <b>{p.format('time_to_train')}</b> at {format_quantity(mfu, 'fraction')}"
    layout = _layout(title, "MFU [%]", "time to train [days]", showlegend=False, annotations=notes)
    layout["yaxis"]["range"] = [0, _top(time / day, p.time_to_train / day)]
    return {"data": data, "layout": layout}


time_mfu_figure = _as_figure(time_mfu_spec)


def ettr_spec(p, intervals, curves):
    """ETTR against the checkpoint interval, with the Young and Daly optima marked.

    The ETTR axis starts below the lowest ETTR within ten times the largest of the
    optimum, the current interval and the persist floor: far longer intervals, where
    ETTR falls away, leave the axis and keep the optimum readable.

    Parameters
    ----------
    p : Plan
        The current plan: its interval, floor and optima are marked.
    intervals : array_like
        Checkpoint intervals swept (``checkpoint.interval``), ascending. [s]
    curves : dict of str to ndarray
        ``sweep(p.scenario, "checkpoint.interval", intervals, ["ettr"])``. [1]

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure.

    Examples
    --------
    >>> import numpy as np, drmath
    >>> p = drmath.plan()
    >>> x = np.geomspace(10, 86400, 50)
    >>> spec = ettr_spec(p, x, drmath.sweep(p.scenario, "checkpoint.interval", x, ["ettr"]))
    >>> spec["layout"]["yaxis"]["title"]["text"]
    'ETTR [%]'
    """
    x = np.asarray(intervals, dtype=float)
    ettr = np.asarray(curves["ettr"], dtype=float)
    scale, unit = duration_unit(statistics.median(x))
    xs = jsonable(x / scale)
    data = [
        {"type": "scatter", "mode": "lines", "name": "ETTR", "x": xs, "y": jsonable(100 * ettr),
         "line": {"color": BLUE, "width": 2.5},
         "hovertemplate": f"interval %{{x:.3g}} {unit}<br>ETTR %{{y:.2f}}%<extra></extra>"},
        _current(jsonable(p.checkpoint_interval / scale), jsonable(100 * p.ettr),
                 f"{format_quantity(p.ettr, 'fraction')} at {format_quantity(p.checkpoint_interval, 'duration')}"),
    ]
    young, daly = jsonable(p.young_interval / scale), jsonable(p.daly_interval / scale)
    shapes = [_vline(young, GREEN, "dot"), _vline(daly, PURPLE, "dash")]
    notes = [_note(young, "Young ", GREEN, y=0.02, yanchor="bottom", xanchor="right"),
             _note(daly, " Daly", PURPLE, y=0.12, yanchor="bottom", xanchor="left")]
    floor = p.checkpoint_interval_floor
    if floor > x[0]:
        shapes.append(_bad_region(xs[0], jsonable(floor / scale)))
        notes.append(_note(xs[0], "below the<br>persist floor", RED, y=0.5, yanchor="middle"))
    near = x <= 10 * max(p.daly_interval, p.checkpoint_interval, floor)
    finite = ettr[np.isfinite(ettr) & near]
    finite = finite if finite.size else ettr[np.isfinite(ettr)]
    low = float(np.clip(math.floor((finite.min() * 100 - 1) / 5) * 5, 0, 95)) if finite.size else 0.0
    title = f"ETTR vs checkpoint interval: <b>{format_quantity(p.ettr, 'fraction')}</b> now"
    layout = _layout(title, f"checkpoint interval [{unit}]", "ETTR [%]", shapes=shapes, annotations=notes,
                     showlegend=False)
    layout["xaxis"].update(type="log", range=_log_x(xs), **log_ticks(_log_x(xs)))
    layout["yaxis"]["range"] = [low, 100.5]
    return {"data": data, "layout": layout}


ettr_figure = _as_figure(ettr_spec)
