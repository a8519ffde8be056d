r"""Every frame a page sends its kernel websocket, checked before any parser reads it (issue 19).

jupyter_server parses a page's frames trusting what they declare. In the v1 protocol
(``v1.kernel.websocket.jupyter.org``) a frame starts with the number of offsets that follow, and
``deserialize_msg_from_ws_v1`` loops over that number before it looks at the frame's length: 16 bytes
declaring 2e7 offsets blocked the server's event loop for 11 s, and the 9 bytes ``{bad json`` (read as
~7e18 offsets) took it to 3.7 GB. In the legacy protocol a binary frame starts with its number of parts,
and ``deserialize_binary_message`` builds a ``struct`` format string that long, which Python's struct
cache keeps for good (10 million parts: 324 MiB). So the kernel websocket
(:mod:`drmath.serve.websocket`) hands a frame on only once :func:`check_frame` has read it within its
own length:

- **v1** (binary): ``n`` offsets, each 8 bytes little-endian, after the 8-byte count, so
  ``8 (n + 1) <= length``; the first offset is ``8 (n + 1)``, they never decrease, the last is the
  frame's length; the parts are the channel name (``shell``, ``control`` or ``stdin``), then the
  header, parent header, metadata and content, each a JSON object, then any binary buffers;
- **legacy text**: one JSON object with those four objects and a channel;
- **legacy binary**: ``n`` parts, each a 4-byte big-endian offset after the 4-byte count, so
  ``4 (n + 1) <= length``; checked like v1, and then refused all the same: the page speaks v1, and
  nothing it needs sends legacy binary frames.

A frame that fails raises :class:`FrameError`, whose text names what is wrong in a few words (it is
logged, never echoed to the page). The header must carry a string ``msg_id`` and ``msg_type``: the
socket uses them to hold a page to the messages it may queue at its kernel.

Issue 32: a frame that passed those checks could still cost the server, not the kernel. A valid ``comm_msg``
followed by 130,000 empty buffers is 1 MiB (~1.7 KB compressed) and cost the event loop 0.23-0.27 CPU-s (the
offsets read here, jupyter_server's deserialiser, a ZMQ frame per buffer); 1 MiB of ``[[],[],…]`` JSON takes
``json.loads`` 50-100 ms; JSON nested 100,000 deep raised ``RecursionError`` past this check, which aborted
the socket with no close code. So every byte is
bounded before a parser reads it, each bound far above what the dashboard's page sends (measured with Chromium
over a whole session of sliders, buttons, selects and zooms: 49 frames, all on shell, at most 366 B, at most
305 B of JSON, nested at most 3 deep, no buffer; its upload button sends its file as one buffer):

- at most :data:`~drmath.serve.settings.MAX_BUFFERS` buffers, checked on the count before any offset is read;
- a message on ``stdin`` is never the kernel's (:data:`DROPPED_CHANNELS`): the page never answers ``input()``,
  and the kernel never reads what is sent there unasked, so it piled up in the kernel (120 frames: 1,057 MB)
  with nothing to take it off the page's queue; its :class:`Message` says ``allowed=False``, like a type the
  page may not send;
- at most :data:`~drmath.serve.settings.MAX_JSON_BYTES` of JSON (header, parent header, metadata and content
  together, or a whole legacy text frame), checked on the offsets before any JSON is parsed;
- at most :data:`~drmath.serve.settings.MAX_JSON_CONTAINERS` arrays and objects, nested at most
  :data:`~drmath.serve.settings.MAX_JSON_DEPTH` deep, in each JSON part, counted on the bytes before it is parsed
  (deeper JSON is refused, never a ``RecursionError``; a parse builds at most that many objects for the garbage
  collector to walk: 60 KiB of ``[[],[],…]`` cost the running server 32 ms of CPU, 7 ms of it the parse);
- with ``allowed`` message types, a v1 frame of another type is recognised from its header alone: its
  :class:`Message` says ``allowed=False`` and nothing else of it is parsed.

    >>> from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1
    >>> parts = [b'{"msg_id": "a1", "msg_type": "comm_msg"}', b"{}", b"{}", b'{"comm_id": "x"}']
    >>> check_frame(serialize_msg_to_ws_v1(parts, "shell"), V1)
    Message(channel='shell', msg_id='a1', msg_type='comm_msg', size=121, allowed=True)
    >>> check_frame((20_000_000).to_bytes(8, "little") + bytes(8), V1)
    Traceback (most recent call last):
    ...
    drmath.serve.frames.FrameError: v1 frame declares 20000000 offsets but its 16 bytes hold at most 1
"""

import json
import re
import struct
from typing import NamedTuple

from .settings import MAX_BUFFERS, MAX_JSON_BYTES, MAX_JSON_CONTAINERS, MAX_JSON_DEPTH

