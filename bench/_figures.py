"""Shared by the bench scripts: hand each figure to bench/run.py's table.

A script calls :func:`record` for each figure it measures. When run by ``bench/run.py``
(which sets ``DRMATH_BENCH_FIGURES``), the rows are appended there as JSON lines;
run alone, the script just prints as usual.
"""

import json
import os


def record(figure, value, target="", ok=None, note=""):
    """One figure: its reading (text with units), its target (text), and whether it meets it.

    ``ok`` is None for a figure that only reports (no target).
    """
    path = os.environ.get("DRMATH_BENCH_FIGURES")
    if not path:
        return
    ok = None if ok is None else bool(ok)  # numpy's bool is not JSON
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"figure": figure, "value": value, "target": target, "ok": ok, "note": note}) + "\n")
