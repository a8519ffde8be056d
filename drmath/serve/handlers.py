"""The small handlers and filters that close what the server leaks (issue 19).

- :class:`PlainErrors`: an error page of one line. jupyter_server renders its HTML error template, which
  needs a ``static_path`` Voilà does not set: every 404 on a websocket path logged two tracebacks, and
  ``/logout`` answered 500.
- :class:`SeatKernelHandler`, :class:`SeatShutdownHandler`: the kernel API and Voilà's tab-close shutdown
  beacon answer only the page that holds the kernel's seat (:mod:`drmath.serve.sessions`).
- :class:`LogoutHandler`: ``/logout`` (there is no login) sends the visitor to the workbook.
- :class:`NotFoundHandler`: a path under the site's ``notebooks/`` that names no page: a plain 404 (issue 35).
- :class:`SecurityHeaders`: no ``Server`` header on any response, ``X-Content-Type-Options: nosniff`` on
  every one (the static JavaScript had none).
- :class:`BoundedLog` and :func:`log_request`: no log line longer than
  :data:`~drmath.serve.settings.MAX_LOG_LINE` (a 255 KiB link wrote 261 kB to the log).
- :class:`Wire` (issue 24): text and JavaScript gzip-compressed on the wire (a cold page shipped 6.56 MB
  as is), static assets cached by their URL (a year and ``immutable`` when the URL names the content),
  everything else private to the browser. A response that starts with a :class:`GzipStart` (the static
  page's start, the same for every visitor of a scenario) sends that start as compressed once.
"""

import collections
import logging
import re
import struct
import zlib

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.services.kernels.handlers import KernelHandler
from voila.shutdown_kernel_handler import VoilaShutdownKernelHandler

from . import settings
from .sessions import has_seat
from .settings import MAX_LOG_LINE

__all__ = ["PlainErrors", "SeatKernelHandler", "SeatShutdownHandler", "LogoutHandler", "NotFoundHandler",
           "SecurityHeaders", "BoundedLog", "log_request", "cut", "Wire", "GzipStart", "cache_policy"]


def cut(text, limit=MAX_LOG_LINE):
    """``text`` cut to ``limit`` characters, saying how much was left out.

    >>> cut("x" * 10, 4)
    'xxxx… (6 more characters)'
    """
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit:,} more characters)"


class PlainErrors:
    """An error answer of one plain line, whatever handler it is mixed into (no template, no traceback).

    A refusal (4xx) says why when the :class:`tornado.web.HTTPError` that made it does, with its arguments
    (``403 Forbidden: '_xsrf' argument missing from POST``); a server error (5xx) says nothing more.
    """

    def write_error(self, status_code, **kwargs):
        plain = "text/plain; charset=utf-8"
        self.set_header("Content-Type", plain)
        line = f"{status_code} {self._reason}"
        err = kwargs.get("exc_info", (None, None))[1]
        if 400 <= status_code < 500 and isinstance(err, tornado.web.HTTPError) and err.log_message:
            why = err.log_message % err.args if err.args else err.log_message
            line += ": " + cut(" ".join(str(why).split()), 200)  # one line, however the reason was written
        # jupyter_server's APIHandler.finish sets its own Content-Type (JSON) unless told
        self.finish(f"{line}\n", **({"set_content_type": plain} if isinstance(self, APIHandler) else {}))


class _SeatRequired(PlainErrors):
    """Refuse (403) a request on ``/…/<kernel id>`` that does not carry that kernel's seat; every error answer is
    one plain line (:class:`PlainErrors`).

    jupyter_server's ``APIHandler.write_error`` answered JSON whose message was the error's log format without its
    arguments: ``{"message": "refused a request for kernel %s without its seat", "reason": null}`` (issue 32).
    The visitor now gets ``403 Forbidden: refused a request for kernel <id> without its seat``.
    """

    def prepare(self):
        kernel_id = self.path_kwargs.get("kernel_id") or "".join(self.path_args[:1])
        if not has_seat(self, kernel_id):
            raise tornado.web.HTTPError(403, "refused a request for kernel %s without its seat", cut(kernel_id, 80))
        return super().prepare()


class SeatKernelHandler(_SeatRequired, KernelHandler):
    """``/api/kernels/<id>`` (its model; DELETE shuts it down), for the page that holds the seat only."""


class SeatShutdownHandler(_SeatRequired, VoilaShutdownKernelHandler):
    """Voilà's tab-close beacon ``/voila/api/shutdown/<id>``, for the page that holds the seat only."""


class NotFoundHandler(PlainErrors, tornado.web.RequestHandler):
    """A path of the site that names no page (issue 35: ``notebooks/<anything else>``): a plain 404, nothing run."""

    def prepare(self):
        raise tornado.web.HTTPError(404)


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


# --------------------------------------------------------------------------- issue 24: fewer bytes

