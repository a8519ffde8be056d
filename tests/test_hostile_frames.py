"""One hostile visitor must not take the public page down (issue 19), against a real server on loopback.

Each finding of the attack session is a test here, with real websocket frames and real HTTP requests to
``python -m drmath.serve``:

1-2. frames whose declared counts do not fit their length, junk JSON and legacy binary frames close that
     socket only; meanwhile another visitor's requests are answered within 1 s, and the server's RSS grows
     by less than 50 MB (a memory guard kills a server that grows by 1 GB, so a regression fails here
     instead of taking the machine);
3.   frames sent after a socket's end are dropped, and a flood of big messages ends its session;
4.   a kernel id alone opens nothing: the websocket, the kernel API and the shutdown beacon want the
     page's seat; a shutdown from anywhere tells the page at once;
5.   bounded work: a page's queue of unfinished messages, a kernel's CPU budget, a busy kernel whose page
     left, a cross-site request, a page that never opens its websocket;
7.   smaller leaks: the Server header, nosniff, long links in the log, tracebacks of websocket 404s,
     ``/logout``.

Issue 32, one layer further: frames that pass those checks and cost the server instead (130,000 empty buffers
on stdin or shell, 1 MiB dropped ``execute_request`` frames, JSON nested 100,000 deep, the costliest frame a page
may still send) cost it at most 20 ms of CPU each while another visitor is answered within 1 s and no kernel
goes over its memory limit; the watchdog acts while the event loop is held; a socket to a kernel that shut
itself down is refused at once.
"""

import asyncio
import json
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import psutil
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import kernel_ids, run_async, start_voila, stop_voila
from hostile import (
    JUNK_JSON,
    MB,
    MemoryGuard,
    SecondVisitor,
    after_the_attack,
    buffers_frame,
    connect,
    costliest_passing_frame,
    deep_frame,
    dropped_frame,
    legacy_parts_frame,
    measure_flood,
    open_page,
    served,
    v1_message,
    v1_offsets_frame,
    wait_until_quiet,
)
from waiting import until, wait_until

from drmath.serve import sessions

pytestmark = pytest.mark.slow

GRACE, CONNECT = 1, 5  # [s] the server's disconnect grace and connect timeout here (short, to be watched)
CODE = {reason: code for reason, (code, _) in sessions.SESSION_END.items()}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("voila") / "voila.log"
    proc, url, log = start_voila(log, pool_size=1, cull_interval=30, cull_idle_timeout=900, extra=[
        "--max-kernels=8", f"--GraceKernelManager.disconnect_grace={GRACE}",
        f"--GraceKernelManager.connect_timeout={CONNECT}", "--GraceKernelManager.watch_interval=0.5"], figures=False)
    yield {"proc": proc, "url": url, "log": Path(log)}
    stop_voila(proc)


@pytest.fixture(scope="module")
def visitor(server):
    """One visitor's page: ``(kernel id, Cookie header)``; the frame tests open their sockets on its kernel."""
    kernel_id, cookie, _ = open_page(server["url"])
    assert run_async(kernel_info(server["url"], kernel_id, cookie))  # its page connects (else its seat goes back)
    return kernel_id, cookie


def message(msg_type, content, session="hostile"):
    return {"header": {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": session, "username": "",
                       "version": "5.3", "date": "2026-01-01T00:00:00Z"},
            "parent_header": {}, "metadata": {}, "content": content}


def v1_frame(msg, channel="shell"):
    from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1

    return serialize_msg_to_ws_v1([json.dumps(msg[k]).encode() for k in ("header", "parent_header", "metadata",
                                                                         "content")], channel)


async def closed_with(ws, timeout=10):
    """The close code once the server closes ``ws`` (None if it stays open ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    try:
        while await asyncio.wait_for(ws.read_message(), max(deadline - time.monotonic(), 0.01)) is not None:
            pass
    except TimeoutError:
        return None
    return ws.close_code


async def kernel_info(url, kernel_id, cookie, protocol="v1"):
    """A fresh socket's kernel_info_request: True once its reply arrives."""
    from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1

    ws = await connect(url, kernel_id, cookie, protocol)
    msg = message("kernel_info_request", {})
    await ws.write_message(v1_frame(msg), binary=True)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            raw = await asyncio.wait_for(ws.read_message(), deadline - time.monotonic())
            if raw is None:
                return False
            _, parts = deserialize_msg_from_ws_v1(raw)
            if json.loads(parts[1]).get("msg_id") == msg["header"]["msg_id"] and \
                    json.loads(parts[0])["msg_type"] == "kernel_info_reply":
                return True
    finally:
        ws.close()
    return False


