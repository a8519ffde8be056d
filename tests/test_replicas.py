"""Two ``drmath.serve`` replicas behind HAProxy (deploy/haproxy): spread, sticky pages, one replica killed.

Everything runs on loopback: two replicas (``--pool-size 1``, conftest ``start_voila``) on free ports,
and HAProxy in the foreground (``haproxy -f cfg -db``) with the configuration
``deploy/haproxy/render.py`` renders for those ports. Each test sets up what it needs, in any order:

1. four fresh visitors (no cookies) are spread over both replicas, and each page's kernel lives on
   the replica its ``SERVERID`` cookie names (and the health checks before any visitor took no kernel);
2. a real Chromium page through the balancer opens on its static explainer (issue 24) and draws, and a
   slider move reaches its kernel (the websocket stuck to the page's replica) and changes the cards;
3. on a cluster of its own, a page's replica is killed (SIGKILL, server and kernels): visitors who arrive
   before the health check notices still get a page (the balancer retries on the other replica), the
   replica is marked down, four new visitors all get a page, and the orphaned page recovers by reloading.

``bench/bench_replicas.py`` runs the same scenario and prints the figures. Skips when ``haproxy`` is
not installed (``./tasks test`` installs Debian's).
"""

import concurrent.futures
import csv
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import CHROMIUM, READY_JS, free_port, kernel_ids, problems, start_voila, stop_voila, watch  # noqa: E402
from waiting import wait_until  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
HAPROXY = shutil.which("haproxy") or next((p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy")
                                           if os.access(p, os.X_OK)), None)
GPU_HANDLE = ".drmath-control-training-gpus .noUi-handle"
KPIS_JS = "() => [...document.querySelectorAll('.drmath-kpi')].map(e => e.dataset.value + '|' + e.textContent)"
KERNEL_JS = "JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,  # about a minute: two replicas, HAProxy, a browser page, eleven visits
    pytest.mark.skipif(HAPROXY is None, reason="haproxy is not installed (./tasks test installs Debian's haproxy)"),
]


