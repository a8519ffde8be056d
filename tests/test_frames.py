"""drmath.serve.frames: every frame a page sends is read within its own length, or refused (issue 19).

Pure checks, no server: ``tests/test_hostile_frames.py`` sends the same frames to a real one.
"""

import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1

from drmath.serve.frames import V1, FrameError, Message, check_frame

HEADER = {"msg_id": "m1", "msg_type": "comm_msg", "session": "s", "username": "", "version": "5.3"}


def v1(channel="shell", header=HEADER, parts=None, buffers=()):
    parts = parts or [json.dumps(header).encode(), b"{}", b"{}", b'{"comm_id": "c", "data": {}}']
    return serialize_msg_to_ws_v1([*parts, *buffers], channel)


def legacy(channel="shell", header=HEADER):
    return json.dumps({"channel": channel, "header": header, "parent_header": {}, "metadata": {}, "content": {}})


def test_a_page_message_passes_with_what_it_is():
    frame = v1(buffers=[b"\x00" * 10])
    assert check_frame(frame, V1) == Message("shell", "m1", "comm_msg", len(frame))
    assert check_frame(legacy("control"), None) == Message("control", "m1", "comm_msg", len(legacy("control")))


@pytest.mark.parametrize("count", [10**6, 2 * 10**7, 10**9, 2**63, 2**64 - 1])
def test_a_v1_count_beyond_the_frame_is_refused_at_once(count):
    frame = count.to_bytes(8, "little") + bytes(8)
    with pytest.raises(FrameError, match=f"declares {count} offsets but its 16 bytes hold at most 1"):
        check_frame(frame, V1)


@pytest.mark.parametrize("count", [10**6, 10**7, 3 * 10**7, 10**9, 2**31 - 1])
def test_a_legacy_part_count_beyond_the_frame_is_refused(count):
    with pytest.raises(FrameError, match=f"declares {count} parts but its 64 bytes hold at most 15"):
        check_frame(struct.pack("!i", count) + bytes(60), None)


def test_legacy_binary_frames_are_refused_even_when_well_formed():
    body = json.dumps({"header": HEADER, "parent_header": {}, "metadata": {}, "content": {}}).encode()
    frame = struct.pack("!i", 1) + struct.pack("!I", 8) + body
    with pytest.raises(FrameError, match="legacy binary frames are refused"):
        check_frame(frame, None)


@pytest.mark.parametrize("frame, protocol, match", [
    (b"{bad json", V1, "declares 8030879247887327867 offsets"),
    ("{bad json", None, "legacy frame is not JSON"),
    ("[1, 2]", None, "legacy frame is not a JSON object"),
    ("text on v1", V1, "v1 frame is text, not binary"),
    (b"\x01", V1, "has no offset count"),
    (b"\x01\x02", None, "has no part count"),
    (v1(parts=[b"{nope", b"{}", b"{}", b"{}"]), V1, "header is not JSON"),
    (v1(parts=[json.dumps(HEADER).encode(), b"[]", b"{}", b"{}"]), V1, "parent_header is not a JSON object"),
    (v1(parts=[json.dumps(HEADER).encode(), b"{}", b"{}", b"\xff\xfe"]), V1, "content is not JSON"),
    (v1(channel="iopub"), V1, "channel 'iopub' is not one a page may send on"),
    (v1(header={"msg_type": "comm_msg"}), V1, "header has no msg_id or msg_type"),
    (legacy(header={"msg_id": "x", "msg_type": 7}), None, "header has no msg_id or msg_type"),
    (legacy(channel="nope"), None, "channel 'nope'"),
])
def test_malformed_frames_are_refused_with_a_reason(frame, protocol, match):
    with pytest.raises(FrameError, match=match):
        check_frame(frame, protocol)


def test_offsets_that_run_backwards_or_past_the_end_are_refused():
    frame = bytearray(v1())
    frame[16:24] = (10**6).to_bytes(8, "little")  # the channel's end, far past the frame
    with pytest.raises(FrameError, match="offsets decrease or run past"):
        check_frame(bytes(frame), V1)
    frame = bytearray(v1())
    frame[8:16] = (9).to_bytes(8, "little")  # the first offset inside the offset table
    with pytest.raises(FrameError, match="first offset 9 is not its header's end"):
        check_frame(bytes(frame), V1)


def test_a_v1_frame_needs_the_four_parts_of_a_message():
    with pytest.raises(FrameError, match="has 2 parts, fewer than a message's 4"):
        check_frame(serialize_msg_to_ws_v1([b"{}", b"{}"], "shell"), V1)


@settings(max_examples=2000, deadline=None)
@given(st.binary(max_size=200), st.sampled_from([V1, None]))
def test_any_bytes_are_read_or_refused_never_anything_else(frame, protocol):
    try:
        message = check_frame(frame, protocol)
    except FrameError:
        return
    assert message.channel in {"shell", "control", "stdin"}


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=2**64 - 1), st.binary(max_size=64))
def test_any_declared_v1_count_is_checked_against_the_length(count, tail):
    frame = count.to_bytes(8, "little") + tail
    if 8 * (count + 1) > len(frame):
        with pytest.raises(FrameError, match="hold at most"):
            check_frame(frame, V1)