def http(url, method="GET", headers=None):
    """``(status, headers, body)``; HTTP errors are returned; redirects are not followed."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    request = urllib.request.Request(url, method=method, headers=headers or {}, data=b"" if method == "POST" else None)
    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=60) as r:
            return r.status, dict(r.headers), r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode(errors="replace")


# --------------------------------------------------------------------------- 1-2. frames checked before parsing

ATTACKS = [pytest.param("v1", v1_offsets_frame(count), True, id=f"v1-offsets-{count:.0e}") for count in (1e6, 2e7, 1e9)]
ATTACKS += [pytest.param("legacy", legacy_parts_frame(count), True, id=f"legacy-parts-{count:.0e}")
            for count in (1e6, 1e7, 3e7, 1e9)]
ATTACKS += [pytest.param("v1", JUNK_JSON, True, id="v1-junk-json"),
            pytest.param("legacy", JUNK_JSON.decode(), False, id="legacy-junk-json"),
            pytest.param("v1", "a text frame on v1", False, id="v1-text")]


@pytest.mark.parametrize("protocol, frame, binary", ATTACKS)
def test_a_hostile_frame_closes_its_socket_and_nothing_else(server, visitor, protocol, frame, binary):
    url, (kernel_id, cookie) = server["url"], visitor
    guard, probe = MemoryGuard(server["proc"].pid, limit=1e9), SecondVisitor(url)
    try:
        wait_until(probe.answered, 30, "the second visitor's first answer")

        async def attack():
            ws = await connect(url, kernel_id, cookie, protocol)
            sent = time.monotonic()
            await ws.write_message(frame, binary=binary)
            return sent, await closed_with(ws)

        sent, code = run_async(attack())
        after_the_attack(probe, server["proc"].pid)
        worst = probe.worst(since=sent)
    finally:
        probe.stop()
        guard.stop()
    assert not guard.killed, f"the server grew by {guard.peak / MB:.0f} MB and was killed"
    assert code == CODE["malformed"]  # that socket only, with the page's notice
    assert worst < 1.0, f"another visitor waited {worst:.2f} s"  # not a benchmark: a frozen loop waits 6-12 s
    assert guard.peak < 50 * MB, f"RSS grew by {guard.peak / MB:.0f} MB"
    assert run_async(kernel_info(url, kernel_id, cookie)), "the visitor's kernel no longer answers"
    assert "cannot be read" in server["log"].read_text()


def test_frames_after_a_sockets_end_are_dropped_unread(server, visitor):
    url, (kernel_id, cookie) = server["url"], visitor
    guard, size = MemoryGuard(server["proc"].pid, limit=1e9), len(server["log"].read_text())
    big = v1_frame(message("comm_msg", {"comm_id": "nowhere", "data": {"x": "y" * 900_000}}))
    try:
        async def flood():
            ws = await connect(url, kernel_id, cookie)
            await ws.write_message(JUNK_JSON, binary=True)  # the socket ends here...
            for _ in range(60):  # ...and 54 MB follow it, already on their way
                try:
                    await ws.write_message(big, binary=True)
                except Exception:  # noqa: BLE001 - the server has closed the socket
                    break
            return await closed_with(ws)

        code = run_async(flood())
        wait_until_quiet(psutil.Process(server["proc"].pid))  # the frames on their way have come and gone
        served(url)
    finally:
        guard.stop()
    assert code == CODE["malformed"]
    assert not guard.killed and guard.peak < 50 * MB, f"RSS grew by {guard.peak / MB:.0f} MB"
    assert server["log"].read_text()[size:].count("cannot be read") == 1  # one frame read: the junk
    assert run_async(kernel_info(url, kernel_id, cookie))


# --------------------------------------------------------------------------- issue 32: frames that pass, at a cost

LIMIT = 300 * MB  # [B] the kernels' memory limit on the costly-frames server: ~2x a kernel that ran the notebook
PER_FRAME = 0.020  # [s] most server CPU per frame that passes the checks (issue 32)
PER_SOCKET = 0.5
"""[s] Most server CPU for a socket refused at its first frame: opened, one frame read, closed. The frames already
in flight are still inflated as they arrive (150 x 1 MiB: 0.28 CPU-s in a clean-clone CI run beside the other
worker); before issue 32 each such frame cost 0.23-0.29 CPU-s, ~40 CPU-s for the 150."""


@pytest.fixture(scope="module")
def costly_server(tmp_path_factory):
    """A server whose kernels may hold 300 MB, watched every 0.5 s. An idle kernel stays 120 s: after a flood its page
    is asked for its kernel again once the server has worked the frames off, which took over the default 10 s in
    a clean CI run (the kernel, culled meanwhile, answered 403)."""
    log = tmp_path_factory.mktemp("voila") / "voila.log"
    proc, url, log = start_voila(log, pool_size=1, cull_interval=30, cull_idle_timeout=120, figures=False, extra=[
        "--max-kernels=8", f"--kernel-memory-limit={int(LIMIT)}", "--GraceKernelManager.watch_interval=0.5"])
    yield {"proc": proc, "url": url, "log": Path(log)}
    stop_voila(proc)


COSTLY = [pytest.param(lambda: buffers_frame("stdin"), 40, CODE["malformed"], id="stdin-130k-buffers"),
          pytest.param(lambda: buffers_frame("shell"), 40, CODE["malformed"], id="shell-130k-buffers"),
          pytest.param(lambda: v1_message(channel="stdin"), 150, CODE["malformed"],
                       id="stdin-comm-msgs"),  # never the kernel's: dropped, and past MAX_DROPPED refused
          pytest.param(dropped_frame, 150, CODE["malformed"], id="dropped-execute-request"),
          pytest.param(deep_frame, 1, CODE["malformed"], id="json-100k-deep"),
          pytest.param(costliest_passing_frame, 60, None, id="costliest-passing")]


@pytest.mark.parametrize("make, count, code", COSTLY)
def test_a_frame_that_passes_the_checks_costs_the_server_little(costly_server, make, count, code):
    url, proc, log = costly_server["url"], costly_server["proc"], costly_server["log"]
    kernel_id, cookie, _ = open_page(url)
    assert run_async(kernel_info(url, kernel_id, cookie))  # its page connects
    size = len(log.read_text())
    row = measure_flood(proc.pid, url, kernel_id, cookie, make(), count)
    assert row["code"] == code, row  # refused: the socket closed with the page's notice; passing: still open
    assert row["worst"] < 1.0, f"another visitor waited {row['worst']:.2f} s"
    if code is None:  # each frame went to the kernel: what each cost the server
        assert row["per_frame"] <= PER_FRAME, f"{row['per_frame'] * 1e3:.0f} ms of server CPU per frame, {row}"
    else:  # refused at its first frame (before: 0.23-0.29 CPU-s per frame, each)
        assert row["cpu"] <= PER_SOCKET, f"{row['cpu']:.2f} server CPU-s for one refused socket, {row}"
    assert row["kernel_peak"] <= LIMIT, f"a kernel reached {row['kernel_peak'] / MB:.0f} MB"
    assert run_async(kernel_info(url, kernel_id, cookie)), "the visitor's kernel no longer answers"
    assert "RecursionError" not in log.read_text()[size:]  # JSON 100k deep: a traceback, and no close code


def test_control_messages_count_toward_the_pages_queue(server):
    url, proc = server["url"], server["proc"]
    kernel_id, cookie, _ = open_page(url)

    async def flood_control():
        ws = await connect(url, kernel_id, cookie)
        for _ in range(1000):  # nothing counted them: the queue's bound held shell only
            try:
                await ws.write_message(v1_frame(message("kernel_info_request", {}), "control"), binary=True)
            except Exception:  # noqa: BLE001 - closed meanwhile
                break
        return await closed_with(ws, timeout=30)

    assert run_async(flood_control()) == CODE["queue"]
    wait_until(lambda: kernel_id not in kernel_ids(proc), 20, "the flooding page's kernel was not shut down")


def test_the_watchdog_ends_a_kernel_over_its_memory_limit_while_the_loop_is_held():
    import subprocess
    from types import SimpleNamespace

    from drmath.serve.kernels import GraceKernelManager

    hog = subprocess.Popen([sys.executable, "-c", "import time; held = b'x' * 300_000_000; time.sleep(60)"])
    try:
        manager = GraceKernelManager(memory_limit=150_000_000, watch_interval=0.2)
        manager._kernels["hog"] = SimpleNamespace(provisioner=SimpleNamespace(pid=hog.pid), last_activity=None)
        manager._visitor_kernels["hog"] = time.monotonic()

        async def hold_the_loop():
            manager.initialize_culler()
            # the loop is held (by a flood of frames, a slow render …): nothing on it runs while this waits
            wait_until(lambda: hog.poll() is not None, 8, "the kernel over its memory limit ended while the loop "
                       "was held")

        run_async(hold_the_loop())
    finally:
        hog.kill()
        hog.wait()
        manager.stop_watchdog()


def test_a_socket_to_a_kernel_that_shut_itself_down_is_refused_at_once(server):
    from tornado.httpclient import HTTPClientError

    url = server["url"]
    kernel_id, cookie, _ = open_page(url)

    async def shut_down_then_reconnect():
        ws = await connect(url, kernel_id, cookie)
        await ws.write_message(v1_frame(message("shutdown_request", {"restart": False}), "control"), binary=True)
        code = await closed_with(ws, timeout=10)  # the page hears its kernel is gone...
        start = time.monotonic()
        try:  # ...and reconnects at once, while the server is still shutting the kernel down (it waited 20 s)
            await asyncio.wait_for(connect(url, kernel_id, cookie), 60)
        except HTTPClientError as err:
            return code, err.code, time.monotonic() - start
        return code, None, time.monotonic() - start

    code, status, took = run_async(shut_down_then_reconnect())
    assert code == CODE["dead"]
    assert status in (403, 404) and took < 2, f"the socket got {status} after {took:.1f} s"


IMAGE = {"_model_name": "ImageModel", "_model_module": "@jupyter-widgets/controls", "_model_module_version": "2.0.0",
         "_view_name": "ImageView", "_view_module": "@jupyter-widgets/controls", "_view_module_version": "2.0.0"}


def test_a_legacy_socket_gets_a_kernel_message_with_buffers_and_the_server_goes_on(server):
    """A page's reconnect without the v1 subprotocol (its first socket never opened) speaks the legacy format; a
    kernel message with buffers goes to it in the legacy binary format. Voilà read that message's first 8 bytes as
    a v1 count of offsets (~8.6e17) and the server's event loop never came back (found in CI, on a loaded machine)."""
    from jupyter_server.services.kernels.connection.base import deserialize_binary_message, serialize_msg_to_ws_v1

    url = server["url"]
    kernel_id, cookie, _ = open_page(url)

    async def echo_to_legacy():
        legacy = await connect(url, kernel_id, cookie, "legacy", session="reconnected")
        page = await connect(url, kernel_id, cookie)
        comm_id = uuid.uuid4().hex
        for msg_type, content, buffer in [
                ("comm_open", {"comm_id": comm_id, "target_name": "jupyter.widget",
                               "data": {"state": IMAGE, "buffer_paths": [["value"]]}}, b"x" * 100),
                ("comm_msg", {"comm_id": comm_id, "data": {"method": "update", "state": {},
                                                           "buffer_paths": [["value"]]}}, b"y" * 100)]:
            msg = message(msg_type, content)
            parts = [json.dumps(msg[k]).encode() for k in ("header", "parent_header")]
            parts += [json.dumps({"version": "2.1.0"}).encode(), json.dumps(content).encode(), buffer]
            await page.write_message(serialize_msg_to_ws_v1(parts, "shell"), binary=True)
        deadline = time.monotonic() + 30  # the kernel echoes the update, with its buffer, to every socket
        try:
            while time.monotonic() < deadline:
                raw = await asyncio.wait_for(legacy.read_message(), deadline - time.monotonic())
                if isinstance(raw, bytes):
                    return deserialize_binary_message(raw)
        except TimeoutError:
            return None
        finally:
            legacy.close()
            page.close()

    got = run_async(echo_to_legacy())
    assert got is not None, "no message with buffers reached the legacy socket within 30 s"
    assert got["content"]["data"]["method"] == "echo_update" and len(got["buffers"][0]) == 100  # the image, whole
    status, _, _ = http(url + "voila/static/")
    assert status == 404  # the server answers on


