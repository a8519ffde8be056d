"""SI multipliers, and reading a number with a unit into SI: the ground floor of drmath.

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

This module imports nothing of drmath but :mod:`drmath._validate`. Writing a value for
a reader (``"6.31 h"``) is :func:`drmath.formatting.format_quantity`'s job.
"""

from ._validate import short_repr

__all__ = [
    "kilo", "mega", "giga", "tera", "peta", "exa",
    "kibi", "mebi", "gibi", "tebi",
    "bit", "kB", "MB", "GB", "TB", "PB", "GiB", "TiB",
    "bit_per_s", "Mbit_per_s", "Gbit_per_s", "Tbit_per_s", "MB_per_s", "GB_per_s", "TB_per_s",
    "TFLOP_per_s", "PFLOP_per_s",
    "second", "minute", "hour", "day", "week", "year", "month",
    "parse_quantity",
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
