"""What `import drmath` costs over `import numpy`, in fresh interpreters.

Prints figures; asserts nothing. Run: .venv/bin/python bench/bench_import.py [--runs N]

Target (issue "one place"): `import drmath` adds <= 50 ms to `import numpy`, the median of fresh
processes with the bytecode cached (as a user's Python has it). `import drmath` loads numpy and no
other third-party package; pandas, plotly and ipywidgets load inside the functions that use them
(tests/test_import_light.py checks that). A `python -X importtime` run then shows where drmath's own
share goes, module by module.
"""

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

from _figures import record

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 50.0
HEAVY = ("pandas", "plotly", "ipywidgets")
# a user's Python caches bytecode; without it every import recompiles drmath from source
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def import_ms(module, runs):
    """Wall time of ``import <module>`` [ms] in each of ``runs`` fresh interpreters (after one warm-up)."""
    code = f"import time; t = time.perf_counter(); import {module}; print((time.perf_counter() - t) * 1e3)"

    def once():
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                             env=_ENV)
        return float(out.stdout)

    once()  # writes the bytecode cache
    return [once() for _ in range(runs)]


def import_profile():
    """``-X importtime`` of ``import drmath``: {module: self time [ms]} for every module it loads."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import drmath"], capture_output=True,
                         text=True, check=True, cwd=ROOT, env=_ENV)
    times = {}
    for line in out.stderr.splitlines():  # "import time:  self [us] | cumulative | imported package"
        if line.startswith("import time:") and "|" in line:
            self_us, _, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
            if self_us.isdigit():
                times[name] = int(self_us) / 1e3
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="fresh interpreters per statement (default 10)")
    args = parser.parse_args(argv)

    numpy = import_ms("numpy", args.runs)
    drmath = import_ms("drmath", args.runs)
    added = statistics.median(drmath) - statistics.median(numpy)
    print(f"import numpy   median {statistics.median(numpy):6.1f} ms  (min {min(numpy):.1f}, max {max(numpy):.1f})")
    print(f"import drmath  median {statistics.median(drmath):6.1f} ms  (min {min(drmath):.1f}, max {max(drmath):.1f})"
          f"  includes numpy")
    verdict = "meets" if added <= TARGET_MS else "FALLS SHORT of"
    print(f"drmath adds {added:.1f} ms to import numpy: {verdict} the {TARGET_MS:.0f} ms target "
          f"(median of {args.runs} fresh processes each, bytecode cached)")

    times = import_profile()
    own = {name: ms for name, ms in times.items() if name.split(".")[0] == "drmath"}
    heavy = sorted({name.split(".")[0] for name in times} & set(HEAVY))
    top = sorted(own.items(), key=lambda item: -item[1])[:5]
    print(f"\n-X importtime: drmath's own modules {sum(own.values()):.1f} ms in all; the slowest:")
    for name, ms in top:
        print(f"  {name:<24} {ms:6.2f} ms")
    print(f"heavy packages loaded by import drmath: {', '.join(heavy) or 'none'}")

    record("import drmath minus import numpy", f"{added:.1f} ms", f"<= {TARGET_MS:.0f} ms", added <= TARGET_MS,
           f"medians of {args.runs} fresh processes, bytecode cached: numpy {statistics.median(numpy):.1f} ms, "
           f"drmath {statistics.median(drmath):.1f} ms; drmath's own modules {sum(own.values()):.1f} ms "
           f"(-X importtime), slowest {top[0][0]} {top[0][1]:.1f} ms; "
           f"heavy packages loaded: {', '.join(heavy) or 'none'}")
    return added


if __name__ == "__main__":
    main()
