r"""The files drmath reads and writes: guards (kind, size, depth, modes and waiting) and atomic writes.

Every input path (scenario TOML, drill CSV) reads through :func:`read_input`, and every
``-o`` output that is a FIFO is opened through :func:`open_stream`, so the limits below hold
everywhere and live in one place:

- An input is read only when it is a regular file, or ``-`` for standard input; a FIFO, a
  device (``/dev/zero``), a socket or a directory is refused before it is opened, so no read
  waits for a peer or runs without end. At most :data:`MAX_INPUT_BYTES` are read
  (:data:`MAX_TABLE_BYTES` for a drill CSV), the same for standard input.
- TOML text is scanned before :mod:`tomllib` reads it (:func:`check_toml_depth`): a key of
  more than :data:`MAX_KEY_DEPTH` dotted parts, or arrays and inline tables more than
  :data:`MAX_NESTING` levels within each other, is refused. tomllib's time and memory grow
  with the square of a key's parts (20,000 parts: 6.4 s and 1.6 GB).
- A FIFO named as an output waits at most :data:`FIFO_TIMEOUT` for a reader.
- A file's name, and anything a message quotes from a file, is shown through :func:`visible`: a control
  character in it is written as its escape (``\x1b``), so a name or a cell cannot retitle, clear or write
  the clipboard of the terminal that prints the message, nor reach a page.

- :func:`atomic_write` writes a temporary file beside the target and renames it over the target, so a failed
  run never leaves half a file over a good one. A FIFO or a character device is written through (never
  replaced), a symlink is followed, and anything else that is not a regular file is refused
  (:func:`output_target`).

Errors are ``ValueError`` (or ``OSError`` for an output) whose one-line message starts with the
file's name.

    >>> check_toml_depth("[training]\ngpus = 2048\n", "ok.toml")
    >>> check_toml_depth("a." * 40 + "b = 1\n", "deep.toml")
    Traceback (most recent call last):
    ...
    ValueError: deep.toml: not read: the key 'a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.'… (81 characters) has 41 ...
"""

import errno
import os
import re
import stat
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .._validate import short_repr, visible

STDIN = "-"
"""The input name that means standard input (read with the same ceiling as a file)."""

STDIN_NAME = "<stdin>"
"""What error messages call standard input."""

MAX_INPUT_BYTES = 2**20
"""Largest scenario file read [B] (1 MiB). The largest shipped scenario is under 5 kB, and
tomllib reads 1 MiB of hostile TOML (a million tiny array items) in about 1 s."""

MAX_TABLE_BYTES = 16 * 2**20
"""Largest drill-record CSV read [B] (16 MiB: some 300,000 rows, read and checked in about 2 s)."""

MAX_KEY_DEPTH = 16
"""Most dotted parts in one TOML key or table header [1]. A scenario needs two (``section.field``)."""

MAX_NESTING = 100
"""Most levels of arrays and inline tables within each other in a TOML file [1]; tomllib
itself recurses out at a few hundred."""

FIFO_TIMEOUT = 10.0
"""Longest wait for a reader to open a FIFO named as an output [s]."""

