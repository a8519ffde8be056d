"""A hostile visitor's tools, shared by the frame tests (``tests/test_hostile_frames.py``) and
``bench/bench_frames.py``: the frames of issue 19, a second visitor that times the server's answers, and a
memory guard that kills a server before it takes the machine.

Every helper talks to a real ``python -m drmath.serve`` on loopback (``conftest.start_voila``).
"""

import http.cookiejar
import json
import re
import struct
import threading
import time
import urllib.error
import urllib.request

import psutil

V1 = "v1.kernel.websocket.jupyter.org"
MB = 1e6  # [B]


def v1_offsets_frame(count):
    """A 16-byte v1 frame whose first 8 bytes declare ``count`` offsets (jupyter_server loops over them)."""
    return int(count).to_bytes(8, "little") + bytes(8)


def legacy_parts_frame(count):
    """A 64-byte legacy binary frame whose first 4 bytes declare ``count`` parts (a struct format that long)."""
    return struct.pack("!i", int(count)) + bytes(60)


JUNK_JSON = b"{bad json"
"""9 bytes: as a v1 frame, its first 8 bytes read as ~7e18 offsets; as legacy text, JSON that does not parse."""


def open_page(url, headers=None):
    """A visitor's page load: ``(kernel id, Cookie header, response headers)``; the Cookie header holds the
    cookies the page was given (its seat among them)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    request = urllib.request.Request(url, headers=headers or {})
    with opener.open(request, timeout=120) as r:
        html = r.read().decode()
        response_headers = r.headers
    config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                                  html, re.S).group(1))
    return config["kernelId"], "; ".join(f"{c.name}={c.value}" for c in jar), response_headers


async def connect(url, kernel_id, cookie, protocol="v1", session="hostile"):
    """The visitor's kernel websocket, in ``protocol`` ``"v1"`` or ``"legacy"`` (no subprotocol)."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    ws_url = url.replace("http://", "ws://") + f"api/kernels/{kernel_id}/channels?session_id={session}"
    return await websocket_connect(HTTPRequest(ws_url, headers={"Cookie": cookie} if cookie else {}),
                                   subprotocols=[V1] if protocol == "v1" else None)


class SecondVisitor:
    """Another visitor, asking the server for a small page every ``interval`` s in a thread of its own.

    It records how long each answer took; a request that gets no answer within ``timeout`` s counts
    as ``timeout``. ``worst(since)`` is the slowest answer to a request sent after ``since``
    (``time.monotonic()``), including one still waiting.
    """

    def __init__(self, url, interval=0.1, timeout=30.0):
        self.url, self.interval, self.timeout = url + "voila/static/drmath-probe", interval, timeout
        self.samples, self._stop, self._pending = [], threading.Event(), None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            start = time.monotonic()
            self._pending = start
            try:
                urllib.request.urlopen(self.url, timeout=self.timeout).read()
            except urllib.error.HTTPError:
                pass  # 404 is an answer
            except OSError:
                pass  # no answer within the timeout: counted below
            self.samples.append((start, time.monotonic() - start))
            self._pending = None
            self._stop.wait(self.interval)

    def worst(self, since=0.0):
        """The slowest answer [s] to a request sent after ``since``; a request still waiting counts as its age."""
        times = [took for start, took in self.samples if start >= since]
        pending = self._pending
        if pending is not None and pending >= since:
            times.append(time.monotonic() - pending)
        return max(times, default=0.0)

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=self.timeout + 1)


class MemoryGuard:
    """Samples the server's RSS every 0.05 s; kills the server once it grows by more than ``limit`` bytes.

    ``peak`` is the largest growth seen [B]; ``killed`` says whether the guard had to kill it.
    """

    def __init__(self, pid, limit=2e9):
        self.process = psutil.Process(pid)
        self.base = self.process.memory_info().rss
        self.limit, self.peak, self.killed = limit, 0, False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def growth(self):
        """RSS now minus RSS when the guard started [B]."""
        return self.process.memory_info().rss - self.base

    def _run(self):
        while not self._stop.is_set():
            try:
                grown = self.growth()
            except psutil.Error:
                return
            self.peak = max(self.peak, grown)
            if grown > self.limit:
                self.killed = True
                self.process.kill()
                return
            self._stop.wait(0.05)

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=5)
