"""Simulated runs against the closed form, and the RTO a drill log can promise."""

import numpy as np

from ..formatting import duration_unit
from ._common import _as_figure, _note, _panels, _vline, jsonable
from ._ticks import log_axis
from .palette import BLUE, GREEN, GREY, INK, ORANGE, RED, rgba


def _histogram(values, scale, bins, axis, colour, name):
    """A histogram drawn as bars (the basic plotly.js bundle has no histogram trace)."""
    arr = np.asarray(values, dtype=float)
    arr = arr[np.isfinite(arr)] / scale
    counts, edges = np.histogram(arr, bins=bins) if arr.size else (np.zeros(0), np.zeros(1))
    return {"type": "bar", "name": name, "x": jsonable((edges[:-1] + edges[1:]) / 2), "y": counts.tolist(),
            "width": jsonable(np.diff(edges)), "marker": {"color": rgba(colour, 0.6)},
            "xaxis": f"x{axis}", "yaxis": f"y{axis}",
            "hovertemplate": f"%{{x:.3g}}: %{{y}} runs<extra>{name}</extra>"}


def simulation_spec(result, promise, drift, bins=60):
    """Simulated runs against the closed form, and the RTO a drill log can promise.

    Parameters
    ----------
    result : drmath.simulate.SimulationResult
        :func:`drmath.simulate.simulate_run` of a scenario; its ``plan`` gives the closed form.
    promise : drmath.drills.RTOPromise
        :func:`drmath.drills.promised_rto` of a drill log.
    drift : mapping
        :func:`drmath.simulate.ettr_sweep`: ``mtbf`` [s], ``analytic``, ``mean``, ``low`` and
        ``high`` [1].
    bins : int, default 60
        Bars per histogram.

    Returns
    -------
    spec : dict
        A JSON-ready plotly figure of four panels: the completion times and the ETTRs of the
        simulated runs with the closed form marked; the summed recovery phases from the drills
        with the sum of best cases, the sum of means and the promise marked; and the closed-form
        ETTR against the simulated mean and band along the sweep. Seven traces, always in the
        same order, so a ``go.FigureWidget(simulation_figure(...))`` can be redrawn for new runs in
        place: ``fig.update(simulation_spec(...), overwrite=True)`` inside ``fig.batch_update()``.

    Examples
    --------
    >>> from drmath import Scenario, drills, simulate
    >>> from drmath.io.drills import example_log, read_drill_records
    >>> s = Scenario().with_changes({"training.tokens": 1e11, "failures.site_event_rate": 0.0})
    >>> result = simulate.simulate_run(s, 200, seed=0)
    >>> promise = drills.promised_rto(read_drill_records(example_log()), 0.9, trials=2_000)
    >>> drift = simulate.ettr_sweep(s, "training.gpus", [4_000, 8_000], trials=100)
    >>> spec = simulation_spec(result, promise, drift)
    >>> len(spec["data"]), [a["text"] for a in spec["layout"]["annotations"][:2]]
    (7, ['Completion time', 'ETTR'])
    """
    p = result.plan
    t_scale, t_unit = duration_unit(np.median(result.completion_time))
    r_scale, r_unit = duration_unit(np.median(promise.samples))
    m_scale, m_unit = duration_unit(np.median(np.asarray(drift["mtbf"], dtype=float)))
    layout = _panels(2, 2, ("Completion time", "ETTR", f"{promise.scope.capitalize()} RTO from drills",
                            "Closed form vs simulation"), height=700)
    layout.update(showlegend=False, bargap=0.02)
    mtbf = jsonable(np.asarray(drift["mtbf"], dtype=float) / m_scale)
    band = {"type": "scatter", "mode": "lines", "x": mtbf, "xaxis": "x4", "yaxis": "y4",
            "line": {"width": 0, "color": GREY}, "hoverinfo": "skip"}
    data = [
        _histogram(result.completion_time, t_scale, bins, "", BLUE, "completion time"),
        _histogram(100 * result.ettr, 1.0, bins, "2", BLUE, "ETTR"),
        _histogram(promise.samples, r_scale, bins, "3", BLUE, "summed phases"),
        dict(band, name="simulated band, high", y=jsonable(100 * np.asarray(drift["high"], dtype=float))),
        dict(band, name=f"simulated band ({result.trials:,} runs each)", fill="tonexty", fillcolor=rgba(BLUE, 0.15),
             y=jsonable(100 * np.asarray(drift["low"], dtype=float))),
        {"type": "scatter", "mode": "lines+markers", "name": "simulated mean", "x": mtbf,
         "y": jsonable(100 * np.asarray(drift["mean"], dtype=float)), "xaxis": "x4", "yaxis": "y4",
         "line": {"color": BLUE, "width": 2}},
        {"type": "scatter", "mode": "lines", "name": "closed form", "x": mtbf,
         "y": jsonable(100 * np.asarray(drift["analytic"], dtype=float)), "xaxis": "x4", "yaxis": "y4",
         "line": {"color": INK, "width": 2, "dash": "dash"}},
    ]
    marks = [(p.time_to_train / t_scale, "", INK, "closed form"), (100 * p.ettr, "2", INK, "closed form"),
             (promise.best_case_sum / r_scale, "3", GREEN, "best cases"),
             (promise.mean_sum / r_scale, "3", ORANGE, "means"),
             (promise.promised / r_scale, "3", RED, f"promise ({promise.confidence:.0%})")]
    layout["shapes"] = [_vline(jsonable(x), colour, axis=axis) for x, axis, colour, _ in marks]
    layout["annotations"] += [_note(jsonable(x), label, colour, y=1.0 - 0.1 * max(i - 2, 0), log=False, axis=axis)
                              for i, (x, axis, colour, label) in enumerate(marks)]  # the drills' three stacked
    for n, xtitle, ytitle in (("", f"completion time [{t_unit}]", "runs"), ("2", "ETTR [%]", "runs"),
                              ("3", f"summed recovery phases [{r_unit}]", "draws"),
                              ("4", f"cluster MTBF [{m_unit}]", "ETTR [%]")):
        layout[f"xaxis{n}"]["title"] = {"text": xtitle}
        layout[f"yaxis{n}"]["title"] = {"text": ytitle}
    layout["xaxis4"].update(log_axis(mtbf))
    return {"data": data, "layout": layout}


simulation_figure = _as_figure(simulation_spec)
