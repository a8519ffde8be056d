"""Figures for drmath.calibrate's intervals (issue 34): how often the 95% MTBF interval and the 90% goodput band
hold their truth on simulated logs of Weibull gaps, before (the Poisson count's interval) and now (the renewal one).

Run:  .venv/bin/python bench/bench_intervals.py [--logs 500] [--band-logs 300] [--events 300] [--seed 0]

Each log is a Weibull renewal process of 300 failures (``tests/interval_coverage.py``), fitted by
``drmath.calibrate.fit_events``: the window ending at the last failure (a log without ``until``) or at a fixed
date (300 mean gaps). The MTBF columns are the share of 500 logs whose 95% interval holds the true MTBF (a
binomial standard error of about 1 point); the band column the share of 300 logs whose fitted scenario's 90%
goodput band (``drmath.bands``, ETTR, 1,000 draws) holds the goodput of the true failure model (about 1.7
points). Then the Weibull shape of logs kept to the minute (same-minute rows merged, then rows merged within
5 min): the mean fitted shape and its interval's coverage. Coverages are printed, never asserted:
``tests/test_calibrate_coverage.py`` asserts them at a smaller size.
"""

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")      # one core
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _figures import record  # noqa: E402
from interval_coverage import SHAPES, band_coverage, minute_shapes, mtbf_coverage  # noqa: E402

MINUTE_CASES = (
    # merge window [s], seed offset, what is merged, the fit of before (its key, in words), tolerance on the mean
    (0.0, 3, "same-minute rows merged", ("exact", "recorded gaps taken as exact"), 0.01),
    (300.0, 4, "rows merged within 5 min (--merge-within)", ("from_starts", "gaps from each event's first row"),
     0.015),
)
"""The logs kept to the minute the bench fits: the reader's default window, and a wider one."""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=int, default=500, help="logs for the MTBF interval's coverage")
    parser.add_argument("--band-logs", type=int, default=300, help="logs for the goodput band's coverage")
    parser.add_argument("--events", type=int, default=300, help="failures a log holds")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    print(f"95% MTBF interval: share of {args.logs} logs of {args.events} failures holding the true MTBF")
    print(f"  {'shape':>5}  {'window ends at the last failure':>33}  {'window ends at a fixed date':>29}")
    print(f"  {'':>5}  {'before':>16} {'now':>16}  {'before':>14} {'now':>14}")
    for shape in SHAPES:
        last = mtbf_coverage(shape, args.logs, args.events, args.seed)
        fixed = mtbf_coverage(shape, args.logs, args.events, args.seed + 1, fixed_end=True)
        print(f"  {shape:>5}  {last['poisson']:>16.1%} {last['renewal']:>16.1%}  {fixed['poisson']:>14.1%} "
              f"{fixed['renewal']:>14.1%}", flush=True)
        for name, held in (("last failure", last), ("fixed date", fixed)):
            record(f"MTBF 95% interval coverage, Weibull shape {shape}, window to the {name}",
                   f"{held['renewal']:.1%}", "93-97%", 0.93 <= held["renewal"] <= 0.97,
                   note=f"{args.logs} logs; the Poisson interval of before: {held['poisson']:.1%}")
    print(f"\n90% goodput band (ETTR): share of {args.band_logs} logs whose fitted scenario's band holds the truth")
    print(f"  {'shape':>5}  {'before':>8} {'now':>8}")
    for shape in SHAPES:
        before = band_coverage(shape, args.band_logs, args.events, args.seed + 2, interval="poisson")
        now = band_coverage(shape, args.band_logs, args.events, args.seed + 2)
        print(f"  {shape:>5}  {before:>8.1%} {now:>8.1%}", flush=True)
        record(f"90% goodput band coverage, Weibull shape {shape}", f"{now:.1%}", "87-93%", 0.87 <= now <= 0.93,
               note=f"{args.band_logs} logs; with the Poisson interval of before: {before:.1%}")
    for merge_within, seed, title, before, tolerance in MINUTE_CASES:
        print(f"\nWeibull shape 0.7 from {args.logs} logs kept to the minute (mean gap 1 h), {title}:")
        fits = minute_shapes(0.7, args.logs, args.events, args.seed + seed, merge_within=merge_within)
        for name, what in ((before[0], before[1] + " (before)"), ("grouped", "drmath's fit (now)"),
                           ("true", "the true times, every row, before rounding")):
            shape, held = fits[name]
            print(f"  {what:<45} mean shape {shape:.3f}, 95% interval holds 0.7 in {held:.1%}")
        record(f"Weibull shape from logs kept to the minute, {title}, true 0.7",
               f"mean {fits['grouped'][0]:.3f}, coverage {fits['grouped'][1]:.1%}",
               f"mean within {tolerance:g} of the true-times fit; 93-97%",
               abs(fits["grouped"][0] - fits["true"][0]) <= tolerance and 0.93 <= fits["grouped"][1] <= 0.97,
               note=f"{before[1]}: mean {fits[before[0]][0]:.3f}, coverage {fits[before[0]][1]:.1%}")
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
