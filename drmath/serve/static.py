"""Static first, live later (issue 24): a browser's page opens on its scenario's static dashboard at once.

A browser's page navigation (:func:`wants_static_first`) is answered before, and whatever becomes of, any
kernel: the response starts with :func:`static_prelude`: the static twin of the live dashboard
(:mod:`drmath.serve.static_dashboard`: the live page's own widgets as ipywidgets draws them, controls
disabled, figures drawn once by the server as SVG from the live figures' specs, :mod:`drmath.serve.figure_svg`),
then, for the reader who scrolls, the
standalone explainer of the link's scenario (the busy page's: every number with its derivation, every
figure), both cached (:class:`~drmath.serve.pages.Explainers`), in the ``drlab`` template's preview box,
under a notice that the page is static, live in a few seconds. plotly.js draws the explainer's figures (and any
dashboard figure the server has no SVG of), loaded without holding up the page, those on screen first and the rest
after the first paint (``data/widgets/static_figures.js``). The box is where the live page's scrolling
panel will be, so the static dashboard has the live one's boxes, size for size. Its seat is a ticket
(:func:`~drmath.serve.sessions.give_ticket`), since the headers go before the kernel is known. When every
seat is taken its status is 503 with ``Retry-After`` (a balancer retries another replica, ``deploy/haproxy``;
a browser shows the page all the same). The page then waits in line for a seat (:class:`SeatLine`), and the
live workbook, the Voilà page, streams on in the same response: its widgets draw under the static page.
Once the live cards and every live figure are drawn, the template's script hands over in place: the live
panel is scrolled where the static box is, and the box goes, in one frame; each live card and figure is then
where its static twin was, and no figure is ever blank. A visitor who has scrolled into the explainer below
the dashboard is not moved: the notice then offers the live page, which takes over when they press its
button. Until the live page takes over there is no live control to touch: the static dashboard's controls
are disabled (its notice says the controls come with the live page).

Clients that are not browsers (no ``Sec-Fetch-*`` headers: scripts, the load bench's websocket clients,
health checks) get the live page as before, or the busy page over the cap.

    >>> wants_static_first({"Sec-Fetch-Dest": "document", "Sec-Fetch-Mode": "navigate"})
    True
    >>> wants_static_first({}), wants_static_first({"Sec-Fetch-Dest": "iframe", "Sec-Fetch-Mode": "navigate"})
    (False, False)
"""

import asyncio
import collections
import html
import re

from .._resources import data_file
from . import settings

__all__ = ["STATIC_END", "BOX", "BOX_START", "BOX_END", "wants_static_first", "scope_css", "static_prelude",
           "cut_template_box", "SeatLine"]

STATIC_END = "<!--drmath-static-end-->"
"""Marks the end of the static part of a page sent static first (the live page follows it)."""

BOX_START, BOX_END = "<!--drmath-preview-box-->", "<!--/drmath-preview-box-->"
"""Around the ``drlab`` template's own preview box: a page sent static first has its own, and drops this one."""

_DRAWER = data_file("widgets", "static_figures.js").read_text("utf-8")
"""The static page's figure drawer (``window.drmathStaticFigures``): the figures on screen first."""

_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def wants_static_first(headers):
    """Whether a page request is a browser's top-level navigation (``Sec-Fetch-Dest: document`` and
    ``Sec-Fetch-Mode: navigate``, both sent by the browser itself): it gets its static explainer first."""
    return headers.get("Sec-Fetch-Dest") == "document" and headers.get("Sec-Fetch-Mode") == "navigate"


def scope_css(css, scope):
    """``css`` (flat rules, no at-rules) with every selector under ``scope``; ``body`` becomes ``scope``
    and ``:root`` stays (the palette's variables are the live page's too).

    >>> scope_css("body { margin:0 } h1, .a b { x:1 } :root { --c: red } /* note */", "#box")
    '#box { margin:0 }\\n#box h1, #box .a b { x:1 }\\n:root { --c: red }'
    """
    def selector(text):
        text = text.strip()
        if text in (":root", "html"):
            return ":root"
        if text == "body":
            return scope
        return f"{scope} {text}"

    rules = []
    for selectors, body in _RULE.findall(_COMMENT.sub("", css)):
        rules.append(", ".join(selector(s) for s in selectors.split(",")) + " {" + body + "}")
    return "\n".join(rules)


