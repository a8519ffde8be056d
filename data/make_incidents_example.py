"""Write ``incidents_example.csv``: a GENERATED incident log for ``drmath calibrate`` to read.

Not a real fleet's log. Every row comes from the stated parameters below and a fixed seed, so running
this again writes the same file byte for byte::

    .venv/bin/python data/make_incidents_example.py      # writes data/incidents_example.csv

The parameters, chosen to look like the Llama 3 snapshot (arXiv:2407.21783, section 3.3.4 and Table 5):

- Cluster ``primary``: 16,384 GPUs observed for 54 days from 2024-05-01 00:00 UTC. Interruptions
  follow a power-law process (Crow-AMSAA) with shape beta = 0.8 and 419 expected events: the rate
  falls over the window as a new fleet burns in (the Laplace test should say "falling"), and
  the whole-window average is Llama 3's 419 in 54 days.
- Repairs (start to the job running again) are lognormal with a median of 40 min and sigma 0.9.
- Causes are drawn with Llama 3 Table 5's counts as weights (faulty GPU 148 of 419, GPU HBM3 72, software
  bug 54, ...), and each cause has a scope (node, rack or job).
- 3% of interruptions are logged as two rows, the second a node of the same incident with
  ``joins_previous = 1``, 30 s to 2 min later; 2% as two rows with the same start time and no flag. Both
  are one event to drmath (its rules for joined and simultaneous rows).
- Cluster ``research``: 2,048 GPUs, a constant rate of one interruption a day, same repairs. Its
  rows are there to be filtered out (``--where cluster=primary``).

``drmath calibrate data/incidents_example.csv --start-column start --end-column end --where
cluster=primary --gpus 16384`` fits it; README.md shows the output.
"""

from pathlib import Path

import numpy as np

SEED = 20240501
START = np.datetime64("2024-05-01T00:00:00")
DAYS = 54
DAY = 86400.0
BETA, EXPECTED = 0.8, 419            # power-law shape, expected interruptions on the primary cluster
REPAIR_MEDIAN, REPAIR_SIGMA = 40 * 60.0, 0.9
JOINED, SIMULTANEOUS = 0.03, 0.02    # shares of interruptions logged as two rows
RESEARCH_RATE = 1.0 / DAY            # [1/s]
# Llama 3 Table 5 (component, count of 419), with the scope drmath's example gives each
CAUSES = [("Faulty GPU", 148, "node"), ("GPU HBM3 Memory", 72, "node"), ("Software Bug", 54, "job"),
          ("Network Switch/Cable", 35, "rack"), ("Host Maintenance", 32, "node"), ("GPU SRAM Memory", 19, "node"),
          ("GPU System Processor", 17, "node"), ("NIC", 7, "node"), ("NCCL Watchdog Timeouts", 7, "job"),
          ("Silent Data Corruption", 6, "node"), ("GPU Thermal Interface + Sensor", 6, "node"), ("SSD", 3, "node"),
          ("Power Supply", 3, "node"), ("Server Chassis", 2, "node"), ("IO Expansion Board", 2, "node"),
          ("Dependency", 2, "job"), ("CPU", 2, "node"), ("System Memory", 2, "node")]
HEADER = "incident,cluster,start,end,cause,scope,node,joins_previous"


def stamp(seconds):
    """Seconds from START as an ISO 8601 UTC time, to the second."""
    return str(START + np.timedelta64(int(round(seconds)), "s")) + "Z"


def rows(rng, cluster, times, nodes):
    """The log rows of one cluster's interruptions at ``times`` [s], each led by its sort key.

    The key is the incident's first start and the row's place in it, so a joined row always follows
    the row it joins, even when another incident starts in between."""
    weights = np.array([c[1] for c in CAUSES], dtype=float)
    out = []
    for t in times:
        repair = rng.lognormal(np.log(REPAIR_MEDIAN), REPAIR_SIGMA)
        cause, _, scope = CAUSES[rng.choice(len(CAUSES), p=weights / weights.sum())]
        node = rng.integers(nodes)
        out.append([t, 0, cluster, t, t + repair, cause, scope, node, 0])
        extra = rng.random()
        if extra < JOINED:  # a second node of the same incident, logged a little later
            later = t + rng.uniform(30, 120)
            out.append([t, 1, cluster, later, later + repair * rng.uniform(0.8, 1.2), cause, scope, rng.integers(nodes),
                        1])
        elif extra < JOINED + SIMULTANEOUS:  # a second node, logged at the same instant
            out.append([t, 1, cluster, t, t + repair * rng.uniform(0.8, 1.2), cause, scope, rng.integers(nodes), 0])
    return out


def main():
    rng = np.random.default_rng(SEED)
    window = DAYS * DAY
    # a power-law process on [0, T]: given N events, their times are iid with CDF (t/T)^beta
    primary = np.sort(window * rng.random(rng.poisson(EXPECTED)) ** (1.0 / BETA))
    research = np.sort(rng.uniform(0.0, window, rng.poisson(RESEARCH_RATE * window)))
    log = rows(rng, "primary", primary, 2048) + rows(rng, "research", research, 256)
    log.sort(key=lambda r: (r[0], r[1]))
    lines = ["# GENERATED, not a real fleet's log: data/make_incidents_example.py wrote it (seed "
             f"{SEED}); its docstring states every parameter.",
             f"# primary: 16,384 GPUs, {DAYS} days from 2024-05-01 UTC, a power-law process with beta = {BETA} "
             f"(a falling rate) and {EXPECTED} expected interruptions;",
             "# repairs lognormal (median 40 min, sigma 0.9); causes weighted by Llama 3 Table 5's counts;",
             "# research: 2,048 GPUs, one interruption a day, to be filtered out (--where cluster=primary).",
             HEADER]
    for number, (_, _, cluster, start, end, cause, scope, node, joins) in enumerate(log, 1):
        lines.append(f"{number},{cluster},{stamp(start)},{stamp(end)},{cause},{scope},"
                     f"{cluster[0]}{node:04d},{joins}")
    target = Path(__file__).resolve().parent / "incidents_example.csv"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {target.name}: {len(log)} rows ({len(primary)} primary interruptions, "
          f"{len(research)} research)")


if __name__ == "__main__":
    main()
