"""The pages: the live workbook (a kernel per visitor), the busy and static explainers, the 414 page.

:class:`CappedVoilaHandler` is Voilà's page handler with drmath's limits on a page request:

- a request target over :data:`~drmath.serve.settings.MAX_URL_LENGTH` gets a readable HTTP 414 page;
- ``theme`` and ``template`` arguments are dropped, by a redirect to the same link without them, before
  Voilà reads them (Voilà wrote the theme unescaped into the page, switched to any installed template,
  and started a fresh kernel past the preheated pool for either);
- a request that is not a page navigation (``Sec-Fetch-Dest`` other than ``document``: another site's
  ``<img>``, ``<iframe>`` or ``fetch``) gets the static explainer of its scenario and takes no seat
  (issue 19);
- a browser's page navigation opens on the static dashboard and explainer of its scenario at once, then
  waits in line for a seat and goes live in the same response, in place (issue 24, :mod:`drmath.serve.static`;
  HTTP 503 with ``Retry-After`` when every seat is taken as it arrives);
- any other request over the kernel cap gets HTTP 503 with ``Retry-After`` and no kernel: a client that
  accepts HTML the static explainer of its scenario under a "busy" notice, any other :data:`BUSY_TEXT`;
- any other page that takes a kernel gets its seat (:func:`~drmath.serve.sessions.give_seat`) and its
  scenario's preview (:func:`preview_html`, from its Plan) at the template's :data:`PREVIEW_MARKER`, shown
  until the live workbook has drawn itself.

The explainers (busy page, static pages) and the static dashboards come from :class:`Explainers`: rendered
once per scenario off the event loop, at most :data:`~drmath.serve.settings.MAX_RENDERS` queued, a queued render
whose visitors have all left dropped, and at most :data:`~drmath.serve.settings.EXPLAINER_CACHE_COUNT`
(:data:`~drmath.serve.settings.EXPLAINER_CACHE_BYTES`) kept, a failed render kept as a good one. Each is cached under
its scenario's share link (:func:`link_query`, :func:`dashboard_key`), never the raw query: 40 spellings of one link
cost the server 4.1 CPU-s, one render each, and 0.2 CPU-s so (issue 32). A link whose run is too long for a drill
schedule is a bad link (:func:`page_scenario`): its page shows the default's explainer and the reason.
"""

import asyncio
import collections
import functools
import html
import json
import os
import re
import urllib.parse

import tornado.web
from voila.tornado.handler import TornadoVoilaHandler

from . import settings
from .handlers import GzipStart, PlainErrors, Wire
from .kernels import SLOT
from .sessions import bind_ticket, give_seat, give_ticket
from .site import NAV_MARKER, nav_html, notebook_prelude
from .static import SeatLine, cut_template_box, static_prelude, wants_static_first

__all__ = ["BUSY_HTML", "BUSY_TEXT", "TOO_LONG_HTML", "PREVIEW_MARKER", "Overloaded", "RenderFailed", "Explainers",
           "link_query", "dashboard_key", "page_scenario", "preview_html", "CappedVoilaHandler", "SiteNotebookHandler"]

BUSY_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>drmath is busy</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 36em; margin: 4em auto; color: #222">
<h1 class="drmath-busy">The workbook is busy</h1>
<p>Every seat of this drmath workbook is taken right now ({visitors}).
Please try again in a minute: <a href="">reload this page</a>.</p>
</body></html>
"""

STATIC_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>drmath</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 36em; margin: 4em auto; color: #222">
<h1 class="drmath-static">drmath</h1>
<p><a href="{home}">Open the workbook</a>.</p>
</body></html>
"""
"""What a request that is not a page navigation gets when no explainer can be rendered now."""

BUSY_TEXT = "The workbook is busy: every seat is taken ({visitors}). Please try again in {retry} s.\n"
"""The 503 body for clients that are not browsers (their ``Accept`` names no ``text/html``)."""

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
"""The HTTP 414 page of a request target over :data:`~drmath.serve.settings.MAX_URL_LENGTH`."""

PREVIEW_MARKER = "<!--drmath-preview-->"
"""Where the ``drlab`` template's page takes its visitor's preview (:func:`preview_html`)."""