def _part(document, start, end, what):
    """The text of ``document`` from ``start`` to ``end`` (both included), or ValueError naming ``what``."""
    i = document.find(start)
    j = document.find(end, i + 1) if i >= 0 else -1
    if i < 0 or j < 0:
        raise ValueError(f"explainer document: its {what} was not found")
    return document[i:j + len(end)]


def static_prelude(document, dashboard, plotly, notice=None, base="/"):
    """The static first part of a page: the static dashboard, then the explainer, in the preview box.

    Parameters
    ----------
    document : str
        The standalone explainer (:func:`drmath.report.build_report`, plotly.js not inlined).
    dashboard : str
        The static dashboard (:func:`drmath.serve.static_dashboard.dashboard_block`, scoped to the box).
    plotly : str
        The URL of plotly.js ("" for none).
    notice : str, optional
        Why the link's settings were not used (text).
    base : str, optional
        The server's base URL (the static figures' SVGs are asked for under it).

    Returns
    -------
    html : str
        A document's start: its head (the explainer's style scoped to its part of the box, plotly.js preloaded), the
        box ``#drmath-preview`` where the live page will be (the same scrolling box, the same padding) with the
        notice and progress bar the ``drlab`` template's script drives over its foot, the static dashboard
        laid out as the live one, the explainer's content below it (``.drmath-static-explainer``), its figures
        handed to the drawer (:data:`_DRAWER`), then :data:`STATIC_END`. The Voilà page follows it.
    """
    e = html.escape
    title = _part(document, "<title>", "</title>", "title")  # escaped already
    style = _part(document, "<style>", "</style>", "style")[len("<style>"):-len("</style>")]
    main = _part(document, "<main>", "</main>", "content")
    plots = _part(document, "<script>(function(){var C=", "</script>", "figures")
    # its figures are not the live page's (".drmath-figure"): the box goes once the live ones are drawn
    main = main.replace('class="plot drmath-figure"', 'class="plot drmath-static-plot"')
    reason = f'<p class="drmath-preview-notice">{e(notice)}</p>' if notice else ""
    head = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'{title}<link rel="icon" href="data:;base64,=">'
            f"<style>{scope_css(style, _BOX + ' .drmath-static-explainer')}\n{_BOX_CSS}</style>"
            f"<script>{_DRAWER}</script>"
            + (f'<link rel="preload" as="script" href="{e(plotly, quote=True)}" data-drmath-static-plotly>'
               if plotly else "") + "</head><body>\n")
    box = (f'<div id="drmath-preview" class="drmath-static" aria-busy="true" data-base="{e(base, quote=True)}">'
           '<div class="drmath-preview-status">'
           '<div class="drmath-preview-progress" role="progressbar" aria-label="The live workbook is starting" '
           'aria-valuemin="0" aria-valuemax="100" aria-valuenow="5"><span></span></div>'
           '<p role="status"><strong>This page is static</strong> until its workbook is live: '
           '<strong>live in a few seconds</strong>, with its controls '
           '(<span class="drmath-preview-step">waiting for its kernel</span>). '
           'Meanwhile every number and chart here is the worked answer for this scenario.</p>'
           f'{reason}<div id="loading" hidden><span id="loading_text"></span></div></div>')
    explainer = ('<div class="drmath-static-explainer"><h2 class="drmath-static-more">The worked answer, '
                 'step by step</h2>' + main + plots + "</div>")
    return head + box + dashboard + explainer + "</div>\n" + STATIC_END + "\n"


