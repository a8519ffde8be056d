"""A visitor's kernel websocket: the seat checked, every frame checked before it is parsed, queues bounded.

:class:`KernelSessionWebsocketHandler` is Voilà's kernel websocket with drmath's limits (issues 12 and 19):

- it opens only for the page that holds the kernel's seat (:func:`~drmath.serve.sessions.has_seat`);
- every frame passes :func:`~drmath.serve.frames.check_frame` before jupyter_server's parsers see it; a
  frame that fails closes that socket (``SESSION_END["malformed"]``) and touches nothing else (issue 32: it
  bounds the buffers, the JSON's bytes, arrays and depth);
- one frame per turn of the event loop (issue 32): frames already buffered were handled back to back, so one
  socket held the loop for as long as its frames took (40 frames of 130,000 buffers: another visitor waited
  17 s); now each frame yields to the loop before the next is read;
- frames that arrive after the socket's end are dropped (they used to reach the legacy parser, which
  then read v1 frames as legacy ones);
- a message type a visitor may not send (``execute_request`` …), or any message on stdin (the page never
  answers ``input()``), is dropped here, recognised from its header alone, logged once per socket, and past
  :data:`~drmath.serve.settings.MAX_DROPPED` of them the socket closes;
- a page may have at most ``MAX_QUEUED`` messages (``MAX_QUEUED_BYTES``) sent to its kernel and not
  finished (the kernel's ``idle`` status for them not yet back), on shell and control alike; past it the
  session ends;
- a socket to a kernel whose process has exited (it shut itself down, or died) is refused at once with 404,
  and the kernel's session ended: it waited ~20 s for a kernel that would never answer (issue 32);
- a message over ``websocket_max_message_size`` ends the session (tornado closes with 1009).

:class:`KernelSessionConnection` records the page's activity, keeps tracebacks on the server
(:data:`HIDDEN_ERROR` reaches the page instead), and can be ended with a code its page explains.
"""

import asyncio
import collections
import re
import time

from jupyter_client.session import DELIM
from jupyter_server._tz import utcnow
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from tornado.ioloop import IOLoop
from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

from . import settings
from .frames import DROPPED_CHANNELS, V1, FrameError, check_frame
from .handlers import PlainErrors, cut
from .kernels import restore_priority
from .sessions import CONNECTIONS, SESSION_END, has_seat, trade_ticket

__all__ = ["HIDDEN_ERROR", "Queue", "KernelSessionConnection", "KernelSessionWebsocketHandler"]

HIDDEN_ERROR = "An error occurred in the workbook's kernel; it was logged on the server."
"""What a visitor sees instead of an error's name, value and traceback."""

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Queue:
    """The messages a page sent its kernel that the kernel has not finished: how many, and their bytes.

    Every message counts, even one that reuses another's ``msg_id`` (the kernel answers each with its own
    ``idle`` status, so each finishes one of them).

    >>> q = Queue()
    >>> q.add("a", 100); q.add("a", 50); q.add("b", 10)
    >>> q.count, q.size, "a" in q
    (3, 160, True)
    >>> q.finish("a"); q.finish("a"); q.finish("nope")
    >>> q.count, q.size, "a" in q
    (1, 10, False)
    """

    def __init__(self):
        self._sizes = collections.defaultdict(collections.deque)  # msg_id -> sizes [B], oldest first
        self.count, self.size = 0, 0

    def __contains__(self, msg_id):
        return msg_id in self._sizes

    def add(self, msg_id, size):
        """A message of ``size`` bytes went to the kernel."""
        self._sizes[msg_id].append(size)
        self.count, self.size = self.count + 1, self.size + size

    def finish(self, msg_id):
        """The kernel finished one message of ``msg_id`` (nothing if none is queued)."""
        sizes = self._sizes.get(msg_id)
        if not sizes:
            return
        self.count, self.size = self.count - 1, self.size - sizes.popleft()
        if not sizes:
            del self._sizes[msg_id]


