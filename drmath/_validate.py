"""Argument checks shared by the formula modules (private).

Each check raises ``ValueError`` naming the argument, its value and the valid
range. NaN fails every check: a NaN never reaches a formula.
"""

import numpy as np


_SCALARS = (float, int, np.float64)
_INF = float("inf")


def scalars(*values):
    """True when every value is a plain number, so a formula can skip numpy."""
    return all(type(v) in _SCALARS for v in values)


def as_output(x):
    """A 0-d result as a Python float (or bool); arrays unchanged."""
    if type(x) is float:
        return x
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, np.floating):
        return float(x)
    if np.ndim(x):
        return x
    return bool(x) if np.asarray(x).dtype == bool else float(x)


def _bad(value, ok):
    if type(value) in _SCALARS:  # fast path: plan() passes Python floats
        number = float(value)
        return None if number == number and ok(number) else number
    arr = np.asarray(value, dtype=float)
    bad = ~ok(arr)  # every predicate is False for NaN
    if not bad.any():
        return None
    return float(arr[bad].flat[0]) if arr.ndim else float(arr)


def require_positive(**values):
    """Every value must be finite and > 0."""
    for name, value in values.items():
        first = _bad(value, lambda a: (a > 0) & (a < _INF))
        if first is not None:
            raise ValueError(f"{name} must be finite and > 0, got {first!r}")


def require_nonnegative(**values):
    """Every value must be finite and >= 0."""
    for name, value in values.items():
        first = _bad(value, lambda a: (a >= 0) & (a < _INF))
        if first is not None:
            raise ValueError(f"{name} must be finite and >= 0, got {first!r}")


def require_fraction(**values):
    """Every value must lie in (0, 1]."""
    for name, value in values.items():
        first = _bad(value, lambda a: (a > 0) & (a <= 1))
        if first is not None:
            raise ValueError(f"{name} must be in (0, 1], got {first!r}")


def require_unit_interval(**values):
    """Every value must lie in [0, 1]."""
    for name, value in values.items():
        first = _bad(value, lambda a: (a >= 0) & (a <= 1))
        if first is not None:
            raise ValueError(f"{name} must be in [0, 1], got {first!r}")


def require_nonnegative_or_inf(**values):
    """Every value must be >= 0; +inf is allowed (an unbounded duration)."""
    for name, value in values.items():
        first = _bad(value, lambda a: a >= 0)
        if first is not None:
            raise ValueError(f"{name} must be >= 0 (inf allowed), got {first!r}")
