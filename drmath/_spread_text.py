"""A scenario's spreads as text: the ``[uncertainty]`` table of a scenario file and the share link's pairs.

Thin, as :mod:`drmath.io.scenarios` is: nothing here derives a number. A spread
(:class:`drmath.scenario.Spread`) is written in a file as

.. code-block:: toml

    [uncertainty]
    "failures.gpu_failure_rate" = {low = 5.6e-11, high = 1.1e-10, distribution = "lognormal"}
    "failures.launch_time" = {low = "2 min", high = "10 min", distribution = "uniform"}

(``low`` and ``high`` are read as the field's own values are: a number in SI or text with a unit), and in a
share link as ``uncertainty.failures.gpu_failure_rate=LOW,HIGH,DISTRIBUTION[,CONFIDENCE]``.

    >>> from drmath.scenario import Spread
    >>> query_text(Spread(1e-10, 2e-10))
    '1e-10,2e-10,lognormal'
    >>> from drmath.io.scenarios import parse_value
    >>> from_query_text("failures.gpu_failure_rate", "1e-10,2e-10,lognormal", parse_value)
    {'low': 1e-10, 'high': 2e-10, 'distribution': 'lognormal'}
"""

from ._validate import short_repr
from .scenario import FIELDS, PREFIX

__all__ = ["TABLE", "changes_of_table", "table_of", "query_text", "from_query_text"]

TABLE = "uncertainty"
"""The TOML table of a scenario file that holds its spreads."""

_KEYS = ("low", "high", "distribution", "confidence")


def changes_of_table(table, parse):
    """The ``[uncertainty]`` table of a file as flat changes ``{"uncertainty.<path>": {low, high, ...}}``; ``parse``
    reads a bound given as text (:func:`drmath.io.scenarios.parse_value`)."""
    if not isinstance(table, dict):
        raise ValueError(f"{TABLE} must be a table ([{TABLE}]), got {type(table).__name__}")
    changes = {}
    for path, spec in table.items():
        where = f"{PREFIX}{path}"
        if path not in FIELDS:
            changes[where] = spec  # Scenario names the unknown field
            continue
        if not isinstance(spec, dict):
            raise ValueError(f"{where} = {short_repr(spec)} must be a table: {{low = ..., high = ..., "
                             "distribution = \"lognormal\"}")
        changes[where] = {key: _bound(where, key, path, x, parse) if key in ("low", "high") else x
                          for key, x in spec.items()}
    return changes


def _bound(where, key, path, value, parse):
    """One end of a spread read as the field's values are; a ValueError naming ``uncertainty.<path>.<key>``."""
    try:
        return parse(path, value)
    except ValueError:
        info = FIELDS[path]
        raise ValueError(f"{where}.{key} = {short_repr(value)} is not a number: must be in "
                         f"[{info.low:g}, {info.high:g}] {info.unit}") from None


def table_of(uncertainty):
    """The spreads as the ``[uncertainty]`` table, in SI (exact: floats are written with ``repr``)."""
    return {path: {"low": s.low, "high": s.high, "distribution": s.distribution, "confidence": s.confidence}
            for path, s in uncertainty.items()}


def query_text(spread):
    """A spread as a share link's value: ``LOW,HIGH,DISTRIBUTION`` in SI, then ``,CONFIDENCE`` unless 0.95."""
    text = f"{spread.low!r},{spread.high!r},{spread.distribution}"
    return text if spread.confidence == 0.95 else f"{text},{spread.confidence!r}"


def from_query_text(path, text, parse):
    """A share link's value for the spread of ``path``: ``None`` for ``unset``, else its parts (bounds read by
    ``parse``, as :func:`changes_of_table`); a ValueError
    naming ``uncertainty.<path>`` if it has not two to four parts or a bound is not a number."""
    if text.strip().lower() == "unset":
        return None
    parts = [part.strip() for part in text.split(",")]
    if not 2 <= len(parts) <= 4:
        raise ValueError(f"{PREFIX}{path} = {short_repr(text)} must be LOW,HIGH[,DISTRIBUTION[,CONFIDENCE]]")
    spec = {key: _bound(f"{PREFIX}{path}", key, path, part, parse) for key, part in zip(("low", "high"), parts)}
    if len(parts) > 2:
        spec["distribution"] = parts[2]
    if len(parts) > 3:
        try:
            spec["confidence"] = float(parts[3])
        except ValueError:
            raise ValueError(f"{PREFIX}{path}.confidence = {short_repr(parts[3])} is not a number: must be in "
                             "(0, 1)") from None
    return spec
