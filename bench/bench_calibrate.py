"""Figures for drmath.calibrate: how long a 100,000-row incident log takes to read and fit.

Run:  .venv/bin/python bench/bench_calibrate.py [--rows N] [--repeat N]

A generated log of N rows (default 100,000): ISO start and end times, a cause, a cluster column with
a second cluster in 10% of the rows that ``where`` filters out, and Weibull(0.8) gaps. Timed from the
CSV file on disk to the fitted result (read, check every kept row, merge, fit, cause table), once in
a fresh process (pandas and scipy imported on the way) and as the best of N warm calls, on one core.
Each is given as wall-clock time and as the process's CPU time (``time.process_time``), which other
work on a loaded machine does not inflate. Timings are printed, never asserted (tests stay independent
of the machine).
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")      # one core
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from _figures import record  # noqa: E402

from drmath.calibrate import read_incidents  # noqa: E402

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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
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


if __name__ == "__main__":
    main()
