"""Over the kernel cap no visitor leaves empty-handed: a browser gets the static page of its scenario (HTTP 503
+ ``Retry-After``, then it waits in line for a seat), any other client the short plain busy body, and no kernel
starts for either.
Pool refills run at a lower CPU priority than the visitors' kernels.

A Voilà of its own (``python -m drmath.serve --pool-size 1 --max-kernels 2``: one visitor seat).
"""

import asyncio
import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import _kernels, http_get, kernel_ids, problems, start_voila, stop_voila, watch
from waiting import wait_until

import drmath
from drmath import report
from drmath.serve import kernels as serve_kernels
from drmath.serve import pages as serve_pages

pytestmark = pytest.mark.slow


def thread_nices(process):
    """The niceness of every thread of ``process``. [1]"""
    return {psutil.Process(t.id).nice() for t in process.threads()}


@pytest.fixture(scope="module")
def full_server(tmp_path_factory):
    """One pooled kernel, one seat, and the seat taken by a visitor (a plain GET); the pool refilled."""
    log = tmp_path_factory.mktemp("voila") / "voila.log"
    proc, url, log = start_voila(log, pool_size=1, cull_interval=60, cull_idle_timeout=600,
                                 extra=["--max-kernels=2",
                                        # the seat is held by a plain GET that never opens its websocket: kept
                                        "--GraceKernelManager.connect_timeout=0"])
    try:
        pooled = kernel_ids(proc)
        status, _, body = http_get(url)
        assert status == 200, body[-2000:]
        visitor = re.search(r'"kernelId": "([0-9a-f-]+)"', body).group(1)
        assert visitor in pooled
        wait_until(lambda: Path(log).read_text().count("is filled with") >= 2, 120, "the pool refilled")
        assert len(kernel_ids(proc)) == 2, "the pool did not refill"
        yield {"proc": proc, "url": url, "log": Path(log), "visitor": visitor}
    finally:
        stop_voila(proc)


def test_a_browser_over_the_cap_gets_its_scenario_explained(full_server, browser):
    """Over the cap a browser's page is sent static first (issue 24): its scenario's static dashboard and
    explainer, every figure drawn, under a notice that it waits for a seat; a visitor who leaves starts nothing."""
    proc, url = full_server["proc"], full_server["url"]
    before, started = kernel_ids(proc), full_server["log"].read_text().count("Kernel started")
    page = browser.new_page(viewport={"width": 1000, "height": 1400})
    log = watch(page)
    try:
        response = page.goto(url + "?training.gpus=10000", wait_until="commit", timeout=120_000)
        assert response.status == 503 and response.headers["retry-after"].isdigit()
        page.wait_for_function(f"""() => [...document.querySelectorAll('#drmath-preview .drmath-static-plot')]
            .filter(f => f.data && f.data.length && f.querySelector('.main-svg')).length === {len(report.FIGURES)}""",
                               timeout=60_000)
        notice = page.locator("#drmath-preview [role=status]").inner_text()
        assert "This page is static" in notice and "waiting for a free seat" in notice
        p = drmath.plan(drmath.Scenario().with_changes({"training.gpus": 10000}))
        shown = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#drmath-preview .num')]
            .map(e => [e.dataset.field, e.textContent]))""")
        assert shown and shown == {name: p.format(name) for name in shown}
        assert "10,000 GPUs" in page.locator("#drmath-preview").inner_text()
        own = f"503 GET {url}?training.gpus=10000"
        assert [x for x in problems(log) if x != own and "status of 503" not in x] == []
    finally:
        page.close()
    # the visitor left the line: its request ends (its access log line), and whatever it would have started, it has
    wait_until(lambda: "503 GET /?training.gpus=10000 " in full_server["log"].read_text(), 30,
               "the page's request ended after it was closed")
    assert kernel_ids(proc) == before  # no kernel started for it
    assert full_server["log"].read_text().count("Kernel started") == started


def test_a_bad_link_over_the_cap_explains_the_default_with_the_reason(full_server):
    status, headers, body = http_get(full_server["url"] + "?training.gpus=-1", accept="text/html,*/*;q=0.8")
    assert status == 503 and headers["Retry-After"].isdigit()
    assert "drmath-busy" in body and "settings were not used" in body and "8,000 GPUs" in body


def test_a_client_that_is_not_a_browser_gets_the_short_busy_answer(full_server):
    before = kernel_ids(full_server["proc"])
    status, headers, body = http_get(full_server["url"] + "?training.gpus=10000")
    assert status == 503 and headers["Retry-After"].isdigit()
    assert headers["Content-Type"].startswith("text/plain")
    assert "The workbook is busy" in body and "try again" in body and "<" not in body and len(body) < 500
    assert kernel_ids(full_server["proc"]) == before


def test_a_pool_refill_runs_at_lower_priority_than_a_visitor(full_server):
    if not (os.geteuid() == 0 or serve_kernels.can_restore_priority()):
        pytest.skip("this user may not restore a claimed kernel's priority (see docs/deployment.md)")
    kernels = {kid: process for process, kid in _kernels(full_server["proc"].pid)}
    visitor = kernels.pop(full_server["visitor"])
    (refill,) = kernels.values()
    base = psutil.Process(full_server["proc"].pid).nice()
    assert thread_nices(visitor) == {base}  # every thread back at the server's priority
    assert min(thread_nices(refill)) > base, thread_nices(refill)  # every thread nicer


def test_a_burst_renders_each_scenario_once():
    calls = []

    def render(query):
        calls.append(query)
        time.sleep(0.05)  # the stand-in's render time: the burst arrives while it renders
        return f"<html>{query}</html>"

    async def burst():
        pages = serve_pages.Explainers(render, size=2)
        first = await asyncio.gather(*[pages.get("training.gpus=1") for _ in range(10)])
        second = [await pages.get(q) for q in ("", "training.gpus=2", "", "training.gpus=1")]
        return first, second

    # in a thread: with Playwright's sync API this thread may already run an event loop
    with ThreadPoolExecutor(1) as pool:
        first, second = pool.submit(asyncio.run, burst()).result()
    assert set(first) == {"<html>training.gpus=1</html>"}
    assert second == ["<html></html>", "<html>training.gpus=2</html>", "<html></html>", "<html>training.gpus=1</html>"]
    # 10 at once: one render; "" still cached the second time; the least recently used one was dropped
    assert calls == ["training.gpus=1", "", "training.gpus=2", "training.gpus=1"]


def test_the_explainer_reads_a_link_as_the_dashboard_does():
    assert serve_pages.link_query("?token=abc&training.gpus=10000") == ("training.gpus=10000", None)
    query, notice = serve_pages.link_query("training.gpus=-1")
    assert query == "" and "were not used" in notice


def test_the_explainer_cached_under_a_pages_key_shows_the_scenario_that_page_opens_on():
    # no query opens the worked answer, a link to the defaults (or a bad one) the defaults: both were cached under
    # "" and rendered as the worked answer, while the page's kernel and notice said the default scenario
    for query in ("", "training.gpus=8000", "token=abc", "training.gpus=-1", "training.gpus=4096"):
        key = serve_pages.link_query(query)[0]
        assert serve_pages._link_scenario(key)[0] == serve_pages.page_scenario(query)[0], query