_DROPPED = frozenset({"theme", "template"})  # Voilà's page arguments a visitor may not set


def _without(query, names):
    """``query`` (raw, as sent) without the pairs whose key is in ``names``; the others verbatim."""
    return "&".join(part for part in query.split("&")
                    if part and urllib.parse.unquote_plus(part.split("=", 1)[0]) not in names)


def _link_scenario(query):
    """``(scenario, notice)`` of a share link's query (the default's when the link is bad, with the reason), its
    work bounded: a run too long for a drill schedule (:func:`drmath.drills.check_run`) is a bad link. A ~7,600-year
    run built 2.78M drill dates per explainer (3.5 CPU-s, ~200 MB), a ~7,970-year one raised OverflowError
    (issue 32); the scenario itself may run that long (the dashboard draws no drill schedule)."""
    from .. import plan
    from ..drills import check_run
    from ..io.links import VOILA_PARAMETERS, from_query
    from ..scenario import Scenario

    scenario, notice = from_query(query, ignore=VOILA_PARAMETERS)
    if notice is None:
        try:
            check_run(plan(scenario))
        except ValueError as err:
            return Scenario(), f"This link's settings were not used ({err}); showing the default scenario."
    return scenario, notice


def link_query(query):
    """``(share-link query of the scenario, notice)`` for a page request's query: the :func:`~drmath.io.links.to_query`
    of the scenario its page opens on (:func:`page_scenario`: no query, the worked answer's; a bad link, the
    default's, with the reason). Every spelling of one scenario (a trailing ``&``, another order) has the same: what
    the explainers are cached under. A link to the defaults and no query at all have different keys, as their pages
    show different scenarios (the explainer of ``""`` is the default's, :func:`_render_explainer`).

    >>> link_query("")[0] != link_query("training.gpus=8000")[0] == link_query("training.gpus=-1")[0] == ""
    True
    """
    from ..io.links import to_query

    scenario, notice = page_scenario(query)
    return to_query(scenario), notice


def dashboard_key(query):
    """What the static dashboard of a page request's query is cached under: the same for every spelling of one
    scenario (its share link, and the reason a bad link was not used), as its kernel restores it
    (:meth:`~drmath.dashboard.Dashboard.restore`; no query: the worked answer's page, ``""``). 400 spellings of one
    scenario were 400 renders and 79 MiB of server RSS (issue 32).

    >>> dashboard_key("training.gpus=4096&") == dashboard_key("training.gpus=4096") != dashboard_key("")
    True
    """
    from ..io.links import VOILA_PARAMETERS, from_query, to_query

    if not query:
        return ""
    scenario, notice = from_query(query, ignore=VOILA_PARAMETERS)
    return to_query(scenario), notice


def page_scenario(query):
    """``(scenario, notice)`` of a page request's query, as the dashboard opens it: the worked answer's design
    (:func:`~drmath.io.scenarios.answer`, the seed solved) for no query, else the link's scenario (the
    default's when the link is bad or its work past a bound, with the reason: :func:`_link_scenario`)."""
    from ..io.scenarios import answer

    if not query:
        return answer(), None
    return _link_scenario(query)


def _render_explainer(query):
    """The standalone explainer (:func:`drmath.report.build_report`) of a share-link query, plotly.js not inlined.
    Its ``query`` is a cache key of :func:`link_query`, read as a link: ``""`` is the default scenario (a link to the
    defaults, a bad link), the worked answer is its own query."""
    from ..report import build_report

    return build_report(_link_scenario(query)[0], include_plotlyjs=False)


def _render_dashboard(query):
    """The static dashboard of a page request's query, as sent (:func:`~drmath.serve.static_dashboard.dashboard_block`),
    for the page sent static first (issue 24): the live dashboard's boxes, before its kernel."""
    from .static import BOX
    from .static_dashboard import dashboard_block

    return dashboard_block(query, BOX)


class Overloaded(Exception):
    """:data:`~drmath.serve.settings.MAX_RENDERS` renders are queued already: answer without an explainer."""


class RenderFailed(Exception):
    """The render of this query failed (now or before: a failure is cached as a render is); its one-line reason."""


