"""Kernel lifecycle and kernel-websocket limits (issue 12), against a real ``python -m drmath.serve`` on loopback.

- an open page that sends nothing for ``--idle-connected-timeout`` loses its kernel (the seat frees up)
  and says so;
- a message over ``--max-message-size`` and a kernel over ``--kernel-memory-limit`` end that visitor's
  session only, with a notice on the page;
- a dead kernel: its page says "connection lost, reload"; a dead pooled kernel is never handed out;
- tracebacks stay in the server log: the websocket carries none.

One server for the module, with short timeouts and a small memory limit; the browser is Debian's
Chromium (conftest). Each page notice is ``#drmath-session-notice`` (role="alert"), with a
``data-reason`` of idle, memory, too-large or lost.
"""

import asyncio
import http.cookiejar
import json
import re
import signal
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import psutil
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import READY_JS, _kernels, kernel_ids, run_async, start_voila, stop_voila
from waiting import until, wait_until

from drmath import serve
from drmath.serve import sessions, websocket

pytestmark = pytest.mark.slow

IDLE = 30  # --idle-connected-timeout [s]: longer than a page takes from its last message to drawn
MEMORY_LIMIT = 250 * 10**6  # --kernel-memory-limit [B]: a visitor kernel starts at ~75-140 MB
CULL_INTERVAL = 2  # [s]
V1 = "v1.kernel.websocket.jupyter.org"
NOTICE = "#drmath-session-notice"
KERNEL_ID_JS = "JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"
# a file path of the server's machine, as a traceback names one
PATH_RE = re.compile(r"(/[\w.+-]+){2,}\.py|site-packages|Traceback|\.venv")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("voila") / "voila.log"
    proc, url, log = start_voila(log, pool_size=1, cull_interval=CULL_INTERVAL, cull_idle_timeout=60, figures=False,
                                 extra=[f"--idle-connected-timeout={IDLE}", f"--kernel-memory-limit={MEMORY_LIMIT}"])
    yield {"proc": proc, "url": url, "log": Path(log)}
    stop_voila(proc)


class KernelSeat(str):
    """A kernel id, with the Cookie header of the page that took it (its seat: the websocket needs it)."""

    cookie = ""


def open_page(url):
    """A visitor without a browser: GET the page; its kernel id (with the page's cookies)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(url, timeout=120) as r:
        html = r.read().decode()
    config = re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', html, re.S)
    seat = KernelSeat(json.loads(config.group(1))["kernelId"])
    seat.cookie = "; ".join(f"{c.name}={c.value}" for c in jar)
    return seat


class Socket:
    """A kernel websocket client, speaking the page's protocol (v1) or the legacy JSON one."""

    def __init__(self, ws, protocol):
        self.ws, self.protocol, self.session = ws, protocol, uuid.uuid4().hex
        self.raw = []  # every message received, as text

    @classmethod
    async def open(cls, url, kernel_id, protocol="v1"):
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        session = uuid.uuid4().hex
        ws_url = url.replace("http://", "ws://") + f"api/kernels/{kernel_id}/channels?session_id={session}"
        cookie = getattr(kernel_id, "cookie", "")
        ws = await websocket_connect(HTTPRequest(ws_url, headers={"Cookie": cookie} if cookie else {}),
                                     subprotocols=[V1] if protocol == "v1" else None,
                                     max_message_size=64 * 2**20)
        return cls(ws, protocol)

    def message(self, msg_type, content, metadata=None):
        return {"header": {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": self.session,
                           "username": "visitor", "version": "5.3", "date": "2026-01-01T00:00:00Z"},
                "parent_header": {}, "metadata": metadata or {}, "content": content, "buffers": []}

    async def send(self, msg_type, content, channel="shell", metadata=None, buffers=()):
        """Send a message (``buffers``: binary buffers after its JSON, v1 only); its msg_id."""
        from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1

        msg = self.message(msg_type, content, metadata)
        if self.protocol == "v1":
            parts = [json.dumps(msg[k]).encode() for k in ("header", "parent_header", "metadata", "content")]
            await self.ws.write_message(serialize_msg_to_ws_v1([*parts, *buffers], channel), binary=True)
        else:
            await self.ws.write_message(json.dumps({**msg, "channel": channel}))
        return msg["header"]["msg_id"]

    async def recv(self, timeout=60):
        """``(channel, msg_type, content, parent msg id)`` of the next message; ``None`` once closed."""
        from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1

        raw = await asyncio.wait_for(self.ws.read_message(), timeout)
        if raw is None:
            return None
        if isinstance(raw, bytes):
            self.raw.append(raw.decode(errors="replace"))
            channel, parts = deserialize_msg_from_ws_v1(raw)
            header, parent, content = json.loads(parts[0]), json.loads(parts[1]), json.loads(parts[3])
        else:
            self.raw.append(raw)
            msg = json.loads(raw)
            channel, header, parent, content = msg["channel"], msg["header"], msg["parent_header"], msg["content"]
        return channel, header["msg_type"], content, parent.get("msg_id")

    async def widget_states(self):
        """Every widget model's state, as the page's widget manager asks for them."""
        comm_id = uuid.uuid4().hex
        await self.send("comm_open", {"comm_id": comm_id, "target_name": "jupyter.widget.control", "data": {}},
                        metadata={"version": "1.0.0"})
        await self.send("comm_msg", {"comm_id": comm_id, "data": {"method": "request_states"}})
        while (got := await self.recv()) is not None:
            _, msg_type, content, _ = got
            if msg_type == "comm_msg" and content["data"].get("method") == "update_states":
                return content["data"]["states"]
        raise AssertionError("the websocket closed before the widget states came")

    async def kernel_info(self):
        """Send a kernel_info_request; wait for its reply (``None`` if the socket closed first)."""
        msg_id = await self.send("kernel_info_request", {})
        while (got := await self.recv()) is not None:
            if got[1] == "kernel_info_reply" and got[3] == msg_id:
                return got[2]
        return None

    async def until_closed(self, timeout=60):
        """Read until the server closes the socket; its close code."""
        deadline = time.monotonic() + timeout
        while await self.recv(max(deadline - time.monotonic(), 0.1)) is not None:
            pass
        return self.ws.close_code