__all__ = ["V1", "CHANNELS", "DROPPED_CHANNELS", "Message", "FrameError", "check_frame"]

V1 = "v1.kernel.websocket.jupyter.org"
"""The websocket subprotocol of Jupyter's v1 kernel wire format."""

CHANNELS = frozenset({"shell", "control", "stdin"})
"""The channels a page may send on (``iopub`` only comes from the kernel)."""

DROPPED_CHANNELS = frozenset({"stdin"})
"""Channels whose messages are never the kernel's: ``stdin`` only answers ``input()``, which the dashboard never
calls (issue 32)."""

_PARTS = ("header", "parent_header", "metadata", "content")
# a JSON string, or an unclosed one to the end: it always matches from a quote and never backtracks (possessive),
# so cutting the strings out of any bytes is linear, valid JSON or not
_STRING = re.compile(rb'"(?:[^"\\]++|\\[\s\S]?)*+"?')
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


class Message(NamedTuple):
    """What a checked frame holds: where it goes and what it is."""

    channel: str
    msg_id: str
    msg_type: str
    size: int  # [B]
    allowed: bool = True  # False: a type (or a channel) the page may not send, of which only the header was parsed


class FrameError(ValueError):
    """A frame a parser must not read: its socket is closed."""


def _depth(data):
    """How deep the JSON ``data`` (bytes) nests, up to ``MAX_JSON_DEPTH + 1``; -1 if its brackets do not pair.

    Strings are cut out (their brackets do not nest), then the brackets alone are peeled a level at a time:
    C-speed work on at most ``MAX_JSON_BYTES``, no object built (64 KiB nested 32 deep: under 1 ms).
    """
    skeleton = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    for depth in range(MAX_JSON_DEPTH + 1):
        if not skeleton:
            return depth
        peeled = skeleton.replace(b"[]", b"").replace(b"{}", b"")
        if len(peeled) == len(skeleton):
            return -1
        skeleton = peeled
    return MAX_JSON_DEPTH + 1


def _object(data, what):
    """``data`` (bytes or str) as a JSON object of at most ``MAX_JSON_CONTAINERS`` arrays and objects nested at most
    ``MAX_JSON_DEPTH`` deep, or :class:`FrameError` naming ``what``; both are checked before it is parsed."""
    raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
    containers = raw.count(b"[") + raw.count(b"{")
    if containers > MAX_JSON_CONTAINERS:
        raise FrameError(f"{what} holds {containers} JSON arrays and objects, over the {MAX_JSON_CONTAINERS} a page "
                         f"sends")
    depth = _depth(raw)
    if depth > MAX_JSON_DEPTH:
        raise FrameError(f"{what} nests deeper than {MAX_JSON_DEPTH}")
    try:
        if depth < 0:  # brackets that do not pair (never parsed: unclosed ones would recurse)
            raise ValueError
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise FrameError(f"{what} is not JSON") from None
    if not isinstance(value, dict):
        raise FrameError(f"{what} is not a JSON object")
    return value


def _channel(channel):
    """``channel`` if a page may send on it, else :class:`FrameError`."""
    if channel not in CHANNELS:
        raise FrameError(f"channel {str(channel)[:20]!r} is not one a page may send on")
    return channel


def _message(channel, header, size, allowed):
    """The :class:`Message` of a frame whose header parsed, or :class:`FrameError`."""
    msg_id, msg_type = header.get("msg_id"), header.get("msg_type")
    if not (isinstance(msg_id, str) and isinstance(msg_type, str) and msg_id and msg_type):
        raise FrameError("header has no msg_id or msg_type")
    ok = channel not in DROPPED_CHANNELS and (not allowed or msg_type in allowed)
    return Message(_channel(channel), msg_id[:200], msg_type[:100], size, ok)


def _offsets(frame, count_size, count, fmt, what, most=None):
    """The ``count`` offsets after a ``count_size``-byte count, checked against the frame's length and, if given,
    against ``most`` (the channel, a message's parts, ``MAX_BUFFERS`` buffers and the end) before any is read."""
    length = len(frame)
    fit = length // count_size - 1
    if count < 1 or count > fit:
        raise FrameError(f"{what} declares {count} {'offsets' if count_size == 8 else 'parts'} "
                         f"but its {length} bytes hold at most {max(fit, 0)}")
    if most is not None and count > most:
        raise FrameError(f"{what} declares {count} offsets, {count - 2 - len(_PARTS)} buffers: a page's message "
                         f"has at most {MAX_BUFFERS}")
    step = count_size
    offsets = [int.from_bytes(frame[step * (i + 1):step * (i + 2)], fmt) for i in range(count)]
    if offsets[0] != step * (count + 1):
        raise FrameError(f"{what}'s first offset {offsets[0]} is not its header's end {step * (count + 1)}")
    if any(b < a for a, b in zip(offsets, offsets[1:])) or offsets[-1] > length:
        raise FrameError(f"{what}'s offsets decrease or run past its {length} bytes")
    return offsets


