r"""Serve the dashboard with Voilà: ``python -m drmath.serve [--port N] [--ip 127.0.0.1]``.

What it sets up (see ``stack.md`` for why):

- the local ``drlab`` template (``share/jupyter/voila/templates/drlab``), so no
  request leaves the machine (the stock ``lab`` template links a CDN);
- plotly.js (the vendored 1.2 MB "basic" bundle) as a static file of that
  template, at a versioned URL the browser caches for good; the figures load
  it from there instead of receiving plotly's ~4.9 MB widget bundle over the
  websocket on every page view;
- preheated kernels (a pool that has already run the notebook);
- idle-kernel culling, because Voilà 0.5's tab-close shutdown beacon is
  rejected (voila#1458) and every closed tab would otherwise leave a kernel;
  with :class:`GraceKernelManager`, so the culler cannot kill a kernel that a
  page has just taken from the pool before the page's websocket opens;
- permessage-deflate for the websocket;
- loopback only, unless ``--ip`` says otherwise.

    >>> argv = voila_argv(port=8866)
    >>> "--Voila.ip=127.0.0.1" in argv and "--template=drlab" in argv
    True
"""

import argparse
import os
import sys
from pathlib import Path

from jupyter_server._tz import utcnow
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

__all__ = ["ROOT", "NOTEBOOK", "TEMPLATE_ROOT", "GraceKernelManager", "voila_argv", "voila_env", "command",
           "main"]

ROOT = Path(__file__).resolve().parent.parent
"""The repository (checkout) root. [1]"""

NOTEBOOK = ROOT / "notebooks" / "dashboard.ipynb"
"""The Voilà app notebook. [1]"""

TEMPLATE_ROOT = ROOT / "share" / "jupyter"
"""The Jupyter data dir holding ``voila/templates/drlab``. [1]"""


