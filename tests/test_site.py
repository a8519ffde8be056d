"""Issue 35, one site: the dashboard, the worked answer and every chapter served by ``python -m drmath.serve``.

The fast part checks the routes (every notebook page at its name, anything else under ``notebooks/`` a 404 that
runs nothing) and the bound on the notebook renders (one at a time, each page once, the queue bounded). The browser
part starts one server and walks the site on loopback with every outside request refused: dashboard -> worked
answer -> a chapter -> back, each page's figures drawn, the worked answer's summary links scrolling in place, the
chapter's live controls attached.
"""

import asyncio
import os
import sys
import threading
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlparse

import pytest
import tornado.httputil
import tornado.web

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import CHROMIUM, run_async, start_voila, stop_voila, watch  # noqa: E402

from drmath import _resources  # noqa: E402
from drmath.serve import settings, site  # noqa: E402
from drmath.serve.app import Voila  # noqa: E402
from drmath.serve.handlers import NotFoundHandler  # noqa: E402
from drmath.serve.pages import Explainers, Overloaded, SiteNotebookHandler  # noqa: E402

STEMS = list(_resources.notebook_files())


# --------------------------------------------------------------------------- fast: routes and bounds


def _handler_for(rules, path):
    app = tornado.web.Application(rules)
    request = tornado.httputil.HTTPServerRequest(start_line=tornado.httputil.RequestStartLine("GET", path, "HTTP/1.0"),
                                                 connection=SimpleNamespace(context=None))
    return app.find_handler(request).handler_class


def test_every_notebook_is_a_page_and_anything_else_under_notebooks_is_a_404():
    assert STEMS[0] == "00_worked_answer" and len(STEMS) >= 10  # 00 to 09, the run's chapter included
    assert [s[:2] for s in STEMS] == [f"{i:02d}" for i in range(len(STEMS))]
    rules = Voila._site_rules(SimpleNamespace(base_url="/"), {"voila_configuration": None})
    for stem in STEMS:
        assert _handler_for(rules, f"/notebooks/{stem}") is SiteNotebookHandler
        assert _handler_for(rules, f"/notebooks/{stem}?x=1") is SiteNotebookHandler
    for path in ("/notebooks", "/notebooks/", "/notebooks/nope", "/notebooks/00_worked_answer/",
                 "/notebooks/00_worked_answer.ipynb", "/notebooks/../setup.py", "/notebooks/..%2f..%2fsetup.py",
                 "/notebooks/%2e%2e/%2e%2e/etc/passwd", "/notebooks/dashboard", "/notebooks/00_worked_answer%00"):
        assert _handler_for(rules, path) is NotFoundHandler, path


def test_every_page_links_every_page():
    nav = site.nav_html("/base/", "notebooks/01_time_to_train")
    assert 'href="/base/"' in nav and all(f'href="/base/notebooks/{stem}"' in nav for stem in STEMS)
    links = nav.split("<nav")[1]
    assert links.count('aria-current="page"') == 1 and 'href="/base/notebooks/01_time_to_train" aria-current' in links


def test_notebook_renders_run_one_at_a_time_each_page_once_and_the_queue_is_bounded():
    cache = SiteNotebookHandler.notebooks
    running, most, calls, lock = [0], [0], [], threading.Lock()

    def render(stem):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            calls.append(stem)
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return f"<p>{stem}</p>"

    bounded = Explainers(render, size=cache._size, most=cache._most, most_bytes=cache._most_bytes)
    assert cache._most == settings.MAX_RENDERS and cache._most_bytes == settings.NOTEBOOK_CACHE_BYTES

    async def burst():
        asks = [bounded.get(stem) for stem in STEMS[:settings.MAX_RENDERS] for _ in range(20)]
        first = await asyncio.gather(*asks)
        refused = await asyncio.gather(*(bounded.get(stem) for stem in STEMS), return_exceptions=True)
        again = await asyncio.gather(*(bounded.get(stem) for stem in STEMS[:settings.MAX_RENDERS]))
        return first, refused, again

    first, refused, again = run_async(burst())
    assert most[0] == 1  # one notebook run at a time, whoever asks
    assert sorted(calls[:settings.MAX_RENDERS]) == sorted(STEMS[:settings.MAX_RENDERS])  # each once for 80 asks
    assert again == [f"<p>{s}</p>" for s in STEMS[:settings.MAX_RENDERS]]
    assert any(isinstance(r, Overloaded) for r in refused)  # past MAX_RENDERS waiting: refused, nothing queued
    assert len(calls) == len(set(calls))  # no page rendered twice


