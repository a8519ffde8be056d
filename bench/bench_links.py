"""Distinct share links (issue 32): the server's RSS after N navigations, each to a scenario not seen before.

    .venv/bin/python bench/bench_links.py [--links 5000] [--marks 200 1000 2000 5000] [--gpus 1000]

A fresh ``python -m drmath.serve`` starts on a free loopback port. One visitor navigates to ``/?training.gpus=G``
for G = ``--gpus``, ``--gpus`` + 1, … (every link a scenario of its own, so every navigation renders a static
dashboard), reads the static part of the page as a browser would, and leaves. The server's RSS (its own process,
its kernels and Chromium apart) is printed at each mark, with the server's CPU-s per navigation. Figures, never
asserts: ``tests/test_hostile_links.py`` holds a shorter run to its bound.

Before issue 32 the issue measured 200 distinct links: RSS 168 -> 241 MiB, 500: 313 MiB (about 1 GB per 5,000
navigations: the dashboards were cached under the raw query, and every static render left its widgets connected
to a class-level signal). Its bound: 5,000 navigations leave RSS within 50 MB of where 200 left it.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import psutil  # noqa: E402
from _figures import record  # noqa: E402
from conftest import start_voila, stop_voila  # noqa: E402
from hostile import MB, cpu_seconds  # noqa: E402
from test_static_first import static_part  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--links", type=int, default=5000, help="distinct links navigated to")
    parser.add_argument("--marks", type=int, nargs="+", default=[200, 1000, 2000, 5000],
                        help="after how many links the RSS is printed")
    parser.add_argument("--gpus", type=int, default=1000, help="training.gpus of the first link")
    args = parser.parse_args(argv)
    marks = sorted({m for m in args.marks if m <= args.links} | {args.links})
    with tempfile.TemporaryDirectory() as log_dir:
        proc, url, _ = start_voila(Path(log_dir) / "voila.log", pool_size=1, extra=["--max-kernels=2"])
        try:
            server = psutil.Process(proc.pid)
            start_rss, start_cpu, began = server.memory_info().rss, cpu_seconds(server), time.monotonic()
            print(f"{'links':>6} {'RSS':>9} {'growth':>9} {'CPU-s/link':>11} {'elapsed':>9}   (RSS at start "
                  f"{start_rss / MB:.0f} MB)", flush=True)
            at, missed = {}, 0
            for n in range(1, args.links + 1):
                # past the seats the answer is 503, with the static page all the same
                _, body, _ = static_part(url, f"/?training.gpus={args.gpus + n - 1}")
                missed += "drmath-static" not in body
                if n in marks:
                    rss = server.memory_info().rss
                    at[n] = rss
                    print(f"{n:6d} {rss / MB:7.0f} MB {(rss - start_rss) / MB:+7.0f} MB "
                          f"{(cpu_seconds(server) - start_cpu) / n:11.3f} {time.monotonic() - began:8.0f} s",
                          flush=True)
            alive = proc.poll() is None
        finally:
            stop_voila(proc)
    first, last = marks[0], marks[-1]
    growth = (at[last] - at[first]) / MB
    print(f"RSS after {last} links is {growth:+.0f} MB from where {first} left it; {missed} navigations without "
          f"their static page; server alive: {alive}")
    print("before issue 32 (the issue's figures): 200 distinct links took RSS from 168 to 241 MiB, 500 to 313 MiB, "
          "about 1 GB per 5,000")
    record(f"links: RSS growth from {first} to {last} distinct links", f"{growth:+.0f} MB", "<= 50 MB",
           growth <= 50, note=f"{missed} navigations without their static page")


if __name__ == "__main__":
    main()
