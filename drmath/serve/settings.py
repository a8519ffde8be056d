"""The server's limits and defaults, and the machine sizing that picks the pool and the kernel cap.

Every bound a visitor meets is a named constant here, with its unit; ``python -m drmath.serve --help``
(:mod:`drmath.serve.cli`) lists the ones an operator may change.

    >>> machine_defaults(2, 24e9)
    (2, 24)
"""

import math
import numbers
import os
import re
from pathlib import Path

from .. import _resources, units

__all__ = ["ROOT", "NOTEBOOK", "TEMPLATE_ROOT", "MAX_KERNELS", "KERNEL_RSS", "SERVER_RSS", "KERNELS_PER_CORE",
           "REFILL_NICENESS", "MAX_URL_LENGTH", "MAX_HEADER_SIZE", "RETRY_AFTER", "IDLE_CONNECTED_TIMEOUT",
           "KERNEL_MEMORY_LIMIT", "MAX_MESSAGE_SIZE", "REQUEST_TIMEOUT", "IOPUB_TIMEOUT",
           "KERNEL_CPU_BUDGET", "CPU_WINDOW", "MAX_QUEUED", "MAX_QUEUED_BYTES", "CONNECT_TIMEOUT",
           "DISCONNECT_GRACE", "MAX_DROPPED", "MAX_BUFFERS", "MAX_JSON_BYTES", "MAX_JSON_DEPTH", "MAX_RENDERS",
           "MAX_JSON_CONTAINERS", "MAX_LOG_LINE", "EXPLAINER_CACHE_COUNT",
           "EXPLAINER_CACHE_BYTES", "NOTEBOOK_CACHE_BYTES", "NOTEBOOK_RENDER_TIMEOUT", "SEAT_WAIT", "MAX_SEAT_WAITERS",
           "SEAT_POLL", "HEARTBEAT", "TICKET_MAX_AGE",
           "parse_size",
           "machine_defaults"]

ROOT = Path(__file__).resolve().parent.parent.parent
"""The folder this drmath is imported from (a checkout, or site-packages): the server runs there and the
kernels import the same drmath. No file is read from it; the data files are package data."""

NOTEBOOK = _resources.data_file("dashboard.ipynb")
"""The Voilà app notebook (package data)."""

TEMPLATE_ROOT = _resources.data_dir()
"""The Jupyter data dir holding ``voila/templates/drlab`` (``drmath/data``, package data)."""

MAX_KERNELS = 24
"""Cap on kernels alive at once, the preheated pool included, that :func:`~drmath.serve.cli.voila_argv`
writes unless told: 22 visitors + 2 pooled, about 3.5 GB of kernels; what :func:`machine_defaults` gives the
2-core project machine. ``python -m drmath.serve`` sizes it from the machine it runs on. [1]"""

KERNEL_RSS = 120e6
"""Resident memory of one kernel that has run the notebook (measured: 115-139 MB, docs/deployment.md). [B]"""

SERVER_RSS = 0.2e9
"""Resident memory of the Voilà server itself, with a margin (measured: 115-165 MB). [B]"""

KERNELS_PER_CORE = 12
"""Kernels per core the cap allows: a page's kernel takes ~1-6 CPU-s to start (~5 typical), so a cap's
worth of visitors arriving at once get their kernels within about a minute. [1]"""

REFILL_NICENESS = 19
"""How much nicer (lower CPU priority) than the server a pool refill kernel runs until a visitor claims it, and a
visitor's kernel until its page connects (issue 24). 19, the lowest priority: such a kernel is the one piece of
work no one is looking at yet, while the server sends static pages and relays live ones. In the 50-arrival burst
(``bench/bench_load.py --clients mixed --visitors 50 --browsers 6``, runs minutes apart on a shared 2-core machine)
the in-machine browsers had every static figure at p50 4.6, 4.7, 5.2 and 7.5 s in four runs with 19, and 6.3, 6.4
and 8.4 s in three with 10; the live controls at p50 15, 15, 17 and 20 s against 18, 20 and 21 s. [1]"""

