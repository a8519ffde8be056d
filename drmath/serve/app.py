"""The Voilà application drmath runs: Voilà's, with drmath's handlers, kernel manager, headers and log.

:func:`voila_main` is what ``python -m drmath.serve`` becomes (:func:`drmath.serve.cli.command`).
"""

import collections
import functools
import sys

import jinja2
import voila.app
import voila.notebook_renderer
from jupyter_server.services.kernels.handlers import KernelHandler
from jupyter_server.utils import url_path_join
from tornado.ioloop import IOLoop
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
    SeatKernelHandler,
    SeatShutdownHandler,
    SecurityHeaders,
    Wire,
    log_request,
)
from .kernels import capped
from .pages import CappedVoilaHandler, link_query
from .query import KernelQueryHandler
from .settings import MAX_HEADER_SIZE
from .websocket import KernelSessionWebsocketHandler
from .zygote import enable as fork_kernels
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
    """Voilà with :data:`REPLACEMENTS`, ``/logout`` sent home, bounded logs, no ``Server`` header, and the static
    dashboard's figures as SVG (:class:`~drmath.serve.figure_svg.FigureSVGHandler`)."""

    def init_handlers(self):
        rules = []
        for rule in super().init_handlers():
            if len(rule) > 1 and rule[1] in REPLACEMENTS:
                rule = (rule[0], REPLACEMENTS[rule[1]], *rule[2:])
            elif str(rule[0]).endswith("/logout"):
                rule = (rule[0], LogoutHandler)  # jupyter_server's logout page answered 500
            rules.append(rule)
        # issue 24: the static dashboard's figures as SVG (drmath.serve.figure_svg), before Voilà's catch-all rules
        return [(url_path_join(self.base_url, SVG_ROUTE), FigureSVGHandler), *rules]

    def listen(self):
        # issue 12: tornado closes a request over 64 KiB with no answer; let it read up to MAX_HEADER_SIZE
        # so that CappedVoilaHandler answers a long link (over MAX_URL_LENGTH) with its readable 414 page
        self.app.listen = functools.partial(self.app.listen, max_header_size=MAX_HEADER_SIZE)
        # issue 19: no Server header, nosniff everywhere, and no log line a visitor can make long
        self.app.transforms.append(SecurityHeaders)
        self.app.transforms.append(Wire)  # issue 24: gzip on the wire, static assets cached by their URL
        self.app.settings["log_function"] = log_request
        BoundedLog.install(self.log)
        # the default scenario's explainer (busy and static pages) is rendered before a visitor asks
        IOLoop.current().add_callback(CappedVoilaHandler.explainers.get, link_query("")[0])
        SVGS.log = self.log
        IOLoop.current().add_callback(_default_dashboard)  # and its static dashboard, its figures as SVG (issue 24)
        if fork_kernels(self.log):  # issue 24: page kernels are forks of one process that has imported what they need
            IOLoop.current().add_callback(zygote, self.log)
        return super().listen()


async def _default_dashboard():
    """Render the default scenario's static dashboard, then queue its figures' SVGs for the commonest windows."""
    key = key_in(await CappedVoilaHandler.dashboards.get(""))
    if key:
        SVGS.prerender(key)


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
