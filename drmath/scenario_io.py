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
  file over a good one. A FIFO or a character device is written through (never
  replaced), a symlink is followed, and anything else that is not a regular file
  is refused (:func:`output_target`).
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

import datetime
import errno
import math
import os
import re
import stat
import tempfile
import urllib.parse
from pathlib import Path

from . import _files, _resources, _spread_text
from . import units as _u
from ._validate import clip, short_repr
from .scenario import FIELDS, PREFIX, SECTIONS, Scenario
from .units import parse_quantity

__all__ = ["seed",
    "ScenarioFileError", "load", "loads", "load_with_meta", "save", "dumps", "read_meta", "parse_value", "preset_name",
    "readable", "atomic_write", "output_target", "to_query", "from_query", "shipped_scenarios", "SCENARIO_DIR",
    "MAX_QUERY_LENGTH", "MAX_QUERY_FIELDS", "MAX_VALUE_LENGTH",
]

SCENARIO_DIR = _resources.scenario_dir()
"""Where the shipped scenario files live: ``data/scenarios/*.toml`` at the repository's root, copied into the
package when a wheel is built (:func:`drmath._resources.scenario_dir`)."""

META = "scenario"
"""The TOML table for people (name, description, sources); the model ignores it."""

META_TYPES = {"name": (str, "text"), "description": (str, "text"), "sources": (list, "a list of text"),
              "date": (datetime.date, "a TOML date (date = 2025-05-26)")}
"""The documented keys of the ``[scenario]`` table and their types; other keys are kept as they are. ``date`` is
the day the scenario describes (what its drill promises are judged against), read as a :class:`datetime.date`."""

BOM = "\ufeff"
"""A UTF-8 byte-order mark, as some editors write it at the start of a file; it is skipped."""

MAX_QUERY_LENGTH = 2000
"""Longest query string :func:`from_query` reads, in characters."""
MAX_QUERY_FIELDS = len(FIELDS)
"""Most ``key=value`` pairs :func:`from_query` reads."""
MAX_VALUE_LENGTH = 64
"""Longest single value :func:`from_query` reads, in characters."""


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
        The field, ``section.field``.
    value : object
        A number, a bool, or text such as ``"400 Gbps"``, ``"90 days"``,
        ``"40%"``, a preset name (``"rsc-1"``) or ``"unset"`` for optional
        fields. Non-text values pass through unchanged.

    Returns
    -------
    value : object
        The value for :meth:`Scenario.with_changes` (SI number, bool, str or None);
        range checks happen there.

    Raises
    ------
    ValueError
        If text cannot be read; the message names the field and its valid range.

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
        raise ValueError(f"{path} = {short_repr(text)} is not valid: must be true or false")
    if info.preset and text in info.preset[0]:
        return text
    try:
        return parse_quantity(text)
    except ValueError:
        raise ValueError(f"{path} = {short_repr(text)} is not a number: must be {info.range_text()}") from None


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
        TOML [1]_: ``[section]`` tables of ``field = value``, plus an optional
        ``[scenario]`` table for people that the model ignores; only the types
        of its ``name`` and ``description`` (text) and ``sources`` (a list of
        text) are checked. A leading byte-order mark is skipped.
    source : str, default "<string>"
        What to call the text in error messages (a file name).

    Returns
    -------
    scenario : Scenario
        The validated scenario; fields not given keep their defaults.

    Raises
    ------
    ScenarioFileError
        A ``ValueError`` naming ``source``, the field and, where known, the line:
        TOML syntax (including nesting too deep to read, and keys of more than
        :data:`drmath._files.MAX_KEY_DEPTH` dotted parts), unknown section or
        field, wrong type, out of range. The value is echoed at most ~200
        characters long (:func:`drmath._validate.short_repr`).

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
    return _scenario(_parse(text, source), text, source)


