"""The request channel of preheated kernels (``/voila/query/<kernel id>``; issue 12).

A pooled kernel waits in the app notebook's ``query_string()`` for its visitor's request, which Voilà sends over
that websocket. The checks:

- the kernel reads it with ``drmath.serve.query_client`` and never imports Voilà's server, jupyter_server or
  jupyter_events (whose RFC 3987 grammar cost ~4 CPU-s in every kernel), nor plotly/nbformat;
- only the kernel itself can open its channel: a stranger gets 403, so it can neither read a visitor's
  request nor, with two sockets on one id, make Voilà forget the waiting kernel (the next visitor's page
  used to hang on "Executing 1 of 2" for good);
- a kernel that a page took from the pool but that never receives the request is shut down after
  ``GraceKernelManager.request_timeout`` s, so it frees its seat (busy, the culler never took it).
"""

import asyncio
import json
import os
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import READY_JS, free_port, kernel_ids, problems, start_voila, stop_voila, watch  # noqa: E402
from waiting import wait_until  # noqa: E402

from drmath.serve import NOTEBOOK  # noqa: E402
from drmath.serve.query_client import TOKEN_HEADER, kernel_token  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# what a dashboard kernel must not import (the first three came in with voila.utils); the query
# channel's own client, websockets, is light (~10 ms) and allowed
BANNED = ("voila", "jupyter_server", "jupyter_events", "lark", "rfc3987_syntax", "jsonschema", "nbformat",
          "plotly")
SCENARIO_JS = "() => document.querySelector('.drmath-scenario').dataset.scenario"

pytestmark = pytest.mark.slow


