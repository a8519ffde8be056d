"""A hostile visitor's tools, shared by the frame tests (``tests/test_hostile_frames.py``) and
``bench/bench_frames.py``: the frames of issues 19 and 32, a second visitor that times the server's answers, a
memory guard that kills a server before it takes the machine, and the samplers and the flood that measure what a
run of frames costs the server (its CPU time) and the kernels (their RSS).

Every helper talks to a real ``python -m drmath.serve`` on loopback (``conftest.start_voila``).
"""

import asyncio
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


def v1_message(msg_type="comm_msg", content=None, channel="shell", buffers=()):
    """A v1 frame of one message (a fixed ``msg_id``: each copy sent still counts on its own)."""
    from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1

    header = {"msg_id": "hostile-1", "msg_type": msg_type, "session": "hostile", "username": "", "version": "5.3",
              "date": "2026-01-01T00:00:00Z"}
    content = b'{"comm_id": "nowhere", "data": {}}' if content is None else content
    return serialize_msg_to_ws_v1([json.dumps(header).encode(), b"{}", b"{}", content, *buffers], channel)


BUFFERS = 130_000
"""Empty buffers after a valid ``comm_msg`` in :func:`buffers_frame`: its offset table makes it ~1 MiB, which
websocket compression sends as ~1.7 KB (issue 32)."""


def buffers_frame(channel="shell", count=BUFFERS):
    """A valid ``comm_msg`` on ``channel`` followed by ``count`` empty buffers (a ZMQ frame each)."""
    return v1_message(channel=channel, buffers=[b""] * count)


def list_soup(size):
    """``size`` bytes of JSON that are the costliest to parse per byte: ``[[],[],…]`` (1 MiB: ~50-100 ms)."""
    return b"[" + b"[]," * ((size - 4) // 3) + b"[]]"


def dropped_frame(size=2**20 - 1024):
    """An ``execute_request`` (a type a visitor may not send) of ~``size`` bytes whose code is a list soup."""
    return v1_message("execute_request", content=b'{"code": ' + list_soup(size - 300) + b"}")


def deep_frame(depth=100_000):
    """A ``comm_msg`` whose content nests ``depth`` lists (Python's JSON parser recurses into each)."""
    return v1_message(content=b'{"comm_id": "nowhere", "data": ' + b"[" * depth + b"]" * depth + b"}")


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

    def answered(self, since=0.0):
        """How many requests sent after ``since`` (``time.monotonic()``) have been answered (or timed out)."""
        return sum(1 for start, _ in self.samples if start >= since)

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


def cpu_seconds(process):
    """User + system CPU time a ``psutil.Process`` has used [s]."""
    times = process.cpu_times()
    return times.user + times.system


class KernelMemory:
    """Samples the RSS of every kernel of the server ``pid`` every ``interval`` s; ``peak`` is the largest [B]."""

    def __init__(self, pid, interval=0.1):
        from conftest import kernel_processes

        self._kernels, self.pid, self.interval, self.peak = kernel_processes, pid, interval, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            for process in self._kernels(self.pid):
                try:
                    self.peak = max(self.peak, process.memory_info().rss)
                except psutil.Error:
                    pass
            self._stop.wait(self.interval)

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=5)


def wait_until_quiet(process, quiet=0.05, period=0.5, timeout=180.0):
    """Wait until ``process`` uses less than ``quiet`` CPU-s in a ``period`` s (it has worked off what it was
    sent), or ``timeout`` s; the time waited [s]."""
    start = time.monotonic()
    last = cpu_seconds(process)
    while time.monotonic() - start < timeout:
        time.sleep(period)  # the span a CPU rate is measured over: quiet is a rate, not a moment
        now = cpu_seconds(process)
        if now - last < quiet:
            break
        last = now
    return time.monotonic() - start


