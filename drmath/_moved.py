"""Names that moved: the old module still gives each one, with a :class:`FutureWarning` naming its new home.

As scikit-learn deprecates a moved name: the old spelling works for two releases and says where to look.

    >>> import warnings
    >>> __getattr__ = forwarder("drmath.old", {"plan": "drmath._plan"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     __getattr__("plan").__module__, str(caught[0].message)
    ('drmath._plan', 'drmath.old.plan moved to drmath._plan.plan; the old name goes in 0.3')
"""

import importlib
import warnings

__all__ = ["forwarder"]


def forwarder(old, moved):
    """A module ``__getattr__`` for module ``old`` that gives each name of ``moved`` (``{name: new module}``) from its
    new module, with a :class:`FutureWarning`; any other name raises :class:`AttributeError`."""
    def __getattr__(name):
        if name not in moved:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(f"{old}.{name} moved to {moved[name]}.{name}; the old name goes in 0.3", FutureWarning,
                      stacklevel=2)
        return getattr(importlib.import_module(moved[name]), name)

    return __getattr__
