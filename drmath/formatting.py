r"""Numbers and formulas as people read them: the one place the views pick a unit or a suffix.

Every view (figures, dashboard, report, CLI) writes durations, money, line
rates, ordinals and formulas through these functions, so a figure's axis, a
slider's label and a card's text never disagree about the unit:

- :func:`duration_unit` picks the display unit of a set of durations (the
  largest that keeps them ≥ 1); :func:`short_duration` writes one duration
  tersely (``"1.5 h"``, ``"2 days"``) for labels.
  :func:`format_quantity` writes plan values with a fixed number of
  significant figures (``"1.50 h"``), with the same picker, by the kinds of
  :data:`KINDS`.
- :func:`money_unit` and :func:`money` do the same for US dollars.
- :func:`line_rate` writes a link's line rate in Gbit/s, the unit links are
  sold in; :func:`params` a model's size as ``"405B"``.
- :func:`ordinal` and :func:`every` write "2nd", "every 3rd checkpoint".
- :func:`tex_text` turns the TeX of a formula into plain text for a terminal;
  :func:`markdown_text` and :func:`html_text` write money for Markdown and HTML so that MathJax
  never reads it as math.

    >>> duration_unit([90.0, 5400.0]), short_duration(5400.0), money(84_952_800.0)
    ((3600.0, 'h'), '1.5 h', '$84.95M')
    >>> every(3), tex_text(r"\tau_Y = \sqrt{2\,\delta\,M}")
    ('every 3rd checkpoint', 'τ_Y = √(2 δ M)')
"""

import html
import math
import re

import numpy as np

from .replication import HOPS
from .units import (
    GB,
    MB,
    PB,
    TB,
    GB_per_s,
    Gbit_per_s,
    MB_per_s,
    PFLOP_per_s,
    TB_per_s,
    TFLOP_per_s,
    day,
    hour,
    kB,
    minute,
    second,
    year,
)

__all__ = ["format_quantity", "params_pair", "KINDS", "DURATION_UNITS", "MONEY_UNITS", "PARAM_UNITS", "duration_unit",
           "short_duration", "money_unit", "money", "line_rate", "params", "ordinal", "every", "listed", "change",
           "tex_text", "markdown_text", "html_text"]

DURATION_UNITS = ((year, "years"), (day, "days"), (hour, "h"), (minute, "min"), (second, "s"), (1e-3, "ms"))
"""The units durations are shown in, largest first: (seconds per unit [s], name)."""

MONEY_UNITS = ((1e9, "B"), (1e6, "M"), (1e3, "k"), (1.0, ""))
"""The units money is shown in, largest first: (dollars per unit [USD], suffix after ``$``)."""

PARAM_UNITS = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"), (1.0, ""))
"""The units parameter counts are shown in, largest first: (parameters per unit [1], suffix)."""

_SINGULAR = {"days": "day", "years": "year"}


def _pick(values, units, default):
    """The largest unit that keeps the largest finite magnitude ≥ 1 (the smallest unit below it)."""
    arr = np.abs(np.asarray(values, dtype=float)).ravel()
    arr = arr[np.isfinite(arr) & (arr > 0)]
    if not arr.size:
        return default
    top = float(arr.max())
    for scale, name in units:
        if top >= scale:
            return scale, name
    return units[-1]


def duration_unit(seconds):
    """The display unit for a set of durations: the largest that keeps them ≥ 1.

    Parameters
    ----------
    seconds : float or array_like
        Representative durations; the largest finite magnitude decides. [s]

    Returns
    -------
    scale : float
        Seconds per display unit. [s]
    name : str
        The unit's name: ``"years"``, ``"days"``, ``"h"``, ``"min"``, ``"s"`` or ``"ms"``; seconds
        when there is no finite non-zero value.

    Examples
    --------
    >>> duration_unit(5400.0)
    (3600.0, 'h')
    >>> duration_unit([30.0, float("inf")]), duration_unit(0.25), duration_unit(0.0)
    ((1.0, 's'), (0.001, 'ms'), (1.0, 's'))
    """
    return _pick(seconds, DURATION_UNITS, (second, "s"))


