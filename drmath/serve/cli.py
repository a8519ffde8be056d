"""``python -m drmath.serve``: the command line, the Voilà options it becomes, and the environment Voilà runs in.

    >>> argv = voila_argv(port=8866)
    >>> "--Voila.ip=127.0.0.1" in argv and "--template=drlab" in argv
    True
    >>> "--GraceKernelManager.max_kernels=24" in argv
    True
"""

import argparse
import os
import sys
from pathlib import Path

from .settings import (
    IDLE_CONNECTED_TIMEOUT,
    IOPUB_TIMEOUT,
    KERNEL_CPU_BUDGET,
    KERNEL_MEMORY_LIMIT,
    MAX_KERNELS,
    MAX_MESSAGE_SIZE,
    NOTEBOOK,
    ROOT,
    STARTING_PER_CORE,
    TEMPLATE_ROOT,
    machine,
    machine_defaults,
    parse_size,
)

__all__ = ["voila_env", "voila_argv", "command", "main"]


def voila_env(environ=None):
    """The environment Voilà runs in: ``JUPYTER_PATH`` with the ``drlab`` template first.

    ``JUPYTER_PATH`` starts with :data:`TEMPLATE_ROOT` (package data), where Voilà finds the
    template and serves its ``static/`` files. When drmath runs from a checkout that Python would
    not find on its own (not installed), ``PYTHONPATH`` names :data:`ROOT`, so the kernels import
    the same drmath as the server.

    Parameters
    ----------
    environ : mapping, optional
        The base environment; ``os.environ`` when omitted.

    Returns
    -------
    env : dict
        The environment for the Voilà process.

    Examples
    --------
    >>> first = voila_env({})["JUPYTER_PATH"].split(os.pathsep)[0]
    >>> (Path(first) / "voila" / "templates" / "drlab" / "conf.json").is_file()
    True
    """
    import site
    import sysconfig

    env = dict(os.environ if environ is None else environ)
    paths = [str(TEMPLATE_ROOT)]
    if env.get("JUPYTER_PATH"):
        paths.append(env["JUPYTER_PATH"])
    env["JUPYTER_PATH"] = os.pathsep.join(paths)
    installed = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], site.getusersitepackages()}
    if ROOT not in {Path(p).resolve() for p in installed}:
        env.setdefault("PYTHONPATH", str(ROOT))
    return env



