"""Hostile frames (issues 19 and 32): how long they freeze the server, and what they cost it and the kernels.

    .venv/bin/python bench/bench_frames.py [--counts 1e6 2e7 1e9] [--observe 15] [--guard 3e9] [--only NAME]
                                           [--issue 19|32] [--scale 1]

For each attack a fresh ``python -m drmath.serve`` starts on a free loopback port; one visitor opens the page
and its kernel websocket, and sends one frame:

- ``v1 offsets N``: a 16-byte frame (subprotocol ``v1.kernel.websocket.jupyter.org``) whose first 8 bytes
  declare N offsets;
- ``legacy parts N``: a 64-byte binary frame (no subprotocol) whose first 4 bytes declare N parts;
- ``v1 junk`` / ``legacy junk``: the 9 bytes ``{bad json``, binary on v1, text on legacy.

Meanwhile a second visitor asks the server for a small page every 0.1 s (``tests/hostile.py``
``SecondVisitor``) and the server's RSS is sampled every 0.05 s; a server that grows by more than
``--guard`` bytes is killed (``MemoryGuard``) so that the bench never takes the machine. Printed per attack:
the slowest answer the second visitor got during the ``--observe`` s after the frame, the peak and final RSS
growth, whether the attacker's socket was closed, and whether the server still answers. Figures, never
asserts: ``tests/test_hostile_frames.py`` holds the same attacks to their bounds.

Then the frames of issue 32, which pass the checks of issue 19 and cost the server instead (``tests/hostile.py``
builds them; each is sent, compressed, on one socket of a fresh server's visitor, ``measure_flood``):

- ``stdin buffers``: a valid ``comm_msg`` followed by 130,000 empty buffers (1 MiB, ~1.7 KB compressed), on the
  stdin channel, which the kernel never reads;
- ``shell buffers``: the same frame on shell;
- ``dropped execute_request``: 1 MiB ``execute_request`` frames (a type a visitor may not send) whose code is the
  costliest JSON to parse;
- ``JSON 100k deep``: a ``comm_msg`` whose content nests 100,000 lists;
- ``costliest passing``: the costliest frame a page may still send (``drmath.serve.settings``' bounds: the most
  JSON arrays, floats up to the most JSON bytes, the most buffers, 900 KiB in all), to a comm that does not exist.

Printed per attack: frames written, the socket's close code, the server's CPU-s from the socket's opening on (its
idle rate subtracted, so a few ms of noise either way; 0 when that goes below 0) and per frame written, the second
visitor's slowest answer (its requests time out at 30 s), and the largest kernel RSS against the kernels' memory
limit. Measured on the shared 2-core project machine, before issue 32's bounds and after:

========================  ==========================================  =========================================
attack                    before                                      after
========================  ==========================================  =========================================
stdin buffers x120        32.6 CPU-s (272 ms/frame), visitor 30.0 s,  closed 4005 after 3 written, 0.02 CPU-s,
                          kernel 1,057 MB (limit 1,000), never closed visitor 0.04 s, kernel 63 MB
shell buffers x40         10.8 CPU-s (269 ms/frame), visitor 17.2 s   closed 4005 after 5, 0.01 CPU-s, 0.06 s
dropped execute x150      45.9 CPU-s (306 ms/frame), visitor 30.0 s   closed 4005 after 9, < 0.01 CPU-s, 0.03 s
JSON 100k deep x1         aborted, no close code (RecursionError)     closed 4005, < 0.01 CPU-s, 0.09 s
costliest passing x60     1.4 ms/frame, visitor 0.61 s                3.7-7.7 ms/frame (two runs), 0.03-0.10 s
========================  ==========================================  =========================================

Last, with ``--issue 32`` (or no ``--issue``) and no ``--only``, the links that cost a render (``run_links``): 40
spellings of one scenario and 8 navigations to the issue's ~7,600- and ~7,970-year runs on a fresh server, each
printed beside its figure before the bounds (measured so: 0.25 CPU-s; 0.24 CPU-s and +1 MB; another visitor's
slowest answer 0.17 s).

Before the bounds the costliest passing frame was 60 KiB of ``[[],[],…]`` and 900 KiB in one buffer: 28.3
ms/frame and 3.2 s for the visitor; it is refused now (over ``MAX_JSON_CONTAINERS``).
"""

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from _figures import record  # noqa: E402
from conftest import start_voila, stop_voila  # noqa: E402
from hostile import (  # noqa: E402
    JUNK_JSON,
    MB,
    MemoryGuard,
    SecondVisitor,
    buffers_frame,
    connect,
    costliest_passing_frame,
    deep_frame,
    dropped_frame,
    legacy_parts_frame,
    measure_flood,
    open_page,
    v1_offsets_frame,
)