def short_duration(seconds, digits=3):
    """A duration in a few characters, for labels: ``"30 s"``, ``"1.5 h"``, ``"1 day"``.

    Parameters
    ----------
    seconds : float
        The duration. [s]
    digits : int, default 3
        Significant figures at most; trailing zeros are dropped.

    Returns
    -------
    text : str
        The value in the unit of :func:`duration_unit`, ``"no bound"`` for infinity.

    Examples
    --------
    >>> short_duration(90.0), short_duration(5400.0), short_duration(86400.0), short_duration(2 * 86400.0)
    ('1.5 min', '1.5 h', '1 day', '2 days')
    >>> short_duration(218.0, 2)
    '3.6 min'
    """
    value = float(seconds)
    if not math.isfinite(value):
        return format_quantity(value, "duration")
    scale, name = duration_unit(value)
    number = f"{value / scale:.{digits}g}"
    return f"{number} {_SINGULAR.get(name, name) if number == '1' else name}"


def money_unit(usd):
    """The display unit for a set of amounts: the largest that keeps them ≥ 1.

    Parameters
    ----------
    usd : float or array_like
        Representative amounts; the largest finite magnitude decides. [USD]

    Returns
    -------
    scale : float
        Dollars per display unit. [USD]
    suffix : str
        What follows the number: ``"B"``, ``"M"``, ``"k"`` or ``""``; an axis says ``[$M]``.

    Examples
    --------
    >>> money_unit([2.5e6, 4.1e7]), money_unit(950.0)
    ((1000000.0, 'M'), (1.0, ''))
    """
    return _pick(usd, MONEY_UNITS, (1.0, ""))


def money(usd, digits=3):
    """An amount of money as text: ``"$84.95M"``, ``"$50.00k"``, ``"$22.50"``.

    Parameters
    ----------
    usd : float
        The amount. [USD]
    digits : int, default 3
        The number of decimals is ``digits - 1`` in thousands and above, so an amount reads
        like its neighbours ("$3.09k" beside "$21.24M"); under $1k it is whole dollars, and
        under $100 (a port-hour price) to the cent.

    Returns
    -------
    text : str
        The amount; ``"no bound"`` for infinity.

    Examples
    --------
    >>> money(84_952_800.0), money(5e4), money(3090.85), money(156.58), money(22.5), money(2.1e9, 2)
    ('$84.95M', '$50.00k', '$3.09k', '$157', '$22.50', '$2.1B')
    """
    value = float(usd)
    if not math.isfinite(value):
        return format_quantity(value, "usd")
    scale, suffix = money_unit(value)
    if abs(value) < 100:
        return f"${value:,.2f}"
    if abs(value) < 1e3:
        return f"${value:,.0f}"
    return f"${value / scale:,.{digits - 1}f}{suffix}"


def line_rate(bytes_per_s, digits=3):
    """A link's line rate in Gbit/s, the unit links are sold in: ``"100 Gbit/s"``.

    Parameters
    ----------
    bytes_per_s : float
        The rate. [B/s]
    digits : int, default 3
        Significant figures at most.

    Returns
    -------
    text : str
        The rate in Gbit/s.

    Examples
    --------
    >>> line_rate(12.5e9), line_rate(1e9), line_rate(400e9), line_rate(1.25e12)
    ('100 Gbit/s', '8 Gbit/s', '3,200 Gbit/s', '10,000 Gbit/s')
    """
    value = float(bytes_per_s)
    if not math.isfinite(value):
        return format_quantity(value, "bandwidth")
    rounded = float(f"{value / Gbit_per_s:.{digits}g}")
    if 0 < abs(rounded) < 1e-3:  # a trickle (a change of a few B/s): a power of ten, never "8e-09"
        return f"{_power(rounded, digits)} Gbit/s"
    return f"{rounded:,.0f} Gbit/s" if abs(rounded) >= 1e4 else f"{rounded:,g} Gbit/s"


def params(count, digits=3):
    """A model's parameter count the way models are named: ``"405B"``, ``"70.6B"``, ``"1.5T"``.

    Parameters
    ----------
    count : float
        Trainable parameters. [1]
    digits : int, default 3
        Significant figures at most; trailing zeros are dropped.

    Returns
    -------
    text : str
        The count with the suffix ``T``, ``B``, ``M`` or ``k`` that keeps it ≥ 1; ``"no bound"`` for
        infinity.

    Examples
    --------
    >>> params(405e9), params(70.6e9), params(8e9), params(1.5e12), params(125e6)
    ('405B', '70.6B', '8B', '1.5T', '125M')
    """
    value = float(count)
    if not math.isfinite(value):
        return format_quantity(value, "count")
    scale, suffix = _pick(value, PARAM_UNITS, (1.0, ""))
    return f"{float(f'{value / scale:.{digits}g}'):,g}{suffix}"


