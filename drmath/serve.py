r"""Serve the dashboard with Voilà: ``python -m drmath.serve [--port N] [--ip 127.0.0.1]``.

What it sets up (see ``stack.md`` for why):

- the app notebook and the local ``drlab`` template, both package data
  (``drmath/data/dashboard.ipynb``, ``drmath/data/voila/templates/drlab``, see
  :mod:`drmath._resources`), so it serves from wherever drmath is installed and no
  request leaves the machine (the stock ``lab`` template links a CDN);
- plotly.js (the vendored 1.2 MB "basic" bundle) as a static file of that
  template, at a versioned URL the browser caches for good; the figures load
  it from there instead of receiving plotly's ~4.9 MB widget bundle over the
  websocket on every page view;
- preheated kernels (a pool that has already run the notebook), as many as fit
  the machine (:func:`machine_defaults`); a refill starts at a lower CPU priority
  and gets the server's back when a visitor takes it; each one's
  request channel (``/voila/query/<kernel id>``, which hands it the visitor's
  share link) is open to that kernel only (:func:`_query_handler_class`), and a
  kernel a page took that never gets its request is shut down (``request_timeout``);
- the ``_xsrf`` cookie on the page, which Voilà 0.5 never sets (voila#1458), so
  the page's tab-close shutdown beacon is accepted and frees its kernel at once;
- idle-kernel culling, for the tabs that never send that beacon (a crash, a bot);
  with :class:`GraceKernelManager`, so the culler cannot kill a kernel that a
  page has just taken from the pool before the page's websocket opens;
- permessage-deflate for the websocket;
- a cap on kernels (``--max-kernels``, pool included, sized to the machine): a
  visitor over it gets HTTP 503 with ``Retry-After`` and starts no kernel, so a
  spike cannot exhaust memory; a browser gets the static explainer of its
  scenario under a "busy, try again" notice, other clients one line of text
  (:class:`CappedVoilaHandler`);
- while a visitor's kernel starts, a static preview of the scenario the page opens with (the
  story and the explainer's headline cards, :func:`_preview_html`) under a progress bar, in place
  of Voilà's blank spinner; the default scenario's is rendered at start, a share link's once;
- page requests that cannot inject or switch: ``theme`` and ``template``
  arguments are dropped (a redirect without them), and a link over
  :data:`MAX_URL_LENGTH` gets a readable 414 page;
- a visitor's session ends, with a notice on the page, when the page sends nothing
  for ``--idle-connected-timeout``, its kernel goes over ``--kernel-memory-limit``,
  it sends a message over ``--max-message-size``, or its kernel dies; dead kernels
  never leave the pool; tracebacks go to the server log, never to the page
  (:data:`SESSION_END`, ``_websocket_handler_class``);
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
import re
import sys
from pathlib import Path

from jupyter_server._tz import utcnow
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets import Float, Int

from . import _resources, units

__all__ = ["ROOT", "NOTEBOOK", "TEMPLATE_ROOT", "MAX_KERNELS", "RETRY_AFTER", "IDLE_CONNECTED_TIMEOUT",
           "KERNEL_MEMORY_LIMIT", "MAX_MESSAGE_SIZE", "SESSION_END", "parse_size", "GraceKernelManager",
           "voila_argv", "voila_env", "command", "voila_main", "main",
           "machine_defaults", "BUSY_TEXT", "MAX_URL_LENGTH", "MAX_HEADER_SIZE", "REFILL_NICENESS",
           "PREVIEW_MARKER", "PREVIEW_WAIT", "IOPUB_TIMEOUT"]

ROOT = Path(__file__).resolve().parent.parent
"""The folder this drmath is imported from (a checkout, or site-packages): the server runs there and the
kernels import the same drmath. No file is read from it; the data files are package data."""

NOTEBOOK = _resources.data_file("dashboard.ipynb")
"""The Voilà app notebook (package data)."""

TEMPLATE_ROOT = _resources.data_dir()
"""The Jupyter data dir holding ``voila/templates/drlab`` (``drmath/data``, package data)."""

MAX_KERNELS = 24
"""Cap on kernels alive at once, the preheated pool included, that :func:`voila_argv` writes unless told:
22 visitors + 2 pooled, about 3.5 GB of kernels; what :func:`machine_defaults` gives the 2-core project
machine. ``python -m drmath.serve`` sizes it from the machine it runs on. [1]"""

KERNEL_RSS = 120e6
"""Resident memory of one kernel that has run the notebook (measured: 115-139 MB, docs/deployment.md). [B]"""

SERVER_RSS = 0.2e9
"""Resident memory of the Voilà server itself, with a margin (measured: 115-165 MB). [B]"""

KERNELS_PER_CORE = 12
"""Kernels per core the cap allows: a page's kernel takes ~1-6 CPU-s to start (~5 typical), so a cap's
worth of visitors arriving at once get their kernels within about a minute. [1]"""

REFILL_NICENESS = 10
"""How much nicer (lower CPU priority) than the server a pool refill kernel runs until a visitor claims it. [1]"""

MAX_URL_LENGTH = 32 * 1024
"""Longest page request target (path and query) drmath serves; a longer link gets the readable 414 page.
A real share link is at most ~2,000 characters (``scenario_io.MAX_QUERY_LENGTH``). [B]"""

MAX_HEADER_SIZE = 256 * 1024
"""Tornado's limit on a request's line and headers (its default, 64 KiB, closes the connection with no
answer); above :data:`MAX_URL_LENGTH`, so a long link reaches the handler and gets its readable page. [B]"""

RETRY_AFTER = 30
"""``Retry-After`` of the busy page. [s]"""

IDLE_CONNECTED_TIMEOUT = 1800
"""Default time after which a kernel whose open page sent nothing is shut down (issue 12). [s]"""

KERNEL_MEMORY_LIMIT = 10**9
"""Default ceiling on a visitor kernel's resident memory (RSS); over it, its session ends. [B]"""

MAX_MESSAGE_SIZE = 2**20
"""Default limit on one message a page sends over its kernel websocket; over it, its session ends. [B]"""

REQUEST_TIMEOUT = 120
"""How long a pooled kernel taken by a page may wait for that page's request (``GraceKernelManager.request_timeout``;
normally it arrives in milliseconds, or once the kernel has run its first cell). [s]"""

