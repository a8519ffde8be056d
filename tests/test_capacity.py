"""The kernel cap holds: visitors over ``--max-kernels`` get a 503 "busy" page and start no kernel.

A real Voilà on loopback (``python -m drmath.serve`` via conftest), plain HTTP GETs (each admitted
GET is a visitor: it takes or starts a kernel that runs the notebook). The N = 20 browser load test
is ``bench/bench_load.py``.
"""

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import KernelWatch, http_get, kernel_ids, start_voila, stop_voila

pytestmark = pytest.mark.slow

CULL_INTERVAL, CULL_IDLE_TIMEOUT = 2, 4  # [s]


@pytest.mark.parametrize("pool_size, max_kernels, requests, then_cull", [
    (0, 2, 5, False),  # no pool: admitted visitors start their kernels
    (1, 3, 5, True),   # the served set-up: visitors take preheated kernels, the pool refills
])
def test_cap_holds(tmp_path, pool_size, max_kernels, requests, then_cull):
    seats = max_kernels - pool_size
    proc, url, _ = start_voila(tmp_path / "voila.log", cull_interval=CULL_INTERVAL,
                               cull_idle_timeout=CULL_IDLE_TIMEOUT, pool_size=pool_size,
                               extra=[f"--max-kernels={max_kernels}"])
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
        time.sleep(1.5)  # a pool refill would have started by now
        assert len(kernel_ids(proc)) <= max_kernels
        if not then_cull:
            assert watch.stop() <= max_kernels, f"{watch.most} kernels at once, over the cap of {max_kernels}"
            return

        # the visitors leave (no websocket was ever opened): their kernels are culled, the seats free up
        deadline = time.monotonic() + 3 * CULL_INTERVAL + CULL_IDLE_TIMEOUT + 20
        while time.monotonic() < deadline and len(kernel_ids(proc)) > pool_size:
            time.sleep(0.5)
        assert len(kernel_ids(proc)) <= pool_size, "the visitors' kernels were not culled"
        status, _, _ = http_get(url)
        assert status == 200, "a seat did not free up after the cull"
        assert watch.stop() <= max_kernels, f"{watch.most} kernels at once, over the cap of {max_kernels}"
    finally:
        stop_voila(proc)