def params_pair(total, active, digits=3):
    """A model's parameters as a reader needs them: ``"405B"`` for a dense model, ``"46.7B total, 12.9B active"``
    for a mixture of experts (the checkpoint holds the total; a token computes with the active).

    Parameters
    ----------
    total : float
        Parameters in total. [1]
    active : float
        Parameters a token computes with. [1]
    digits : int, default 3
        Significant figures at most.

    Returns
    -------
    text : str
        One count where the two agree to ``digits`` figures, else both. [1]

    Examples
    --------
    >>> params_pair(405e9, 405e9), params_pair(46.7e9, 12.9e9)
    ('405B', '46.7B total, 12.9B active')
    """
    whole, part = params(total, digits), params(active, digits)
    return whole if whole == part else f"{whole} total, {part} active"


def ordinal(k):
    """An ordinal number: ``"1st"``, ``"2nd"``, ``"3rd"``, ``"11th"``, ``"22nd"``.

    Parameters
    ----------
    k : int
        The number.

    Returns
    -------
    text : str
        The number with its English suffix.

    Examples
    --------
    >>> [ordinal(k) for k in (1, 2, 3, 4, 11, 12, 13, 21, 111)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '111th']
    """
    k = int(k)
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def every(k, noun="checkpoint"):
    """``"every checkpoint"``, ``"every 2nd checkpoint"``: one in ``k``.

    Parameters
    ----------
    k : int
        One in how many.
    noun : str, default "checkpoint"
        What is counted.

    Returns
    -------
    text : str
        The phrase.

    Examples
    --------
    >>> every(1), every(17), every(2, "hour")
    ('every checkpoint', 'every 17th checkpoint', 'every 2nd hour')
    """
    return f"every {noun}" if int(k) == 1 else f"every {ordinal(k)} {noun}"


def listed(items):
    """Items in a sentence: ``"a"``, ``"a and b"``, ``"a, b and c"``.

    Parameters
    ----------
    items : iterable of str
        At least one.

    Returns
    -------
    text : str
        The items joined by commas, the last by "and".

    Examples
    --------
    >>> listed(["load"]), listed(["launch", "load"]), listed(["daily", "weekly", "monthly"])
    ('load', 'launch and load', 'daily, weekly and monthly')
    """
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def change(new, old, kind):
    """How a quantity moved from ``old`` to ``new``, as signed text in its display unit.

    Parameters
    ----------
    new, old : float or bool
        The value now and the value it is compared with, in SI (see :data:`KINDS`).
    kind : str
        Their kind: a duration, money, a fraction (its change is in percentage points), a flag …

    Returns
    -------
    text : str
        ``"no change"``; ``"+1.50 h"``, ``"−$2.00M"``, ``"+1.5 pp"``; ``"was yes"`` for a flag; ``"was 4.00 h"``
        when either side has no bound (a difference with infinity says nothing).

    Examples
    --------
    >>> change(5400.0, 3600.0, "duration"), change(1e6, 3e6, "usd"), change(0.915, 0.9, "fraction")
    ('+30.0 min', '−$2.00M', '+1.5 pp')
    >>> change(float("inf"), 3600.0, "duration"), change(False, True, "flag"), change(2.0, 2.0, "usd")
    ('was 1.00 h', 'was yes', 'no change')
    """
    if isinstance(new, (bool, np.bool_)) or kind == "flag":
        return "no change" if bool(new) == bool(old) else f"was {'yes' if old else 'no'}"
    new, old = float(new), float(old)
    if new == old:
        return "no change"
    if not (math.isfinite(new) and math.isfinite(old)):
        return f"was {format_quantity(old, kind)}"
    delta = new - old
    sign = "+" if delta > 0 else "−"
    if kind == "fraction":
        return f"{sign}{float(f'{abs(delta) * 100:.2g}'):,g} pp"
    return sign + format_quantity(abs(delta), kind)


# --------------------------------------------------------------------------- TeX as plain text

