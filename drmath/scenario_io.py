r"""Scenario files (TOML), atomic writes, and share links (URL query strings).

Three edges of the model, all thin: nothing here derives a number.

- **Scenario files.** :func:`load` reads a TOML file into a validated
  :class:`~drmath.Scenario`; :func:`save` writes one back, atomically. A file
  holds ``[section]`` tables of ``field = value`` in SI (s, B, B/s, 1/s, USD).
  Values may also be written with a unit (``link_bandwidth = "400 Gbps"``,
  ``window = "90 days"``) or as a preset name
  (``gpu_failure_rate = "rsc-1"``). An optional ``[scenario]`` table holds
  ``name``, ``description`` and ``sources`` for people; the model ignores it.
  A bad file raises :class:`ScenarioFileError` (a ``ValueError``) whose message
  names the file, the field and, where TOML gives one, the line. The round
  trip ``load(save(s)) == s`` is exact: floats are written with ``repr``.
- **Atomic writes.** :func:`atomic_write` writes a temporary file beside the
  target and renames it over the target, so a failed run never leaves half a
  file over a good one.
- **Share links.** :func:`to_query` encodes only the fields that differ from
  the defaults; :func:`from_query` decodes a query string and *never raises*:
  anything malformed, oversized, unknown or out of range falls back to the
  defaults with a plain-text notice saying why.

    >>> from drmath import Scenario
    >>> s = Scenario().with_changes({"training.gpus": 16_384, "failover.tier": "hot"})
    >>> q = to_query(s)
    >>> q
    'training.gpus=16384&failover.tier=hot'
    >>> from_query(q) == (s, None)
    True
    >>> loads(dumps(s)) == s
    True
"""

import math
import os
import re
import tempfile
import urllib.parse
from pathlib import Path

from .scenario import FIELDS, SECTIONS, Scenario
from .units import parse_quantity

__all__ = [
    "ScenarioFileError", "load", "loads", "save", "dumps", "read_meta", "parse_value",
    "atomic_write", "to_query", "from_query", "shipped_scenarios", "SCENARIO_DIR",
    "MAX_QUERY_LENGTH", "MAX_QUERY_FIELDS", "MAX_VALUE_LENGTH",
]

SCENARIO_DIR = Path(__file__).resolve().parent.parent / "data" / "scenarios"
"""Where the shipped scenario files live (``data/scenarios/*.toml``)."""

META = "scenario"
"""The TOML table for people (name, description, sources); the model ignores it."""

MAX_QUERY_LENGTH = 2000
"""Longest query string :func:`from_query` reads [1] (characters)."""
MAX_QUERY_FIELDS = len(FIELDS)
"""Most ``key=value`` pairs :func:`from_query` reads [1]."""
MAX_VALUE_LENGTH = 64
"""Longest single value :func:`from_query` reads [1] (characters)."""


class ScenarioFileError(ValueError):
    """A scenario file that cannot be used: message names the file, field and line.

    Attributes ``path``, ``field`` and ``line`` hold what is known (else None).
    """

    def __init__(self, message, path=None, field=None, line=None):
        super().__init__(message)
        self.path, self.field, self.line = path, field, line


# --------------------------------------------------------------------------- values


def parse_value(path, value):
    """Read one input value for field ``path``: a number, a unit string or a preset name.

    Parameters
    ----------
    path : str
        The field, ``section.field``. [1]
    value : object
        A number, a bool, or text such as ``"400 Gbps"``, ``"90 days"``,
        ``"40%"``, a preset name (``"rsc-1"``) or ``"unset"`` for optional
        fields. Non-text values pass through unchanged. [1]

    Returns
    -------
    value : object
        The value for :meth:`Scenario.with_changes` (SI number, bool, str or None);
        range checks happen there. [1]

    Raises
    ------
    ValueError
        If text cannot be read; the message names the field and its valid range.

    References
    ----------
    .. [1] drmath.units: the SI multipliers and unit names read here (scipy.constants style).

    Examples
    --------
    >>> parse_value("replication.link_bandwidth", "100 Gbps")
    12500000000.0
    >>> parse_value("failures.gpu_failure_rate", "rsc-1")
    'rsc-1'
    >>> parse_value("checkpoint.interval", "unset") is None
    True
    """
    info = FIELDS[path]
    if not isinstance(value, str):
        return value
    text = value.strip()
    if info.optional and text.lower() in ("unset", "none", "null", ""):
        return None
    if info.choices is not None:
        return text
    if info.kind == "flag":
        if text.lower() in ("true", "yes", "1", "on"):
            return True
        if text.lower() in ("false", "no", "0", "off"):
            return False
        raise ValueError(f"{path} = {text!r} is not valid: must be true or false")
    if info.preset and text in info.preset[0]:
        return text
    try:
        return parse_quantity(text)
    except ValueError:
        raise ValueError(f"{path} = {text!r} is not a number: must be {info.range_text()}") from None