from drmath.serve.settings import KERNEL_MEMORY_LIMIT  # noqa: E402

COSTLY = [("stdin buffers", lambda: buffers_frame("stdin"), 120),
          ("shell buffers", lambda: buffers_frame("shell"), 40),
          ("dropped execute_request", dropped_frame, 150),
          ("JSON 100k deep", deep_frame, 1),
          ("costliest passing", costliest_passing_frame, 60)]
"""``(name, frame maker, frames sent)`` of the attacks of issue 32 (the counts of the issue's figures)."""

BEFORE = {"stdin buffers": "32.6 CPU-s (272 ms/frame), visitor 30.0 s, kernel 1,057 MB, never closed",
          "shell buffers": "10.8 CPU-s (269 ms/frame), visitor 17.2 s",
          "dropped execute_request": "45.9 CPU-s (306 ms/frame), visitor 30.0 s",
          "JSON 100k deep": "socket aborted with no close code (RecursionError)",
          "costliest passing": "28.3 ms/frame, visitor 3.2 s (60 KiB of [[],[],...], now refused)"}
"""What each attack of issue 32 cost before its bounds (this script, on the 2-core project machine)."""


def attacks(counts):
    """``(name, protocol, frame, binary)`` of every attack."""
    for count in counts:
        yield f"v1 offsets {count:.0e}", "v1", v1_offsets_frame(count), True
    for count in counts:
        yield f"legacy parts {count:.0e}", "legacy", legacy_parts_frame(count), True
    yield "v1 junk JSON", "v1", JUNK_JSON, True
    yield "legacy junk JSON", "legacy", JUNK_JSON.decode(), False


async def _attack(url, kernel_id, cookie, protocol, frame, binary, observe):
    ws = await connect(url, kernel_id, cookie, protocol)
    sent = time.monotonic()
    await ws.write_message(frame, binary=binary)
    closed = None
    try:
        while True:
            message = await asyncio.wait_for(ws.read_message(), max(observe - (time.monotonic() - sent), 0.01))
            if message is None:
                closed = ws.close_code
                break
    except TimeoutError:
        pass
    await asyncio.sleep(max(observe - (time.monotonic() - sent), 0))
    ws.close()
    return sent, closed


def run_one(name, protocol, frame, binary, observe, guard_limit, log_dir):
    proc, url, _ = start_voila(Path(log_dir) / f"{name.replace(' ', '-')}.log", pool_size=1,
                               extra=["--max-kernels=4"])
    try:
        kernel_id, cookie, _ = open_page(url)
        time.sleep(2)  # the page's kernel settles
        guard, probe = MemoryGuard(proc.pid, guard_limit), SecondVisitor(url)
        time.sleep(1)
        sent, closed = asyncio.run(_attack(url, kernel_id, cookie, protocol, frame, binary, observe))
        worst = probe.worst(since=sent)
        probe.stop()
        guard.stop()
        final = None if guard.killed else guard.growth()
        alive = proc.poll() is None
        return {"name": name, "worst_s": worst, "peak_mb": guard.peak / MB,
                "final_mb": None if final is None else final / MB, "killed": guard.killed,
                "closed": closed, "alive": alive}
    finally:
        stop_voila(proc)


def run_costly(name, make, count, log_dir):
    """One attack of issue 32 on a fresh server: its row (see the module docstring)."""
    from conftest import run_async
    from test_hostile_frames import kernel_info

    proc, url, _ = start_voila(Path(log_dir) / f"{name.replace(' ', '-')}.log", pool_size=1,
                               extra=["--max-kernels=4"])
    try:
        kernel_id, cookie, _ = open_page(url)
        run_async(kernel_info(url, kernel_id, cookie))  # the page connects, as a browser's does
        time.sleep(2)  # the page's kernel settles
        row = measure_flood(proc.pid, url, kernel_id, cookie, make(), count)
        return {"name": name, **row, "alive": proc.poll() is None}
    finally:
        stop_voila(proc)