MAX_URL_LENGTH = 32 * 1024
"""Longest page request target (path and query) drmath serves; a longer link gets the readable 414 page.
A real share link is at most ~2,000 characters (``drmath.io.links.MAX_QUERY_LENGTH``). [B]"""

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

IOPUB_TIMEOUT = 120
"""Longest the server waits for a notebook cell's output after the cell has run, before it gives up on the rest
of that cell's output (nbclient's ``iopub_timeout``, 4 s by default): the app cell's output is the page. [s]"""

KERNEL_CPU_BUDGET = 30.0
"""Most CPU time a visitor's kernel may use in any :data:`CPU_WINDOW`; over it, its session ends with a notice
(issue 19). Dragging a slider for a whole minute costs about 15 CPU-s (one plan per ~50 ms, one update in
flight at a time); 1,000 queued "apply the cheapest design" clicks cost 76. [s]"""

CPU_WINDOW = 60.0
"""The sliding window over which :data:`KERNEL_CPU_BUDGET` is counted. [s]"""

MAX_QUEUED = 64
"""Most messages a page may have sent its kernel that the kernel has not finished (its ``idle`` status for
them has not come back). ipywidgets keeps one update per widget in flight and merges the rest, so a real page
has a few; over it, the session ends with a notice (issue 19). [1]"""

MAX_QUEUED_BYTES = 64 * 2**20
"""Most bytes of such unfinished messages a page may have queued at its kernel: 64 of the largest messages
(``MAX_MESSAGE_SIZE``); a real page's are a few kB. [B]"""

CONNECT_TIMEOUT = 30.0
"""How long a kernel a page request took may wait for that page's websocket; a request that never opens one
(a bot, a cross-site ``<img>``) gives its seat back after this (issue 19). [s]"""

DISCONNECT_GRACE = 10.0
"""How long a busy visitor kernel whose page has gone (no websocket) may go on before it is shut down; an idle
one is culled after ``--cull-idle-timeout`` as before, so a page that reconnects finds it (issue 19). [s]"""

MAX_DROPPED = 100
"""Most messages of a type a visitor may not send (``execute_request`` …) that one socket may send: each is
dropped, and past this many the socket is closed. [1]"""

MAX_BUFFERS = 16
"""Most binary buffers in one message a page sends (issue 32). The dashboard's page sends none, and its upload
button one (the file); 130,000 empty ones in a 1 MiB frame cost the server 0.23-0.27 CPU-s. [1]"""

MAX_JSON_BYTES = 64 * 2**10
"""Most bytes of JSON (header, parent header, metadata and content) in one message a page sends (issue 32): the
dashboard's page sends at most 305 (a whole session measured in Chromium); 1 MiB of ``[[],[],…]`` takes
``json.loads`` 50-100 ms, 64 KiB of it 3-6 ms. [B]"""

MAX_JSON_DEPTH = 32
"""Deepest nesting of the JSON of a message a page sends (issue 32): the dashboard's page nests 3 deep. [1]"""

MAX_JSON_CONTAINERS = 1024
"""Most JSON arrays and objects (``[`` and ``{``, counted in strings too) in one message a page sends (issue 32):
the dashboard's page sends at most a handful. Each one the server parses is an object its garbage collector
walks: 60 KiB of ``[[],[],…]`` (20,000 lists) cost the running server 32 ms of CPU per message. [1]"""

MAX_RENDERS = 4
"""Most explainer renders (busy page, preview) queued at once; a request past it gets the plain busy page. [1]"""

EXPLAINER_CACHE_COUNT = 16
"""Most scenarios whose rendered explainer the server keeps (least recently used dropped first): the default,
rendered at start, and the share links visitors opened. [1]"""

