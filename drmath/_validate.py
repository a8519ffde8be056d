"""Argument checks shared by the formula modules (private).

Each check raises ``ValueError`` naming the argument, its value and the valid
range. NaN fails every check: a NaN never reaches a formula. The checks always
run: nothing turns them off, and each formula has one numpy code path (see
:func:`broadcasting`).
"""

import functools
import inspect
import reprlib

import numpy as np

_INF = float("inf")
TINY, HUGE = 1e-30, 1e30
"""No physical input here is above HUGE; refusing larger ones keeps every product of a few
inputs inside float range (no overflow to inf, then inf/inf = NaN). Scenario also refuses
nonzero inputs below TINY."""
_RANGE = " (at most 1e30)"


MAX_SHOWN = 200
"""Most characters of a user's value that an error message echoes [1] (see :func:`short_repr`)."""


def clip(text, limit=MAX_SHOWN):
    """Text shortened to ``limit`` characters, saying how long it was.

    Parameters
    ----------
    text : str
        Any text, e.g. an error message or a value's repr. [1]
    limit : int, default MAX_SHOWN
        Characters kept [1]; the note adds at most ~30.

    Returns
    -------
    text : str
        ``text`` itself when it fits, else its first ``limit`` characters,
        ``"…"`` and ``"(N characters)"`` with N the full length. [1]

    Examples
    --------
    >>> clip("abc")
    'abc'
    >>> clip("x" * 50_000_000, 5)
    'xxxxx… (50,000,000 characters)'
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict = 6, 12, 12, 12
_REPR.maxset = _REPR.maxfrozenset = _REPR.maxdeque = _REPR.maxarray = 12
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = MAX_SHOWN


def short_repr(value, limit=MAX_SHOWN):
    """A value's ``repr`` for an error message, never longer than about ``limit`` characters.

    The one cap on what an error echoes of a user's input: a 50 MB string, a
    4,000-digit integer or a list nested 500 deep costs a short line, not
    megabytes (and never raises while the message is built).

    Parameters
    ----------
    value : object
        The bad value. [1]
    limit : int, default MAX_SHOWN
        Characters of the repr kept [1]; :func:`clip` adds the full length.

    Returns
    -------
    text : str
        ``repr(value)`` when it fits; else its first ``limit`` characters,
        ``"…"`` and ``"(N characters)"`` (for text, N counts the value's own
        characters; containers are summarised with ``...`` by :mod:`reprlib`). [1]

    Examples
    --------
    >>> short_repr("lots"), short_repr(1.5), short_repr(None)
    ("'lots'", '1.5', 'None')
    >>> short_repr("x" * 50_000_000, 8)
    "'xxxxxxxx'… (50,000,000 characters)"
    >>> short_repr(10 ** 300, 10)
    '1000000000… (301 characters)'
    >>> short_repr([[[[[[[[1]]]]]]]])
    '[[[[[[[...]]]]]]]'
    """
    try:
        if isinstance(value, (str, bytes, bytearray)):
            if len(value) <= limit:
                return repr(value)
            head = repr(value[:limit])  # escapes can make it longer than limit
            return (head if len(head) <= limit + 3 else head[:limit]) + f"… ({len(value):,} characters)"
        if isinstance(value, int) and not isinstance(value, bool):
            if value.bit_length() > 14_000:  # beyond int's 4,300-digit str limit
                return f"<an integer of about {int(value.bit_length() * 0.30103):,} digits>"
            return clip(repr(value), limit)
        if isinstance(value, (list, tuple, dict, set, frozenset)):
            return clip(_REPR.repr(value), limit)
        return clip(repr(value), limit)
    except Exception:  # a repr that fails (or recurses) must not hide the real error
        return f"<a {type(value).__name__}>"


def as_output(x):
    """A formula's result for its caller: a 0-d result as a Python float (or bool); arrays unchanged.

    Parameters
    ----------
    x : float, bool or array_like
        What a formula computed. [1]

    Returns
    -------
    out : float, bool or ndarray
        ``x`` itself when it has dimensions, else the Python number it holds. [1]

    Examples
    --------
    >>> as_output(np.float64(2.5)), as_output(np.array(True)), as_output(np.array([2.5]))
    (2.5, True, array([2.5]))
    """
    if np.ndim(x):
        return x
    if isinstance(x, (bool, np.bool_)) or (isinstance(x, np.ndarray) and x.dtype == bool):
        return bool(x)
    return float(x)


def _numbers(name, value):
    """value as float numpy, or TypeError naming the argument (str, None, bool, objects)."""
    if type(value) is np.float64 or (type(value) is np.ndarray and value.dtype == np.float64):
        return value  # what broadcasting() hands a formula
    if isinstance(value, (str, bytes, bool, np.bool_)) or value is None:
        raise TypeError(f"{name} must be a number or an array of numbers, "
                        f"got {type(value).__name__} {short_repr(value)}")
    try:
        arr = np.asarray(value, dtype=float)
    except OverflowError:  # an integer beyond float range
        raise ValueError(f"{name} must be at most 1e30, got {short_repr(value)}") from None
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or an array of numbers, got {type(value).__name__}") from None
    if arr.dtype == object or (np.asarray(value).dtype.kind not in "biuf"):
        raise TypeError(f"{name} must be a number or an array of numbers, got {np.asarray(value).dtype} values")
    return arr


def _first_bad(value, ok, name="value"):
    """The first value ``ok`` refuses (NaN always), or None when all pass."""
    arr = _numbers(name, value)
    if arr.ndim == 0:  # one number: the same predicate, on a Python float
        x = float(arr)
        return None if ok(x) else x  # every predicate is False for NaN
    good = ok(arr)
    return None if good.all() else float(arr[~good].flat[0])


def _checker(name, doc, ok, message, tail=""):
    """A ``require_*(**values)`` check: ``ok`` passes good values, ``message`` says what is wanted."""
    def check(**values):
        for arg, value in values.items():
            first = _first_bad(value, ok, arg)
            if first is not None:
                raise ValueError(f"{arg} must be {message}, got {first!r}{tail}")
    check.__name__ = check.__qualname__ = name
    check.__doc__ = doc
    return check


require_positive = _checker("require_positive", "Every value must be finite and > 0.",
                            lambda a: (a > 0) & (a <= HUGE), "finite and > 0", _RANGE)
require_nonnegative = _checker("require_nonnegative", "Every value must be finite and >= 0.",
                               lambda a: (a >= 0) & (a <= HUGE), "finite and >= 0", _RANGE)
require_fraction = _checker("require_fraction", "Every value must lie in (0, 1].",
                            lambda a: (a > 0) & (a <= 1), "in (0, 1]")
require_unit_interval = _checker("require_unit_interval", "Every value must lie in [0, 1].",
                                 lambda a: (a >= 0) & (a <= 1), "in [0, 1]")
require_nonnegative_or_inf = _checker("require_nonnegative_or_inf",
                                      "Every value must be >= 0; +inf is allowed (an unbounded duration).",
                                      lambda a: a >= 0, ">= 0 (inf allowed)")
require_number = _checker("require_number", "Every value must be a number (negative and ±inf allowed), never NaN.",
                          lambda a: (abs(a) <= HUGE) | (abs(a) == _INF), "a number", _RANGE)
require_ratio = _checker("require_ratio", "Every value must be finite and >= 1 (a compression ratio).",
                         lambda a: (a >= 1) & (a <= HUGE), ">= 1", _RANGE)


def require_flag(**values):
    """Every value must be True/False (or an array of them)."""
    for name, value in values.items():
        if isinstance(value, (bool, np.bool_)) or (isinstance(value, np.ndarray) and value.dtype == bool):
            continue
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {short_repr(value)}")


def _as_numbers(value):
    """A numeric argument as float numpy (lists and tuples too); flags and non-numbers unchanged.

    The checks inside the formula then name the argument of anything left unchanged.
    """
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, (int, float, np.number)):
        try:
            return np.float64(value)
        except OverflowError:  # an integer beyond float range: the check names it
            return value
    if isinstance(value, (list, tuple)):
        try:
            return np.asarray(value, dtype=float)
        except (TypeError, ValueError, OverflowError):
            return value
    if isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
        return value.astype(float, copy=False)
    return value


def broadcasting(func):
    """Run a formula on numpy: one code path for numbers, lists and arrays.

    Numbers become ``np.float64``, lists and tuples float arrays, so the formula's
    arithmetic always follows IEEE 754 (``x / 0 = inf`` on underflow, never
    ``ZeroDivisionError``), and its result comes back as a Python number for a
    0-d result or an array otherwise. Array arguments must broadcast together.
    Flags (``bool``) and anything that is not a number pass through unchanged,
    for the formula's checks to name.
    """
    names = list(inspect.signature(func).parameters)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        args = [_as_numbers(a) for a in args]
        kwargs = {k: _as_numbers(v) for k, v in kwargs.items()}
        arrays = [v for v in (*args, *kwargs.values()) if type(v) is np.ndarray and v.ndim]
        if len(arrays) > 1 and len({v.shape for v in arrays}) > 1:
            shapes = {n: v.shape for n, v in [*zip(names, args), *kwargs.items()]
                      if isinstance(v, np.ndarray) and v.ndim}
            try:
                np.broadcast_shapes(*shapes.values())
            except ValueError:
                listed = ", ".join(f"{n} {s}" for n, s in shapes.items())
                raise ValueError(f"array arguments must broadcast together, got shapes {listed}") from None
        with np.errstate(divide="ignore", over="ignore"):  # IEEE: x/0 = inf, overflow = inf
            return as_output(func(*args, **kwargs))
    return wrapper


# C0 and C1 controls, DEL, and the format characters that reorder or break a line of text (bidirectional
# embeddings, overrides and isolates; the line and paragraph separators): shown as their Python escapes.
_HIDDEN = [*range(0x20), *range(0x7F, 0xA0), 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F),
           *range(0x2066, 0x206A)]
_VISIBLE = str.maketrans({code: repr(chr(code))[1:-1] for code in _HIDDEN})


def visible(text):
    r"""Text from a file, or a file's name, as a terminal or a page may show it: every control character escaped.

    An ESC, BEL or OSC sequence printed raw retitles or clears a terminal, or writes its clipboard (OSC 52);
    a bidirectional override reorders what a reader sees. Each such character becomes its escape, visibly.

    Parameters
    ----------
    text : str
        A file's name, a cell, a column's name. [1]

    Returns
    -------
    text : str
        ``text`` with each C0 or C1 control character, DEL, bidirectional control and line or paragraph
        separator written as its Python escape (``\x1b``, ``\u202e``); other text unchanged. [1]

    Examples
    --------
    >>> print(visible("log\x1b]0;owned\x07.csv"))
    log\x1b]0;owned\x07.csv
    >>> visible("ok.csv")
    'ok.csv'
    """
    return text.translate(_VISIBLE)


def visible_list(names, between=", "):
    r"""Names (or conditions) for a message: one line, its control characters escaped (:func:`visible`), its length
    capped at 1,000 characters (:func:`clip`).

    >>> print(visible_list(["cause=GPU", "scope=node\x1b"], " and "))
    cause=GPU and scope=node\x1b
    """
    return clip(visible(between.join(names)), 1000)
