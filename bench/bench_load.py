"""Load test: N concurrent visitors on the Voilà dashboard, the kernel cap, and memory after they leave.

    .venv/bin/python bench/bench_load.py [--visitors 20] [--clients ws|browser|mixed] [--browsers 6]
                                         [--stagger 0] [--pool-size 2] [--max-kernels N+pool] [--over-cap 5]
                                         [--cull-interval 10] [--cull-idle-timeout 60]

Issue 24 (static first): ``--clients mixed --visitors 50`` sends ``--browsers`` headless Chromium pages and
plain HTTP clients for the rest, all arriving at once, and reports for each kind the p50/p95 time to every
static figure visible (a browser: every static figure on its 1400x1500 first screen drawn, the static dashboard's;
an HTTP client that sends a browser's ``Sec-Fetch-*`` headers: the static part of the page received) and the time
to live controls (a browser: the live page drawn and the static box gone; an HTTP client: its widget states
received, as ``ws``). For the browsers it also prints how many of the static dashboard's figures came as the
server's SVGs (``drmath.serve.figure_svg``; the others drawn by plotly.js in the page) and the time until every
figure of the static page is drawn: the explainer's, below the first screen, are drawn after its first paint or
when scrolled near.

Not run in CI (``tests/test_capacity.py`` is the small in-CI check of the cap). Everything runs on this
machine: ``python -m drmath.serve`` on a free 127.0.0.1 port (tests/conftest.py ``start_voila``) and
visitors that talk only to it. Steps:

1. baseline: the server with its preheated pool, idle (steady RSS); memory of the server and its kernels;
2. ``--visitors`` visitors arrive at once (or ``--stagger`` s apart). ``--clients ws`` (default): each
   GETs the page and then does what the page's JavaScript does, minus drawing: opens the kernel
   websocket, opens the ``jupyter.widget.control`` comm and requests the widget states; "first figure"
   is when those states (figure data included) arrive. ``--clients browser``: headless Chromium pages
   (one context each); "first figure" is ``performance.now()`` when the first plotly figure is drawn;
   ``--clients mixed``: both, as issue 24 asks (above);
3. each visitor moves the GPU slider one step and waits for the kernel's figure update;
4. while every seat is taken, ``--over-cap`` more plain GETs and ``--over-cap-browsers`` browser pages
   arrive: each must get a 503 with ``Retry-After`` and start no kernel; a GET gets the one-line busy
   text, a browser the standalone explainer of its link's scenario (busy notice, every figure drawn);
   the kernel count is sampled every 0.2 s all along and must never exceed ``--max-kernels``;
5. memory under load: per-kernel RSS / USS / PSS (psutil ``memory_full_info``), server RSS;
6. the visitors leave; the bench polls until the server's memory (server + kernels RSS) is back within
   10% of the baseline, for at most ``--recover-timeout`` seconds.

Why websocket clients by default: 20 Chromium pages *and* the server on this shared 2-core box starve
each other — all at once, 0/20 pages drew in 240 s; 4 s apart, 8/20 — so a browser run measures the
browsers more than the server. The websocket clients cost the server exactly what a page costs it.
"""

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlparse

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from conftest import BROWSER, CHROMIUM, CHROMIUM_ARGS, READY_JS, KernelWatch, kernel_processes, start_voila, stop_voila  # noqa: E402

MB = 1024 * 1024
FIRST_FIGURE_JS = """() => { for (const f of document.querySelectorAll('.drmath-figure')) {
  const gd = f.querySelector('.js-plotly-plot');
  if (gd && gd.data && gd.data.length && gd.querySelector('.main-svg')) return true; } return false; }"""
