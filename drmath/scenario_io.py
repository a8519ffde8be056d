"""Deprecated: scenario files, share links and atomic writes moved to :mod:`drmath.io` (issue 33).

``drmath.scenario_io.X`` still works and gives ``drmath.io``'s ``X`` with a :class:`FutureWarning` that names
its new home, as scikit-learn deprecates a moved name: :mod:`drmath.io.scenarios` (TOML, values),
:mod:`drmath.io.links` (share links) and :mod:`drmath.io.files` (atomic writes).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     from drmath.scenario_io import to_query
    >>> to_query.__module__, str(caught[0].message)
    ('drmath.io.links', 'drmath.scenario_io.to_query moved to drmath.io.links.to_query; the old name goes in 0.3')
"""

from ._moved import forwarder

MOVED = {name: "drmath.io.scenarios" for name in (
    "seed", "ScenarioFileError", "load", "loads", "load_with_meta", "save", "dumps", "read_meta", "parse_value",
    "preset_name", "shipped_scenarios", "SCENARIO_DIR", "META", "META_TYPES")}
MOVED |= {name: "drmath.io.links" for name in (
    "readable", "to_query", "from_query", "VOILA_PARAMETERS", "MAX_QUERY_LENGTH", "MAX_QUERY_FIELDS",
    "MAX_VALUE_LENGTH")}
MOVED |= {name: "drmath.io.files" for name in ("atomic_write", "output_target")}
"""Each public name of the old module, and the module it lives in now."""

__all__ = sorted(MOVED)


__getattr__ = forwarder(__name__, MOVED)