def voila_argv(port=8866, ip="127.0.0.1", notebook=NOTEBOOK, pool_size=2, cull_interval=60,
               cull_idle_timeout=300, extra=(), max_kernels=MAX_KERNELS,
               idle_connected_timeout=IDLE_CONNECTED_TIMEOUT, kernel_memory_limit=KERNEL_MEMORY_LIMIT,
               max_message_size=MAX_MESSAGE_SIZE, kernel_cpu_budget=KERNEL_CPU_BUDGET, max_starting=0,
               prerender=True):
    """The ``voila`` command line, after ``python -m voila``.

    Parameters
    ----------
    port : int, default 8866
        TCP port.
    ip : str, default "127.0.0.1"
        Interface to bind; loopback by default.
    notebook : path-like
        The app notebook.
    pool_size : int, default 2
        Preheated kernels kept ready. [1]
    cull_interval : float, default 60
        How often idle kernels are looked for. [s]
    cull_idle_timeout : float, default 300
        Idle time after which a kernel with no open connection is shut down. [s]
    extra : sequence of str
        More Voilà options, appended.
    max_kernels : int, default MAX_KERNELS
        Most kernels alive at once, pool included (0: no cap); visitors over it get the busy page. [1]
    idle_connected_timeout : float, default IDLE_CONNECTED_TIMEOUT
        A kernel whose open page sent nothing for this long is shut down (0: never). [s]
    kernel_memory_limit : int, default KERNEL_MEMORY_LIMIT
        A visitor kernel whose RSS goes over this is shut down (0: no limit). [B]
    max_message_size : int, default MAX_MESSAGE_SIZE
        Largest message a page may send over its kernel websocket; a larger one ends its session. [B]
    kernel_cpu_budget : float, default KERNEL_CPU_BUDGET
        Most CPU-seconds a visitor's kernel may use in any minute; over it, its session ends (0: none). [s]
    max_starting : int, default 0
        Most kernels starting at once; the others wait their turn (0: no bound). [1]
    prerender : bool, default True
        Render every notebook page's static start once the server is up (else each on its first request).

    Returns
    -------
    argv : list of str
        The arguments.

    Examples
    --------
    >>> [a for a in voila_argv(cull_interval=5) if "cull_interval" in a]
    ['--MappingKernelManager.cull_interval=5']
    >>> [a for a in voila_argv() if "iopub" in a]
    ['--VoilaExecutor.iopub_timeout=120']
    """
    from .._resources import PLOTLY_STATIC

    # drmath_dashboard: the page is the dashboard, whose preview (the drlab template's) waits for its cards and
    # charts; a plain notebook's goes as soon as its cells are shown
    # drmath_notebooks: the site's notebook pages (issue 35), which are not the dashboard
    from .site import site_resources

    resources = {"drmath_plotly": PLOTLY_STATIC, "drmath_dashboard": True, **site_resources()}
    tornado = {"websocket_compression_options": {}, "websocket_max_message_size": int(max_message_size)}
    return [
        str(notebook), "--no-browser", f"--port={int(port)}", f"--Voila.ip={ip}", "--template=drlab",
        # a port in use ends the start, with Voilà's line saying so: Voilà's default is to move to the next free
        # port, while each kernel's request channel (query_client) still dials the port it was given, so every
        # page of such a server would wait for a request that never comes
        "--Voila.port_retries=0",
        "--VoilaConfiguration.preheat_kernel=True", f"--VoilaConfiguration.default_pool_size={int(pool_size)}",
        f"--MappingKernelManager.cull_interval={cull_interval:g}",
        f"--MappingKernelManager.cull_idle_timeout={cull_idle_timeout:g}",
        "--MappingKernelManager.cull_connected=False",
        "--VoilaConfiguration.multi_kernel_manager_class=drmath.serve.kernels.GraceKernelManager",
        f"--GraceKernelManager.max_kernels={int(max_kernels)}",
        f"--GraceKernelManager.idle_connected_timeout={idle_connected_timeout:g}",
        f"--GraceKernelManager.memory_limit={int(kernel_memory_limit)}",
        f"--GraceKernelManager.cpu_budget={kernel_cpu_budget:g}",
        f"--GraceKernelManager.max_starting={int(max_starting)}",  # issue 24: a burst starts side by side
        "--KernelRestarter.restart_limit=0",  # a dead kernel's session ends: a restart would lose its widgets
        # refill the pool after a visit's page has loaded, not while it competes for the CPU
        "--VoilaKernelManager.fill_delay=8",
        # a busy server reads a kernel's output late: after nbclient's default 4 s it skips the rest of the cell's
        # output, and a pooled kernel would serve a page with no app on it (a 1 MB-message flood did this in CI)
        f"--VoilaExecutor.iopub_timeout={IOPUB_TIMEOUT}",
        f"--VoilaConfiguration.resources={resources!r}",
        f"--Voila.tornado_settings={tornado!r}",
        # the page loads only the front-end extensions the dashboard uses (not plotly's 4.8 MB one, nor any other
        # JupyterLab extension installed beside Voilà: jupytext's fails in a Voilà page, RUNTIME-012)
        "--VoilaConfiguration.extension_allowlist=['@jupyter-widgets/jupyterlab-manager', "
        "'@voila-dashboards/widgets-manager8', 'anywidget']",
        # issue 12: a visitor's ?theme= / ?template= never reaches a template (CappedVoilaHandler drops them too)
        "--VoilaConfiguration.allow_theme_override=NO", "--VoilaConfiguration.allow_template_override=NO",
        f"--Voila.prerender={bool(prerender)}",  # issue 35: the notebook pages' static starts, at start
        *extra,
    ]


def _size_arg(field):
    """An argparse ``type`` reading a size (:func:`parse_size`) for option ``field``."""
    def read(text):
        try:
            return parse_size(text, field)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
    return read


