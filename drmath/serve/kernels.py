"""The visitors' kernels: the seat count, the preheated pool, culling, and the watchdog that bounds each one.

:class:`GraceKernelManager` is the base of Voilà's kernel manager (the command line names it);
:func:`capped` subclasses the manager Voilà builds on it with :class:`CappedMixin`, so that the kernels
visitors take are counted against the cap. The watchdog (:meth:`GraceKernelManager.watch`, every
``watch_interval`` s) ends a visitor's session when its kernel goes over ``memory_limit`` or over
``cpu_budget`` CPU-seconds in any ``cpu_window``, shuts down a kernel whose page never opened its
websocket within ``connect_timeout`` (a bot, a cross-site ``<img>``: its seat comes back), and one whose
page has gone while it is still busy, after ``disconnect_grace`` (issue 19).

The memory and CPU limits are watched from a thread of the server's own (issue 32), not from the event loop:
while frames held the loop (120 frames of 130,000 buffers on stdin: 33 CPU-s of the server's), a kernel grew to
1,057 MB against its 1,000 MB limit unseen. The thread samples each visitor kernel every ``watch_interval`` s
and kills one over a limit at once (SIGKILL, which needs no loop); the page is told why
(``SESSION_END["memory"]`` or ``["cpu"]``) as soon as the loop runs again.

Past the preheated pool, a visitor's kernel starts at once, beside the others (issue 24): a page takes
only a pooled kernel that has started (:meth:`CappedMixin.get_pool_size`), never a refill still waiting
out Voilà's ``fill_delay``, so a burst no longer queues behind one refill at a time; at most
``max_starting`` kernels start at once (:meth:`GraceKernelManager.start_kernel`), and the log says when
each start begins and ends.
"""

import asyncio
import collections
import contextlib
import contextvars
import functools
import os
import threading
import time
import uuid

from jupyter_server._tz import utcnow
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets import Float, Int

from . import settings
from .sessions import CONNECTIONS, SESSION_END

__all__ = ["SLOT", "Slot", "GraceKernelManager", "CappedMixin", "capped"]

SLOT = contextvars.ContextVar("drmath_kernel_slot", default=None)
"""The admission slot of the visitor request being served (see :mod:`drmath.serve.pages`)."""


class Slot:
    """One admitted visitor request; holds its kernel id once it has one."""

    __slots__ = ("kernel_id",)

    def __init__(self):
        self.kernel_id = None


def _process(kernel):
    """The ``psutil.Process`` of a kernel (None when unknown or gone)."""
    import psutil

    pid = getattr(getattr(kernel, "provisioner", None), "pid", None)
    if not pid:
        return None
    try:
        return psutil.Process(pid)
    except (psutil.Error, ValueError):
        return None


def _usage(kernel):
    """``(RSS [B], CPU time [s])`` of a kernel's process, its children included; ``(None, None)`` if gone."""
    import psutil

    process = _process(kernel)
    try:
        times = process.cpu_times()
        return process.memory_info().rss, times.user + times.system + times.children_user + times.children_system
    except (AttributeError, psutil.Error):
        return None, None


