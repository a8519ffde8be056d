r"""Share links: a scenario as a URL query string, and back.

:func:`to_query` encodes only the fields that differ from the defaults; :func:`from_query` decodes a query string
and *never raises*: anything malformed, oversized, unknown or out of range falls back to the defaults with a
plain-text notice saying why.

    >>> from drmath import Scenario
    >>> s = Scenario().with_changes({"training.gpus": 16_384, "failover.tier": "hot"})
    >>> q = to_query(s)
    >>> q
    'training.gpus=16384&failover.tier=hot'
    >>> from_query(q) == (s, None)
    True
"""

import math
import urllib.parse

from .. import _spread_text, presets
from .. import units as _u
from ..architecture import Architecture
from ..scenario import FIELDS, PREFIX, Scenario
from .scenarios import parse_value, preset_name

__all__ = ["readable", "to_query", "from_query", "VOILA_PARAMETERS", "MAX_QUERY_LENGTH", "MAX_QUERY_FIELDS",
           "MAX_VALUE_LENGTH"]

MAX_QUERY_LENGTH = 2000
"""Longest query string :func:`from_query` reads, in characters."""
MAX_QUERY_FIELDS = len(FIELDS)
"""Most ``key=value`` pairs :func:`from_query` reads."""
MAX_VALUE_LENGTH = 64
"""Longest single value :func:`from_query` reads, in characters."""


def _text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "unset"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


_READABLE = {
    "[s]": (("d", _u.day), ("h", _u.hour), ("min", _u.minute), ("s", 1.0)),
    "[B]": (("PB", _u.PB), ("TB", _u.TB), ("GB", _u.GB), ("MB", _u.MB)),
    "[FLOP/s]": (("PFLOP/s", _u.PFLOP_per_s), ("TFLOP/s", _u.TFLOP_per_s)),
}
_LINK_RATES = (("Tbps", _u.Tbit_per_s), ("Gbps", _u.Gbit_per_s), ("Mbps", _u.Mbit_per_s))
_BYTE_RATES = (("TB/s", _u.TB_per_s), ("GB/s", _u.GB_per_s), ("MB/s", _u.MB_per_s))


def readable(path, value):
    """A share link's text for one value: in a unit people read, and exact.

    Parameters
    ----------
    path : str
        The field, ``section.field``.
    value : object
        Its value (SI number, bool, str or None).

    Returns
    -------
    text : str
        The value in the largest unit that reads back exactly through :func:`parse_value`
        (``200Gbps``, ``1h``, ``7TB/s``; network links in bits, storage in bytes); else a
        preset's name; else the SI number (``repr``, exact).

    Examples
    --------
    >>> from drmath.units import Gbit_per_s, hour
    >>> readable("replication.link_bandwidth", 200 * Gbit_per_s), readable("replication.interval", hour)
    ('200Gbps', '1h')
    >>> readable("failures.gpu_failure_rate", 1e-8), readable("training.gpus", 4096)
    ('1e-08', '4096')
    """
    if isinstance(value, float) and math.isfinite(value) and value > 0:
        unit = FIELDS[path].unit
        steps = (_LINK_RATES if "link" in path else _BYTE_RATES) if unit == "[B/s]" else _READABLE.get(unit, ())
        for name, factor in steps:
            number = value / factor
            if number < 1:
                continue
            digits = repr(number)
            digits = digits[:-2] if digits.endswith(".0") else digits
            text = digits + name
            if len(digits) <= 8 and "e" not in digits and parse_value(path, text) == value:
                return text  # the largest unit that reads back exactly
    name = preset_name(path, value)
    if name is not None:
        return name
    return _text(value)


def to_query(scenario, base=None):
    """Encode a scenario as a URL query string of the fields that differ from ``base``.

    Parameters
    ----------
    scenario : Scenario
        The inputs to share.
    base : Scenario, optional
        What the link is relative to; the defaults when omitted.

    Returns
    -------
    query : str
        ``section.field=value`` pairs [1]_ joined by ``&`` (no leading ``?``), in
        field order; empty when nothing differs. Values are in readable units
        (``200Gbps``, ``1h``: :func:`readable`) where that is exact, else ``repr``
        of the SI float, so :func:`from_query` restores them exactly. Links of
        older versions, all in SI, still read.

    References
    ----------
    .. [1] T. Berners-Lee et al., RFC 3986, §3.4 "Query"; WHATWG URL Standard, application/x-www-form-urlencoded.

    Examples
    --------
    >>> from drmath import Scenario
    >>> to_query(Scenario())
    ''
    >>> to_query(Scenario().with_changes({"replication.link_bandwidth": 5e10, "replication.interval": 600.0}))
    'replication.link_bandwidth=400Gbps&replication.interval=10min'
    >>> from_query("replication.link_bandwidth=50000000000.0")[0].replication.link_bandwidth  # an older link
    50000000000.0
    >>> to_query(Scenario().with_changes({"training.model": "mixtral-8x7b"}))  # a preset by name
    'training.model=mixtral-8x7b'
    """
    if not isinstance(scenario, Scenario):
        raise TypeError(f"scenario must be a Scenario, got {type(scenario).__name__}")
    base = Scenario() if base is None else base
    model = scenario.training.model
    preset = model is not None and presets.MODELS.get(model.name) == model  # a link names a preset, not its counts
    pairs = [(MODEL_KEY, model.name)] if preset and model != base.training.model else []
    pairs += [(path, readable(path, scenario.get(path))) for path in FIELDS
              if scenario.get(path) != base.get(path) and not (preset and path in _COUNTED)]
    pairs += [(PREFIX + path, "unset" if spread is None else _spread_text.query_text(spread))
              for path in FIELDS if (spread := scenario.uncertainty.get(path)) != base.uncertainty.get(path)]
    return urllib.parse.urlencode(pairs, safe=".-:/,")