def test_a_static_notebook_page_has_its_text_figures_anchors_and_no_code():
    import nbformat.v4 as v4

    nb = v4.new_notebook(cells=[
        v4.new_markdown_cell("# Title\n<a id=\"requirements\"></a>\n\n"
                             "The cost $C = k\\,N$ and [a link](#requirements)."),
        v4.new_code_cell("secret_source_code = 1", outputs=[
            v4.new_output("display_data", {"application/vnd.plotly.v1+json": {"data": [], "layout": {"height": 300}},
                                           "text/html": "<script>4.8 MB of plotly.js</script>"}),
            v4.new_output("display_data", {"application/vnd.jupyter.widget-view+json": {"model_id": "x"}}),
            v4.new_output("stream", name="stdout", text="<b>1 < 2</b>")])])
    page = site.notebook_html(nb)
    assert '<a id="requirements"></a>' in page and 'href="#requirements"' in page and "<math" in page
    assert 'id="drmath-static-nbfig-0"' in page and "plotly.js</script>" not in page
    assert "secret_source_code" not in page and "&lt;b&gt;1 &lt; 2&lt;/b&gt;" in page
    assert "controls come with the live page" in page


# --------------------------------------------------------------------------- the browser walks the site

PAGE_FIGURES_JS = """(sel) => { const f = document.querySelectorAll(sel);
  return f.length > 0 && [...f].every(e => e.querySelector('.main-svg, svg')); }"""