def _scenario(data, text, source):
    """The validated scenario of parsed TOML ``data`` (:func:`loads`); ``text`` gives the lines for errors."""
    data = dict(data)
    changes = {}
    try:
        _check_meta(data.pop(META, {}))
        for key, value in data.items():
            if key == _spread_text.TABLE:
                changes.update(_spread_text.changes_of_table(value, parse_value))
                continue
            if key not in SECTIONS:
                raise ValueError(f"unknown section {key!r}: must be one of {', '.join(SECTIONS)}, "
                                 f"[{_spread_text.TABLE}] or [{META}]")
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
        raise ScenarioFileError(f"{source}: {clip(str(exc), 1000)}{where}", source, field, line) from None


def _parse(text, source):
    """TOML text -> dict; every failure of the parser is a one-line ScenarioFileError naming ``source``."""
    import tomllib

    if text.startswith(BOM):
        text = text[1:]
    try:
        _files.check_toml_depth(text, source)  # before tomllib, whose time grows with the square of a key's parts
    except ValueError as exc:
        raise ScenarioFileError(str(exc), source) from None
    try:
        return tomllib.loads(text)
    except RecursionError:  # tomllib recurses once per level of arrays and inline tables
        raise ScenarioFileError(f"{source}: not valid TOML: nested too deeply "
                                "(arrays or inline tables within each other, hundreds of levels)", source) from None
    except ValueError as exc:  # TOMLDecodeError; also int's 4,300-digit limit, impossible dates
        line = getattr(exc, "lineno", None)
        if line is None:
            found = re.search(r"at line (\d+)", str(exc))
            line = int(found.group(1)) if found else None
        message = clip(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, 300)
        if "integer string conversion" in message:  # int's limit, in Python's words: say it in ours
            message = "an integer has more than 4,300 digits"
        raise ScenarioFileError(f"{source}: not valid TOML: {message}", source, None, line) from None


def _check_meta(meta):
    """Refuse a ``[scenario]`` table that is not a table, or whose documented keys have the wrong type."""
    if not isinstance(meta, dict):
        raise ValueError(f"{META} must be a table ([{META}]), got {type(meta).__name__}")
    for key, (kind, wanted) in META_TYPES.items():
        value = meta.get(key)
        if value is None:
            continue
        if not isinstance(value, kind) or (kind is list and not all(isinstance(v, str) for v in value)):
            raise ValueError(f"{META}.{key} = {short_repr(value)} has the wrong type ({type(value).__name__}): "
                             f"must be {wanted}")
    return meta


def _read_text(path):
    """The text of a scenario file and what to call it, read through the one input guard.

    The file must be a regular file of at most :data:`drmath._files.MAX_INPUT_BYTES`, or ``"-"``
    for standard input (called ``<stdin>``); every failure is a :class:`ScenarioFileError`.
    """
    source = _files.STDIN_NAME if isinstance(path, str) and path == _files.STDIN else os.fspath(path)
    try:
        raw = _files.read_input(path)
    except ValueError as exc:
        raise ScenarioFileError(str(exc), source) from None
    try:
        return raw.decode("utf-8"), source
    except UnicodeDecodeError as exc:
        raise ScenarioFileError(f"{source}: not valid TOML: not UTF-8 text (byte {exc.start})", source) from None


def load(path):
    """Read a scenario TOML file.

    Parameters
    ----------
    path : str or os.PathLike
        The file, TOML [1]_ (as :func:`loads` reads it): a regular file of at most
        :data:`drmath._files.MAX_INPUT_BYTES` bytes, or the string ``"-"`` for standard
        input (with the same ceiling).

    Returns
    -------
    scenario : Scenario
        The validated scenario.

    Raises
    ------
    ScenarioFileError
        If the file cannot be read (missing, not a regular file, e.g. a FIFO or
        ``/dev/zero``, or over the size ceiling), is not TOML, or holds a bad
        field; the message starts with the file name and names the field and line.

    References
    ----------
    .. [1] T. Preston-Werner et al., "TOML v1.0.0", https://toml.io/en/v1.0.0 (read with tomllib).

    Examples
    --------
    >>> load(SCENARIO_DIR / "seed.toml").training.gpus
    8000
    """
    text, source = _read_text(path)
    return loads(text, source)