# --------------------------------------------------------------------------- 4. a seat belongs to its visitor


def test_a_kernel_id_alone_opens_nothing(server, visitor):
    from tornado.httpclient import HTTPClientError

    url, (kernel_id, cookie) = server["url"], visitor
    other_id, other_cookie, page_headers = open_page(url)
    [seat] = [c for c in page_headers.get_all("Set-Cookie") if c.startswith(sessions.SEAT_COOKIE)
              and f"Path=/api/kernels/{other_id}" in c]
    assert "HttpOnly" in seat and "SameSite=Strict" in seat
    for who in ("", other_cookie.replace(f"{sessions.SEAT_COOKIE}=", "x="), other_cookie):  # none, no seat, wrong one
        with pytest.raises(HTTPClientError, match="403"):
            run_async(connect(url, kernel_id, who))
    assert http(url + f"api/kernels/{kernel_id}")[0] == 403
    assert http(url + f"api/kernels/{kernel_id}", headers={"Cookie": other_cookie})[0] == 403
    status, _, body = http(url + f"api/kernels/{kernel_id}", headers={"Cookie": cookie})
    assert status == 200 and json.loads(body)["id"] == kernel_id  # its own page may
    forged = {"Cookie": "_xsrf=abc", "X-XSRFToken": "abc"}  # a self-made double submit passes XSRF, not the seat
    for method, path in (("POST", f"voila/api/shutdown/{kernel_id}"), ("DELETE", f"api/kernels/{kernel_id}")):
        assert http(url + path, method, forged)[0] == 403
    assert kernel_id in kernel_ids(server["proc"])
    assert run_async(kernel_info(url, other_id, other_cookie))  # its own seat opens its own kernel