BUSY_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>drmath is busy</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 36em; margin: 4em auto; color: #222">
<h1 class="drmath-busy">The workbook is busy</h1>
<p>Every seat of this drmath workbook is taken right now ({visitors}).
Please try again in a minute: <a href="">reload this page</a>.</p>
</body></html>
"""

BUSY_TEXT = "The workbook is busy: every seat is taken ({visitors}). Please try again in {retry} s.\n"
"""The 503 body for clients that are not browsers (their ``Accept`` names no ``text/html``)."""

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

    >>> manager = GraceKernelManager(max_kernels=3)  # no preheated pool here: three visitor seats
    >>> [manager.admit() is not None for _ in range(4)], manager.visitors
    ([True, True, True, False], 3)

    It ends a visitor's session, closing the page's websocket with a code its page
    explains (:data:`SESSION_END`), when the page sends nothing for
    ``idle_connected_timeout`` s, when the kernel's RSS goes over ``memory_limit``
    (sampled every ``memory_check_interval`` s), when the page sends an oversize
    message, or when the kernel dies; a dead kernel is also dropped from the pool
    before a page can take it:

    >>> GraceKernelManager(idle_connected_timeout=60).idle_connected_timeout
    60.0
    """

    max_kernels = Int(0, config=True, help="Most kernels alive at once, the preheated pool included; 0: no cap.")
    # issue 12, see _await_request: a pooled kernel handed to a page that never gets its request is shut down
    request_timeout = Float(REQUEST_TIMEOUT, config=True,
                            help="Seconds a pooled kernel taken by a page may wait for that page's request "
                                 "before it is shut down (0: forever).")
    # issue 12: sessions end (with a notice on the page) when idle, over memory, sending oversize messages, or dead
    idle_connected_timeout = Float(IDLE_CONNECTED_TIMEOUT, config=True,
                                   help="Seconds a kernel with an open page may go without a message from that page "
                                        "before it is shut down (0: never).")
    memory_limit = Int(KERNEL_MEMORY_LIMIT, config=True,
                       help="Most resident memory (RSS, bytes) of a visitor's kernel; over it, it is shut down "
                            "(0: none).")
    memory_check_interval = Float(2, config=True, help="Seconds between samples of the visitor kernels' memory.")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._seen_by_culler = set()
        self._visitor_kernels = set()
        self._admitted = 0  # admitted requests that have no kernel yet
        self._ending = set()  # kernels whose session end_session is ending
        self._memory_watch = None

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
        self.log.info("Kernel %s now serves a visitor (%s visitors)", kernel_id, self.visitors)

    def release(self, slot):
        """The request of ``slot`` is done: free its seat if it never got a kernel."""
        if slot is not None and slot.kernel_id is None:
            slot.kernel_id = ""
            self._admitted -= 1

    async def cull_kernel_if_idle(self, kernel_id):
        """Cull ``kernel_id`` if idle, but never on the first sweep that sees it.

        A kernel with an open page is culled once that page has sent nothing for
        ``idle_connected_timeout`` s (its page then tells its visitor why).
        """
        kernel = self._kernels.get(kernel_id)
        last = getattr(kernel, "drmath_visitor_activity", None)
        if (kernel is not None and last is not None and self.idle_connected_timeout > 0
                and self._kernel_connections.get(kernel_id, 0) > 0):
            idle = (utcnow() - last).total_seconds()
            if idle > self.idle_connected_timeout:
                self.log.warning("Kernel %s: its page sent nothing for %d s: ending its session", kernel_id, idle)
                await self.end_session(kernel_id, "idle")
                return None
        if kernel_id not in self._seen_by_culler:
            self._seen_by_culler.add(kernel_id)
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
            # a page whose websocket closed while its kernel was shutting down left its channels buffering
            for stream in self._kernel_buffers.pop(kernel_id, {}).get("channels", {}).values():
                if not stream.closed():
                    stream.close()
            _trim_heap()

    async def end_session(self, kernel_id, reason):
        """End a visitor's session: close its page's websockets with ``reason``'s code, then shut its kernel down.

        Parameters
        ----------
        kernel_id : str
            The kernel.
        reason : str
            A key of :data:`SESSION_END` (``"idle"``, ``"memory"``, ``"too-large"``, ``"dead"``); the
            page shows the matching notice.

        Returns
        -------
        None
            Once the kernel is shut down (at once: ``now=True``).
        """
        if reason not in SESSION_END:
            raise ValueError(f"reason = {reason!r}: must be one of {sorted(SESSION_END)}")
        if kernel_id in self._ending:
            return
        self._ending.add(kernel_id)
        self._drop_dead_pooled()  # a pooled kernel that died leaves the pool now, and the pool refills
        try:
            code, text = SESSION_END[reason]
            for connection in list(_CONNECTIONS.get(kernel_id, ())):
                connection.end(code, text)
            if kernel_id in self:
                await self.shutdown_kernel(kernel_id, now=True)
        except Exception:  # noqa: BLE001 - logged; it may have gone meanwhile
            self.log.exception("Could not end the session of kernel %s", kernel_id)
        finally:
            self._ending.discard(kernel_id)

    def _handle_kernel_died(self, kernel_id):
        """A kernel died (the restarter does not restart it: a restarted kernel has lost the page's widgets)."""
        self.log.warning("Kernel %s died: ending its session", kernel_id)
        import asyncio

        asyncio.ensure_future(self.end_session(kernel_id, "dead"))

    def _kernel_alive(self, kernel_id):
        """Whether ``kernel_id`` is managed and its process has not exited (a cheap, synchronous check)."""
        kernel = self._kernels.get(kernel_id)
        if kernel is None or kernel_id in self._ending or getattr(kernel, "execution_state", None) == "dead":
            return False
        provisioner = getattr(kernel, "provisioner", None)
        if provisioner is None or not hasattr(provisioner, "process"):
            return True  # still starting, or a provisioner without a local process: trust it
        process = provisioner.process
        return process is not None and process.poll() is None

    def _drop_dead_pooled(self, notebook_name=None):
        """Take the pooled kernels that died out of the pool (Voilà would hand them to a page) and refill it."""
        pools = getattr(self, "_pools", None) or {}
        for name, pool in list(pools.items()):
            if notebook_name is not None and name != notebook_name:
                continue
            dead = []
            for task in list(pool):
                if not task.done():
                    continue
                try:
                    kernel_id = task.result()["kernel_id"]
                except Exception:  # noqa: BLE001 - a kernel that failed to start
                    kernel_id = None
                if kernel_id is None or not self._kernel_alive(kernel_id):
                    pool.remove(task)
                    dead.append(kernel_id)
            if dead:
                self.log.warning("Dropped dead pooled kernel(s) %s of %s; refilling the pool", dead, name)
                for kernel_id in dead:
                    if kernel_id in self and kernel_id not in self._ending:
                        import asyncio

                        asyncio.ensure_future(self.end_session(kernel_id, "dead"))
                self.fill_if_needed(delay=0, notebook_name=name)

    def initialize_culler(self):
        """Start the culler, and the memory watchdog of visitor kernels."""
        super().initialize_culler()
        if self._memory_watch is None and self.memory_limit > 0 and self.memory_check_interval > 0:
            from tornado.ioloop import PeriodicCallback

            self._memory_watch = PeriodicCallback(self._check_memory, 1000 * self.memory_check_interval)
            self._memory_watch.start()

    async def _check_memory(self):
        """End the session of each visitor kernel whose RSS is over ``memory_limit``."""
        for kernel_id in list(self._visitor_kernels):
            kernel = self._kernels.get(kernel_id)
            rss = _rss(getattr(getattr(kernel, "provisioner", None), "pid", None))
            if rss is not None and rss > self.memory_limit and kernel_id not in self._ending:
                self.log.warning("Kernel %s uses %.0f MB, over the limit of %.0f MB: ending its session",
                                 kernel_id, rss / 1e6, self.memory_limit / 1e6)
                await self.end_session(kernel_id, "memory")


