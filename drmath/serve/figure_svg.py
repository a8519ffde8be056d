"""The static dashboard's figures as SVG, drawn once on the server (issue 24).

A page sent static first (:mod:`drmath.serve.static`) drew its five dashboard figures with plotly.js in the
browser. Measured in one headless Chromium at 1400x1500 (nothing else running): parsing plotly.js and drawing
them held its first paint until 0.74 s and took 0.96 s of the page's main thread, against 0.25-0.28 s and
0.42-0.45 s with the figures as SVG. In the 50-arrival burst, where the visitors' browsers share the machine's
cores, the browsers' first screens went from p95 5.1 s to 1.8-4.3 s (six runs; with
:class:`~drmath.serve.app.CachedTemplatesExporter` too). So the server draws each figure once with
kaleido (plotly's own static export: plotly.js, the page's own bundle, in a headless Chromium) and the page puts
the SVG in the figure's box. Same spec, same plotly.js, same size: the live figure that later takes the box
draws the same picture.

A figure is as wide as its box, and its box as the visitor's window allows. The SVGs are made for plot widths on
a ladder of rungs 2 % apart (:func:`rung_width`); the page asks for the rung nearest each box (:func:`rung`) and
stretches the SVG to the box's width, at most 1 % (``data/widgets/static_figures.js``). The rungs of the
commonest desktop windows (:data:`~drmath.serve.settings.SVG_WINDOWS`, plot widths from :func:`plot_widths`)
are drawn for the default scenario when the server starts; any other rung, or a share link's scenario, is drawn
when a page first asks for it, and that page draws its figures with plotly.js as before. SVGs are keyed by a
hash of the figures' specs (:func:`figures_key`), so a link whose figures are the default's shares them.

What a visitor can make the server spend is bounded: only the figures of a static dashboard the server has
rendered (:func:`remember`, the last :data:`~drmath.serve.settings.SVG_SCENARIOS`), at rungs on the ladder that
one window lays out (:func:`fits_a_window`), at most :data:`~drmath.serve.settings.SVG_CLIENT_LAYOUTS` new
layouts per client and :data:`~drmath.serve.settings.SVG_SCENARIO_LAYOUTS` per scenario each
:data:`~drmath.serve.settings.SVG_BUDGET_PERIOD` (a page asks once, for its window's: one client looping over the
rungs of one scenario had 468 SVGs drawn in 90 s, its Chromium at ~0.9 core, issue 32), at most
:data:`~drmath.serve.settings.SVG_QUEUE` figures queued (the rest are not drawn), one at a time, each
within :data:`~drmath.serve.settings.SVG_TIMEOUT`, the renderer drawing at most
:data:`~drmath.serve.settings.SVG_DUTY` of the time; the SVGs kept are at most
:data:`~drmath.serve.settings.SVG_CACHE_BYTES`. The renderer's Chromium runs at the lowest CPU priority and
closes after :data:`~drmath.serve.settings.SVG_IDLE` s without work. Without kaleido or a Chromium the page draws
its figures with plotly.js, as before (logged once).

    >>> rung_width(0), rung_width(1), rung(457), rung_width(rung(457))
    (200, 204, 42, 459)
    >>> rung(100) is None, rung(10_000) is None
    (True, True)
    >>> plot_widths(1400), plot_widths(360)
    ((457, 926), (338, 338))
"""

import asyncio
import collections
import functools
import hashlib
import json
import logging
import math
import re
import threading

import tornado.web

from .. import _resources
from . import settings
from .handlers import PlainErrors

__all__ = ["rung", "rung_width", "plot_widths", "window_rungs", "fits_a_window", "figures_key", "remember", "key_in",
           "Budget", "FigureSVGs", "FigureSVGHandler", "SVGS", "URL", "ROUTE", "WIDE", "FAILURES"]

URL = "drmath/static-figures/"
"""Where a page asks for its figures' SVGs: ``<base>drmath/static-figures/<key>/<rung>,<rung>,…`` (a rung per
figure, in the page's order), answered with ``{name: svg}`` for those drawn already."""

ROUTE = URL + r"([0-9a-f]{16})/([0-9]{1,3}(?:,[0-9]{1,3}){0,15})"
"""The handler's URL pattern under the base URL: a key and at most 16 rungs."""


