"""The kernel cap holds: visitors over ``--max-kernels`` get a 503 "busy" page and start no kernel.

A real Voilà on loopback (``python -m drmath.serve`` via conftest), plain HTTP GETs (each admitted
GET is a visitor: it takes or starts a kernel that runs the notebook). The N = 20 browser load test
is ``bench/bench_load.py``.
"""

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import KernelWatch, http_get, kernel_ids, start_voila, stop_voila
from waiting import wait_until

pytestmark = pytest.mark.slow

CULL_INTERVAL, CULL_IDLE_TIMEOUT = 2, 4  # [s]


@pytest.mark.parametrize("pool_size, max_kernels, requests, then_cull", [
    (0, 2, 5, False),  # no pool: admitted visitors start their kernels
    (1, 3, 5, True),   # the served set-up: visitors take preheated kernels, the pool refills
])
def test_cap_holds(tmp_path, pool_size, max_kernels, requests, then_cull):
    seats = max_kernels - pool_size
    proc, url, log = start_voila(tmp_path / "voila.log", cull_interval=CULL_INTERVAL,
                               cull_idle_timeout=CULL_IDLE_TIMEOUT, pool_size=pool_size,
                               extra=[f"--max-kernels={max_kernels}"], figures=False)
    try:
        watch = KernelWatch(proc)
        with ThreadPoolExecutor(requests) as pool:
            replies = list(pool.map(http_get, [url] * requests))
        statuses = sorted(status for status, _, _ in replies)
        assert statuses == [200] * seats + [503] * (requests - seats), statuses
        for status, headers, body in replies:
            if status == 200:
                assert "drmath-figure" in body or "jupyter-config-data" in body
            else:
                assert headers.get("Retry-After", "").isdigit()
                assert "The workbook is busy" in body and "try again" in body
                assert "jupyter-config-data" not in body  # no kernel, no page
        # every kernel start there is to be has been: the pool's first (pool_size), the admitted visitors' own past
        # it (seats - pool_size) and the refills of what they took (pool_size, after the server's fill delay)
        starts = seats + pool_size
        wait_until(lambda: log.read_text().count(" start ends after ") >= starts, 60,
                   lambda: f"{starts} kernel starts ended: {log.read_text()[-3000:]}")
        assert len(kernel_ids(proc)) <= max_kernels
        assert log.read_text().count(" start begins ") == starts  # and none more was begun
        if not then_cull:
            assert watch.stop() <= max_kernels, f"{watch.most} kernels at once, over the cap of {max_kernels}"
            return

        # the visitors leave (no websocket was ever opened): their kernels are culled, the seats free up
        wait_until(lambda: len(kernel_ids(proc)) <= pool_size, 3 * CULL_INTERVAL + CULL_IDLE_TIMEOUT + 20,
                   "the visitors' kernels culled")
        status, _, _ = http_get(url)
        assert status == 200, "a seat did not free up after the cull"
        assert watch.stop() <= max_kernels, f"{watch.most} kernels at once, over the cap of {max_kernels}"
    finally:
        stop_voila(proc)
