"""Fixtures for the Voilà + headless-Chromium tests (and helpers bench/bench_browser.py reuses).

Voilà is started through ``python -m drmath.serve`` (the same launcher users run), on a
free loopback port, with short culling times so the test can watch a closed page's
kernel go. Chromium is Debian's ``/usr/bin/chromium`` driven by Playwright with
``executable_path`` (``playwright install`` cannot download here). Browser tests
skip only when that binary is absent.
"""

import asyncio
import os
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for bench/ too, which imports this module
from waiting import log_has, wait_until  # noqa: E402

# --------------------------------------------------------------------------- hypothesis: the same examples every run
# Every property test draws the examples its own code and hypothesis's version determine (derandomize: the
# random generator is seeded from the test's source), so a run on CI repeats the run before it and a failure
# seen once is seen again. No example database (a failure stored by an earlier local run is not replayed
# first), no deadline (a loaded machine would trip one). Each test's own @settings keep their max_examples;
# settings made after this (and tests/test_properties.py's profile) inherit the rest from this profile.
HYPOTHESIS_PROFILE = "drmath-reproducible"
settings.register_profile(HYPOTHESIS_PROFILE, derandomize=True, database=None, deadline=None)
settings.load_profile(HYPOTHESIS_PROFILE)
# --------------------------------------------------------------------------- end of the hypothesis profile

ROOT = Path(__file__).resolve().parent.parent

# --------------------------------------------------------------------------- which tests run alone
SERIAL = {"test_static_first": ("test_the_static_page_paints_its_text_and_the_figures_on_screen_before_those_below",
                                 "test_the_live_page_takes_the_static_pages_boxes_and_no_figure_is_ever_blank",
                                 "test_the_static_dashboards_figures_are_the_servers_svgs_and_plotly_waits_for_the_"
                                 "first_paint")}
"""Module -> the tests ``./tasks test`` runs after the others, one at a time, with nothing beside them: they assert
the order in which a page paints and whether a figure is ever blank on an animation frame, which a neighbour on the
same two cores can reorder. The rest run on two workers (pytest-xdist, one module a worker, so a module's server is
shared by its tests), the attacks of ``test_hostile_*`` and the stop of ``test_shutdown`` too: their bounds (another
visitor's answer within 1 s, the server's CPU-seconds and RSS, a stop within 10 s) held with a benchmark loading
the machine beside them, and each measures the server's own process."""


FIRST = ("test_rendered_text", "test_hostile_links", "test_resilience", "test_hostile_frames", "test_hostile_files",
         "test_replicas")
"""The longest modules (1-3 min each in CI), handed to the two workers first. pytest-xdist's ``--dist loadfile`` gives
a worker the next module in collection order as it frees up; collected alphabetically, these came late, and the
last of them ran on one worker while the other had finished (the longest first balances the two)."""


def pytest_collection_modifyitems(config, items):
    """Mark every test named in :data:`SERIAL` ``serial``, and every test that uses a fixture of
    :data:`SERVER_FIXTURES` ``browser``; put the modules of :data:`FIRST` first (the others keep their order)."""
    items.sort(key=lambda item: FIRST.index(item.path.stem) if item.path.stem in FIRST else len(FIRST))
    for item in items:
        if getattr(item, "originalname", item.name) in SERIAL.get(item.path.stem, ()):
            item.add_marker(pytest.mark.serial)
        if SERVER_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
# --------------------------------------------------------------------------- end of which tests run alone

# --------------------------------------------------------------------------- the fast set starts no server
SERVER_FIXTURES = {"voila_server", "notebook_server", "browser"}
"""Fixtures that start a Voilà or a Chromium: a test using one, directly or through another fixture, is marked
``browser`` at collection, so ``-m "not browser and not slow"`` (the fast set) never starts it. A module whose own
fixture or test starts one marks itself (``pytestmark``); :func:`pytest_runtest_protocol`'s guard fails any test
that is in the fast set and starts one anyway."""

