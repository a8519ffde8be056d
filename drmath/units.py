"""SI multipliers and the human-unit formatting used at the edges.

Every public float in drmath is in SI base units: seconds ``[s]``, bytes
``[B]``, bytes per second ``[B/s]``, floating-point operations ``[FLOP]``,
``[FLOP/s]``, US dollars ``[USD]`` and ``[1/s]`` for rates. Names say what a
quantity is, never its unit. Conversions happen only at the edges (widget
labels, CLI output, reports) through the multipliers below, in the style of
:mod:`scipy.constants`::

    >>> from drmath.units import Gbit_per_s, GB_per_s, day, hour
    >>> 400 * Gbit_per_s / GB_per_s      # a 400G port moves 50 GB/s
    50.0
    >>> 90 * day / hour
    2160.0

Decimal prefixes (``GB``, ``TB``) are used for storage and links, as their
vendors do. Binary prefixes (``GiB``) are only for memory labelled so.
"""

import math

from ._validate import short_repr

__all__ = [
    "kilo", "mega", "giga", "tera", "peta", "exa",
    "kibi", "mebi", "gibi", "tebi",
    "bit", "kB", "MB", "GB", "TB", "PB", "GiB", "TiB",
    "bit_per_s", "Mbit_per_s", "Gbit_per_s", "Tbit_per_s", "MB_per_s", "GB_per_s", "TB_per_s",
    "TFLOP_per_s", "PFLOP_per_s",
    "second", "minute", "hour", "day", "week", "year", "month",
    "parse_quantity", "format_quantity", "KINDS",
]

# decimal prefixes
kilo, mega, giga, tera, peta, exa = 1e3, 1e6, 1e9, 1e12, 1e15, 1e18
# binary prefixes, for memory sizes labelled GiB/TiB only
kibi, mebi, gibi, tebi = 2**10, 2**20, 2**30, 2**40

# information [B]
bit = 1 / 8
kB, MB, GB, TB, PB = kilo, mega, giga, tera, peta
GiB, TiB = float(gibi), float(tebi)

# data rates [B/s]
bit_per_s = bit
Mbit_per_s = mega * bit
Gbit_per_s = giga * bit
Tbit_per_s = tera * bit
MB_per_s, GB_per_s, TB_per_s = mega, giga, tera

# compute rates [FLOP/s]
TFLOP_per_s, PFLOP_per_s = tera, peta

# time [s]
second = 1.0
minute = 60.0
hour = 60 * minute
day = 24 * hour
week = 7 * day
year = 365 * day
month = year / 12

_NAMED = {
    "s": second, "second": second, "seconds": second,
    "min": minute, "minute": minute, "minutes": minute,
    "h": hour, "hour": hour, "hours": hour,
    "d": day, "day": day, "days": day,
    "week": week, "weeks": week, "month": month, "months": month,
    "y": year, "year": year, "years": year,
    "B": 1.0, "kB": kB, "MB": MB, "GB": GB, "TB": TB, "PB": PB, "GiB": GiB, "TiB": TiB,
    "B/s": 1.0, "MB/s": MB_per_s, "GB/s": GB_per_s, "TB/s": TB_per_s,
    "Mbit/s": Mbit_per_s, "Gbit/s": Gbit_per_s, "Tbit/s": Tbit_per_s,
    "Mbps": Mbit_per_s, "Gbps": Gbit_per_s, "Tbps": Tbit_per_s,
    "FLOP/s": 1.0, "TFLOP/s": TFLOP_per_s, "PFLOP/s": PFLOP_per_s,
    "USD": 1.0, "%": 0.01,
}


def parse_quantity(text):
    """Read a number with an optional unit suffix into SI.

    Parameters
    ----------
    text : str
        A number such as ``"8000"``, ``"1.5e9"`` or ``"400 Gbps"``, ``"90 days"``,
        ``"40%"``. The suffix must be one of the names above. [1]

    Returns
    -------
    value : float
        The value in SI base units. [1]

    Raises
    ------
    ValueError
        If the number or the unit cannot be read.

    Examples
    --------
    >>> parse_quantity("100 Gbps")
    12500000000.0
    >>> parse_quantity("90 days") / day
    90.0
    """
    s = str(text).strip()
    for name in sorted(_NAMED, key=len, reverse=True):
        if s.endswith(name) and s[: -len(name)].strip() != "":
            number = s[: -len(name)].strip()
            try:
                return float(number) * _NAMED[name]
            except ValueError:
                break
    try:
        return float(s)
    except ValueError:
        raise ValueError(
            f"cannot read {short_repr(text)} as a number with an optional unit "
            f"(one of {', '.join(sorted(_NAMED))})"
        ) from None