def seed():
    """The seed scenario: drmath's defaults plus the worked answer's requirements.

    ``data/scenarios/seed.toml`` equals :class:`~drmath.Scenario` in every input and adds the targets the
    worked answer starts from (site RPO <= 15 min, site RTO <= 4 h, slip <= 7 days), which ``Scenario()``
    leaves unset. Notebook 00, the dashboard and ``drmath solve`` all start from it, so they give one answer.

    Returns
    -------
    scenario : Scenario
        The seed, validated. [1]

    Examples
    --------
    >>> s = seed()
    >>> s.requirements.rpo_site, s.requirements.rto_site, s.requirements.max_slip
    (900.0, 14400.0, 604800.0)
    >>> s.with_changes({f"requirements.{n}": None for n in ("rpo_site", "rto_site", "max_slip")}) == Scenario()
    True
    """
    return load(SCENARIO_DIR / "seed.toml")


def load_with_meta(path):
    """Read a scenario file once: the scenario and its ``[scenario]`` table.

    Parameters
    ----------
    path : str or os.PathLike
        The file, as :func:`load` reads it (``"-"`` is standard input, which can be read only once).

    Returns
    -------
    scenario : Scenario
        As :func:`load` returns it.
    meta : dict
        As :func:`read_meta` returns it.

    Raises
    ------
    ScenarioFileError
        As :func:`load`.

    Examples
    --------
    >>> s, meta = load_with_meta(SCENARIO_DIR / "seed.toml")
    >>> s.training.gpus, meta["name"]
    (8000, 'Seed: 8,000 H100s, three months')
    """
    text, source = _read_text(path)
    data = _parse(text, source)  # once: a hostile file costs one parse, not two
    return _scenario(data, text, source), _meta(text, source, data)


def read_meta(path):
    """The ``[scenario]`` table of a file: its name, description and sources, for people.

    Parameters
    ----------
    path : str or os.PathLike
        A scenario TOML [1]_ file.

    Returns
    -------
    meta : dict
        ``name`` (defaults to the file's stem), ``description`` and ``sources``
        (a list of str), ``date`` (a :class:`datetime.date`) when the file gives
        one, plus any other keys of the table.

    Raises
    ------
    ScenarioFileError
        If the file cannot be read (as :func:`load`) or is not TOML, or if
        ``[scenario]`` is not a table or its ``name``, ``description`` or
        ``sources`` has the wrong type; the message names the file, the key and the line.

    References
    ----------
    .. [1] T. Preston-Werner et al., "TOML v1.0.0", https://toml.io/en/v1.0.0.

    Examples
    --------
    >>> read_meta(SCENARIO_DIR / "seed.toml")["name"]
    'Seed: 8,000 H100s, three months'
    >>> str(read_meta(SCENARIO_DIR / "seed.toml")["date"])
    '2025-05-26'
    """
    return _meta(*_read_text(path))


def _meta(text, source, data=None):
    """The ``[scenario]`` table of TOML text (parsed already as ``data``, if given), with its defaults."""
    data = _parse(text, source) if data is None else data
    try:
        meta = dict(_check_meta(data.get(META, {})))
    except ValueError as exc:
        line = _line_of(text, META, _field_of(str(exc))[1])
        where = f" (line {line})" if line else ""
        raise ScenarioFileError(f"{source}: {exc}{where}", source, META, line) from None
    meta.setdefault("name", Path(source).stem)
    meta.setdefault("description", "")
    meta.setdefault("sources", [])
    return meta