async def flood(url, kernel_id, cookie, frame, count, binary=True, opened=None):
    """Send ``count`` copies of ``frame`` on one compressed kernel websocket (as a browser would: the 1 MiB
    frames of issue 32 travel as a few KB), then wait up to 10 s for the server to close it. ``opened``, if
    given, is called once the socket is open, before the first frame.

    Returns ``(time the first frame went [monotonic s], frames written, close code or None)``.
    """
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    ws_url = url.replace("http://", "ws://") + f"api/kernels/{kernel_id}/channels?session_id=hostile"
    ws = await websocket_connect(HTTPRequest(ws_url, headers={"Cookie": cookie}), subprotocols=[V1],
                                 compression_options={}, max_message_size=64 * 2**20)
    if opened is not None:
        opened()
    sent, written = time.monotonic(), 0
    for _ in range(count):
        try:
            await ws.write_message(frame, binary=binary)
        except Exception:  # noqa: BLE001 - the server closed the socket
            break
        written += 1
    deadline = time.monotonic() + 10
    try:
        while await asyncio.wait_for(ws.read_message(), max(deadline - time.monotonic(), 0.01)) is not None:
            pass
        code = ws.close_code
    except TimeoutError:
        code = None
    ws.close()
    return sent, written, code


def measure_flood(server_pid, url, kernel_id, cookie, frame, count):
    """Flood a visitor's socket (:func:`flood`) while a second visitor, the server's CPU time and every kernel's
    RSS are watched, until the server has worked it off and 1 s more.

    Returns a dict: ``worst`` (the second visitor's slowest answer from the first frame on [s]), ``cpu`` (server
    CPU-s spent from the socket's opening on, its idle rate before subtracted), ``per_frame`` (that over the frames
    written [s]),
    ``written``, ``code`` (the socket's close code or None), ``kernel_peak`` (largest kernel RSS seen [B]).
    """
    from conftest import run_async

    server = psutil.Process(server_pid)
    probe, kernels = SecondVisitor(url), KernelMemory(server_pid)
    try:
        start, cpu0 = time.monotonic(), cpu_seconds(server)
        time.sleep(2)  # the span the server's idle rate is measured over (a second visitor, no attack)
        idle_rate = (cpu_seconds(server) - cpu0) / (time.monotonic() - start)
        opened = {}

        def note_opening():  # the socket's opening (its kernel channels, a kernel_info) is not the frames' cost
            opened.update(start=time.monotonic(), cpu=cpu_seconds(server))

        sent, written, code = run_async(flood(url, kernel_id, cookie, frame, count, opened=note_opening))
        wait_until_quiet(server)
        time.sleep(1)  # and a second after it: the span after the attack the second visitor's answers are timed
        cpu = cpu_seconds(server) - opened["cpu"] - idle_rate * (time.monotonic() - opened["start"])
        worst = probe.worst(since=sent)
    finally:
        probe.stop()
        kernels.stop()
    return {"worst": worst, "cpu": max(cpu, 0.0), "per_frame": max(cpu, 0.0) / max(written, 1), "written": written,
            "code": code, "kernel_peak": kernels.peak}


def after_the_attack(probe, pid):
    """Wait until the server ``pid`` has worked off what it was sent (:func:`wait_until_quiet`) and then answered the
    second visitor ``probe`` a request sent after that: whatever the attack did to the loop, it has done."""
    from waiting import wait_until

    wait_until_quiet(psutil.Process(pid))
    quiet = time.monotonic()
    wait_until(lambda: probe.answered(since=quiet), probe.timeout + 5, "an answer to the second visitor")


def served(url):
    """One request answered by the server at ``url`` (a 404 is an answer): its loop has come round after everything
    sent before, so whatever a request before would have logged or started at once, it has."""
    try:
        urllib.request.urlopen(url + "voila/static/drmath-barrier", timeout=60).read()
    except urllib.error.HTTPError:
        pass


def costliest_passing_frame():
    """The costliest frame a page may still send (``drmath.serve.settings``' bounds): a ``comm_msg`` (to no comm)
    whose content holds all the JSON arrays a message may, as many floats as fit the rest of its JSON bytes (the
    costliest to parse after containers), and the most buffers, 900 KiB in all (an upload sends its file as one)."""
    from drmath.serve.settings import MAX_BUFFERS, MAX_JSON_BYTES, MAX_JSON_CONTAINERS

    lists = b"[]," * (MAX_JSON_CONTAINERS - 8)
    floats = b"1e5," * ((MAX_JSON_BYTES - 1024 - len(lists)) // 4)
    return v1_message(content=b'{"comm_id": "nowhere", "data": [' + lists + floats + b"0]}",
                      buffers=[bytes(900 * 2**10 // MAX_BUFFERS)] * MAX_BUFFERS)
