"""The Voilà application drmath runs: Voilà's, with drmath's handlers, kernel manager, headers and log.

:func:`voila_main` is what ``python -m drmath.serve`` becomes (:func:`drmath.serve.cli.command`).

SIGTERM (or SIGINT) stops it within :data:`~drmath.serve.settings.SHUTDOWN_TIMEOUT` whatever it has served
(issue 32): it stops accepting, closes its pages' kernel websockets with ``SESSION_END["restart"]`` (their
pages say the server is restarting), shuts its kernels, its SVG renderer's Chromium and its kernel zygote
down, kills what is still running under it after :data:`~drmath.serve.settings.SHUTDOWN_WAIT`, and exits.
Voilà only stopped its event loop and shut its kernels down: once a page had asked for SVGs at a width not
drawn at start (a phone's), the renderer's Chromium was open, and the interpreter's exit waited for ever for
the non-daemon thread that reads Chromium's output (``py-spy dump`` of the stuck server: the main thread in
``threading._shutdown``, that thread in logistro's ``read_pipe``, which kaleido's browser library starts and
which ends only when the renderer is closed), while Chromium, in a process group of its own, and the zygote
stayed up too. Now, with a phone-sized live page, a static page and SVGs being drawn (the scenario of
``tests/test_shutdown.py``, 11 runs on a 2-core machine shared with other work), SIGTERM to every process gone
took 2.0-6.3 s: the stop in the event loop 0.7-2.0 s, the rest Python's own exit (``py-spy dump`` shows no
Python frame: the interpreter's finalization). A second signal while it stops exits at once.
"""

import asyncio
import collections
import functools
import os
import re
import signal
import sys
import threading
import time

import jinja2
import voila.app
import voila.notebook_renderer
from jupyter_server.services.kernels.handlers import KernelHandler
from jupyter_server.utils import url_path_join
from tornado.ioloop import IOLoop
from traitlets import Bool
from voila.exporter import VoilaExporter
from voila.request_info_handler import RequestInfoSocketHandler
from voila.shutdown_kernel_handler import VoilaShutdownKernelHandler
from voila.tornado.handler import TornadoVoilaHandler
from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

from .figure_svg import ROUTE as SVG_ROUTE
from .figure_svg import SVGS, FigureSVGHandler, key_in
from .handlers import (
    BoundedLog,
    LogoutHandler,
    NotFoundHandler,
    SeatKernelHandler,
    SeatShutdownHandler,
    SecurityHeaders,
    Wire,
    log_request,
)
from .kernels import capped
from .pages import CappedVoilaHandler, SiteNotebookHandler, link_query
from .query import KernelQueryHandler
from .sessions import CONNECTIONS, SESSION_END
from .settings import MAX_HEADER_SIZE, SHUTDOWN_TIMEOUT, SHUTDOWN_WAIT
from .site import NOTEBOOK_PREFIX, pages
from .websocket import KernelSessionWebsocketHandler
from .zygote import enable as fork_kernels
from .zygote import stop as stop_zygote
from .zygote import zygote

__all__ = ["REPLACEMENTS", "Voila", "voila_main", "TemplateBytecode", "CachedTemplatesExporter"]

REPLACEMENTS = {TornadoVoilaHandler: CappedVoilaHandler,  # the cap, the seat, the preview, busy and static pages
                RequestInfoSocketHandler: KernelQueryHandler,  # the kernel's own request channel only
                VoilaKernelWebsocketHandler: KernelSessionWebsocketHandler,  # frames checked, session ends
                KernelHandler: SeatKernelHandler,  # the kernel API: its seat only
                VoilaShutdownKernelHandler: SeatShutdownHandler}  # the tab-close beacon: its seat only
"""Voilà's handler class -> drmath's subclass that replaces it (same URL rule, same arguments)."""


