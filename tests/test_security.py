"""Security of the published dashboard, against a real Voilà on loopback (``python -m drmath.serve``).

Each point of the deployment checklist (docs/deployment.md) is a test here:

- visitors cannot run code: a kernel-websocket ``execute_request`` (and its cousins) is dropped,
  in both websocket protocols, while the page's own traffic (kernel info, comms) still flows;
- notebook sources are stripped from the page, and the notebook/Python files are not served;
- Jupyter's other endpoints (contents, kernels list, sessions, terminals, lab, tree, ...) are
  unreachable, and no one can start a kernel through the API;
- XSRF protection stays on: a state-changing request without the ``_xsrf`` double-submit is refused;
- the server and its kernels listen on 127.0.0.1 unless told otherwise.
"""

import asyncio
import http.cookiejar
import json
import re
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
from hostile import served
from waiting import wait_until

from drmath import serve

pytestmark = pytest.mark.slow

V1 = "v1.kernel.websocket.jupyter.org"
# every shell/control/stdin request a visitor could use to run or probe code
FORBIDDEN = [("shell", "execute_request"), ("control", "execute_request"), ("shell", "inspect_request"),
             ("shell", "complete_request"), ("shell", "history_request"), ("shell", "is_complete_request"),
             ("control", "debug_request"), ("stdin", "input_reply"), ("shell", "interrupt_request")]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("voila") / "voila.log"
    proc, url, log = start_voila(log, pool_size=1, cull_interval=30, cull_idle_timeout=120, figures=False)
    yield {"proc": proc, "url": url, "log": Path(log)}
    stop_voila(proc)


def request(url, method="GET", headers=None, data=None):
    """``(status, final url, headers, body)``; follows redirects; HTTP errors are returned, not raised."""
    req = urllib.request.Request(url, method=method, headers=headers or {}, data=data)
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, r.url, dict(r.headers), r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.url, dict(e.headers), e.read().decode(errors="replace")