class KernelSessionConnection(ZMQChannelsWebsocketConnection):
    """A page's kernel connection: records the page's activity, keeps tracebacks on the server, can be ended,
    and counts the messages the page has queued at its kernel."""

    def connect(self):
        self.kernel_manager.drmath_visitor_activity = utcnow()  # connecting is activity
        self.queue = Queue()  # the page's messages its kernel has not finished
        self.kernel_manager.drmath_connected = time.monotonic()  # (the kernel's own manager, as the watchdog sees it)
        CONNECTIONS.setdefault(self.kernel_id, set()).add(self)
        restore_priority(self.multi_kernel_manager, self.kernel_id)  # started nicer while its page was static
        return super().connect()

    def disconnect(self):
        mine = CONNECTIONS.get(self.kernel_id)
        if mine is not None:
            mine.discard(self)
            if not mine:
                CONNECTIONS.pop(self.kernel_id, None)
        self.kernel_manager.drmath_connected = time.monotonic()  # the page's websocket was here until now
        return super().disconnect()

    def end(self, code, reason):
        """Close the page's websocket with ``code`` (see SESSION_END), which its page turns into a notice."""
        handler = self.websocket_handler
        if handler is not None and handler.ws_connection is not None:
            handler.ended = True
            handler.close(code, reason)

    def on_restart_failed(self):
        # the kernel died (drmath does not restart kernels: a restarted one has lost the page's widgets)
        self.log.warning("Kernel %s died: closing its page's websocket", self.kernel_id)
        IOLoop.current().add_callback(self.end, *SESSION_END["dead"])

    def handle_incoming_message(self, incoming_msg):
        self.kernel_manager.drmath_visitor_activity = utcnow()  # a message from the page: it is in use
        return super().handle_incoming_message(incoming_msg)

    def handle_outgoing_message(self, stream, outgoing_msg):
        channel = stream if isinstance(stream, str) else getattr(stream, "channel", None)
        outgoing_msg = self._without_tracebacks(channel, outgoing_msg)
        if outgoing_msg is not None:
            super().handle_outgoing_message(stream, outgoing_msg)

    def _finished(self, parts):
        """An iopub ``status`` message: the page's message it answers, if ``idle``, is no longer queued."""
        if not self.queue.count:
            return
        parent = self.session.unpack(parts[2])
        if parent.get("msg_id") in self.queue and self.session.unpack(parts[4]).get("execution_state") == "idle":
            self.queue.finish(parent["msg_id"])

    def _without_tracebacks(self, channel, msg_list):
        """``msg_list`` (a signed ZMQ message) with no traceback or error text for the page; ``None``: drop it.

        The kernel's stderr (where ipykernel's comm manager prints the traceback of an
        exception in a widget's message handler) is logged here and not sent; an
        ``error`` message (ipywidgets shows a callback's exception that way) and an
        error reply keep their place but carry :data:`HIDDEN_ERROR` only. On the way it
        notes which of the page's queued messages the kernel has finished.
        """
        if channel not in ("iopub", "shell", "control"):
            return msg_list
        try:
            idents, parts = self.session.feed_identities(msg_list)
            msg_type = self.session.unpack(parts[1]).get("msg_type", "")
            if msg_type == "status":
                self._finished(parts)
            if not (msg_type in ("stream", "error") or msg_type.endswith("_reply")):
                return msg_list
            content = self.session.unpack(parts[4])
        except Exception:  # noqa: BLE001 - not a message we can read: the base class deals with it
            return msg_list
        if msg_type == "stream":
            if content.get("name") != "stderr":
                return msg_list
            self.log.warning("Kernel %s stderr (not sent to its page):\n%s", self.kernel_id,
                             _ANSI.sub("", str(content.get("text", ""))).rstrip())
            return None
        if msg_type != "error" and content.get("status") != "error":
            return msg_list
        self.log.error("Kernel %s %s (not sent to its page): %s: %s\n%s", self.kernel_id, msg_type,
                       content.get("ename"), content.get("evalue"),
                       _ANSI.sub("", "\n".join(map(str, content.get("traceback") or []))))
        content = {**content, "ename": "Error", "evalue": HIDDEN_ERROR, "traceback": [HIDDEN_ERROR]}
        parts = list(parts)
        parts[4] = self.session.pack(content)
        parts[0] = self.session.sign(parts[1:5])
        return [*idents, DELIM, *parts]


