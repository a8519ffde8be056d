"""The small handlers and filters that close what the server leaks (issue 19).

- :class:`PlainErrors`: an error page of one line. jupyter_server renders its HTML error template, which
  needs a ``static_path`` Voilà does not set: every 404 on a websocket path logged two tracebacks, and
  ``/logout`` answered 500.
- :class:`SeatKernelHandler`, :class:`SeatShutdownHandler`: the kernel API and Voilà's tab-close shutdown
  beacon answer only the page that holds the kernel's seat (:mod:`drmath.serve.sessions`).
- :class:`LogoutHandler`: ``/logout`` (there is no login) sends the visitor to the workbook.
- :class:`SecurityHeaders`: no ``Server`` header on any response, ``X-Content-Type-Options: nosniff`` on
  every one (the static JavaScript had none).
- :class:`BoundedLog` and :func:`log_request`: no log line longer than
  :data:`~drmath.serve.settings.MAX_LOG_LINE` (a 255 KiB link wrote 261 kB to the log).
"""

import logging

import tornado.web
from jupyter_server.services.kernels.handlers import KernelHandler
from voila.shutdown_kernel_handler import VoilaShutdownKernelHandler

from .sessions import has_seat
from .settings import MAX_LOG_LINE

__all__ = ["PlainErrors", "SeatKernelHandler", "SeatShutdownHandler", "LogoutHandler", "SecurityHeaders",
           "BoundedLog", "log_request", "cut"]


def cut(text, limit=MAX_LOG_LINE):
    """``text`` cut to ``limit`` characters, saying how much was left out.

    >>> cut("x" * 10, 4)
    'xxxx… (6 more characters)'
    """
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit:,} more characters)"


class PlainErrors:
    """An error answer of one plain line, whatever handler it is mixed into (no template, no traceback)."""

    def write_error(self, status_code, **kwargs):
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"{status_code} {self._reason}\n")


class _SeatRequired:
    """Refuse (403) a request on ``/…/<kernel id>`` that does not carry that kernel's seat."""

    def prepare(self):
        kernel_id = self.path_kwargs.get("kernel_id") or "".join(self.path_args[:1])
        if not has_seat(self, kernel_id):
            raise tornado.web.HTTPError(403, "refused a request for kernel %s without its seat", cut(kernel_id, 80))
        return super().prepare()


class SeatKernelHandler(_SeatRequired, KernelHandler):
    """``/api/kernels/<id>`` (its model; DELETE shuts it down), for the page that holds the seat only."""


class SeatShutdownHandler(_SeatRequired, VoilaShutdownKernelHandler):
    """Voilà's tab-close beacon ``/voila/api/shutdown/<id>``, for the page that holds the seat only."""


class LogoutHandler(PlainErrors, tornado.web.RequestHandler):
    """``/logout``: nobody logs in to the workbook; it sends the visitor to it."""

    def get(self):
        self.redirect(self.settings.get("base_url", "/"))


class SecurityHeaders(tornado.web.OutputTransform):
    """Every response: no ``Server`` header (it named Tornado's version), and ``nosniff``."""

    def transform_first_chunk(self, status_code, headers, chunk, finishing):
        headers.pop("Server", None)
        headers["X-Content-Type-Options"] = "nosniff"
        return status_code, headers, chunk


class BoundedLog(logging.Filter):
    """Cuts a log record's message to :data:`~drmath.serve.settings.MAX_LOG_LINE` characters."""

    def filter(self, record):
        message = record.getMessage()
        if len(message) > MAX_LOG_LINE:
            record.msg, record.args = cut(message), None
        return True

    @classmethod
    def install(cls, *loggers):
        """Add the filter to every handler of ``loggers`` and of the root logger."""
        bounded = cls()
        for logger in (logging.getLogger(), *loggers):
            for handler in logger.handlers:
                if not any(isinstance(f, cls) for f in handler.filters):
                    handler.addFilter(bounded)


def log_request(handler):
    """Tornado's access log line (status, method, URI, client, time) with the URI cut to a readable length."""
    status = handler.get_status()
    log = logging.getLogger("tornado.access")
    level = log.info if status < 400 else log.warning if status < 500 else log.error
    request = handler.request
    level("%d %s %s (%s) %.2fms", status, request.method, cut(request.uri, 200), request.remote_ip,
          1000.0 * request.request_time())