def _trim_heap():
    """Hand the heap memory freed by a finished visit back to the OS (glibc ``malloc_trim``; else nothing)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


# --------------------------------------------------------------------------- session ends (issue 12)
# Why a visitor's session ended -> the websocket close code and reason its page receives; the page's
# notice (drmath/data/voila/templates/drlab/index.html.j2) is chosen by the code. Tornado itself
# closes an oversize message's socket with 1009; the page treats 1009 like 4003.
SESSION_END = {"idle": (4001, "idle"), "memory": (4002, "over the memory limit"),
               "too-large": (4003, "message too large"), "dead": (4004, "kernel died")}
"""Reason a session ended -> ``(websocket close code, close reason)`` sent to its page."""

_CONNECTIONS = {}  # kernel id -> its open kernel-websocket connections (KernelSessionConnection)

_SIZE_UNITS = {"": 1, "b": 1, "kb": units.kilo, "mb": units.mega, "gb": units.giga,  # parse_size reads any case
               "kib": units.kibi, "mib": units.mebi, "gib": units.gibi}


def parse_size(text, field="size"):
    """A size such as ``"250MB"``, ``"1 GiB"`` or ``"1048576"``, in bytes.

    Parameters
    ----------
    text : str or int
        A non-negative number, optionally followed by B, kB, MB, GB (powers of 1000) or
        KiB, MiB, GiB (powers of 1024), any case.
    field : str, default "size"
        The option's name, for the error message.

    Returns
    -------
    size : int
        The size. [B]

    Raises
    ------
    ValueError
        If ``text`` is not such a size.

    Examples
    --------
    >>> parse_size("250MB"), parse_size("1 MiB"), parse_size(4096)
    (250000000, 1048576, 4096)
    >>> parse_size("lots", "--kernel-memory-limit")
    Traceback (most recent call last):
    ...
    ValueError: --kernel-memory-limit = 'lots': must be a size >= 0 such as 512MB, 1GB or 1048576 (bytes)
    """
    import re

    match = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([a-zA-Z]*)\s*", str(text))
    if not match or match.group(2).lower() not in _SIZE_UNITS:
        raise ValueError(f"{field} = {text!r}: must be a size >= 0 such as 512MB, 1GB or 1048576 (bytes)")
    return int(float(match.group(1)) * _SIZE_UNITS[match.group(2).lower()])


def _rss(pid):
    """Resident memory of process ``pid`` [B]; ``None`` if unknown (no pid, the process is gone)."""
    if not pid:
        return None
    try:
        import psutil
    except ImportError:  # Linux without psutil: /proc
        try:
            with open(f"/proc/{int(pid)}/statm") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            return None
    try:
        return psutil.Process(pid).memory_info().rss
    except (psutil.Error, ValueError):
        return None


# --------------------------------------------------------------------------- refill priority (issue 12)
# A pool refill runs the notebook (~1-6 CPU-s) while visitors' kernels answer their pages. It starts
# REFILL_NICENESS nicer than the server (Popen's preexec_fn, so every thread of the kernel inherits it);
# a visitor that takes it from the pool gives it the server's priority back. Giving priority back
# needs root, CAP_SYS_NICE or RLIMIT_NICE >= 20 - niceness; without that, refills run at normal
# priority (as before) rather than leave visitors' kernels niced.


def _lower_priority():
    """In a refill kernel's process, between fork and exec: be :data:`REFILL_NICENESS` nicer."""
    os.nice(REFILL_NICENESS)


def _set_niceness(pid, niceness):
    """Set the niceness of every thread of process ``pid`` (Linux sets it per thread); False if refused."""
    try:
        threads = [int(t) for t in os.listdir(f"/proc/{int(pid)}/task")]
    except (OSError, ValueError):
        threads = [int(pid)]
    allowed = True
    for tid in threads:
        try:
            os.setpriority(os.PRIO_PROCESS, tid, niceness)
        except ProcessLookupError:
            pass  # a thread that ended meanwhile
        except PermissionError:
            allowed = False
    return allowed


@functools.cache
def _can_restore_priority():
    """Whether this process may give a kernel back its own priority: root, CAP_SYS_NICE or RLIMIT_NICE."""
    if not hasattr(os, "setpriority"):
        return False
    if os.geteuid() == 0:
        return True
    import resource

    soft = resource.getrlimit(resource.RLIMIT_NICE)[0]
    if soft == resource.RLIM_INFINITY or soft >= 20 - os.getpriority(os.PRIO_PROCESS, 0):
        return True
    try:
        with open("/proc/self/status") as f:
            caps = next((line.split()[1] for line in f if line.startswith("CapEff:")), "0")
        return bool(int(caps, 16) >> 23 & 1)  # CAP_SYS_NICE
    except (OSError, ValueError):
        return False


def _restore_priority(kernel_manager, kernel_id):
    """A visitor took ``kernel_id`` from the pool: every thread of it gets the server's niceness back."""
    kernel = kernel_manager._kernels.get(kernel_id)
    pid = getattr(getattr(kernel, "provisioner", None), "pid", None)
    if pid and _can_restore_priority() and not _set_niceness(pid, os.getpriority(os.PRIO_PROCESS, 0)):
        kernel_manager.log.warning("Could not restore the CPU priority of kernel %s", kernel_id)


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
                _restore_priority(self, kernel_id)  # issue 12: it was a refill, at a lower priority
                _await_request(self, kernel_id)  # issue 12: recycled if its request never reaches it
                return render_task, rendered_cache, kernel_id

            def fill_if_needed(self, *args, **kwargs):
                # issue 12: refills start nicer than the server, so they never starve a visitor's kernel
                if _can_restore_priority():
                    kwargs.setdefault("preexec_fn", _lower_priority)
                return super().fill_if_needed(*args, **kwargs)

            def get_pool_size(self, notebook_name):
                # the page handler asks this just before taking a pooled kernel: drop the dead ones first
                self._drop_dead_pooled(notebook_name)
                return super().get_pool_size(notebook_name)

        async def start_kernel(self, *args, **kwargs):
            kernel_id = await super().start_kernel(*args, **kwargs)
            if _SLOT.get() is not None:
                self.claim(kernel_id)
            return kernel_id

    CappedKernelManager.__name__ = CappedKernelManager.__qualname__ = "Capped" + manager_class.__name__
    return CappedKernelManager