class Explainers:
    """The rendered explainers of the last ``size`` scenarios (LRU), each rendered once, off the event loop.

    ``await get(key)`` returns ``render(key)`` (``render(query)`` when a ``query`` is given: one spelling of what
    ``key`` names): from the cache, or from the render already under way for that key (a burst of visitors renders
    it once), or from a new render in a worker thread. A render that fails is cached as one that succeeds: its
    :class:`RenderFailed` and reason are the answer until it leaves the cache (a link that raised OverflowError
    was rendered again on every request, issue 32). At most ``most`` renders wait at once (:class:`Overloaded`
    past it); a render that has not started when its last waiting visitor leaves (their ``get`` is cancelled) is
    dropped. The cache keeps at most ``size`` documents and ``most_bytes`` characters of them.
    """

    def __init__(self, render, size=settings.EXPLAINER_CACHE_COUNT, most=settings.MAX_RENDERS,
                 most_bytes=settings.EXPLAINER_CACHE_BYTES):
        self._render, self._size, self._most, self._most_bytes = render, size, most, most_bytes
        self._done, self._pending, self._waiting = collections.OrderedDict(), {}, collections.Counter()
        self._executor = None

    async def get(self, key, query=None):
        """The document for ``key`` (rendered from ``query`` if given, else from ``key``)."""
        if key in self._done:
            self._done.move_to_end(key)
            return self._answer(self._done[key])
        job = self._pending.get(key)
        if job is None:
            if len(self._pending) >= self._most:
                raise Overloaded(f"{len(self._pending)} explainers are being rendered")
            if self._executor is None:
                from concurrent.futures import ThreadPoolExecutor

                self._executor = ThreadPoolExecutor(1, thread_name_prefix="drmath-explainer")
            job = self._executor.submit(self._render, key if query is None else query)
            self._pending[key] = job
            loop = asyncio.get_running_loop()  # the cache is the loop's own: the worker hands its result over
            job.add_done_callback(lambda done: loop.call_soon_threadsafe(self._finished, key, done))
        self._waiting[key] += 1
        try:
            await asyncio.wait([asyncio.shield(asyncio.wrap_future(job))])  # a visitor who leaves cancels no one else's
        finally:
            self._waiting[key] -= 1
            if self._waiting[key] <= 0:
                del self._waiting[key]
                job.cancel()  # nobody waits for it: a render not yet started never starts (a running one ends)
        return self._answer(_outcome(job))

    @staticmethod
    def _answer(outcome):
        if isinstance(outcome, RenderFailed):
            raise RenderFailed(*outcome.args)  # a new one each time: a raised exception keeps its traceback
        return outcome

    def _finished(self, key, job):
        self._pending.pop(key, None)
        if not job.cancelled():
            self._done[key] = _outcome(job)
            while len(self._done) > self._size or (
                    len(self._done) > 1 and sum(len(str(v)) for v in self._done.values()) > self._most_bytes):
                self._done.popitem(last=False)


def _outcome(job):
    """A finished render's document, or its :class:`RenderFailed` (the reason on one line)."""
    error = job.exception()
    if error is None:
        return job.result()
    return RenderFailed(" ".join(f"{type(error).__name__}: {error}".split())[:300])


def _explainer_page(document, box, plotly):
    """The explainer ``document`` with ``box`` (HTML) on top and plotly.js from ``plotly`` (a URL)."""
    head = '<link rel="icon" href="data:;base64,=">'  # no /favicon.ico request (as Voilà's page)
    head += f'<script src="{html.escape(plotly, quote=True)}"></script>' if plotly else ""
    return document.replace("</head>", head + "</head>", 1).replace("<main>", "<main>" + box, 1)


def _notice_box(lead, retry, share, share_text, notice):
    """The notice on top of a static explainer: ``lead`` (HTML), the live workbook's link, the share link."""
    e = functools.partial(html.escape, quote=True)
    reason = f'<p class="drmath-busy-reason">{e(notice)}</p>' if notice else ""
    return (f'<div class="drmath-busy" role="status" style="background:#fff4e5;border:2px solid #b35c00;'
            f'border-radius:6px;padding:10px 16px;margin:0 0 16px">'
            f'<p>{lead} <a class="drmath-retry" href="{e(retry)}">open the live workbook</a>.</p>'
            f'<p>Share link of this scenario: <a class="drmath-share" href="{e(share)}">{e(share_text)}</a></p>'
            f"{reason}</div>")


