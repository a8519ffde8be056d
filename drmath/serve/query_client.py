r"""The kernel's end of Voilà's request channel, without importing Voilà's server.

A preheated Voilà kernel runs the notebook before any visitor arrives. When one
does, Voilà sends that visitor's request (``QUERY_STRING``, ``SCRIPT_NAME``, ...,
as a JSON object) over the websocket ``/voila/query/<kernel id>``, which the
kernel opened and waits on. ``voila.utils.get_query_string`` does this too, but
importing ``voila.utils`` pulls in ``voila.app``, ``jupyter_server.serverapp`` and
``jupyter_events`` (which compiles a Lark grammar for RFC 3987): about 3-4
CPU-seconds in every kernel, just to read a query string. This module is the
same client on ``websockets``' blocking client: one connection, one message.

It also proves who it is: ``drmath.serve`` only lets a kernel read its own
request, so the upgrade carries :data:`TOKEN_HEADER`, an HMAC of the kernel id
under the kernel's connection key (a secret only the kernel and the server
hold; see :func:`kernel_token`).

Outside a preheated Voilà kernel nothing waits: a kernel Voilà started for one
request has the request in its environment already, and plain Python has none.

    >>> kernel_token(b"secret", "5d5a6a4e-0000-4000-8000-000000000000")[:16]
    'c09977649d59c36b'
    >>> import os; os.environ.get("VOILA_PREHEAT") is None and query_string() == os.environ.get("QUERY_STRING", "")
    True
"""

import hashlib
import hmac
import json
import os
import sys

__all__ = ["TOKEN_HEADER", "kernel_token", "request_info", "query_string"]

TOKEN_HEADER = "X-Drmath-Kernel-Token"
"""The websocket upgrade header that carries :func:`kernel_token`."""

CONNECT_TIMEOUT = 5.0
"""How long to wait for the server to take the connection and answer the upgrade. [s]"""

MAX_MESSAGE = 1 << 20
"""The largest request message accepted (it is a few hundred bytes). [B]"""

def kernel_token(key, kernel_id, label=b"drmath-voila-query:"):
    """The proof that a query-channel client is the kernel ``kernel_id``: HMAC-SHA256 of its id.

    Parameters
    ----------
    key : bytes or str
        The kernel's connection key (``Session.key``; the ``key`` of its connection file). [1]
    kernel_id : str
        The kernel's id. [1]
    label : bytes, default b"drmath-voila-query:"
        What the token proves, prefixed to the id, so that tokens for other uses of the same key (the page's
        seat, ``drmath.serve.sessions.seat_token``) never stand for this one. [1]

    Returns
    -------
    token : str
        Hex digest; the key itself never goes over the wire. [1]
    """
    if isinstance(key, str):
        key = key.encode()
    return hmac.new(key, label + kernel_id.encode(), hashlib.sha256).hexdigest()


def _kernel_key():
    """This kernel's connection key, or None outside an ipykernel."""
    kernelapp = sys.modules.get("ipykernel.kernelapp")  # already imported in a kernel; never import it here
    if kernelapp is None or not kernelapp.IPKernelApp.initialized():
        return None
    session = getattr(kernelapp.IPKernelApp.instance(), "session", None)
    return getattr(session, "key", None) or None


def _url():
    """The URL of this kernel's query websocket, as ``voila.utils`` builds it."""
    scheme = os.environ.get("VOILA_WS_PROTOCOL", "ws")
    host = os.environ.get("VOILA_APP_IP", "127.0.0.1")
    port = os.environ.get("VOILA_APP_PORT", "8866")
    base = os.environ.get("VOILA_WS_BASE_URL", os.environ.get("VOILA_SERVER_URL", "/"))
    netloc = f"[{host}]" if ":" in host else host
    return f"{scheme}://{netloc}:{port}{base}voila/query/{os.environ.get('VOILA_KERNEL_ID', '')}"


def request_info(timeout=None):
    """Wait for this preheated kernel's request and put it in ``os.environ``, as Voilà does.

    Parameters
    ----------
    timeout : float, optional
        Most seconds to wait for a visitor once connected; None (default) waits as
        long as the kernel sits in the pool. [s]

    Returns
    -------
    info : dict
        The request's variables (``QUERY_STRING``, ``SCRIPT_NAME``, ...); empty when this is
        not a preheated Voilà kernel or the request could not be read (a line on the
        kernel's stderr, the server's log, says why). [1]
    """
    if os.environ.get("VOILA_PREHEAT", "False") == "False":
        return {}
    kernel_id, key = os.environ.get("VOILA_KERNEL_ID"), _kernel_key()
    if not kernel_id or not key:
        print("drmath: no kernel id or connection key, so no Voilà request to wait for", file=sys.__stderr__)
        return {}
    # websockets is what Voilà's own client uses; its blocking client costs the kernel ~10 ms to import
    from websockets.exceptions import WebSocketException
    from websockets.sync.client import connect

    url = _url()
    try:
        with connect(url, additional_headers={TOKEN_HEADER: kernel_token(key, kernel_id)},
                     open_timeout=CONNECT_TIMEOUT, max_size=MAX_MESSAGE, compression=None) as ws:
            message = ws.recv(timeout)
        info = json.loads(message)
    except (OSError, ValueError, WebSocketException) as exc:  # refused, closed, timed out, not JSON
        print(f"drmath: could not read the Voilà request at {url}: {exc}", file=sys.__stderr__)
        return {}
    info = {str(k): str(v) for k, v in info.items()} if isinstance(info, dict) else {}
    os.environ.update(info)
    return info


def query_string(timeout=None):
    """The page request's query string: waited for in a preheated Voilà kernel, else from the environment.

    Parameters
    ----------
    timeout : float, optional
        See :func:`request_info`. [s]

    Returns
    -------
    query : str
        The query string without ``?``; empty when there is none. [1]
    """
    request_info(timeout)
    return os.environ.get("QUERY_STRING", "")