def preset_name(path, value):
    """The name of the preset whose value ``value`` is, for field ``path``; None if none is.

    Parameters
    ----------
    path : str
        The field, ``section.field``.
    value : object
        Its value, in SI.

    Returns
    -------
    name : str or None
        The first preset of the field's registry (in registry order) whose value equals
        ``value`` exactly, so that writing the name reads back the same number.

    Examples
    --------
    >>> from drmath import presets
    >>> preset_name("failures.gpu_failure_rate", presets.FAILURE_RATES["llama3"].gpu_failure_rate)
    'llama3'
    >>> preset_name("failures.gpu_failure_rate", 1e-8) is None
    True
    """
    info = FIELDS[path]
    if not info.preset or value is None or isinstance(value, (bool, str)):
        return None
    registry, attribute = info.preset
    for name, entry in registry.items():
        try:
            if info.coerce(getattr(entry, attribute)) == value:
                return name
        except (ValueError, TypeError, AttributeError):
            continue
    return None


def dumps(scenario, meta=None):
    """A scenario as TOML text, in SI or by preset name; :func:`loads` reads it back exactly.

    Parameters
    ----------
    scenario : Scenario
        The inputs.
    meta : dict, optional
        Written as the ``[scenario]`` table (name, description, sources, date).

    Returns
    -------
    text : str
        TOML [1]_, with a header comment giving the units. A value that equals a
        preset's is written as the preset's name (``gpu_failure_rate = "llama3"``)
        with its SI value in a comment.

    References
    ----------
    .. [1] T. Preston-Werner et al., "TOML v1.0.0", https://toml.io/en/v1.0.0 (written with tomli_w).

    Examples
    --------
    >>> from drmath import Scenario
    >>> text = dumps(Scenario(), {"name": "seed"})
    >>> 'gpus = 8000' in text and loads(text) == Scenario()
    True
    >>> [line for line in text.splitlines() if line.startswith("gpu_failure_rate")]
    ['gpu_failure_rate = "llama3"  # 5.481337977698474e-09 [1/s]']
    """
    import tomli_w

    if not isinstance(scenario, Scenario):
        raise TypeError(f"scenario must be a Scenario, got {type(scenario).__name__}")
    data = {}
    if meta:
        data[META] = {str(k): v for k, v in meta.items() if v is not None}
    named = {}  # (section, field) -> the SI value a preset name stands for
    for section, fields in scenario.to_dict().items():
        data[section] = {}
        for name, value in fields.items():
            preset = preset_name(f"{section}.{name}", value)
            if preset is not None:
                named[section, name] = value
                value = preset
            data[section][name] = value
    if scenario.uncertainty:
        data[_spread_text.TABLE] = _spread_text.table_of(scenario.uncertainty)
    head = ("# drmath scenario. Units are SI: s, B, B/s, FLOP/s, 1/s for rates, USD (USD/B, USD/s).\n"
            "# Fields left out take drmath's defaults; see drmath.scenario.FIELDS for each one's basis.\n\n")
    lines, section = [], None
    for line in tomli_w.dumps(data).splitlines():
        table = re.match(r"^\[([a-z_]+)\]$", line)
        if table:
            section = table.group(1)
        key = line.split(" = ", 1)[0]
        if (section, key) in named:
            value = named[section, key]
            line += f"  # {value!r} {FIELDS[f'{section}.{key}'].unit}"
        lines.append(line)
    return head + "\n".join(lines) + "\n"


def save(scenario, path, meta=None):
    """Write a scenario to a TOML file, atomically (temporary file, then rename).

    Parameters
    ----------
    scenario : Scenario
        The inputs.
    path : str or os.PathLike
        Where to write the TOML [1]_ (through :func:`atomic_write`).
    meta : dict, optional
        The ``[scenario]`` table: name, description, sources.

    Returns
    -------
    path : pathlib.Path
        The file written.

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
        Where to look; :data:`SCENARIO_DIR` when omitted.

    Returns
    -------
    files : dict of str to pathlib.Path
        ``{name from the file's [scenario] table: path}``, seed first, then by file name.

    Examples
    --------
    >>> list(shipped_scenarios())[0]
    'Seed: 8,000 H100s, three months'
    """
    directory = SCENARIO_DIR if directory is None else Path(directory)
    paths = sorted(directory.glob("*.toml"), key=lambda p: (p.stem != "seed", p.name))
    return {read_meta(p)["name"]: p for p in paths}


