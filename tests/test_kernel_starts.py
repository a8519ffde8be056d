"""Past the preheated pool, a burst's kernels start side by side, at most ``--max-starting`` at once (issue 24).

Voilà counted the pool's refills still waiting out ``fill_delay`` (8 s) as pooled kernels, so a visitor past
the pool took one and waited for it, at a refill's low priority, while the refill after it waited for that.
A page now takes only a started pooled kernel, or starts its own at once; the starts are bounded.
"""

import asyncio
import os
import re
import sys
import threading
import urllib.request
from pathlib import Path

import psutil
import pytest
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import _kernels, run_async, start_voila, stop_voila

from drmath.serve.kernels import CappedMixin, GraceKernelManager, can_restore_priority

BEGINS = re.compile(r"Kernel (\S+) start begins \((\d+) starting")
ENDS = re.compile(r"Kernel (\S+) start ends after")
SERVES = re.compile(r"Kernel (\S+) now serves a visitor")


def test_starts_overlap_up_to_the_bound(monkeypatch):
    """Six kernels asked at once: two start together, never three; each waits its turn, none is lost."""
    running, most, order = 0, 0, []

    async def start(self, *args, kernel_id=None, **kwargs):
        nonlocal running, most
        running += 1
        most = max(most, running)
        order.append(("begin", kernel_id))
        await asyncio.sleep(0.05)  # the stand-in's start time: the starts asked at once overlap in it
        running -= 1
        order.append(("end", kernel_id))
        return kernel_id

    async def ready(self, kernel_id):
        return None

    monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", start)
    monkeypatch.setattr(GraceKernelManager, "_until_ready", ready)
    manager = GraceKernelManager(max_starting=2)

    async def burst():
        return await asyncio.gather(*(manager.start_kernel() for _ in range(6)))

    ids = run_async(burst())
    assert len(set(ids)) == 6
    assert most == 2, order  # they overlap, and the bound holds
    assert manager._starting == 0


class _Task:
    def __init__(self, done):
        self._done = done

    def done(self):
        return self._done


class _Pool:
    def __init__(self, pool):
        self._pools = {"nb": pool}

    def _drop_dead_pooled(self, notebook_name=None):
        pass

    def get_pool_size(self, notebook_name):
        return len(self._pools.get(notebook_name, []))


class _Manager(CappedMixin, _Pool):
    pass


def test_a_page_takes_only_a_started_pooled_kernel():
    """A refill still waiting out fill_delay is not offered: the page starts its own kernel instead."""
    waiting, started = _Task(False), _Task(True)
    manager = _Manager([waiting, started])
    assert manager.get_pool_size("nb") == 1
    assert manager._pools["nb"][0] is started  # Voilà hands out pool[0]
    assert _Manager([_Task(False)]).get_pool_size("nb") == 0


def _visit(url, results):
    request = urllib.request.Request(url, headers={"Accept": "text/html", "Sec-Fetch-Dest": "document"})
    with urllib.request.urlopen(request, timeout=600) as r:
        results.append((r.status, len(r.read())))


@pytest.mark.slow
def test_a_burst_past_the_pool_starts_its_kernels_side_by_side(tmp_path):
    """Five visitors at once, a pool of one, --max-starting=2: the log shows two starts open at once and
    never three, and each visitor past the pool is served by a kernel started for it."""
    proc, url, log = start_voila(tmp_path / "voila.log", pool_size=1, cull_interval=60, cull_idle_timeout=600,
                                 extra=["--max-starting=2", "--max-kernels=8"], figures=False)
    try:
        results = []
        threads = [threading.Thread(target=_visit, args=(url, results)) for _ in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=600)
        text = Path(log).read_text()
        server_nice = psutil.Process(proc.pid).nice()
        nices = {kid: {psutil.Process(t.id).nice() for t in process.threads()} for process, kid in _kernels(proc.pid)}
    finally:
        stop_voila(proc)
    assert [status for status, _ in results] == [200] * 5, results
    open_now, most = set(), 0
    for line in text.splitlines():
        if m := BEGINS.search(line):
            open_now.add(m.group(1))
            most = max(most, len(open_now))
            assert int(m.group(2)) == len(open_now) <= 2, line
        elif m := ENDS.search(line):
            open_now.discard(m.group(1))
    assert most == 2, text[-4000:]
    started = set(BEGINS.findall(text) and [m.group(1) for m in BEGINS.finditer(text)])
    served = [m.group(1) for m in SERVES.finditer(text)]
    assert len(served) == 5 and set(served) <= started, (served, started)
    if os.geteuid() == 0 or can_restore_priority():
        # issue 24: a kernel started for a visitor boots nicer than the server while its page is static (none of
        # these pages opens its websocket, which would give it the server's priority back)
        niced = [kid for kid in served if kid in nices and min(nices[kid]) > server_nice]
        assert len(niced) >= 3, (nices, server_nice)