# --------------------------------------------------------------------------- page requests (issue 12)

TOO_LONG_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>This link is too long</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 36em; margin: 4em auto; color: #222">
<h1 class="drmath-too-long">This link is too long</h1>
<p>It is {length:,} characters long; this workbook reads links of at most {limit:,}. A share link the
workbook makes is far shorter, so this one was probably cut, pasted twice or altered on its way.</p>
<p><a href="{home}">Open the workbook with the default scenario</a>.</p>
</body></html>
"""
"""The HTTP 414 page of a request target over :data:`MAX_URL_LENGTH`."""

_DROPPED = frozenset({"theme", "template"})  # Voilà's page arguments a visitor may not set (see CappedVoilaHandler)


def _without(query, names):
    """``query`` (raw, as sent) without the pairs whose key is in ``names``; the others verbatim."""
    import urllib.parse

    return "&".join(part for part in query.split("&")
                    if part and urllib.parse.unquote_plus(part.split("=", 1)[0]) not in names)


def _link_query(query):
    """``(share-link query of the scenario, notice)`` for a page request's query: the scenario's own
    :func:`~drmath.scenario_io.to_query` (the default's when the link is bad, with the reason)."""
    from .scenario_io import VOILA_PARAMETERS, from_query, to_query

    scenario, notice = from_query(query, ignore=VOILA_PARAMETERS)
    return to_query(scenario), notice


def _render_explainer(query):
    """The standalone explainer (:func:`drmath.report.build_report`) of a share-link query, plotly.js not inlined."""
    from .report import build_report
    from .scenario_io import from_query

    return build_report(from_query(query)[0], include_plotlyjs=False)


class _Explainers:
    """The rendered explainers of the last ``size`` scenarios (LRU), each rendered once, off the event loop.

    ``get(query)`` returns ``render(query)``: from the cache, or from the render already under way
    for that query (a burst of visitors renders it once), or from a new render in a worker thread.
    """

    def __init__(self, render, size=8):
        import collections

        self._render, self._size = render, size
        self._done, self._pending, self._executor = collections.OrderedDict(), {}, None

    async def get(self, query):
        """The document for ``query``."""
        import asyncio

        if query in self._done:
            self._done.move_to_end(query)
            return self._done[query]
        future = self._pending.get(query)
        if future is None:
            if self._executor is None:
                from concurrent.futures import ThreadPoolExecutor

                self._executor = ThreadPoolExecutor(1, thread_name_prefix="drmath-explainer")
            future = asyncio.get_running_loop().run_in_executor(self._executor, self._render, query)
            self._pending[query] = future
            future.add_done_callback(functools.partial(self._finished, query))
        return await asyncio.shield(future)  # a visitor who leaves does not cancel the others' render

    def _finished(self, query, future):
        self._pending.pop(query, None)
        if not future.cancelled() and future.exception() is None:
            self._done[query] = future.result()
            while len(self._done) > self._size:
                self._done.popitem(last=False)


def _busy_page(document, visitors, notice, retry, share, share_text, plotly):
    """The explainer ``document`` with the busy notice on top and plotly.js from ``plotly`` (a URL)."""
    import html

    e = functools.partial(html.escape, quote=True)
    reason = f'<p class="drmath-busy-reason">{e(notice)}</p>' if notice else ""
    box = (f'<div class="drmath-busy" role="status" style="background:#fff4e5;border:2px solid #b35c00;'
           f'border-radius:6px;padding:10px 16px;margin:0 0 16px">'
           f"<p><strong>The live workbook is busy</strong>: every seat is taken right now ({visitors}). "
           f"Below is the same worked answer for your scenario, as a static page. Please try again in a minute: "
           f'<a class="drmath-retry" href="{e(retry)}">open the live workbook</a>.</p>'
           f'<p>Share link of this scenario: <a class="drmath-share" href="{e(share)}">{e(share_text)}</a></p>'
           f"{reason}</div>")
    head = '<link rel="icon" href="data:;base64,=">'  # no /favicon.ico request (as Voilà's page)
    head += f'<script src="{e(plotly)}"></script>' if plotly else ""
    return document.replace("</head>", head + "</head>", 1).replace("<main>", "<main>" + box, 1)


# --------------------------------------------------------------------------- the preview (issue 13)
# While a visitor's kernel starts, the page shows a static preview of the scenario it will open with:
# the dashboard's story, then the report's title and headline cards. The drlab template renders the
# page once per preheated kernel, before any request, so it holds PREVIEW_MARKER where the preview
# goes and CappedVoilaHandler puts the request's own preview there as the page is written. The
# preview is cut from the explainer the busy page uses (the same cache: one render per scenario).

IOPUB_TIMEOUT = 120
"""Longest the server waits for a notebook cell's output after the cell has run, before it gives up on the rest
of that cell's output (nbclient's ``iopub_timeout``, 4 s by default): the app cell's output is the page. [s]"""

PREVIEW_MARKER = "<!--drmath-preview-->"
"""Where the ``drlab`` template's page takes its visitor's preview (:func:`_preview_html`)."""

PREVIEW_WAIT = 1.0
"""Longest a page request waits for its scenario's explainer to be rendered for the preview; past it the
page goes without one (the render goes on, for the next visitor). The default scenario's is rendered when
the server starts. [s]"""

_REPORT_TITLE = re.compile(r"<h1>(.*?)</h1>", re.S)
_REPORT_HEADLINE = re.compile(r'<div class="kpis" id="headline">.*?</div>', re.S)  # its cards hold no <div>
_STORY_CLASS = re.compile(r"\bdrmath-(header|story)\b")


def _preview_html(document, notice=None):
    """The page's preview cut from an explainer ``document`` (:func:`drmath.report.build_report`).

    Parameters
    ----------
    document : str
        The explainer of the visitor's scenario (autoescaped HTML: its text cannot close a tag).
    notice : str, optional
        Why the link's settings were not used (text; escaped here).

    Returns
    -------
    html : str
        The dashboard's story (:data:`drmath.dashboard.STORY`, its classes renamed ``drmath-preview-*`` so
        that they name the live page's only), the report's title, the notice and the
        report's headline cards (``<div class="kpis" id="headline">``, each number a
        ``<span class="num" data-field data-si>`` with the text of ``Plan.format``).

    Raises
    ------
    ValueError
        If ``document`` has no title or no headline cards.

    Examples
    --------
    >>> from drmath.report import build_report
    >>> html = _preview_html(build_report(include_plotlyjs=False), "a <b>bad</b> link")
    >>> from drmath.quantities import CARDS
    >>> html.count('class="num"') == len(CARDS), "a &lt;b&gt;bad&lt;/b&gt; link" in html  # a number per card
    (True, True)
    """
    import html

    from .dashboard import STORY

    title, headline = _REPORT_TITLE.search(document), _REPORT_HEADLINE.search(document)
    if title is None or headline is None:
        raise ValueError("document: the explainer has no <h1> title or no headline cards to preview")
    reason = f'<p class="drmath-preview-notice">{html.escape(notice, quote=True)}</p>' if notice else ""
    story = _STORY_CLASS.sub(r"drmath-preview-\1", STORY)  # the live page's own story keeps its class names
    return (f'{story}<h3 class="drmath-preview-title">{title.group(1)}</h3>{reason}{headline.group(0)}'
            '<p class="drmath-preview-more">The charts, the controls and the derivation of every number come with '
            "the live workbook.</p>")


@functools.cache
def _handler_class():
    """The page handler with the kernel cap (imported late: Voilà is only needed to serve)."""
    import tornado.web
    from voila.tornado.handler import TornadoVoilaHandler

    class CappedVoilaHandler(TornadoVoilaHandler):
        """Voilà's page handler with drmath's limits on a page request.

        - A request target over :data:`MAX_URL_LENGTH` gets a readable HTTP 414 page.
        - ``theme`` and ``template`` arguments are dropped, by a redirect to the same link
          without them (see below), before Voilà reads them.
        - Over the kernel cap, the answer is HTTP 503 with ``Retry-After`` and no kernel starts: a
          browser gets the static explainer of its scenario with a notice on top (a retry link and
          the scenario's share link), any other client :data:`BUSY_TEXT`.
        - A page that takes a kernel gets its scenario's preview (:func:`_preview_html`) at the
          template's :data:`PREVIEW_MARKER`, shown until the live workbook has drawn itself.

        Why a redirect for ``theme``/``template``: Voilà writes the theme unescaped into the
        page (script injection), switches to any installed template (the stock one loads a CDN;
        a missing one starts a kernel and never answers), and either one makes it start a fresh
        kernel past the preheated pool. Our links never carry them; a link that does still opens
        the workbook, at a clean address that a share link copies, and the request that carried
        them starts nothing.
        """

        explainers = _Explainers(_render_explainer)
        _preview = None  # this request's preview, until the page's first chunk takes it (see write)

        @tornado.web.authenticated
        async def get(self, path=None):
            # Voilà's page posts a tab-close shutdown beacon with the _xsrf cookie's token, but Voilà
            # 0.5 never sets that cookie (voila#1458): the beacon got a 403, which a page still alive
            # logs as a console error. Reading the token sets the cookie, so the beacon goes through.
            self.xsrf_token  # noqa: B018 - read for its side effect: the _xsrf cookie
            if len(self.request.uri) > MAX_URL_LENGTH:
                return self._too_long()
            km = self.kernel_manager
            if self.notebook_path and path:
                return await super().get(path)  # a redirect to a file: takes no kernel
            if _DROPPED.intersection(self.request.query_arguments):
                kept = _without(self.request.query, _DROPPED)
                return self.redirect(self.base_url + ("?" + kept if kept else ""))
            if not hasattr(km, "admit"):
                self._preview = await self._page_preview()
                return await super().get(path)
            slot = km.admit()
            if slot is None:
                return await self._busy(km.visitors)
            token = _SLOT.set(slot)
            try:
                self._preview = await self._page_preview()
                return await super().get(path)
            finally:
                _SLOT.reset(token)
                km.release(slot)

        async def _page_preview(self):
            """The preview of this request's scenario; "" when it is not rendered within :data:`PREVIEW_WAIT`."""
            import asyncio

            try:
                query, notice = _link_query(self.request.query)
                document = await asyncio.wait_for(self.explainers.get(query), PREVIEW_WAIT)
                return _preview_html(document, notice)
            except TimeoutError:
                self.log.info("The preview of %r was not ready in %g s: the page goes without it", query, PREVIEW_WAIT)
            except Exception:  # noqa: BLE001 - logged; the page still comes, with its progress bar only
                self.log.exception("Could not render the preview")
            return ""

        def write(self, chunk):
            # the template renders before the request (preheated kernels): its marker takes this request's preview
            if self._preview is not None and isinstance(chunk, str) and PREVIEW_MARKER in chunk:
                chunk, self._preview = chunk.replace(PREVIEW_MARKER, self._preview, 1), None
            return super().write(chunk)

        def _too_long(self):
            import html

            self.log.warning("A %d-byte request target: answering 414", len(self.request.uri))
            self.set_status(414)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.set_header("Cache-Control", "no-store")
            self.finish(TOO_LONG_HTML.format(length=len(self.request.uri), limit=MAX_URL_LENGTH,
                                             home=html.escape(self.base_url, quote=True)))

        async def _busy(self, visitors):
            self.log.warning("Kernel cap reached (%s visitors): answering 503 busy", visitors)
            visitors = f"{visitors} visitor{'' if visitors == 1 else 's'}"
            self.set_status(503)
            self.set_header("Retry-After", str(RETRY_AFTER))
            self.set_header("Cache-Control", "no-store")
            if "text/html" not in self.request.headers.get("Accept", ""):
                self.set_header("Content-Type", "text/plain; charset=utf-8")
                return self.finish(BUSY_TEXT.format(visitors=visitors, retry=RETRY_AFTER))
            self.set_header("Content-Type", "text/html; charset=utf-8")
            try:
                query, notice = _link_query(self.request.query)
                document = await self.explainers.get(query)
            except Exception:  # noqa: BLE001 - logged; the visitor still gets the plain busy page
                self.log.exception("Could not render the explainer for the busy page")
                return self.finish(BUSY_HTML.format(visitors=visitors))
            share = self.base_url + ("?" + query if query else "")
            retry = self.base_url + ("?" + self.request.query if self.request.query else "")
            plotly = (self.voila_configuration.resources or {}).get("drmath_plotly")
            self.finish(_busy_page(document, visitors, notice, retry, share,
                                   f"{self.request.protocol}://{self.request.host}{share}",
                                   plotly and self.base_url + plotly))

    return CappedVoilaHandler


HIDDEN_ERROR = "An error occurred in the workbook's kernel; it was logged on the server."
"""What a visitor sees instead of an error's name, value and traceback."""


@functools.cache
def _websocket_handler_class():
    """Voilà's kernel websocket, with session ends and without tracebacks (imported late, like Voilà)."""
    import re

    from jupyter_client.session import DELIM
    from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
    from tornado.ioloop import IOLoop
    from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

    ansi = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

    class KernelSessionConnection(ZMQChannelsWebsocketConnection):
        """A page's kernel connection: records the page's activity, keeps tracebacks on the server, can be ended."""

        def connect(self):
            self.kernel_manager.drmath_visitor_activity = utcnow()  # connecting is activity
            _CONNECTIONS.setdefault(self.kernel_id, set()).add(self)
            return super().connect()

        def disconnect(self):
            mine = _CONNECTIONS.get(self.kernel_id)
            if mine is not None:
                mine.discard(self)
                if not mine:
                    _CONNECTIONS.pop(self.kernel_id, None)
            return super().disconnect()

        def end(self, code, reason):
            """Close the page's websocket with ``code`` (see SESSION_END), which its page turns into a notice."""
            handler = self.websocket_handler
            if handler is not None and handler.ws_connection is not None:
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

        def _without_tracebacks(self, channel, msg_list):
            """``msg_list`` (a signed ZMQ message) with no traceback or error text for the page; ``None``: drop it.

            The kernel's stderr (where ipykernel's comm manager prints the traceback of an
            exception in a widget's message handler) is logged here and not sent; an
            ``error`` message (ipywidgets shows a callback's exception that way) and an
            error reply keep their place but carry :data:`HIDDEN_ERROR` only.
            """
            if channel not in ("iopub", "shell", "control"):
                return msg_list
            try:
                idents, parts = self.session.feed_identities(msg_list)
                msg_type = self.session.unpack(parts[1]).get("msg_type", "")
                if not (msg_type in ("stream", "error") or msg_type.endswith("_reply")):
                    return msg_list
                content = self.session.unpack(parts[4])
            except Exception:  # noqa: BLE001 - not a message we can read: the base class deals with it
                return msg_list
            if msg_type == "stream":
                if content.get("name") != "stderr":
                    return msg_list
                self.log.warning("Kernel %s stderr (not sent to its page):\n%s", self.kernel_id,
                                 ansi.sub("", str(content.get("text", ""))).rstrip())
                return None
            if msg_type != "error" and content.get("status") != "error":
                return msg_list
            self.log.error("Kernel %s %s (not sent to its page): %s: %s\n%s", self.kernel_id, msg_type,
                           content.get("ename"), content.get("evalue"),
                           ansi.sub("", "\n".join(map(str, content.get("traceback") or []))))
            content = {**content, "ename": "Error", "evalue": HIDDEN_ERROR, "traceback": [HIDDEN_ERROR]}
            parts = list(parts)
            parts[4] = self.session.pack(content)
            parts[0] = self.session.sign(parts[1:5])
            return [*idents, DELIM, *parts]

    class KernelSessionWebsocketHandler(VoilaKernelWebsocketHandler):
        """Voilà's kernel websocket with :class:`KernelSessionConnection`; an oversize message ends the session.

        Tornado refuses a message over ``websocket_max_message_size`` by closing the
        socket with code 1009; the kernel of that page is then shut down.
        """

        too_large = False

        @property
        def kernel_websocket_connection_class(self):
            return KernelSessionConnection

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

        def on_close(self):
            kernel_id = getattr(self, "kernel_id", None)
            super().on_close()
            km = self.kernel_manager
            if self.too_large and kernel_id and hasattr(km, "end_session"):
                self.log.warning("Kernel %s: its page sent a message over %d bytes: ending its session",
                                 kernel_id, self.max_message_size)
                IOLoop.current().add_callback(km.end_session, kernel_id, "too-large")

    return KernelSessionWebsocketHandler


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


@functools.cache
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

    ``JUPYTER_PATH`` starts with :data:`TEMPLATE_ROOT` (package data), where Voilà finds the
    template and serves its ``static/`` files. When drmath runs from a checkout that Python would
    not find on its own (not installed), ``PYTHONPATH`` names :data:`ROOT`, so the kernels import
    the same drmath as the server.

    Parameters
    ----------
    environ : mapping, optional
        The base environment; ``os.environ`` when omitted.

    Returns
    -------
    env : dict
        The environment for the Voilà process.

    Examples
    --------
    >>> first = voila_env({})["JUPYTER_PATH"].split(os.pathsep)[0]
    >>> (Path(first) / "voila" / "templates" / "drlab" / "conf.json").is_file()
    True
    """
    import site
    import sysconfig

    env = dict(os.environ if environ is None else environ)
    paths = [str(TEMPLATE_ROOT)]
    if env.get("JUPYTER_PATH"):
        paths.append(env["JUPYTER_PATH"])
    env["JUPYTER_PATH"] = os.pathsep.join(paths)
    installed = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], site.getusersitepackages()}
    if ROOT not in {Path(p).resolve() for p in installed}:
        env.setdefault("PYTHONPATH", str(ROOT))
    return env


def machine_defaults(cores, memory):
    """The preheated pool size and the kernel cap that fit a machine of ``cores`` CPUs and ``memory`` bytes.

    Parameters
    ----------
    cores : int
        CPUs the server may use (at least 1). [1]
    memory : float
        The machine's memory (at least 0.88 GB: the server and two kernels in half of it). [B]

    Returns
    -------
    pool_size : int
        Preheated kernels (``--pool-size``). [1]
    max_kernels : int
        Most kernels alive at once, pool included (``--max-kernels``). [1]

    Raises
    ------
    ValueError
        If ``cores`` is not a whole number >= 1, or ``memory`` cannot hold the server and two kernels.

    Notes
    -----
    A kernel that has run the notebook holds :data:`KERNEL_RSS` (~120 MB RSS) and takes ~1-6 CPU-s
    to start, so CPU bounds how many visitors a burst can serve promptly and memory how many can
    stay. Half of the memory goes to kernels (the rest to the server, :data:`SERVER_RSS`, the OS
    and the page cache)::

        fit         = floor((memory / 2 - SERVER_RSS) / KERNEL_RSS)
        pool_size   = min(cores, 8, max(fit // 4, 1))
        max_kernels = max(min(KERNELS_PER_CORE * cores, fit), pool_size + 1)

    One preheated kernel per core: refilling it costs CPU that visitors' pages want (refills run
    at lower priority, :data:`REFILL_NICENESS`), and a bigger pool only helps a burst that arrives
    faster than the cores can refill it anyway. :data:`KERNELS_PER_CORE` (12) visitors per core
    get their kernels within about a minute when all arrive at once (~5 CPU-s each).

    Examples
    --------
    >>> machine_defaults(2, 24e9)  # the project machine: the CPU sets the cap
    (2, 24)
    >>> machine_defaults(8, 4e9)   # memory sets it: (2 GB - 0.2 GB) / 120 MB
    (3, 15)
    >>> machine_defaults(0, 8e9)
    Traceback (most recent call last):
    ...
    ValueError: cores = 0: must be a whole number of CPUs, at least 1
    """
    import math
    import numbers

    if isinstance(cores, bool) or not isinstance(cores, numbers.Integral) or cores < 1:
        raise ValueError(f"cores = {cores!r}: must be a whole number of CPUs, at least 1")
    least = 2 * (SERVER_RSS + 2 * KERNEL_RSS)
    if isinstance(memory, bool) or not isinstance(memory, numbers.Real):
        raise ValueError(f"memory = {memory!r}: must be a number of bytes, at least {least:g}")
    if not memory >= least:  # NaN too
        raise ValueError(f"memory = {memory:g} B: must be at least {least:g} B (the server and two "
                         f"{KERNEL_RSS / 1e6:g} MB kernels in half of it)")
    fit = math.floor((memory / 2 - SERVER_RSS) / KERNEL_RSS)
    pool_size = min(int(cores), 8, max(fit // 4, 1))
    return pool_size, max(min(KERNELS_PER_CORE * int(cores), fit), pool_size + 1)


def _machine():
    """``(cores, memory [B])`` of this machine: the CPUs this process may run on, and total memory."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        import psutil

        memory = psutil.virtual_memory().total
    except ImportError:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return cores, memory


def voila_argv(port=8866, ip="127.0.0.1", notebook=NOTEBOOK, pool_size=2, cull_interval=60,
               cull_idle_timeout=300, extra=(), max_kernels=MAX_KERNELS,
               idle_connected_timeout=IDLE_CONNECTED_TIMEOUT, kernel_memory_limit=KERNEL_MEMORY_LIMIT,
               max_message_size=MAX_MESSAGE_SIZE):
    """The ``voila`` command line, after ``python -m voila``.

    Parameters
    ----------
    port : int, default 8866
        TCP port.
    ip : str, default "127.0.0.1"
        Interface to bind; loopback by default.
    notebook : path-like
        The app notebook.
    pool_size : int, default 2
        Preheated kernels kept ready. [1]
    cull_interval : float, default 60
        How often idle kernels are looked for. [s]
    cull_idle_timeout : float, default 300
        Idle time after which a kernel with no open connection is shut down. [s]
    extra : sequence of str
        More Voilà options, appended.
    max_kernels : int, default MAX_KERNELS
        Most kernels alive at once, pool included (0: no cap); visitors over it get the busy page. [1]
    idle_connected_timeout : float, default IDLE_CONNECTED_TIMEOUT
        A kernel whose open page sent nothing for this long is shut down (0: never). [s]
    kernel_memory_limit : int, default KERNEL_MEMORY_LIMIT
        A visitor kernel whose RSS goes over this is shut down (0: no limit). [B]
    max_message_size : int, default MAX_MESSAGE_SIZE
        Largest message a page may send over its kernel websocket; a larger one ends its session. [B]

    Returns
    -------
    argv : list of str
        The arguments.

    Examples
    --------
    >>> [a for a in voila_argv(cull_interval=5) if "cull_interval" in a]
    ['--MappingKernelManager.cull_interval=5']
    >>> [a for a in voila_argv() if "iopub" in a]
    ['--VoilaExecutor.iopub_timeout=120']
    """
    from .dashboard import PLOTLY_STATIC

    resources = {"drmath_plotly": PLOTLY_STATIC}
    tornado = {"websocket_compression_options": {}, "websocket_max_message_size": int(max_message_size)}
    return [
        str(notebook), "--no-browser", f"--port={int(port)}", f"--Voila.ip={ip}", "--template=drlab",
        "--VoilaConfiguration.preheat_kernel=True", f"--VoilaConfiguration.default_pool_size={int(pool_size)}",
        f"--MappingKernelManager.cull_interval={cull_interval:g}",
        f"--MappingKernelManager.cull_idle_timeout={cull_idle_timeout:g}",
        "--MappingKernelManager.cull_connected=False",
        "--VoilaConfiguration.multi_kernel_manager_class=drmath.serve.GraceKernelManager",
        f"--GraceKernelManager.max_kernels={int(max_kernels)}",
        f"--GraceKernelManager.idle_connected_timeout={idle_connected_timeout:g}",
        f"--GraceKernelManager.memory_limit={int(kernel_memory_limit)}",
        "--KernelRestarter.restart_limit=0",  # a dead kernel's session ends: a restart would lose its widgets
        # refill the pool after a visit's page has loaded, not while it competes for the CPU
        "--VoilaKernelManager.fill_delay=8",
        # a busy server reads a kernel's output late: after nbclient's default 4 s it skips the rest of the cell's
        # output, and a pooled kernel would serve a page with no app on it (a 1 MB-message flood did this in CI)
        f"--VoilaExecutor.iopub_timeout={IOPUB_TIMEOUT}",
        f"--VoilaConfiguration.resources={resources!r}",
        f"--Voila.tornado_settings={tornado!r}",
        # the page loads only the front-end extensions the dashboard uses (not plotly's 4.8 MB one, nor any other
        # JupyterLab extension installed beside Voilà: jupytext's fails in a Voilà page, RUNTIME-012)
        "--VoilaConfiguration.extension_allowlist=['@jupyter-widgets/jupyterlab-manager', "
        "'@voila-dashboards/widgets-manager8', 'anywidget']",
        # issue 12: a visitor's ?theme= / ?template= never reaches a template (CappedVoilaHandler drops them too)
        "--VoilaConfiguration.allow_theme_override=NO", "--VoilaConfiguration.allow_template_override=NO",
        *extra,
    ]


def _size_arg(field):
    """An argparse ``type`` reading a size (:func:`parse_size`) for option ``field``."""
    def read(text):
        try:
            return parse_size(text, field)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
    return read


def command(argv=None):
    """The Voilà command line and environment for ``python -m drmath.serve`` arguments.

    Parameters
    ----------
    argv : list of str, optional
        ``--port``, ``--ip``, ``--pool-size``, ``--max-kernels``, ``--cull-interval``,
        ``--cull-idle-timeout``, ``--notebook``, ``--idle-connected-timeout``, ``--kernel-memory-limit``,
        ``--max-message-size``; anything else is passed to Voilà.

    Returns
    -------
    argv : list of str
        The full command, starting with this Python; it runs :func:`voila_main`.
    env : dict
        The environment to run it in.

    Examples
    --------
    >>> cmd, env = command(["--port", "9000", "--cull-idle-timeout", "10"])
    >>> "--port=9000" in cmd, "--MappingKernelManager.cull_idle_timeout=10" in cmd
    (True, True)
    >>> "--GraceKernelManager.max_kernels=5" in command(["--max-kernels", "5"])[0]
    True

    ``--pool-size`` and ``--max-kernels`` default to :func:`machine_defaults` of this machine's
    cores and memory; one given alone bounds the other:

    >>> "--VoilaConfiguration.default_pool_size=1" in command(["--max-kernels", "2"])[0]
    True
    >>> "--GraceKernelManager.memory_limit=250000000" in command(["--kernel-memory-limit", "250MB"])[0]
    True
    """
    parser = argparse.ArgumentParser(prog="python -m drmath.serve", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8866, help="TCP port (default 8866)")
    parser.add_argument("--ip", default="127.0.0.1", help="interface to bind (default loopback)")
    try:  # issue 12: the defaults fit this machine (machine_defaults)
        pool, cap = machine_defaults(*_machine())
        small = None
    except ValueError as err:  # a machine too small for the rule: the options must say
        pool, cap, small = "?", "?", err
    parser.add_argument("--pool-size", type=int, default=None,
                        help=f"preheated kernels (default: one per core, at most 8: {pool} here)")
    parser.add_argument("--max-kernels", type=int, default=None,
                        help=f"most kernels alive at once, pool included; visitors over it get a 503 busy page "
                             f"(default: 12 per core, within half the memory at 120 MB each: {cap} here; 0: no cap)")
    parser.add_argument("--cull-interval", type=float, default=60, help="seconds between cull sweeps")
    parser.add_argument("--cull-idle-timeout", type=float, default=300,
                        help="seconds before an idle, unconnected kernel is shut down")
    parser.add_argument("--notebook", default=str(NOTEBOOK), help="the app notebook")
    parser.add_argument("--idle-connected-timeout", type=float, default=IDLE_CONNECTED_TIMEOUT,
                        help=f"seconds an open page may send nothing before its kernel is shut down and the page says "
                             f"so (default {IDLE_CONNECTED_TIMEOUT}; 0: never)")
    parser.add_argument("--kernel-memory-limit", type=_size_arg("--kernel-memory-limit"), default=KERNEL_MEMORY_LIMIT,
                        help="most RSS of a visitor's kernel, e.g. 1GB; over it the session ends "
                             "(default 1GB; 0: none)")
    parser.add_argument("--max-message-size", type=_size_arg("--max-message-size"), default=MAX_MESSAGE_SIZE,
                        help="largest message a page may send its kernel, e.g. 1MiB; a larger one ends the session "
                             "(default 1MiB)")
    args, extra = parser.parse_known_args(argv)
    if args.idle_connected_timeout < 0:
        parser.error(f"--idle-connected-timeout = {args.idle_connected_timeout:g}: must be >= 0 s (0: never)")
    if args.max_message_size < 1024:
        parser.error(f"--max-message-size = {args.max_message_size}: must be >= 1024 B (a page's messages need it)")
    # issue 12: what is not given fits the machine, and the other option
    if small is not None and (args.pool_size is None or args.max_kernels is None):
        parser.error(f"{small}: give --pool-size and --max-kernels")
    if args.pool_size is None:
        args.pool_size = pool if args.max_kernels in (None, 0) else max(min(pool, args.max_kernels - 1), 0)
    if args.max_kernels is None:
        args.max_kernels = max(cap, args.pool_size + 1)
    if args.max_kernels < 0 or 0 < args.max_kernels <= max(args.pool_size, 0):
        parser.error(f"--max-kernels must be 0 (no cap) or more than --pool-size ({args.pool_size})")
    # -W: the dict/list options use traitlets' older (still supported) syntax
    cmd = [sys.executable, "-W", "ignore::DeprecationWarning", "-c",
           "import sys; from drmath.serve import voila_main; voila_main(sys.argv[1:])",
           *voila_argv(args.port, args.ip, args.notebook, args.pool_size, args.cull_interval,
                       args.cull_idle_timeout, extra, max_kernels=args.max_kernels,
                       idle_connected_timeout=args.idle_connected_timeout,
                       kernel_memory_limit=args.kernel_memory_limit, max_message_size=args.max_message_size)]
    return cmd, voila_env()


def voila_main(argv=None):
    """Run Voilà (``python -m voila``) with drmath's kernel cap: the process :func:`main` becomes.

    Voilà's kernel manager is built on :class:`GraceKernelManager` (the command line
    says so) and then counted by a thin subclass; its page handler is replaced by
    :class:`CappedVoilaHandler`. Every other handler, and every option, is Voilà's.

    Parameters
    ----------
    argv : list of str, optional
        Voilà's command line (see :func:`voila_argv`); ``sys.argv[1:]`` when omitted.

    Returns
    -------
    None
        It returns when Voilà stops.

    Examples
    --------
    :func:`command` runs it in a fresh Python, with the arguments that follow:

    >>> command(["--port", "9000"])[0][4]
    'import sys; from drmath.serve import voila_main; voila_main(sys.argv[1:])'
    """
    import voila.app
    from voila.request_info_handler import RequestInfoSocketHandler
    from voila.tornado.handler import TornadoVoilaHandler
    from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

    factory = voila.app.voila_kernel_manager_factory

    def capped_factory(*args, **kwargs):
        return _capped(factory(*args, **kwargs))

    voila.app.voila_kernel_manager_factory = capped_factory
    # Voilà's handler class -> drmath's subclass that replaces it (same URL rule, same arguments)
    replacements = {TornadoVoilaHandler: _handler_class(),
                    RequestInfoSocketHandler: _query_handler_class(),  # the kernel's own request channel only
                    VoilaKernelWebsocketHandler: _websocket_handler_class()}  # session ends, no tracebacks

    class Voila(voila.app.Voila):  # same name, so the log reads as before
        def init_handlers(self):
            return [(rule[0], replacements[rule[1]], *rule[2:]) if len(rule) > 1 and rule[1] in replacements
                    else rule for rule in super().init_handlers()]

        def listen(self):
            # issue 12: tornado closes a request over 64 KiB with no answer; let it read up to MAX_HEADER_SIZE
            # so that CappedVoilaHandler answers a long link (over MAX_URL_LENGTH) with its readable 414 page
            self.app.listen = functools.partial(self.app.listen, max_header_size=MAX_HEADER_SIZE)
            # issue 13: the default scenario's explainer (the page's preview) is rendered before a visitor asks
            from tornado.ioloop import IOLoop

            IOLoop.current().add_callback(_handler_class().explainers.get, _link_query("")[0])
            return super().listen()

    Voila.launch_instance(sys.argv[1:] if argv is None else list(argv))


def main(argv=None):
    """Run Voilà on the dashboard: this process becomes Voilà (see :func:`command`).

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    None
        It does not return.

    Examples
    --------
    ``python -m drmath.serve --max-kernels 4 --pool-size 1`` becomes Voilà with a pool of one
    and a cap of four kernels:

    >>> [a for a in command(["--max-kernels", "4", "--pool-size", "1"])[0] if "max_kernels" in a or "pool_size" in a]
    ['--VoilaConfiguration.default_pool_size=1', '--GraceKernelManager.max_kernels=4']
    """
    cmd, env = command(argv)
    sys.stdout.flush()
    os.chdir(ROOT)
    os.execve(sys.executable, cmd, env)


if __name__ == "__main__":
    main()