class TemplateBytecode(jinja2.BytecodeCache):
    """Compiled Jinja templates kept in memory, by template and source (a changed file compiles anew), at most
    ``most`` of them (Voilà's page templates are a dozen).

    >>> env = jinja2.Environment(loader=jinja2.DictLoader({"t": "{{ 1 + 1 }}"}), bytecode_cache=TemplateBytecode())
    >>> again = jinja2.Environment(loader=env.loader, bytecode_cache=env.bytecode_cache)
    >>> env.get_template("t").render(), len(env.bytecode_cache), again.get_template("t").render()
    ('2', 1, '2')
    """

    def __init__(self, most=64):
        self._codes, self._most = collections.OrderedDict(), most

    def __len__(self):
        return len(self._codes)

    def load_bytecode(self, bucket):
        code = self._codes.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket):
        self._codes[bucket.key] = bucket.bytecode_to_string()
        while len(self._codes) > self._most:
            self._codes.popitem(last=False)


class CachedTemplatesExporter(VoilaExporter):
    """Voilà's exporter, with the page templates compiled once per server.

    Voilà makes an exporter, and with it a Jinja environment, for every page, so every page parsed and compiled
    ``index.html.j2`` and the templates it extends anew: 40 % of the server's event-loop CPU in a 50-arrival burst
    (``py-spy`` of the server under ``bench/bench_load.py --clients mixed --visitors 50``), during which the
    burst's static pages and their figures waited. Every exporter's environment is configured alike (Voilà's), so
    they share one :class:`TemplateBytecode`.
    """

    bytecode = TemplateBytecode()

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = self.bytecode
        return environment