# --------------------------------------------------------------------------- the preview (issue 13)
# While a visitor's kernel starts, the page shows a static preview of the scenario it will open with:
# the dashboard's story, then the report's title and headline cards, built from the scenario's Plan
# (~1 ms). The drlab template renders the page once per preheated kernel, before any request, so it
# holds PREVIEW_MARKER where the preview goes and CappedVoilaHandler puts the request's own there.

_STORY_CLASS = re.compile(r"\bdrmath-(header|story)\b")


def preview_html(scenario=None, notice=None):
    """The page's preview of ``scenario``: the story, the report's title and headline cards.

    Parameters
    ----------
    scenario : Scenario, optional
        The visitor's scenario; the default when omitted.
    notice : str, optional
        Why the link's settings were not used (text; escaped here).

    Returns
    -------
    html : str
        The dashboard's story (:data:`drmath.dashboard.page.STORY`, its classes renamed
        ``drmath-preview-*`` so that they name the live page's only), the report's title
        (:func:`drmath.report.report_title`), the notice and the headline cards
        (:func:`drmath.report.headline_html`), each number a ``<span class="num" data-field data-si>``
        with the text of ``Plan.format``.

    Examples
    --------
    >>> from drmath.viz.headline import CARDS
    >>> html = preview_html(notice="a <b>bad</b> link")
    >>> html.count('class="num"') == len(CARDS), "a &lt;b&gt;bad&lt;/b&gt; link" in html  # a number per card
    (True, True)
    """
    from .. import plan
    from ..dashboard.page import STORY
    from ..report import headline_html, report_title

    p = plan(scenario)
    reason = f'<p class="drmath-preview-notice">{html.escape(notice, quote=True)}</p>' if notice else ""
    story = _STORY_CLASS.sub(r"drmath-preview-\1", STORY)  # the live page's own story keeps its class names
    return (f'{story}<h3 class="drmath-preview-title">{html.escape(report_title(p))}</h3>{reason}{headline_html(p)}'
            '<p class="drmath-preview-more">The charts, the controls and the derivation of every number come with '
            "the live workbook.</p>")


@functools.lru_cache(maxsize=32)
def _query_preview(query):
    """The preview of a page request's query (its scenario, or the default with the reason), the last 32 kept."""
    return preview_html(*page_scenario(query))


@functools.lru_cache(maxsize=settings.EXPLAINER_CACHE_COUNT)
def _static_start(document, dashboard, plotly, notice, base):
    """The static start of a page (:func:`~drmath.serve.static.static_prelude`'s, same arguments) as bytes and as
    gzip, made once for every visitor of its scenario: the last :data:`~drmath.serve.settings.EXPLAINER_CACHE_COUNT`
    kept. Building and compressing it for each visitor was 47 % of the server process's py-spy samples (every
    thread) in the first 7 s of 50 arrivals (issue 24; :class:`~drmath.serve.handlers.GzipStart`)."""
    prelude = static_prelude(document, dashboard, plotly, notice, base)
    prelude = prelude.replace("<body>\n", "<body>\n" + nav_html(base, ""), 1)  # issue 35: the site's pages
    return GzipStart(prelude.encode())


def _say_script(text, final=False):
    """The script that tells a static page's notice what its live page is doing (``final``: it will not come)."""
    script = (f"<script>(function(){{var s=document.querySelector('#drmath-preview .drmath-preview-step');"
              f"if(s)s.textContent={json.dumps(text)};")
    if final:
        script += ("var b=document.getElementById('drmath-preview');if(b){b.setAttribute('aria-busy','false');"
                   "b.classList.add('drmath-static-final');}")
    return script + "})();</script>\n"