SCROLLED_JS = """(id) => { let e = document.getElementById(id), top = window.scrollY;
  for (let p = e && e.parentElement; p; p = p.parentElement) top += p.scrollTop; return top; }"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is absent")
    log = tmp_path_factory.mktemp("site") / "voila.log"
    # a notebook page's kernel runs its notebook at the request (no pool): the page then loads plotly's extension
    # before it connects, which on a loaded machine took longer than the module's usual 10 s culling time
    proc, url, log = start_voila(log, pool_size=1, cull_idle_timeout=120)
    try:
        # the two notebook pages the walk opens get their static renders now (a request that is not a page
        # navigation renders a page's static start and takes no kernel): the worked answer's before the walk, the
        # chapter's (the server renders one at a time) while the walk goes through the dashboard and the answer
        renders = RenderWatch(proc.pid)
        threads = [threading.Thread(target=_static_request, args=(url + f"notebooks/{stem}",), daemon=True)
                   for stem in ("00_worked_answer", "01_time_to_train")]
        for thread in threads:
            thread.start()
        threads[0].join()
        yield {"proc": proc, "url": url, "log": log, "renders": renders, "warming": threads}
    finally:
        stop_voila(proc)


class RenderWatch:
    """The most notebook renders (nbclient's plain ipykernel, ``ipykernel_launcher``, under the server) seen at once,
    sampled every 0.1 s."""

    def __init__(self, pid):
        import psutil

        self.most, self.seen = 0, set()
        server = psutil.Process(pid)

        def sample():
            while server.is_running():
                try:
                    found = {c.pid for c in server.children(recursive=True)
                             if "ipykernel_launcher" in " ".join(c.cmdline())}
                except psutil.Error:
                    continue
                self.most, self.seen = max(self.most, len(found)), self.seen | found
                time.sleep(0.1)

        threading.Thread(target=sample, daemon=True).start()


def _static_request(url):
    request = urllib.request.Request(url, headers={"Accept": "text/html", "Sec-Fetch-Dest": "iframe",
                                                   "Sec-Fetch-Mode": "navigate"})
    with urllib.request.urlopen(request, timeout=300) as answer:
        assert b"drmath-static-notebook" in answer.read()


def _kernels_started(log):
    return Path(log).read_text().count("Kernel started")


@pytest.mark.browser
def test_unknown_pages_are_404s_and_run_no_notebook(server):
    before = _kernels_started(server["log"])
    for path in ("notebooks/nope", "notebooks/..%2f..%2fsetup.py", "notebooks/%2e%2e/%2e%2e/etc/passwd",
                 "notebooks/00_worked_answer/", "notebooks/00_worked_answer.ipynb"):
        request = urllib.request.Request(server["url"] + path, headers={"Accept": "text/html",
                                                                        "Sec-Fetch-Dest": "document",
                                                                        "Sec-Fetch-Mode": "navigate"})
        with pytest.raises(urllib.error.HTTPError, match="404") as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.read().startswith(b"404 Not Found"), path
    assert _kernels_started(server["log"]) == before  # nothing started, nothing run


@pytest.mark.browser
def test_the_browser_walks_the_site(server, browser):
    began = time.monotonic()
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    external, opened = [], []
    context.route(lambda u: urlparse(u).hostname not in ("127.0.0.1", "localhost"),
                  lambda route: (external.append(route.request.url), route.abort()))
    page = context.new_page()
    context.on("page", lambda new: opened.append(new))
    log = watch(page)
    # the dashboard: its figures drawn, the site's navigation there
    page.goto(server["url"], wait_until="commit", timeout=120_000)
    page.wait_for_function(PAGE_FIGURES_JS, arg=".drmath-figure .js-plotly-plot, .drmath-s-figure [data-figure]",
                           timeout=120_000)
    # -> the worked answer, by the navigation: static first, its text and figures at once
    page.click("#drmath-site-nav summary")
    t0 = time.monotonic()
    page.click('#drmath-site-nav a[href$="notebooks/00_worked_answer"]')
    page.wait_for_function(PAGE_FIGURES_JS, arg=".drmath-static-nbfigure", timeout=30_000)
    first_paint = time.monotonic() - t0
    assert page.locator(".drmath-static-notebook h1").count() == 1
    # its live page: the summary's links scroll within the page (no new tab, no new kernel)
    page.wait_for_function("() => !document.getElementById('drmath-preview')", timeout=240_000)
    page.wait_for_function("""() => document.querySelectorAll('#rendered_cells a[href^="#"][target="_blank"]')
                               .length >= 5""", timeout=60_000)  # JupyterLab's renderer opens them in a tab
    link = page.locator('#rendered_cells a[href^="#"][target="_blank"]').first
    anchor = link.get_attribute("href")[1:]
    before = page.evaluate(SCROLLED_JS, anchor)
    link.click()
    page.wait_for_function(f"() => location.hash === '#{anchor}'", timeout=5_000)
    page.wait_for_function(f"(b) => ({SCROLLED_JS})({anchor!r}) !== b", arg=before, timeout=5_000)
    assert opened == [] and len(context.pages) == 1 and page.url.split("#")[0].endswith("00_worked_answer")
    # -> a chapter: static first, then its live controls: a slider moves and its number changes
    page.click("#drmath-site-nav summary")
    page.click('#drmath-site-nav a[href$="notebooks/01_time_to_train"]')
    page.wait_for_function(PAGE_FIGURES_JS, arg=".drmath-static-nbfigure", timeout=30_000)
    page.wait_for_function("() => !document.getElementById('drmath-preview') && "
                           "document.querySelector('.widget-slider .noUi-handle') && "
                           "document.querySelector('.widget-output .js-plotly-plot .main-svg')", timeout=240_000)
    readout = page.locator(".widget-slider .widget-readout").first
    shown = page.locator(".widget-output").first
    value, text = readout.inner_text(), shown.inner_text()
    page.locator(".widget-slider .noUi-handle").first.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("(v) => document.querySelector('.widget-slider .widget-readout').textContent.trim() "
                           "!== v", arg=value.strip(), timeout=10_000)
    page.wait_for_function("(t) => document.querySelector('.widget-output').innerText !== t", arg=text,
                           timeout=30_000)
    # <- back: the worked answer again, drawn
    page.go_back(wait_until="commit")
    page.wait_for_function(PAGE_FIGURES_JS, arg=".drmath-static-nbfigure, #rendered_cells .js-plotly-plot",
                           timeout=60_000)
    assert external == [], external
    # plotly's JupyterLab extension caches each figure it draws as a PNG on its output's model, which Voilà's
    # models cannot take ("r.setData is not a function", jupyterlab-plotly 7.1.0): the figure is drawn
    errors = [e for e in log["errors"] if "setData is not a function" not in e]
    assert not errors, errors
    page.close(run_before_unload=True)
    context.close()  # the session's Chromium (conftest) stays for the other modules
    print(f"\nthe walk took {time.monotonic() - began:.1f} s; the worked answer's first paint "
          f"{first_paint:.2f} s")


@pytest.mark.browser
def test_the_server_rendered_one_notebook_at_a_time(server):
    for thread in server["warming"]:  # two pages asked for at once
        thread.join(timeout=300)
    assert len(server["renders"].seen) == 2 and server["renders"].most == 1