def dead(process):
    """Whether ``process`` (a kernel) has exited: gone, or a zombie its server has not reaped yet."""
    try:
        return process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def new_page(browser, url):
    """A visitor in Chromium, once every figure is drawn; ``(context, page, kernel id)``."""
    context = browser.new_context(viewport={"width": 1400, "height": 1200})
    page = context.new_page()
    page.goto(url, wait_until="commit", timeout=120_000)
    page.wait_for_function(READY_JS, timeout=120_000, polling=200)
    seat = KernelSeat(page.evaluate(KERNEL_ID_JS))
    seat.cookie = "; ".join(f"{c['name']}={c['value']}" for c in context.cookies()
                            if c["path"].endswith(f"/api/kernels/{seat}"))  # the page's seat: to talk to its kernel
    return context, page, seat


def assert_notice(page, reason, text):
    """The page shows the session notice for ``reason``: a role="alert" box with the text and a Reload button."""
    notice = page.locator(f"{NOTICE}[data-reason='{reason}']")
    notice.wait_for(state="visible", timeout=30_000)
    assert notice.get_attribute("role") == "alert"
    assert text in notice.inner_text()
    assert notice.locator("button", has_text="Reload").is_visible()
    return notice


@pytest.mark.parametrize("protocol", ["v1", "legacy-json"])
def test_tracebacks_stay_in_the_server_log(server, protocol):
    async def provoke():
        sock = await Socket.open(server["url"], open_page(server["url"]), protocol)
        # a widget-control comm with no version: ipywidgets raises; ipykernel prints the traceback to stderr
        await sock.send("comm_open", {"comm_id": uuid.uuid4().hex, "target_name": "jupyter.widget.control",
                                      "data": {}})
        states = await sock.widget_states()
        slider = next(m for m, s in states.items() if s["model_name"] == "SelectionSliderModel")
        # a bad value for a widget: the trait raises in the comm handler; ipywidgets sends an `error` message
        await sock.send("comm_msg", {"comm_id": slider, "data": {"method": "update", "state": {"index": "bad"},
                                                                 "buffer_paths": []}})
        errors = []
        deadline = time.monotonic() + 30
        while not errors and time.monotonic() < deadline:
            got = await sock.recv(deadline - time.monotonic())
            assert got is not None, "the websocket closed"
            if got[1] == "error":
                errors.append(got[2])
        assert await sock.kernel_info() is not None  # the kernel is fine, and everything before it has arrived
        sock.ws.close()
        return errors, sock.raw

    errors, raw = run_async(provoke())
    assert errors, "the bad widget value raised no error message"
    assert errors[0]["evalue"] == websocket.HIDDEN_ERROR and errors[0]["traceback"] == [websocket.HIDDEN_ERROR]
    leaks = [m for m in raw if PATH_RE.search(m) or "TraitError" in m or "Incompatible widget" in m]
    assert leaks == [], f"{len(leaks)} messages carry a traceback or a path, e.g. {leaks[0][:300]!r}"
    log = server["log"].read_text()
    assert "TraitError" in log and "Incompatible widget control protocol versions" in log  # logged instead


def test_an_oversize_message_ends_that_session_only(server):
    url, proc = server["url"], server["proc"]

    async def flood():
        other = await Socket.open(url, open_page(url))
        kernel_id = open_page(url)
        sock = await Socket.open(url, kernel_id)
        assert await sock.kernel_info() is not None
        await sock.send("comm_msg", {"comm_id": "x", "data": {"junk": "x" * (serve.MAX_MESSAGE_SIZE + 1000)}})
        code = await sock.until_closed(30)
        await until(lambda: kernel_id not in kernel_ids(proc), 30, "the too-big message's kernel shut down")
        return code, kernel_id, kernel_id in kernel_ids(proc), await other.kernel_info()

    code, kernel_id, alive, other_reply = run_async(flood())
    assert code == 1009  # "message too big": the page shows the too-large notice
    assert not alive, "the oversize sender's kernel did not stop"
    assert f"Kernel {kernel_id}: its page sent a message over {serve.MAX_MESSAGE_SIZE} bytes" in \
        server["log"].read_text()
    assert other_reply is not None  # another visitor's session goes on
    assert open_page(url)  # and the server serves new visitors