class Voila(voila.app.Voila):  # Voilà's own name, so the log reads as before
    """Voilà with :data:`REPLACEMENTS`, ``/logout`` sent home, bounded logs, no ``Server`` header, the static
    dashboard's figures as SVG (:class:`~drmath.serve.figure_svg.FigureSVGHandler`), and the site's notebook pages
    (issue 35, :mod:`drmath.serve.site`): each at its own route, anything else under ``notebooks/`` a 404."""

    prerender = Bool(True, config=True, help="Render every notebook page's static start once the server is up, one "
                                             "at a time (else each on its first request).")
    prerender_figures = Bool(True, config=True, help="Draw the default static dashboard's figures as SVG at the "
                                                     "commonest windows once the server is up (else each layout on "
                                                     "its first request, on that visitor's budget).")

    def init_handlers(self):
        rules, site = [], []
        for rule in super().init_handlers():
            if len(rule) > 1 and rule[1] in REPLACEMENTS:
                rule = (rule[0], REPLACEMENTS[rule[1]], *rule[2:])
                if rule[1] is CappedVoilaHandler and len(rule) > 2 and self.notebook_path:
                    site = self._site_rules(rule[2])  # before Voilà's catch-all page rule
                    rules.extend(site)
            elif str(rule[0]).endswith("/logout"):
                rule = (rule[0], LogoutHandler)  # jupyter_server's logout page answered 500
            rules.append(rule)
        if site:  # the notebook pages' figures are plotly's JSON: their pages (only) load plotly's extension
            config = self.voila_configuration
            config.page_config_hook = _with_plotly_extension(config.page_config_hook)
        # issue 24: the static dashboard's figures as SVG (drmath.serve.figure_svg), before Voilà's catch-all rules
        return [(url_path_join(self.base_url, SVG_ROUTE), FigureSVGHandler), *rules]

    def _site_rules(self, kwargs):
        """The notebook pages' rules (Voilà's page arguments, each page its notebook), then the 404 of the rest."""
        rules = [(url_path_join(self.base_url, re.escape(page.route)), SiteNotebookHandler,
                  {**kwargs, "notebook_path": str(page.path), "page": page}) for page in pages() if page.stem]
        prefix = NOTEBOOK_PREFIX.rstrip("/")
        return [*rules, (url_path_join(self.base_url, re.escape(prefix) + "(?:/.*)?"), NotFoundHandler)]

    _stopping = False  # a signal to stop came (the first starts the stop; another exits at once)
    _http_servers = ()  # the servers listening (listen)

    def listen(self):
        # issue 12: tornado closes a request over 64 KiB with no answer; let it read up to MAX_HEADER_SIZE
        # so that CappedVoilaHandler answers a long link (over MAX_URL_LENGTH) with its readable 414 page
        listen, self._http_servers = functools.partial(self.app.listen, max_header_size=MAX_HEADER_SIZE), []

        def listen_and_keep(*args, **kwargs):  # issue 32: the servers, to stop accepting on SIGTERM
            server = listen(*args, **kwargs)
            self._http_servers.append(server)
            return server

        self.app.listen = listen_and_keep
        signal.signal(signal.SIGINT, self._handle_signal_stop)  # Voilà's initialize took SIGTERM already
        # issue 19: no Server header, nosniff everywhere, and no log line a visitor can make long
        self.app.transforms.append(SecurityHeaders)
        self.app.transforms.append(Wire)  # issue 24: gzip on the wire, static assets cached by their URL
        self.app.settings["log_function"] = log_request
        BoundedLog.install(self.log)
        # the default scenario's explainer (busy and static pages) is rendered before a visitor asks
        IOLoop.current().add_callback(CappedVoilaHandler.explainers.get, link_query("")[0])
        SVGS.log = self.log
        # and its static dashboard, its figures as SVG (issue 24)
        IOLoop.current().add_callback(_default_dashboard, self.prerender_figures)
        if self.prerender and self.notebook_path:  # issue 35: the notebook pages' static starts, one at a time
            IOLoop.current().add_callback(_prerender_site, self.log)
        if fork_kernels(self.log):  # issue 24: page kernels are forks of one process that has imported what they need
            IOLoop.current().add_callback(zygote, self.log)
        return super().listen()

    def _handle_signal_stop(self, sig, frame):
        """SIGTERM or SIGINT (Voilà's handler stopped the event loop only): stop as the module says, from the event
        loop; the last resort (:func:`_exit_after`) runs in a thread, so it comes even if the loop never does."""
        if self._stopping:
            _exit_now(f"signal {sig} again while stopping")
        self._stopping = True
        self.log.info("Handle signal %s: stopping (within %g s)", sig, SHUTDOWN_TIMEOUT)
        _exit_after(SHUTDOWN_TIMEOUT)
        loop = IOLoop.current().asyncio_loop
        loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self._stop()))

    async def _stop(self):
        """Stop accepting, tell the open pages, shut kernels, renderer and zygote down (at most SHUTDOWN_WAIT s),
        kill what is left under this process, then stop the event loop (Voilà's ``stop`` and Python's exit
        follow)."""
        began, pages = time.monotonic(), []
        try:
            for server in self._http_servers:
                server.stop()  # no new connection; those open go on until the process exits
            pages = [connection for connections in list(CONNECTIONS.values()) for connection in list(connections)]
            for connection in pages:
                connection.end(*SESSION_END["restart"])
            stop_zygote()  # and no kernel starts from now on
            km = self.kernel_manager
            for pool in getattr(km, "_pools", {}).values():  # refills still waiting out their delay start nothing
                for task in [task for task in pool if not task.done()]:
                    task.cancel()
                    pool.remove(task)
            steps = {"kernels": asyncio.ensure_future(km.shutdown_all()),
                     "SVG renderer": asyncio.ensure_future(SVGS.close(SHUTDOWN_WAIT))}
            await asyncio.wait(steps.values(), timeout=SHUTDOWN_WAIT)
            for name, step in steps.items():
                if not step.done():
                    self.log.warning("Stopping: the %s did not stop within %g s", name, SHUTDOWN_WAIT)
                elif not step.cancelled() and step.exception() is not None:
                    self.log.warning("Stopping: the %s failed to stop: %r", name, step.exception())
        except Exception:  # noqa: BLE001 - whatever failed, what is left is killed and the loop stops
            self.log.exception("Stopping: a step failed")
        finally:
            killed = _end_descendants()
            if killed:
                self.log.warning("Stopping: killed %d processes still running: %s", len(killed), ", ".join(killed))
            self.log.info("Stopped in %.1f s: %d page sockets told, no more processes under this server",
                          time.monotonic() - began, len(pages))
            IOLoop.current().stop()


def _end_descendants():
    """Kill every process still running under this server; ``["name pid", …]`` of those killed. The server is
    the subreaper of its kernels (:mod:`drmath.serve.zygote`), so every process it started, or that one of them
    left behind (Chromium's helpers), is among its descendants."""
    import psutil

    killed = []
    try:
        descendants = psutil.Process().children(recursive=True)
    except psutil.Error:
        return killed
    for process in descendants:
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                name = process.name()
                process.kill()
                killed.append(f"{name} {process.pid}")
        except psutil.Error:
            pass
    return killed


