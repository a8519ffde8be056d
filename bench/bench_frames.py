"""Hostile frames of a few bytes (issue 19): how long they freeze the server, and how much memory they take.

    .venv/bin/python bench/bench_frames.py [--counts 1e6 2e7 1e9] [--observe 15] [--guard 3e9]

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
    connect,
    legacy_parts_frame,
    open_page,
    v1_offsets_frame,
)


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--counts", type=float, nargs="+", default=[1e6, 2e7, 1e9])
    parser.add_argument("--observe", type=float, default=15.0, help="seconds watched after each frame")
    parser.add_argument("--guard", type=float, default=3e9, help="RSS growth [B] at which the server is killed")
    parser.add_argument("--only", default=None, help="run only the attacks whose name contains this")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as log_dir:
        for name, protocol, frame, binary in attacks(args.counts):
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
