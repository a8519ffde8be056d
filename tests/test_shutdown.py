"""SIGTERM stops the server whatever it has served (issue 32, item 7).

Kubernetes, systemd and HAProxy reloads stop a replica with SIGTERM. A server that had served a phone-sized page
(360x740, touch; its figures' SVGs drawn at a width the server had not drawn at start) logged ``Handle signal
15``, shut its kernels down and stayed up: Voilà stops its event loop, and the interpreter's exit then waited for
ever for the thread that reads the SVG renderer's Chromium output (the renderer was never closed, and its
Chromium runs in a process group of its own). Here a real server on loopback serves a live phone-sized visitor in
headless Chromium, a static page and an SVG render in flight, then gets SIGTERM: within 10 s (the server's own
bound is :data:`~drmath.serve.settings.SHUTDOWN_TIMEOUT`) the process, its kernels, its zygote and its Chromium
are gone, and the live page says the server is restarting. Before the fix, 10 s after SIGTERM the server was
up, its zygote and eleven Chromium processes running.
"""

import json
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import BROWSER, kernel_processes, start_voila, stop_voila
from test_phone import open_phone
from waiting import wait_until

EXIT_WITHIN = 10.0  # [s] the bound, SIGTERM to every process gone


def descendants(pid):
    """``{pid: what it is}`` of the server's kernels, zygote and Chromium processes."""
    found = {child.pid: "kernel" for child in kernel_processes(pid)}
    for child in psutil.Process(pid).children(recursive=True):
        try:
            cmdline = " ".join(child.cmdline())
            if "drmath.serve.zygote_process" in cmdline:
                found[child.pid] = "zygote"
            elif "chrom" in child.name().lower():
                found[child.pid] = "chromium"
        except psutil.Error:
            pass
    return found


def running(pids):
    """Those of ``pids`` still running (a zombie has ended)."""
    alive = {}
    for pid, what in pids.items():
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive[pid] = what
        except psutil.NoSuchProcess:
            pass
    return alive


def svgs_in_flight(url, windows=(300, 420, 500, 620, 700)):
    """Ask for the default dashboard's SVGs at window widths the server does not draw at start: those the server
    lets one client have drawn are queued, and drawn one by one while the test goes on."""
    from drmath.serve.figure_svg import URL, WIDE, figures_key, plot_widths, rung
    from drmath.serve.static_dashboard import static_dashboard

    figures = static_dashboard("")[1]
    for window in windows:
        one, link = plot_widths(window)
        rungs = ",".join(str(rung(link if name == WIDE else one)) for name in figures)
        with urllib.request.urlopen(f"{url}{URL}{figures_key(figures)}/{rungs}", timeout=60) as r:
            json.loads(r.read())


@pytest.mark.slow
@pytest.mark.browser
def test_sigterm_stops_a_server_that_served_pages_its_kernels_zygote_and_chromium(tmp_path, browser):
    proc, url, log = start_voila(tmp_path / "voila.log", pool_size=1, extra=["--max-kernels=4"])
    context = None
    try:
        context, page, _ = open_phone(browser, url, 360, 740)  # a live visitor, phone-sized
        with urllib.request.urlopen(urllib.request.Request(url, headers=BROWSER), timeout=120) as r:
            assert b"drmath-preview" in r.read()  # a static page, whose visitor never goes live
        svgs_in_flight(url)
        wait_until(lambda: "chromium" in descendants(proc.pid).values(), 60, "the SVG renderer started")
        pids = descendants(proc.pid)
        assert {"kernel", "zygote", "chromium"} <= set(pids.values()), pids

        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        wait_until(lambda: proc.poll() is not None and not running(pids), EXIT_WITHIN, lambda: (
            f"the server and all under it stopped after SIGTERM ({time.monotonic() - sent:.1f} s: server "
            f"{'exited' if proc.poll() is not None else 'still up'}, still running: {running(pids)})\n"
            f"{Path(log).read_text()[-3000:]}"))
        notice = page.wait_for_selector("#drmath-session-notice", timeout=10_000)
        assert notice.get_attribute("data-reason") == "restart", notice.inner_text()
        assert "restarting" in notice.inner_text()
    finally:
        if context is not None:
            context.close()
        stop_voila(proc)


# A process that cannot exit by itself (a non-daemon thread that never ends, as the renderer's output reader was),
# with a child of its own, that starts the server's last resort and returns.
STUCK = textwrap.dedent("""
    import subprocess, sys, threading
    from drmath.serve.app import _exit_after

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    print(child.pid, flush=True)
    threading.Thread(target=threading.Event().wait, name="never-ends").start()
    _exit_after(1.0)
""")


def test_the_last_resort_exits_and_kills_what_runs_under_the_server():
    """Whatever the stop waited for, the server exits SHUTDOWN_TIMEOUT after the signal, its processes killed."""
    proc = subprocess.Popen([sys.executable, "-c", STUCK], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    child = int(proc.stdout.readline())
    try:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 1, err
        assert "not stopped within 1 s" in err and "killed 1 processes" in err and "never-ends" in err, err
        assert not running({child: "child"}), f"its child {child} still runs"
    finally:
        for pid in (proc.pid, child):
            if running({pid: ""}):
                psutil.Process(pid).kill()