_FAST_ITEM = []
_REFUSED = []
"""The test being run, while it is one of the fast set's (marked neither ``browser`` nor ``slow``)."""


def server_launch(argv):
    """What ``argv`` starts that the fast set may not (a Voilà, ``drmath.serve``, HAProxy serving, a Chromium,
    Playwright's driver), or ``None``. ``haproxy -c`` only checks a configuration and listens on nothing."""
    import shlex

    argv = [os.fspath(a) for a in ([argv] if isinstance(argv, (str, bytes, os.PathLike)) else argv)]
    if len(argv) == 1 and isinstance(argv[0], str) and " " in argv[0]:
        argv = shlex.split(argv[0])
    argv = [a.decode() if isinstance(a, bytes) else a for a in argv]
    names = [os.path.basename(a) for a in argv]
    modules = {argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "-m"}
    if modules & {"voila", "drmath.serve", "jupyter_server", "notebook"}:
        return "a Voilà server"
    if names and names[0].startswith("haproxy") and "-c" not in argv:
        return "HAProxy"
    if any(n.startswith(("chromium", "chrome", "headless_shell")) for n in names):
        return "a Chromium"
    if "run-driver" in argv or any("playwright" in a for a in argv[:2]):
        return "Playwright"
    return None


def pytest_configure(config):
    """Install the fast set's guard: a ``subprocess.Popen`` (asyncio's and Playwright's too go through it) that
    refuses, while a fast test runs, to start what :func:`server_launch` names."""
    if getattr(subprocess.Popen, "_drmath_guarded", False):
        return
    popen_init = subprocess.Popen.__init__

    def guarded(self, args, *rest, **kwargs):
        started = _FAST_ITEM and server_launch(args)
        if started:
            self._child_created = False  # nothing to reap when the refused Popen is collected
            refusal = (f"{_FAST_ITEM[0].nodeid} is in the fast set (marked neither browser nor slow) and starts "
                       f"{started}: {args!r}; mark it browser or slow, or use a fixture of conftest.SERVER_FIXTURES")
            _REFUSED.append(refusal)  # the test fails even if it catches the error
            raise RuntimeError(refusal)
        popen_init(self, args, *rest, **kwargs)
    subprocess.Popen.__init__ = guarded
    subprocess.Popen._drmath_guarded = True


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Run a test with the fast set's guard on while it (its fixtures' set-up and tear-down too) runs, if it is one of
    the fast set's."""
    fast = not any(item.get_closest_marker(name) for name in ("browser", "slow"))
    if fast:
        _FAST_ITEM.append(item)
    try:
        yield
    finally:
        if fast:
            _FAST_ITEM.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A fast test that tried to start a server fails, whatever it did with the guard's error; a failed test's
    report ends with its servers' logs (:func:`server_logs`)."""
    outcome = yield
    report = outcome.get_result()
    if _REFUSED:
        report.outcome, report.longrepr = "failed", "\n".join(_REFUSED)
        _REFUSED.clear()
    if report.failed:
        for name, tail in server_logs(getattr(item, "funcargs", {})):
            report.sections.append((f"the end of {name}'s server log", tail))


def server_logs(funcargs, lines=120):
    """``(fixture name, the last ``lines`` lines of its server's log)`` for each fixture of ``funcargs`` that is
    a server with a log (a dict with a ``log`` path): a failed browser test shows what its server was doing. The
    second visitor's probes (``hostile.SecondVisitor``: a 403 every few ms) are left out: they hid the rest."""
    for name, value in funcargs.items():
        log = value.get("log") if isinstance(value, dict) else None
        if isinstance(log, (str, Path)) and Path(log).is_file():
            text = [line for line in Path(log).read_text(errors="replace").splitlines() if "drmath-probe" not in line]
            yield name, "\n".join(text[-lines:])
# --------------------------------------------------------------------------- end of the fast set's guard
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
BROWSER = {"Accept": "text/html", "Sec-Fetch-Dest": "document", "Sec-Fetch-Mode": "navigate",
           "Sec-Fetch-Site": "none"}
