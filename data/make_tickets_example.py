"""Write ``tickets_example.csv``: a GENERATED ticket-system export for ``drmath calibrate`` to read as it comes.

Not a real fleet's tickets. Every row comes from the stated parameters below and a fixed seed, so running
this again writes the same file byte for byte::

    .venv/bin/python data/make_tickets_example.py      # writes data/tickets_example.csv

It is shaped like the export of issue 35: the columns ``Ticket``, ``Created``, ``Resolved``, ``Component`` and
``Cluster``, in a ticket system's order (newest first), with what such an export holds that a hand-kept log
does not:

- two timestamp styles in one column: ISO 8601 (``2025-03-01T02:36:31Z``) from the API, and
  ``2025-03-01 02:36:31 UTC`` from tickets filed by hand (one in four);
- ``OPEN`` tickets still open at the export, with an empty ``Resolved`` (4 on cluster ``prod``);
- rows exported twice (3, identical to the row before them);
- a second cluster, ``staging``, to filter out (``--where Cluster=prod``).

Cluster ``prod``: 60 interruptions in 30 days from 2025-03-01 00:00 UTC at a constant rate, repairs lognormal
with a median of 45 min and sigma 0.8, components weighted as Llama 3's Table 5 counts (arXiv:2407.21783).

``drmath calibrate data/tickets_example.csv --start-column Created --end-column Resolved --cause-column Component
--where Cluster=prod`` fits it; README.md shows the command and tests/test_calibrate_tickets.py runs it.
"""

from pathlib import Path

import numpy as np

SEED = 20250301
START = np.datetime64("2025-03-01T00:00:00")
DAYS, EVENTS, OPEN, DUPLICATES, STAGING = 30, 60, 4, 3, 12
REPAIR_MEDIAN, REPAIR_SIGMA = 45 * 60.0, 0.8
HAND = 0.25  # share of tickets filed by hand: "2025-03-01 02:36:31 UTC"
COMPONENTS = [("Faulty GPU", 148), ("GPU HBM3 Memory", 72), ("Software Bug", 54), ("Network Switch/Cable", 35),
              ("Host Maintenance", 32), ("GPU SRAM Memory", 19), ("GPU System Processor", 17), ("NIC", 7)]
HEADER = ("# GENERATED, not a real ticket export: data/make_tickets_example.py wrote it (seed 20250301); its "
          "docstring states every parameter.\n"
          "# prod: 60 interruptions in 30 days from 2025-03-01 UTC, 4 still open, 3 rows exported twice, times in "
          "two styles; staging: to be filtered out.\n")


def _time(seconds, hand):
    stamp = (START + np.timedelta64(int(round(seconds)), "s")).astype(str)
    return stamp.replace("T", " ") + " UTC" if hand else stamp + "Z"


def rows(rng):
    """The export's rows, newest first: (ticket, created, resolved, component, cluster)."""
    names = [name for name, _ in COMPONENTS]
    weights = np.array([count for _, count in COMPONENTS], dtype=float)
    out = []
    for cluster, count in (("prod", EVENTS), ("staging", STAGING)):
        starts = np.sort(rng.uniform(0, DAYS * 86400.0, count))
        repairs = rng.lognormal(np.log(REPAIR_MEDIAN), REPAIR_SIGMA, count)
        hand = rng.random(count) < HAND
        causes = rng.choice(len(names), count, p=weights / weights.sum())
        still_open = set(range(count - OPEN, count)) if cluster == "prod" else set()  # the latest are open
        for i in range(count):
            end = "" if i in still_open else _time(starts[i] + repairs[i], hand[i])
            out.append([cluster, _time(starts[i], hand[i]), end, names[causes[i]], cluster])
    out.sort(key=lambda row: row[1].replace(" UTC", "Z").replace(" ", "T"), reverse=True)
    table = [[f"OPS-{len(out) - k:04d}", *row[1:]] for k, row in enumerate(out)]
    closed = [k for k, row in enumerate(table) if row[4] == "prod" and row[2]]
    for k in sorted(rng.choice(closed, DUPLICATES, replace=False), reverse=True):  # exported twice
        table.insert(k + 1, list(table[k]))
    return table


def main():
    rng = np.random.default_rng(SEED)
    text = HEADER + "Ticket,Created,Resolved,Component,Cluster\n" + "".join(
        ",".join(row) + "\n" for row in rows(rng))
    path = Path(__file__).with_name("tickets_example.csv")
    path.write_text(text)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