class CappedVoilaHandler(PlainErrors, TornadoVoilaHandler):
    """Voilà's page handler with drmath's limits on a page request (see the module docstring)."""

    explainers = Explainers(_render_explainer)
    dashboards = Explainers(_render_dashboard)  # the static dashboards, cached as the explainers (issue 24)
    seat_line = SeatLine()  # browsers' pages, shown static, waiting for a seat (issue 24)
    _ticket = None  # the nonce of this page's seat ticket, when it was sent static first
    _preview = None  # this request's preview, until the page's first chunk takes it (see write)
    _seated = False  # whether this response carries its kernel's seat
    _waiting = None  # the explainer this request waits for, cancelled if its visitor leaves
    route = ""  # the page's route under the base URL (issue 35: the dashboard's)

    def _home(self):
        """This page's own URL, without its query."""
        return self.base_url + self.route

    @tornado.web.authenticated
    async def get(self, path=None):
        # Voilà's page posts a tab-close shutdown beacon with the _xsrf cookie's token, but Voilà
        # 0.5 never sets that cookie (voila#1458): the beacon got a 403, which a page still alive
        # logs as a console error. Reading the token sets the cookie, so the beacon goes through.
        self.xsrf_token  # noqa: B018 - read for its side effect: the _xsrf cookie
        if len(self.request.uri) > settings.MAX_URL_LENGTH:
            return self._too_long()
        km = self.kernel_manager
        if self.notebook_path and path:
            return await super().get(path)  # a redirect to a file: takes no kernel
        if _DROPPED.intersection(self.request.query_arguments):
            kept = _without(self.request.query, _DROPPED)
            return self.redirect(self._home() + ("?" + kept if kept else ""))
        if self.request.headers.get("Sec-Fetch-Dest", "document") != "document":
            return await self._static()  # issue 19: another site's <img>, <iframe> or fetch takes no seat
        if hasattr(km, "admit") and wants_static_first(self.request.headers):
            sent = await self._static_first()
            if sent is None:
                return None  # its visitor left
            if sent:
                return await self._go_live(path)
        if not hasattr(km, "admit"):
            self._preview = self._page_preview()
            return await super().get(path)
        slot = km.admit()
        if slot is None:
            return await self._busy(km.visitors)
        token = SLOT.set(slot)
        try:
            self._preview = self._page_preview()
            return await super().get(path)
        finally:
            SLOT.reset(token)
            km.release(slot)

    def on_connection_close(self):
        if self._waiting is not None:
            self._waiting.cancel()  # its visitor left: stop waiting, and the render if nobody else waits
        super().on_connection_close()

    async def _explainer(self, key, cache=None, query=None):
        """The explainer of ``key`` (or ``cache``'s render of it, from ``query`` if given), cancelled if this
        request's visitor leaves."""
        self._waiting = asyncio.ensure_future((cache or self.explainers).get(key, query))
        try:
            return await self._waiting
        finally:
            self._waiting = None

    def _page_preview(self):
        """The preview of this request's scenario ("" if it cannot be drawn: the page still has its progress bar)."""
        try:
            return _query_preview(self.request.query)
        except Exception:  # noqa: BLE001 - logged; the page still comes, with its progress bar only
            self.log.exception("Could not draw the preview")
            return ""

    def write(self, chunk):
        if not self._seated:  # the first chunk: the kernel is taken, the headers not yet sent
            slot = SLOT.get()
            if slot is not None and slot.kernel_id:
                if self._ticket is None:
                    give_seat(self, slot.kernel_id)
                else:  # sent static first: its headers, and its ticket, went out before it had a kernel
                    bind_ticket(slot.kernel_id, self._ticket)
                self._seated = True
        if self._ticket is not None and isinstance(chunk, str):
            chunk = cut_template_box(chunk)  # the static page (dashboard, explainer) is its preview box
        if isinstance(chunk, str) and NAV_MARKER in chunk:  # issue 35: the site's pages (a static start has them)
            nav = "" if self._ticket is not None else nav_html(self.base_url, self.route)
            chunk = chunk.replace(NAV_MARKER, nav, 1)
        # the template renders before the request (preheated kernels): its marker takes this request's preview
        if self._preview is not None and isinstance(chunk, str) and PREVIEW_MARKER in chunk:
            chunk, self._preview = chunk.replace(PREVIEW_MARKER, self._preview, 1), None
        return super().write(chunk)

    # ----------------------------------------------------------------------- static first (issue 24)

    def _plotly(self):
        """The URL of plotly.js (the drlab template's bundle), or None."""
        plotly = (self.voila_configuration.resources or {}).get("drmath_plotly")
        return plotly and self.base_url + plotly

    async def _static_start(self):
        """The static start of this request's page (a :class:`~drmath.serve.handlers.GzipStart`): the static
        dashboard and explainer of its scenario."""
        query, notice = link_query(self.request.query)
        document = await self._explainer(query)
        raw = self.request.query  # as its kernel will read it; cached under its scenario's link
        dashboard = await self._explainer(dashboard_key(raw), self.dashboards, raw)
        return _static_start(document, dashboard, self._plotly(), notice, self.base_url)

    async def _static_first(self):
        """Send the static start of this request's page (:meth:`_static_start`) at once, with a seat ticket; False
        (nothing sent) if it cannot be had now: the page then goes as any other; None if its visitor left."""
        try:
            start = await self._static_start()
        except asyncio.CancelledError:
            self.log.info("A visitor left before their explainer was rendered")
            return None
        except Exception as err:  # noqa: BLE001 - logged; the page goes live without a static start
            self.log.warning("No static start for this page: %s", err)
            return False
        self._ticket = give_ticket(self)
        km = self.kernel_manager
        if self.seat_line or km.visitor_seats is not None and km.visitors >= km.visitor_seats:
            # every seat taken: 503 (a balancer retries another replica; else this page waits in line here)
            self.log.warning("Kernel cap reached (%s visitors): a page shown static waits for a seat", km.visitors)
            self.set_status(503)
            self.set_header("Retry-After", str(settings.RETRY_AFTER))
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        Wire.start_with(self, start)
        self.write(start.data)  # bytes: not the Voilà template's chunks that write() cuts and fills
        await self.flush()
        return True

    async def _go_live(self, path):
        """The page sent static first: wait in line for a seat, then stream the live page after it."""
        km = self.kernel_manager
        if self.get_status() == 503:
            self._say("waiting for a free seat: every seat of the live workbook is taken right now")
        self._waiting = asyncio.ensure_future(self.seat_line.take(km.admit, beat=self._beat))
        try:
            slot = await self._waiting
        except asyncio.CancelledError:
            self.log.info("A visitor left while waiting for a seat")
            return None
        finally:
            self._waiting = None
        if slot is None:
            self.log.warning("No seat for a page shown static (%s visitors, %d waiting)", km.visitors,
                             len(self.seat_line))
            self._say("the live workbook is busy: this page stays static. Reload later for its controls", True)
            return self.finish("</body></html>\n")
        token = SLOT.set(slot)
        try:
            self._say("starting its kernel")
            return await super().get(path)
        finally:
            SLOT.reset(token)
            km.release(slot)

    def _say(self, text, final=False):
        """Tell the static page's notice what the live page is doing (``final``: it will not come)."""
        self.write(_say_script(text, final))
        self.flush()

    def _beat(self):
        """A few bytes for a page waiting for its seat: no proxy closes it as idle."""
        self.write("\n")
        self.flush()

    def _too_long(self):
        self.log.warning("A %d-byte request target: answering 414", len(self.request.uri))
        self.set_status(414)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(TOO_LONG_HTML.format(length=len(self.request.uri), limit=settings.MAX_URL_LENGTH,
                                         home=html.escape(self.base_url, quote=True)))

    async def _busy(self, visitors):
        self.log.warning("Kernel cap reached (%s visitors): answering 503 busy", visitors)
        visitors = f"{visitors} visitor{'' if visitors == 1 else 's'}"
        self.set_status(503)
        self.set_header("Retry-After", str(settings.RETRY_AFTER))
        self.set_header("Cache-Control", "no-store")
        if "text/html" not in self.request.headers.get("Accept", ""):
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            return self.finish(BUSY_TEXT.format(visitors=visitors, retry=settings.RETRY_AFTER))
        lead = (f"<strong>The live workbook is busy</strong>: every seat is taken right now ({visitors}). "
                "Below is the same worked answer for your scenario, as a static page. Please try again in a "
                "minute:")
        await self._explainer_answer(lead, BUSY_HTML.format(visitors=visitors))

    async def _static(self):
        """A request that is not a page navigation: the static explainer of its scenario, no kernel."""
        self.set_header("Cache-Control", "no-store")
        lead = "<strong>This is the static worked answer</strong> for this scenario. For the controls:"
        await self._explainer_answer(lead, STATIC_HTML.format(home=html.escape(self.base_url, quote=True)))

    async def _explainer_answer(self, lead, fallback):
        """Finish with the explainer of this request's scenario under a notice (``fallback`` if none)."""
        self.set_header("Content-Type", "text/html; charset=utf-8")
        try:
            query, notice = link_query(self.request.query)
            document = await self._explainer(query)
        except asyncio.CancelledError:
            self.log.info("A visitor left before their explainer was rendered")
            return None
        except (Overloaded, RenderFailed) as err:
            self.log.warning("No explainer for this request: %s", err)
            return self.finish(fallback)
        except Exception:  # noqa: BLE001 - logged; the visitor still gets the plain page
            self.log.exception("Could not render the explainer")
            return self.finish(fallback)
        share = self.base_url + ("?" + query if query else "")
        retry = self.base_url + ("?" + self.request.query if self.request.query else "")
        plotly = (self.voila_configuration.resources or {}).get("drmath_plotly")
        box = _notice_box(lead, retry, share, f"{self.request.protocol}://{self.request.host}{share}", notice)
        return self.finish(_explainer_page(document, box, plotly and self.base_url + plotly))