def test_a_shutdown_from_anywhere_tells_the_page_at_once(server):
    url = server["url"]
    kernel_id, cookie, _ = open_page(url)

    async def shut_down_under_an_open_page():
        ws = await connect(url, kernel_id, cookie)
        await answers_kernel_info(ws)  # the page's socket is open through to its kernel
        headers = {"Cookie": cookie + "; _xsrf=abc", "X-XSRFToken": "abc"}  # another tab of the same visitor
        start = time.monotonic()
        status = await asyncio.get_running_loop().run_in_executor(
            None, lambda: http(url + f"voila/api/shutdown/{kernel_id}", "POST", headers)[0])
        return status, await closed_with(ws, timeout=10), time.monotonic() - start

    status, code, took = run_async(shut_down_under_an_open_page())
    assert status == 204
    assert code == CODE["shutdown"], code  # the page shows "shut down", it does not wait 20 s to notice
    assert took < 10


# --------------------------------------------------------------------------- 5. bounded work per visitor


async def _solver_clicks(url, kernel_id, cookie):
    """A page's socket, and a maker of click frames on its "apply the cheapest design" button (~0.1 CPU-s of
    solving each). Each click is a message of its own: the kernel refuses a replayed one (same signature)."""
    ws = await connect(url, kernel_id, cookie)
    states = await _widget_states(ws)
    [button] = [k for k, v in states.items() if v["state"].get("description") == "apply the cheapest design"]
    content = {"comm_id": button, "data": {"method": "custom", "content": {"event": "click"}}}
    return ws, lambda: v1_frame(message("comm_msg", content))


