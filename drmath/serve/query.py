"""The request channel: a preheated kernel's own websocket for its visitor's request (issue 12).

A preheated kernel gets its visitor's request (the share link's query string) over the websocket
``/voila/query/<kernel id>``. Voilà's ``RequestInfoSocketHandler`` accepts any client, with no login: a
stranger could read a visitor's request or take the kernel's place, and two sockets on one id, the
first then closed, made its ``on_close`` delete another entry, the waiting pooled kernel's: the next
visitor's page hung on "Executing 1 of 2", and its kernel, busy forever, was never culled and held a
seat. :class:`KernelQueryHandler` takes only the kernel itself (:mod:`drmath.serve.query_client` sends an HMAC of the
kernel id under the kernel's connection key, which only the kernel and this server know), and a closing
socket removes only its own entry. :func:`await_request` shuts down a kernel that a page took from the
pool but that never received the request (the page's websocket never connecting is the watchdog's case).
"""

import asyncio
import hmac

import tornado.web
from voila.request_info_handler import RequestInfoSocketHandler

from .handlers import PlainErrors
from .query_client import TOKEN_HEADER, kernel_token
from .sessions import kernel_key

__all__ = ["KernelQueryHandler", "await_request"]

_AWAITING = {}  # kernel id -> timer: kernels handed to a page whose request has not reached them yet

# Voilà's page handler calls RequestInfoSocketHandler.send_updates, which looks the kernel up in these
# class-level dicts: the subclass keeps using the very same ones
_WAITERS, _CACHE = RequestInfoSocketHandler._waiters, RequestInfoSocketHandler._cache


def await_request(kernel_manager, kernel_id):
    """Shut ``kernel_id`` down unless its page's request reaches it within ``request_timeout`` s.

    Called on the server's loop when a page takes the kernel from the pool. Until the
    request reaches it, the kernel is busy in the app notebook's ``query_string()``; the culler never
    culls a busy kernel, so a kernel that never gets it would hold its seat for good.
    """
    timeout = getattr(kernel_manager, "request_timeout", 0) or 0
    if timeout <= 0:
        return

    async def recycle():
        if _AWAITING.pop(kernel_id, None) is None:
            return  # delivered
        KernelQueryHandler.forget(kernel_id)  # its undelivered request, even if the kernel is gone
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


def _delivered(kernel_id):
    """The page's request went to ``kernel_id``: no recycling."""
    timer = _AWAITING.pop(kernel_id, None)
    if timer is not None:
        timer.cancel()


class KernelQueryHandler(PlainErrors, RequestInfoSocketHandler):
    """The request channel of one kernel: opened only with that kernel's token; one socket per kernel."""

    kernel_id = None

    def prepare(self):
        kernel_id = self.path_kwargs.get("kernel_id") or "".join(self.path_args[:1])
        # an unknown id gets the same 403 as a bad token (jupyter_server's get_kernel would say 404)
        key = kernel_key(self.settings["kernel_manager"], kernel_id)
        token = self.request.headers.get(TOKEN_HEADER, "").encode("utf-8", "replace")
        if not key or not hmac.compare_digest(token, kernel_token(key, kernel_id).encode()):
            raise tornado.web.HTTPError(403, "refused a query socket for kernel %s without its token", kernel_id)
        return super().prepare()

    def open(self, kernel_id):
        self.kernel_id = kernel_id
        previous = _WAITERS.get(kernel_id)
        _WAITERS[kernel_id] = self
        if previous is not None and previous is not self:
            previous.close()  # the kernel reconnected: its newest socket is the one
        payload = _CACHE.pop(kernel_id, None)
        if payload is not None:
            self.write_message(payload)

    def on_message(self, message):
        pass  # the kernel only listens

    def on_close(self):
        if self.kernel_id is not None and _WAITERS.get(self.kernel_id) is self:
            del _WAITERS[self.kernel_id]

    def write_message(self, message, binary=False):
        sent = super().write_message(message, binary)
        _delivered(self.kernel_id)  # the only message on this socket is the request
        return sent

    @classmethod
    def forget(cls, kernel_id):
        """Drop ``kernel_id``'s undelivered request and close its socket (it is being shut down)."""
        _CACHE.pop(kernel_id, None)
        waiter = _WAITERS.pop(kernel_id, None)
        if waiter is not None:
            waiter.close()
