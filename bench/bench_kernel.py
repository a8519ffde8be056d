"""What one preheated kernel costs: CPU-seconds until it is ready for a visitor, and its RSS then.

    .venv/bin/python bench/bench_kernel.py [--kernels 4] [--timeout 300]

Starts ``python -m drmath.serve`` on a free 127.0.0.1 port (tests/conftest.py ``start_voila``) with a
pool of ``--kernels`` preheated kernels and no visitor. Voilà reports the pool "filled" as soon as each
kernel is started, before it has run the notebook; a pooled kernel is *ready* when it has run the
notebook's first cell and waits, idle, in ``query_string()`` (its second cell) for a visitor's request. So the
bench samples each kernel process (psutil ``cpu_times``, user + system) every 0.2 s after the pool is
reported filled, and takes a kernel as ready once its CPU time has not grown for 3 s; then reads its
RSS. Prints each kernel and the medians. The kernels start at the same time on this machine's cores,
which slows their wall-clock start but not the CPU-seconds each one burns. As a deployed server's
kernels do, they read drmath's bytecode from its cache (``PYTHONDONTWRITEBYTECODE`` is dropped and the
cache written first), so the figure does not include compiling drmath.

The kernels start from drmath's ``python3`` kernel spec (``drmath/data/kernels/python3``,
:mod:`drmath.serve.kernel_process`), as a served page's do: forks of the server's kernel zygote
(:mod:`drmath.serve.zygote`), whose own CPU (the imports every kernel shares, paid once per server) is printed apart.

Where the CPU goes (issue 24) is what ``--profile`` shows for one bare kernel: the
CPU-seconds to its ``kernel_info`` reply, then after each cell of the app notebook (after the cell Voilà runs
first, without history), run through a ``jupyter_client`` client (no Voilà; the request-channel cell returns at
once outside a preheated kernel),
for the stock ipykernel launcher and for drmath's.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from _figures import record  # noqa: E402
from conftest import kernel_processes, start_voila, stop_voila  # noqa: E402

MB = 1024 * 1024
TARGET_CPU = 0.4  # [CPU-s] issue 24: from ~0.5-0.6 (issue 12: from 5.7 to 1.5)


def cpu(process):
    """User + system CPU-seconds of ``process`` (its children included, if any)."""
    t = process.cpu_times()
    return t.user + t.system + t.children_user + t.children_system


def settle(processes, quiet=3.0, timeout=300.0, interval=0.2):
    """Wait until each process's CPU time has not grown for ``quiet`` s; ``{pid: (cpu_s, rss, wall_s)}``."""
    last = {p.pid: (cpu(p), time.monotonic()) for p in processes}
    done = {}
    deadline = time.monotonic() + timeout
    while len(done) < len(processes) and time.monotonic() < deadline:
        time.sleep(interval)
        now = time.monotonic()
        for p in processes:
            if p.pid in done:
                continue
            c = cpu(p)
            if c - last[p.pid][0] > 0.005:
                last[p.pid] = (c, now)
            elif now - last[p.pid][1] >= quiet:
                done[p.pid] = (c, p.memory_info().rss, last[p.pid][1] - p.create_time() + time.time() - now)
    missing = [p.pid for p in processes if p.pid not in done]
    if missing:
        raise RuntimeError(f"kernels {missing} still busy after {timeout:.0f} s")
    return done


STOCK = [sys.executable, "-m", "ipykernel_launcher"]
"""The stock ipykernel launcher (the python3 kernel spec of the environment)."""


def drmath_launcher():
    """drmath's kernel command (its kernel spec's ``argv`` up to the connection file)."""
    import json

    from drmath import _resources

    argv = json.loads(_resources.data_file("kernels", "python3", "kernel.json").read_text())["argv"]
    return [sys.executable, *argv[1:argv.index("-f")]], argv[argv.index("{connection_file}") + 1:]


