"""Figures for drmath.calibrate: how long a 100,000-row incident log takes to read and fit, and what each hostile
file of issue 32 costs before its one-line answer.

Run:  .venv/bin/python bench/bench_calibrate.py [--rows N] [--repeat N] [--no-hostile]

A generated log of N rows (default 100,000): ISO start and end times, a cause, a cluster column with
a second cluster in 10% of the rows that ``where`` filters out, and Weibull(0.8) gaps. Timed from the
CSV file on disk to the fitted result (read, check every kept row, merge, fit, cause table), once in
a fresh process (pandas and scipy imported on the way) and as the best of N warm calls, on one core.
Each is given as wall-clock time and as the process's CPU time (``time.process_time``), which other
work on a loaded machine does not inflate. Timings are printed, never asserted (tests stay independent
of the machine).

Then the hostile files of ``tests/test_hostile_files.py`` (the same builders), each given to a child
``python -m drmath calibrate`` or to the dashboard's fleet panel in a child, with the child's wall time, CPU
time and peak RSS (``os.wait4``) beside the figure measured on the reader before its bounds.
"""

import argparse
import html
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")      # one core
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import numpy as np  # noqa: E402
from _figures import record  # noqa: E402

from drmath.io.incidents import read_incidents  # noqa: E402

CAUSES = np.array(["Faulty GPU", "GPU HBM3 Memory", "Software Bug", "Network Switch/Cable", "Host Maintenance"])


def write_log(path, rows, seed=0):
    """A generated log of ``rows`` rows: 90% cluster a (Weibull 0.8 gaps, mean ~3 min), 10% cluster b."""
    rng = np.random.default_rng(seed)
    gaps = 180.0 * rng.weibull(0.8, rows)
    start = np.datetime64("2024-01-01T00:00:00") + np.cumsum(gaps).astype("timedelta64[s]")
    end = start + rng.lognormal(np.log(2400.0), 0.9, rows).astype("timedelta64[s]")
    cluster = np.where(rng.random(rows) < 0.9, "a", "b")
    cause = CAUSES[rng.integers(len(CAUSES), size=rows)]
    lines = ["start,end,cause,cluster"]
    lines += [f"{s}Z,{e}Z,{c},{k}" for s, e, c, k in zip(start.astype(str), end.astype(str), cause, cluster)]
    path.write_text("\n".join(lines) + "\n")


BEFORE = {  # the reader before issue 32's bounds: the issue's figures, or measured on that code (CPU time, peak RSS)
    "a 1 MiB cell of digits": "117 s before the error (the issue; still running after 30 s here): dateutil's "
                              "fallback parse is quadratic",
    "a 10,000-character time": "0.47 s CPU, 80 MB: parsed, then refused as not a time",
    "a header of 4 MiB of commas": "killed after 40 s at 1,212 MB and growing; the issue: a MemoryError traceback "
                                   "at ~2.7 GB",
    "a header of 60,000 commas": "4.25 s CPU, 212 MB, 60,000 columns read, then a line naming them",
    "16 MiB of bad rows": "72.8 s and 1.77 GB, then a clear message (the issue)",
    "16 MiB of blank lines": "3.17 s CPU, 900 MB: 16.8 million lines split, then \"no data rows\"",
    "300,000 rows, each with two bad times": "still running after 30 s (killed)",
    "300,000 rows, each with a value too many": "still running after 30 s (killed)",
    "--time-format %Y%Y": "a re.error traceback (1.35 s, 78 MB)",
    "a 1e308 h duration": "\"cannot convert input inf with the unit 's'\": no row named",
    "control characters in the name and causes": "ESC, BEL and OSC 52 printed raw to the terminal",
    "panel: CR-only line ends": "58,000 rows parsed past the 20,000 cap; the panel said \"0 lines\" (the issue)",
    "panel: a 760 KiB cell of digits": "the fit still running after 30 s (killed)",
    "panel: bad rows, CR line ends": "loaded as \"0 lines\", then the same count of problems",
}