# --------------------------------------------------------------------------- plan values, by kind


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power(value, digits=3):
    """``2.37 × 10²⁵``: a number too large or small for its digits, as a person writes it (never ``2.37e+25``)."""
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    mantissa = float(f"{value / 10 ** magnitude:.{digits - 1}f}")
    if abs(mantissa) >= 10:  # 9.995 rounds up a decade
        mantissa, magnitude = mantissa / 10, magnitude + 1
    return f"{mantissa:.{digits - 1}f} × 10{str(magnitude).translate(_SUPERSCRIPT)}"


def _fmt(value, digits=3):
    """Format with `digits` significant figures, no exponent for everyday sizes, a power of ten beyond them."""
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    if magnitude >= 6 or magnitude < -3:
        return _power(value, digits)
    return f"{value:,.{decimals}f}"


def _count(value, digits):
    """A count as people write one: whole below ten million (``8,000``), then ``16.8M``, ``21.5B``, ``9.77T``."""
    if abs(value) >= 1e7:
        scale, suffix = _pick(value, PARAM_UNITS[:-2], (1e6, "M"))
        return f"{_fmt(value / scale, digits)}{suffix}"
    if abs(value) < 100 and not float(value).is_integer():
        return _fmt(value, digits)
    return f"{value:,.0f}"


def _price(value, digits):
    """A price: to the cent as money is (``$4.92``), or to ``digits`` figures below a dollar (``$0.023``)."""
    if 0 < abs(value) < 1:
        return f"${float(f'{value:.{digits}g}'):,g}"
    return money(value, digits)


def _scaled(value, steps, digits):
    for size, suffix in steps:
        if abs(value) >= size:
            return f"{_fmt(value / size, digits)} {suffix}"
    size, suffix = steps[-1]
    return f"{_fmt(value / size, digits)} {suffix}"


def _duration(value, digits):
    if value == 0:
        return "0 s"
    scale, name = duration_unit(value)
    return f"{_fmt(value / scale, digits)} {name}"


def _usd(value, digits):
    return money(value, digits)


def _line_rate(value, digits):
    return line_rate(value, digits)


def _params(value, digits):
    return params(value, digits)


def _hop(index):
    return HOPS[int(index)]


