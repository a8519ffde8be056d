"""A visitor's session: why it can end, the page's open connections, and the seat that proves whose it is.

A session is one kernel and the page that took it. It ends (the page's websocket closes with a code its
page turns into a notice, ``drlab/index.html.j2``) when the page is idle, its kernel uses too much memory
or CPU, the page sends what it may not, or the kernel is shut down or dies (:data:`SESSION_END`).

The seat (issue 19): a kernel id alone opens nothing. The page request that took a kernel is given a
cookie, :data:`SEAT_COOKIE`, holding :func:`seat_token` (an HMAC of the kernel id under the kernel's own
connection key, a secret only the server and that kernel hold), HttpOnly and SameSite=Strict, and scoped
to that kernel's own paths (:func:`seat_paths`), so several tabs keep one each. The kernel websocket and
the kernel API (:mod:`drmath.serve.websocket`, :mod:`drmath.serve.handlers`) refuse a request without it.

A page sent static first (issue 24) has sent its headers before it has a kernel, so its seat cannot be the
kernel's: it is given a *ticket* instead, a cookie named after a random nonce (:func:`give_ticket`, same flags
and paths, one per page) holding an HMAC of the nonce under a key only this server process holds; when the
page's kernel comes, :func:`bind_ticket` makes that ticket its seat. The first request that comes in on it
(the page's websocket) trades it for the kernel's own seat cookie and expires it (:func:`trade_ticket`), so a
browser's tickets do not pile up: each left alive would go with every kernel request for a day. A ticket is
single-use (issue 32): once traded it opens nothing, so a copy of the cookie taken before (another program
reading the browser's cookies, a proxy's log) cannot open the kernel while its page holds it.

    >>> seat_token(b"secret", "5d5a6a4e-0000-4000-8000-000000000000")[:16]
    'b4f4562df13ee5d5'
    >>> seat_paths("/", "abc")
    ('/api/kernels/abc', '/voila/api/shutdown/abc')
"""

import collections
import hashlib
import hmac
import secrets

from .query_client import kernel_token
from .settings import TICKET_MAX_AGE

__all__ = ["SESSION_END", "CONNECTIONS", "SEAT_COOKIE", "seat_token", "seat_paths", "kernel_key", "has_seat",
           "give_seat", "give_ticket", "bind_ticket", "trade_ticket"]

SESSION_END = {"idle": (4001, "idle"), "memory": (4002, "over the memory limit"),
               "too-large": (4003, "message too large"), "dead": (4004, "kernel died"),
               "malformed": (4005, "malformed message"), "cpu": (4006, "over its CPU budget"),
               "queue": (4007, "too many messages queued"), "shutdown": (4008, "shut down"),
               "restart": (4009, "server restarting")}
"""Reason a session (or, for ``malformed``, a socket) ended -> ``(websocket close code, close reason)`` sent
to its page. Tornado itself closes an oversize message's socket with 1009; the page treats it like 4003.
``restart``: the server got SIGTERM (a rolling update or a reload stops a replica so; :mod:`drmath.serve.app`)."""

CONNECTIONS = {}
"""Kernel id -> its open kernel-websocket connections (``KernelSessionConnection``)."""

SEAT_COOKIE = "drmath_seat"
"""The name of the cookie that proves a request comes from the page that took the kernel."""


def seat_token(key, kernel_id):
    """The seat of kernel ``kernel_id``: HMAC-SHA256 of its id under its connection key.

    Parameters
    ----------
    key : bytes or str
        The kernel's connection key (``Session.key``). [1]
    kernel_id : str
        The kernel's id. [1]

    Returns
    -------
    token : str
        Hex digest; distinct from the kernel's own query-channel token (another label). [1]
    """
    return kernel_token(key, kernel_id, label=b"drmath-seat:")


def seat_paths(base_url, kernel_id):
    """The URL paths the seat cookie of ``kernel_id`` is sent to: its kernel API (websocket included) and
    Voilà's tab-close shutdown beacon."""
    return f"{base_url}api/kernels/{kernel_id}", f"{base_url}voila/api/shutdown/{kernel_id}"


def kernel_key(kernel_manager, kernel_id):
    """The connection key of ``kernel_id``, or None if there is no such kernel."""
    if kernel_id not in kernel_manager:
        return None
    return kernel_manager.get_kernel(kernel_id).session.key or None