class KernelSessionWebsocketHandler(PlainErrors, VoilaKernelWebsocketHandler):
    """Voilà's kernel websocket with the seat, the frame checks and the bounds of the module docstring."""

    too_large = False
    ended = False  # closed by the server: whatever the page still sends is dropped
    dropped = 0  # messages of a forbidden type this socket sent

    @property
    def kernel_websocket_connection_class(self):
        return KernelSessionConnection

    async def pre_get(self):
        import tornado.web

        if not has_seat(self, self.kernel_id):
            raise tornado.web.HTTPError(403, "refused a websocket for kernel %s without its seat",
                                        cut(self.kernel_id, 80))
        trade_ticket(self, self.kernel_id)
        km = self.kernel_manager
        if hasattr(km, "_kernel_alive") and not km._kernel_alive(self.kernel_id):
            if hasattr(km, "end_session") and self.kernel_id in km:
                IOLoop.current().add_callback(km.end_session, self.kernel_id, "dead")
            raise tornado.web.HTTPError(404, "refused a websocket for kernel %s, which has exited",
                                        cut(self.kernel_id, 80))
        return await super().pre_get()

    def get_websocket_protocol(self):
        protocol = super().get_websocket_protocol()
        if protocol is not None:
            close, handler = protocol.close, self

            def close_noting_size(code=None, reason=None):
                if code == 1009:
                    handler.too_large = True
                return close(code, reason)

            protocol.close = close_noting_size
        return protocol

    def write_message(self, message, binary=False):
        """Send a kernel's message to the page.

        Voilà's ``write_message`` drops ``execute_input`` by reading every binary message's header as the v1 format
        does: its first 8 bytes (little-endian) are the count of offsets it then reads one by one. A socket without
        the v1 subprotocol gets the legacy binary format (a kernel message with buffers), whose first 8 bytes read
        that way are ~8.6e17: the server's event loop never came back, for every visitor. The page's own reconnect
        takes the legacy format when its first socket never opened, so a loaded server froze itself (found in CI).
        A legacy binary message carries buffers, which ``execute_input`` never does: it goes out unread.
        """
        if isinstance(message, bytes) and self.selected_subprotocol != V1:
            return super(VoilaKernelWebsocketHandler, self).write_message(message, binary)
        return super().write_message(message, binary)

    async def on_message(self, message):
        """Handle one frame, then yield to the event loop before tornado reads the next (it awaits this)."""
        self._on_frame(message)
        await asyncio.sleep(0)

    def _on_frame(self, message):
        if self.ended or self.ws_connection is None or self.connection is None:
            return  # after the socket's end: dropped unread
        try:
            info = check_frame(message, self.selected_subprotocol, self.kernel_manager.allowed_message_types)
        except FrameError as err:
            self.log.warning("Kernel %s: its page sent a frame that cannot be read (%s): closing that socket",
                             self.kernel_id, err)
            self._end_socket("malformed")
            return
        if not info.allowed:
            self.dropped += 1
            if self.dropped == 1:
                where = "" if info.channel not in DROPPED_CHANNELS else f" on {info.channel}"
                self.log.warning('Kernel %s: its page sent a message of type "%s"%s, which is not allowed: dropped '
                                 "(and any more like it, unlogged)", self.kernel_id, cut(info.msg_type, 60), where)
            if self.dropped > settings.MAX_DROPPED:
                self._end_socket("malformed")
            return
        if not self._queue(info):
            return
        super().on_message(message)

    def _queue(self, info):
        """Count a message the page queues at its kernel (shell or control: the kernel answers each with an ``idle``
        status); False (and the session ends) past the bounds."""
        queue = self.connection.queue
        queue.add(info.msg_id, info.size)
        if queue.count <= settings.MAX_QUEUED and queue.size <= settings.MAX_QUEUED_BYTES:
            return True
        self.log.warning("Kernel %s: its page queued %d messages (%d bytes) its kernel has not finished, over "
                         "%d (%d bytes): ending its session", self.kernel_id, queue.count, queue.size,
                         settings.MAX_QUEUED, settings.MAX_QUEUED_BYTES)
        self.ended = True
        km = self.kernel_manager
        if hasattr(km, "end_session"):
            IOLoop.current().add_callback(km.end_session, self.kernel_id, "queue")
        return False

    def _end_socket(self, reason):
        """Close this socket only (its kernel and the page's other sockets go on)."""
        self.ended = True
        self.close(*SESSION_END[reason])

    def on_close(self):
        self.ended = True
        kernel_id = getattr(self, "kernel_id", None)
        super().on_close()
        km = self.kernel_manager
        if self.too_large and kernel_id and hasattr(km, "end_session"):
            self.log.warning("Kernel %s: its page sent a message over %d bytes: ending its session",
                             kernel_id, self.max_message_size)
            IOLoop.current().add_callback(km.end_session, kernel_id, "too-large")

