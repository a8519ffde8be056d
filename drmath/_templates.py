"""What the report and the comparison share: the Jinja2 environment of their templates, and plain values.

    >>> import numpy as np
    >>> plain(np.float64(1.5)), plain(np.bool_(True)), plain("x")
    (1.5, True, 'x')
"""

import functools

import numpy as np

__all__ = ["templates", "plain"]


@functools.cache
def templates():
    """The Jinja2 environment of the report's templates (package data under ``drmath/data/report``)."""
    import jinja2

    from ._resources import data_file

    return jinja2.Environment(loader=jinja2.FileSystemLoader(data_file("report")), autoescape=True,
                              trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)


def plain(value):
    """A plan value as a Python scalar (numpy scalars become float, int or bool)."""
    return value.item() if isinstance(value, np.generic) else value