def _fmt(value, digits=3):
    """Format with `digits` significant figures, no exponent for everyday sizes."""
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    if magnitude >= 6 or magnitude < -3:
        return f"{value:.{digits - 1}e}"
    return f"{value:,.{decimals}f}"


def _scaled(value, steps, digits):
    for size, suffix in steps:
        if abs(value) >= size:
            return f"{_fmt(value / size, digits)} {suffix}"
    size, suffix = steps[-1]
    return f"{_fmt(value / size, digits)} {suffix}"


def _duration(value, digits):
    if value == 0:
        return "0 s"
    from .formatting import duration_unit  # the one unit picker (drmath.formatting imports this module)

    scale, name = duration_unit(value)
    return f"{_fmt(value / scale, digits)} {name}"


def _usd(value, digits):
    from .formatting import money  # the one money formatter (drmath.formatting imports this module)

    return money(value, digits)


def _line_rate(value, digits):
    from .formatting import line_rate  # links are sold in Gbit/s: one writer for every view

    return line_rate(value, digits)


def _params(value, digits):
    from .formatting import params  # models are named by their size: "405B"

    return params(value, digits)


def _hop(index):
    from .replication import HOPS  # the hops' names live with the hops

    return HOPS[int(index)]


KINDS = {
    "duration": _duration,
    "bytes": lambda v, d: _scaled(v, [(PB, "PB"), (TB, "TB"), (GB, "GB"), (MB, "MB"), (kB, "kB"), (1, "B")], d),
    "bandwidth": lambda v, d: _scaled(
        v, [(TB_per_s, "TB/s"), (GB_per_s, "GB/s"), (MB_per_s, "MB/s"), (1, "B/s")], d),
    "line_rate": _line_rate,
    "flop": lambda v, d: f"{v:.{d - 1}e} FLOP",
    "flop_rate": lambda v, d: _scaled(v, [(PFLOP_per_s, "PFLOP/s"), (TFLOP_per_s, "TFLOP/s"), (1, "FLOP/s")], d),
    "usd": _usd,
    "usd_rate": lambda v, d: KINDS["usd"](v * day, d) + "/day",
    "fraction": lambda v, d: f"{100 * v:.{max(d - 2, 0)}f}%",
    "params": _params,
    "count": lambda v, d: (_fmt(v, d) if abs(v) >= 1e7 or (abs(v) < 100 and not float(v).is_integer())
                           else f"{v:,.0f}"),
    "rate": lambda v, d: f"{_fmt(v * year, d)} /year",
    "gpu_hours": lambda v, d: f"{_fmt(v / 1e6, d)}M GPU·h" if v >= 1e6 else f"{_fmt(v, d)} GPU·h",
    "flag": lambda v, d: "yes" if v else "no",
    "hop": lambda v, d: _hop(v),
    "plain": lambda v, d: _fmt(v, d),
}
"""Formatters by kind of quantity, each ``f(si_value, digits) -> str``.

``"bandwidth"`` is for storage and memory paths (``"2.00 TB/s"``); ``"line_rate"`` for network links,
in the Gbit/s they are sold in (``"100 Gbit/s"``); ``"params"`` for a model's size (``"405B"``).
"""


def format_quantity(value, kind, digits=3):
    """Render an SI value in the unit a reader expects.

    Parameters
    ----------
    value : float
        The value in SI base units; ``inf`` renders as "no bound". [1]
    kind : str
        One of :data:`KINDS`: ``"duration"``, ``"bytes"``, ``"bandwidth"`` … [1]
    digits : int, default 3
        Significant figures. [1]

    Returns
    -------
    text : str
        The human reading, e.g. ``"6.31 h"``. [1]

    Examples
    --------
    >>> format_quantity(22_700.0, "duration")
    '6.31 h'
    >>> format_quantity(5.67e12, "bytes")
    '5.67 TB'
    >>> format_quantity(float("inf"), "duration")
    'no bound'
    >>> format_quantity(12.5e9, "line_rate"), format_quantity(405e9, "params")
    ('100 Gbit/s', '405B')
    """
    if isinstance(value, bool) or kind == "flag":
        return KINDS["flag"](value, digits)
    value = float(value)
    if math.isnan(value):
        return "undefined"
    if math.isinf(value):
        return "no bound" if value > 0 else "−∞"
    try:
        formatter = KINDS[kind]
    except KeyError:
        raise ValueError(f"kind must be one of {sorted(KINDS)}, got {kind!r}") from None
    return formatter(value, digits)