class Loop:
    """An asyncio loop in a thread of its own, kept while a test holds sockets open on it (Playwright's
    sync API may run a loop in the test's thread)."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro, timeout=120):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


class FakeVoila:
    """Just Voilà's ``/voila/query/<id>`` endpoint, in a thread: it hands ``payload`` to the one
    client that proves it is the kernel (``key``), and refuses (403) the others."""

    def __init__(self, payload):
        import tornado.web
        import tornado.websocket

        self.payload, self.key, self.seen = payload, None, []
        fake = self

        class Handler(tornado.websocket.WebSocketHandler):
            def prepare(self):
                kernel_id = self.path_args[0]
                token = self.request.headers.get(TOKEN_HEADER)
                fake.seen.append((kernel_id, token))
                if fake.key is None or token != kernel_token(fake.key, kernel_id):
                    raise tornado.web.HTTPError(403)

            def open(self, kernel_id):
                self.write_message(fake.payload)

        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        started = threading.Event()

        def serve():
            asyncio.set_event_loop(self.loop)

            async def listen():
                tornado.web.Application([(r"/voila/query/(.*)", Handler)]).listen(self.port, "127.0.0.1")
            self.loop.run_until_complete(listen())
            started.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        started.wait(10)

    def stop(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def run_notebook_in_kernel(env, after):
    """Start an ipykernel (as Voilà does, from the notebooks folder), run the dashboard notebook's
    code cells and then ``after``; the JSON that ``after`` prints."""
    from jupyter_client.manager import KernelManager

    cells = ["".join(c["source"]) for c in json.loads(NOTEBOOK.read_text())["cells"] if c["cell_type"] == "code"]
    km = KernelManager(kernel_name="python3")
    km.start_kernel(env={**os.environ, "PYTHONPATH": str(ROOT), **env(km)}, cwd=str(NOTEBOOK.parent))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=120)
        for code in cells:
            reply = kc.execute_interactive(code, timeout=120, output_hook=lambda msg: None)
            assert reply["content"]["status"] == "ok", reply["content"]
        out = []

        def hook(msg):
            if msg["msg_type"] == "stream" and msg["content"]["name"] == "stdout":
                out.append(msg["content"]["text"])
        reply = kc.execute_interactive(after, timeout=60, output_hook=hook)
        assert reply["content"]["status"] == "ok", reply["content"]
        return json.loads("".join(out))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


REPORT = ("import json, os, sys\n"
          f"print(json.dumps({{'banned': sorted(m for m in sys.modules if m.split('.')[0] in {BANNED!r}),"
          " 'gpus': app.scenario.training.gpus, 'query': os.environ.get('QUERY_STRING')}))")


def test_a_preheated_kernel_reads_its_request_without_voila():
    query = "training.gpus=4096"
    fake = FakeVoila({"QUERY_STRING": query, "SCRIPT_NAME": "/", "SERVER_SOFTWARE": "voila/0.5.13"})
    kernel_id = str(uuid.uuid4())

    def env(km):
        fake.key = km.session.key  # the kernel's connection key: the secret it proves itself with
        return {"VOILA_PREHEAT": "True", "VOILA_APP_PORT": str(fake.port), "VOILA_SERVER_URL": "/",
                "VOILA_BASE_URL": "/", "VOILA_KERNEL_ID": kernel_id}
    try:
        report = run_notebook_in_kernel(env, REPORT)
    finally:
        fake.stop()
    assert report["banned"] == []
    assert report["query"] == query and report["gpus"] == 4096  # the share link was restored
    assert fake.seen == [(kernel_id, kernel_token(fake.key, kernel_id))]


def test_outside_a_preheated_kernel_the_request_is_in_the_environment():
    # a kernel Voilà starts for one request (no pool) gets the request in its environment
    report = run_notebook_in_kernel(lambda km: {"QUERY_STRING": "training.gpus=2048"}, REPORT)
    assert report["banned"] == [] and report["gpus"] == 2048


def wait_idle(proc, quiet=1.5, timeout=90):
    """Wait until no kernel of the Voilà ``proc`` has used CPU for ``quiet`` s (the pool has run the notebook)."""
    from conftest import kernel_processes

    last, since = None, time.monotonic()
    deadline = since + timeout
    while time.monotonic() < deadline:
        now = sum(sum(p.cpu_times()[:2]) for p in kernel_processes(proc.pid))
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
        time.sleep(0.2)  # polls a condition (no kernel CPU for `quiet` s): the quiet window is the fact


async def _open(url, headers=None):
    """Open a websocket; the connection, or the HTTP status it was refused with."""
    import tornado.httpclient
    import tornado.websocket

    try:
        return await tornado.websocket.websocket_connect(
            tornado.httpclient.HTTPRequest(url, headers=headers or {}, connect_timeout=10))
    except tornado.httpclient.HTTPClientError as exc:
        return exc.code


def test_a_stranger_cannot_use_a_kernels_query_channel(voila_server, browser):
    ws_base = voila_server["url"].replace("http://", "ws://") + "voila/query/"
    pooled = sorted(kernel_ids(voila_server["proc"]))
    assert pooled
    wait_idle(voila_server["proc"])  # the pooled kernels wait on their channel: the attack's target

    async def attack():
        refused, held = [], []
        for kernel_id in [*pooled, str(uuid.uuid4())]:
            for headers in ({}, {TOKEN_HEADER: "0" * 64}, {TOKEN_HEADER: kernel_token(b"guess", kernel_id)}):
                got = await _open(ws_base + kernel_id, headers)
                refused.append(got)
                if not isinstance(got, int):
                    held.append(got)
            # the double-socket attack: two on one id, then the first closed
            first, second = await _open(ws_base + kernel_id), await _open(ws_base + kernel_id)
            for s in (first, second):
                if not isinstance(s, int):
                    held.append(s)
            if not isinstance(first, int):
                first.close()
            refused += [first, second]
            await asyncio.sleep(0.2)  # the attack's pace: a kernel id every 0.2 s, not a wait for anything
        return refused, held

    loop = Loop()
    refused, held = loop.run(attack())
    try:
        assert refused == [403] * len(refused)
        # and the next visitor's page, on a kernel of that pool, restores its share link
        context = browser.new_context(viewport={"width": 1400, "height": 1500})
        page = context.new_page()
        log = watch(page)
        page.goto(voila_server["url"] + "?training.gpus=4096", wait_until="commit", timeout=120_000)
        page.wait_for_function(READY_JS, timeout=90_000, polling=100)
        page.wait_for_function(f"() => JSON.parse(({SCENARIO_JS})())['training.gpus'] === 4096", timeout=60_000)
        assert problems(log) == []
        page.close(run_before_unload=True)
        context.close()
    finally:
        async def close_held():  # the attacker's sockets, had any been accepted: closed before their loop stops
            for s in held:
                s.close()
        loop.run(close_held())
        loop.close()


STUCK_NOTEBOOK = {
    "cells": [{"cell_type": "code", "execution_count": None, "id": "stuck", "metadata": {}, "outputs": [],
               "source": ["# a kernel that never asks for its request (as one whose query socket is gone)\n",
                          "import time\n", "time.sleep(3600)"]}],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                 "language_info": {"name": "python"}},
    "nbformat": 4, "nbformat_minor": 5,
}


def test_a_kernel_that_never_receives_its_request_is_shut_down(tmp_path):
    notebook = tmp_path / "stuck.ipynb"
    notebook.write_text(json.dumps(STUCK_NOTEBOOK))
    proc, url, log_path = start_voila(tmp_path / "voila.log", cull_interval=600, cull_idle_timeout=600,
                                      pool_size=1, extra=[f"--notebook={notebook}", "--max-kernels=3",
                                                          "--GraceKernelManager.request_timeout=3"], figures=False)
    try:
        (pooled,) = wait_until(lambda: kernel_ids(proc), 60, "the pooled kernel started")

        def visit():  # the page waits for the stuck cell; it ends when the kernel goes
            try:
                urllib.request.urlopen(url, timeout=90).read()
            except OSError:
                pass
        visitor = threading.Thread(target=visit, daemon=True)
        visitor.start()
        wait_until(lambda: pooled not in kernel_ids(proc), 45,
                   lambda: f"kernel {pooled} shut down: {Path(log_path).read_text()[-3000:]}")
        assert f"Kernel {pooled} did not receive its page's request" in Path(log_path).read_text()
        visitor.join(60)
    finally:
        stop_voila(proc)