_KINDS = {stat.S_IFDIR: "a directory", stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket"}

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def kind_of(mode):
    """What a file of mode ``mode`` is, in words ("a FIFO (named pipe)"); "a regular file" for one.

    Parameters
    ----------
    mode : int
        ``st_mode`` of :func:`os.stat`. [1]

    Returns
    -------
    kind : str
        E.g. ``"a directory"``, ``"a character device"``. [1]

    Examples
    --------
    >>> kind_of(os.stat(".").st_mode)
    'a directory'
    """
    if stat.S_ISREG(mode):
        return "a regular file"
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _too_big(name, limit, size=None):
    if size is None:  # read to one byte past the ceiling: its whole size is not known
        return ValueError(f"{name}: cannot read: it is longer than {limit:,} bytes, the most that is read")
    return ValueError(f"{name}: cannot read: it is {size:,} bytes; at most {limit:,} are read")


def read_input(path, limit=None):
    """The bytes of an input file: a regular file, or ``-`` for standard input, up to a ceiling.

    Parameters
    ----------
    path : str or os.PathLike
        The file; the string ``"-"`` (:data:`STDIN`) reads standard input.
    limit : int, optional
        Most bytes read; :data:`MAX_INPUT_BYTES` when omitted. [B]

    Returns
    -------
    data : bytes
        The whole file. [B]

    Raises
    ------
    ValueError
        ``"<path>: cannot read: ..."``: it does not exist or cannot be opened, it is not a
        regular file (a FIFO, a device, a socket, a directory: refused before it is opened, so
        nothing waits or reads without end), or it holds more than ``limit`` bytes.

    Notes
    -----
    The file is checked with :func:`os.stat`, opened with ``O_NONBLOCK`` (so a file swapped for a
    FIFO in between cannot block the open) and checked again with :func:`os.fstat`; then at most
    ``limit + 1`` bytes are read, so a file that grows while it is read is still refused.

    Examples
    --------
    >>> read_input(os.devnull)
    Traceback (most recent call last):
    ...
    ValueError: /dev/null: cannot read: it is a character device, not a regular file
    """
    limit = MAX_INPUT_BYTES if limit is None else limit
    if isinstance(path, str) and path == STDIN:
        stream = getattr(sys.stdin, "buffer", sys.stdin)
        if stream is None:
            raise ValueError(f"{STDIN_NAME}: cannot read: there is no standard input")
        data = stream.read(limit + 1)
        data = data.encode("utf-8") if isinstance(data, str) else data
        if len(data) > limit:
            raise _too_big(STDIN_NAME, limit)
        return data
    path = os.fspath(path)
    name = visible(path)
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise ValueError(f"{name}: cannot read: it is {kind_of(mode)}, not a regular file"
                             + (f"; give a file, or {STDIN} to read standard input" if stat.S_ISFIFO(mode) else ""))
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        raise ValueError(f"{name}: cannot read: {exc.strerror or exc}") from None
    with open(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{name}: cannot read: it is {kind_of(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise _too_big(name, limit, info.st_size)
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise ValueError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise _too_big(name, limit)
    return data


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
        TOML text [1]_ (at most :data:`MAX_INPUT_BYTES` long, as :func:`read_input` reads it).
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


def umask():
    """The process's umask, read without changing it where Linux allows (``/proc/self/status``).

    Returns
    -------
    mask : int
        The permission bits a new file does not get, e.g. ``0o022``. [1]

    Examples
    --------
    >>> 0 <= umask() <= 0o777
    True
    """
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # set and put back at once: the only portable way to read it
    os.umask(mask)
    return mask


def open_stream(path, timeout=None):
    """Open a FIFO or character device for writing, waiting at most ``timeout`` for a FIFO's reader.

    Parameters
    ----------
    path : str or os.PathLike
        A FIFO or a character device (``/dev/null``, a terminal).
    timeout : float, optional
        Longest wait for a reader to open a FIFO; :data:`FIFO_TIMEOUT` when omitted. [s]

    Returns
    -------
    fd : int
        A blocking file descriptor open for writing.

    Raises
    ------
    OSError
        Whose ``filename`` is ``path``: it cannot be opened, or (``ETIMEDOUT``) no reader
        opened the FIFO within ``timeout``, so nothing was written.

    Notes
    -----
    ``open(O_WRONLY | O_NONBLOCK)`` on a FIFO fails with ``ENXIO`` while no process has it open
    for reading [1]_, instead of blocking forever; it is tried again every 50 ms until the
    deadline. Once open, the descriptor is made blocking again, so the write waits for the
    reader to drain the pipe as a shell's ``>`` would.

    References
    ----------
    .. [1] The Open Group, POSIX.1-2017, open(): ``O_NONBLOCK`` on a FIFO opened write-only.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> fifo = pathlib.Path(tempfile.mkdtemp()) / "pipe"
    >>> os.mkfifo(fifo)
    >>> open_stream(fifo, timeout=0.1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TimeoutError: [Errno 110] no reader opened the FIFO within 0.1 s: '.../pipe'
    """
    timeout = FIFO_TIMEOUT if timeout is None else timeout
    name = os.fspath(path)
    flags = os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fifo = stat.S_ISFIFO(os.stat(name).st_mode)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, name) from None
    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = os.open(name, flags)
            break
        except OSError as exc:
            if not (fifo and exc.errno == errno.ENXIO):
                raise OSError(exc.errno, exc.strerror, name) from None
            if time.monotonic() >= deadline:
                raise OSError(errno.ETIMEDOUT, f"no reader opened the FIFO within {timeout:g} s", name) from None
            time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
    os.set_blocking(fd, True)
    return fd


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
        :data:`drmath.io.files.FIFO_TIMEOUT` gives a ``TimeoutError``.

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
    blocking (:func:`drmath.io.files.open_stream`), so a pipe that nobody reads
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
    fd = open_stream(target)
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
            os.fchmod(fh.fileno(), stat.S_IMODE(old.st_mode) & 0o777 if old is not None else 0o666 & ~umask())
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
