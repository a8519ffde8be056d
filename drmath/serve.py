r"""Serve the dashboard with Voilà: ``python -m drmath.serve [--port N] [--ip 127.0.0.1]``.

What it sets up (see ``stack.md`` for why):

- the local ``drlab`` template (``share/jupyter/voila/templates/drlab``), so no
  request leaves the machine (the stock ``lab`` template links a CDN);
- plotly.js (the vendored 1.2 MB "basic" bundle) as a static file of that
  template, at a versioned URL the browser caches for good; the figures load
  it from there instead of receiving plotly's ~4.9 MB widget bundle over the
  websocket on every page view;
- preheated kernels (a pool that has already run the notebook); each one's
  request channel (``/voila/query/<kernel id>``, which hands it the visitor's
  share link) is open to that kernel only (:func:`_query_handler_class`), and a
  kernel a page took that never gets its request is shut down (``request_timeout``);
- the ``_xsrf`` cookie on the page, which Voilà 0.5 never sets (voila#1458), so
  the page's tab-close shutdown beacon is accepted and frees its kernel at once;
- idle-kernel culling, for the tabs that never send that beacon (a crash, a bot);
  with :class:`GraceKernelManager`, so the culler cannot kill a kernel that a
  page has just taken from the pool before the page's websocket opens;
- permessage-deflate for the websocket;
- a cap on kernels (``--max-kernels``, pool included): a visitor over it gets an
  HTTP 503 "busy, try again shortly" page with ``Retry-After`` and starts no
  kernel, so a spike cannot exhaust memory (:class:`CappedVoilaHandler`);
- loopback only, unless ``--ip`` says otherwise.

What stays as Voilà 0.5.13 ships it (``tests/test_security.py`` checks each):
a visitor's kernel websocket forwards only comm and kernel-info messages
(``execute_request`` and the like are dropped); notebook sources are stripped;
Voilà registers none of Jupyter's contents, sessions, terminals, lab or tree
endpoints; XSRF checks stay on.

    >>> argv = voila_argv(port=8866)
    >>> "--Voila.ip=127.0.0.1" in argv and "--template=drlab" in argv
    True
    >>> "--GraceKernelManager.max_kernels=24" in argv
    True
"""

import argparse
import contextvars
import functools
import os
import sys
from pathlib import Path

from jupyter_server._tz import utcnow
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets import Float, Int

__all__ = ["ROOT", "NOTEBOOK", "TEMPLATE_ROOT", "MAX_KERNELS", "RETRY_AFTER", "GraceKernelManager",
           "CappedVoilaHandler", "voila_argv", "voila_env", "command", "voila_main", "main"]

ROOT = Path(__file__).resolve().parent.parent
"""The repository (checkout) root. [1]"""

NOTEBOOK = ROOT / "notebooks" / "dashboard.ipynb"
"""The Voilà app notebook. [1]"""

TEMPLATE_ROOT = ROOT / "share" / "jupyter"
"""The Jupyter data dir holding ``voila/templates/drlab``. [1]"""

MAX_KERNELS = 24
"""Default cap on kernels alive at once, the preheated pool included: 22 visitors + 2 pooled,
about 3.5 GB of kernels (docs/deployment.md has the measured figures). [1]"""

RETRY_AFTER = 30
"""``Retry-After`` of the busy page. [s]"""

REQUEST_TIMEOUT = 120
"""How long a pooled kernel taken by a page may wait for that page's request (``GraceKernelManager.request_timeout``;
normally it arrives in milliseconds, or once the kernel has run its first cell). [s]"""