async def _until_message(ws, wanted, timeout=60):
    """Read ``ws`` until a message for which ``wanted(header, parent_header, content)`` is true."""
    from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1

    deadline = time.monotonic() + timeout
    while (raw := await asyncio.wait_for(ws.read_message(), max(deadline - time.monotonic(), 0.01))) is not None:
        _, parts = deserialize_msg_from_ws_v1(raw)
        if wanted(json.loads(parts[0]), json.loads(parts[1]), json.loads(parts[3])):
            return
    raise AssertionError("the socket closed before the message came")


async def answers_kernel_info(ws):
    """Send a kernel_info_request on ``ws`` and wait for its reply."""
    msg = message("kernel_info_request", {})
    await ws.write_message(v1_frame(msg), binary=True)
    await _until_message(ws, lambda h, parent, c: h["msg_type"] == "kernel_info_reply"
                         and parent.get("msg_id") == msg["header"]["msg_id"])


async def busy(ws):
    """Wait until the kernel behind ``ws`` says it is busy."""
    await _until_message(ws, lambda h, parent, c: h["msg_type"] == "status" and c.get("execution_state") == "busy")


async def _widget_states(ws):
    from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1

    control = uuid.uuid4().hex
    opened = message("comm_open", {"comm_id": control, "target_name": "jupyter.widget.control", "data": {}})
    opened["metadata"] = {"version": "1.0.0"}
    await ws.write_message(v1_frame(opened), binary=True)
    await ws.write_message(v1_frame(message("comm_msg", {"comm_id": control, "data": {"method": "request_states"}})),
                           binary=True)
    while (raw := await asyncio.wait_for(ws.read_message(), 60)) is not None:
        _, parts = deserialize_msg_from_ws_v1(raw)
        data = json.loads(parts[3]).get("data", {})
        if json.loads(parts[0])["msg_type"] == "comm_msg" and data.get("method") == "update_states":
            return data["states"]
    raise AssertionError("the socket closed before the widget states came")