def load_render():
    """``deploy/haproxy/render.py`` as a module (deploy/ is not a package)."""
    spec = importlib.util.spec_from_file_location("drmath_deploy_haproxy", ROOT / "deploy" / "haproxy" / "render.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Cluster:
    """``n`` replicas of ``python -m drmath.serve`` on loopback, and HAProxy in front of them.

    ``replicas[i]`` is the Popen of the replica HAProxy names ``r<i+1>``; ``url`` is the balancer's.
    """

    def __init__(self, workdir, n=2, pool_size=1):
        self.workdir, self.replicas, self.haproxy, self._orphans = Path(workdir), [None] * n, None, []
        errors = []

        def start(i):
            try:
                self.replicas[i] = start_voila(self.workdir / f"replica-r{i + 1}.log", pool_size=pool_size)[0]
            except Exception as e:  # noqa: BLE001 - re-raised below, after the others stop
                errors.append(e)

        threads = [threading.Thread(target=start, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            self.stop()
            raise errors[0]
        ports = [int(re.search(r"--port=(\d+)", " ".join(p.args)).group(1)) for p in self.replicas]
        self.port, self.stats_port = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        cfg = self.workdir / "haproxy.cfg"
        cfg.write_text(load_render().deploy_config([("127.0.0.1", p) for p in ports], self.port,
                                                   stats_port=self.stats_port))
        self.log = self.workdir / "haproxy.log"
        self.haproxy = subprocess.Popen([HAPROXY, "-f", str(cfg), "-db"], stdout=open(self.log, "w"),
                                        stderr=subprocess.STDOUT)
        def up():
            if self.haproxy.poll() is not None:
                raise RuntimeError(f"haproxy exited with {self.haproxy.returncode}: {self.log.read_text()[-2000:]}")
            try:
                return all(status == "UP" for status in self.status().values())
            except OSError:
                return False

        try:
            wait_until(up, 30, lambda: f"the replicas UP in HAProxy: {self.log.read_text()[-2000:]}", interval=0.2)
        except BaseException:
            self.stop()
            raise
        # before any visitor: what the health checks alone did (the first test reads it)
        self.before_visitors = {"kernels": [len(kernel_ids(p)) for p in self.replicas], "stats": self.stats()}

    def stats(self):
        """HAProxy's stats CSV rows of the replicas' backend, by name (``"r1"``..., ``"BACKEND"``)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.stats_port}/stats;csv", timeout=5) as r:
            text = r.read().decode().lstrip("# ")
        return {row["svname"]: row for row in csv.DictReader(io.StringIO(text)) if row["pxname"] == "drmath_replicas"}

    def status(self):
        """``{"r1": "UP", "r2": "DOWN", ...}``: HAProxy's view of each replica."""
        return {name: row["status"] for name, row in self.stats().items() if name != "BACKEND"}

    def replica(self, name):
        """The Popen of the replica HAProxy calls ``name`` (``"r1"``...)."""
        return self.replicas[int(name[1:]) - 1]

    def crash(self, name):
        """Kill replica ``name`` as a machine failure would: SIGKILL to the server and its kernels.

        Returns ``time.monotonic()`` right after the kill; the kernels are reaped by :meth:`stop`.
        """
        import psutil

        proc = self.replica(name)
        server = psutil.Process(proc.pid)
        server.suspend()  # no new kernel can start while we collect them
        kernels = server.children(recursive=True)
        for p in [server, *kernels]:
            try:
                p.kill()
            except psutil.NoSuchProcess:
                pass
        killed = time.monotonic()
        proc.wait(timeout=10)
        self._orphans.extend(kernels)
        return killed

    def wait_down(self, name, since=None, timeout=30):
        """Seconds from ``since`` (``time.monotonic()``; default now) until HAProxy marks ``name`` DOWN.

        ``None`` when it is not DOWN within ``timeout`` seconds. ("UP 1/2" is UP, going down.)
        """
        since = time.monotonic() if since is None else since
        try:
            wait_until(lambda: self.status().get(name, "").startswith("DOWN"),
                       max(since + timeout - time.monotonic(), 0), f"HAProxy marked {name} DOWN", interval=0.05)
        except AssertionError:
            return None
        return time.monotonic() - since

    def stop(self):
        """Stop HAProxy and every replica we started."""
        if self.haproxy is not None and self.haproxy.poll() is None:
            self.haproxy.terminate()
            try:
                self.haproxy.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.haproxy.kill()
                self.haproxy.wait(timeout=10)
        for proc in self.replicas:
            if proc is not None:
                stop_voila(proc)
        if self._orphans:  # the kernels of a crashed replica (already SIGKILLed)
            import psutil

            psutil.wait_procs(self._orphans, timeout=10)


def visit(url, timeout=120):
    """One fresh visitor (no cookies) GETs the page: ``{"status", "replica", "kernel", "error"}``.

    ``replica`` is the ``SERVERID`` cookie the balancer set, ``kernel`` the page's kernel id.
    """
    out = {"status": None, "replica": None, "kernel": None, "error": None}
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            out["status"], body = r.status, r.read().decode(errors="replace")
            cookies = r.headers.get_all("Set-Cookie") or []
    except urllib.error.HTTPError as e:
        out["status"], out["error"] = e.code, e.read().decode(errors="replace")[:200]
        return out
    except OSError as e:
        out["error"] = repr(e)
        return out
    for cookie in cookies:
        m = re.match(r"SERVERID=(\w+)", cookie)
        if m:
            out["replica"] = m.group(1)
    m = re.search(r'"kernelId":\s*"([0-9a-f-]+)"', body)
    out["kernel"] = m.group(1) if m else None
    return out


def visits(url, n):
    """``n`` fresh visitors arriving at once."""
    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        return list(pool.map(visit, [url] * n))


def served(records):
    """How many of ``records`` (from :func:`visit`) got the page with a kernel."""
    return sum(1 for r in records if r["status"] == 200 and r["kernel"] and r["replica"])


def page_replica(context):
    """The ``SERVERID`` cookie of a browser context (the replica its pages stick to)."""
    return next((c["value"] for c in context.cookies() if c["name"] == "SERVERID"), None)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is absent")
    c = Cluster(tmp_path_factory.mktemp("replicas"))
    yield c
    c.stop()


def new_page(browser):
    """A dashboard page in a context of its own, its requests and console watched."""
    context = browser.new_context(viewport={"width": 1400, "height": 1500})
    p = context.new_page()
    return {"page": p, "context": context, "log": watch(p)}


@pytest.fixture(scope="module")
def page(cluster, browser):
    """One dashboard page for the balancer, its requests and console watched (not opened yet)."""
    opened = new_page(browser)
    yield opened
    opened["context"].close()


@pytest.fixture
def doomed(tmp_path_factory, browser):
    """A cluster of its own, for the test that kills one of its replicas, and a page drawn through its balancer."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is absent")
    c = Cluster(tmp_path_factory.mktemp("replicas-doomed"))
    opened = new_page(browser)
    try:
        opened["page"].goto(c.url, wait_until="commit", timeout=120_000)
        opened["page"].wait_for_function(READY_JS, timeout=120_000, polling=100)
        yield c, opened
    finally:
        opened["context"].close()
        c.stop()


def test_fresh_visitors_are_spread_and_each_page_lives_on_its_cookies_replica(cluster):
    # HAProxy had health-checked both replicas before any visitor came: the check URL took no kernel
    assert cluster.before_visitors["kernels"] == [1, 1]
    assert all(int(row["chkfail"] or 0) == 0 and int(row["hrsp_2xx"] or 0) == 0 for name, row in
               cluster.before_visitors["stats"].items() if name != "BACKEND"), "no visitor, no failed health check"
    records = visits(cluster.url, 4)
    assert served(records) == 4, records
    replicas = sorted(r["replica"] for r in records)
    assert set(replicas) == {"r1", "r2"}, f"all visitors went to one replica: {replicas}"
    for r in records:
        assert r["kernel"] in kernel_ids(cluster.replica(r["replica"])), r


# issue 24: when every figure of the page's static explainer was first drawn (before the live page took over)
STATIC_SEEN_JS = """window.__static = null; (function poll() {
  const f = document.querySelectorAll('#drmath-preview .drmath-static-plot');
  if (f.length && [...f].every(g => g.querySelector('.main-svg'))) { window.__static = performance.now(); return; }
  requestAnimationFrame(poll); })();"""


def test_a_slider_move_reaches_the_pages_kernel_through_the_balancer(cluster, page):
    p, context, log = page["page"], page["context"], page["log"]
    p.add_init_script(STATIC_SEEN_JS)
    p.goto(cluster.url, wait_until="commit", timeout=120_000)
    p.wait_for_function(READY_JS, timeout=120_000, polling=100)
    assert p.evaluate("window.__static") is not None  # its static page first, from the replica that answered
    replica = page_replica(context)
    assert replica in ("r1", "r2")
    assert p.evaluate(KERNEL_JS) in kernel_ids(cluster.replica(replica))
    before = p.evaluate(KPIS_JS)
    p.locator(GPU_HANDLE).first.focus()
    p.keyboard.press("ArrowRight")
    p.wait_for_function(f"(b) => JSON.stringify(({KPIS_JS})()) !== JSON.stringify(b)", arg=before,
                        timeout=60_000, polling=100)
    assert p.evaluate(KPIS_JS) != before
    assert problems(log) == []


def test_after_a_replica_dies_new_visitors_still_get_the_page(doomed):
    cluster, page = doomed
    p, context = page["page"], page["context"]
    victim = page_replica(context)
    assert victim in ("r1", "r2"), "the page's replica is the one killed"
    survivor = "r2" if victim == "r1" else "r1"
    killed = cluster.crash(victim)
    early = visits(cluster.url, 2)  # at once, before the health check can have noticed
    assert cluster.wait_down(victim, since=killed) is not None, cluster.status()
    assert served(early) == 2, early  # refused connections are retried on the live replica
    after = visits(cluster.url, 4)
    assert served(after) == 4, after
    assert {r["replica"] for r in early + after} == {survivor}
    # the page whose kernel died comes back on the survivor by reloading (its cookie names the dead one)
    p.reload(wait_until="commit", timeout=120_000)
    p.wait_for_function(READY_JS, timeout=120_000, polling=100)
    assert page_replica(context) == survivor
    assert p.evaluate(KERNEL_JS) in kernel_ids(cluster.replica(survivor))