"""What a browser sends for a link typed or followed: the server answers it static first (issue 24)."""
CULL_INTERVAL = 5  # [s]
CULL_IDLE_TIMEOUT = 10  # [s]
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
"""Every numbered notebook (00_worked_answer.ipynb …), as Voilà serves it in tree mode under voila/render/."""

# every figure drawn (a plotly graph div with data and an SVG) and every card present
READY_JS = """() => {
  const figs = document.querySelectorAll('.drmath-figure');
  if (figs.length < 5) return false;
  for (const f of figs) {
    const gd = f.querySelector('.js-plotly-plot');
    if (!gd || !gd.data || !gd.data.length || !gd.querySelector('.main-svg')) return false;
  }
  return document.querySelectorAll('[class*="drmath-kpi-"]').length >= 8
      && !!document.querySelector('.drmath-scenario');
}"""

# install before any page script runs: records when READY_JS first holds, on every animation frame
READY_INIT_JS = "window.__drmathReady = null; (function poll(){ try { if ((" + READY_JS + """)()) {
  window.__drmathReady = performance.now(); return; } } catch (e) {}
  requestAnimationFrame(poll); })();"""


def assert_kpis_match_plan(kpis, p):
    """Each card's ``data-value`` is the plan's SI value, losslessly, and its text the human reading.

    ``kpis`` maps a plan field to ``(data-value, text)`` as the page or the widget renders it.
    """
    import math
    for name, (value, text) in kpis.items():
        want = getattr(p, name)
        if isinstance(want, bool):
            assert value == ("true" if want else "false"), name
        elif math.isinf(want):
            assert value == "inf", name
        else:
            assert float(value) == want, name  # repr round-trips
        assert text == p.format(name), name


def free_port():
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_plain_voila(target, log_path, extra=()):
    """Plain Voilà (not ``drmath.serve``) serving ``target`` (a notebook, or a folder: tree mode) with the ``drlab``
    template and drmath's Voilà environment on a free loopback port; ``(process, url)`` once it answers.

    ``extra``: more ``voila`` arguments (e.g. the culler's).
    """
    from drmath.serve.cli import voila_env

    port = free_port()
    env = {**voila_env(), "PYTHONUNBUFFERED": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "voila", str(target), "--no-browser", f"--port={port}",
                                 "--Voila.ip=127.0.0.1", "--template=drlab", "--VoilaExecutor.iopub_timeout=120",
                                 *extra], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_until(lambda: answers(url, proc, log_path), 120, lambda: f"voila up: {Path(log_path).read_text()[-3000:]}",
                   interval=0.3)
    except BaseException:
        stop_voila(proc)
        raise
    return proc, url


def answers(url, proc, log_path):
    """Whether the server at ``url`` answers HTTP (a 404 is an answer); raises if its process ``proc`` ended."""
    if proc.poll() is not None:
        raise RuntimeError(f"voila exited with {proc.returncode}: {Path(log_path).read_text()[-3000:]}")
    try:
        urllib.request.urlopen(url + "voila/static/", timeout=2)
    except urllib.error.HTTPError:
        pass  # 404: the server is up
    except OSError:
        return False
    return True


