r"""Scenario files (TOML) and the values in them.

:func:`load` reads a TOML file into a validated :class:`~drmath.Scenario`; :func:`save` writes one back,
atomically (:func:`drmath.io.files.atomic_write`). A file holds ``[section]`` tables of ``field = value`` in SI
(s, B, B/s, 1/s, USD). Values may also be written with a unit (``link_bandwidth = "400 Gbps"``,
``window = "90 days"``) or as a preset name (``gpu_failure_rate = "rsc-1"``). An optional ``[scenario]`` table
holds ``name``, ``description`` and ``sources`` for people; the model ignores it. A bad file raises
:class:`ScenarioFileError` (a ``ValueError``) whose message names the file, the field and, where TOML gives one,
the line. The round trip ``load(save(s)) == s`` is exact: floats are written with ``repr``.

    >>> from drmath import Scenario
    >>> s = Scenario().with_changes({"training.gpus": 16_384, "failover.tier": "hot"})
    >>> loads(dumps(s)) == s
    True
"""

import datetime
import os
import re
from pathlib import Path

from .. import _resources, _spread_text, presets
from .._validate import clip, short_repr
from ..scenario import FIELDS, MODEL, SECTIONS, Scenario
from ..units import parse_quantity
from . import files

__all__ = ["seed", "ScenarioFileError", "load", "loads", "load_with_meta", "save", "dumps", "read_meta", "parse_value",
           "preset_name", "shipped_scenarios", "SCENARIO_DIR", "META", "META_TYPES"]

SCENARIO_DIR = _resources.scenario_dir()
"""Where the shipped scenario files live: ``data/scenarios/*.toml`` at the repository's root, copied into the
package when a wheel is built (:func:`drmath._resources.scenario_dir`)."""

META = "scenario"
"""The TOML table for people (name, description, sources); the model ignores it."""

META_TYPES = {"name": (str, "text"), "description": (str, "text"), "sources": (list, "a list of text"),
              "date": (datetime.date, "a TOML date (date = 2025-05-26)")}
"""The documented keys of the ``[scenario]`` table and their types; other keys are kept as they are. ``date`` is
the day the scenario's run starts (where its drill schedule starts), read as a :class:`datetime.date`."""

BOM = "\ufeff"
"""A UTF-8 byte-order mark, as some editors write it at the start of a file; it is skipped."""


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
    if path == MODEL or not isinstance(value, str):  # training.model: a preset name or a table, read by the Scenario
        return value
    info = FIELDS[path]
    text = value.strip()
    if path == "training.params" and text in presets.MODELS:  # a mixture of experts' name: the Scenario says why not
        return text
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
        :data:`drmath.io.files.MAX_KEY_DEPTH` dotted parts), unknown section or
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
    drmath.io.scenarios.ScenarioFileError: bad.toml: training.mfu = 2 is out of range: must be in [0.01, 1] (line 2)
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
        files.check_toml_depth(text, source)  # before tomllib, whose time grows with the square of a key's parts
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

    The file must be a regular file of at most :data:`drmath.io.files.MAX_INPUT_BYTES`, or ``"-"``
    for standard input (called ``<stdin>``); every failure is a :class:`ScenarioFileError`.
    """
    source = files.STDIN_NAME if isinstance(path, str) and path == files.STDIN else os.fspath(path)
    try:
        raw = files.read_input(path)
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
        :data:`drmath.io.files.MAX_INPUT_BYTES` bytes, or the string ``"-"`` for standard
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


def answer():
    """The worked answer's design: the seed solved (:func:`drmath.answer.worked_answer`), as shipped.

    ``data/scenarios/answer.toml`` holds the design :func:`drmath.solve` finds for :func:`seed`, written by
    ``data/make_answer.py`` and checked against a fresh search by the tests, so it is that design read in
    milliseconds instead of searched for a second. The dashboard and the served page open on it.

    Returns
    -------
    scenario : Scenario
        The solved design, validated: the seed's inputs and targets, with the searched levers set. [1]

    Examples
    --------
    >>> a = answer()
    >>> a.failover.tier, a.requirements == seed().requirements
    ('warm', True)
    """
    return load(SCENARIO_DIR / "answer.toml")


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
        if section == "training" and fields.get("model") is not None:  # the counts follow from the architecture
            fields = {k: v for k, v in fields.items() if k not in ("params", "active_share")}
            model = scenario.training.model
            named_model = presets.MODELS.get(model.name)
            fields["model"] = model.name if named_model == model else \
                {k: v for k, v in fields["model"].items() if v is not None and v != ""}
        for name, value in fields.items():
            if name == "model":
                data[section][name] = value
                continue
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
        Where to write the TOML [1]_ (through :func:`drmath.io.files.atomic_write`).
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
    return files.atomic_write(path, dumps(scenario, meta))


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
