"""Time plotly.js alone, in a bare page: what one dashboard figure costs to evaluate, draw and redraw.

    .venv/bin/python bench/bench_plotly.py [--rounds 8]

No Voilà, no widgets, no kernel: a blank page in headless Chromium loads the vendored
plotly.js "basic" bundle, draws the dashboard's five figures for the default scenario
(``Plotly.newPlot``, in the page's order) and then redraws each with ``Plotly.react``,
alternating between the specs for 10,000 and 8,000 GPUs, as moving the GPU slider back and
forth does. The specs come from :class:`drmath.dashboard.Dashboard`; a GPU move changes four of
the five figures (the dashboard skips the unchanged one; here it is redrawn too, and listed).

It reports:

- **evaluation**: running the bundle's script (the page cannot draw before it);
- **first draws**: each figure's ``newPlot``; the first pays plotly's one-time set-up;
- **redraws**: the median ``react`` of each figure over ``--rounds`` rounds, and the sum over the
  figures a GPU move changes: what such a move costs in drawing alone.

This is the floor under the dashboard's slider latency on this machine: the page adds
the kernel round trip and its own layout work on top.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from _figures import record  # noqa: E402
from conftest import launch_browser  # noqa: E402

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<style>.f {{ width: 560px; height: 300px; display: inline-block; }}</style>
<script>window.T0 = performance.now();</script>
<script src="{plotly}"></script>
<script>window.T1 = performance.now();</script>
<script src="specs.js"></script></head><body><div id="figures"></div></body></html>"""

MEASURE_JS = """async (rounds) => {
  const names = Object.keys(SPECS[0]);
  const config = {displaylogo: false, responsive: true};
  const divs = {}, first = {}, redraw = {};
  for (const n of names) {
    const d = document.createElement('div'); d.className = 'f';
    document.getElementById('figures').appendChild(d); divs[n] = d;
    const t = performance.now();
    await Plotly.newPlot(d, SPECS[0][n].data, SPECS[0][n].layout, config);
    first[n] = performance.now() - t;
    redraw[n] = [];
  }
  for (let i = 0; i < rounds; i++) for (const n of names) {
    const s = SPECS[(i + 1) % 2][n];
    const t = performance.now();
    await Plotly.react(divs[n], s.data, s.layout);
    redraw[n].push(performance.now() - t);
  }
  return {evaluate: window.T1 - window.T0, first, redraw};
}"""


def specs():
    """The dashboard's five figure specs for the default scenario and for 10,000 GPUs."""
    from drmath.dashboard import Dashboard

    app = Dashboard()
    out = [{k: v.figure for k, v in app.figures.items()}]
    assert app.apply({"training.gpus": 10_000})
    out.append({k: v.figure for k, v in app.figures.items()})
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=8, help="redraws of each figure")
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    from drmath.viz import PLOTLY_BASIC_JS

    folder = Path(tempfile.mkdtemp())
    both = specs()
    changed = [name for name in both[0] if both[0][name] != both[1][name]]
    (folder / "specs.js").write_text("window.SPECS = " + json.dumps(both) + ";")
    (folder / "index.html").write_text(PAGE.format(plotly=PLOTLY_BASIC_JS.as_uri()))
    load_before = os.getloadavg()[0]
    with sync_playwright() as p:
        browser = launch_browser(p)
        page = browser.new_page(viewport={"width": 1400, "height": 1500})
        page.goto((folder / "index.html").as_uri())
        result = page.evaluate(MEASURE_JS, args.rounds)
        browser.close()

    first = result["first"]
    medians = {n: statistics.median(v) for n, v in result["redraw"].items()}
    print(f"plotly.js {PLOTLY_BASIC_JS.name}: evaluate {result['evaluate']:.0f} ms")
    print("first draws (newPlot, page order): " + ", ".join(f"{n} {t:.0f} ms" for n, t in first.items())
          + f"; sum {sum(first.values()):.0f} ms")
    moved = sum(medians[n] for n in changed)
    print(f"redraws (react, median of {args.rounds}): " + ", ".join(f"{n} {t:.1f} ms" for n, t in medians.items())
          + f"; sum over the {len(changed)} figures a GPU move changes ({', '.join(changed)}) {moved:.0f} ms")
    print(f"machine: {os.cpu_count()} CPUs, 1-min load average {load_before:.2f} before")
    record("plotly.js alone: evaluate the bundle", f"{result['evaluate']:.0f} ms", "", None, "bare page, no Voilà")
    record("plotly.js alone: first draws of the five figures", f"{sum(first.values()):.0f} ms", "", None,
           f"the first, with plotly's one-time set-up, {next(iter(first.values())):.0f} ms")
    record("plotly.js alone: redraws for one GPU move", f"{moved:.0f} ms", "", None,
           f"{len(changed)} figures; cheapest {min(medians.values()):.1f} ms; median of {args.rounds} rounds")
    return result


if __name__ == "__main__":
    main()