BUSY_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>drmath is busy</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 36em; margin: 4em auto; color: #222">
<h1 class="drmath-busy">The workbook is busy</h1>
<p>Every seat of this drmath workbook is taken right now ({visitors} visitors).
Please try again in a minute: <a href="">reload this page</a>.</p>
</body></html>
"""

# the admission slot of the visitor request being served (see CappedVoilaHandler)
_SLOT = contextvars.ContextVar("drmath_kernel_slot", default=None)


class _Slot:
    """One admitted visitor request; holds its kernel id once it has one."""

    __slots__ = ("kernel_id",)

    def __init__(self):
        self.kernel_id = None


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
    It also keeps the visitor count for the kernel cap: ``max_kernels`` (0: no
    cap) bounds the kernels alive at once, preheated pool included, so at most
    ``max_kernels - pool size`` visitors hold a kernel. :meth:`admit` reserves a
    seat for a request before any kernel is taken or started;
    :meth:`claim` turns the seat into that request's kernel; the seat is free
    again when the kernel is shut down (culled).

    >>> issubclass(GraceKernelManager, AsyncMappingKernelManager)
    True
    """

    max_kernels = Int(0, config=True, help="Most kernels alive at once, the preheated pool included; 0: no cap.")
    # issue 12, see _await_request: a pooled kernel handed to a page that never gets its request is shut down
    request_timeout = Float(REQUEST_TIMEOUT, config=True,
                            help="Seconds a pooled kernel taken by a page may wait for that page's request "
                                 "before it is shut down (0: forever).")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._seen_by_culler = set()
        self._visitor_kernels = set()
        self._admitted = 0  # admitted requests that have no kernel yet

    def _pool_size(self):
        """The configured preheated pool size (0 without preheating)."""
        pools = getattr(self, "kernel_pools_config", None) or {}
        return max(int(pools.get("default", {}).get("pool_size", 0)), 0)

    @property
    def visitor_seats(self):
        """How many visitors may hold a kernel at once (``None``: no cap)."""
        if self.max_kernels <= 0:
            return None
        return max(self.max_kernels - self._pool_size(), 1)

    @property
    def visitors(self):
        """Visitor kernels alive plus admitted requests still waiting for theirs."""
        return len(self._visitor_kernels) + self._admitted

    def admit(self):
        """Reserve a seat for a visitor request; ``None`` when the cap is reached."""
        seats = self.visitor_seats
        if seats is not None and self.visitors >= seats:
            return None
        self._admitted += 1
        return _Slot()

    def claim(self, kernel_id):
        """Record ``kernel_id`` as the kernel of the request being served (if any)."""
        slot = _SLOT.get()
        if slot is not None and slot.kernel_id is None:
            slot.kernel_id = kernel_id
            self._admitted -= 1
        self._visitor_kernels.add(kernel_id)

    def release(self, slot):
        """The request of ``slot`` is done: free its seat if it never got a kernel."""
        if slot is not None and slot.kernel_id is None:
            slot.kernel_id = ""
            self._admitted -= 1

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
        self._visitor_kernels.discard(kernel_id)
        try:
            return await super().shutdown_kernel(kernel_id, *args, **kwargs)
        finally:
            _trim_heap()


def _trim_heap():
    """Hand the heap memory freed by a finished visit back to the OS (glibc ``malloc_trim``; else nothing)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _capped(manager_class):
    """Subclass Voilà's kernel manager (built on :class:`GraceKernelManager`) so visitors' kernels are counted.

    A visitor's kernel comes either from the pool (``get_rendered_notebook``) or,
    with no pool, from ``start_kernel`` called by the page handler; the pool's own
    refills start kernels through the base class and are not visitors.
    """
    if not issubclass(manager_class, GraceKernelManager):
        return manager_class
    preheated = hasattr(manager_class, "get_rendered_notebook")

    class CappedKernelManager(manager_class):
        if preheated:
            async def get_rendered_notebook(self, *args, **kwargs):
                render_task, rendered_cache, kernel_id = await super().get_rendered_notebook(*args, **kwargs)
                self.claim(kernel_id)
                _await_request(self, kernel_id)  # issue 12: recycled if its request never reaches it
                return render_task, rendered_cache, kernel_id

        async def start_kernel(self, *args, **kwargs):
            kernel_id = await super().start_kernel(*args, **kwargs)
            if _SLOT.get() is not None:
                self.claim(kernel_id)
            return kernel_id

    CappedKernelManager.__name__ = CappedKernelManager.__qualname__ = "Capped" + manager_class.__name__
    return CappedKernelManager


@functools.lru_cache(maxsize=None)
def _handler_class():
    """The page handler with the kernel cap (imported late: Voilà is only needed to serve)."""
    import tornado.web
    from voila.tornado.handler import TornadoVoilaHandler

    class CappedVoilaHandler(TornadoVoilaHandler):
        """Voilà's page handler, but over the kernel cap it answers 503 "busy" and starts no kernel."""

        @tornado.web.authenticated
        async def get(self, path=None):
            # Voilà's page posts a tab-close shutdown beacon with the _xsrf cookie's token, but Voilà
            # 0.5 never sets that cookie (voila#1458): the beacon got a 403, which a page still alive
            # logs as a console error. Reading the token sets the cookie, so the beacon goes through.
            self.xsrf_token  # noqa: B018 - read for its side effect: the _xsrf cookie
            km = self.kernel_manager
            if (self.notebook_path and path) or not hasattr(km, "admit"):
                return await super().get(path)  # a redirect to a file: takes no kernel
            slot = km.admit()
            if slot is None:
                self.log.warning("Kernel cap reached (%s visitors): answering 503 busy", km.visitors)
                self.set_status(503)
                self.set_header("Retry-After", str(RETRY_AFTER))
                self.set_header("Content-Type", "text/html; charset=utf-8")
                self.set_header("Cache-Control", "no-store")
                self.finish(BUSY_HTML.format(visitors=km.visitors))
                return None
            token = _SLOT.set(slot)
            try:
                return await super().get(path)
            finally:
                _SLOT.reset(token)
                km.release(slot)

    return CappedVoilaHandler