# Each page's timestamps (performance.now()), checked when the page's DOM changes, not on every animation
# frame: a loop of requestAnimationFrame makes a browser draw ~60 frames a second for as long as it runs, and
# reading boxes forces layouts of a page still being built. Six such pages cost this 2-core machine about one
# core (0.15 CPU-s a second each, measured on a static page) that real visitors' browsers never cost the server.
# window.__first / window.__ready: the first live figure drawn, the live page ready (READY_JS).
INIT_JS = """window.__first = null; window.__ready = null;
(function () {
  const first = """ + FIRST_FIGURE_JS + """, ready = """ + READY_JS + """;
  function check() {
    try {
      if (window.__first === null && first()) window.__first = performance.now();
      if (window.__ready === null && ready()) window.__ready = performance.now();
    } catch (e) {}
    return window.__ready !== null;
  }
  const seen = new MutationObserver(() => { if (check()) seen.disconnect(); });
  seen.observe(document, {subtree: true, childList: true});
})();"""
SCENARIO_JS = "() => document.querySelector('.drmath-scenario').dataset.scenario"
# issue 24: window.__static, every figure of the static explainer drawn; window.__onscreen, every static figure on
# the first screen drawn (which figures are on it comes from an IntersectionObserver, so no box is read);
# window.__live, the live page drawn and the static box gone; each the performance.now() it first held
STATIC_INIT_JS = """window.__static = null; window.__live = null; window.__onscreen = null;
(function () {
  const ready = """ + READY_JS + """;
  const drawn = (g) => !!g.querySelector('.main-svg');
  const figures = '#drmath-preview .drmath-s-figure, .drmath-static-plot';
  const onScreen = new Map();  // static figure -> whether on screen, once the observer has said
  const drawnAt = new Map();  // static figure -> when it was first seen drawn
  let watch = null;
  function check() {
    try {
      const now = performance.now();
      const all = document.querySelectorAll(figures);
      all.forEach((g) => { if (!drawnAt.has(g) && drawn(g)) drawnAt.set(g, now); });
      if (!watch && document.getElementById('drmath-preview')) {
        watch = new IntersectionObserver((entries) => {
          for (const e of entries) onScreen.set(e.target, e.isIntersecting);
          check();
        });
      }
      if (watch) all.forEach((g) => { if (!onScreen.has(g)) { onScreen.set(g, null); watch.observe(g); } });
      const f = document.querySelectorAll('.drmath-static-plot');
      if (window.__static === null && f.length && [...f].every(g => g.data && drawn(g)))
        window.__static = now;
      // every static figure the reader sees without scrolling (the static dashboard's, and the explainer's if in
      // view), drawn: when the last of them was (the observer says which they are a frame later)
      const known = [...onScreen.values()].every((v) => v !== null);
      const seen = [...onScreen.keys()].filter((g) => onScreen.get(g));
      if (window.__onscreen === null && known && seen.length && seen.every((g) => drawnAt.has(g)))
        window.__onscreen = Math.max(...seen.map((g) => drawnAt.get(g)));
      if (window.__onscreen !== null && window.__svgs === undefined)  // how many came as the server's SVGs
        window.__svgs = document.querySelectorAll('#drmath-preview .drmath-s-svg').length;
      if (window.__live === null && !document.getElementById('drmath-preview') && ready())
        window.__live = now;
    } catch (e) {}
    return window.__live !== null;
  }
  const changes = new MutationObserver(() => { if (check()) { changes.disconnect(); if (watch) watch.disconnect(); } });
  changes.observe(document, {subtree: true, childList: true});
})();"""
# where a browser's first screen went [ms]: its page's first byte, its first paint, and its SVGs' request and answer
TIMING_JS = """() => {
  const nav = performance.getEntriesByType('navigation')[0] || {};
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  const svg = performance.getEntriesByType('resource').find(e => e.name.includes('/static-figures/'));
  return {first_byte: nav.responseStart, paint: paint && paint.startTime, svg_asked: svg && svg.startTime,
          svg_came: svg && svg.responseEnd};
}"""
STATIC_END = b"<!--drmath-static-end-->"  # drmath.serve.static.STATIC_END


def percentile(values, q):
    values = sorted(values)
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def memory(pid, full=True):
    """Server and kernel memory [bytes]: RSS always, USS/PSS with ``full``."""
    server = psutil.Process(pid)
    info = server.memory_full_info() if full else server.memory_info()
    result = {"server_rss": info.rss, "server_uss": getattr(info, "uss", None), "kernels": []}
    for k in kernel_processes(pid):
        try:
            m = k.memory_full_info() if full else k.memory_info()
            result["kernels"].append({"rss": m.rss, "uss": getattr(m, "uss", None), "pss": getattr(m, "pss", None)})
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    result["total_rss"] = result["server_rss"] + sum(k["rss"] for k in result["kernels"])
    if full:
        result["total_uss"] = result["server_uss"] + sum(k["uss"] for k in result["kernels"])
        result["total_pss"] = info.pss + sum(k["pss"] for k in result["kernels"])
    return result