def trim_heap():
    """Hand the heap memory freed by a finished visit back to the OS (glibc ``malloc_trim``; else nothing)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class GraceKernelManager(AsyncMappingKernelManager):
    """A kernel manager that counts visitors' seats and bounds what each visitor's kernel may spend.

    A pooled kernel's last activity is when it ran the notebook, possibly long ago. Voilà protects
    it from the culler while it sits in the pool, but once a page takes it, it looks idle and
    unconnected until the page's websocket opens, so a cull sweep in that window would kill it.
    This manager treats the first sweep that sees a kernel outside the pool as activity: it is
    culled only after a full ``cull_idle_timeout`` with no connection after that.

    Examples
    --------
    ``max_kernels`` (0: no cap) bounds the kernels alive at once, preheated pool included, so at most
    ``max_kernels - pool size`` visitors hold a kernel. :meth:`admit` reserves a seat for a request
    before any kernel is taken or started; :meth:`claim` turns the seat into that request's kernel; the
    seat is free again when the kernel is shut down.

    >>> manager = GraceKernelManager(max_kernels=3)  # no preheated pool here: three visitor seats
    >>> [manager.admit() is not None for _ in range(4)], manager.visitors
    ([True, True, True, False], 3)

    It ends a visitor's session, closing the page's websocket with a code its page explains
    (:data:`~drmath.serve.sessions.SESSION_END`), when the page sends nothing for
    ``idle_connected_timeout`` s, when the kernel's RSS goes over ``memory_limit`` or its CPU time over
    ``cpu_budget`` in a ``cpu_window``, when the page sends an oversize or malformed message or queues
    too many, when the kernel dies, or when it is shut down from anywhere:

    >>> GraceKernelManager(idle_connected_timeout=60).idle_connected_timeout
    60.0
    """

    max_kernels = Int(0, config=True, help="Most kernels alive at once, the preheated pool included; 0: no cap.")
    request_timeout = Float(settings.REQUEST_TIMEOUT, config=True,
                            help="Seconds a pooled kernel taken by a page may wait for that page's request "
                                 "before it is shut down (0: forever).")
    idle_connected_timeout = Float(settings.IDLE_CONNECTED_TIMEOUT, config=True,
                                   help="Seconds a kernel with an open page may go without a message from that page "
                                        "before it is shut down (0: never).")
    memory_limit = Int(settings.KERNEL_MEMORY_LIMIT, config=True,
                       help="Most resident memory (RSS, bytes) of a visitor's kernel; over it, it is shut down "
                            "(0: none).")
    cpu_budget = Float(settings.KERNEL_CPU_BUDGET, config=True,
                       help="Most CPU-seconds a visitor's kernel may use in any cpu_window; over it, its session "
                            "ends (0: no budget).")
    cpu_window = Float(settings.CPU_WINDOW, config=True, help="The window of cpu_budget, in seconds.")
    connect_timeout = Float(settings.CONNECT_TIMEOUT, config=True,
                            help="Seconds a kernel a page took may wait for that page's websocket before it is "
                                 "shut down and its seat freed (0: forever).")
    disconnect_grace = Float(settings.DISCONNECT_GRACE, config=True,
                             help="Seconds a busy visitor kernel may run on after its page's websocket closed "
                                  "(0: until culled).")
    watch_interval = Float(2, config=True, help="Seconds between the watchdog's looks at the visitor kernels.")
    max_starting = Int(0, config=True,
                       help="Most kernels starting at once (process start until it answers kernel_info); the "
                            "others wait their turn (0: no bound).")
    ready_timeout = Float(settings.READY_TIMEOUT, config=True,
                          help="Longest a kernel's start waits for its kernel_info reply before it counts as done.")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._seen_by_culler = set()
        self._visitor_kernels = {}  # kernel id -> when a visitor took it [time.monotonic()]
        self._cpu = {}  # kernel id -> deque of (time [s], CPU time [s]) samples, the window's worth
        self._admitted = 0  # admitted requests that have no kernel yet
        self._ending = set()  # kernels whose session end_session is ending
        self._watchdog = None
        self._usage_watch = None  # the thread that watches memory and CPU (issue 32)
        self._stop_usage_watch = threading.Event()
        self._killed = {}  # kernel id -> the reason the usage watch killed it (a key of SESSION_END)
        self._starting = 0  # kernels between their start and their kernel_info reply
        self._start_gate = None  # the asyncio.Semaphore of max_starting, made on first use

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
        return Slot()

    def claim(self, kernel_id):
        """Record ``kernel_id`` as the kernel of the request being served (if any)."""
        slot = SLOT.get()
        if slot is not None and slot.kernel_id is None:
            slot.kernel_id = kernel_id
            self._admitted -= 1
        self._visitor_kernels[kernel_id] = time.monotonic()
        self._cpu.pop(kernel_id, None)  # its budget counts from now, not from the pool's run of the notebook
        self.log.info("Kernel %s now serves a visitor (%s visitors)", kernel_id, self.visitors)

    def release(self, slot):
        """The request of ``slot`` is done: free its seat if it never got a kernel."""
        if slot is not None and slot.kernel_id is None:
            slot.kernel_id = ""
            self._admitted -= 1

    async def start_kernel(self, *args, kernel_id=None, **kwargs):
        """Start a kernel, at most ``max_starting`` at once; returns once it answers ``kernel_info``.

        Every start, a visitor's or a pool refill's, logs when it begins (with how many are starting) and
        when it ends, with its kernel id: a burst's starts overlap in the log, up to ``max_starting``.
        """
        if self.max_starting > 0 and self._start_gate is None:
            self._start_gate = asyncio.Semaphore(self.max_starting)
        kernel_id = kernel_id or str(uuid.uuid4())
        asked = time.monotonic()
        async with self._start_gate or contextlib.nullcontext():
            self._starting += 1
            began = time.monotonic()
            self.log.info("Kernel %s start begins (%d starting, waited %.2f s)", kernel_id, self._starting,
                          began - asked)
            try:
                kernel_id = await super().start_kernel(*args, kernel_id=kernel_id, **kwargs)
                await self._until_ready(kernel_id)
            finally:
                self._starting -= 1
            self.log.info("Kernel %s start ends after %.2f s (%d starting)", kernel_id, time.monotonic() - began,
                          self._starting)
        return kernel_id

    async def _until_ready(self, kernel_id):
        """Wait until ``kernel_id`` answers ``kernel_info`` (its Python and ipykernel are loaded)."""
        client = self.get_kernel(kernel_id).client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=self.ready_timeout)
        except Exception as err:  # noqa: BLE001 - the page's executor meets the same kernel and reports it
            self.log.warning("Kernel %s did not answer kernel_info: %s", kernel_id, err)
        finally:
            client.stop_channels()

    async def cull_kernel_if_idle(self, kernel_id):
        """Cull ``kernel_id`` if idle, but never on the first sweep that sees it.

        A kernel with an open page is culled once that page has sent nothing for
        ``idle_connected_timeout`` s (its page then tells its visitor why).
        """
        kernel = self._kernels.get(kernel_id)
        last = getattr(kernel, "drmath_visitor_activity", None)
        if (kernel is not None and last is not None and self.idle_connected_timeout > 0
                and CONNECTIONS.get(kernel_id)):
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
        """Shut ``kernel_id`` down; a page still open on it is told at once (``SESSION_END["shutdown"]``)."""
        code, text = SESSION_END["shutdown"]
        for connection in list(CONNECTIONS.get(kernel_id, ())):
            connection.end(code, text)  # a no-op for a socket end_session has already closed with its reason
        self._seen_by_culler.discard(kernel_id)
        self._visitor_kernels.pop(kernel_id, None)
        self._cpu.pop(kernel_id, None)
        self._killed.pop(kernel_id, None)
        try:
            return await super().shutdown_kernel(kernel_id, *args, **kwargs)
        finally:
            # a page whose websocket closed while its kernel was shutting down left its channels buffering
            for stream in self._kernel_buffers.pop(kernel_id, {}).get("channels", {}).values():
                if not stream.closed():
                    stream.close()
            trim_heap()

    async def end_session(self, kernel_id, reason):
        """End a visitor's session: close its page's websockets with ``reason``'s code, then shut its kernel down.

        Parameters
        ----------
        kernel_id : str
            The kernel.
        reason : str
            A key of :data:`~drmath.serve.sessions.SESSION_END` (``"idle"``, ``"memory"``, ``"cpu"``, …); the
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
            for connection in list(CONNECTIONS.get(kernel_id, ())):
                connection.end(code, text)
            if kernel_id in self:
                await self.shutdown_kernel(kernel_id, now=True)
        except Exception:  # noqa: BLE001 - logged; it may have gone meanwhile
            self.log.exception("Could not end the session of kernel %s", kernel_id)
        finally:
            self._ending.discard(kernel_id)

    def _handle_kernel_died(self, kernel_id):
        """A kernel died (the restarter does not restart it: a restarted kernel has lost the page's widgets)."""
        reason = self._killed.pop(kernel_id, "dead")  # or the usage watch killed it, and its page hears why
        self.log.warning("Kernel %s died: ending its session", kernel_id)
        asyncio.ensure_future(self.end_session(kernel_id, reason))

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
                        asyncio.ensure_future(self.end_session(kernel_id, "dead"))
                self.fill_if_needed(delay=0, notebook_name=name)

    def initialize_culler(self):
        """Start the culler, and the watchdog of visitor kernels: their pages on the loop, their memory and CPU in a
        thread (:meth:`watch_usage`)."""
        super().initialize_culler()
        if self._watchdog is None and self.watch_interval > 0:
            from tornado.ioloop import IOLoop, PeriodicCallback

            self._watchdog = PeriodicCallback(self.watch, 1000 * self.watch_interval)
            self._watchdog.start()
            loop = IOLoop.current()
            self._usage_watch = threading.Thread(target=self.watch_usage, args=(loop,), daemon=True,
                                                 name="drmath-kernel-usage-watch")
            self._usage_watch.start()

    def stop_watchdog(self):
        """Stop the watchdog: the loop's and the usage thread (which ends within ``watch_interval`` s)."""
        if self._watchdog is not None:
            self._watchdog.stop()
        self._stop_usage_watch.set()

    def watch_usage(self, loop):
        """Every ``watch_interval`` s until :meth:`stop_watchdog`, in a thread: kill each visitor kernel over its
        memory limit or CPU budget, and have ``loop`` (a tornado ``IOLoop``) end its session once it can.

        The kill needs no event loop, so a loop held by a page's frames or a slow render cannot starve it; only the
        page's notice waits for the loop. The samples are ``psutil`` reads of each kernel's process (RSS and CPU times:
        0.05 ms a kernel, measured).
        """
        while not self._stop_usage_watch.wait(self.watch_interval):
            now = time.monotonic()
            for kernel_id in list(self._visitor_kernels):
                kernel = self._kernels.get(kernel_id)
                if kernel is None or kernel_id in self._ending or kernel_id in self._killed:
                    continue
                rss, cpu = _usage(kernel)
                used = None if cpu is None else self._over_cpu_budget(kernel_id, cpu, now)
                reason = self._over_limits(kernel_id, rss, used)
                if reason is not None:
                    self._kill(kernel_id, kernel, reason, loop)

    def _kill(self, kernel_id, kernel, reason, loop):
        """Kill ``kernel_id``'s process now (from the usage thread) and end its session on ``loop``."""
        import psutil

        self._killed[kernel_id] = reason
        process = _process(kernel)
        try:
            if process is not None:
                for child in process.children(recursive=True):
                    child.kill()
                process.kill()
        except psutil.Error:
            pass  # gone already
        loop.add_callback(self.end_session, kernel_id, reason)

    def _over_cpu_budget(self, kernel_id, cpu, now):
        """Record a CPU sample of ``kernel_id``; the CPU-seconds it used in the last ``cpu_window`` if over budget."""
        samples = self._cpu.setdefault(kernel_id, collections.deque())
        samples.append((now, cpu))
        while len(samples) > 1 and samples[1][0] <= now - self.cpu_window:
            samples.popleft()  # keep one sample at or before the window's start
        used = cpu - samples[0][1]
        return used if self.cpu_budget > 0 and used > self.cpu_budget else None

    async def watch(self):
        """Look at every visitor kernel's page once (see the class docstring; memory and CPU: :meth:`watch_usage`)."""
        now = time.monotonic()
        for kernel_id, claimed in list(self._visitor_kernels.items()):
            kernel = self._kernels.get(kernel_id)
            if kernel is None or kernel_id in self._ending:
                continue
            reason = self._verdict(kernel_id, kernel, claimed, now)
            if reason == "unclaimed":
                await self.shutdown_kernel(kernel_id, now=True)
            elif reason is not None:
                await self.end_session(kernel_id, reason)

    def _over_limits(self, kernel_id, rss, used):
        """``"memory"`` or ``"cpu"`` if a kernel of RSS ``rss`` [B] that used ``used`` CPU-s (None: within budget)
        in the last ``cpu_window`` is over a limit, else None."""
        if self.memory_limit > 0 and rss is not None and rss > self.memory_limit:
            self.log.warning("Kernel %s uses %.0f MB, over the limit of %.0f MB: ending its session",
                             kernel_id, rss / 1e6, self.memory_limit / 1e6)
            return "memory"
        if used is not None:
            self.log.warning("Kernel %s used %.1f CPU-s in %g s, over its budget of %g: ending its session",
                             kernel_id, used, self.cpu_window, self.cpu_budget)
            return "cpu"
        return None

    def _verdict(self, kernel_id, kernel, claimed, now):
        """Why the watchdog must act on ``kernel_id``'s page now (a key of SESSION_END, or ``"unclaimed"``), or None
        (its memory and CPU are :meth:`watch_usage`'s)."""
        if CONNECTIONS.get(kernel_id):
            return None
        connected = getattr(kernel, "drmath_connected", None)  # when its page's websocket last went [monotonic]
        if connected is None:
            # a page still rendering (a notebook run at the request, output after output) is not a bot: the wait
            # for its websocket counts from its last output, or from the claim if that came later [s]
            activity = getattr(kernel, "last_activity", None)
            waited = now - claimed if activity is None else min(now - claimed, (utcnow() - activity).total_seconds())
            if self.connect_timeout > 0 and waited > self.connect_timeout:
                self.log.warning("Kernel %s: its page never opened its websocket in %g s: freeing its seat",
                                 kernel_id, self.connect_timeout)
                return "unclaimed"
            return None
        if (self.disconnect_grace > 0 and getattr(kernel, "execution_state", None) == "busy"
                and now - connected > self.disconnect_grace):
            self.log.warning("Kernel %s is still busy %g s after its page left: shutting it down",
                             kernel_id, self.disconnect_grace)
            return "shutdown"
        return None