def _exit_now(why):
    """Kill what runs under this process and exit with status 1, saying why (and which threads were still
    running) on stderr, not through the log, whose lock another thread may hold."""
    killed = _end_descendants()
    threads = [t.name for t in threading.enumerate() if t is not threading.current_thread() and not t.daemon]
    os.write(2, f"[Voila] Exiting now ({why}): killed {len(killed)} processes; threads still running: "
                f"{', '.join(threads) or 'none'}\n".encode())
    os._exit(1)


def _exit_after(seconds):
    """The last resort of a stop: :func:`_exit_now` in ``seconds`` [s], from a daemon thread of its own."""
    timer = threading.Timer(seconds, _exit_now, args=(f"not stopped within {seconds:g} s",))
    timer.daemon = True
    timer.start()


async def _default_dashboard(figures=True):
    """Render the default scenario's static dashboard, then, with ``figures``, queue its figures' SVGs for the
    commonest windows."""
    key = key_in(await CappedVoilaHandler.dashboards.get(""))
    if key and figures:
        SVGS.prerender(key)


async def _prerender_site(log):
    """Render each notebook page's static start once, in the site's order (the worked answer first), one at a time:
    a page asked for meanwhile is rendered next (:class:`~drmath.serve.pages.Explainers` runs one render at a
    time, in the order asked)."""
    began, done = time.monotonic(), 0
    for page in pages():
        if not page.stem:
            continue
        try:
            await SiteNotebookHandler.notebooks.get(page.stem)
            done += 1
        except Exception as err:  # noqa: BLE001 - logged; the page renders when first asked for
            log.warning("The static page of %s could not be rendered: %s", page.route, err)
    log.info("Rendered the static pages of %d notebooks in %.1f s", done, time.monotonic() - began)


@functools.cache
def _plotly_extension():
    """plotly's JupyterLab extension, as a page's ``federated_extensions`` lists it (None if it is not installed)."""
    from jupyterlab_server.config import get_page_config
    from voila.utils import get_voila_labextensions_path

    extensions = get_page_config(get_voila_labextensions_path([]))["federated_extensions"]
    return next((e for e in extensions if e.get("name") == "jupyterlab-plotly"), None)


def _with_plotly_extension(hook):
    """A page-config hook (Voilà's ``page_config_hook``, after ``hook``) that adds plotly's extension to a notebook
    page's page (the dashboard's draws its figures itself and leaves its 4.8 MB out: ``cli.voila_argv``)."""
    notebooks = {str(page.path) for page in pages() if page.stem}

    def page_config_hook(page_config, **kwargs):
        if hook is not None:
            page_config = hook(page_config, **kwargs)
        plotly = _plotly_extension()
        names = {e.get("name") for e in page_config.get("federated_extensions", [])}
        if str(kwargs.get("notebook_path")) in notebooks and plotly and plotly["name"] not in names:
            page_config = {**page_config, "federated_extensions": [*page_config["federated_extensions"], plotly]}
        return page_config

    return page_config_hook


def voila_main(argv=None):
    """Run Voilà (``python -m voila``) with drmath's kernel cap: the process ``python -m drmath.serve`` becomes.

    Voilà's kernel manager is built on :class:`~drmath.serve.kernels.GraceKernelManager` (the command
    line says so) and then counted by :func:`~drmath.serve.kernels.capped`; its handlers are replaced as
    :data:`REPLACEMENTS` says, and its pages' exporter by :class:`CachedTemplatesExporter`. Every other
    handler, and every option, is Voilà's.

    Parameters
    ----------
    argv : list of str, optional
        Voilà's command line (see :func:`~drmath.serve.cli.voila_argv`); ``sys.argv[1:]`` when omitted.

    Returns
    -------
    None
        It returns when Voilà stops.
    """
    factory = voila.app.voila_kernel_manager_factory
    voila.app.voila_kernel_manager_factory = lambda *args, **kwargs: capped(factory(*args, **kwargs))
    voila.notebook_renderer.VoilaExporter = CachedTemplatesExporter  # the page's exporter, templates compiled once
    Voila.launch_instance(sys.argv[1:] if argv is None else list(argv))