class GraceKernelManager(AsyncMappingKernelManager):
    """A kernel manager whose culler gives a kernel fresh from the preheated pool a grace period.

    A pooled kernel's last activity is when it ran the notebook, possibly long
    ago. Voilà protects it from the culler while it sits in the pool, but once a
    page takes it, it looks idle and unconnected until the page's websocket
    opens, so a cull sweep in that window kills it and the page never comes
    alive. This manager treats the first sweep that sees a kernel outside the
    pool as activity: it is culled only after a full ``cull_idle_timeout`` with
    no connection after that.

    Examples
    --------
    >>> issubclass(GraceKernelManager, AsyncMappingKernelManager)
    True
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._seen_by_culler = set()

    async def cull_kernel_if_idle(self, kernel_id):
        """Cull ``kernel_id`` if idle, but never on the first sweep that sees it."""
        if kernel_id not in self._seen_by_culler:
            self._seen_by_culler.add(kernel_id)
            kernel = self._kernels.get(kernel_id)
            if kernel is not None:
                kernel.last_activity = utcnow()
            return None
        return await super().cull_kernel_if_idle(kernel_id)

    async def shutdown_kernel(self, kernel_id, *args, **kwargs):
        self._seen_by_culler.discard(kernel_id)
        return await super().shutdown_kernel(kernel_id, *args, **kwargs)


def voila_env(environ=None):
    """The environment Voilà runs in: ``JUPYTER_PATH`` with the ``drlab`` template first.

    Parameters
    ----------
    environ : mapping, optional
        The base environment; ``os.environ`` when omitted. [1]

    Returns
    -------
    env : dict
        The environment for the Voilà process. [1]

    Examples
    --------
    >>> voila_env({})["JUPYTER_PATH"].endswith("share/jupyter")
    True
    """
    env = dict(os.environ if environ is None else environ)
    paths = [str(TEMPLATE_ROOT)]
    if env.get("JUPYTER_PATH"):
        paths.append(env["JUPYTER_PATH"])
    env["JUPYTER_PATH"] = os.pathsep.join(paths)
    env.setdefault("PYTHONPATH", str(ROOT))
    return env


def voila_argv(port=8866, ip="127.0.0.1", notebook=NOTEBOOK, pool_size=2, cull_interval=60,
               cull_idle_timeout=300, extra=()):
    """The ``voila`` command line, after ``python -m voila``.

    Parameters
    ----------
    port : int, default 8866
        TCP port. [1]
    ip : str, default "127.0.0.1"
        Interface to bind; loopback by default. [1]
    notebook : path-like
        The app notebook. [1]
    pool_size : int, default 2
        Preheated kernels kept ready. [1]
    cull_interval : float, default 60
        How often idle kernels are looked for. [s]
    cull_idle_timeout : float, default 300
        Idle time after which a kernel with no open connection is shut down. [s]
    extra : sequence of str
        More Voilà options, appended. [1]

    Returns
    -------
    argv : list of str
        The arguments. [1]

    Examples
    --------
    >>> [a for a in voila_argv(cull_interval=5) if "cull_interval" in a]
    ['--MappingKernelManager.cull_interval=5']
    """
    from .dashboard import PLOTLY_STATIC

    resources = {"drmath_plotly": PLOTLY_STATIC}
    tornado = {"websocket_compression_options": {}}
    return [
        str(notebook), "--no-browser", f"--port={int(port)}", f"--Voila.ip={ip}", "--template=drlab",
        "--VoilaConfiguration.preheat_kernel=True", f"--VoilaConfiguration.default_pool_size={int(pool_size)}",
        f"--MappingKernelManager.cull_interval={cull_interval:g}",
        f"--MappingKernelManager.cull_idle_timeout={cull_idle_timeout:g}",
        "--MappingKernelManager.cull_connected=False",
        "--VoilaConfiguration.multi_kernel_manager_class=drmath.serve.GraceKernelManager",
        # refill the pool after a visit's page has loaded, not while it competes for the CPU
        "--VoilaKernelManager.fill_delay=8",
        f"--VoilaConfiguration.resources={resources!r}",
        f"--Voila.tornado_settings={tornado!r}",
        "--VoilaConfiguration.extension_denylist=['jupyterlab-plotly', 'jupyterlab_pygments']",
        *extra,
    ]


def command(argv=None):
    """The Voilà command line and environment for ``python -m drmath.serve`` arguments.

    Parameters
    ----------
    argv : list of str, optional
        ``--port``, ``--ip``, ``--pool-size``, ``--cull-interval``,
        ``--cull-idle-timeout``, ``--notebook``; anything else is passed to Voilà. [1]

    Returns
    -------
    argv : list of str
        The full command, starting with this Python. [1]
    env : dict
        The environment to run it in. [1]

    Examples
    --------
    >>> cmd, env = command(["--port", "9000", "--cull-idle-timeout", "10"])
    >>> "--port=9000" in cmd, "--MappingKernelManager.cull_idle_timeout=10" in cmd
    (True, True)
    """
    parser = argparse.ArgumentParser(prog="python -m drmath.serve", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8866, help="TCP port (default 8866)")
    parser.add_argument("--ip", default="127.0.0.1", help="interface to bind (default loopback)")
    parser.add_argument("--pool-size", type=int, default=2, help="preheated kernels (default 2)")
    parser.add_argument("--cull-interval", type=float, default=60, help="seconds between cull sweeps")
    parser.add_argument("--cull-idle-timeout", type=float, default=300,
                        help="seconds before an idle, unconnected kernel is shut down")
    parser.add_argument("--notebook", default=str(NOTEBOOK), help="the app notebook")
    args, extra = parser.parse_known_args(argv)
    # -W: the dict/list options use traitlets' older (still supported) syntax
    cmd = [sys.executable, "-W", "ignore::DeprecationWarning", "-m", "voila",
           *voila_argv(args.port, args.ip, args.notebook, args.pool_size, args.cull_interval,
                       args.cull_idle_timeout, extra)]
    return cmd, voila_env()


def main(argv=None):
    """Run Voilà on the dashboard: this process becomes Voilà (see :func:`command`).

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; ``sys.argv[1:]`` when omitted. [1]

    Returns
    -------
    None
        It does not return. [1]

    Examples
    --------
    >>> callable(main)
    True
    """
    cmd, env = command(argv)
    sys.stdout.flush()
    os.chdir(ROOT)
    os.execve(sys.executable, cmd, env)


if __name__ == "__main__":
    main()