# --------------------------------------------------------------------------- TOML


def _field_of(message):
    match = re.search(r"(?:unknown (?:field|section) )?'?\b([a-z_]+)(?:\.([a-z_]+))?\b'?", message)
    if not match:
        return None, None
    return match.group(1), match.group(2)


def _line_of(text, section, name):
    """The 1-based line where ``section.name`` (or the ``[section]`` table) is set, else None."""
    current = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.split("#", 1)[0].strip()
        table = re.match(r"^\[\s*([A-Za-z0-9_.-]+)\s*\]$", stripped)
        if table:
            current = table.group(1)
            if name is None and current == section:
                return number
            continue
        if name is None:
            continue
        if current == section and re.match(rf"^{re.escape(name)}\s*=", stripped):
            return number
        if current is None and re.match(rf"^{re.escape(section)}\s*\.\s*{re.escape(name)}\s*=", stripped):
            return number
        if current is None and re.match(rf"^{re.escape(section)}\s*=\s*\{{.*\b{re.escape(name)}\s*=", stripped):
            return number
    return None


def loads(text, source="<string>"):
    """Read a scenario from TOML text.

    Parameters
    ----------
    text : str
        TOML: ``[section]`` tables of ``field = value``, plus an optional
        ``[scenario]`` table (name, description, sources) that is ignored. [1]
    source : str, default "<string>"
        What to call the text in error messages (a file name). [1]

    Returns
    -------
    scenario : Scenario
        The validated scenario; fields not given keep their defaults. [1]

    Raises
    ------
    ScenarioFileError
        A ``ValueError`` naming ``source``, the field and, where known, the line:
        TOML syntax, unknown section or field, wrong type, out of range.

    References
    ----------
    .. [1] T. Preston-Werner et al., "TOML v1.0.0", https://toml.io/en/v1.0.0 (read with tomllib).

    Examples
    --------
    >>> loads('[training]\\ngpus = 2048\\n[replication]\\nlink_bandwidth = "400 Gbps"\\n').training.gpus
    2048
    >>> loads('[training]\\nmfu = 2\\n', "bad.toml")
    Traceback (most recent call last):
    ...
    drmath.scenario_io.ScenarioFileError: bad.toml: training.mfu = 2 is out of range: must be in [0.01, 1] (line 2)
    """
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        if line is None:
            found = re.search(r"at line (\d+)", str(exc))
            line = int(found.group(1)) if found else None
        raise ScenarioFileError(f"{source}: not valid TOML: {exc}", source, None, line) from None
    data.pop(META, None)
    changes = {}
    try:
        for key, value in data.items():
            if key not in SECTIONS:
                raise ValueError(f"unknown section {key!r}: must be one of {', '.join(SECTIONS)}, or [{META}]")
            if not isinstance(value, dict):
                raise ValueError(f"{key} must be a table ([{key}]), got {type(value).__name__}")
            for name, inner in value.items():
                path = f"{key}.{name}"
                if path in FIELDS:
                    inner = parse_value(path, inner)
                changes[path] = inner
        return Scenario().with_changes(changes)
    except (ValueError, TypeError) as exc:
        section, name = _field_of(str(exc))
        line = _line_of(text, section, name) if section else None
        field = f"{section}.{name}" if name else section
        where = f" (line {line})" if line else ""
        raise ScenarioFileError(f"{source}: {exc}{where}", source, field, line) from None