# --------------------------------------------------------------------------- the request channel (issue 12)
# A preheated kernel gets its visitor's request (the share link's query string) over the websocket
# /voila/query/<kernel id>. Voilà's RequestInfoSocketHandler accepts any client, with no login: a
# stranger could read a visitor's request or take the kernel's place, and two sockets on one id, the
# first then closed, made its on_close delete another entry, the waiting pooled kernel's: the next
# visitor's page hung on "Executing 1 of 2", and its kernel, busy forever, was never culled and held a
# seat. KernelQueryHandler takes only the kernel itself (drmath._query sends an HMAC of the kernel id
# under the kernel's connection key, which only the kernel and this server know), and a closing
# socket removes only its own entry. _await_request shuts down a kernel that a page took from the pool
# but that never received the request (the page's websocket never connecting is the culler's case).

_AWAITING = {}  # kernel id -> timer: kernels handed to a page whose request has not reached them yet


def _await_request(kernel_manager, kernel_id):
    """Shut ``kernel_id`` down unless its page's request reaches it within ``request_timeout`` s.

    Called on the server's loop when a page takes the kernel from the pool. Until the
    request reaches it, the kernel is busy in ``restore_from_request``; the culler never
    culls a busy kernel, so a kernel that never gets it would hold its seat for good.
    """
    import asyncio

    timeout = getattr(kernel_manager, "request_timeout", 0) or 0
    if timeout <= 0:
        return

    async def recycle():
        if _AWAITING.pop(kernel_id, None) is None:
            return  # delivered
        _query_handler_class().forget(kernel_id)  # its undelivered request, even if the kernel is gone
        if kernel_id not in kernel_manager:
            return  # shut down meanwhile (tab-close beacon, culler)
        kernel_manager.log.warning("Kernel %s did not receive its page's request in %g s: shutting it down",
                                   kernel_id, timeout)
        try:
            await kernel_manager.shutdown_kernel(kernel_id)
        except Exception:  # noqa: BLE001 - logged; it may have gone meanwhile
            kernel_manager.log.exception("Could not shut down kernel %s", kernel_id)

    previous = _AWAITING.pop(kernel_id, None)
    if previous is not None:
        previous.cancel()
    _AWAITING[kernel_id] = asyncio.get_running_loop().call_later(timeout, lambda: asyncio.ensure_future(recycle()))


def _request_delivered(kernel_id):
    """The page's request went to ``kernel_id``: no recycling."""
    timer = _AWAITING.pop(kernel_id, None)
    if timer is not None:
        timer.cancel()


@functools.lru_cache(maxsize=None)
def _query_handler_class():
    """Voilà's ``/voila/query/<kernel id>`` websocket, for that kernel only (imported late, like Voilà)."""
    import hmac

    import tornado.web
    from voila.request_info_handler import RequestInfoSocketHandler

    from ._query import TOKEN_HEADER, kernel_token

    # Voilà's page handler calls RequestInfoSocketHandler.send_updates, which looks the kernel up in
    # these class-level dicts: the subclass keeps using the very same ones
    waiters, cache = RequestInfoSocketHandler._waiters, RequestInfoSocketHandler._cache

    class KernelQueryHandler(RequestInfoSocketHandler):
        """The request channel of one kernel: opened only with that kernel's token; one socket per kernel."""

        kernel_id = None

        def prepare(self):
            kernel_id = self.path_kwargs.get("kernel_id") or "".join(self.path_args[:1])
            km = self.settings["kernel_manager"]
            # an unknown id gets the same 403 as a bad token (jupyter_server's get_kernel would say 404)
            key = km.get_kernel(kernel_id).session.key if kernel_id in km else None
            token = self.request.headers.get(TOKEN_HEADER, "").encode("utf-8", "replace")
            if not key or not hmac.compare_digest(token, kernel_token(key, kernel_id).encode()):
                raise tornado.web.HTTPError(403, "refused a query socket for kernel %s without its token", kernel_id)
            return super().prepare()

        def open(self, kernel_id):
            self.kernel_id = kernel_id
            previous = waiters.get(kernel_id)
            waiters[kernel_id] = self
            if previous is not None and previous is not self:
                previous.close()  # the kernel reconnected: its newest socket is the one
            payload = cache.pop(kernel_id, None)
            if payload is not None:
                self.write_message(payload)

        def on_message(self, message):
            pass  # the kernel only listens

        def on_close(self):
            if self.kernel_id is not None and waiters.get(self.kernel_id) is self:
                del waiters[self.kernel_id]

        def write_message(self, message, binary=False):
            sent = super().write_message(message, binary)
            _request_delivered(self.kernel_id)  # the only message on this socket is the request
            return sent

        @classmethod
        def forget(cls, kernel_id):
            """Drop ``kernel_id``'s undelivered request and close its socket (it is being shut down)."""
            cache.pop(kernel_id, None)
            waiter = waiters.pop(kernel_id, None)
            if waiter is not None:
                waiter.close()

    return KernelQueryHandler


