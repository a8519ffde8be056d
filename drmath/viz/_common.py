"""What every figure shares: JSON-safe numbers, the house layout and axes, marks for the current choice,
the keeps-up shading, axis ranges, and the ``*_figure`` wrapper of a ``*_spec`` builder.
"""

import functools
import math
import re

import numpy as np

from ..formatting import format_quantity, short_duration
from ..units import day, hour, minute, week, year
from .palette import BAD_FILL, FONT, GREY, GRID, INK, ORANGE, RED


def jsonable(value, digits=6):
    """Turn numbers and arrays into JSON-safe lists: ``inf``/``nan`` become ``None``.

    Parameters
    ----------
    value : float or array_like
        Numbers in any unit.
    digits : int, default 6
        Significant figures kept (the payload stays small).

    Returns
    -------
    out : float, list or None
        The same numbers, rounded, with non-finite ones as ``None``.

    Examples
    --------
    >>> jsonable([1.23456789, float("inf")])
    [1.23457, None]
    """
    arr = np.asarray(value, dtype=float)
    finite = np.isfinite(arr)
    rounded = np.where(finite, arr, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mag = np.where(rounded != 0, np.floor(np.log10(np.abs(rounded))), 0.0)
    factor = 10.0 ** (digits - 1 - mag)
    rounded = np.round(rounded * factor) / factor
    if arr.ndim == 0:
        return float(rounded) if bool(finite) else None
    return [float(r) if f else None for r, f in zip(rounded.tolist(), finite.tolist())]


def _axis(title):
    # "allow": plotly otherwise measures every tick label (a forced layout each) to hide the ones
    # past the div; our fixed margins keep them inside, and a redraw is ~15% cheaper
    return {"title": {"text": title}, "gridcolor": GRID, "zeroline": False, "linecolor": GREY,
            "ticklabeloverflow": "allow"}


def _layout(title, xtitle, ytitle, height=300, **extra):
    """The house layout of a single plot: the title wrapped below the chart menu's band (:func:`_title`), the
    legend (when shown) below the plot (:func:`_bottom_legend`), and the margins and height that make room for
    both, so that on a phone's 340 px neither covers the other nor gets cut."""
    title = _title(title)
    legend = extra.get("showlegend", True) and "legend" not in extra
    lines = title["text"].count("<br>") + 1 if title["text"] else 0
    top = _TITLE_TOP + _TITLE_LINE * lines + 10 if lines else 64
    bottom = 44 + (_LEGEND_BAND if legend else 0)
    layout = {
        "title": title,
        "height": height + max(0, top - 64) + (bottom - 44),
        "margin": {"l": 60, "r": 16, "t": top, "b": bottom},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "font": {"family": FONT, "size": 12, "color": INK},
        "xaxis": _axis(xtitle),
        "yaxis": _axis(ytitle),
        "legend": dict(_bottom_legend(), font={"size": 10}),
        "hovermode": "closest",
        "showlegend": True,
    }
    layout.update(extra)
    return layout


def _panels(rows, cols, titles, height, gap=(0.16, 0.1)):
    """A layout of ``rows × cols`` panels, axes ``x, x2, …`` and ``y, y2, …`` row by row, each titled."""
    layout = _layout("", "", "", height=height, margin={"l": 60, "r": 16, "t": 50, "b": 44})
    del layout["title"], layout["xaxis"], layout["yaxis"]
    layout.update(height=height, legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0, "yanchor": "bottom",
                                         "bgcolor": "rgba(0,0,0,0)", "font": {"size": 11}})
    vgap, hgap = gap
    h, w = (1 - vgap * (rows - 1)) / rows, (1 - hgap * (cols - 1)) / cols
    notes = []
    for i, title in enumerate(titles):
        row, col = divmod(i, cols)
        n = "" if i == 0 else str(i + 1)
        x0, y1 = col * (w + hgap), 1 - row * (h + vgap)
        layout[f"xaxis{n}"] = dict(_axis(""), domain=[max(x0, 0.0), min(x0 + w, 1.0)], anchor=f"y{n}")
        layout[f"yaxis{n}"] = dict(_axis(""), domain=[max(y1 - h, 0.0), min(y1, 1.0)], anchor=f"x{n}")
        notes.append({"text": title, "x": x0 + w / 2, "y": y1, "xref": "paper", "yref": "paper",
                      "xanchor": "center", "yanchor": "bottom", "showarrow": False,
                      "font": {"size": 13, "color": INK}})
    layout["annotations"] = notes
    return layout