def load(path):
    """Read a scenario TOML file.

    Parameters
    ----------
    path : str or os.PathLike
        The file. [1]

    Returns
    -------
    scenario : Scenario
        The validated scenario. [1]

    Raises
    ------
    ScenarioFileError
        If the file cannot be read, is not TOML, or holds a bad field; the
        message starts with the file name and names the field and line.

    References
    ----------
    .. [1] T. Preston-Werner et al., "TOML v1.0.0", https://toml.io/en/v1.0.0 (read with tomllib).

    Examples
    --------
    >>> load(SCENARIO_DIR / "seed.toml").training.gpus
    8000
    """
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ScenarioFileError(f"{path}: cannot read: {exc.strerror or exc}", str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioFileError(f"{path}: not valid TOML: not UTF-8 text (byte {exc.start})", str(path)) from None
    return loads(text, str(path))


def read_meta(path):
    """The ``[scenario]`` table of a file: its name, description and sources, for people.

    Parameters
    ----------
    path : str or os.PathLike
        A scenario TOML file. [1]

    Returns
    -------
    meta : dict
        ``name`` (defaults to the file's stem), ``description`` and ``sources``
        (a list of str), plus any other keys of the table. [1]

    References
    ----------
    .. [1] T. Preston-Werner et al., "TOML v1.0.0", https://toml.io/en/v1.0.0.

    Examples
    --------
    >>> read_meta(SCENARIO_DIR / "seed.toml")["name"]
    'Seed: 8,000 H100s, three months'
    """
    import tomllib

    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ScenarioFileError(f"{path}: cannot read its [{META}] table: {exc}", str(path)) from None
    meta = data.get(META, {})
    meta = dict(meta) if isinstance(meta, dict) else {}
    meta.setdefault("name", Path(path).stem)
    meta.setdefault("description", "")
    meta.setdefault("sources", [])
    return meta


def dumps(scenario, meta=None):
    """A scenario as TOML text, every set field in SI; :func:`loads` reads it back exactly.

    Parameters
    ----------
    scenario : Scenario
        The inputs. [1]
    meta : dict, optional
        Written as the ``[scenario]`` table (name, description, sources). [1]

    Returns
    -------
    text : str
        TOML, with a header comment giving the units. [1]

    References
    ----------
    .. [1] T. Preston-Werner et al., "TOML v1.0.0", https://toml.io/en/v1.0.0 (written with tomli_w).

    Examples
    --------
    >>> from drmath import Scenario
    >>> text = dumps(Scenario(), {"name": "seed"})
    >>> 'gpus = 8000' in text and loads(text) == Scenario()
    True
    """
    import tomli_w

    if not isinstance(scenario, Scenario):
        raise TypeError(f"scenario must be a Scenario, got {type(scenario).__name__}")
    data = {}
    if meta:
        data[META] = {str(k): v for k, v in meta.items() if v is not None}
    data.update(scenario.to_dict())
    head = ("# drmath scenario. Units are SI: s, B, B/s, FLOP/s, 1/s for rates, USD (USD/B, USD/s).\n"
            "# Fields left out take drmath's defaults; see drmath.scenario.FIELDS for each one's basis.\n\n")
    return head + tomli_w.dumps(data)


def save(scenario, path, meta=None):
    """Write a scenario to a TOML file, atomically (temporary file, then rename).

    Parameters
    ----------
    scenario : Scenario
        The inputs. [1]
    path : str or os.PathLike
        Where to write. [1]
    meta : dict, optional
        The ``[scenario]`` table: name, description, sources. [1]

    Returns
    -------
    path : pathlib.Path
        The file written. [1]

    References
    ----------
    .. [1] T. Preston-Werner et al., "TOML v1.0.0", https://toml.io/en/v1.0.0 (written with tomli_w).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from drmath import Scenario
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> s = Scenario().with_changes({"training.mfu": 0.35})
    >>> load(save(s, d / "s.toml")) == s
    True
    """
    return atomic_write(path, dumps(scenario, meta))


def shipped_scenarios(directory=None):
    """The scenario files that ship with drmath, by display name (for a picker).

    Parameters
    ----------
    directory : str or os.PathLike, optional
        Where to look; :data:`SCENARIO_DIR` when omitted. [1]

    Returns
    -------
    files : dict of str to pathlib.Path
        ``{name from the file's [scenario] table: path}``, seed first, then by file name. [1]

    References
    ----------
    .. [1] drmath domain reference (shared/domain.md): the source of every number in the files.

    Examples
    --------
    >>> list(shipped_scenarios())[0]
    'Seed: 8,000 H100s, three months'
    """
    directory = SCENARIO_DIR if directory is None else Path(directory)
    paths = sorted(directory.glob("*.toml"), key=lambda p: (p.stem != "seed", p.name))
    return {read_meta(p)["name"]: p for p in paths}


# --------------------------------------------------------------------------- atomic writes


def atomic_write(path, data):
    """Write text or bytes to ``path`` through a temporary file and a rename.

    Parameters
    ----------
    path : str or os.PathLike
        The target; its directory must exist. [1]
    data : str or bytes
        The content (text is written as UTF-8). [1]

    Returns
    -------
    path : pathlib.Path
        The target. [1]

    Notes
    -----
    The temporary file sits in the target's directory (so the rename stays on
    one filesystem, where ``os.replace`` is atomic), is flushed and fsynced,
    then renamed over the target. On any error it is removed and the target
    is untouched.

    References
    ----------
    .. [1] The Open Group, POSIX.1-2017, rename(): the target is replaced atomically; Python ``os.replace``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "x.txt"
    >>> atomic_write(target, "hello").read_text()
    'hello'
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


# --------------------------------------------------------------------------- share links


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


def to_query(scenario, base=None):
    """Encode a scenario as a URL query string of the fields that differ from ``base``.

    Parameters
    ----------
    scenario : Scenario
        The inputs to share. [1]
    base : Scenario, optional
        What the link is relative to; the defaults when omitted. [1]

    Returns
    -------
    query : str
        ``section.field=value`` pairs joined by ``&`` (no leading ``?``), in
        field order; empty when nothing differs. Floats use ``repr``, so
        :func:`from_query` restores them exactly. [1]

    References
    ----------
    .. [1] T. Berners-Lee et al., RFC 3986, §3.4 "Query"; WHATWG URL Standard, application/x-www-form-urlencoded.

    Examples
    --------
    >>> from drmath import Scenario
    >>> to_query(Scenario())
    ''
    >>> to_query(Scenario().with_changes({"replication.link_bandwidth": 5e10}))
    'replication.link_bandwidth=50000000000.0'
    """
    if not isinstance(scenario, Scenario):
        raise TypeError(f"scenario must be a Scenario, got {type(scenario).__name__}")
    base = Scenario() if base is None else base
    pairs = [(path, _text(scenario.get(path))) for path in FIELDS if scenario.get(path) != base.get(path)]
    return urllib.parse.urlencode(pairs, safe=".-:")


def _printable(text, limit=40):
    """Hostile text made safe to show: printable ASCII only, shortened, quoted."""
    clean = "".join(ch if 32 <= ord(ch) < 127 and ch not in "<>&`" else "?" for ch in str(text))
    return "'" + (clean[:limit] + "..." if len(clean) > limit else clean) + "'"


def from_query(query, base=None, ignore=()):
    """Decode a share link's query string into a scenario; never raises.

    Parameters
    ----------
    query : str
        The query string, with or without a leading ``?`` (a whole URL is
        also accepted: only the part after ``?`` is read). [1]
    base : Scenario, optional
        What the link is relative to; the defaults when omitted. [1]
    ignore : sequence of str, default ()
        Keys to skip silently (e.g. a server's own parameters). [1]

    Returns
    -------
    scenario : Scenario
        The decoded scenario, or ``base`` if anything was wrong. [1]
    notice : str or None
        None when the link was used; else one plain-text sentence saying why it
        was not (safe to show: printable ASCII, quoted, shortened; still
        escape it for HTML). [1]

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
    >>> s.training.gpus, notice
    (8000, "This link's settings were not used (training.gpus = -1.0 is out of range: must be a whole number in [1, 1e+07]); showing the default scenario.")
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
        if key not in FIELDS:
            raise _Refused(f"unknown setting {_printable(key)}")
        if key in changes:
            raise _Refused(f"{key} is given twice")
        if len(text) > MAX_VALUE_LENGTH:
            raise _Refused(f"the value of {key} is {len(text)} characters long; at most {MAX_VALUE_LENGTH}")
        if not text.isprintable():
            raise _Refused(f"the value of {key} holds control characters")
        value = parse_value(key, text)
        if isinstance(value, float) and not math.isfinite(value):
            raise _Refused(f"{key} = {_printable(text)} is not finite")
        changes[key] = value
    return base.with_changes(changes)
