"""Deprecated: the comparison figure moved to :mod:`drmath.viz.comparison` (issue 33), so that one thing, plans side
by side, has one name: :func:`drmath.compare` and ``drmath compare`` the verb, ``comparison`` every module of it.

``drmath.viz.compare.X`` still works and gives :mod:`drmath.viz.comparison`'s ``X`` with a :class:`FutureWarning`
that names its new home; ``drmath.viz.compare_figure`` is unchanged.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     from drmath.viz.compare import compare_spec
    >>> compare_spec.__module__, str(caught[0].message)
    ('drmath.viz.comparison', 'drmath.viz.compare.compare_spec moved to drmath.viz.comparison.compare_spec; \
the old name goes in 0.3')
"""

from .._moved import forwarder

MOVED = {name: "drmath.viz.comparison" for name in ("compare_spec", "compare_figure")}
"""Each public name of the old module, and the module it lives in now."""

__all__ = sorted(MOVED)


__getattr__ = forwarder(__name__, MOVED)