def run_links(log_dir):
    """Issue 32's links that cost a render, on a fresh server: 40 spellings of one scenario, then 8 navigations to the
    issue's ~7,600- and ~7,970-year runs, while a second visitor's requests are timed. Their rows, before and after."""
    import psutil
    from hostile import cpu_seconds
    from test_hostile_links import LONG_RUN, PAST_9999, navigate

    proc, url, _ = start_voila(Path(log_dir) / "links.log", pool_size=1, extra=["--max-kernels=2"])
    try:
        server = psutil.Process(proc.pid)
        visitor = SecondVisitor(url)
        start = time.monotonic()
        navigate(url, "training.gpus=3000")
        cpu = cpu_seconds(server)
        for n in range(1, 41):
            navigate(url, "training.gpus=3000" + "&" * n)
        spellings = cpu_seconds(server) - cpu
        cpu, rss = cpu_seconds(server), server.memory_info().rss
        for link in (LONG_RUN, PAST_9999):
            for n in range(4):
                navigate(url, link + "&" * n, timeout=30)
        long_cpu, long_rss = cpu_seconds(server) - cpu, server.memory_info().rss - rss
        worst = visitor.worst(start)
        visitor.stop()
    finally:
        stop_voila(proc)
    return [("40 spellings of one link", f"{spellings:.2f} CPU-s", "4.1 CPU-s (a render each)"),
            ("8 long-run links", f"{long_cpu:.2f} CPU-s, RSS {long_rss / MB:+.0f} MB",
             "9.6 CPU-s, +146 MB (OverflowError on each of the ~7,970-year ones)"),
            ("another visitor meanwhile", f"slowest answer {worst:.2f} s", "14.7 s (16 long-run links)")]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--counts", type=float, nargs="+", default=[1e6, 2e7, 1e9])
    parser.add_argument("--observe", type=float, default=15.0, help="seconds watched after each frame")
    parser.add_argument("--guard", type=float, default=3e9, help="RSS growth [B] at which the server is killed")
    parser.add_argument("--only", default=None, help="run only the attacks whose name contains this")
    parser.add_argument("--issue", type=int, choices=(19, 32), default=None,
                        help="run only that issue's attacks (default: both)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the frame counts of issue 32's attacks")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as log_dir:
        costly = []
        for name, make, count in COSTLY if args.issue != 19 else ():
            if args.only and args.only not in name:
                continue
            row = run_costly(name, make, max(int(count * args.scale), 1), log_dir)
            costly.append(row)
            print(f"{name:<24} {row['written']:4d} frames  closed: {row['code']}   server {row['cpu']:6.2f} CPU-s, "
                  f"{row['per_frame'] * 1e3:7.1f} ms/frame   second visitor's slowest answer {row['worst']:6.2f} s   "
                  f"largest kernel {row['kernel_peak'] / MB:5.0f} MB (limit {KERNEL_MEMORY_LIMIT / MB:.0f})   "
                  f"server alive: {row['alive']}\n{'':<24} before issue 32: {BEFORE[name]}", flush=True)
        if costly:
            per_frame, worst = max(r["per_frame"] for r in costly), max(r["worst"] for r in costly)
            record("costly frames: server CPU per frame", f"{per_frame * 1e3:.1f} ms", "<= 20 ms", per_frame <= 0.02,
                   note=f"{len(costly)} attacks of issue 32, the worst")
            record("costly frames: another visitor's slowest answer", f"{worst:.2f} s", "< 1 s", worst < 1)
        if args.issue != 19 and not args.only:
            print("\nLinks (issue 32; 5,000 distinct links: bench/bench_links.py; the SVG loop: "
                  "tests/test_hostile_links.py; hostile incident logs: bench/bench_calibrate.py)")
            for name, after, before in run_links(log_dir):
                print(f"{name:<28} now: {after:<32} before: {before}", flush=True)
        for name, protocol, frame, binary in attacks(args.counts) if args.issue != 32 else ():
            if args.only and args.only not in name:
                continue
            row = run_one(name, protocol, frame, binary, args.observe, args.guard, log_dir)
            rows.append(row)
            final = "killed by the guard" if row["killed"] else f"{row['final_mb']:+.0f} MB"
            print(f"{name:<24} second visitor's slowest answer {row['worst_s']:6.2f} s   "
                  f"RSS peak {row['peak_mb']:+7.0f} MB, after {final}   "
                  f"attacker closed: {row['closed']}   server alive: {row['alive']}", flush=True)
    if rows:
        worst, peak = max(r["worst_s"] for r in rows), max(r["peak_mb"] for r in rows)
        record("hostile frames: another visitor's slowest answer", f"{worst:.2f} s", "< 1 s", worst < 1,
               note=f"{len(rows)} frames of 9-64 bytes (counts {', '.join(f'{c:.0e}' for c in args.counts)})")
        record("hostile frames: the server's RSS growth", f"{peak:.0f} MB", "< 50 MB", peak < 50,
               note="peak over every frame, sampled every 0.05 s")
    return rows


if __name__ == "__main__":
    main()