# --------------------------------------------------------------------------- refill priority (issue 12)
# A pool refill runs the notebook (~1-6 CPU-s) while visitors' kernels answer their pages. It starts
# REFILL_NICENESS nicer than the server (Popen's preexec_fn, so every thread of the kernel inherits it);
# a visitor that takes it from the pool gives it the server's priority back. Giving priority back
# needs root, CAP_SYS_NICE or RLIMIT_NICE >= 20 - niceness; without that, refills run at normal
# priority (as before) rather than leave visitors' kernels niced.


def _lower_priority():
    """In a refill kernel's process, between fork and exec: be :data:`~drmath.serve.settings.REFILL_NICENESS`
    nicer."""
    os.nice(settings.REFILL_NICENESS)


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
def can_restore_priority():
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


def restore_priority(kernel_manager, kernel_id):
    """A visitor took ``kernel_id`` from the pool, or its page connected: every thread of it gets the server's
    niceness back."""
    kernel = kernel_manager._kernels.get(kernel_id)
    pid = getattr(getattr(kernel, "provisioner", None), "pid", None)
    if pid and can_restore_priority() and not _set_niceness(pid, os.getpriority(os.PRIO_PROCESS, 0)):
        kernel_manager.log.warning("Could not restore the CPU priority of kernel %s", kernel_id)