def test_a_page_that_queues_a_thousand_clicks_loses_its_session(server):
    url, proc = server["url"], server["proc"]
    kernel_id, cookie, _ = open_page(url)

    async def clicks():
        ws, click = await _solver_clicks(url, kernel_id, cookie)
        for _ in range(1000):  # 1,000 "apply the cheapest design" clicks, ~76 CPU-s of solving, sent at once
            try:
                await ws.write_message(click(), binary=True)
            except Exception:  # noqa: BLE001 - closed meanwhile
                break
        return await closed_with(ws, timeout=30)

    assert run_async(clicks()) == CODE["queue"]
    wait_until(lambda: kernel_id not in kernel_ids(proc), 20, "the flooding page's kernel was not shut down")
    assert "its page queued 65 messages" in server["log"].read_text()


def test_a_busy_kernel_whose_page_left_is_shut_down(server):
    url, proc = server["url"], server["proc"]
    kernel_id, cookie, _ = open_page(url)

    async def click_and_leave():
        ws, click = await _solver_clicks(url, kernel_id, cookie)
        for _ in range(60):  # several seconds of work queued, under the queue's bound
            await ws.write_message(click(), binary=True)
        await busy(ws)
        ws.close()  # the visitor leaves; the kernel is still solving

    run_async(click_and_leave())
    left = time.monotonic()
    wait_until(lambda: kernel_id not in kernel_ids(proc), GRACE + 20, "the busy kernel outlived its page")
    assert time.monotonic() - left < GRACE + 20
    assert f"Kernel {kernel_id} is still busy {GRACE:g} s after its page left" in server["log"].read_text()


def test_a_cross_site_request_takes_no_seat(server):
    url, log = server["url"], server["log"]
    before = log.read_text().count("now serves a visitor")
    status, headers, body = http(url + "?training.gpus=4096", headers={
        "Sec-Fetch-Dest": "image", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Site": "cross-site",
        "Accept": "image/avif,image/webp,*/*"})
    assert status == 200 and "This is the static worked answer" in body and "drmath-figure" in body
    assert sessions.SEAT_COOKIE not in str(headers)
    served(url)  # a seat it took would have been logged by now
    assert log.read_text().count("now serves a visitor") == before


def test_a_page_that_never_opens_its_websocket_gives_its_seat_back(server):
    url, proc = server["url"], server["proc"]
    kernel_id, _, _ = open_page(url)  # a bot: the page, and nothing else
    assert kernel_id in kernel_ids(proc)
    wait_until(lambda: kernel_id not in kernel_ids(proc), CONNECT + 20, "the unconnected kernel kept its seat")
    assert f"Kernel {kernel_id}: its page never opened its websocket in {CONNECT:g} s" in server["log"].read_text()


@pytest.fixture(scope="module")
def budget_server(tmp_path_factory):
    """A server whose kernels may use 2 CPU-s a minute."""
    log = tmp_path_factory.mktemp("voila") / "voila.log"
    proc, url, log = start_voila(log, pool_size=1, extra=["--max-kernels=3", "--kernel-cpu-budget=2",
                                                          "--GraceKernelManager.watch_interval=0.5"], figures=False)
    yield {"proc": proc, "url": url, "log": Path(log)}
    stop_voila(proc)