def _first_true(x, mask):
    """The first x where mask holds (x ascending), or None."""
    idx = np.flatnonzero(np.asarray(mask, dtype=bool))
    return float(np.asarray(x)[idx[0]]) if idx.size else None


def _bad_region(x0, x1):
    return {"type": "rect", "xref": "x", "yref": "paper", "x0": x0, "x1": x1, "y0": 0, "y1": 1,
            "fillcolor": BAD_FILL, "line": {"width": 0}, "layer": "below"}


def _refs(axis):
    """x and y references: the single plot's (axis None, y over the whole paper) or one panel's."""
    return ("x", "paper") if axis is None else (f"x{axis}", f"y{axis} domain")


def _vline(x, color, dash="dash", axis=None):
    xref, yref = _refs(axis)
    return {"type": "line", "xref": xref, "yref": yref, "x0": x, "x1": x, "y0": 0, "y1": 1,
            "line": {"color": color, "width": 1.5, "dash": dash}}


def _note(x, text, color, y=1.0, yanchor="top", xanchor="left", log=True, axis=None):
    # annotations on a log axis are placed in log10 units (shapes take data units)
    x = math.log10(x) if log and x and x > 0 else x
    xref, yref = _refs(axis)
    return {"x": x, "y": y, "xref": xref, "yref": yref, "text": text, "showarrow": False,
            "font": {"size": 11, "color": color}, "xanchor": xanchor, "yanchor": yanchor,
            "bgcolor": "rgba(255,255,255,0.8)"}


def _keeps_up_marks(boundary, x, xs, scale, what, left=None):
    """Shade where replication falls behind and mark where it starts to keep up: at ``boundary``
    (the smallest swept value that keeps up, in x's unit), None when no value on the axis does.
    The shading starts at ``left`` (the axis' left end, in x's unit) when it lies below the sweep."""
    shapes, notes = [], []
    if left is not None and math.isfinite(left) and 0 < left < xs[0]:
        xs = [jsonable(left / 10 ** 0.1), *xs[1:]]
    if boundary is None:
        shapes.append(_bad_region(xs[0], xs[-1]))
        notes.append(_note(xs[0], f"replication never keeps up: {what} has no bound", RED, y=0.9))
    elif boundary > x[0]:
        b = jsonable(boundary / scale)
        shapes += [_bad_region(xs[0], b), _vline(b, RED)]
        notes.append(_note(b, " keeps up →", RED, y=0.02, yanchor="bottom"))
        notes.append(_note(xs[0], "falls behind:<br>no bound", RED, y=0.5, yanchor="middle"))
    return shapes, notes


def _current(x, y, hover):
    return {"type": "scatter", "mode": "markers", "name": "current", "x": [x], "y": [y],
            "marker": {"color": ORANGE, "size": 12, "symbol": "circle", "line": {"color": "white", "width": 1.5}},
            "hovertemplate": f"current: {hover}<extra></extra>"}


def _mark_current(x, value, scale, kind, data, shapes, notes):
    """The current choice: a dot at ``value`` (SI), or a line at x when ``value`` has no bound."""
    if math.isfinite(value):
        data.append(_current(x, jsonable(value / scale), format_quantity(value, kind)))
    else:
        shapes.append(_vline(x, ORANGE, dash="solid"))
        notes.append(_note(x, "current: no bound", ORANGE, y=0.9))


def _log_range(*arrays, step=0.5):
    """A fixed log-axis range (log10 units) around the finite positive values, snapped to
    half-decades so that it changes rarely as the inputs move (a fixed range redraws faster)."""
    arr = np.concatenate([np.asarray(a, dtype=float).ravel() for a in arrays])
    arr = arr[np.isfinite(arr) & (arr > 0)]
    if not arr.size:
        return [0.0, 1.0]
    lo = math.floor(math.log10(arr.min()) / step) * step
    hi = math.ceil(math.log10(arr.max()) / step) * step
    return [lo - 0.05, hi + 0.05] if hi > lo else [lo - step, hi + step]


