"""drmath.serve.frames: every frame a page sends is read within its own length, or refused (issue 19), and every
byte it holds is bounded before a parser reads it (issue 32).

Pure checks, no server: ``tests/test_hostile_frames.py`` sends the same frames to a real one.
"""

import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1

from drmath.serve.frames import V1, FrameError, Message, check_frame
from drmath.serve.settings import MAX_BUFFERS, MAX_JSON_BYTES, MAX_JSON_CONTAINERS, MAX_JSON_DEPTH

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


# --------------------------------------------------------------------------- issue 32: bounded before parsed

ALLOWED = {"comm_open", "comm_close", "comm_msg", "comm_info_request", "kernel_info_request", "shutdown_request"}
"""Voilà's allowed message types."""


def content(data):
    return [json.dumps(HEADER).encode(), b"{}", b"{}", b'{"comm_id": "c", "data": ' + data + b"}"]


def test_buffers_past_the_bound_are_refused_before_any_offset_is_read():
    assert check_frame(v1(buffers=[b"x"] * MAX_BUFFERS), V1).msg_type == "comm_msg"
    with pytest.raises(FrameError, match=f"{MAX_BUFFERS + 1} buffers: a page's message has at most {MAX_BUFFERS}"):
        check_frame(v1(buffers=[b""] * (MAX_BUFFERS + 1)), V1)
    with pytest.raises(FrameError, match="130000 buffers"):  # 1 MiB, ~1.7 KB compressed: 0.27 CPU-s before
        check_frame(v1(buffers=[b""] * 130_000), V1)


def test_stdin_never_goes_to_the_kernel_the_page_never_answers_input():
    frame = v1(channel="stdin", parts=[json.dumps(HEADER).encode(), b"{}", b"{}", b"{not json"])  # header only
    assert check_frame(frame, V1) == Message("stdin", "m1", "comm_msg", len(frame), allowed=False)
    assert not check_frame(legacy("stdin"), None, ALLOWED).allowed


def test_json_past_its_bytes_or_containers_is_refused_before_it_is_parsed():
    soup = b"[" + b"[]," * (MAX_JSON_BYTES // 3) + b"[]]"  # the costliest JSON per byte
    with pytest.raises(FrameError, match=f"bytes of JSON, over the {MAX_JSON_BYTES} a page sends"):
        check_frame(v1(parts=content(soup)), V1)
    soup = b"[" + b"[]," * MAX_JSON_CONTAINERS + b"[]]"  # 3 KiB: 60 KiB of it cost the server 32 ms
    with pytest.raises(FrameError, match=f"content holds {MAX_JSON_CONTAINERS + 3} JSON arrays and objects, over"):
        check_frame(v1(parts=content(soup)), V1)
    with pytest.raises(FrameError, match="legacy frame holds"):
        check_frame(legacy()[:-1] + ', "x": ' + soup.decode() + "}", None)
    with pytest.raises(FrameError, match=f"over the {MAX_JSON_BYTES} a page sends"):
        check_frame(" " * MAX_JSON_BYTES + legacy(), None)
    assert check_frame(v1(parts=content(b"[]"), buffers=[bytes(900_000)]), V1).size > 900_000  # an upload's file


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 1000, 20_000])
def test_json_nested_past_the_bound_is_refused_never_a_recursion_error(depth):
    refused = f"nests deeper than {MAX_JSON_DEPTH}|arrays and objects, over the {MAX_JSON_CONTAINERS}"
    with pytest.raises(FrameError, match="content " + refused):
        check_frame(v1(parts=content(b"[" * depth + b"]" * depth)), V1)
    frame = legacy()[:-1] + ', "x": ' + "[" * depth + "]" * depth + "}"
    with pytest.raises(FrameError, match="legacy frame " + refused):
        check_frame(frame, None)
    with pytest.raises(FrameError, match="content " + refused + "|content is not JSON"):
        check_frame(v1(parts=content(b"[" * depth)), V1)  # never closed


def test_unclosed_strings_are_read_in_linear_time():
    import time

    for junk in (b'"' + b'\\"' * 20_000, b'"\\' * 20_000):  # every quote starts a string that never closes
        start = time.process_time()
        with pytest.raises(FrameError, match="content is not JSON"):
            check_frame(v1(parts=content(junk)), V1)
        assert time.process_time() - start < 1  # a backtracking pattern takes minutes here; this one ~1 ms


def test_nesting_counts_brackets_outside_strings_only():
    deep = b"[" * (MAX_JSON_DEPTH - 2) + b"]" * (MAX_JSON_DEPTH - 2)  # within the content's own two levels
    assert check_frame(v1(parts=content(deep)), V1).msg_type == "comm_msg"
    brackets = json.dumps("[[[[{{{{" * 20 + '\\"]').encode()  # brackets (and an escaped quote) in a string
    assert check_frame(v1(parts=content(brackets)), V1).msg_type == "comm_msg"


def test_a_type_the_page_may_not_send_is_recognised_from_its_header_alone():
    header = json.dumps({**HEADER, "msg_type": "execute_request"}).encode()
    frame = v1(parts=[header, b"{}", b"{}", b"{not json at all"])
    assert check_frame(frame, V1, ALLOWED) == Message("shell", "m1", "execute_request", len(frame), allowed=False)
    with pytest.raises(FrameError, match="content is not JSON"):  # an allowed type is read whole
        check_frame(v1(parts=[json.dumps(HEADER).encode(), b"{}", b"{}", b"{not json at all"]), V1, ALLOWED)
    assert check_frame(v1(), V1, ALLOWED).allowed