BOX = _BOX = "#drmath-preview.drmath-static"  # over the template's "#drmath-preview" rules, which come later
"""The static page's box, as a CSS selector (what the static dashboard's style is scoped to)."""
# the box is where the live page's scrolling panel will be (Voilà's lab shell: the whole window, 10 px of
# padding), so that the static dashboard in it takes the live dashboard's boxes; the notice floats over its foot
_BOX_CSS = (f"""{_BOX} {{ position: fixed; inset: 0; z-index: 1000; overflow: auto; padding: 10px;
  box-sizing: border-box; background: white; color: #1f2933;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }}
{_BOX} .drmath-preview-status {{ position: fixed; left: 0; right: 0; bottom: 0; top: auto; z-index: 2; margin: 0;
  padding: 8px 16px 8px; background: #eef4ff; border-top: 1px solid #c7d7fe; border-bottom: 0;
  box-shadow: 0 -2px 8px rgba(0, 0, 0, 0.08); font: 14px/1.45 system-ui, sans-serif; }}
{_BOX} .drmath-preview-status p {{ margin: 6px 0 0; font-size: 13.5px; max-width: 1180px; }}
{_BOX} .drmath-preview-notice {{ margin: 6px 0; padding: 6px 10px; border-left: 4px solid #b35c00;
  background: #fff4e5; }}
{_BOX} .drmath-preview-progress {{ height: 6px; border-radius: 3px; background: #dbe4f3; overflow: hidden; }}
{_BOX} .drmath-preview-progress > span {{ display: block; height: 100%; width: 5%; border-radius: 3px;
  background: #2563eb; animation: none; transition: width 0.4s ease; }}
@media (prefers-reduced-motion: reduce) {{ {_BOX} .drmath-preview-progress > span {{ transition: none; }} }}
{_BOX} .drmath-go-live {{ margin: 8px 0 2px; padding: 6px 14px; font: inherit; font-weight: 600; color: white;
  background: #2563eb; border: 0; border-radius: 6px; cursor: pointer; }}
{_BOX} .drmath-static-explainer {{ margin-top: 32px; padding-bottom: 120px; border-top: 1px solid #e4e7eb; }}
{_BOX} .drmath-static-more {{ font-size: 20px; margin: 16px 16px 0; }}
@media (max-width: 600px) {{ {_BOX} .drmath-preview-status {{ padding: 6px 10px; }}
  {_BOX} .drmath-preview-status p {{ font-size: 12px; line-height: 1.35; margin-top: 4px; }} }}
body.drmath-previewing {{ overflow: hidden; }}""")


def cut_template_box(chunk):
    """``chunk`` of the Voilà page without the template's own preview box (between :data:`BOX_START` and
    :data:`BOX_END`); the chunk as it is when it holds none."""
    i = chunk.find(BOX_START)
    j = chunk.find(BOX_END, i + 1) if i >= 0 else -1
    return chunk if j < 0 else chunk[:i] + chunk[j + len(BOX_END):]


class SeatLine:
    """The pages waiting for a seat, first come first served.

    ``await take(admit)`` returns a seat from ``admit()`` (the kernel manager's) once this page is first in
    line and one is free, or None after ``wait`` s or when :data:`~drmath.serve.settings.MAX_SEAT_WAITERS`
    pages wait already; a page that leaves (its ``take`` cancelled) leaves the line. ``beat`` is called every
    :data:`~drmath.serve.settings.HEARTBEAT` s while it waits.
    """

    def __init__(self, most=settings.MAX_SEAT_WAITERS, poll=settings.SEAT_POLL):
        self._line, self._most, self._poll = collections.deque(), most, poll

    def __len__(self):
        return len(self._line)

    async def take(self, admit, wait=settings.SEAT_WAIT, beat=None):
        """A seat (``admit()``'s), or None (see the class docstring)."""
        if not self._line:
            seat = admit()
            if seat is not None:
                return seat
        if len(self._line) >= self._most:
            return None
        me = object()
        self._line.append(me)
        loop = asyncio.get_running_loop()
        start = last = loop.time()
        try:
            while loop.time() - start < wait:
                if self._line[0] is me:
                    seat = admit()
                    if seat is not None:
                        return seat
                await asyncio.sleep(self._poll)
                if beat is not None and loop.time() - last >= settings.HEARTBEAT:
                    last = loop.time()
                    beat()
            return None
        finally:
            self._line.remove(me)
