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

    >>> from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1
    >>> parts = [b'{"msg_id": "a1", "msg_type": "comm_msg"}', b"{}", b"{}", b'{"comm_id": "x"}']
    >>> check_frame(serialize_msg_to_ws_v1(parts, "shell"), V1)
    Message(channel='shell', msg_id='a1', msg_type='comm_msg', size=121)
    >>> check_frame((20_000_000).to_bytes(8, "little") + bytes(8), V1)
    Traceback (most recent call last):
    ...
    drmath.serve.frames.FrameError: v1 frame declares 20000000 offsets but its 16 bytes hold at most 1
"""

import json
import struct
from typing import NamedTuple

__all__ = ["V1", "CHANNELS", "Message", "FrameError", "check_frame"]

V1 = "v1.kernel.websocket.jupyter.org"
"""The websocket subprotocol of Jupyter's v1 kernel wire format."""

CHANNELS = frozenset({"shell", "control", "stdin"})
"""The channels a page may send on (``iopub`` only comes from the kernel)."""

_PARTS = ("header", "parent_header", "metadata", "content")


class Message(NamedTuple):
    """What a checked frame holds: where it goes and what it is."""

    channel: str
    msg_id: str
    msg_type: str
    size: int  # [B]


class FrameError(ValueError):
    """A frame a parser must not read: its socket is closed."""


def _object(data, what):
    """``data`` (bytes or str) as a JSON object, or :class:`FrameError` naming ``what``."""
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise FrameError(f"{what} is not JSON") from None
    if not isinstance(value, dict):
        raise FrameError(f"{what} is not a JSON object")
    return value


def _message(channel, header, size):
    """The :class:`Message` of a frame whose parts parsed, or :class:`FrameError`."""
    if channel not in CHANNELS:
        raise FrameError(f"channel {str(channel)[:20]!r} is not one a page may send on")
    msg_id, msg_type = header.get("msg_id"), header.get("msg_type")
    if not (isinstance(msg_id, str) and isinstance(msg_type, str) and msg_id and msg_type):
        raise FrameError("header has no msg_id or msg_type")
    return Message(channel, msg_id[:200], msg_type[:100], size)


def _offsets(frame, count_size, count, fmt, what):
    """The ``count`` offsets after a ``count_size``-byte count, checked against the frame's length."""
    length = len(frame)
    most = length // count_size - 1
    if count < 1 or count > most:
        raise FrameError(f"{what} declares {count} {'offsets' if count_size == 8 else 'parts'} "
                         f"but its {length} bytes hold at most {max(most, 0)}")
    step = count_size
    offsets = [int.from_bytes(frame[step * (i + 1):step * (i + 2)], fmt) for i in range(count)]
    if offsets[0] != step * (count + 1):
        raise FrameError(f"{what}'s first offset {offsets[0]} is not its header's end {step * (count + 1)}")
    if any(b < a for a, b in zip(offsets, offsets[1:])) or offsets[-1] > length:
        raise FrameError(f"{what}'s offsets decrease or run past its {length} bytes")
    return offsets


def _check_v1(frame):
    if not isinstance(frame, bytes):
        raise FrameError("v1 frame is text, not binary")
    if len(frame) < 8:
        raise FrameError(f"v1 frame of {len(frame)} bytes has no offset count")
    count = int.from_bytes(frame[:8], "little")
    offsets = _offsets(frame, 8, count, "little", "v1 frame")
    if count < 2 + len(_PARTS):
        raise FrameError(f"v1 frame has {max(count - 2, 0)} parts, fewer than a message's {len(_PARTS)}")
    if offsets[-1] != len(frame):
        raise FrameError(f"v1 frame's last offset {offsets[-1]} is not its length {len(frame)}")
    try:
        channel = frame[offsets[0]:offsets[1]].decode("utf-8")
    except UnicodeDecodeError:
        raise FrameError("v1 frame's channel is not UTF-8") from None
    parts = [_object(frame[offsets[i]:offsets[i + 1]], name) for i, name in enumerate(_PARTS, start=1)]
    return _message(channel, parts[0], len(frame))


def _check_legacy(frame):
    if isinstance(frame, bytes):
        if len(frame) < 4:
            raise FrameError(f"legacy binary frame of {len(frame)} bytes has no part count")
        _offsets(frame, 4, struct.unpack("!i", frame[:4])[0], "big", "legacy binary frame")
        raise FrameError("legacy binary frames are refused: the page sends v1 frames")
    message = _object(frame, "legacy frame")
    for name in _PARTS:
        if not isinstance(message.get(name), dict):
            raise FrameError(f"legacy frame's {name} is not a JSON object")
    return _message(message.get("channel", "shell"), message["header"], len(frame))


def check_frame(frame, protocol):
    """Check one websocket frame of a page before any parser reads it.

    Parameters
    ----------
    frame : bytes or str
        The frame as the websocket received it (binary: bytes; text: str).
    protocol : str or None
        The socket's subprotocol: :data:`V1`, or ``None`` (or ``"legacy"``) for the legacy format.

    Returns
    -------
    message : Message
        Its channel, ``msg_id``, ``msg_type`` and size [B].

    Raises
    ------
    FrameError
        If the frame's declared counts do not fit its length, its offsets or JSON do not parse, its channel
        is not one a page sends on, or it is a legacy binary frame.

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
    return _check_v1(frame) if protocol == V1 else _check_legacy(frame)