class CappedMixin:
    """Counts the kernels visitors take against the cap (mixed into the manager Voilà builds, :func:`capped`).

    A visitor's kernel comes either from the pool (``get_rendered_notebook``) or, with no pool, from
    ``start_kernel`` called by the page handler; the pool's own refills start kernels through the base
    class and are not visitors.
    """

    async def get_rendered_notebook(self, *args, **kwargs):
        from .query import await_request

        render_task, rendered_cache, kernel_id = await super().get_rendered_notebook(*args, **kwargs)
        self.claim(kernel_id)
        restore_priority(self, kernel_id)  # issue 12: it was a refill, at a lower priority
        await_request(self, kernel_id)  # issue 12: recycled if its request never reaches it
        return render_task, rendered_cache, kernel_id

    def fill_if_needed(self, *args, **kwargs):
        # issue 12: refills start nicer than the server, so they never starve a visitor's kernel
        if can_restore_priority():
            kwargs.setdefault("preexec_fn", _lower_priority)
        return super().fill_if_needed(*args, **kwargs)

    def get_pool_size(self, notebook_name):
        """The pooled kernels a page may take now: those started (issue 24), first in the pool.

        The page handler asks this just before it takes ``pool[0]``. Voilà counted the refills still waiting
        out ``fill_delay`` too, so a visitor past the pool waited for one (seconds, at a refill's low priority)
        instead of starting a kernel of its own at once. The dead ones are dropped first.
        """
        self._drop_dead_pooled(notebook_name)
        pool = getattr(self, "_pools", {}).get(notebook_name)
        if not pool:
            return super().get_pool_size(notebook_name)
        pool.sort(key=lambda task: not task.done())  # stable: the started ones first, in their order
        return sum(task.done() for task in pool)

    async def start_kernel(self, *args, **kwargs):
        visitor = SLOT.get() is not None
        if visitor and can_restore_priority():
            # issue 24: the page is static until its kernel is live, so the kernel boots and runs the notebook
            # nicer than the server that sends the static pages; its page's websocket gives it the server's
            # priority back (drmath.serve.websocket), before the visitor can move a control
            kwargs.setdefault("preexec_fn", _lower_priority)
        kernel_id = await super().start_kernel(*args, **kwargs)
        if visitor:
            self.claim(kernel_id)
        return kernel_id


def capped(manager_class):
    """Voilà's kernel manager class (built on :class:`GraceKernelManager`) with :class:`CappedMixin`.

    Voilà builds its manager class at run time (``voila_kernel_manager_factory``), so the mixin is
    applied to whatever it builds; a class not built on :class:`GraceKernelManager` is returned as is.
    """
    if not issubclass(manager_class, GraceKernelManager):
        return manager_class
    return type("Capped" + manager_class.__name__, (CappedMixin, manager_class), {})
