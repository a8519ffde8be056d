"""Figures for ``drmath report``: build time, file size, and page load in headless Chromium.

    .venv/bin/python bench/bench_report.py [--runs 5] [--png]

Prints (never asserts):
- report generation for the default scenario, without PNG export (target ≤ 5 s): the
  median of ``--runs`` builds in this process, plus one cold ``drmath report`` subprocess
  (imports included);
- the report file's size;
- page load, from navigation start until every figure is drawn (each ``.drmath-figure``
  has its data and its SVG), in headless Chromium with every non-file request blocked
  (target ≤ 2 s): the first (cold) load and the median of ``--runs`` loads in fresh pages;
- with ``--png``, the time to write the figures as PNG through kaleido.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
READY_INIT = """window.__drmathReady = null; (function poll(){ try {
  const figs = document.querySelectorAll('.drmath-figure');
  if (figs.length === %d && [...figs].every(g => g.data && g.querySelector('.main-svg .cartesianlayer .trace'))) {
    window.__drmathReady = performance.now(); return; } } catch (e) {}
  requestAnimationFrame(poll); })();"""
"""Installed before the page's scripts: stamps when every figure of the report (``%d``: how many,
from :data:`drmath.report.FIGURES`) is drawn."""


def build_times(runs):
    from drmath import Scenario
    from drmath.report import write_report

    out = Path(tempfile.mkdtemp()) / "plan.html"
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        write_report(Scenario(), out)
        times.append(time.perf_counter() - t)
    return times, out


def cold_cli(out):
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "drmath", "report", "-o", str(out), "--quiet"], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def load_times(path, runs):
    from playwright.sync_api import sync_playwright

    from drmath.report import FIGURES

    times, blocked, errors = [], [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for _ in range(runs + 1):
            page = browser.new_page(viewport={"width": 1200, "height": 1400})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:")
                       else (blocked.append(r.request.url), r.abort()))
            page.add_init_script(READY_INIT % len(FIGURES))
            page.goto(path.as_uri())
            page.wait_for_function("window.__drmathReady !== null", timeout=60_000)
            times.append(page.evaluate("window.__drmathReady") / 1000)
            page.close()
        browser.close()
    return times, blocked, errors


def png_time(out):
    from drmath import Scenario
    from drmath.report import write_report

    t = time.perf_counter()
    write_report(Scenario(), out, png_dir=out.parent / "png")
    return time.perf_counter() - t


from _figures import record  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--png", action="store_true", help="also time the PNG export (kaleido)")
    args = parser.parse_args()

    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} (timings scale with it)")
    times, out = build_times(args.runs)
    print(f"report generation, default scenario, no PNG: median {statistics.median(times):.2f} s "
          f"over {args.runs} (min {min(times):.2f}, max {max(times):.2f}); target <= 5 s")
    print(f"  cold `drmath report -o plan.html` subprocess, imports included: {cold_cli(out):.2f} s")
    median = statistics.median(times)
    record("report generation (default scenario, no PNG)", f"{median:.2f} s", "<= 5 s", median <= 5,
           f"median of {args.runs}")
    size = out.stat().st_size
    record("report file size", f"{size / 1e6:.2f} MB", "", None, "plotly.js inlined")
    print(f"report file size: {size:,} B ({size / 1e6:.2f} MB; plotly.js inlined)")
    if os.path.exists(CHROMIUM):
        loads, blocked, errors = load_times(out, args.runs)
        print(f"page load to every figure drawn, headless Chromium, network blocked: first (cold) "
              f"{loads[0]:.2f} s, then median {statistics.median(loads[1:]):.2f} s over {args.runs} fresh pages "
              f"(min {min(loads[1:]):.2f}, max {max(loads[1:]):.2f}); target <= 2 s")
        print(f"  blocked requests: {len(blocked)}; page errors: {len(errors)}")
        load = statistics.median(loads[1:])
        record("report page load to every figure (Chromium)", f"{load:.2f} s", "<= 2 s", load <= 2,
               f"median of {args.runs} fresh pages, network blocked")
    else:
        print(f"page load: skipped ({CHROMIUM} is absent)")
    if args.png:
        print(f"report with --png (5 figures through kaleido): {png_time(out):.2f} s")


if __name__ == "__main__":
    main()