def _nice_top(value):
    """A round axis top above value·1.15: 1, 2, 2.5 or 5 times a power of ten."""
    if not (math.isfinite(value) and value > 0):
        return 1.0
    target = value * 1.15
    power = 10.0 ** math.floor(math.log10(target))
    for m in (1, 2, 2.5, 5, 10):
        if m * power >= target:
            return m * power
    return 10 * power


def _top(values, *marks):
    """:func:`_nice_top` over the finite values of a curve and the marked points (0 if none)."""
    arr = np.append(np.asarray(values, dtype=float).ravel(), marks)
    return _nice_top(arr[np.isfinite(arr)].max(initial=0.0))


def _log_x(xs, *marks):
    """A log x-axis range (log10 units) over the swept values and the marks that must stay in view.

    The marks are the current choice: a link or an interval off the sweep's grid widens the axis
    (by a tenth of a decade beyond it) rather than leave its marker outside the plot.
    """
    lo, hi = math.log10(xs[0]), math.log10(xs[-1])
    for mark in marks:
        if mark is not None and math.isfinite(mark) and mark > 0:
            at = math.log10(mark)
            lo, hi = (at - 0.1 if at < lo else lo), (at + 0.1 if at > hi else hi)
    return [lo, hi]


PLOTLY_CONFIG = {"displaylogo": False, "responsive": True, "showSendToCloud": False,
                 "modeBarButtonsToRemove": ["sendChartToCloud", "lasso2d", "select2d"]}
"""How every drmath chart is shown (plotly's ``config``): no "Share chart…" entry in its menu (plotly.js 4 offers
it by default, and it uploads the chart to an outside service), no plotly logo, and a size that follows its box.
The report passes it to plotly.js; the dashboard's view (``drmath/data/widgets/plotly_view.js``) sets the same."""


@functools.cache
def _use_house_config():
    """Give plotly's notebook renderers :data:`PLOTLY_CONFIG`, once: a figure a notebook shows offers no
    "Share chart…" either (every renderer that takes a config reads it at display time)."""
    import plotly.io as pio

    for name in pio.renderers:
        config = getattr(pio.renderers[name], "config", None)
        if isinstance(config, dict):
            config.update(PLOTLY_CONFIG)


def _figure(spec):
    import plotly.graph_objects as go
    _use_house_config()
    return go.Figure(spec)


def _as_figure(builder, name=None):
    """``builder``'s figure as a :class:`plotly.graph_objects.Figure`: ``rpo_spec`` gives ``rpo_figure``."""

    @functools.wraps(builder)
    def figure(*args, **kwargs):
        return _figure(builder(*args, **kwargs))

    figure.__name__ = figure.__qualname__ = name or builder.__name__.replace("_spec", "_figure")
    figure.__doc__ = (f":func:`{builder.__name__}` as a validated :class:`plotly.graph_objects.Figure`, for "
                      "notebooks and export; same parameters.")
    return figure


_TITLE_TOP = 28
"""Pixels above a title: the band plotly's chart menu (the modebar) takes at the top right, so it never covers the
title on a phone (a 300 px figure leaves the title no room beside it)."""

_TITLE_LINE = 19
"""Pixels a line of a 14 px title takes."""

_TITLE_LIFT = 11
"""Pixels plotly lifts a top-anchored title by, for each line after its first."""

_TITLE_CHARS = 44
"""Characters a line of a title may hold: a phone's figure is about 340 px wide, and a 14 px title sets about
7.2 px a character (plotly never wraps a title: one that is longer runs out of the figure and is cut)."""

_LEGEND_BAND = 56
"""Pixels below the x axis' title for a legend of up to three rows (two entries a row, :func:`_bottom_legend`; on a
phone's 340 px figure an entry has room for a name of about 19 characters, and plotly cuts a longer one)."""


