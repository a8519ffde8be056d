"""Names that moved: the old spelling still works, with a :class:`FutureWarning` naming its new home.

As scikit-learn deprecates a moved name: the old spelling works for two releases and says where to look.
A module-level name is forwarded by the old module's ``__getattr__`` (:func:`forwarder`):

    >>> import warnings
    >>> __getattr__ = forwarder("drmath.old", {"plan": "drmath._plan"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     __getattr__("plan").__module__, str(caught[0].message)
    ('drmath._plan', 'drmath.old.plan moved to drmath._plan.plan; the old name goes in 0.3')

A method of the model core that moved up to :mod:`drmath.io` cannot be forwarded so: the core imports nothing
from the layers above it (issue 33), not even by name. Such a method calls :func:`delegate`, which runs the
function that the layer above registered in :data:`HOOKS` when it was imported.
"""

import importlib
import warnings

__all__ = ["forwarder", "delegate", "HOOKS"]

HOOKS = {}
"""The functions that moved out of the model core, by their new dotted name: ``{"drmath.io.fits.fragment":
function}``. The layer a function moved to registers it when that layer is imported (``drmath/io/__init__.py``);
the core never imports it to find it."""


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


def delegate(old, new, *args, **kwargs):
    """Run ``new`` (a key of :data:`HOOKS`) on ``args`` for the old spelling ``old``, with a :class:`FutureWarning`.

    The warning points at the code that called the deprecated spelling (the caller of the function that calls
    this one).

    Raises
    ------
    RuntimeError
        If nothing registered ``new``: the layer it moved to has not been imported, and the message says what to
        call instead.

    Examples
    --------
    >>> HOOKS["drmath.new.twice"] = lambda x: 2 * x
    >>> def twice(x):
    ...     return delegate("drmath.old.twice()", "drmath.new.twice", x)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     twice(21), str(caught[0].message)
    (42, 'drmath.old.twice() moved to drmath.new.twice; the old spelling goes in 0.3')
    >>> del HOOKS["drmath.new.twice"]
    >>> twice(21)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    RuntimeError: drmath.old.twice() moved to drmath.new.twice: call that (the old spelling works, until 0.3, once ...
    """
    if new not in HOOKS:
        raise RuntimeError(f"{old} moved to {new}: call that (the old spelling works, until 0.3, once "
                           f"{new.rpartition('.')[0]} is imported)")
    warnings.warn(f"{old} moved to {new}; the old spelling goes in 0.3", FutureWarning, stacklevel=3)
    return HOOKS[new](*args, **kwargs)
