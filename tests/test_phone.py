"""The dashboard on a phone (issue 22): what a visitor from a shared link sees at 360×740 and 390×844.

Each test opens the page in headless Chromium emulating a phone (viewport, ``is_mobile``, ``has_touch``) on
the session's Voilà (conftest) and checks what is drawn, by element boxes: the headline numbers above the fold,
no chart menu on touch, titles and legends that neither overlap nor get cut, a tier table that fits or says it
scrolls, labels and banners that fit, "tap" instead of "hover", and a glossary for every term of jargon.
Screenshots of each size are saved under pytest's temporary directory; their paths are printed.
"""

import re
import sys
from pathlib import Path

import pytest

from drmath.dashboard import page
from drmath.dashboard.cards import DEFINITIONS

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import READY_JS, watch

pytestmark = pytest.mark.browser

PHONES = [(360, 740), (390, 844)]
HEADLINE = ("rpo_site", "rto_site", "total_dr_cost")  # the numbers a visitor must see first


def open_page(browser, url, width, height, **device):
    """The live page at ``width`` × ``height`` (``device``: more of Playwright's context options), once its static
    box has gone: ``(context, page, its console log)``."""
    context = browser.new_context(viewport={"width": width, "height": height}, **device)
    pg = context.new_page()
    log = watch(pg)
    pg.goto(url, wait_until="commit", timeout=120_000)
    pg.wait_for_function(READY_JS, timeout=120_000, polling=100)
    pg.wait_for_function("() => !document.getElementById('drmath-preview')", timeout=60_000)
    pg.wait_for_timeout(600)  # plotly fits each plot to its box on the next frame
    return context, pg, log


def open_phone(browser, url, width, height):
    return open_page(browser, url, width, height, is_mobile=True, has_touch=True, device_scale_factor=1)


def close(context, pg):
    pg.close(run_before_unload=True)
    context.close()


@pytest.fixture(scope="module", params=PHONES, ids=lambda s: f"{s[0]}x{s[1]}")
def phone(request, voila_server, browser):
    """One phone-sized page per size, shared by the tests of this module."""
    width, height = request.param
    context, pg, log = open_phone(browser, voila_server["url"], width, height)
    yield {"page": pg, "width": width, "height": height, "log": log}
    close(context, pg)


BOX_JS = "e => { const r = e.getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom}; }"


def test_the_first_screen_shows_the_headline_numbers(phone):
    pg, height = phone["page"], phone["height"]
    pg.evaluate("() => { for (const e of document.querySelectorAll('*')) { e.scrollTop = 0; } window.scrollTo(0, 0); }")
    for name in HEADLINE:
        card = pg.locator(f".drmath-kpi-{name}").first
        box = card.evaluate(BOX_JS)
        assert box["t"] >= 0 and box["b"] <= height, f"{name} is below the fold: {box}"
        assert card.inner_text().strip()


# plotly shows its menu by the opacity of its groups (on hover), not of the bar
MENU_SHOWN_JS = """const menuShown = m => {
  const bar = m && m.querySelector('.modebar');
  if (!bar || bar.offsetParent === null) return false;  // not rendered (display: none here or above)
  const r = bar.getBoundingClientRect();
  if (getComputedStyle(bar).visibility === 'hidden' || r.width === 0 || r.height === 0) return false;
  return [...m.querySelectorAll('.modebar-group')].some(g => parseFloat(getComputedStyle(g).opacity) > 0
                                                            && g.getBoundingClientRect().width > 0);
};"""

VISIBLE_MODEBARS_JS = "() => {" + MENU_SHOWN_JS + """
return [...document.querySelectorAll('.drmath-figure')].map(f => {
  const m = f.querySelector('.modebar-container');
  if (!m) return 0;
  return menuShown(m) ? 1 : 0;
}); }"""


def test_the_chart_menu_is_hidden_on_a_touch_screen(phone):
    """A tap on a chart (plotly shows its menu on hover or focus, and a touch screen hovers where it was tapped)
    leaves no menu over it."""
    pg = phone["page"]
    shown = []
    for i in range(pg.locator(".drmath-figure").count()):
        figure = pg.locator(".drmath-figure").nth(i)
        figure.scroll_into_view_if_needed()
        figure.locator(".main-svg").first.tap(position={"x": 170, "y": 150}, force=True)
        pg.wait_for_timeout(400)  # plotly fades its menu in over 0.3 s
        shown.append(pg.evaluate(VISIBLE_MODEBARS_JS)[i])
    assert shown == [0] * len(shown)