def _wrap(text, width=_TITLE_CHARS):
    """Break plotly's pseudo-HTML ``text`` into lines of at most ``width`` visible characters with ``<br>``.

    Lines are broken at spaces only, never inside a tag or a ``<b>…</b>``/``<span>…</span>`` run (a number and
    its unit stay together); the breaks already in the text are kept.

    Examples
    --------
    >>> _wrap("Total expected DR cost vs link bandwidth: <b>$3.73M</b> now")
    'Total expected DR cost vs link bandwidth:<br><b>$3.73M</b> now'
    >>> _wrap("short<br>two lines")
    'short<br>two lines'
    """
    glue = "\x00"
    kept = re.sub(r"<(b|span)\b[^>]*>.*?</\1>|<[^>]+>", lambda m: m.group(0).replace(" ", glue), text)
    lines = []
    for line in kept.split("<br>"):
        current = ""
        for word in line.split(" "):
            joined = f"{current} {word}" if current else word
            if current and len(re.sub(r"<[^>]+>", "", joined).replace(glue, " ")) > width:
                lines.append(current)
                current = word
            else:
                current = joined
        lines.append(current)
    return "<br>".join(lines).replace(glue, " ")


def _title(text):
    """A figure's title, wrapped (:func:`_wrap`) and placed below the chart menu's band, left-aligned.

    Its place is in pixels from the top, whatever the figure's height: a title of several lines grows downwards
    into the top margin that :func:`_layout` sizes for it.
    """
    text = _wrap(text) if text else text
    lift = _TITLE_LIFT * text.count("<br>")  # plotly lifts a title of several lines: pad that much more
    return {"text": text, "x": 0.01, "xanchor": "left", "xref": "container", "y": 1.0, "yanchor": "top",
            "yref": "container", "pad": {"t": _TITLE_TOP + 4 + lift}, "font": {"size": 14, "color": INK}}


def _two_line_title(head, detail):
    """A title in two short lines below the modebar's band: a heading, then the numbers in a smaller font.

    Its place is in pixels from the top, whatever the figure's height (the report's slider makes it taller):
    plotly lifts a title of two lines by about a line, 28 px, so the padding is that more than the band.
    """
    return {"text": f"{head}<br><span style='font-size:12px'>{detail}</span>", "x": 0.01, "xanchor": "left",
            "xref": "container", "y": 1.0, "yanchor": "top", "yref": "container", "pad": {"t": _TITLE_TOP + 16},
            "font": {"size": 14, "color": INK}}


def _bottom_legend():
    """A horizontal legend at the foot of the figure, two entries a row: plotly wraps a legend to the plot's
    width, a phone's 190 px, where four entries in a row would stack one a row over the tick labels."""
    return {"orientation": "h", "x": 0, "xanchor": "left", "xref": "container", "y": 0, "yanchor": "bottom",
            "yref": "container", "bgcolor": "rgba(0,0,0,0)", "font": {"size": 11}, "itemwidth": 30,
            "entrywidth": 0.5, "entrywidthmode": "fraction", "traceorder": "normal"}


_DURATION_TICKS = ((1.0, 10.0, minute, 10 * minute, hour, day, week, 30 * day, year),
                   (1.0, minute, hour, day, 30 * day, year))
"""Where a log axis of durations is labelled, in whatever unit reads best at each (``10 min``, ``1 h``,
``1 day``): the first set on an axis of up to 4.5 decades, the second, sparser, on a longer one."""


def _duration_axis(log_range, scale):
    """Tick values (in the axis unit, seconds / scale) and labels for a log duration axis over ``log_range``:
    the :data:`_DURATION_TICKS` inside it, each at least 0.7 decades after the last (labels that fit 300 px)."""
    lo, hi = log_range
    inside = []
    for tick in _DURATION_TICKS[hi - lo > 4.5]:
        at = math.log10(tick / scale)
        if lo <= at <= hi and (not inside or at - math.log10(inside[-1] / scale) >= 0.7):
            inside.append(tick)
    return {"type": "log", "range": log_range, "tickmode": "array", "tickvals": jsonable(np.array(inside) / scale),
            "ticktext": [short_duration(t) for t in inside]}