def rung_width(k):
    """The plot width of rung ``k`` of the ladder [px].

    Notes
    -----
    .. math:: w_k = \\mathrm{round}(w_0 \\, s^k)

    with :math:`w_0` :data:`~drmath.serve.settings.SVG_MIN_WIDTH` and :math:`s`
    :data:`~drmath.serve.settings.SVG_STEP`.

    >>> rung_width(10)
    244
    """
    return round(settings.SVG_MIN_WIDTH * settings.SVG_STEP ** k)


def rung(width):
    """The rung nearest a plot ``width`` [px] (None off the ladder: narrower than its first or wider than its
    last).

    >>> rung(244), rung(459)
    (10, 42)
    """
    if not isinstance(width, (int, float)) or not math.isfinite(width) or width <= 0:
        return None
    k = round(math.log(width / settings.SVG_MIN_WIDTH) / math.log(settings.SVG_STEP))
    return k if 0 <= k < settings.SVG_RUNGS else None


def plot_widths(window):
    """The plot widths of the dashboard's figures in a window ``window`` px wide: ``(one column, the link's)``
    [px], as the dashboard's style lays them out (``drmath/data/widgets/dashboard.css``: the page's 10 px
    padding, the 440 px controls beside the figures above 1100 px with a 12 px gap, two columns 10 px apart
    above 760 px, each figure's 1 px border). ``tests/test_static_first.py`` holds it to a browser's layout.

    >>> plot_widths(1920), plot_widths(1000), plot_widths(390)
    ((717, 1446), (483, 978), (368, 368))
    """
    grid = window - 2 * 10
    if window > 1100:
        grid -= 440 + 12
    if window > 760:
        return (grid - 10) // 2 - 2, grid - 2
    return grid - 2, grid - 2


@functools.lru_cache(maxsize=1)
def window_rungs():
    """The rungs ``(one column, the link's)`` of every window whose plot widths (:func:`plot_widths`) are both on
    the ladder, as a frozenset: the layouts a page can ask for (about 130 of the 106 x 106 pairs).

    >>> (rung(457), rung(926)) in window_rungs(), (0, 105) in window_rungs()
    (True, False)
    """
    window = 1
    pairs = set()
    while min(plot_widths(window)) <= rung_width(settings.SVG_RUNGS - 1) * settings.SVG_STEP:
        one, link = (rung(w) for w in plot_widths(window))
        if one is not None and link is not None:
            pairs.add((one, link))
        window += 1
    return frozenset(pairs)


def fits_a_window(names, rungs):
    """Whether ``rungs`` (one per figure of ``names``, in order) are what one window lays out: every figure but
    :data:`WIDE` at the rung of one column, :data:`WIDE` at the link's, each give or take a rung (a box's width is
    rounded by the browser).

    >>> one, link = rung(457), rung(926)
    >>> fits_a_window(["a", WIDE, "b"], [one, link, one + 1]), fits_a_window(["a", WIDE], [one, one + 10])
    (True, False)
    """
    narrow = [k for name, k in zip(names, rungs) if name != WIDE]
    wide = [k for name, k in zip(names, rungs) if name == WIDE]
    ones = range(max(narrow) - 1, min(narrow) + 2) if narrow else range(settings.SVG_RUNGS)
    links = range(wide[0] - 1, wide[0] + 2) if wide else range(settings.SVG_RUNGS)
    return len(wide) <= 1 and any((a, b) in window_rungs() for a in ones for b in links)


class Budget:
    """At most ``most`` takes per key within any ``period`` s (a sliding window), for at most ``keys`` keys at
    once (the least recently used forgotten past it).

    >>> budget = Budget(2, 60.0)
    >>> [budget.room("a", now=t) for t in (0, 1, 2)], budget.room("b", now=2), budget.room("a", now=61)
    ([True, True, False], True, True)
    """

    def __init__(self, most, period, keys=settings.SVG_CLIENTS):
        self.most, self.period, self.keys = most, period, keys
        self._takes = collections.OrderedDict()  # key -> deque of times [s]

    def room(self, key, take=True, now=None):
        """Whether ``key`` has a take left now; ``take``: and take it."""
        import time

        now = time.monotonic() if now is None else now
        times = self._takes.setdefault(key, collections.deque())
        self._takes.move_to_end(key)
        while times and times[0] <= now - self.period:
            times.popleft()
        free = len(times) < self.most
        if free and take:
            times.append(now)
        if not times:
            del self._takes[key]
        while len(self._takes) > self.keys:
            self._takes.popitem(last=False)
        return free


