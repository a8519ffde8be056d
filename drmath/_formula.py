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

import inspect
import re
from types import MappingProxyType

__all__ = ["formula", "docstring_tex", "tex_of"]

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


_MATH = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*(?P<rest>.*)$")


def docstring_tex(func):
    r"""The TeX of each ``.. math::`` block of a function's docstring, in order: a list of str.

    For the functions whose formula is not one a plan computes (a fit, a drill's promise, a simulated trial), the
    docstring's math is where the library writes it, once; a page shows it from here. Trailing punctuation that
    ends the docstring's sentence is dropped.

    Parameters
    ----------
    func : callable
        A function with a numpydoc docstring. [1]

    Returns
    -------
    tex : list of str
        One string per block, lines joined by a space. [1]

    Examples
    --------
    >>> def f():
    ...     '''Notes
    ...
    ...     .. math:: a = b + c,
    ...
    ...     and
    ...
    ...     .. math::
    ...
    ...        d = e
    ...     '''
    >>> docstring_tex(f)
    ['a = b + c', 'd = e']
    """
    lines, found = inspect.cleandoc(func.__doc__ or "").splitlines(), []
    for i, line in enumerate(lines):
        match = _MATH.match(line)
        if not match:
            continue
        indent, rest = match.group("indent"), match.group("rest").strip()
        block, j = [rest] if rest else [], i + 1
        while j < len(lines) and (not lines[j].strip() or lines[j].startswith(indent + " ")):
            if lines[j].strip():
                block.append(lines[j].strip())
            elif block:
                break
            j += 1
        found.append(" ".join(block).rstrip(",.; "))
    return found


def tex_of(func, variant=None):
    r"""The TeX the library holds for one formula function: its own, a named variant, or its docstring's math.

    Parameters
    ----------
    func : callable
        A formula function (decorated with :func:`formula`), or any drmath function whose docstring shows its
        math in ``.. math::`` blocks. [1]
    variant : str or int, optional
        A name of ``func.tex_variants``, or the index of a ``.. math::`` block of the docstring; by default
        ``func.tex``, or the docstring's only block. [1]

    Returns
    -------
    tex : str
        The formula, as the library writes it. [1]

    Raises
    ------
    ValueError
        If the function holds no such formula (the message lists the ones it holds).

    Examples
    --------
    >>> from drmath import checkpoint
    >>> tex_of(checkpoint.checkpoint_bytes), tex_of(checkpoint.checkpoint_stall, "synchronous")
    ('S = N\\,b', '\\delta = W')
    """
    name = getattr(func, "__qualname__", repr(func))
    own, variants, blocks = getattr(func, "tex", None), dict(getattr(func, "tex_variants", {})), None
    if variant is None and own:
        return own
    if isinstance(variant, str):
        if variant in variants:
            return variants[variant]
        raise ValueError(f"{name} has no formula variant {variant!r}: choose from {sorted(variants)}")
    if own is None and not variants:
        blocks = docstring_tex(func)
        if variant is None and len(blocks) == 1:
            return blocks[0]
        if isinstance(variant, int) and 0 <= variant < len(blocks):
            return blocks[variant]
        raise ValueError(f"{name}: variant {variant!r} is not one of its docstring's {len(blocks)} math blocks "
                         f"(0 to {len(blocks) - 1})" if blocks else f"{name} holds no formula")
    raise ValueError(f"{name} needs a variant: choose from {sorted(variants)}")