_STATIC = re.compile(r"/voila/(?:static|templates/[^/]+/static|labextensions|api/themes)/")
"""The paths of the static handlers: Voilà's bundle, the template's files, the widget extensions, themes."""

_HASHED = re.compile(r"[.\-_][0-9a-f]{8,}\.[a-z0-9]+$")
"""A file name that carries its content's hash (webpack's ``84.09c61a35dce1705f.js``, ``remoteEntry.698dcaf7.js``)."""

_COMPRESSIBLE = {"application/javascript", "application/x-javascript", "application/json", "application/xml",
                 "application/xhtml+xml", "image/svg+xml", "application/wasm"}


def cache_policy(path, query, status, cache_control):
    """The ``Cache-Control`` a response gets, from its request's path and query and what its handler set.

    A static asset whose URL names its content (a ``v=`` query, or a content hash in its file name) is
    kept a year, ``immutable``; another static asset :data:`~drmath.serve.settings.STATIC_MAX_AGE`, then
    revalidated by its ``ETag``. Anything else (pages, API, websockets) is ``private``: the live page
    carries a visitor's seat cookie, so no shared cache may keep it; a response whose handler said
    nothing is revalidated (``no-cache``).

    Parameters
    ----------
    path, query : str
        The request's path and query string.
    status : int
        The response's status.
    cache_control : str or None
        What the handler set.

    Returns
    -------
    cache_control : str or None
        The header to send (None: none).

    Examples
    --------
    >>> cache_policy("/voila/static/voila.js", "", 200, None)
    'public, max-age=3600'
    >>> cache_policy("/voila/templates/drlab/static/plotly-basic-4.1.1.min.js", "v=4.1.1", 200, "max-age=315360000")
    'public, max-age=31536000, immutable'
    >>> cache_policy("/", "", 200, "no-cache, no-store, must-revalidate")
    'private, no-cache, no-store, must-revalidate'
    >>> cache_policy("/api/kernels/1", "", 200, None)
    'private, no-cache'
    """
    if status < 200:
        return cache_control
    if _STATIC.search(path) and status in (200, 304):
        hashed = "v" in {part.split("=", 1)[0] for part in query.split("&")} or _HASHED.search(path)
        return settings.IMMUTABLE if hashed else f"public, max-age={settings.STATIC_MAX_AGE}"
    if not cache_control:
        return "private, no-cache"
    if "private" in cache_control:
        return cache_control
    return "private, " + cache_control.replace("public, ", "").replace("public", "").strip(", ")


class _Compressed:
    """The gzip bodies of static assets, by path and ETag: each is compressed once per server (LRU, bounded)."""

    def __init__(self, limit):
        self.limit, self.size, self._bodies = limit, 0, collections.OrderedDict()

    def get(self, key):
        body = self._bodies.get(key)
        if body is not None:
            self._bodies.move_to_end(key)
        return body

    def put(self, key, body):
        if key in self._bodies or len(body) > self.limit:
            return
        self._bodies[key] = body
        self.size += len(body)
        while self.size > self.limit:
            self.size -= len(self._bodies.popitem(last=False)[1])


GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
"""A gzip member's header (RFC 1952, 2.3): deflate, no flags, no time, no extra flags, OS unknown."""


class GzipStart:
    """The first bytes of many responses and their gzip form, compressed once (issue 24).

    The static page's start (:func:`drmath.serve.static.static_prelude`) is the same ~0.4 MB for every visitor
    of a scenario. Compressed for each of them, it was the server's largest cost in a burst: 41 % of the server
    process's py-spy samples (every thread) over the first 7 s of 50 arrivals
    (``bench/bench_load.py --clients mixed --visitors 50``).

    Its deflate data ends on a full flush: byte-aligned, and nothing after it refers back into it. So the rest
    of each response, compressed as it streams, continues the same gzip member (:class:`Wire`), and the
    member's CRC-32 continues from :attr:`crc`.

    Parameters
    ----------
    data : bytes
        The bytes every response using it starts with.
    level : int, optional
        zlib level [1].

    Examples
    --------
    >>> start = GzipStart(b"<p>static</p>" * 100)
    >>> stream = _GzipStream(start=start)
    >>> import gzip
    >>> gzip.decompress(stream.compress(b"<p>live</p>", finishing=True)) == start.data + b"<p>live</p>"
    True
    """

    def __init__(self, data, level=settings.GZIP_STATIC_LEVEL):
        deflate = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
        self.data = bytes(data)
        self.body = GZIP_HEADER + deflate.compress(self.data) + deflate.flush(zlib.Z_FULL_FLUSH)
        self.crc = zlib.crc32(self.data)