KINDS = {
    "duration": _duration,
    "bytes": lambda v, d: _scaled(v, [(PB, "PB"), (TB, "TB"), (GB, "GB"), (MB, "MB"), (kB, "kB"), (1, "B")], d),
    "bandwidth": lambda v, d: _scaled(
        v, [(TB_per_s, "TB/s"), (GB_per_s, "GB/s"), (MB_per_s, "MB/s"), (1, "B/s")], d),
    "line_rate": _line_rate,
    "flop": lambda v, d: f"{_power(v, d)} FLOP",
    "flop_rate": lambda v, d: _scaled(v, [(PFLOP_per_s, "PFLOP/s"), (TFLOP_per_s, "TFLOP/s"), (1, "FLOP/s")], d),
    "usd": _usd,
    "usd_rate": lambda v, d: KINDS["usd"](v * day, d) + "/day",
    "fraction": lambda v, d: f"{100 * v:.{max(d - 2, 0)}f}%",
    "params": _params,
    "count": _count,
    "rate": lambda v, d: f"{_fmt(v * year, d)} /year",
    "gpu_hours": lambda v, d: f"{_fmt(v / 1e6, d)}M GPU·h" if v >= 1e6 else f"{_fmt(v, d)} GPU·h",
    "flag": lambda v, d: "yes" if v else "no",
    "hop": lambda v, d: _hop(v),
    "plain": lambda v, d: _fmt(v, d),
    "hours": lambda v, d: f"{_fmt(v / hour, d)} h",
    "usd_per_hour": lambda v, d: f"{_price(v, d)}/h",
    "usd_per_gpu_hour": lambda v, d: f"{_price(v, d)}/GPU·h",
    "usd_per_byte": lambda v, d: f"{_price(v * GB, d)}/GB",
    "usd_per_byte_month": lambda v, d: f"{_price(v * GB, d)}/GB·month",
    "usd_per_bandwidth_hour": lambda v, d: f"{_price(v * Gbit_per_s, d)}/(Gbit/s·h)",
}
"""Formatters by kind of quantity, each ``f(si_value, digits) -> str``.

``"bandwidth"`` is for storage and memory paths (``"2.00 TB/s"``); ``"line_rate"`` for network links,
in the Gbit/s they are sold in (``"100 Gbit/s"``); ``"params"`` for a model's size (``"405B"``); ``"count"``
whole up to ten million, then ``"9.77T"``; ``"flop"`` as a power of ten (``"2.37 × 10²⁵ FLOP"``): nothing a
person reads is written ``9.77e+12``.

Prices are written in the unit they are sold in, so a product of a price and an amount reads right:
``"usd_per_gpu_hour"`` (``"$4.92/GPU·h"``) and ``"usd_per_hour"`` (``"$22.50/h"``) take values in dollars per
hour, as the scenario holds them; ``"usd_per_byte"`` (``"$0.02/GB"``), ``"usd_per_byte_month"``
(``"$0.023/GB·month"``) and ``"usd_per_bandwidth_hour"`` (``"$0.212/(Gbit/s·h)"``) in dollars per byte, per
byte-month and per B/s-hour. ``"hours"`` writes a duration in hours (``"2,160 h"``), for the time an hourly
price is multiplied by.
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


# --------------------------------------------------------------------------- TeX as text

_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "eta": "η", "theta": "θ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "omega": "ω",
    "ell": "ℓ", "Delta": "Δ", "Sigma": "Σ", "Lambda": "Λ", "infty": "∞", "le": "≤", "leq": "≤", "ge": "≥",
    "geq": "≥", "ne": "≠", "approx": "≈", "times": "×", "cdot": "·", "pm": "±", "to": "→", "rightarrow": "→",
    "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "sum": "Σ", "max": "max", "min": "min",
    "ln": "ln", "log": "log", "exp": "exp", "wedge": "and", "land": "and", "vee": "or", "lor": "or", "neg": "not",
    "lnot": "not",
}
_ARG = r"\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}"  # a braced group, up to three levels deep
_SIMPLE = re.compile(r"\d+(?:\.\d+)?|(?:[A-Za-z]|\\[A-Za-z]+)(?:_(?:\w|\{\w+\}))?")


def _group(text):
    """The text of a fraction's or root's argument, bracketed unless it is one symbol or number."""
    text = text.strip()
    return text if _SIMPLE.fullmatch(text) else f"({text})"


def _fraction(match):
    """``a/b``, bracketed when a product follows (``(1/3)√x``, not ``1/3√x``)."""
    text = f"{_group(match.group(1))}/{_group(match.group(2))}"
    rest = match.string[match.end():].lstrip()
    return f"({text})" if rest[:1].isalnum() or rest[:1] in ("\\", "(") else text


def _script(match):
    mark, body = match.group(1), match.group(2).strip()
    return f"{mark}{body}" if re.fullmatch(r"\w+", body) else f"{mark}({body})"


def tex_text(tex):
    r"""The TeX of a formula as plain text, for a terminal: fractions inline, Greek letters as letters.

    Parameters
    ----------
    tex : str
        A formula without ``$`` delimiters, in the subset :meth:`drmath.Plan.explain` uses:
        ``\frac``, ``\sqrt``, ``\text``/``\mathrm``, sub- and superscripts, Greek letters,
        relations and spacing commands.

    Returns
    -------
    text : str
        The same formula on one line: ``\frac{a}{b}`` becomes ``a/b`` (arguments of more than
        one symbol bracketed), ``\sqrt{x}`` ``√(x)``, ``T_{rep}`` ``T_rep``, ``\wedge``, ``\vee`` and
        ``\neg`` the words "and", "or" and "not". An unknown command keeps its name, so nothing is
        dropped silently.

    Examples
    --------
    >>> tex_text(r"T_c = \frac{C}{G\,P\,\mathrm{MFU}}")
    'T_c = C/(G P MFU)'
    >>> tex_text(r"\mathrm{RPO}_{site} = k\tau + W + t_{rep} \le \infty")
    'RPO_site = kτ + W + t_rep ≤ ∞'
    >>> tex_text(r"P = 1 - e^{-\lambda_s T}")
    'P = 1 - e^(-λ_s T)'
    >>> tex_text(r"\min_i m_i \ge 0 \;\wedge\; \neg\,\text{collapsed}")  # logic in words, never "wedge neg"
    'min_i m_i ≥ 0 and not collapsed'
    """
    text = str(tex)
    text = re.sub(r"\\(?:text|textrm|textit|textbf|mathrm|mathit|mathbf|operatorname)\s*" + _ARG, r"\1", text)
    previous = None
    while previous != text:  # innermost last: each pass rewrites the outermost fractions and roots
        previous = text
        text = re.sub(r"\\[dt]?frac\s*" + _ARG + r"\s*" + _ARG, _fraction, text)
        text = re.sub(r"\\sqrt\s*" + _ARG, lambda m: f"√{_group(m.group(1))}", text)
    text = re.sub(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)\s*\.?", "", text)
    text = re.sub(r"\\(?:quad|qquad|[,;: ])", " ", text).replace(r"\!", "")
    text = re.sub(r"\\([$%#&{}_])", r"\1", text)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _SYMBOLS.get(m.group(1), m.group(1)), text)
    text = re.sub(r"([_^])\{([^{}]*)\}", _script, text)
    text = re.sub(r"\s+", " ", text.replace("{", "").replace("}", ""))
    return re.sub(r"([(\[⌈⌊]) | ([)\]⌉⌋])", r"\1\2", text).strip()


_MONEY = re.compile(r"\\?\$((?:\d[\d,]*\d|\d)(?:\.\d+)?[kMBT]?|[kMBT](?![A-Za-z]))?")
r"""A dollar sign and the amount after it (``$84.95M``, an escaped ``\$1``, a lone ``$`` of a unit)."""


def markdown_text(text, span=True):
    r"""Text for Markdown or HTML outside math, with money written so that no renderer reads it as math.

    Jupyter, Voilà and the dashboard hand Markdown and HTML to MathJax, which pairs the dollars it finds in one
    run of text and typesets what lies between them: ``"$84.95M (at 30%: $113.27M)"`` would lose the words
    between the amounts to italic math. Escaping as ``\$`` does not survive: JupyterLab's Markdown renderer drops
    the backslash before MathJax reads the page. So each amount becomes
    ``<span class="drmath-money">&#36;84.95M</span>``: the entity leaves no ``$`` for a Markdown renderer's
    math pass (JupyterLab's, mistune's), and the element ends MathJax's run of text, so no two dollars pair.
    This is the one place money is written for HTML or Markdown; plain text (the CLI, :meth:`Plan.format
    <drmath.Plan.format>`, TOML) keeps ``$``.

    Parameters
    ----------
    text : str
        Markdown prose or HTML text, without math (every ``$`` in it is money).
    span : bool, default True
        Wrap each amount in its ``<span>``. ``False`` writes the entity alone, for Markdown whose reader
        passes no raw HTML (the report's) and where each amount stands alone in its element (a bold title,
        a table cell), as in :meth:`drmath.Plan.explain`.

    Returns
    -------
    text : str
        The same text with every ``$`` (escaped or not) written ``&#36;``, its amount in a span. Applying it
        twice is harmless: no ``$`` is left.

    Examples
    --------
    >>> print(markdown_text("runs for $84.95M (at 30%: \\$113.27M)"))
    runs for <span class="drmath-money">&#36;84.95M</span> (at 30%: <span class="drmath-money">&#36;113.27M</span>)
    >>> markdown_text("$1.00M/day", span=False), markdown_text(markdown_text("$1")) == markdown_text("$1")
    ('&#36;1.00M/day', True)
    """
    if not span:
        return _MONEY.sub(r"&#36;\1", str(text))
    return _MONEY.sub(r'<span class="drmath-money">&#36;\1</span>', str(text))


def html_text(text):
    """Text for HTML (an ipywidgets HTML value, a template): escaped, its money as :func:`markdown_text` writes it.

    Parameters
    ----------
    text : str
        Plain text, e.g. :meth:`drmath.Plan.format` or a card's sub-line.

    Returns
    -------
    html : str
        The text HTML-escaped, each amount of money in its ``<span class="drmath-money">``.

    Examples
    --------
    >>> print(html_text("$3.28M = standby <$1M>"))
    <span class="drmath-money">&#36;3.28M</span> = standby &lt;<span class="drmath-money">&#36;1M</span>&gt;
    """
    return markdown_text(html.escape(str(text), quote=True))
