r"""Each formula's TeX, written once beside its function (private).

:func:`formula` stores a formula function's TeX on the function (``func.tex``, and
``func.tex_variants`` for the named forms it takes) and writes it into the docstring where
the source says ``.. formula::`` (or ``.. formula:: name`` for a variant), as a
``.. math::`` block, so ``help()`` and Sphinx show it. :mod:`drmath.quantities` points at
these same strings, so :meth:`drmath.Plan.explain` and the report show what the docstring
shows.

    >>> @formula(r"r = S / \tau", half=r"r_{1/2} = S / 2\tau")
    ... def rate(size, interval):
    ...     '''Bytes per second.
    ...
    ...     Notes
    ...     -----
    ...     .. formula::
    ...
    ...     Half the rate:
    ...
    ...     .. formula:: half
    ...     '''
    ...     return size / interval
    >>> print(rate.__doc__.splitlines()[6])
           r = S / \tau
    >>> rate.tex_variants["half"]
    'r_{1/2} = S / 2\\tau'
"""

import re
from types import MappingProxyType

__all__ = ["formula"]

_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)\.\. formula::[ \t]*(?P<name>\w*)[ \t]*$", re.M)


def formula(tex=None, /, **variants):
    """Decorate a formula function with its TeX, written into its docstring's ``.. formula::`` lines.

    Parameters
    ----------
    tex : str, optional
        The formula, e.g. ``r"S = N\\,b"``. [1]
    **variants : str
        Named forms (a branch, or the form the plan shows), each shown by a
        ``.. formula:: name`` line. [1]

    Returns
    -------
    decorate : callable
        Sets ``func.tex`` and ``func.tex_variants`` and fills the docstring. [1]

    Raises
    ------
    ValueError
        If the docstring writes a ``.. math::`` block of its own, or its
        placeholders and the TeX given do not match one to one.
    """
    def decorate(func):
        doc = func.__doc__
        if doc is not None:  # python -OO strips docstrings
            if ".. math::" in doc:
                raise ValueError(f"{func.__qualname__}: write the formula in @formula, and '.. formula::' "
                                 "where it goes in the docstring, not a '.. math::' block")
            named = [m.group("name") for m in _PLACEHOLDER.finditer(doc)]
            wanted = ([""] if tex is not None else []) + list(variants)
            if sorted(named) != sorted(wanted):
                raise ValueError(f"{func.__qualname__}: the docstring shows {named or 'no formula'}, "
                                 f"the decorator gives {wanted}")

            def block(match):
                indent, name = match.group("indent"), match.group("name")
                return f"{indent}.. math::\n\n{indent}   {variants[name] if name else tex}"

            func.__doc__ = _PLACEHOLDER.sub(block, doc)
        func.tex = tex
        func.tex_variants = MappingProxyType(variants)
        return func
    return decorate