# --------------------------------------------------------------------------- atomic writes


_REFUSED = {stat.S_IFDIR: "a directory", stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket"}


def output_target(path):
    """Where :func:`atomic_write` would write ``path``, and how; or why it cannot.

    Parameters
    ----------
    path : str or os.PathLike
        The output the user named (e.g. ``drmath report -o``).

    Returns
    -------
    target : pathlib.Path
        The file written: ``path`` itself, or for a symlink the file it points
        to (made absolute).
    how : {"replace", "stream"}
        ``"replace"`` for a regular file or a new name: a temporary file beside
        it, renamed over it [1]_. ``"stream"`` for a FIFO or a character device
        (``/dev/null``, a terminal): opened and written, never replaced.

    Raises
    ------
    ValueError
        ``"<path>: cannot write: ..."``: its directory does not exist, or it is
        a directory, a block device, a socket or a symlink that loops.

    Notes
    -----
    A symlink is *followed*: the file it points to is written (atomically, if
    it is a regular file) and the link stays a link. Renaming a regular file
    over the link would silently cut it from its target, and a dangling link
    gets its target created, as a shell's ``>`` does. Anything that cannot be
    written safely is refused before any work is done.

    References
    ----------
    .. [1] The Open Group, POSIX.1-2017, rename() and open(); ``stat.S_ISFIFO``, ``stat.S_ISCHR``.

    Examples
    --------
    >>> import tempfile, pathlib, os
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> output_target(d / "plan.html") == (d / "plan.html", "replace")
    True
    >>> os.mkfifo(d / "pipe")
    >>> output_target(d / "pipe")[1]
    'stream'
    >>> output_target(d)
    Traceback (most recent call last):
    ...
    ValueError: ...: cannot write: it is a directory; give a file name
    """
    given = Path(path)
    target = given
    if os.path.islink(given):
        try:
            target = Path(os.path.realpath(given, strict=True))
        except FileNotFoundError:  # a dangling link: write the file it names
            target = Path(os.path.realpath(given))
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise ValueError(f"{given}: cannot write: it is a symlink that loops") from None
            raise
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        parent = target.parent if str(target.parent) else Path(".")
        if not parent.is_dir():
            raise ValueError(f"{given}: cannot write: directory {parent} does not exist") from None
        return target, "replace"
    if stat.S_ISREG(mode):
        return target, "replace"
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return target, "stream"
    kind = _REFUSED.get(stat.S_IFMT(mode), "not a regular file")
    raise ValueError(f"{given}: cannot write: it is {kind}; give a file name")


def atomic_write(path, data):
    """Write text or bytes to ``path`` through a temporary file and a rename.

    Parameters
    ----------
    path : str or os.PathLike
        The target; its directory must exist. A symlink is followed; a FIFO or
        a character device is written through (see :func:`output_target`).
    data : str or bytes
        The content (text is written as UTF-8).

    Returns
    -------
    path : pathlib.Path
        The file written (for a symlink, the file it points to): a regular file is
        replaced by a rename [1]_, so a reader sees the old file or the new, never part.

    Raises
    ------
    ValueError
        If the target cannot be written safely (a directory, a block device, a
        socket, a symlink loop, a missing directory); nothing is written.
    OSError
        If writing fails, with ``filename`` set to ``path`` and a ``strerror``
        that starts "cannot write:" (so every message names the file); a regular
        target is then left as it was. A FIFO that no reader opens within
        :data:`drmath._files.FIFO_TIMEOUT` gives a ``TimeoutError``.

    Notes
    -----
    For a regular file (or a new name) the temporary file sits in the target's
    directory (so the rename stays on one filesystem, where ``os.replace`` is
    atomic), is flushed and fsynced, then renamed over the target. On any error
    it is removed and the target is untouched. A file replaced keeps its
    permission bits (``rw`` for user, group and others) and, where the user may
    set them, its owner and group: a private ``0600`` report stays private. A
    new file gets ``0666`` less the umask, as a shell's ``>`` gives it.

    A FIFO or character device is opened and written instead: renaming over it
    would turn ``-o /dev/null`` into a regular file. A FIFO is opened without
    blocking (:func:`drmath._files.open_stream`), so a pipe that nobody reads
    fails after the timeout instead of hanging.

    References
    ----------
    .. [1] The Open Group, POSIX.1-2017, rename(): the target is replaced atomically; Python ``os.replace``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "x.txt"
    >>> atomic_write(target, "hello").read_text()
    'hello'
    >>> link = target.with_name("link.txt")
    >>> link.symlink_to(target)
    >>> atomic_write(link, "again") == target.resolve(), link.is_symlink(), target.read_text()
    (True, True, 'again')
    """
    target, how = output_target(path)
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    try:
        if how == "stream":
            _write_through(path, target, payload)
        else:
            _replace(target, payload)
    except OSError as exc:  # name the file: "[Errno 28] No space left on device" alone says nothing
        if exc.errno is None:
            raise OSError(f"{path}: cannot write: {exc}") from None
        raise OSError(exc.errno, f"cannot write: {exc.strerror}", os.fspath(path)) from None
    return target


def _write_through(path, target, payload):
    """Write ``payload`` into a FIFO or character device, waiting at most FIFO_TIMEOUT for a FIFO's reader."""
    fd = _files.open_stream(target)
    with open(fd, "wb") as fh:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):  # swapped for a file since the check
            raise ValueError(f"{path}: cannot write: it changed while it was opened")
        fh.write(payload)