def hostile_rows(folder):
    """Each hostile file of issue 32 through a measured child: ``(file, before, child, answer)`` rows."""
    from test_hostile_files import (
        CALIBRATE,
        CALIBRATE_FILES,
        ESCAPES,
        PANEL,
        PANEL_FILES,
        _bad_times,
        _escape_log,
        measured_child,
    )

    times = ("--start-column", "start", "--end-column", "end")
    hours = ("--start-column", "start", "--duration-column", "hours", "--duration-unit", "h")
    runs = [(kind, CALIBRATE_FILES[kind][0], times) for kind in CALIBRATE_FILES]
    runs += [("300,000 rows, each with two bad times", lambda: _bad_times(300_000), times),
             ("300,000 rows, each with a value too many",
              lambda: "start,end\n" + "".join(f"{i:06d},{i:06d},{i:06d}\n" for i in range(300_000)), times),
             ("--time-format %Y%Y", lambda: "start,hours\n2024-05-01,1\n2024-05-02,1\n2024-05-03,1\n",
              (*hours, "--time-format", "%Y%Y")),
             ("a 1e308 h duration", lambda: "start,hours\n2024-05-01,1\n2024-05-02,1e308\n2024-05-03,1\n", hours)]
    rows = []
    for kind, text, args in runs:
        path = folder / "hostile.csv"
        path.write_text(text(), encoding="utf-8")
        child = measured_child([*CALIBRATE, str(path), *args])
        rows.append((kind, child, (child.err or child.out).splitlines()[0].removeprefix("drmath: error: ")))
    child = measured_child([*CALIBRATE, str(_escape_log(folder)), *hours])
    rows.append(("control characters in the name and causes", child,
                 "the fit, every control character escaped" if ESCAPES[0] not in child.out + child.err
                 else "CONTROL CHARACTERS PRINTED"))
    for kind in ("CR-only line ends", "a 760 KiB cell of digits", "bad rows, CR line ends"):
        text, mapping, _ = PANEL_FILES[kind]
        path = folder / "up.csv"
        path.write_text(text(), encoding="utf-8")
        child = measured_child(["-c", PANEL, str(path), "up.csv", json.dumps(mapping or {})])
        shown = json.loads(child.out)["error"] if child.status == 0 else child.err
        rows.append((f"panel: {kind}", child, html.unescape(re.sub(r"<[^>]+>", "", shown))))
    return [(kind, BEFORE.get(kind, "(not measured)"), child, answer[:110]) for kind, child, answer in rows]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-hostile", action="store_true", help="skip the hostile files of issue 32")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "incidents.csv"
        write_log(log, args.rows)
        size = log.stat().st_size
        kwargs = dict(start_column="start", end_column="end", where=["cluster=a"], gpus=16_384)
        start, cpu = time.perf_counter(), time.process_time()
        fit = read_incidents(log, **kwargs)
        first, first_cpu = time.perf_counter() - start, time.process_time() - cpu
        warm, warm_cpu = [], []
        for _ in range(args.repeat):
            start, cpu = time.perf_counter(), time.process_time()
            read_incidents(log, **kwargs)
            warm.append(time.perf_counter() - start)
            warm_cpu.append(time.process_time() - cpu)
    best, best_cpu = min(warm), min(warm_cpu)
    print(f"calibrate a {args.rows:,}-row log ({size / 2**20:.1f} MiB), {fit.provenance['rows_used']:,} rows kept "
          f"by where cluster=a, {fit.events:,} events")
    print(f"  first call {first:.3f} s ({first_cpu:.3f} s CPU; imports pandas and scipy), best of {args.repeat} "
          f"warm calls {best:.3f} s ({best_cpu:.3f} s CPU)")
    print(f"  MTBF {fit.mtbf:.1f} s ({fit.mtbf_ci[0]:.1f} to {fit.mtbf_ci[1]:.1f}); Weibull shape "
          f"{fit.weibull_shape:.3f} ({fit.weibull_shape_ci[0]:.3f} to {fit.weibull_shape_ci[1]:.3f}; generated 0.8 "
          "before the filter thins it); trend " + fit.trend["direction"])
    record(f"calibrate: a {args.rows:,}-row incident log (first call)", f"{first:.3f} s", "<= 1 s", first <= 1,
           note=f"{first_cpu:.3f} s CPU; warm {best:.3f} s ({best_cpu:.3f} s CPU); {size / 2**20:.1f} MiB, read, "
                "checked and fitted")
    if args.no_hostile:
        return
    with tempfile.TemporaryDirectory() as folder:
        rows = hostile_rows(Path(folder))
    print("\nhostile files (issue 32): each answered by a child process; the issue's bound is 5 s and 300 MB")
    for kind, before, child, answer in rows:
        print(f"  {kind}\n    before: {before}\n    after:  {child.seconds:.2f} s ({child.cpu:.2f} s CPU), "
              f"{child.peak_mb:.0f} MB: {answer}")
    worst, peak = max(child.cpu for _, _, child, _ in rows), max(child.peak_mb for _, _, child, _ in rows)
    record("calibrate: the slowest hostile file (CPU)", f"{worst:.2f} s", "<= 5 s", worst <= 5,
           note=f"{len(rows)} hostile files of issue 32, each one clear answer")
    record("calibrate: the largest hostile file's peak RSS", f"{peak:.0f} MB", "<= 300 MB", peak <= 300)


if __name__ == "__main__":
    main()