def _check_v1(frame, allowed):
    if not isinstance(frame, bytes):
        raise FrameError("v1 frame is text, not binary")
    if len(frame) < 8:
        raise FrameError(f"v1 frame of {len(frame)} bytes has no offset count")
    count = int.from_bytes(frame[:8], "little")
    offsets = _offsets(frame, 8, count, "little", "v1 frame", most=2 + len(_PARTS) + MAX_BUFFERS)
    if count < 2 + len(_PARTS):
        raise FrameError(f"v1 frame has {max(count - 2, 0)} parts, fewer than a message's {len(_PARTS)}")
    if offsets[-1] != len(frame):
        raise FrameError(f"v1 frame's last offset {offsets[-1]} is not its length {len(frame)}")
    try:
        channel = _channel(frame[offsets[0]:offsets[1]].decode("utf-8"))
    except UnicodeDecodeError:
        raise FrameError("v1 frame's channel is not UTF-8") from None
    json_bytes = offsets[1 + len(_PARTS)] - offsets[1]
    if json_bytes > MAX_JSON_BYTES:
        raise FrameError(f"v1 frame holds {json_bytes} bytes of JSON, over the {MAX_JSON_BYTES} a page sends")
    part = [frame[offsets[i]:offsets[i + 1]] for i in range(1, 1 + len(_PARTS))]
    message = _message(channel, _object(part[0], _PARTS[0]), len(frame), allowed)
    if message.allowed:  # a type the page may not send is dropped unread: its header says enough
        for data, name in zip(part[1:], _PARTS[1:]):
            _object(data, name)
    return message


def _check_legacy(frame, allowed):
    if isinstance(frame, bytes):
        if len(frame) < 4:
            raise FrameError(f"legacy binary frame of {len(frame)} bytes has no part count")
        _offsets(frame, 4, struct.unpack("!i", frame[:4])[0], "big", "legacy binary frame")
        raise FrameError("legacy binary frames are refused: the page sends v1 frames")
    if len(frame) > MAX_JSON_BYTES:
        raise FrameError(f"legacy frame of {len(frame)} characters is over the {MAX_JSON_BYTES} a page sends")
    message = _object(frame, "legacy frame")
    for name in _PARTS:
        if not isinstance(message.get(name), dict):
            raise FrameError(f"legacy frame's {name} is not a JSON object")
    return _message(message.get("channel", "shell"), message["header"], len(frame), allowed)


def check_frame(frame, protocol, allowed=None):
    """Check one websocket frame of a page before any parser reads it.

    Parameters
    ----------
    frame : bytes or str
        The frame as the websocket received it (binary: bytes; text: str).
    protocol : str or None
        The socket's subprotocol: :data:`V1`, or ``None`` (or ``"legacy"``) for the legacy format.
    allowed : collection of str, optional
        The message types the page may send; a v1 frame of another type (or on a channel of
        :data:`DROPPED_CHANNELS`) is read no further than its header. ``None`` or empty: every type.

    Returns
    -------
    message : Message
        Its channel, ``msg_id``, ``msg_type``, size [B], and whether it may go to the kernel.

    Raises
    ------
    FrameError
        If the frame's declared counts do not fit its length, it holds more than ``MAX_BUFFERS`` buffers or
        ``MAX_JSON_BYTES`` of JSON, its offsets or JSON do not parse, its JSON holds more than
        ``MAX_JSON_CONTAINERS`` arrays and objects or nests deeper than ``MAX_JSON_DEPTH``, its channel is not
        one a page sends on, or it is a legacy binary frame.

    Examples
    --------
    >>> check_frame(b"{bad json", V1)
    Traceback (most recent call last):
    ...
    drmath.serve.frames.FrameError: v1 frame declares 8030879247887327867 offsets but its 9 bytes hold at most 0
    >>> check_frame((10_000_000).to_bytes(4, "big") + bytes(60), None)
    Traceback (most recent call last):
    ...
    drmath.serve.frames.FrameError: legacy binary frame declares 10000000 parts but its 64 bytes hold at most 15
    >>> check_frame('{"channel": "shell", "header": {"msg_id": "1", "msg_type": "kernel_info_request"}, '
    ...             '"parent_header": {}, "metadata": {}, "content": {}}', None).msg_type
    'kernel_info_request'
    """
    return _check_v1(frame, allowed) if protocol == V1 else _check_legacy(frame, allowed)