def command(argv=None):
    """The Voilà command line and environment for ``python -m drmath.serve`` arguments.

    Parameters
    ----------
    argv : list of str, optional
        ``--port``, ``--ip``, ``--pool-size``, ``--max-kernels``, ``--cull-interval``,
        ``--cull-idle-timeout``, ``--notebook``, ``--idle-connected-timeout``, ``--kernel-memory-limit``,
        ``--max-message-size``, ``--kernel-cpu-budget``, ``--max-starting``, ``--no-prerender``; anything else is
        passed to Voilà.

    Returns
    -------
    argv : list of str
        The full command, starting with this Python; it runs :func:`voila_main`.
    env : dict
        The environment to run it in.

    Examples
    --------
    >>> cmd, env = command(["--port", "9000", "--cull-idle-timeout", "10"])
    >>> "--port=9000" in cmd, "--MappingKernelManager.cull_idle_timeout=10" in cmd
    (True, True)
    >>> "--GraceKernelManager.max_kernels=5" in command(["--max-kernels", "5"])[0]
    True

    ``--pool-size`` and ``--max-kernels`` default to :func:`machine_defaults` of this machine's
    cores and memory; one given alone bounds the other:

    >>> "--VoilaConfiguration.default_pool_size=1" in command(["--max-kernels", "2"])[0]
    True
    >>> "--GraceKernelManager.memory_limit=250000000" in command(["--kernel-memory-limit", "250MB"])[0]
    True
    >>> "--GraceKernelManager.max_starting=3" in command(["--max-starting", "3"])[0]
    True
    """
    parser = argparse.ArgumentParser(prog="python -m drmath.serve", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8866, help="TCP port (default 8866)")
    parser.add_argument("--ip", default="127.0.0.1", help="interface to bind (default loopback)")
    cores, memory = machine()
    try:  # issue 12: the defaults fit this machine (machine_defaults)
        pool, cap = machine_defaults(cores, memory)
        small = None
    except ValueError as err:  # a machine too small for the rule: the options must say
        pool, cap, small = "?", "?", err
    parser.add_argument("--pool-size", type=int, default=None,
                        help=f"preheated kernels (default: one per core, at most 8: {pool} here)")
    parser.add_argument("--max-kernels", type=int, default=None,
                        help=f"most kernels alive at once, pool included; visitors over it get a 503 busy page "
                             f"(default: 12 per core, within half the memory at 120 MB each: {cap} here; 0: no cap)")
    parser.add_argument("--cull-interval", type=float, default=60, help="seconds between cull sweeps")
    parser.add_argument("--cull-idle-timeout", type=float, default=300,
                        help="seconds before an idle, unconnected kernel is shut down")
    parser.add_argument("--notebook", default=str(NOTEBOOK), help="the app notebook")
    parser.add_argument("--idle-connected-timeout", type=float, default=IDLE_CONNECTED_TIMEOUT,
                        help=f"seconds an open page may send nothing before its kernel is shut down and the page says "
                             f"so (default {IDLE_CONNECTED_TIMEOUT}; 0: never)")
    parser.add_argument("--kernel-memory-limit", type=_size_arg("--kernel-memory-limit"), default=KERNEL_MEMORY_LIMIT,
                        help="most RSS of a visitor's kernel, e.g. 1GB; over it the session ends "
                             "(default 1GB; 0: none)")
    parser.add_argument("--max-message-size", type=_size_arg("--max-message-size"), default=MAX_MESSAGE_SIZE,
                        help="largest message a page may send its kernel, e.g. 1MiB; a larger one ends the session "
                             "(default 1MiB)")
    parser.add_argument("--max-starting", type=int, default=None,
                        help=f"most kernels starting at once, past the preheated pool; the others wait their turn "
                             f"(default: {STARTING_PER_CORE} per core: {STARTING_PER_CORE * cores} here; 0: no bound)")
    parser.add_argument("--kernel-cpu-budget", type=float, default=KERNEL_CPU_BUDGET,
                        help=f"most CPU-seconds a visitor's kernel may use in any minute; over it the session ends "
                             f"(default {KERNEL_CPU_BUDGET:g}; 0: none)")
    parser.add_argument("--no-prerender", dest="prerender", action="store_false",
                        help="render each notebook page's static start on its first request, not all of them (one "
                             "at a time) once the server is up")
    args, extra = parser.parse_known_args(argv)
    if args.max_starting is None:
        args.max_starting = STARTING_PER_CORE * cores
    if args.max_starting < 0:
        parser.error(f"--max-starting = {args.max_starting}: must be >= 0 kernels (0: no bound)")
    if args.kernel_cpu_budget < 0:
        parser.error(f"--kernel-cpu-budget = {args.kernel_cpu_budget:g}: must be >= 0 CPU-s (0: none)")
    if args.idle_connected_timeout < 0:
        parser.error(f"--idle-connected-timeout = {args.idle_connected_timeout:g}: must be >= 0 s (0: never)")
    if args.max_message_size < 1024:
        parser.error(f"--max-message-size = {args.max_message_size}: must be >= 1024 B (a page's messages need it)")
    # issue 12: what is not given fits the machine, and the other option
    if small is not None and (args.pool_size is None or args.max_kernels is None):
        parser.error(f"{small}: give --pool-size and --max-kernels")
    if args.pool_size is None:
        args.pool_size = pool if args.max_kernels in (None, 0) else max(min(pool, args.max_kernels - 1), 0)
    if args.max_kernels is None:
        args.max_kernels = max(cap, args.pool_size + 1)
    if args.max_kernels < 0 or 0 < args.max_kernels <= max(args.pool_size, 0):
        parser.error(f"--max-kernels must be 0 (no cap) or more than --pool-size ({args.pool_size})")
    # -W: the dict/list options use traitlets' older (still supported) syntax
    cmd = [sys.executable, "-W", "ignore::DeprecationWarning", "-c",
           "import sys; from drmath.serve.app import voila_main; voila_main(sys.argv[1:])",
           *voila_argv(args.port, args.ip, args.notebook, args.pool_size, args.cull_interval,
                       args.cull_idle_timeout, extra, max_kernels=args.max_kernels,
                       idle_connected_timeout=args.idle_connected_timeout,
                       kernel_memory_limit=args.kernel_memory_limit, max_message_size=args.max_message_size,
                       kernel_cpu_budget=args.kernel_cpu_budget, max_starting=args.max_starting,
                       prerender=args.prerender)]
    return cmd, voila_env()


def main(argv=None):
    """Run Voilà on the dashboard: this process becomes Voilà (see :func:`command`).

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    None
        It does not return.

    Examples
    --------
    ``python -m drmath.serve --max-kernels 4 --pool-size 1`` becomes Voilà with a pool of one
    and a cap of four kernels:

    >>> [a for a in command(["--max-kernels", "4", "--pool-size", "1"])[0] if "max_kernels" in a or "pool_size" in a]
    ['--VoilaConfiguration.default_pool_size=1', '--GraceKernelManager.max_kernels=4']
    """
    cmd, env = command(argv)
    sys.stdout.flush()
    os.chdir(ROOT)
    os.execve(sys.executable, cmd, env)