def profile_kernel(command, flags=(), timeout=120):
    """CPU-seconds of one bare kernel started by ``command``: at its ``kernel_info`` reply, then after each code
    cell of the app notebook. ``(ready, [after cell 1, ...])``."""
    import nbformat
    from jupyter_client import BlockingKernelClient
    from jupyter_client.connect import write_connection_file

    from drmath.serve.settings import NOTEBOOK

    with tempfile.TemporaryDirectory() as tmp:
        connection, _ = write_connection_file(str(Path(tmp) / "kernel.json"))
        env = {**os.environ, "VOILA_PREHEAT": "False"}
        popen = subprocess.Popen([*command, "-f", connection, *flags], env=env, cwd=ROOT,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = BlockingKernelClient()
        try:
            process = psutil.Process(popen.pid)
            client.load_connection_file(connection)
            client.start_channels()
            client.wait_for_ready(timeout=timeout)
            ready, cells = cpu(process), []
            # as Voilà does before the notebook: its kernel id into os.environ, without history
            client.execute_interactive("import os\nos.environ['VOILA_KERNEL_ID'] = 'bench'", store_history=False,
                                       timeout=timeout, output_hook=lambda msg: None)
            for cell in nbformat.read(NOTEBOOK, as_version=4).cells:
                if cell.cell_type == "code":
                    client.execute_interactive(cell.source, timeout=timeout, output_hook=lambda msg: None)
                    cells.append(cpu(process))
            return ready, cells
        finally:
            client.stop_channels()
            popen.kill()
            popen.wait(timeout=10)


def profile(runs=3):
    """Print :func:`profile_kernel` for the stock launcher and for drmath's, ``runs`` times each."""
    ours, flags = drmath_launcher()
    for name, command, extra in (("stock ipykernel", STOCK, ()), ("drmath kernel", ours, flags)):
        for _ in range(runs):
            ready, cells = profile_kernel(command, extra)
            print(f"{name:>16}: {ready:.2f} CPU-s at kernel_info, then after each cell "
                  f"{', '.join(f'{c:.2f}' for c in cells)} CPU-s")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=4, help="preheated kernels to measure (the pool size)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait for them")
    parser.add_argument("--profile", action="store_true",
                        help="instead: one bare kernel per launcher, CPU at kernel_info and after each cell")
    args = parser.parse_args(argv)
    # a deployed Python caches bytecode; without it every kernel recompiles drmath from source
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-c", "import drmath.dashboard, drmath.serve"], cwd=ROOT, check=True)
    if args.profile:
        profile()
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        # cull rarely: the bench only watches the pool
        proc, url, _ = start_voila(Path(tmp) / "voila.log", cull_interval=600, cull_idle_timeout=600,
                                   pool_size=args.kernels, timeout=args.timeout,
                                   extra=[f"--max-kernels={args.kernels + 1}"])
        try:
            deadline = time.monotonic() + args.timeout
            kernels = kernel_processes(proc.pid)
            while len(kernels) < args.kernels and time.monotonic() < deadline:
                time.sleep(0.2)
                kernels = kernel_processes(proc.pid)
            ready = settle(kernels, timeout=max(deadline - time.monotonic(), 10))
            server = psutil.Process(proc.pid)
            server_cpu, server_rss = cpu(server), server.memory_info().rss
            zygotes = [(cpu(p), p.memory_info().rss) for p in server.children()
                       if "drmath.serve.zygote_process" in " ".join(p.cmdline())]
        finally:
            stop_voila(proc)

    print(f"{'kernel pid':>10} {'CPU-s to ready':>15} {'RSS':>9} {'wall s':>7}")
    for pid, (c, rss, wall) in sorted(ready.items()):
        print(f"{pid:>10} {c:>15.2f} {rss / MB:>7.0f} MB {wall:>7.1f}")
    cpus = [c for c, _, _ in ready.values()]
    rsss = [r for _, r, _ in ready.values()]
    median_cpu, median_rss = statistics.median(cpus), statistics.median(rsss)
    print(f"median: {median_cpu:.2f} CPU-s to ready, RSS {median_rss / MB:.0f} MB "
          f"(min {min(cpus):.2f}, max {max(cpus):.2f}; {len(cpus)} kernels)")
    print(f"server: {server_cpu:.2f} CPU-s, RSS {server_rss / MB:.0f} MB (start-up and pool included)")
    for zygote_cpu, zygote_rss in zygotes:  # paid once per server: the kernels are its forks (drmath.serve.zygote)
        print(f"kernel zygote: {zygote_cpu:.2f} CPU-s, RSS {zygote_rss / MB:.0f} MB (once per server; each kernel's "
              f"figure above is its own CPU after the fork)")
    record("preheated kernel: CPU to ready", f"{median_cpu:.2f} CPU-s", f"<= {TARGET_CPU:g} CPU-s",
           median_cpu <= TARGET_CPU, f"median of {len(cpus)} pooled kernels, psutil user + system time until "
           f"idle in query_string(); min {min(cpus):.2f}, max {max(cpus):.2f}")
    record("preheated kernel: RSS when ready", f"{median_rss / MB:.0f} MB", "", None,
           f"median of {len(cpus)} pooled kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