def test_a_kernel_over_its_cpu_budget_ends_its_session(budget_server):
    url, proc = budget_server["url"], budget_server["proc"]
    kernel_id, cookie, _ = open_page(url)

    async def burn():
        ws, click = await _solver_clicks(url, kernel_id, cookie)
        for _ in range(60):  # ~4.5 CPU-s of solving, within the queue's bound
            await ws.write_message(click(), binary=True)
        return await closed_with(ws, timeout=60)

    assert run_async(burn()) == CODE["cpu"]
    wait_until(lambda: kernel_id not in kernel_ids(proc), 20, "the kernel over its budget was not shut down")
    assert f"Kernel {kernel_id} used" in budget_server["log"].read_text()


def test_over_cap_renders_are_bounded_and_stop_when_the_visitor_leaves():
    from drmath.serve.pages import Explainers, Overloaded

    rendered = []

    def render(query):
        rendered.append(query)
        time.sleep(0.3)  # the stand-in's render time: the cancelled ones would start in it
        return f"<html>{query}</html>"

    async def leave_early():
        pages = Explainers(render, most=4)
        waits = [asyncio.ensure_future(pages.get(f"training.gpus={g}")) for g in range(1000, 1004)]
        await until(lambda: len(pages._pending) == 4, 5, "four renders queued")
        with pytest.raises(Overloaded, match="4 explainers are being rendered"):
            await pages.get("training.gpus=2000")  # a fifth scenario while four are queued
        for w in waits:
            w.cancel()  # every visitor leaves
        await asyncio.gather(*waits, return_exceptions=True)
        await until(lambda: not pages._pending, 5, "the render under way done, the others dropped")
        return await pages.get("training.gpus=3000")  # a real visitor's render is not behind them

    assert run_async(leave_early()) == "<html>training.gpus=3000</html>"
    assert rendered == ["training.gpus=1000", "training.gpus=3000"]  # only the one already under way went on


# --------------------------------------------------------------------------- 7. smaller leaks


def test_no_server_header_and_nosniff_on_every_response(server):
    url = server["url"]
    for path in ("", "voila/templates/drlab/static/plotly-basic-4.1.1.min.js?v=4.1.1", "nowhere", "logout"):
        status, headers, _ = http(url + path, headers={"Sec-Fetch-Dest": "script"} if path.endswith("4.1.1") else {})
        assert "Server" not in headers, (path, headers.get("Server"))
        assert headers.get("X-Content-Type-Options") == "nosniff", path


def test_logout_sends_a_visitor_home_and_websocket_404s_log_no_traceback(server):
    url, log = server["url"], server["log"]
    status, headers, _ = http(url + "logout")
    assert status == 302 and headers["Location"] == "/"
    size = len(log.read_text())
    status, _, _ = http(url + f"api/kernels/{uuid.uuid4()}/channels",
                        headers={"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                 "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
    assert status in (403, 404)
    served(url)
    assert "Traceback" not in log.read_text()[size:]


def test_a_long_link_writes_a_short_log_line(server):
    url, log = server["url"], server["log"]
    size = len(log.read_text())
    status, _, _ = http(url + "?training.gpus=" + "9" * (255 * 1024))
    assert status == 414
    served(url)
    assert len(log.read_text()) - size < 5000  # it wrote 261 kB


def test_the_kernel_apis_403_is_one_plain_line(server, visitor):
    """Issue 32: the kernel API's refusal was jupyter_server's JSON, its message a log format with a literal ``%s``
    (``{"message": "refused a request for kernel %s without its seat", "reason": null}``)."""
    url, (kernel_id, _) = server["url"], visitor
    forged = {"Cookie": "_xsrf=abc", "X-XSRFToken": "abc"}
    for method, path, headers in (("GET", f"api/kernels/{kernel_id}", {}), ("GET", f"api/kernels/{uuid.uuid4()}", {}),
                                  ("DELETE", f"api/kernels/{kernel_id}", forged),
                                  ("POST", f"voila/api/shutdown/{kernel_id}", forged)):
        status, answer, body = http(url + path, method, headers)
        kernel = path.rsplit("/", 1)[1]
        assert (status, body) == (403, f"403 Forbidden: refused a request for kernel {kernel} without its seat\n"), \
            (method, path, body)
        assert "%" not in body
        assert answer["Content-Type"].startswith("text/plain"), (method, path, answer["Content-Type"])
