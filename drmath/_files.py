r"""Guards for the files drmath reads (private): how deep a TOML file's keys and nesting go.

TOML text is scanned before :mod:`tomllib` reads it (:func:`check_toml_depth`): a key of more
than :data:`MAX_KEY_DEPTH` dotted parts, or arrays and inline tables more than
:data:`MAX_NESTING` levels within each other, is refused. tomllib's time and memory grow with
the square of a key's parts (20,000 parts: 6.4 s and 1.6 GB).

Errors are ``ValueError`` whose one-line message starts with the file's name.

    >>> check_toml_depth("[training]\ngpus = 2048\n", "ok.toml")
    >>> check_toml_depth("a." * 40 + "b = 1\n", "deep.toml")
    Traceback (most recent call last):
    ...
    ValueError: deep.toml: not read: the key 'a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.'… (81 characters) has 41 ...
"""

import re

import numpy as np

from ._validate import short_repr

MAX_KEY_DEPTH = 16
"""Most dotted parts in one TOML key or table header [1]. A scenario needs two (``section.field``)."""

MAX_NESTING = 100
"""Most levels of arrays and inline tables within each other in a TOML file [1]; tomllib
itself recurses out at a few hundred."""


# The text a TOML depth scan must skip (comments and strings, where dots and brackets mean nothing), and a
# key of more than MAX_KEY_DEPTH parts once strings are replaced by "_". Quantifiers are possessive, so a
# long word or string is scanned once, never backtracked over.
_SKIP = re.compile(r'''\#[^\n]*+|"""(?:[^"\\]|\\[\s\S]|"(?!""))*+"""(?:"{0,2})|\'\'\'[\s\S]*?\'\'\'(?:'{0,2})'''
                   r'''|"(?:[^"\\\n]|\\.)*+"|'[^'\n]*+\'''')
_ATOM = r"[A-Za-z0-9_+-]++"
_LONG_KEY = re.compile(rf"(?<![A-Za-z0-9_+-]){_ATOM}(?:[ \t]*+\.[ \t]*+{_ATOM}){{{MAX_KEY_DEPTH},}}")
_STEP = np.zeros(256, dtype=np.int64)
_STEP[[ord("["), ord("{")]], _STEP[[ord("]"), ord("}")]] = 1, -1


def _blank(match):
    """A comment or a string, replaced by one key character and the newlines it spans (so lines still count)."""
    text = match.group()
    return "" if text.startswith("#") else "_" + "\n" * text.count("\n")


def check_toml_depth(text, source):
    """Refuse TOML whose keys or nesting are too deep, before :mod:`tomllib` reads it.

    Parameters
    ----------
    text : str
        TOML text [1]_.
    source : str
        What to call the text in the message (a file name).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        ``"<source>: not read: the key ... has N parts; at most 16 are read (line L)"`` for a
        dotted key or table header of more than :data:`MAX_KEY_DEPTH` parts, or ``"<source>: not
        valid TOML: nested too deeply ..."`` for arrays or inline tables more than
        :data:`MAX_NESTING` levels within each other.

    Notes
    -----
    Comments and strings (all four TOML kinds) are blanked first, so dots and brackets inside
    them count for nothing; a number or date has at most two dotted parts, so only keys can
    reach the limit. tomllib builds every prefix of a dotted key, so its time and memory grow
    with the square of the parts: 20,000 parts took 6.4 s and 1.6 GB. The scan takes
    well under 0.2 s per MiB.

    References
    ----------
    .. [1] T. Preston-Werner et al., "TOML v1.0.0", https://toml.io/en/v1.0.0 (keys, strings, arrays).

    Examples
    --------
    >>> check_toml_depth('[scenario]\\nsources = ["a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s"]  # x.y.z\\n', "ok.toml")
    >>> check_toml_depth("x = " + "[" * 101 + "]" * 101, "deep.toml")
    Traceback (most recent call last):
    ...
    ValueError: deep.toml: not valid TOML: nested too deeply (101 levels of arrays or inline tables; at most 100 ...
    """
    blanked = _SKIP.sub(_blank, text)
    key = _LONG_KEY.search(blanked)
    if key is not None:
        parts = len(re.findall(r"\.", key.group()))
        line = blanked.count("\n", 0, key.start()) + 1
        shown = short_repr(re.sub(r"[ \t]+", "", key.group()), 40)
        raise ValueError(f"{source}: not read: the key {shown} has {parts + 1:,} parts; at most {MAX_KEY_DEPTH} are "
                         f"read (line {line})")
    if len(blanked) <= MAX_NESTING:
        return
    depth = np.cumsum(_STEP[np.frombuffer(blanked.encode("utf-8"), dtype=np.uint8)])
    deepest = int(np.argmax(depth))
    if depth[deepest] > MAX_NESTING:
        line = blanked.encode("utf-8").count(b"\n", 0, deepest) + 1
        raise ValueError(f"{source}: not valid TOML: nested too deeply ({int(depth[deepest]):,} levels of arrays or "
                         f"inline tables; at most {MAX_NESTING} are read) (line {line})")