def test_an_idle_open_page_loses_its_kernel_and_says_so(server, browser):
    context, page, kernel_id = new_page(browser, server["url"])
    try:
        assert kernel_id in kernel_ids(server["proc"])
        # the page stays open and untouched: its seat is freed after --idle-connected-timeout
        page.locator(f"{NOTICE}[data-reason='idle']").wait_for(state="attached", timeout=(IDLE + 60) * 1000)
        assert_notice(page, "idle", "This page was idle and its live session was closed to free a seat")
        wait_until(lambda: kernel_id not in kernel_ids(server["proc"]), 30, "the idle page's kernel did not stop")
        assert f"Kernel {kernel_id}: its page sent nothing for" in server["log"].read_text()
    finally:
        context.close()


def test_a_kernel_over_the_memory_limit_ends_that_session_with_a_notice(server, browser):
    bystander = open_page(server["url"])  # another visitor, who must keep their kernel
    context, page, kernel_id = new_page(browser, server["url"])
    try:
        async def grow():
            # every widget the page opens lives in the kernel: 1 MB images make it grow ~1 MB each (sent as a
            # binary buffer, as an upload sends its file: a message's JSON is bounded to 64 KiB, issue 32)
            sock = await Socket.open(server["url"], kernel_id)
            reader = asyncio.ensure_future(sock.until_closed(120))
            state = {"_model_name": "ImageModel", "_model_module": "@jupyter-widgets/controls",
                     "_model_module_version": "2.0.0", "_view_name": "ImageView",
                     "_view_module": "@jupyter-widgets/controls", "_view_module_version": "2.0.0"}
            for i in range(2 * MEMORY_LIMIT // 10**6):
                if reader.done():
                    break
                value = bytes([65 + i % 26]) * (10**6 - 2000)
                try:
                    await sock.send("comm_open", {"comm_id": uuid.uuid4().hex, "target_name": "jupyter.widget",
                                                  "data": {"state": state, "buffer_paths": [["value"]]}},
                                    metadata={"version": "2.1.0"}, buffers=[value])
                except Exception:  # noqa: BLE001 - the server closed the socket meanwhile
                    break
                await asyncio.sleep(0.05)  # the page's pace: it lets its kernel keep up (64 unfinished would end it)
            return await reader

        assert run_async(grow()) == sessions.SESSION_END["memory"][0]
        assert_notice(page, "memory", "used more memory than allowed")
        wait_until(lambda: kernel_id not in kernel_ids(server["proc"]), 30, "the kernel over the limit did not stop")
        assert re.search(rf"Kernel {kernel_id} uses \d+ MB, over the limit of 250 MB", server["log"].read_text())
        assert bystander in kernel_ids(server["proc"])  # the other visitor's session goes on
    finally:
        context.close()


def test_a_dead_kernel_shows_connection_lost_and_reload_works(server, browser):
    context, page, kernel_id = new_page(browser, server["url"])
    try:
        [process] = [p for p, k in _kernels(server["proc"].pid) if k == kernel_id]
        process.send_signal(signal.SIGKILL)
        notice = assert_notice(page, "lost", "Connection lost")
        wait_until(lambda: kernel_id not in kernel_ids(server["proc"]), 30, "the dead kernel was not removed")
        with page.expect_navigation(wait_until="commit", timeout=60_000):
            notice.locator("button", has_text="Reload").click()  # the notice's button brings a fresh session
        page.wait_for_function(READY_JS, timeout=120_000, polling=200)
        assert page.evaluate(KERNEL_ID_JS) != kernel_id
        assert page.locator(NOTICE).count() == 0
    finally:
        context.close()


def test_a_dead_pooled_kernel_is_never_handed_to_a_page(server, browser):
    proc, log = server["proc"], server["log"]

    def pooled():
        text = log.read_text()  # kernels handed out from the pool, or started for a page
        visitors = set(re.findall(r"Using pre-heated kernel: (\S+)", text))
        visitors |= set(re.findall(r"Kernel (\S+) now serves a visitor", text))
        return kernel_ids(proc) - visitors

    wait_until(lambda: len(pooled()) == 1, 120, "the pool did not fill")
    victims = {k: p for p, k in _kernels(proc.pid) if k in pooled()}
    for p in victims.values():
        p.send_signal(signal.SIGKILL)
    for p in victims.values():  # dead (a zombie until the server reaps it), and the next page comes at once
        wait_until(lambda p=p: dead(p), 10, "the kill did not take")
    context, page, kernel_id = new_page(browser, server["url"])
    try:
        assert kernel_id not in victims
        body = page.locator("body").inner_text()
        assert "model not found" not in body and "Error displaying widget" not in body
        assert page.locator(NOTICE).count() == 0
        assert "Dropped dead pooled kernel" in log.read_text() or "died: ending its session" in log.read_text()
    finally:
        context.close()
