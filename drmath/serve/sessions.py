"""A visitor's session: why it can end, the page's open connections, and the seat that proves whose it is.

A session is one kernel and the page that took it. It ends (the page's websocket closes with a code its
page turns into a notice, ``drlab/index.html.j2``) when the page is idle, its kernel uses too much memory
or CPU, the page sends what it may not, or the kernel is shut down or dies (:data:`SESSION_END`).

The seat (issue 19): a kernel id alone opens nothing. The page request that took a kernel is given a
cookie, :data:`SEAT_COOKIE`, holding :func:`seat_token` (an HMAC of the kernel id under the kernel's own
connection key, a secret only the server and that kernel hold), HttpOnly and SameSite=Strict, and scoped
to that kernel's own paths (:func:`seat_paths`), so several tabs keep one each. The kernel websocket and
the kernel API (:mod:`drmath.serve.websocket`, :mod:`drmath.serve.handlers`) refuse a request without it.

    >>> seat_token(b"secret", "5d5a6a4e-0000-4000-8000-000000000000")[:16]
    'b4f4562df13ee5d5'
    >>> seat_paths("/", "abc")
    ('/api/kernels/abc', '/voila/api/shutdown/abc')
"""

import hmac

from .._query import kernel_token

__all__ = ["SESSION_END", "CONNECTIONS", "SEAT_COOKIE", "seat_token", "seat_paths", "kernel_key", "has_seat",
           "give_seat"]

SESSION_END = {"idle": (4001, "idle"), "memory": (4002, "over the memory limit"),
               "too-large": (4003, "message too large"), "dead": (4004, "kernel died"),
               "malformed": (4005, "malformed message"), "cpu": (4006, "over its CPU budget"),
               "queue": (4007, "too many messages queued"), "shutdown": (4008, "shut down")}
"""Reason a session (or, for ``malformed``, a socket) ended -> ``(websocket close code, close reason)`` sent
to its page. Tornado itself closes an oversize message's socket with 1009; the page treats it like 4003."""

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
    """Whether the request of ``handler`` (a tornado handler) carries the seat of ``kernel_id``."""
    key = kernel_key(handler.settings["kernel_manager"], kernel_id)
    given = handler.get_cookie(SEAT_COOKIE, "")
    return bool(key) and hmac.compare_digest(given.encode("utf-8", "replace"), seat_token(key, kernel_id).encode())


def give_seat(handler, kernel_id):
    """Set the seat cookie of ``kernel_id`` on the response of ``handler`` (before its headers are sent)."""
    key = kernel_key(handler.settings["kernel_manager"], kernel_id)
    if not key:
        return
    secure = "; Secure" if handler.request.protocol == "https" else ""
    for path in seat_paths(handler.base_url, kernel_id):  # one cookie, two paths (set_cookie keeps one per name)
        handler.add_header("Set-Cookie", f"{SEAT_COOKIE}={seat_token(key, kernel_id)}; Path={path}; HttpOnly; "
                                         f"SameSite=Strict{secure}")
