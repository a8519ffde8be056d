"""Run every benchmark of the project and print one table: figure, value, target, pass or fall short.

    ./tasks bench                 # everything, then writes BENCHMARKS.md
    ./tasks bench --only core     # some of them (core, import, simulate, report, plotly, browser, load, burst,
                                  # replicas, kernel, solve, calibrate, frames, uncertainty, intervals)
    ./tasks bench --no-write      # print the table, leave BENCHMARKS.md alone

Each script in bench/ also runs alone and prints its own details, with the arguments SCRIPTS gives it here;
its full output is kept in bench/out/<name>.log. Benchmarks measure and print; nothing here is a test.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCRIPTS = {  # name: the script and its arguments
    "core": ["bench_core.py"],
    "import": ["bench_import.py"],
    "simulate": ["bench_simulate.py"],
    "report": ["bench_report.py"],
    "plotly": ["bench_plotly.py"],
    "browser": ["bench_browser.py"],
    "load": ["bench_load.py"],  # 20 visitors' websocket clients: the server's cost of a live page
    "burst": ["bench_load.py", "--clients", "mixed", "--visitors", "50"],  # issue 24: 50 arrivals, 6 browsers
    "replicas": ["bench_replicas.py"],
    "kernel": ["bench_kernel.py"],
    "solve": ["bench_solve.py"],
    "solve-exact": ["bench_solve_exact.py"],  # issue 34: solve() against a 500,000-design search, and its draws
    "calibrate": ["bench_calibrate.py"],
    "frames": ["bench_frames.py"],
    "links": ["bench_links.py"],  # issue 32: 5,000 distinct share links, the server's RSS
    "uncertainty": ["bench_uncertainty.py"],
    "intervals": ["bench_intervals.py"],  # issue 34: coverage of the MTBF interval and the goodput band
}


def machine():
    """What the figures were measured on."""
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        import psutil
        memory = f"{psutil.virtual_memory().total / 2**30:.0f} GiB"
    except ImportError:
        memory = "unknown memory"
    return (f"{os.cpu_count()} cores ({cpu}), {memory}, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def run(names):
    rows, failed = [], []
    out_dir = HERE / "out"
    out_dir.mkdir(exist_ok=True)
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", delete=False) as sink:
        env = dict(os.environ, DRMATH_BENCH_FIGURES=sink.name)
        for name in names:
            script = HERE / SCRIPTS[name][0]
            if not script.exists():
                print(f"-- {name}: {script.name} is not there, skipped", flush=True)
                continue
            arguments = SCRIPTS[name][1:]
            print(f"-- {name}: {' '.join([script.name, *arguments])} (load average {os.getloadavg()[0]:.1f})",
                  flush=True)
            start = time.monotonic()
            with open(out_dir / f"{name}.log", "w") as log:
                proc = subprocess.run([sys.executable, str(script), *arguments], cwd=ROOT, env=env, stdout=log,
                                      stderr=subprocess.STDOUT)
            print(f"   {time.monotonic() - start:.0f} s, exit {proc.returncode}; output in bench/out/{name}.log",
                  flush=True)
            if proc.returncode:
                failed.append(name)
        rows = [json.loads(line) for line in Path(sink.name).read_text().splitlines() if line.strip()]
    os.unlink(sink.name)
    return rows, failed


def table(rows):
    head = ("figure", "value", "target", "result")
    body = [(r["figure"], r["value"], r["target"] or "—",
             "reported" if r["ok"] is None else ("pass" if r["ok"] else "falls short")) for r in rows]
    widths = [max(len(str(x[i])) for x in [head, *body]) for i in range(4)]
    lines = ["| " + " | ".join(str(c).ljust(w) for c, w in zip(head, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |" for r in body]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(SCRIPTS), help="run only these")
    parser.add_argument("--no-write", action="store_true", help="do not rewrite BENCHMARKS.md")
    args = parser.parse_args(argv)
    names = args.only or list(SCRIPTS)
    load_before = os.getloadavg()[0]
    rows, failed = run(names)
    text = table(rows)
    print("\n" + text)
    notes = [r for r in rows if r.get("note")]
    if failed:
        print(f"\nscripts that exited with an error: {', '.join(failed)}")
    if not args.no_write and not args.only:
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        doc = [
            "# Benchmarks", "",
            f"The latest `./tasks bench`, {stamp}, on {machine()}.",
            f"1-minute load average {load_before:.1f} before and {os.getloadavg()[0]:.1f} after: "
            "other work on the machine slows every timing.", "",
            text, "", "Notes:", "",
            *[f"- {r['figure']}: {r['note']}." for r in notes],
        ]
        if failed:
            doc += ["", f"Scripts that exited with an error: {', '.join(failed)}."]
        (ROOT / "BENCHMARKS.md").write_text("\n".join(doc) + "\n")
        print("\nwrote BENCHMARKS.md")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
