"""Deprecated: the two hand-built diagrams moved to :mod:`drmath.viz.diagrams` (issue 33): they are views.

``drmath.diagrams.X`` still works and gives :mod:`drmath.viz.diagrams`' ``X`` with a :class:`FutureWarning` that
names its new home. Write ``from drmath.viz import diagrams`` instead.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     from drmath.diagrams import data_path_figure
    >>> data_path_figure.__module__, str(caught[0].message)
    ('drmath.viz.diagrams', 'drmath.diagrams.data_path_figure moved to drmath.viz.diagrams.data_path_figure; \
the old name goes in 0.3')
"""

from ._moved import forwarder

MOVED = {name: "drmath.viz.diagrams" for name in ("data_path_figure", "recovery_timeline_figure", "NODES", "EDGES")}
"""Each public name of the old module, and the module it lives in now."""

__all__ = sorted(MOVED)


__getattr__ = forwarder(__name__, MOVED)