EXPLAINER_CACHE_BYTES = 16 * 2**20
"""Most characters of rendered explainers the server keeps (one is about 0.3 M). [B]"""

NOTEBOOK_CACHE_BYTES = 32 * 2**20
"""Most characters of the notebook pages' static renders the server keeps (issue 35, :mod:`drmath.serve.site`):
one per page, each rendered once (the worked answer's is the largest); past it the least recently asked for
goes, and is rendered again when next asked for. [B]"""

NOTEBOOK_RENDER_TIMEOUT = 300
"""Longest one cell of a notebook may run in the static render of its page; past it the render fails (and the
page goes live without a static start). [s]"""

SEAT_WAIT = 600.0
"""Longest a browser's page, already showing its static explainer, waits for a free seat before it stays
static for good (its notice then says so, with a reload link). [s]"""

MAX_SEAT_WAITERS = 200
"""Most pages waiting for a free seat at once; a page past it stays static (with the busy notice). Each is an
open connection and a few kB; a kernel takes ~120 MB, so the seats, not the waiters, bound memory. [1]"""

SEAT_POLL = 0.25
"""How often the first page in line for a seat looks whether one is free. [s]"""

HEARTBEAT = 15.0
"""How often a page waiting for a seat gets a few bytes, so that no proxy closes it as idle (HAProxy's
``timeout server`` is 300 s). [s]"""

TICKET_MAX_AGE = 86400
"""Lifetime of a page's seat ticket cookie (one per page sent static first, :mod:`drmath.serve.sessions`): a
browser drops the tickets of the day's old pages instead of sending them all with every kernel request. [s]"""

MAX_LOG_LINE = 2000
"""Longest log message the server writes; a longer one (a 255 KiB link in an access line) is cut. [B]"""

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
    match = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([a-zA-Z]*)\s*", str(text))
    if not match or match.group(2).lower() not in _SIZE_UNITS:
        raise ValueError(f"{field} = {text!r}: must be a size >= 0 such as 512MB, 1GB or 1048576 (bytes)")
    return int(float(match.group(1)) * _SIZE_UNITS[match.group(2).lower()])


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


def machine():
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


# --------------------------------------------------------------------------- issue 24: the wire, the starts

IMMUTABLE = "public, max-age=31536000, immutable"
"""``Cache-Control`` of a static asset whose URL names its content (a ``?v=`` query or a content hash in
its file name): a browser keeps it a year and never asks again; a new build has a new URL."""

STATIC_MAX_AGE = 3600
"""How long a browser may reuse a static asset whose URL does not name its content (Voilà's numbered
``voila/static/<n>.voila.js`` chunks) before it revalidates it by ``ETag``. [s]"""

GZIP_LEVEL = 6
"""zlib level of the responses compressed as they stream (the page); the static assets are compressed
once, at :data:`GZIP_STATIC_LEVEL`, and the result kept in memory. [1]"""

GZIP_STATIC_LEVEL = 9
"""zlib level of the static assets, compressed once per server and kept (:data:`GZIP_CACHE_BYTES`). [1]"""

GZIP_CACHE_BYTES = 32 * 2**20
"""Most bytes of compressed static assets the server keeps in memory (the whole page's are ~1.6 MB). [B]"""

MIN_GZIP_LENGTH = 1024
"""A response shorter than this is sent as is: the gzip header would eat the gain. [B]"""

READY_TIMEOUT = 60.0
"""Longest a kernel's start waits for its ``kernel_info`` reply before it stops counting against the
kernels starting at once (``--max-starting``); a kernel that slow is reported by the page's executor. [s]"""

STARTING_PER_CORE = 1
"""Kernels that may start at once per core (``--max-starting`` unless told): a start is one busy Python
process (~0.3 CPU-s to its ``kernel_info`` reply), so one per core keeps every core busy, and a burst's
first visitors get their kernels first instead of all of them sharing the CPU until the last is ready. [1]"""