def start_voila(log_path, cull_interval=CULL_INTERVAL, cull_idle_timeout=CULL_IDLE_TIMEOUT, pool_size=2,
                timeout=120, extra=(), figures=True):
    """Start ``python -m drmath.serve`` on a free port; wait until its kernel pool is full.

    ``extra``: more ``python -m drmath.serve`` arguments (e.g. ``["--max-kernels=3"]``). The notebook pages' static
    starts are rendered on first request (``--no-prerender``), not all at start: a test server that renders nine
    notebooks at start takes the CPU its test measures. ``figures=False`` does not draw the static dashboard's
    figures as SVG at start either (``--Voila.prerender_figures=False``), for a module that never looks at them: the
    drawing takes ~14 CPU-s of Chromium a server, beside the other worker's tests.

    Returns ``(process, url, log_path)``.
    """
    port = free_port()
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "drmath.serve", f"--port={port}", f"--pool-size={pool_size}",
         f"--cull-interval={cull_interval}", f"--cull-idle-timeout={cull_idle_timeout}", "--no-prerender",
         *([] if figures else ["--Voila.prerender_figures=False"]), *extra],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{port}/"
    filled = log_has(log_path, "is filled with")
    try:
        wait_until(lambda: answers(url, proc, log_path) and (pool_size == 0 or filled()), timeout,
                   lambda: f"voila up, its pool filled: {Path(log_path).read_text()[-3000:]}", interval=0.3)
    except BaseException:
        stop_voila(proc)
        raise
    return proc, url, log_path


