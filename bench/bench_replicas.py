"""Two ``drmath.serve`` replicas behind HAProxy, then one killed: who still gets the page.

    .venv/bin/python bench/bench_replicas.py [--visitors 4] [--early 2] [--pool-size 1]

Everything runs on loopback: two replicas on free ports and HAProxy (``haproxy -f cfg -db``) with the
configuration ``deploy/haproxy/render.py`` renders for them (``tests/test_replicas.py``'s ``Cluster``,
which the test of the same scenario uses). Steps:

1. ``--visitors`` fresh visitors (no cookies) arrive at once: how they spread over the replicas;
2. a headless Chromium page through the balancer: time to every figure, then a GPU slider step and the
   time until the cards change (its websocket must reach the replica that holds its kernel);
3. that page's replica is killed (SIGKILL to the server and its kernels, as a machine failure);
   ``--early`` visitors arrive at once, before HAProxy can notice; then the time until HAProxy marks
   the replica DOWN (health check every 1 s, down after 2 failures);
4. ``--visitors`` new visitors arrive at once: how many get the page (the figure);
5. the orphaned page reloads (its cookie names the dead replica): does it draw again, and where.

Needs ``haproxy`` (Debian's package) and ``/usr/bin/chromium``. Benchmarks never assert.
"""

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from _figures import record  # noqa: E402
from conftest import READY_JS, kernel_ids, launch_browser, problems, watch  # noqa: E402
from test_replicas import GPU_HANDLE, HAPROXY, KERNEL_JS, KPIS_JS, Cluster, page_replica, served, visits  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visitors", type=int, default=4, help="fresh visitors before and after the kill")
    parser.add_argument("--early", type=int, default=2, help="visitors right after the kill, before detection")
    parser.add_argument("--pool-size", type=int, default=1, help="preheated kernels per replica")
    args = parser.parse_args(argv)
    if HAPROXY is None:
        print("haproxy is not installed (apt-get install haproxy): nothing measured")
        return 1
    from playwright.sync_api import sync_playwright

    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="drmath-replicas-") as tmp:
        t = time.monotonic()
        cluster = Cluster(tmp, n=2, pool_size=args.pool_size)
        up_s = time.monotonic() - t
        try:
            before = visits(cluster.url, args.visitors)
            spread = Counter(r["replica"] for r in before if r["replica"])
            on_own = sum(1 for r in before if r["kernel"] and r["kernel"] in kernel_ids(cluster.replica(r["replica"])))
            with sync_playwright() as pw:
                browser = launch_browser(pw)
                context = browser.new_context(viewport={"width": 1400, "height": 1500})
                page = context.new_page()
                log = watch(page)
                t = time.monotonic()
                page.goto(cluster.url, wait_until="commit", timeout=120_000)
                page.wait_for_function(READY_JS, timeout=120_000, polling=100)
                drawn_s = time.monotonic() - t
                victim = page_replica(context)
                survivor = "r2" if victim == "r1" else "r1"
                kpis = page.evaluate(KPIS_JS)
                t = time.monotonic()
                page.locator(GPU_HANDLE).first.focus()
                page.keyboard.press("ArrowRight")
                page.wait_for_function(f"(b) => JSON.stringify(({KPIS_JS})()) !== JSON.stringify(b)", arg=kpis,
                                       timeout=60_000, polling=50)
                slider_ms = 1000 * (time.monotonic() - t)
                page_problems = problems(log)

                redispatched_before = int(cluster.stats()["BACKEND"]["wredis"] or 0)
                killed = cluster.crash(victim)
                with ThreadPoolExecutor(1) as pool:  # watch for DOWN from the kill on, while visitors arrive
                    detection = pool.submit(cluster.wait_down, victim, killed)
                    early_start = time.monotonic() - killed
                    early = visits(cluster.url, args.early)
                    detect_s = detection.result()
                redispatched = int(cluster.stats()["BACKEND"]["wredis"] or 0) - redispatched_before
                after = visits(cluster.url, args.visitors)
                t = time.monotonic()
                page.reload(wait_until="commit", timeout=120_000)
                page.wait_for_function(READY_JS, timeout=120_000, polling=100)
                reload_s = time.monotonic() - t
                reload_replica = page_replica(context)
                reload_on_survivor = page.evaluate(KERNEL_JS) in kernel_ids(cluster.replica(survivor))
                browser.close()
        finally:
            cluster.stop()

    n, ok = args.visitors, served(after)
    ok_early = served(early)
    print(f"== drmath: two replicas behind HAProxy (pool {args.pool_size} each), one killed ==")
    print(f"machine: {os.cpu_count()} CPUs; 1-min load average {load_start[0]:.2f} at start; "
          f"{HAPROXY} ({Path(HAPROXY).name}); replicas and balancer up in {up_s:.0f} s")
    print(f"{n} fresh visitors at once: spread {dict(sorted(spread.items()))}; served {served(before)}/{n}; "
          f"kernel on the replica its SERVERID cookie names: {on_own}/{n}")
    print(f"browser page through the balancer (on {victim}): every figure in {drawn_s:.1f} s; GPU slider step -> "
          f"cards changed in {slider_ms:.0f} ms; failed requests / bad statuses / console errors: "
          f"{len(page_problems)} {page_problems[:3]}")
    print(f"{victim} killed (SIGKILL, server and kernels): {args.early} visitors arriving at once before detection: "
          f"{ok_early}/{args.early} served (sent {1000 * early_start:.0f} ms after the kill; {redispatched} "
          f"requests redispatched by HAProxy); "
          f"{victim} marked DOWN {'never' if detect_s is None else f'{detect_s:.1f} s'} after the kill")
    print(f"two replicas behind HAProxy, one killed: new visitors served {ok}/{n} ({100 * ok / n:.0f}%), "
          f"all on {sorted({r['replica'] for r in after if r['replica']})}")
    failed = [r for r in early + after if not (r["status"] == 200 and r["kernel"])]
    for r in failed:
        print(f"  failed visitor: {r}")
    print(f"the page on {victim} reloaded: drawn again in {reload_s:.1f} s on {reload_replica} "
          f"(kernel on {survivor}: {reload_on_survivor})")
    record("two replicas behind HAProxy: fresh visitors spread",
           ", ".join(f"{k}: {v}" for k, v in sorted(spread.items())),
           "both replicas", len(spread) == 2, f"{n} visitors at once, balance leastconn")
    record("two replicas behind HAProxy, one killed: new visitors served", f"{ok}/{n} ({100 * ok / n:.0f}%)",
           f"{n}/{n}", ok == n, f"before detection: {ok_early}/{args.early} served; marked DOWN after "
           f"{'never' if detect_s is None else f'{detect_s:.1f} s'}; slider through the balancer {slider_ms:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