FIGURE_BOXES_JS = "() => {" + MENU_SHOWN_JS + """
return [...document.querySelectorAll('.drmath-figure')].map(f => {
  const box = e => { if (!e) return null; const r = e.getBoundingClientRect();
    return (r.width > 0 && r.height > 0) ? {l: r.left, t: r.top, r: r.right, b: r.bottom} : null; };
  const m = f.querySelector('.modebar-container');
  const modebar = menuShown(m) ? box(m.querySelector('.modebar')) : null;
  const svg = f.querySelector('.main-svg');
  return {name: [...f.classList].find(c => c.startsWith('drmath-figure-')), figure: box(svg),
          title: box(f.querySelector('.gtitle')), text: (f.querySelector('.gtitle') || {}).textContent,
          legend: box(f.querySelector('.legend')), modebar};
}); }"""


def _meet(a, b):
    if a is None or b is None:
        return False
    return a["l"] < b["r"] and b["l"] < a["r"] and a["t"] < b["b"] and b["t"] < a["b"]


def test_titles_legends_and_the_menu_never_overlap_and_no_title_is_cut(phone, tmp_path_factory):
    pg, width = phone["page"], phone["width"]
    shots = tmp_path_factory.mktemp(f"phone-{width}")
    found = []
    for i in range(pg.locator(".drmath-figure").count()):
        figure = pg.locator(".drmath-figure").nth(i)
        figure.scroll_into_view_if_needed()
        path = shots / f"figure-{i}.png"
        figure.screenshot(path=path)
        print(f"screenshot {width}px: {path}")
    pg.evaluate("() => { for (const e of document.querySelectorAll('*')) e.scrollTop = 0; window.scrollTo(0, 0); }")
    pg.screenshot(path=shots / "first-screen.png")
    print(f"screenshot {width}px: {shots / 'first-screen.png'}")
    for f in pg.evaluate(FIGURE_BOXES_JS):
        assert f["title"] is not None, f
        inside, title = f["figure"], f["title"]
        if not (inside["l"] - 0.5 <= title["l"] and title["r"] <= inside["r"] + 0.5
                and inside["t"] - 0.5 <= title["t"]):
            found.append(f"{f['name']}: title {f['text']!r} is cut: {title} outside {inside}")
        if _meet(title, f["legend"]):
            found.append(f"{f['name']}: title {title} and legend {f['legend']} overlap")
        if _meet(title, f["modebar"]):
            found.append(f"{f['name']}: title {title} and chart menu {f['modebar']} overlap")
        if _meet(f["legend"], f["modebar"]):
            found.append(f"{f['name']}: legend {f['legend']} and chart menu {f['modebar']} overlap")
    assert found == []


TIERS_JS = """() => {
  const box = document.querySelector('.drmath-tiers'), inner = box.querySelector('.widget-html-content') || box;
  const scroller = [box, inner, box.querySelector('table')].find(e => e.scrollWidth > e.clientWidth + 1) || null;
  const hint = getComputedStyle(box, '::before');
  const first = box.querySelector('tbody th');
  return {overflows: !!scroller, hint: hint.content, hintShown: hint.display !== 'none',
          sticky: first ? getComputedStyle(first).position : null};
}"""


CAPTION_JS = """(left) => {
  const box = document.querySelector('.drmath-tiers'), caption = box.querySelector('caption');
  for (const e of [box, box.querySelector('.widget-html-content')]) { if (e) e.scrollLeft = left; }
  const r = caption.getBoundingClientRect();
  return {left: r.left, right: r.right, cut: caption.scrollWidth > caption.clientWidth + 1};
}"""


def test_the_tier_table_fits_or_says_that_it_scrolls(phone):
    pg, width = phone["page"], phone["width"]
    got = pg.evaluate(TIERS_JS)
    if got["overflows"]:
        assert got["hintShown"] and "scroll" in got["hint"], got
        assert got["sticky"] == "sticky", got  # each row keeps its tier's name in view while it scrolls
    # the column definitions wrap to the screen and stay in view while the columns scroll (they ran out of view,
    # cut mid-word, inside a caption as wide as the table)
    before, after = pg.evaluate(CAPTION_JS, 0), pg.evaluate(CAPTION_JS, 400)
    pg.evaluate(CAPTION_JS, 0)
    for box in (before, after):
        assert 0 <= box["left"] and box["right"] <= width and not box["cut"], (before, after)