def __getattr__(name):
    if name == "CappedVoilaHandler":  # lazily, so importing drmath.serve does not import Voilà
        return _handler_class()
    raise AttributeError(name)


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
               cull_idle_timeout=300, extra=(), max_kernels=MAX_KERNELS):
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
    max_kernels : int, default MAX_KERNELS
        Most kernels alive at once, pool included (0: no cap); visitors over it get the busy page. [1]

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
        f"--GraceKernelManager.max_kernels={int(max_kernels)}",
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
        ``--port``, ``--ip``, ``--pool-size``, ``--max-kernels``, ``--cull-interval``,
        ``--cull-idle-timeout``, ``--notebook``; anything else is passed to Voilà. [1]

    Returns
    -------
    argv : list of str
        The full command, starting with this Python; it runs :func:`voila_main`. [1]
    env : dict
        The environment to run it in. [1]

    Examples
    --------
    >>> cmd, env = command(["--port", "9000", "--cull-idle-timeout", "10"])
    >>> "--port=9000" in cmd, "--MappingKernelManager.cull_idle_timeout=10" in cmd
    (True, True)
    >>> "--GraceKernelManager.max_kernels=5" in command(["--max-kernels", "5"])[0]
    True
    """
    parser = argparse.ArgumentParser(prog="python -m drmath.serve", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8866, help="TCP port (default 8866)")
    parser.add_argument("--ip", default="127.0.0.1", help="interface to bind (default loopback)")
    parser.add_argument("--pool-size", type=int, default=2, help="preheated kernels (default 2)")
    parser.add_argument("--max-kernels", type=int, default=MAX_KERNELS,
                        help=f"most kernels alive at once, pool included; visitors over it get a 503 busy page "
                             f"(default {MAX_KERNELS}; 0: no cap)")
    parser.add_argument("--cull-interval", type=float, default=60, help="seconds between cull sweeps")
    parser.add_argument("--cull-idle-timeout", type=float, default=300,
                        help="seconds before an idle, unconnected kernel is shut down")
    parser.add_argument("--notebook", default=str(NOTEBOOK), help="the app notebook")
    args, extra = parser.parse_known_args(argv)
    if args.max_kernels < 0 or 0 < args.max_kernels <= max(args.pool_size, 0):
        parser.error(f"--max-kernels must be 0 (no cap) or more than --pool-size ({args.pool_size})")
    # -W: the dict/list options use traitlets' older (still supported) syntax
    cmd = [sys.executable, "-W", "ignore::DeprecationWarning", "-c",
           "import sys; from drmath.serve import voila_main; voila_main(sys.argv[1:])",
           *voila_argv(args.port, args.ip, args.notebook, args.pool_size, args.cull_interval,
                       args.cull_idle_timeout, extra, max_kernels=args.max_kernels)]
    return cmd, voila_env()


def voila_main(argv=None):
    """Run Voilà (``python -m voila``) with drmath's kernel cap: the process :func:`main` becomes.

    Voilà's kernel manager is built on :class:`GraceKernelManager` (the command line
    says so) and then counted by a thin subclass; its page handler is replaced by
    :class:`CappedVoilaHandler`. Every other handler, and every option, is Voilà's.

    Parameters
    ----------
    argv : list of str, optional
        Voilà's command line (see :func:`voila_argv`); ``sys.argv[1:]`` when omitted. [1]

    Returns
    -------
    None
        It returns when Voilà stops. [1]

    Examples
    --------
    >>> callable(voila_main)
    True
    """
    import voila.app
    from voila.request_info_handler import RequestInfoSocketHandler
    from voila.tornado.handler import TornadoVoilaHandler

    factory = voila.app.voila_kernel_manager_factory

    def capped_factory(*args, **kwargs):
        return _capped(factory(*args, **kwargs))

    voila.app.voila_kernel_manager_factory = capped_factory
    # Voilà's handler class -> drmath's subclass that replaces it (same URL rule, same arguments)
    replacements = {TornadoVoilaHandler: _handler_class(),
                    RequestInfoSocketHandler: _query_handler_class()}  # the kernel's own request channel only

    class Voila(voila.app.Voila):  # same name, so the log reads as before
        def init_handlers(self):
            return [(rule[0], replacements[rule[1]], *rule[2:]) if len(rule) > 1 and rule[1] in replacements
                    else rule for rule in super().init_handlers()]

    Voila.launch_instance(sys.argv[1:] if argv is None else list(argv))


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