SHUTDOWN_WAIT = 5.0
"""After SIGTERM, longest the server waits for its kernels, its SVG renderer's Chromium and its zygote to shut
down by themselves before it kills what is left (:mod:`drmath.serve.app`): they took 0.7-2.0 s with a live page,
a static one and SVGs being drawn. [s]"""

SHUTDOWN_TIMEOUT = 8.0
"""After SIGTERM, longest the server takes to exit: past it, it kills what runs under it and exits at once,
whatever it waited for (issue 32: Kubernetes, systemd and HAProxy reloads stop a replica with SIGTERM; the
server was to be gone within 10 s). [s]"""

# --------------------------------------------------------------------------- issue 24: the static figures as SVG

SVG_MIN_WIDTH = 200
"""The plot width of the first rung of the SVG ladder (:mod:`drmath.serve.figure_svg`). [px]"""

SVG_STEP = 1.02
"""The ratio of one rung's plot width to the one below: an SVG is stretched at most half of it off (1 %). [1]"""

SVG_RUNGS = 106
"""Rungs on the ladder: plot widths 200 to 1,609 px (a figure wider or narrower is drawn by plotly.js). [1]"""

SVG_WINDOWS = (1920, 1536, 1440, 1400, 1366, 1280)
"""The windows whose figures' SVGs the default scenario's static dashboard gets when the server starts: the
commonest desktop windows, and the architect's 1400 px laptop of issue 22. Any other is drawn when first asked
for. [px]"""

SVG_QUEUE = 64
"""Most figures waiting to be drawn as SVG; past it a page's ask draws nothing more (its page draws with
plotly.js). [1]"""

SVG_SCENARIOS = 16
"""Static dashboards whose figures the server keeps to draw as SVG (the last rendered). [1]"""

SVG_CACHE_BYTES = 16 * 2**20
"""Most bytes of SVG the server keeps (about 20 kB a figure). [B]"""

SVG_TIMEOUT = 30.0
"""Longest one SVG may take to draw before the renderer is given up on. [s]"""

SVG_IDLE = 10.0
"""The renderer's Chromium closes after this long without a figure to draw: open, its eleven processes hold
about 0.36-0.39 GB (PSS; 1.1 GB of RSS counted process by process). [s]"""

SVG_WAIT = 4.0
"""How long a page waits for its figures' SVGs before it draws them with plotly.js: the answer of a server too busy
to send a few kilobytes in that time would be followed by plotly.js's megabyte. An answer without them (not drawn
yet) or an error draws with plotly.js at once. In a 50-arrival burst with a wait of 1.5 s, one browser in six gave
up and drew its figures at 5.2 s, against 3.0 s for the median. [s]"""

# --------------------------------------------------------------------------- issue 32: what the SVG route may draw

SVG_BUDGET_PERIOD = 60.0
"""The period over which the new layouts a client or a scenario may have drawn are counted
(:data:`SVG_CLIENT_LAYOUTS`, :data:`SVG_SCENARIO_LAYOUTS`). [s]"""

SVG_CLIENT_LAYOUTS = 4
"""New layouts (a rung per figure, as one window lays them out) one client (an IP address) may have drawn as SVG
per :data:`SVG_BUDGET_PERIOD`: a page asks once, for its window's. One client looping over the 106 rungs of one
scenario had 468 SVGs drawn in 90 s, its Chromium at ~0.9 core (issue 32). [1]"""

SVG_SCENARIO_LAYOUTS = 8
"""New layouts one scenario's figures may have drawn as SVG per :data:`SVG_BUDGET_PERIOD`, whoever asks. [1]"""

SVG_CLIENTS = 1024
"""Clients whose asks are counted at once (the least recent forgotten past it). [1]"""

SVG_DUTY = 0.5
"""Most share of the time the SVG renderer draws: after a figure that took ``t`` s it rests
``t (1 - d) / d`` s. Drawing back to back its Chromium used ~0.9 core (issue 32). [1]"""