def _replace(target, payload):
    """Write ``payload`` to a temporary file beside ``target`` and rename it over; keep an old file's mode and owner."""
    try:
        old = os.stat(target)
    except FileNotFoundError:
        old = None
    fd, tmp = tempfile.mkstemp(dir=target.parent if str(target.parent) else ".", prefix=f".{target.name}.",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            if old is not None:
                now = os.fstat(fh.fileno())
                if (now.st_uid, now.st_gid) != (old.st_uid, old.st_gid):
                    try:  # before the mode: a chown may clear mode bits
                        os.fchown(fh.fileno(), old.st_uid, old.st_gid)
                    except PermissionError:  # only root gives a file away; the mode still holds
                        pass
            os.fchmod(fh.fileno(), stat.S_IMODE(old.st_mode) & 0o777 if old is not None else 0o666 & ~_files.umask())
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


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
    """
    if not isinstance(scenario, Scenario):
        raise TypeError(f"scenario must be a Scenario, got {type(scenario).__name__}")
    base = Scenario() if base is None else base
    pairs = [(path, readable(path, scenario.get(path))) for path in FIELDS if scenario.get(path) != base.get(path)]
    pairs += [(PREFIX + path, "unset" if spread is None else _spread_text.query_text(spread))
              for path in FIELDS if (spread := scenario.uncertainty.get(path)) != base.uncertainty.get(path)]
    return urllib.parse.urlencode(pairs, safe=".-:/,")


def _printable(text, limit=40):
    """Hostile text made safe to show: printable ASCII only, shortened, quoted."""
    clean = "".join(ch if 32 <= ord(ch) < 127 and ch not in "<>&`" else "?" for ch in str(text))
    return "'" + (clean[:limit] + "..." if len(clean) > limit else clean) + "'"


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