def plain_get(url):
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, r.headers.get("Retry-After"), r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Retry-After"), e.read().decode(errors="replace")


async def visitor(browser, url, i, timeout_ms):
    """One visitor: load the page, time the figures, move a slider. Returns its record (and page)."""
    context = await browser.new_context(viewport={"width": 1400, "height": 1500})
    page = await context.new_page()
    external = []
    await page.route(lambda u: urlparse(u).hostname not in ("127.0.0.1", "localhost"),
                     lambda route: (external.append(route.request.url), asyncio.ensure_future(route.abort())))
    await page.add_init_script(INIT_JS)
    await page.add_init_script(STATIC_INIT_JS)
    rec = {"i": i, "kind": "browser", "status": None, "first_ms": None, "ready_ms": None, "slider_ms": None,
           "error": None, "external": external, "static_ms": None, "live_ms": None, "onscreen_ms": None}
    try:
        response = await page.goto(url, wait_until="commit", timeout=timeout_ms)
        rec["status"] = response.status if response else None
        await page.wait_for_function("() => window.__ready !== null && (window.__live !== null || "
                                     "window.__static === null)", timeout=timeout_ms, polling=250)
        (rec["first_ms"], rec["ready_ms"], rec["static_ms"], rec["live_ms"], rec["onscreen_ms"],
         rec["svgs"]) = await page.evaluate("[window.__first, window.__ready, window.__static, window.__live, "
                                            "window.__onscreen, window.__svgs]")
        rec["timing"] = await page.evaluate(TIMING_JS)
        before = await page.evaluate(SCENARIO_JS)
        t = time.monotonic()
        await page.locator(".drmath-control-training-gpus .noUi-handle").first.focus()
        await page.keyboard.press("ArrowRight")
        await page.wait_for_function(f"(b) => ({SCENARIO_JS})() !== b", arg=before, timeout=60_000, polling=50)
        rec["slider_ms"] = (time.monotonic() - t) * 1000
        rec["gpus"] = json.loads(await page.evaluate(SCENARIO_JS)).get("training.gpus")
    except Exception as e:  # noqa: BLE001 - recorded and reported
        rec["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    return rec, context, page


async def ws_visitor(url, i, timeout, static_first=False):
    """A websocket-client visitor: what the page's JavaScript does, minus drawing.

    GET the page (Voilà streams the pre-rendered HTML), open the kernel websocket (v1 protocol), open the
    ``jupyter.widget.control`` comm and ``request_states`` as ipywidgets' manager does: the reply carries
    every widget's state, figures included (= "first figure" for this client). Then move the GPU slider
    one step (a ``comm_msg`` update of its ``index``) and time until the kernel pushes the new figures.
    With ``static_first`` it sends a browser's headers (``conftest.BROWSER``) and also times the static
    part of the page (``static_ms``); "live" (``live_ms``) is when its widget states arrive.
    """
    import re
    import uuid

    from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1, serialize_msg_to_ws_v1
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest
    from tornado.websocket import websocket_connect

    rec = {"i": i, "kind": "http" if static_first else "ws", "status": None, "first_ms": None, "ready_ms": None,
           "slider_ms": None, "error": None, "external": [], "ws": None, "static_ms": None, "live_ms": None}
    t0 = time.monotonic()
    ms = lambda: (time.monotonic() - t0) * 1000  # noqa: E731
    body = bytearray()

    def received(chunk):
        body.extend(chunk)
        if rec["static_ms"] is None and STATIC_END in body[-len(chunk) - len(STATIC_END):]:
            rec["static_ms"] = ms()
    try:
        r = await AsyncHTTPClient().fetch(url, request_timeout=timeout, raise_error=False, streaming_callback=received,
                                          headers=BROWSER if static_first else None)
        rec["status"] = r.code
        if r.code != 200 and not (static_first and r.code == 503 and rec["static_ms"] is not None):
            raise RuntimeError(f"HTTP {r.code}")  # a page sent static first is 503 while it waits for a seat
        rec["html_ms"] = ms()
        html = body.decode()
        kernel_id = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                                         html, re.S).group(1))["kernelId"]
        session = uuid.uuid4().hex
        # the page's seat: the cookie the page request set (a kernel id alone opens no websocket)
        cookie = "; ".join(c.split(";", 1)[0] for c in r.headers.get_list("Set-Cookie"))
        ws = await websocket_connect(HTTPRequest(url.replace("http://", "ws://")
                                                 + f"api/kernels/{kernel_id}/channels?session_id={session}",
                                                 headers={"Cookie": cookie}),
                                     subprotocols=["v1.kernel.websocket.jupyter.org"])
        rec["ws"] = ws

        def send(msg_type, content, metadata=None):
            header = {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": session, "username": "",
                      "version": "5.3", "date": "2026-01-01T00:00:00Z"}
            parts = [json.dumps(x).encode() for x in (header, {}, metadata or {}, content)]
            return ws.write_message(serialize_msg_to_ws_v1(parts, "shell"), binary=True)

        async def receive(until):
            while True:
                left = timeout - (time.monotonic() - t0)
                raw = await asyncio.wait_for(ws.read_message(), max(left, 0.1))
                if raw is None:
                    raise RuntimeError("websocket closed")
                if not isinstance(raw, bytes):
                    continue
                _, parts = deserialize_msg_from_ws_v1(raw)
                header, content = json.loads(parts[0]), json.loads(parts[3])
                if header["msg_type"] == "comm_msg" and until(content.get("data", {})):
                    return content["data"]

        control = uuid.uuid4().hex
        await send("comm_open", {"comm_id": control, "target_name": "jupyter.widget.control", "data": {}},
                   {"version": "1.0.0"})
        await send("comm_msg", {"comm_id": control, "data": {"method": "request_states"}})
        states = (await receive(lambda d: d.get("method") == "update_states"))["states"]
        figures = [k for k, v in states.items() if "figure" in v.get("state", {})]
        if not figures or not any(states[k]["state"]["figure"].get("data") for k in figures):
            raise RuntimeError("no figure data in the widget states")
        rec["first_ms"] = rec["ready_ms"] = rec["live_ms"] = ms()
        slider = next(k for k, v in states.items()
                      if "drmath-control-training-gpus" in v.get("state", {}).get("_dom_classes", []))
        index = states[slider]["state"]["index"]
        t = time.monotonic()
        await send("comm_msg", {"comm_id": slider, "data": {"method": "update", "state": {"index": index + 1},
                                                           "buffer_paths": []}})
        await receive(lambda d: d.get("method") == "update" and "figure" in d.get("state", {}))
        rec["slider_ms"] = (time.monotonic() - t) * 1000
    except Exception as e:  # noqa: BLE001 - recorded and reported
        rec["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
    return rec


# issue 24: a browser over the cap gets its static page at once (every explainer figure drawn) and waits in line
STATIC_DRAWN_JS = """() => { const figs = document.querySelectorAll('.drmath-static-plot');
  return figs.length > 0 && [...figs].every(g => g.data && g.querySelector('.main-svg')); }"""


async def busy_page(browser, url):
    """One more browser visitor while every seat is taken: status, Retry-After (503: it waits in line), its
    first notice line, static figures drawn, whether the notice says it is static and waiting, figures."""
    context = await browser.new_context(viewport={"width": 1200, "height": 1400})
    page = await context.new_page()
    try:
        response = await page.goto(url, wait_until="commit", timeout=60_000)
        try:
            await page.wait_for_function(STATIC_DRAWN_JS, timeout=60_000, polling=250)
        except Exception:  # noqa: BLE001 - counted as a page without figures
            pass
        drawn, figures = await page.evaluate("""() => {
            const figs = [...document.querySelectorAll('.drmath-static-plot')];
            return [figs.filter(g => g.data && g.querySelector('.main-svg')).length, figs.length]; }""")
        status = page.locator("#drmath-preview [role=status]")
        text = (await status.inner_text()).strip() if await status.count() else ""
        notice = "This page is static" in text and "waiting for a free seat" in text
        return response.status, response.headers.get("retry-after"), text[:90], drawn, notice, figures
    finally:
        await context.close()


async def run(args, url, proc):
    from playwright.async_api import async_playwright

    out = {}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        t0 = time.monotonic()
        from tornado.httpclient import AsyncHTTPClient

        AsyncHTTPClient.configure(None, max_clients=max(64, 2 * args.visitors))

        async def arrive(i):
            await asyncio.sleep(i * args.stagger)
            if args.clients == "ws":
                return await ws_visitor(url, i, args.page_timeout), None, None
            if args.clients == "mixed" and i >= args.browsers:  # issue 24: plain HTTP clients, browser headers
                return await ws_visitor(url, i, args.page_timeout, static_first=True), None, None
            return await visitor(browser, url, i, args.page_timeout * 1000)

        results = await asyncio.gather(*[arrive(i) for i in range(args.visitors)])
        out["spike_wall_s"] = time.monotonic() - t0
        out["records"] = [r for r, _, _ in results]
        out["kernels_with_visitors"] = len(kernel_processes(proc.pid))
        # over the cap: plain GETs and one browser page, while every visitor still holds a seat
        loop = asyncio.get_running_loop()
        with ThreadPoolExecutor(max(args.over_cap, 1)) as pool:
            out["over_cap"] = await asyncio.gather(*[loop.run_in_executor(pool, plain_get, url)
                                                     for _ in range(args.over_cap)])
        # browsers over the cap, each with a share link of its own: the explainer of that scenario
        out["busy_pages"] = [await busy_page(browser, url + f"?training.gpus={4096 * (i + 1)}")
                             for i in range(args.over_cap_browsers)]
        await asyncio.sleep(2)
        out["kernels_after_over_cap"] = len(kernel_processes(proc.pid))
        out["memory_loaded"] = memory(proc.pid)
        # the visitors leave
        out["leave_at"] = time.monotonic()
        for rec, _context, page in results:
            try:
                if page is not None:
                    await page.close(run_before_unload=True)
                if rec.get("ws") is not None:
                    rec["ws"].close()
            except Exception:  # noqa: BLE001
                pass
            rec.pop("ws", None)
        await asyncio.sleep(1)
        for _, context, _ in results:
            if context is not None:
                await context.close()
        await browser.close()
    return out


def static_figures(recs, n):
    """Issue 24: print p50/p95 of the time to every static figure visible and to live controls, per kind of client
    and for all; returns ``(static [ms], live [ms])`` of every visitor that got them.

    A browser's "static" is every static figure on its first screen drawn (the static dashboard's, above the
    explainer): the page draws the figures below it after its first paint or when scrolled near them. The time to every
    figure of the page drawn is printed beside it."""
    every_static, every_live = [], []
    for kind, what in (("browser", "browsers (static: every static figure on the first screen drawn; live: the "
                                   "live page drawn, the static box gone)"),
                       ("http", "HTTP clients (static: the static part received; live: widget states received)")):
        mine = [r for r in recs if r.get("kind") == kind]
        if not mine:
            continue
        field = "onscreen_ms" if kind == "browser" else "static_ms"
        static = [r[field] for r in mine if r.get(field) is not None]
        live = [r["live_ms"] for r in mine if r.get("live_ms") is not None]
        every_static += static
        every_live += live
        line = f"{len(mine)} {what}: static {len(static)}/{len(mine)}"
        if static:
            line += f", p50 {percentile(static, .5) / 1000:.1f} s, p95 {percentile(static, .95) / 1000:.1f} s"
        line += f"; live {len(live)}/{len(mine)}"
        if live:
            line += f", p50 {percentile(live, .5) / 1000:.1f} s, p95 {percentile(live, .95) / 1000:.1f} s"
        print(line)
        if kind == "browser":  # the static dashboard's figures that came as the server's SVG (the others: plotly.js)
            print(f"  browsers, static dashboard figures that came as SVG: {[r.get('svgs') for r in mine]}")
            for what in ("first_byte", "paint", "svg_asked", "svg_came"):
                times = [(r.get("timing") or {}).get(what) for r in mine]
                print(f"  browsers' {what.replace('_', ' ')} [s]: "
                      + ", ".join("-" if t is None else f"{t / 1000:.1f}" for t in times))
        whole = [r["static_ms"] for r in mine if kind == "browser" and r.get("static_ms") is not None]
        if whole:  # the explainer's figures too, below the first screen (drawn after the first paint)
            print(f"  {kind}s, every figure of the static page drawn (scrolled to or not): {len(whole)}/{len(mine)}, "
                  f"p50 {percentile(whole, .5) / 1000:.1f} s, p95 {percentile(whole, .95) / 1000:.1f} s")
    if every_static:
        print(f"all {n} arrivals: time to every static figure visible p50 {percentile(every_static, .5) / 1000:.1f} s, "
              f"p95 {percentile(every_static, .95) / 1000:.1f} s ({len(every_static)}/{n}); time to live controls "
              + (f"p50 {percentile(every_live, .5) / 1000:.1f} s, p95 {percentile(every_live, .95) / 1000:.1f} s "
                 f"({len(every_live)}/{n})" if every_live else "none"))
    return every_static, every_live


def fmt_mb(x):
    return f"{x / MB:.0f} MB"


from _figures import record  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--visitors", type=int, default=20)
    parser.add_argument("--pool-size", type=int, default=2)
    parser.add_argument("--max-kernels", type=int, default=None, help="default: visitors + pool size")
    parser.add_argument("--over-cap", type=int, default=5, help="plain GETs sent while every seat is taken")
    parser.add_argument("--over-cap-browsers", type=int, default=3,
                        help="browser pages sent (one after another) while every seat is taken")
    parser.add_argument("--cull-interval", type=float, default=10)
    parser.add_argument("--cull-idle-timeout", type=float, default=60,
                        help="long enough that a page still loading under the spike keeps its kernel")
    parser.add_argument("--clients", choices=["ws", "browser", "mixed"], default="ws",
                        help="visitors as websocket clients (default), as headless Chromium pages, or mixed: "
                             "--browsers Chromium pages and HTTP clients with a browser's headers for the rest")
    parser.add_argument("--browsers", type=int, default=6,
                        help="with --clients mixed: how many of the visitors are headless Chromium pages")
    parser.add_argument("--stagger", type=float, default=0.0,
                        help="seconds between visitor arrivals (0: all at once)")
    parser.add_argument("--recover-timeout", type=float, default=120, help="seconds to wait for memory to return")
    parser.add_argument("--page-timeout", type=float, default=240, help="seconds per page load")
    parser.add_argument("--json", default=None, help="write the results here too")
    args = parser.parse_args(argv)
    max_kernels = args.max_kernels or args.visitors + args.pool_size

    load_start = os.getloadavg()
    log = Path(tempfile.mkdtemp()) / "voila.log"
    proc, url, _ = start_voila(log, cull_interval=args.cull_interval, cull_idle_timeout=args.cull_idle_timeout,
                               pool_size=args.pool_size, extra=[f"--max-kernels={max_kernels}"], timeout=180)
    try:
        # the pool's kernels finish running the notebook after the pool reports full: wait for a steady RSS
        samples, deadline = [], time.monotonic() + 90
        while time.monotonic() < deadline:
            samples.append(memory(proc.pid))
            last = [m["total_rss"] for m in samples[-4:]]
            if len(last) == 4 and max(last) - min(last) < 0.01 * max(last):
                break
            time.sleep(2)
        baseline = samples[-1]
        sampler = KernelWatch(proc, interval=0.2)
        load_during = None
        out = asyncio.run(run(args, url, proc))
        load_during = os.getloadavg()
        # memory returns?
        target = 1.10 * baseline["total_rss"]
        recovered_after, trace = None, []
        while True:
            elapsed = time.monotonic() - out["leave_at"]
            m = memory(proc.pid, full=False)
            trace.append((round(elapsed, 1), len(m["kernels"]), m["total_rss"]))
            if m["total_rss"] <= target and len(m["kernels"]) <= args.pool_size:
                recovered_after = elapsed
                break
            if elapsed > args.recover_timeout:
                break
            time.sleep(2)
        after = memory(proc.pid)
        most_kernels = sampler.stop()
    finally:
        stop_voila(proc)

    recs = out["records"]
    ok = [r for r in recs if r["error"] is None and r["ready_ms"] is not None]
    moved = [r for r in ok if r["slider_ms"] is not None]
    first = [r["first_ms"] for r in ok]
    ready = [r["ready_ms"] for r in ok]
    slider = [r["slider_ms"] for r in moved]
    loaded = out["memory_loaded"]
    kr = [k["rss"] for k in loaded["kernels"]]
    ku = [k["uss"] for k in loaded["kernels"]]
    kp = [k["pss"] for k in loaded["kernels"]]
    added_rss = loaded["total_rss"] - baseline["total_rss"]
    added_pss = loaded["total_pss"] - baseline["total_pss"]
    n = args.visitors
    over = out["over_cap"]
    busy_ok = all(s == 503 and ra and "The workbook is busy" in body for s, ra, body in over)
    # every seat taken -> every over-cap request is refused; seats freed by a culled visitor may admit some
    seats_full = out["kernels_with_visitors"] >= max_kernels
    busy_pages = out["busy_pages"]
    # issue 24: a browser over the cap gets its static page at once (503 + Retry-After: a balancer tries another
    # replica), every figure drawn, and waits in line
    shown = [b for b in busy_pages if b[0] == 503 and b[1] and b[5] and b[3] == b[5] and b[4]]
    cap_held = (most_kernels <= max_kernels and out["kernels_after_over_cap"] <= max_kernels
                and (busy_ok if seats_full else True))

    print(f"== drmath load test: {n} concurrent {args.clients} visitors (arriving {args.stagger:g} s apart), "
          f"pool {args.pool_size}, "
          f"--max-kernels {max_kernels}, "
          f"cull every {args.cull_interval:g} s after {args.cull_idle_timeout:g} s idle ==")
    print(f"machine: {os.cpu_count()} CPUs, {psutil.virtual_memory().total / 2**30:.1f} GiB; 1-min load average "
          f"{load_start[0]:.2f} at start, {load_during[0]:.2f} after the visits (shared machine; visitors and "
          f"server share the CPUs)")
    what = ("pages rendered (every figure and card)" if args.clients == "browser"
            else "pages served and widget states with figure data received")
    print(f"{what}: {len(ok)}/{n}; slider moved and figures followed: {len(moved)}/{n}")
    for r in recs:
        if r["error"] or r["external"]:
            print(f"  visitor {r['i']}: status {r['status']} error {r['error']} external {r['external'][:2]}")
    if first:
        print(f"time to first live figure: p50 {percentile(first, .5) / 1000:.1f} s, "
              f"p95 {percentile(first, .95) / 1000:.1f} s"
              f" (min {min(first) / 1000:.1f}, max {max(first) / 1000:.1f})")
        if args.clients == "browser":
            print(f"time to every figure: p50 {percentile(ready, .5) / 1000:.1f} s, "
                  f"p95 {percentile(ready, .95) / 1000:.1f} s")
        else:
            html = [r["html_ms"] for r in ok if r.get("html_ms") is not None]
            print(f"time to page HTML (HTTP clients): p50 {percentile(html, .5) / 1000:.1f} s, "
                  f"p95 {percentile(html, .95) / 1000:.1f} s")
        print(f"all {n} visits done {out['spike_wall_s']:.0f} s after the first arrival (slider included)")
    static_first = static_figures(recs, n) if args.clients in ("mixed", "browser") else None
    if slider:
        print(f"slider move -> figures updated: p50 {percentile(slider, .5):.0f} ms, "
              f"p95 {percentile(slider, .95):.0f} ms")
    print(f"memory, baseline (server + {len(baseline['kernels'])} pooled kernels): RSS {fmt_mb(baseline['total_rss'])} "
          f"(server {fmt_mb(baseline['server_rss'])}), PSS {fmt_mb(baseline['total_pss'])}")
    print(f"memory, {n} visitors in (server + {len(kr)} kernels): RSS {fmt_mb(loaded['total_rss'])}, "
          f"PSS {fmt_mb(loaded['total_pss'])}, USS {fmt_mb(loaded['total_uss'])}")
    print(f"  per kernel: RSS median {fmt_mb(statistics.median(kr))} (max {fmt_mb(max(kr))}), "
          f"USS median {fmt_mb(statistics.median(ku))}, PSS median {fmt_mb(statistics.median(kp))}")
    print(f"  server process: RSS {fmt_mb(loaded['server_rss'])} (baseline {fmt_mb(baseline['server_rss'])})")
    print(f"  added per visitor: RSS {fmt_mb(added_rss / n)}, PSS {fmt_mb(added_pss / n)} -> "
          f"{MB * 1024 / (added_rss / n):.1f} visitors per GB of RSS ({MB * 1024 / (added_pss / n):.1f} per GB of PSS)")
    print(f"cap: {len(over)} GETs over the cap -> statuses {sorted(s for s, _, _ in over)}, Retry-After "
          f"{sorted({ra for _, ra, _ in over if ra})}")
    for status, retry, first_line, drawn, notice, figures in busy_pages:
        print(f"  a browser over the cap: {status}, Retry-After {retry}, {drawn}/{figures} static figures drawn, "
              f"static notice (waiting for a seat) {'shown' if notice else 'MISSING'}: '{first_line}'")
    print(f"  kernels: {out['kernels_with_visitors']} with every seat taken, {out['kernels_after_over_cap']} after the "
          f"over-cap requests, at most {most_kernels} at any 0.2 s sample (cap {max_kernels}) -> "
          f"cap {'HELD' if cap_held else 'NOT HELD'}")
    if recovered_after is not None:
        print(f"after the visitors left: memory back within 10% of baseline after {recovered_after:.0f} s "
              f"(RSS {fmt_mb(trace[-1][2])} vs baseline {fmt_mb(baseline['total_rss'])}, {trace[-1][1]} kernels)")
    else:
        print(f"after the visitors left: memory NOT back within 10% of baseline in {args.recover_timeout:.0f} s "
              f"(RSS {fmt_mb(trace[-1][2])} vs baseline {fmt_mb(baseline['total_rss'])}, {trace[-1][1]} kernels)")
    print(f"  server process RSS {fmt_mb(after['server_rss'])} (baseline {fmt_mb(baseline['server_rss'])}); "
          f"trace (s, kernels, RSS MB): {[(t, k, round(r / MB)) for t, k, r in trace[::3]]}")
    results = {"visitors": n, "rendered": len(ok), "moved": len(moved), "first_ms": first, "ready_ms": ready,
               "slider_ms": slider, "baseline": baseline, "loaded": loaded, "after": after,
               "recovered_after_s": recovered_after, "most_kernels": most_kernels, "max_kernels": max_kernels,
               "over_cap": [(s, ra) for s, ra, _ in over], "cap_held": cap_held, "records": recs,
               "load_average": [load_start, load_during]}
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str))
    record(f"{n} concurrent visitors: pages served with figure data", f"{len(ok)}/{n}", f"{n}/{n}", len(ok) == n,
           f"{args.clients} clients; slider moved in {len(moved)}/{n}")
    if first:
        p50, p95 = percentile(first, .5) / 1000, percentile(first, .95) / 1000
        record(f"{n} concurrent visitors: time to first figure", f"p50 {p50:.1f} s, p95 {p95:.1f} s",
               "p50 <= 25 s, p95 <= 40 s", p50 <= 25 and p95 <= 40, f"all arriving at once on {os.cpu_count()} cores")
    if static_first and static_first[0]:
        st, lv = static_first
        p50, p95 = percentile(st, .5) / 1000, percentile(st, .95) / 1000
        record(f"{n} simultaneous arrivals: time to every static figure visible", f"p50 {p50:.1f} s, p95 {p95:.1f} s",
               "p50 <= 2 s, p95 <= 4 s", len(st) == n and p50 <= 2 and p95 <= 4,
               f"{args.clients} clients ({min(args.browsers, n) if args.clients == 'mixed' else n} browsers); "
               f"{len(st)}/{n} got it")
        if lv:
            record(f"{n} simultaneous arrivals: time to live controls",
                   f"p50 {percentile(lv, .5) / 1000:.1f} s, p95 {percentile(lv, .95) / 1000:.1f} s", "", None,
                   f"{len(lv)}/{n} went live")
    if seats_full and busy_pages:
        record(f"{n} visitors: arrivals over capacity shown a page with figures", f"{len(shown)}/{len(busy_pages)}",
               f"{len(busy_pages)}/{len(busy_pages)}", len(shown) == len(busy_pages),
               "503 + Retry-After with its static page at once: the static notice and every figure of the "
               "visitor's own scenario")
    record(f"{n} visitors: kernel RSS per visitor", fmt_mb(statistics.median(kr)), "", None,
           f"{MB * 1024 / (added_rss / n):.1f} visitors per GB of RSS; server {fmt_mb(loaded['server_rss'])}")
    record(f"{n} visitors: kernel cap holds (busy page over the cap)", "held" if cap_held else "NOT held", "held",
           cap_held,
           f"at most {most_kernels} kernels for a cap of {max_kernels}; over-cap GETs got "
           f"{sorted(s for s, _, _ in over)}")
    record(f"{n} visitors: memory back within 10% of baseline after they leave",
           "never" if recovered_after is None else f"{recovered_after:.0f} s", "<= 120 s",
           recovered_after is not None and recovered_after <= 120,
           f"after: server + {len(after['kernels'])} kernels RSS {fmt_mb(after['total_rss'])} (baseline "
           f"{fmt_mb(baseline['total_rss'])}), of it the server process {fmt_mb(after['server_rss'])} (baseline "
           f"{fmt_mb(baseline['server_rss'])})")
    return results


if __name__ == "__main__":
    main()