class _GzipStream:
    """One gzip member, compressed as it streams: each chunk flushed (``Z_SYNC_FLUSH``) so that the client can
    use it at once, the CRC-32 and size trailer after the last. With ``start``, the member opens with its
    compressed bytes (the chunk given then must not repeat them)."""

    def __init__(self, level=settings.GZIP_LEVEL, start=None):
        self._deflate = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
        self._head = start.body if start else GZIP_HEADER
        self._crc, self._size = (start.crc, len(start.data)) if start else (0, 0)

    @property
    def size(self):
        """The bytes compressed so far, the start's included [B]."""
        return self._size

    def compress(self, chunk, finishing):
        self._crc, self._size = zlib.crc32(chunk, self._crc), self._size + len(chunk)
        out = self._head + self._deflate.compress(chunk)
        self._head = b""
        if not finishing:
            return out + self._deflate.flush(zlib.Z_SYNC_FLUSH)
        return out + self._deflate.flush(zlib.Z_FINISH) + struct.pack("<II", self._crc, self._size & 0xFFFFFFFF)


class Wire(tornado.web.OutputTransform):
    """Every response: its ``Cache-Control`` (:func:`cache_policy`) and, for text and JavaScript a client
    accepts gzip for, a gzip body.

    A static asset (it has an ``ETag``) is compressed once at :data:`~drmath.serve.settings.GZIP_STATIC_LEVEL`
    and the result kept (:data:`~drmath.serve.settings.GZIP_CACHE_BYTES`), so a burst of cold visitors costs
    the server no compression; a page is compressed as it streams, each flush sent at once (``Z_SYNC_FLUSH``),
    so the page still renders progressively. A page whose handler called :meth:`start_with` sends the start's
    bytes as they were compressed once, when its first chunk begins with them.

    Only a whole asset is kept: a visitor who leaves while an asset streams ends its response early (tornado's
    static handler stops writing and finishes), and that short body, kept, went to every later visitor, whose
    page then failed on a cut script ("Unexpected end of input", "Loading chunk 7155 failed") and never went live.
    """

    compressed = _Compressed(settings.GZIP_CACHE_BYTES)

    def __init__(self, request):
        self._request = request
        self._accepts = "gzip" in request.headers.get("Accept-Encoding", "") and request.method != "HEAD"
        self._gzip = None  # the compressor while compressing (a _GzipStream)
        self._sent = False  # a cached body was sent whole with the first chunk
        self._key = self._parts = None
        self._length = None  # a static asset's whole length [B]: only a body of that length is kept
        self._start = None  # the GzipStart this response's first chunk begins with

    @staticmethod
    def start_with(handler, start):
        """``handler``'s response begins with ``start`` (a :class:`GzipStart`): its compressed bytes go as they are."""
        for transform in handler._transforms:  # tornado makes a request's transforms before its handler runs
            if isinstance(transform, Wire):
                transform._start = start

    def transform_first_chunk(self, status_code, headers, chunk, finishing):
        request = self._request
        policy = cache_policy(request.path, request.query, status_code, headers.get("Cache-Control"))
        if policy:
            headers["Cache-Control"] = policy
        ctype = headers.get("Content-Type", "").split(";")[0].strip()
        # 503: a page shown static while every seat is taken (drmath.serve.pages), which may then go live
        if status_code not in (200, 503) or not (ctype.startswith("text/") or ctype in _COMPRESSIBLE):
            return status_code, headers, chunk
        headers["Vary"] = ", ".join(filter(None, (headers.get("Vary"), "Accept-Encoding")))
        if (not self._accepts or "Content-Encoding" in headers
                or (finishing and len(chunk) < settings.MIN_GZIP_LENGTH)):
            return status_code, headers, chunk
        headers["Content-Encoding"] = "gzip"
        if headers.get("ETag") and _STATIC.search(request.path):
            self._key = (request.path, headers["ETag"])
            body = self.compressed.get(self._key)
            if body is not None:
                headers["Content-Length"] = str(len(body))
                self._sent = True
                return status_code, headers, body
            self._parts = []
            self._length = int(headers.get("Content-Length", -1))
        level = settings.GZIP_STATIC_LEVEL if self._key else settings.GZIP_LEVEL
        start = self._start if self._start is not None and chunk.startswith(self._start.data) else None
        self._gzip = _GzipStream(level, start)
        chunk = self.transform_chunk(chunk[len(start.data):] if start else chunk, finishing)
        if finishing:
            headers["Content-Length"] = str(len(chunk))
        else:
            headers.pop("Content-Length", None)
        return status_code, headers, chunk

    def transform_chunk(self, chunk, finishing):
        if self._sent:
            return b""
        if self._gzip is None:
            return chunk
        out = self._gzip.compress(chunk, finishing)
        if self._parts is not None:
            self._parts.append(out)
            if finishing and self._gzip.size == self._length:  # whole: its visitor did not leave before its end
                self.compressed.put(self._key, b"".join(self._parts))
        return out
