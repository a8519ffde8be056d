"""What a page request can and cannot do (issue 12): its query cannot inject markup or switch the
template, an over-long link gets a readable page, and the pool's size fits the machine.

Against the session Voilà of conftest (``python -m drmath.serve``, pool of 2) and headless Chromium.
"""

import http.client
import json
import sys
import time
import urllib.parse
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import READY_JS, kernel_ids, problems, watch

from drmath import serve
from drmath.serve import cli as serve_cli

XSS = "x%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(document.domain)%3E"


def raw_get(url, target, timeout=60):
    """``(status, headers, body)`` of one GET of ``target``, redirects not followed; the whole answer
    must arrive within ``timeout`` s (a page streaming heartbeats forever fails)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    deadline = time.monotonic() + timeout
    try:
        conn.request("GET", target, headers={"Accept": "text/html"})
        r = conn.getresponse()
        body = b""
        while chunk := r.read1(65536):
            body += chunk
            assert time.monotonic() < deadline, f"no complete answer in {timeout} s: {r.status} {body[-300:]!r}"
        return r.status, {k.lower(): v for k, v in r.getheaders()}, body.decode(errors="replace")
    finally:
        conn.close()


# --------------------------------------------------------------------------- sizing (no server)


@pytest.mark.parametrize("cores, memory, pool, cap", [
    (2, 24e9, 2, 24),     # the project machine: CPU-bound, as measured (docs/deployment.md)
    (16, 64e9, 8, 192),   # a big box: pool capped at 8, 12 visitors' kernels per core
    (8, 4e9, 3, 15),      # memory-bound: half of 4 GB, less the server, in 120 MB kernels; pool a quarter
    (1, 1e9, 1, 2),       # the smallest that serves: one pooled kernel, one visitor
])
def test_machine_defaults_follow_cores_and_memory(cores, memory, pool, cap):
    assert serve.machine_defaults(cores, memory) == (pool, cap)


def test_machine_defaults_reject_nonsense():
    with pytest.raises(ValueError, match=r"cores = 0: .*at least 1"):
        serve.machine_defaults(0, 8e9)
    with pytest.raises(ValueError, match=r"memory = 1e\+08 B.*at least"):
        serve.machine_defaults(2, 1e8)


def test_command_sizes_from_the_machine_unless_told(monkeypatch):
    monkeypatch.setattr(serve_cli, "machine", lambda: (16, 64e9))
    cmd = serve.command([])[0]
    assert "--VoilaConfiguration.default_pool_size=8" in cmd and "--GraceKernelManager.max_kernels=192" in cmd
    cmd = serve.command(["--pool-size", "3", "--max-kernels", "7"])[0]
    assert "--VoilaConfiguration.default_pool_size=3" in cmd and "--GraceKernelManager.max_kernels=7" in cmd


# --------------------------------------------------------------------------- theme and template


def test_injected_theme_runs_no_script(voila_server, browser):
    page = browser.new_page(viewport={"width": 1000, "height": 1400})
    log, dialogs = watch(page), []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        page.goto(voila_server["url"] + "?theme=" + XSS, wait_until="commit", timeout=120_000)
        page.wait_for_function(READY_JS, timeout=120_000)
        assert dialogs == []
        assert page.evaluate("() => document.querySelectorAll('img[src=\"x\"], [onerror]').length") == 0
        assert "theme" not in urllib.parse.urlsplit(page.url).query
        assert problems(log) == []
    finally:
        page.close(run_before_unload=True)


def test_template_cannot_switch_to_the_cdn_one(voila_server, browser):
    page = browser.new_page(viewport={"width": 1000, "height": 1400})
    log, outside = watch(page), []
    page.route(lambda u: urllib.parse.urlsplit(u).hostname not in ("127.0.0.1", "localhost"),
               lambda r: (outside.append(r.request.url), r.abort()))
    try:
        page.goto(voila_server["url"] + "?template=lab&training.gpus=4096", wait_until="commit", timeout=120_000)
        page.wait_for_function(READY_JS, timeout=120_000)
        assert outside == []  # the stock lab template links Font Awesome on cdn.jsdelivr.net
        assert page.evaluate("() => !!document.querySelector('link[rel=preload][href*=\"plotly-basic\"]')")  # drlab
        scenario = json.loads(page.evaluate("() => document.querySelector('.drmath-scenario').dataset.scenario"))
        assert scenario["training.gpus"] == 4096  # the rest of the share link still counts
        assert problems(log) == []
    finally:
        page.close(run_before_unload=True)


@pytest.mark.parametrize("query", ["template=nonexistent", "theme=dark&training.gpus=4096&template=nonexistent"])
def test_a_template_or_theme_argument_starts_no_kernel(voila_server, query):
    before = kernel_ids(voila_server["proc"])
    status, headers, _ = raw_get(voila_server["url"], "/?" + query, timeout=30)  # today: never completes
    assert status == 302, status
    assert headers["location"] == ("/?training.gpus=4096" if "gpus" in query else "/")
    assert kernel_ids(voila_server["proc"]) <= before  # nothing started (the pool refills later, not now)


# --------------------------------------------------------------------------- long links


def test_a_too_long_link_gets_a_readable_page(voila_server):
    before = kernel_ids(voila_server["proc"])
    target = "/?training.gpus=" + "1" * 100_000
    status, headers, body = raw_get(voila_server["url"], target)  # today: the connection closes, no answer
    assert status == 414
    assert headers["content-type"].startswith("text/html")
    assert "too long" in body and 'href="/"' in body
    assert kernel_ids(voila_server["proc"]) <= before
    # a link under drmath's limit is served as usual (the dashboard explains what it could not read)
    status, _, _ = raw_get(voila_server["url"], "/?training.gpus=" + "1" * 10_000)
    assert status == 200
