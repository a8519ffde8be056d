"""Labelled ticks for log axes of plain numbers: every label a whole number, never a bare "2" or "5".

plotly labels a log axis's 2 and 5 between the decades with the digit alone ("2", "5"), which reads as a value
of 2 and 5. :func:`log_ticks` labels the decades in full (``1``, ``10``, ``1,000``) and, on a short axis, 2 and
5 times them in full too (``20``, ``50``); the other digits are unlabelled minor grid lines.
"""

import math

from ._common import jsonable

__all__ = ["log_ticks"]


def _label(value):
    return f"{value:,.0f}" if value >= 1 else f"{value:.{max(0, -math.floor(math.log10(value)))}f}"


def log_ticks(log_range):
    """Tick values and full labels for a log axis over ``log_range`` (log10 of the axis unit).

    Parameters
    ----------
    log_range : sequence of two floats
        The axis range, in decades (plotly's ``range`` of a log axis). [1]

    Returns
    -------
    axis : dict
        ``tickmode``, ``tickvals`` and ``ticktext`` (each label the whole value) and ``minor`` grid lines at every
        digit, to update a plotly log axis with. [1]

    Examples
    --------
    >>> log_ticks([0, 3.2])["ticktext"]
    ['1', '10', '100', '1,000']
    >>> log_ticks([-1.1, 0.2])["ticktext"]
    ['0.1', '0.2', '0.5', '1']
    """
    lo, hi = log_range
    mantissas = (1, 2, 5) if hi - lo <= 1.5 else (1,)
    values = [m * 10.0 ** e for e in range(math.floor(lo), math.ceil(hi) + 1) for m in mantissas]
    inside = [v for v in values if lo - 1e-9 <= math.log10(v) <= hi + 1e-9]
    return {"tickmode": "array", "tickvals": jsonable(inside), "ticktext": [_label(v) for v in inside],
            "minor": {"showgrid": True, "gridcolor": "rgba(0,0,0,0.04)", "dtick": "D1"}}


def log_axis(*values):
    """A log axis over the finite positive ``values`` (arrays in the axis unit): its ``type``, ``range`` and
    :func:`log_ticks`, for axes that would otherwise take plotly's own range and labels.

    >>> log_axis([3.0, 40.0])["ticktext"]
    ['5', '10', '20']
    """
    import numpy as np

    flat = np.concatenate([np.asarray(v, dtype=float).ravel() for v in values]) if values else np.array([])
    flat = flat[np.isfinite(flat) & (flat > 0)]
    lo, hi = (math.log10(flat.min()), math.log10(flat.max())) if flat.size else (0.0, 1.0)
    pad = max(0.05 * (hi - lo), 0.05)
    log_range = [lo - pad, hi + pad]
    return {"type": "log", "range": log_range, **log_ticks(log_range)}