def has_seat(handler, kernel_id):
    """Whether the request of ``handler`` (a tornado handler) carries the seat of ``kernel_id``: its seat
    cookie, or the ticket :func:`bind_ticket` bound to it until :func:`trade_ticket` traded it."""
    key = kernel_key(handler.settings["kernel_manager"], kernel_id)
    if not key:
        return False
    given = handler.get_cookie(SEAT_COOKIE, "")
    if hmac.compare_digest(given.encode("utf-8", "replace"), seat_token(key, kernel_id).encode()):
        return True
    nonce = _TICKETS.get(kernel_id)
    if nonce is None:
        return False
    given = handler.get_cookie(f"{SEAT_COOKIE}_{nonce}", "")
    return hmac.compare_digest(given.encode("utf-8", "replace"), _ticket_token(nonce).encode())


_TICKET_KEY = secrets.token_bytes(32)  # this server process's own: a restart voids every ticket (and kernel)
_TICKETS = collections.OrderedDict()  # kernel id -> the nonce of the ticket that is its seat
_MOST_TICKETS = 10_000  # bound on _TICKETS: far more than the kernels a server holds (the oldest go first)


def _ticket_token(nonce):
    """The cookie value of the ticket ``nonce``: HMAC-SHA256 of it under :data:`_TICKET_KEY`."""
    return hmac.new(_TICKET_KEY, b"drmath-ticket:" + nonce.encode(), hashlib.sha256).hexdigest()


def _set_seat_cookie(handler, name, value, paths, max_age=None):
    """One ``Set-Cookie`` per path: HttpOnly, SameSite=Strict, Secure over https, ``Max-Age`` if given [s]."""
    more = ("; Secure" if handler.request.protocol == "https" else "") + (f"; Max-Age={max_age}" if max_age else "")
    for path in paths:  # add_header, not set_cookie: set_cookie keeps one cookie per name
        handler.add_header("Set-Cookie", f"{name}={value}; Path={path}; HttpOnly; SameSite=Strict{more}")


def _ticket_paths(base):
    """Where a ticket goes: every kernel's API path and shutdown beacon (its kernel is not known yet)."""
    return f"{base}api/kernels", f"{base}voila/api/shutdown"


def give_ticket(handler):
    """Give the response of ``handler`` (headers not yet sent) a seat ticket; returns its nonce.

    The cookie ``drmath_seat_<nonce>`` goes to every kernel's API path and shutdown beacon (the kernel is not
    known yet), so it opens nothing until :func:`bind_ticket` binds it to one kernel.
    """
    nonce = secrets.token_hex(8)
    _set_seat_cookie(handler, f"{SEAT_COOKIE}_{nonce}", _ticket_token(nonce), _ticket_paths(handler.base_url),
                     TICKET_MAX_AGE)
    return nonce


def trade_ticket(handler, kernel_id):
    """When the request of ``handler`` carries the ticket bound to ``kernel_id``, its response (headers not yet
    sent: a websocket's 101 carries them too) gives the kernel's own seat cookie (:func:`give_seat`) and expires
    the ticket, which opens nothing from then on. Call it once :func:`has_seat` has passed."""
    nonce = _TICKETS.get(kernel_id)
    if nonce is None or not handler.get_cookie(f"{SEAT_COOKIE}_{nonce}"):
        return
    del _TICKETS[kernel_id]  # single-use: has_seat no longer knows it
    give_seat(handler, kernel_id)
    more = "; Secure" if handler.request.protocol == "https" else ""
    for path in _ticket_paths(handler.base_url):
        handler.add_header("Set-Cookie", f"{SEAT_COOKIE}_{nonce}=; Path={path}; Max-Age=0; HttpOnly; "
                                         f"SameSite=Strict{more}")


def bind_ticket(kernel_id, nonce):
    """The ticket ``nonce`` (:func:`give_ticket`) is the seat of ``kernel_id`` from now on."""
    _TICKETS[kernel_id] = nonce
    _TICKETS.move_to_end(kernel_id)
    while len(_TICKETS) > _MOST_TICKETS:
        _TICKETS.popitem(last=False)


def give_seat(handler, kernel_id):
    """Set the seat cookie of ``kernel_id`` on the response of ``handler`` (before its headers are sent)."""
    key = kernel_key(handler.settings["kernel_manager"], kernel_id)
    if key:
        _set_seat_cookie(handler, SEAT_COOKIE, seat_token(key, kernel_id), seat_paths(handler.base_url, kernel_id))