def figures_key(figures):
    """The key of a static dashboard's figures (``{name: spec}``): a hash of their specs and of plotly.js's
    version, so that SVGs are shared by scenarios with the same figures and never outlive their plotly.js.

    >>> figures_key({"a": {"data": []}}) == figures_key({"a": {"data": []}}) != figures_key({"a": {}})
    True
    """
    from plotly.utils import PlotlyJSONEncoder

    text = json.dumps([_resources.PLOTLY_JS_VERSION, figures], sort_keys=True, separators=(",", ":"),
                      cls=PlotlyJSONEncoder)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


WIDE = "cost_link"
"""The figure that spans the dashboard's two columns (its grid's ``link`` area): :func:`plot_widths`'s second."""

FAILURES = 3
"""Figures the renderer may fail in a row (each with a fresh renderer), or times in a row its Chromium may fail to
start, before the server gives SVGs up for good: a Chromium that closed as it started on a loaded machine (two of
three clean CI runs) gave them up at once."""

OPEN_RETRY = 2.0
"""How long the renderer rests after its Chromium failed to start, before it tries the same figure again. [s]"""

OPEN_TIMEOUT = 20.0
"""Longest a renderer's Chromium may take to start; past it the start counts as failed (and is tried again, up to
:data:`FAILURES` in a row). A start that never ended left one CI server without a single SVG for the whole of its
module, its worker waiting on it until the server stopped. [s]"""

_FIGURES = collections.OrderedDict()  # key -> {name: spec}: the static dashboards rendered, the last SVG_SCENARIOS
_FIGURES_LOCK = threading.Lock()  # remembered in the explainers' worker thread, read in the event loop


def _figures(key):
    """The figures of ``key`` (``{}`` if this server did not render them, or no longer keeps them)."""
    with _FIGURES_LOCK:
        return _FIGURES.get(key, {})


def key_in(block):
    """The figures' key a static dashboard's block (:func:`~drmath.serve.static_dashboard.dashboard_block`) asks
    its SVGs by (None if it names none)."""
    found = re.search(URL + r"([0-9a-f]{16})/", block)
    return found.group(1) if found else None


def remember(figures):
    """Keep a static dashboard's figures for its page's SVGs; returns their key (:func:`figures_key`)."""
    key = figures_key(figures)
    with _FIGURES_LOCK:
        _FIGURES[key] = figures
        _FIGURES.move_to_end(key)
        while len(_FIGURES) > settings.SVG_SCENARIOS:
            _FIGURES.popitem(last=False)
    return key