# --------------------------------------------------------------------------- issue 35: the notebook pages

def _render_notebook_page(stem):
    """The static content of the notebook page ``stem`` (:func:`drmath.serve.site.render_notebook`)."""
    from .site import render_notebook

    return render_notebook(stem)


@functools.lru_cache(maxsize=32)
def _notebook_start(block, title, plotly, base, route):
    """The static start of a notebook page (:func:`~drmath.serve.site.notebook_prelude`, same arguments) as bytes and
    as gzip, made once for every visitor of the page."""
    return GzipStart(notebook_prelude(block, title, plotly, base, route).encode())


class _OneNotebook:
    """What a notebook page's Voilà renderer reads its notebook through (in place of the contents manager, whose root
    is the dashboard's folder): that one file, whatever path it is asked for."""

    def __init__(self, path):
        self.path = path

    def get(self, path=None, **kwargs):
        import nbformat

        return {"type": "notebook", "path": os.path.basename(self.path), "content": nbformat.read(self.path, 4)}


class SiteNotebookHandler(CappedVoilaHandler):
    """A notebook page of the site (issue 35, :mod:`drmath.serve.site`): the dashboard's handler (cap, seat, static
    first, busy page) with the notebook's own static start, rendered once per page (:attr:`notebooks`), and no
    scenario: its query is not read. Its route is the page's name, whole (``notebooks/00_worked_answer``)."""

    notebooks = Explainers(_render_notebook_page, size=64, most=settings.MAX_RENDERS,
                           most_bytes=settings.NOTEBOOK_CACHE_BYTES)
    """The notebook pages' static renders: one at a time, each page once, kept (:data:`NOTEBOOK_CACHE_BYTES`)."""

    def initialize(self, **kwargs):
        page = kwargs.pop("page")
        super().initialize(**kwargs)
        self.page, self.route, self.notebook_path = page, page.route, str(page.path)

    @property
    def contents_manager(self):
        return _OneNotebook(self.notebook_path)

    def _page_preview(self):
        return ""  # a notebook has no scenario preview: its static start is its page

    async def _static_start(self):
        block = await self._explainer(self.page.stem, self.notebooks)
        return _notebook_start(block, self.page.label, self._plotly(), self.base_url, self.route)

    async def _explainer_answer(self, lead, fallback):
        """Finish with this page's static start, its notice saying the page stays static (``fallback`` if none)."""
        self.set_header("Content-Type", "text/html; charset=utf-8")
        try:
            start = await self._static_start()
        except asyncio.CancelledError:
            self.log.info("A visitor left before their page was rendered")
            return None
        except Exception as err:  # noqa: BLE001 - logged; the visitor still gets the plain page
            self.log.warning("No static page for this request: %s", err)
            return self.finish(fallback)
        words = ("the live workbook is busy: this page stays static. Reload later for its controls"
                 if self.get_status() == 503 else "this page stays static here: open it for its controls")
        return self.finish(start.data + _say_script(words, True).encode() + b"</body></html>\n")