def open_page(url):
    """A visitor: GET the page with a cookie jar; returns ``(html, kernel id, Cookie header)``."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(url, timeout=120) as r:
        html = r.read().decode()
    config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                                  html, re.S).group(1))
    return html, config["kernelId"], "; ".join(f"{c.name}={c.value}" for c in jar)


def message(msg_type, content, session):
    return {"header": {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": session, "username": "visitor",
                       "version": "5.3", "date": "2026-01-01T00:00:00Z"},
            "parent_header": {}, "metadata": {}, "content": content, "buffers": []}


async def talk(url, kernel_id, cookie, protocol, marker):
    """Send every forbidden request, then a kernel_info_request on the shell and on the control channel; collect
    what comes back until both replies (each channel is in order: a forbidden request that ran on it ran before)."""
    from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1, serialize_msg_to_ws_v1
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    session = uuid.uuid4().hex
    ws_url = url.replace("http://", "ws://") + f"api/kernels/{kernel_id}/channels?session_id={session}"
    ws = await websocket_connect(HTTPRequest(ws_url, headers={"Cookie": cookie}),
                                 subprotocols=[V1] if protocol == "v1" else None)
    assert ws.selected_subprotocol == (V1 if protocol == "v1" else None)
    code = (f"import os, pathlib; pathlib.Path({str(marker)!r}).write_text('pwned'); "
            "os.environ['DRMATH_PWNED'] = '1'")
    contents = {"execute_request": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                                    "allow_stdin": False, "stop_on_error": True},
                "inspect_request": {"code": "os", "cursor_pos": 2, "detail_level": 1},
                "complete_request": {"code": "import o", "cursor_pos": 8},
                "history_request": {"output": True, "raw": True, "hist_access_type": "tail", "n": 10},
                "is_complete_request": {"code": code},
                "debug_request": {"seq": 1, "type": "request", "command": "evaluate",
                                  "arguments": {"expression": code}},
                "input_reply": {"value": code},
                "interrupt_request": {}}

    def send(channel, msg):
        if protocol == "v1":
            parts = [json.dumps(msg[k]).encode() for k in ("header", "parent_header", "metadata", "content")]
            return ws.write_message(serialize_msg_to_ws_v1(parts, channel), binary=True)
        return ws.write_message(json.dumps({**msg, "channel": channel}))

    sent = {}
    for channel, msg_type in FORBIDDEN:
        msg = message(msg_type, contents[msg_type], session)
        sent[msg["header"]["msg_id"]] = msg_type
        await send(channel, msg)
    probes = {channel: message("kernel_info_request", {}, session) for channel in ("shell", "control")}
    for channel, probe in probes.items():
        await send(channel, probe)
    waiting = {probe["header"]["msg_id"] for probe in probes.values()}
    received = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        raw = await asyncio.wait_for(ws.read_message(), deadline - time.monotonic())
        assert raw is not None, "the websocket closed"
        if isinstance(raw, bytes):
            channel, parts = deserialize_msg_from_ws_v1(raw)
            header, parent = json.loads(parts[0]), json.loads(parts[1])
        else:
            msg = json.loads(raw)
            channel, header, parent = msg["channel"], msg["header"], msg["parent_header"]
        received.append((channel, header["msg_type"], parent.get("msg_id")))
        if header["msg_type"] == "kernel_info_reply":
            waiting.discard(parent.get("msg_id"))
            if not waiting:
                break
    ws.close()
    return sent, received


@pytest.mark.parametrize("protocol", ["v1", "legacy-json"])
def test_visitors_cannot_run_code_over_the_kernel_websocket(server, tmp_path, protocol):
    html, kernel_id, cookie = open_page(server["url"])
    marker = tmp_path / "pwned"
    sent, received = run_async(talk(server["url"], kernel_id, cookie, protocol, marker))
    # the kernel answered the allowed request sent after the forbidden ones (the shell channel is in order)...
    assert ("shell", "kernel_info_reply") in [(c, t) for c, t, _ in received]
    # ...but nothing ever answered, or ran, any forbidden one
    assert [r for r in received if r[2] in sent] == []
    assert not any(t in ("execute_reply", "execute_result", "stream", "error", "execute_input")
                   for _, t, _ in received), received
    assert not marker.exists(), "code sent by a visitor ran in the kernel"
    log = server["log"].read_text()
    assert 'its page sent a message of type "execute_request", which is not allowed: dropped' in log
    assert kernel_id in kernel_ids(server["proc"])  # the kernel is alive and well: it just ignored them


def test_cross_origin_websocket_is_refused(server):
    from tornado.httpclient import HTTPClientError, HTTPRequest
    from tornado.websocket import websocket_connect

    _, kernel_id, cookie = open_page(server["url"])
    ws_url = server["url"].replace("http://", "ws://") + f"api/kernels/{kernel_id}/channels?session_id=x"

    async def connect():
        await websocket_connect(HTTPRequest(ws_url, headers={"Cookie": cookie, "Origin": "https://evil.example"}))

    with pytest.raises(HTTPClientError, match="403") as err:
        run_async(connect())
    assert err.value.code == 403


def test_sources_are_stripped_and_not_served(server):
    notebook = json.loads(serve.NOTEBOOK.read_text())
    sources = ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert sources
    html, _, _ = open_page(server["url"])
    assert "drmath-" in html and "jupyter-config-data" in html  # it is the dashboard...
    for source in sources:
        for line in source.splitlines():
            if len(line.strip()) >= 12 and not line.lstrip().startswith("#"):  # not a bare "app"
                assert line.strip() not in html, f"source line in the page: {line!r}"
    assert not re.search(r'class="[^"]*(jp-InputArea|jp-CodeMirrorEditor|jp-InputPrompt)', html)  # no input cells
    assert not any("strip_sources" in a for a in serve.command([])[0])  # Voilà's default (True) stands
    for path in ["voila/files/dashboard.ipynb", "voila/files/notebooks/dashboard.ipynb", "notebooks/dashboard.ipynb",
                 "voila/files/drmath/serve.py", "voila/files/drmath/dashboard/app.py", "voila/files/pyproject.toml",
                 "voila/files/README.md", "voila/files/../README.md", "voila/static/../../drmath/serve.py"]:
        status, final, _, body = request(server["url"] + path)
        assert status in (403, 404), (path, status, final)
        assert "build_app" not in body and "import" not in body


@pytest.mark.parametrize("path", [
    "api/kernels", "api/kernels/", "api/contents", "api/contents/notebooks", "api/sessions", "api/terminals",
    "api/kernelspecs", "api/config/notebook", "api/nbconvert", "api/status", "api/me", "lab", "lab/tree",
    "tree", "tree/notebooks", "notebooks/dashboard.ipynb", "edit/drmath/serve.py", "terminals/1", "files/README.md",
    "voila/tree", "voila/render/notebooks/dashboard.ipynb", "voila/api/contents", "nbconvert/html/x.ipynb",
])
def test_other_jupyter_endpoints_are_unreachable(server, path):
    status, final, _, body = request(server["url"] + path)
    assert status in (403, 404), (path, status, final)
    assert '"type": "directory"' not in body and '"kernel"' not in body and "drmath" not in body.lower()


@pytest.fixture
def server_without_pool(tmp_path):
    """A server of its own with no kernel pool: any kernel that appears was started by a request."""
    proc, url, log = start_voila(tmp_path / "voila.log", pool_size=0, figures=False)
    yield {"proc": proc, "url": url, "log": Path(log)}
    stop_voila(proc)


def test_the_api_cannot_start_kernels_sessions_terminals_or_files(server_without_pool):
    proc, url = server_without_pool["proc"], server_without_pool["url"]
    assert kernel_ids(proc) == set()
    xsrf = {"Cookie": "_xsrf=forged", "X-XSRFToken": "forged"}  # a same-site double submit, to get past XSRF
    for headers in ({}, xsrf):
        status, _, _, _ = request(url + "api/kernels", "POST", {**headers, "Content-Type": "application/json"},
                                  b'{"name": "python3"}')
        assert status in (403, 404, 405), status
        status, _, _, _ = request(url + "api/sessions", "POST", {**headers, "Content-Type": "application/json"},
                                  b'{"path": "x.ipynb", "type": "notebook", "kernel": {"name": "python3"}}')
        assert status in (403, 404, 405), status
        status, _, _, _ = request(url + "api/terminals", "POST", headers, b"")
        assert status in (403, 404, 405), status
        status, _, _, _ = request(url + "api/contents/notebooks/evil.ipynb", "PUT",
                                  {**headers, "Content-Type": "application/json"},
                                  b'{"type": "notebook", "content": {}}')
        assert status in (403, 404, 405), status
    served(url)  # what those requests would have started, they have by the time a later one is answered
    assert kernel_ids(proc) == set()
    assert "Kernel started" not in server_without_pool["log"].read_text()
    assert not (serve.NOTEBOOK.parent / "evil.ipynb").exists()


def test_xsrf_protection_stays_on(server):
    proc, url = server["proc"], server["url"]
    assert not any("xsrf" in a for a in serve.command([])[0])  # disable_check_xsrf is never set
    _, kernel_id, cookie = open_page(url)
    assert kernel_id in kernel_ids(proc)
    # state-changing requests without the _xsrf cookie + token are refused, and change nothing
    for method, path in (("POST", f"voila/api/shutdown/{kernel_id}"), ("DELETE", f"api/kernels/{kernel_id}")):
        status, _, _, body = request(url + path, method, {"Cookie": cookie}, b"" if method == "POST" else None)
        assert status == 403, (method, path, status)
        assert "xsrf" in body.lower()
    status, _, _, _ = request(url + f"voila/api/shutdown/{kernel_id}", "POST",
                              {"Cookie": cookie + "; _xsrf=abc", "X-XSRFToken": "not-abc"}, b"")
    assert status == 403  # cookie and token must match
    assert kernel_id in kernel_ids(proc)
    # a cross-site page cannot read or set this site's cookie; the check itself works: with a matching
    # pair the same request goes through (and shuts the kernel down)
    status, _, _, _ = request(url + f"voila/api/shutdown/{kernel_id}", "POST",
                              {"Cookie": cookie + "; _xsrf=abc", "X-XSRFToken": "abc"}, b"")
    assert status == 204
    wait_until(lambda: kernel_id not in kernel_ids(proc), 20, "the kernel shut down by a matching XSRF pair")


def test_binds_loopback_unless_told_otherwise(server):
    assert "--Voila.ip=127.0.0.1" in serve.command([])[0]
    assert "--Voila.ip=0.0.0.0" in serve.command(["--ip", "0.0.0.0"])[0]  # only when asked
    server_proc = psutil.Process(server["proc"].pid)
    listening = {}
    for p in [server_proc, *server_proc.children(recursive=True)]:
        try:
            connections = p.net_connections(kind="inet")
        except psutil.NoSuchProcess:  # a kernel culled meanwhile (seen once: its /proc/<pid>/fd gone)
            continue
        for c in connections:
            if c.status == psutil.CONN_LISTEN:
                listening.setdefault(p.pid, set()).add(c.laddr.ip)
    assert server_proc.pid in listening  # the web server...
    assert len(listening) > 1  # ...and its kernels' ZMQ ports
    assert set().union(*listening.values()) == {"127.0.0.1"}, listening