def stop_voila(proc):
    """Stop the Voilà we started (it shuts its kernels down on SIGTERM)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _kernels(pid):
    """``(process, kernel id)`` of each ipykernel child of the process ``pid``."""
    import psutil

    try:
        children = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    found = []
    for child in children:
        try:
            for arg in child.cmdline():
                name = os.path.basename(arg)
                if name.startswith("kernel-") and name.endswith(".json"):
                    found.append((child, name[len("kernel-"):-len(".json")]))
                    break
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    return found


def kernel_ids(proc):
    """Ids of the kernels the Voilà process ``proc`` has running (its ipykernel children)."""
    return {kernel_id for _, kernel_id in _kernels(proc.pid)}


def kernel_processes(pid):
    """The ipykernel children (``psutil.Process``) of the Voilà process ``pid``."""
    return [child for child, _ in _kernels(pid)]


class KernelWatch:
    """Samples how many kernels the Voilà process ``proc`` has, every ``interval`` s, until stopped;
    keeps the most seen."""

    def __init__(self, proc, interval=0.1):
        self.proc, self.interval, self.most, self._stop = proc, interval, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            self.most = max(self.most, len(kernel_ids(self.proc)))
            self._stop.wait(self.interval)

    def stop(self):
        """Stop sampling; the most kernels seen at once."""
        self._stop.set()
        self._thread.join(timeout=5)
        return self.most


def http_get(url, accept=None):
    """``(status, headers, body)`` of a GET (with ``Accept: accept`` if given); 4xx/5xx are returned, not raised."""
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    try:
        with urllib.request.urlopen(request, timeout=120) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def open_dashboard(browser, url, width=1400, height=1500):
    """A new context's page on the dashboard at ``url``, drawn (:data:`READY_JS`), with :func:`watch`'s log.

    Every request to a host other than loopback is aborted and its URL kept in ``log["external"]``.
    Returns ``(context, page, log)``.
    """
    from urllib.parse import urlparse

    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    log = {**watch(page), "external": []}
    page.route(lambda u: urlparse(u).hostname not in ("127.0.0.1", "localhost"),
               lambda route: (log["external"].append(route.request.url), route.abort()))
    page.goto(url, wait_until="commit", timeout=120_000)
    page.wait_for_function(READY_JS, timeout=120_000, polling=100)
    return context, page, log


def watch(page):
    """Record what went wrong on ``page`` (and every page of its context), each naming its URL.

    Returns a dict of lists, filled as the page runs:

    - ``errors``: console errors (with the URL and line they came from) and uncaught page errors;
    - ``failed``: requests that never got a response, as ``"URL failure"``;
    - ``bad_status``: responses of 400 or more, as ``"status METHOD URL"``.

    A console line such as "Failed to load resource: ... 403" names no URL; ``bad_status`` does,
    so a failing assertion says which request failed and why, not only the console text.
    """
    log = {"errors": [], "failed": [], "bad_status": []}

    def console(message):
        if message.type == "error":
            where = message.location or {}
            log["errors"].append(f"{message.text} [at {where.get('url', '?')}:{where.get('lineNumber', '?')}]")

    def response(r):
        if r.status >= 400:
            log["bad_status"].append(f"{r.status} {r.request.method} {r.url}")

    page.on("console", console)
    page.on("pageerror", lambda e: log["errors"].append(f"page error: {e}"))
    page.context.on("requestfailed", lambda r: log["failed"].append(f"{r.method} {r.url} {r.failure}"))
    page.context.on("response", response)
    return log


def problems(log):
    """Everything ``watch`` recorded, as one list (empty when nothing went wrong)."""
    return [entry for key in ("errors", "failed", "bad_status") for entry in log[key]]


def run_async(coro):
    """asyncio.run in a thread of its own: in a full test session Playwright's sync API already
    runs an event loop in this thread, where asyncio.run refuses to start another."""
    outcome = {}

    def target():
        try:
            outcome["value"] = asyncio.run(coro)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            outcome["error"] = exc
    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


# --------------------------------------------------------------------------- each notebook executed once a run
EXECUTE_TIMEOUT = 300  # [s] the longest one cell may run on a busy machine
EXECUTE_REPLY_TIMEOUT = 10  # [s]
_EXECUTED = {}  # notebook path -> the executed notebook, in this process


def executed_notebook(path, tmp_path_factory):
    """The notebook at ``path`` executed as ``jupyter nbconvert --execute`` runs it (nbclient, widget state kept),
    once a test run: ``tests/test_export.py`` and ``tests/test_notebook_markdown.py`` read the same execution. Under
    pytest-xdist the first worker to ask executes it, holding a lock, into the run's temporary directory (shared by
    the workers); the other waits for the lock and reads it. Do not change what it returns."""
    import fcntl

    import nbclient
    import nbformat

    path = Path(path)
    if path in _EXECUTED:
        return _EXECUTED[path]

    def execute():
        nb = nbformat.read(path, as_version=4)
        nbclient.NotebookClient(nb, timeout=EXECUTE_REPLY_TIMEOUT, timeout_func=lambda cell: EXECUTE_TIMEOUT,
                                kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
        return nb

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        nb = execute()
    else:  # the workers' temporary directories share the run's
        shared = tmp_path_factory.getbasetemp().parent / "executed-notebooks"
        shared.mkdir(exist_ok=True)
        done = shared / path.name
        with open(shared / f"{path.name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released as the file closes
            if done.exists():
                nb = nbformat.read(done, as_version=4)
            else:
                nb = execute()
                nbformat.write(nb, shared / f"{path.name}.part")
                os.replace(shared / f"{path.name}.part", done)
    _EXECUTED[path] = nb
    return nb


def launch_browser(playwright):
    """Debian's Chromium under Playwright, headless, with the flags stack.md verified."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


@pytest.fixture(scope="session")
def voila_server(tmp_path_factory):
    """A Voilà serving the dashboard on loopback, with short culling times."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is absent")
    log_path = tmp_path_factory.mktemp("voila") / "voila.log"
    proc, url, log_path = start_voila(log_path)
    yield {"proc": proc, "url": url, "log": log_path}
    stop_voila(proc)


@pytest.fixture(scope="module")
def notebook_server(tmp_path_factory):
    """Plain Voilà serving ``notebooks/`` (tree mode) with the ``drlab`` template and drmath's kernels, as
    ``drmath.serve`` sets them up; its URL. A closed page's kernel goes (Voilà 0.5's tab-close beacon is refused,
    stack.md P5)."""
    log_path = tmp_path_factory.mktemp("voila-notebooks") / "voila.log"
    proc, url = start_plain_voila("notebooks", log_path, extra=[
        f"--MappingKernelManager.cull_interval={CULL_INTERVAL}",
        f"--MappingKernelManager.cull_idle_timeout={CULL_IDLE_TIMEOUT}"])
    yield url
    stop_voila(proc)


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium; skips when /usr/bin/chromium is absent."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is absent")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch_browser(p)
        yield b
        b.close()
