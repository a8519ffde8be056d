"""Write ``run_example.jsonl``: a GENERATED run-event log for ``drmath measure`` to read.

Not a real run's log. The simulator (:func:`drmath.simulate.simulate_run_log`) draws one run of the seed
scenario, shortened and made less reliable so a small file holds several failures, with a fixed seed, so
running this again writes the same file byte for byte::

    .venv/bin/python data/make_run_example.py      # writes data/run_example.jsonl

The parameters: the seed scenario (``data/scenarios/seed.toml``: 8,000 H100s, a 405B model) for an 8-hour
window, its GPUs failing 4 times as often as the seed assumes (``failures.gpu_failure_rate`` x 4); steps of the
plan's step time fitted to its checkpoint interval; restarts gamma-distributed around the plan's restart
overhead (coefficient of variation 0.5); times in ISO 8601 from 2026-03-01 00:00 UTC, to the millisecond.

``drmath measure data/run_example.jsonl --scenario seed`` reads it beside the seed's plan: the failure rate it
implies is about 4 times the seed's. README.md shows the output.
"""

import datetime as dt
from pathlib import Path

from drmath.io.runs import to_jsonl
from drmath.io.scenarios import seed
from drmath.simulate import simulate_run_log

SEED = 20260301
START = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
WINDOW = 8 * 3600.0          # [s]
FAILURE_FACTOR = 4.0         # the seed's per-GPU failure rate times this


def main():
    base = seed()
    scenario = base.with_changes({"training.window": WINDOW,
                                  "failures.gpu_failure_rate": FAILURE_FACTOR * base.failures.gpu_failure_rate})
    log = simulate_run_log(scenario, seed=SEED)
    log["time"], log["duration"] = log["time"].round(3), log["duration"].round(3)
    target = Path(__file__).resolve().parent / "run_example.jsonl"
    target.write_text(to_jsonl(log, START), encoding="utf-8")
    print(f"wrote {target.name}: {len(log['event'])} records, {log['failures']} failures, "
          f"simulated goodput {log['goodput']:.4f}")


if __name__ == "__main__":
    main()