def _printable(text, limit=40):
    """Hostile text made safe to show: printable ASCII only, shortened, quoted."""
    clean = "".join(ch if 32 <= ord(ch) < 127 and ch not in "<>&`" else "?" for ch in str(text))
    return "'" + (clean[:limit] + "..." if len(clean) > limit else clean) + "'"


MODEL_KEY = "training.model"
"""The link's key for a model preset by name (``training.model=mixtral-8x7b``): its architecture sets the counts of
:data:`_COUNTED`, which the link then leaves out. An architecture read from a ``config.json`` has no name a link
can carry; its link carries the two counts, which give the same plan."""
_COUNTED = ("training.params", "training.active_share")


VOILA_PARAMETERS = ("voila-template", "voila-theme", "token")
"""Query keys of a page's link that belong to Voilà, not to the scenario (the dashboard and the
server's busy page both read links with ``ignore=VOILA_PARAMETERS``)."""


def from_query(query, base=None, ignore=()):
    """Decode a share link's query string into a scenario; never raises.

    Parameters
    ----------
    query : str
        The query string [1]_, with or without a leading ``?`` (a whole URL is
        also accepted: only the part after ``?`` is read).
    base : Scenario, optional
        What the link is relative to; the defaults when omitted.
    ignore : sequence of str, default ()
        Keys to skip silently (e.g. a server's own parameters).

    Returns
    -------
    scenario : Scenario
        The decoded scenario, or ``base`` if anything was wrong.
    notice : str or None
        None when the link was used; else one plain-text sentence saying why it
        was not (safe to show: printable ASCII, quoted, shortened; still
        escape it for HTML).

    Notes
    -----
    All or nothing, like every input boundary of drmath: a link with one bad
    pair restores nothing. Refused: more than :data:`MAX_QUERY_LENGTH`
    characters or :data:`MAX_QUERY_FIELDS` pairs, a value over
    :data:`MAX_VALUE_LENGTH`, a pair without ``=``, a repeated or unknown key,
    and any value :class:`~drmath.Scenario` rejects.

    References
    ----------
    .. [1] T. Berners-Lee et al., RFC 3986, §3.4 "Query"; WHATWG URL Standard, application/x-www-form-urlencoded.

    Examples
    --------
    >>> s, notice = from_query("?training.gpus=4096&checkpoint.interval=10%20min")
    >>> s.training.gpus, s.checkpoint.interval, notice
    (4096, 600.0, None)
    >>> s, notice = from_query("training.gpus=-1")
    >>> s.training.gpus
    8000
    >>> print(notice)  # doctest: +NORMALIZE_WHITESPACE
    This link's settings were not used (training.gpus = -1.0 is out of range: must be a whole number in
    [1, 1e+07]); showing the default scenario.
    """
    base = Scenario() if base is None else base
    try:
        return _decode(query, base, ignore), None
    except _Refused as exc:
        reason = str(exc)
    except (ValueError, TypeError) as exc:
        reason = _printable(str(exc), 160)[1:-1]
    except Exception as exc:  # never a traceback: a link is untrusted input
        reason = f"unexpected {type(exc).__name__}"
    where = "the default scenario" if base == Scenario() else "the scenario as it was"
    return base, f"This link's settings were not used ({reason}); showing {where}."


class _Refused(Exception):
    pass


def _decode(query, base, ignore):
    if not isinstance(query, str):
        raise _Refused(f"the query is a {type(query).__name__}, not text")
    if len(query) > MAX_QUERY_LENGTH:
        raise _Refused(f"the query is {len(query):,} characters long; at most {MAX_QUERY_LENGTH:,} are read")
    if "?" in query:
        query = query.split("?", 1)[1]
    query = query.split("#", 1)[0].strip()
    if not query:
        return base
    raw = [part for part in query.split("&") if part]
    if len(raw) > MAX_QUERY_FIELDS:
        raise _Refused(f"it has {len(raw)} settings; at most {MAX_QUERY_FIELDS} are read")
    changes = {}
    for part in raw:
        if "=" not in part:
            raise _Refused(f"{_printable(urllib.parse.unquote(part))} is not a key=value pair")
        key, text = (urllib.parse.unquote_plus(x, errors="strict") for x in part.split("=", 1))
        if key in ignore:
            continue
        spread = key.startswith(PREFIX) and key[len(PREFIX):] in FIELDS
        if key == MODEL_KEY:
            if key in changes:
                raise _Refused(f"{key} is given twice")
            if not isinstance(presets.MODELS.get(text), Architecture):
                names = ", ".join(n for n, m in presets.MODELS.items() if isinstance(m, Architecture))
                raise _Refused(f"{key} = {_printable(text)} is not a model preset (one of {names})")
            changes[key] = text
            continue
        if key not in FIELDS and not spread:
            raise _Refused(f"unknown setting {_printable(key)}")
        if key in changes:
            raise _Refused(f"{key} is given twice")
        if len(text) > MAX_VALUE_LENGTH:
            raise _Refused(f"the value of {key} is {len(text)} characters long; at most {MAX_VALUE_LENGTH}")
        if not text.isprintable():
            raise _Refused(f"the value of {key} holds control characters")
        if spread:
            changes[key] = _spread_text.from_query_text(key[len(PREFIX):], text, parse_value)
            continue
        value = parse_value(key, text)
        if isinstance(value, float) and not math.isfinite(value):
            raise _Refused(f"{key} = {_printable(text)} is not finite")
        changes[key] = value
    return base.with_changes(changes)