LABELS_JS = """() => [...document.querySelectorAll('.drmath-controls .widget-label, .drmath-card-title')]
  .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""


READOUTS_JS = """() => [...document.querySelectorAll('.drmath-controls .widget-readout')]
  .filter(e => e.offsetParent !== null).map(e => [e.textContent.trim(), e.scrollWidth, e.clientWidth,
                                                   e.getBoundingClientRect().right])"""


def test_slider_labels_and_banners_fit(phone, voila_server, browser):
    pg, width = phone["page"], phone["width"]
    assert pg.evaluate(LABELS_JS) == []
    right = pg.locator(".drmath-controls").first.evaluate("e => e.getBoundingClientRect().right")
    cut = [(text, scroll, client, edge) for text, scroll, client, edge in pg.evaluate(READOUTS_JS)
           if scroll > client + 1 or edge > right]
    assert cut == [], "a slider's readout runs out of its box"
    # the page opens on the worked answer, which meets every target: a tighter site RPO target makes a banner
    assert pg.locator(".drmath-warning").count() == 0
    pg.locator(".drmath-control-requirements-rpo_site .noUi-handle").first.focus()
    pg.keyboard.press("ArrowLeft")
    pg.wait_for_selector(".drmath-warning", timeout=30_000)
    banners = pg.evaluate("() => [...document.querySelectorAll('.drmath-warning, .drmath-notice-message, "
                          ".drmath-error-message')].map(e => { const r = e.getBoundingClientRect();"
                          " return [r.left, r.right, e.scrollWidth, e.clientWidth]; })")
    assert banners, "a tighter site RPO target than the answer meets: the page shows a warning"
    for left, right, scroll, client in banners:
        assert 0 <= left and right <= width and scroll <= client + 1


def test_the_solve_button_and_its_confidence_choice_show_whole(phone):
    # the button read "apply the cheapest de…" beside a blank choice; each shows whole, the choice its option
    pg, width = phone["page"], phone["width"]
    got = pg.evaluate("""() => [...document.querySelectorAll('.drmath-solve-row button, .drmath-confidence select')]
      .map(e => { const r = e.getBoundingClientRect();
                  const text = e.tagName === 'SELECT' ? (e.options[e.selectedIndex] || {}).text : e.textContent.trim();
                  return [text || null, e.scrollWidth > e.clientWidth + 1,
                          r.left, r.right]; })""")
    assert [text.replace("\xa0", " ") for text, *_ in got] == ["apply the cheapest design", "on point estimates"], got
    for text, cut, left, right in got:
        assert not cut and 0 <= left and right <= width, (text, left, right)


def test_touch_instructions_say_tap_and_a_tapped_title_explains_itself(phone):
    pg = phone["page"]
    intro = pg.locator(".drmath-intro")
    if intro.count() and intro.first.get_attribute("open") is None:  # folded on a phone (numbers first): open it
        intro.first.locator("summary").first.tap()
    text = pg.locator(".drmath-app").first.inner_text()
    assert not re.search(r"\bhover", text, re.I), "a phone cannot hover"
    assert re.search(r"\btap\b", text, re.I)
    title = pg.locator(".drmath-card-title", has_text="Site RPO").first
    title.scroll_into_view_if_needed()
    title.tap()
    explanation = pg.locator(".drmath-card-definition").first
    explanation.wait_for(state="visible", timeout=5_000)
    assert explanation.inner_text().strip() == DEFINITIONS["rpo_site"]
    title.tap()
    explanation.wait_for(state="hidden", timeout=5_000)


JARGON = ("RPO", "RTO", "ETTR", "MFU", "MTBF", "goodput", "Daly", "Young", "DR tier", "drmath solve",
          "requirements.rpo_site", "TOML", "baseline", "schedule slip")
"""Terms a visitor meets on the page (or in its warnings) that need a definition in plain words."""


def test_every_jargon_term_is_defined_in_the_glossary(phone):
    pg = phone["page"]
    summary = pg.locator(".drmath-glossary summary").first
    summary.scroll_into_view_if_needed()
    summary.tap()
    pg.wait_for_timeout(200)
    entries = pg.evaluate("() => [...document.querySelectorAll('.drmath-glossary dt')].map(dt => "
                          "[dt.innerText, dt.nextElementSibling && dt.nextElementSibling.tagName === 'DD' ? "
                          "dt.nextElementSibling.innerText : '', dt.getBoundingClientRect().height > 0])")
    for term in JARGON:
        defined = [(words, shown) for dt, words, shown in entries if term.lower() in dt.lower()]
        assert defined, f"{term!r} is not in the glossary"
        assert all(len(words.split()) >= 6 and shown for words, shown in defined), (term, defined)
    # every term of the page's own list is in its glossary, and every acronym the page shows is in it
    assert {t for t, _ in page.GLOSSARY} <= {dt for dt, _, _ in entries}
    text = pg.locator(".drmath-app").first.inner_text()
    acronyms = set(re.findall(r"\b[A-Z]{3,5}\b", text)) - {"TRAINING", "CHECKPOINTS", "REPLICATION", "FAILURES",
                                                            "AND", "FAILOVER", "MEET", "THESE", "TARGETS"}
    defined = " ".join(dt for dt, _, _ in entries)
    assert {a for a in acronyms if a not in defined} == set()


def test_on_a_laptop_the_chart_menu_leaves_every_title_clear(voila_server, browser):
    """The architect's 1400×900 screen: hovering a chart shows its menu, which must not cover the title."""
    context, pg, _ = open_page(browser, voila_server["url"], 1400, 900)
    found, menus = [], 0
    for i in range(pg.locator(".drmath-figure").count()):
        figure = pg.locator(".drmath-figure").nth(i)
        figure.scroll_into_view_if_needed()
        figure.locator(".main-svg").first.hover(position={"x": 200, "y": 150}, force=True)
        pg.wait_for_timeout(400)  # plotly fades its menu in over 0.3 s
        f = pg.evaluate(FIGURE_BOXES_JS)[i]
        menus += f["modebar"] is not None
        if _meet(f["title"], f["modebar"]):
            found.append(f"{f['name']}: title {f['title']} and chart menu {f['modebar']} overlap")
        if _meet(f["title"], f["legend"]):
            found.append(f"{f['name']}: title {f['title']} and legend {f['legend']} overlap")
    # the page opens on the worked answer, which meets every target: a tighter site RPO target makes a banner
    pg.locator(".drmath-control-requirements-rpo_site .noUi-handle").first.focus()
    pg.keyboard.press("ArrowLeft")
    pg.wait_for_selector(".drmath-warning", timeout=30_000)
    banners = pg.evaluate("() => [...document.querySelectorAll('.drmath-warning')]"
                          ".map(e => e.getBoundingClientRect().right)")
    width = pg.evaluate("() => document.documentElement.clientWidth")
    close(context, pg)
    assert banners and max(banners) <= width, f"a banner's right edge is cut: {banners} > {width}"
    assert menus == 5, "hovering a chart shows its menu on a laptop"
    assert found == []