class FigureSVGs:
    """The SVGs drawn, and the queue of those to draw (one at a time, in the server's event loop)."""

    def __init__(self):
        self.log = logging.getLogger(__name__)  # the server's, once it runs (drmath.serve.app)
        self._svgs = collections.OrderedDict()  # (key, name, rung) -> svg, LRU within SVG_CACHE_BYTES
        self._queue = collections.OrderedDict()  # (key, name, rung) -> None: waiting to be drawn, in order
        self._worker = None
        self._broken = None  # why SVGs cannot be drawn here (no kaleido, no Chromium): logged once
        # new layouts drawn, per client and per scenario (issue 32)
        self._clients = Budget(settings.SVG_CLIENT_LAYOUTS, settings.SVG_BUDGET_PERIOD)
        self._scenarios = Budget(settings.SVG_SCENARIO_LAYOUTS, settings.SVG_BUDGET_PERIOD)

    def ready(self, key, rungs, client=None):
        """``{name: svg}`` of the figures of ``key`` drawn at ``rungs`` (a rung per figure, in their order);
        the others are queued if ``client`` (its IP address) and the scenario have a new layout left in their
        budgets. None if ``key`` is not a dashboard's this server rendered, or ``rungs`` does not fit it (one rung
        per figure, on the ladder, as one window lays them out)."""
        figures = _figures(key)
        if not figures or len(rungs) != len(figures) or not all(
                isinstance(k, int) and 0 <= k < settings.SVG_RUNGS for k in rungs) or not fits_a_window(figures,
                                                                                                        rungs):
            return None
        found, missing = {}, []
        for name, k in zip(figures, rungs):
            svg = self._svgs.get((key, name, k))
            if svg is None:
                missing.append((key, name, k))
            else:
                self._svgs.move_to_end((key, name, k))
                found[name] = svg
        new = [job for job in missing if job not in self._queue]
        if new and not self._broken and len(self._queue) < settings.SVG_QUEUE:
            if not (self._clients.room(client, take=False) and self._scenarios.room(key, take=False)):
                self.log.debug("Static figures: no new layout drawn for %s (its budget is spent)", client)
                return found
            self._clients.room(client)
            self._scenarios.room(key)
        for job in new:
            self.queue(*job)
        return found

    def queue(self, key, name, k, own=False):
        """Draw figure ``name`` of ``key`` at rung ``k`` when the renderer comes to it (unless the queue is full);
        ``own``: the server's own (:meth:`prerender`: a fixed few, once, as the server starts), drawn without the
        rests of :data:`~drmath.serve.settings.SVG_DUTY`."""
        job = (key, name, k)
        if self._broken or job in self._svgs or job in self._queue or len(self._queue) >= settings.SVG_QUEUE:
            return
        self._queue[job] = own
        if self._worker is None or self._worker.done():
            self._worker = asyncio.ensure_future(self._work())

    def prerender(self, key, windows=settings.SVG_WINDOWS):
        """Queue the SVGs of the figures of ``key`` (a static dashboard's) at the rungs of ``windows`` [px], the
        first first."""
        for window in windows:
            one, link = plot_widths(window)
            for name in _figures(key):
                k = rung(link if name == WIDE else one)
                if k is not None:
                    self.queue(key, name, k, own=True)

    async def _work(self):
        """Draw the queued SVGs, one at a time; close the renderer once idle for SVG_IDLE s. A renderer that
        fails :data:`FAILURES` figures in a row, or whose Chromium fails to start :data:`FAILURES` times in a row
        (without kaleido: at once), is given up on for good (logged once): a visitor can make it try at most that
        often."""
        loop = asyncio.get_running_loop()
        renderer, drawn, failed, began = None, 0, 0, loop.time()
        try:
            while True:
                if not self._queue:
                    if drawn:
                        self.log.info("Static figures: %d SVGs drawn in %.1f s (%d kept)", drawn,
                                      loop.time() - began, len(self._svgs))
                        drawn = 0
                    if renderer is not None:
                        await asyncio.sleep(settings.SVG_IDLE)
                    if not self._queue:
                        return
                    began = loop.time()
                job = next(iter(self._queue))
                spec = _figures(job[0]).get(job[1])
                again = False  # its renderer did not start: the same figure is tried again
                try:
                    if spec is not None:
                        if renderer is None:
                            renderer = await asyncio.wait_for(_open_renderer(), OPEN_TIMEOUT)
                        start = loop.time()
                        svg = await asyncio.wait_for(_draw(renderer, spec, rung_width(job[2])), settings.SVG_TIMEOUT)
                        self._keep(job, svg)
                        drawn, failed = drawn + 1, 0
                        if not self._queue.get(job):  # its Chromium draws at most SVG_DUTY of the time (issue 32)
                            await asyncio.sleep((loop.time() - start) * (1 - settings.SVG_DUTY) / settings.SVG_DUTY)
                except Exception as err:  # noqa: BLE001 - no SVG: the page draws with plotly.js, as before
                    failed += 1
                    started = renderer is not None
                    # a failed start keeps its figure queued, so the failures in a row (starts or draws) are all
                    # counted here, in this run: a run ends only once its queue is empty
                    if isinstance(err, ImportError) or failed >= FAILURES:
                        self._broken = f"{type(err).__name__}: {err}"[:300]
                        self._queue.clear()
                        self.log.warning("Static figures are drawn in the page: no SVG renderer here (%s)",
                                         self._broken)
                        return
                    if started:
                        await _close_renderer(renderer)  # a fresh one for the next figure
                        renderer = None
                    else:  # its Chromium did not start: a loaded machine's may, a moment later
                        self.log.warning("The SVG renderer did not start (%s): trying again", err)
                        again = True
                        await asyncio.sleep(OPEN_RETRY)
                finally:
                    if not again:
                        self._queue.pop(job, None)
        finally:
            if renderer is not None:
                await _close_renderer(renderer)

    async def close(self, timeout):
        """The server is stopping (:mod:`drmath.serve.app`): draw nothing more, and close the renderer's Chromium,
        waiting at most ``timeout`` [s]. Left open, it kept the server up after SIGTERM (issue 32): its Chromium
        runs in a process group of its own, and the interpreter's exit waits for the thread that reads its
        output, which ends only once the renderer is closed."""
        self._broken = "the server is stopping"
        self._queue.clear()
        worker = self._worker
        if worker is not None and not worker.done():
            worker.cancel()  # its ``finally`` closes the renderer
            await asyncio.wait([worker], timeout=timeout)

    def _keep(self, job, svg):
        self._svgs[job] = svg
        while sum(map(len, self._svgs.values())) > settings.SVG_CACHE_BYTES and len(self._svgs) > 1:
            self._svgs.popitem(last=False)


SVGS = FigureSVGs()
"""The server's SVGs (one per process)."""


async def _open_renderer():
    """A kaleido renderer with the page's own plotly.js and no MathJax (it would be fetched from a CDN), its
    Chromium at the lowest CPU priority."""
    import kaleido

    bundle = _resources.plotly_bundle(_resources.PLOTLY_JS_VERSION)
    renderer = kaleido.Kaleido(n=1, timeout=settings.SVG_TIMEOUT, plotlyjs=str(bundle),
                               mathjax=False)
    try:
        await renderer.open()
    except BaseException:  # cancelled as the server stops, or failed: its Chromium and threads go
        await _close_renderer(renderer)
        raise
    _lower_priority_of_children()
    return renderer


async def _close_renderer(renderer):
    try:
        await renderer.close()
    except Exception:  # noqa: BLE001 - closing a renderer that failed
        pass
    for _ in range(10):  # its processes, as they end
        if not _reap_renderer():
            break
        await asyncio.sleep(0.5)


def _reap_renderer():
    """Reap the renderer's Chromium processes that have ended: the server is a subreaper (its kernels are forks,
    :mod:`drmath.serve.zygote`), so Chromium's helpers become its children when their parent goes, and would
    stay zombies. Returns how many are still running."""
    import os

    try:
        import psutil
    except ImportError:
        return 0
    running = 0
    for child in psutil.Process().children():
        try:
            if "chrom" not in child.name().lower():
                continue
            if child.status() == psutil.STATUS_ZOMBIE:
                os.waitpid(child.pid, os.WNOHANG)
            else:
                running += 1
        except (psutil.Error, ChildProcessError):
            pass
    return running


def _lower_priority_of_children():
    """Every Chromium process under this server (the renderer's) at a refill kernel's niceness, every thread."""
    from .kernels import _set_niceness

    try:
        import psutil
    except ImportError:
        return
    for child in psutil.Process().children(recursive=True):
        try:
            if "chrom" in child.name().lower():
                _set_niceness(child.pid, settings.REFILL_NICENESS)
        except psutil.Error:
            pass


async def _draw(renderer, spec, width):
    """The SVG of plotly figure ``spec`` at plot ``width`` [px] (its height is its layout's)."""
    height = (spec.get("layout") or {}).get("height") or 400
    data = await renderer.calc_fig(spec, opts={"format": "svg", "width": width, "height": height})
    return data.decode("utf-8") if isinstance(data, bytes) else str(data)


class FigureSVGHandler(PlainErrors, tornado.web.RequestHandler):
    """``GET <base>drmath/static-figures/<key>/<rung>,…``: the SVGs drawn of a static dashboard's figures."""

    def get(self, key, rungs):
        ladder = [int(k) for k in rungs.split(",")]  # ROUTE lets through at most 16 numbers of 1-3 digits
        found = SVGS.ready(key, ladder, self.request.remote_ip)
        if found is None:  # figures this server did not render (another replica's page) or not a rung for each
            found = {}
        self.set_header("Content-Type", "application/json; charset=utf-8")
        # all drawn: the answer never changes (its key names the figures); else ask again next time
        self.set_header("Cache-Control", "max-age=31536000, immutable" if found and len(found) == len(ladder)
                        else "no-store")
        self.finish(json.dumps(found))