# each card title whose text runs past its card's content box (the next card then covers it): [text, how far, px]
TITLES_CUT_JS = """() => [...document.querySelectorAll('.drmath-card-title')].filter(e => e.offsetParent !== null)
  .map(e => { const text = document.createRange(); text.selectNodeContents(e);
              const card = e.closest('.drmath-card');
              const edge = card.getBoundingClientRect().right - parseFloat(getComputedStyle(card).paddingRight);
              const past = text.getBoundingClientRect().right - edge;
              return [e.textContent, Math.round(past)]; })
  .filter(([, past]) => past > 0.5)"""


def test_on_a_laptop_every_card_title_shows_whole(voila_server, browser):
    """At 1400×900 (the architect's screen) and 1280×800 the cards share one row, and "Replication keeps up" ran
    6 and 20 px past its card, where the next card covered its last letter; a title wraps instead."""
    context, pg, _ = open_page(browser, voila_server["url"], 1400, 900)
    try:
        for width, height in [(1400, 900), (1280, 800)]:
            pg.set_viewport_size({"width": width, "height": height})
            pg.wait_for_timeout(200)
            assert pg.evaluate(TITLES_CUT_JS) == [], (width, height)
            assert "Replication keeps up" in pg.locator(".drmath-cards").first.inner_text()
    finally:
        close(context, pg)
