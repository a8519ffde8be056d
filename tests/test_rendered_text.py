r"""What MathJax made of each page, read from the rendered page: no prose or money typeset as math, no raw TeX.

Voilà (and JupyterLab) hand every Markdown cell, Markdown output and HTML widget to MathJax, which pairs the
dollars it finds in one run of text and typesets what lies between them: two amounts of money in a sentence
became italic math ("at best for *68.43M,* 47.78M more"). The source can look right and the page be wrong, so
this module renders every notebook (``notebooks/NN_*.ipynb``, found by glob) with Voilà and the project's
``drlab`` template, and the dashboard with ``python -m drmath.serve``, in headless Chromium, and reads:

- every MathJax-typeset element (MathJax 3 writes ``<mjx-container class="MathJax">`` with the MathML it
  typeset in ``<mjx-assistive-mml>``): outside ``\text{…}`` (``<mtext>``) it holds no word of three or more
  letters spelled one italic letter at a time (TeX names its identifiers ``\mathrm{RPO}``, or as subscripts),
  and no amount of money (a number with ``k``/``M``/``B``, or a ``$``);
- every visible text node outside the math, code and scripts: no raw ``$…$``/``$$`` and no TeX command
  (``\frac``, ``\mathrm`` …): what MathJax should have typeset and did not.

Each notebook's page is also read to its end: Voilà runs a page's cells with nbclient and streams the page as they
run, and a page that stopped half-way (nbclient issue #312: a cell that drew into an ``ipywidgets.Output`` with
``with output: display(...)`` had nbclient send the widget's outputs back on the shell channel while it waited there
for the cell's reply; on 2-core machines the reply was never seen, and notebook 01 stopped after its first figure in
every one of a dozen loads, until :class:`drmath.offline.Redraw` set the outputs itself) never fires the page's
``load`` event, which :func:`render` waits for.

One Voilà serves all the notebooks (tree mode); one Chromium (conftest's ``browser``) reads them.
"""

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import NOTEBOOKS, READY_JS, watch

pytestmark = pytest.mark.browser

TIMEOUT = 300_000
"""How long a notebook may take to run and show in Voilà on a busy machine. [ms]"""

# The MathML MathJax typeset, per element: the text outside <mtext> (mtext written as a space), and the runs of
# single-letter <mi> siblings outside sub- and superscripts (a word spelled as italic letters is prose).
MATH_JS = r"""() => [...document.querySelectorAll('mjx-container, .MathJax, .MathJax_Display')].map(box => {
  const math = box.querySelector('mjx-assistive-mml math, math') ;
  if (!math) return {text: box.textContent, outside: box.textContent, runs: []};
  const SCRIPTS = new Set(['msub', 'msup', 'msubsup', 'munder', 'mover', 'munderover']);
  let outside = '';
  const runs = [];
  function walk(node, inScript) {
    let run = '';
    const flush = () => { if (run) runs.push(run); run = ''; };
    [...node.children].forEach((child, i) => {
      const tag = child.tagName.toLowerCase();
      if (tag === 'mtext') { flush(); outside += ' '; return; }
      if (tag === 'mi' && !inScript && child.textContent.length === 1) {
        run += child.textContent; outside += child.textContent; return;
      }
      flush();
      if (!child.children.length) { outside += child.textContent; return; }
      // a script's base is read as normal text; its sub- and superscripts are identifiers' names
      if (SCRIPTS.has(tag)) {
        [...child.children].forEach((part, j) => {
          if (j === 0) walk({children: [part]}, inScript);
          else walk(part.children.length ? part : {children: [part]}, true);
        });
        return;
      }
      walk(child, inScript);
    });
    flush();
  }
  walk(math, false);
  return {text: box.textContent, outside, runs};
})"""

# Every visible text node outside math, code, scripts and styles.
TEXT_JS = r"""() => {
  const root = document.querySelector('#rendered_cells') || document.body;
  const skip = 'mjx-container, .MathJax, script, style, code, pre, noscript, textarea, #drmath-preview';
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest(skip) || !n.textContent.trim()) continue;
    if (el.checkVisibility && !el.checkVisibility()) continue;
    out.push(n.textContent);
  }
  return out;
}"""

# MathJax has typeset every element it found, and the count has held still for a while
SETTLED_JS = """() => {
  const shown = document.querySelector('#rendered_cells');
  if (!shown || shown.style.display === 'none') return false;
  const n = document.querySelectorAll('mjx-container').length + ':' + document.body.textContent.length;
  const now = performance.now();
  if (window.__drmathMath !== n) { window.__drmathMath = n; window.__drmathMathAt = now; return false; }
  return now - window.__drmathMathAt > 3000;
}"""

WORD = re.compile(r"[A-Za-z]{3,}")
MONEY_IN_MATH = re.compile(r"\$|(?<![\w.])\d+(?:[.,]\d+)*\s*[kMB](?![A-Za-z])")
RAW_MATH = re.compile(r"\$\$|\$(?=[^\d\s$−+-])(?![kMB]\b)")
"""A dollar that opens a formula left as text (``$\tau$``, ``$$``); a dollar before a number is money,
``[$M]`` or ``$M / day`` a unit."""
TEX_COMMAND = re.compile(r"\\[A-Za-z]{2,}")


def typeset_faults(page):
    """What MathJax typeset wrongly or left as TeX on ``page``: a list of readable complaints, empty when right."""
    faults = []
    for box in page.evaluate(MATH_JS):
        words = [w for run in box["runs"] for w in WORD.findall(run)]
        if words:
            faults.append(f"prose typeset as math ({', '.join(words)}): {box['text'][:160]!r}")
        if MONEY_IN_MATH.search(box["outside"]):
            faults.append(f"money typeset as math: {box['text'][:160]!r}")
    for text in page.evaluate(TEXT_JS):
        if RAW_MATH.search(text):
            faults.append(f"raw $…$ left as text: {text[:160]!r}")
        if TEX_COMMAND.search(text):
            faults.append(f"TeX command left as text: {text[:160]!r}")
    return faults


def render(browser, url, whole=True):
    """Open ``url`` in a fresh page and wait until its cells show and MathJax has settled; the page and its log.

    ``whole``: wait for the page to arrive to its end (its ``load`` event) first; the dashboard, whose response
    goes on until its kernel is live, is read as it comes (False)."""
    context = browser.new_context(viewport={"width": 1200, "height": 1400})
    page = context.new_page()
    log = watch(page)
    page.goto(url, wait_until="load" if whole else "commit", timeout=TIMEOUT)
    page.wait_for_function(SETTLED_JS, timeout=TIMEOUT, polling=500)
    return page, log


def close(page):
    context = page.context
    try:
        page.close(run_before_unload=True)
    finally:
        context.close()


def test_every_notebook_is_found():
    assert len(NOTEBOOKS) >= 8 and NOTEBOOKS[0].startswith("00_")


WORKED_ANSWER = "00_worked_answer.ipynb"


@pytest.fixture(scope="module")
def worked_answer(browser, notebook_server):
    """The worked answer's page, rendered once for the two tests that read it."""
    page, _ = render(browser, f"{notebook_server}voila/render/{WORKED_ANSWER}")
    yield page
    close(page)


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_no_prose_or_money_is_typeset_as_math_in_the_notebook(browser, notebook_server, notebook, request):
    kept = notebook == WORKED_ANSWER
    page = request.getfixturevalue("worked_answer") if kept else \
        render(browser, f"{notebook_server}voila/render/{notebook}")[0]
    try:
        errors = page.evaluate("() => [...document.querySelectorAll('.jp-OutputArea-output pre')]"
                               ".map(e => e.textContent).filter(t => /Traceback|Error/.test(t))")
        assert errors == [], errors[0][-2000:] if errors else ""
        assert page.locator("mjx-container").count() > 0  # MathJax ran: the check below read typeset math
        faults = typeset_faults(page)
        assert faults == [], "\n".join(faults)
    finally:
        if not kept:
            close(page)


def test_no_prose_or_money_is_typeset_as_math_on_the_dashboard(browser, voila_server):
    page, _ = render(browser, voila_server["url"], whole=False)
    try:
        page.wait_for_function(READY_JS, timeout=TIMEOUT, polling=200)
        for toggle in page.locator("[class*='drmath-math-toggle-'] button, button[class*='drmath-math-toggle-']").all():
            toggle.click()  # "show the math": every card's derivation, typeset
        page.locator(".drmath-solve button, button.drmath-solve").first.click()  # the solution's sentence
        page.wait_for_function("() => (document.querySelector('.drmath-solution') || {}).textContent",
                               timeout=TIMEOUT)
        page.wait_for_function(SETTLED_JS, timeout=TIMEOUT, polling=500)
        assert page.locator(".drmath-math mjx-container").count() > 0
        faults = typeset_faults(page)
        assert faults == [], "\n".join(faults)
    finally:
        close(page)


SUMMARY_JS = r"""() => {
  const table = [...document.querySelectorAll('#rendered_cells table')]
    .find(t => /Site RTO promised/.test(t.textContent));
  if (!table) return null;
  return [...table.querySelectorAll('tbody tr')].map(tr => {
    const cells = [...tr.querySelectorAll('td')];
    const a = cells[1] && cells[1].querySelector('a[href^="#"]');
    const id = a ? decodeURIComponent(a.getAttribute('href').slice(1)) : null;
    return {point: cells[0].textContent.trim(), figure: cells[1] ? cells[1].textContent.trim() : '',
            href: id, target: id && document.getElementById(id) ? document.getElementById(id).tagName : null};
  });
}"""


def test_the_worked_answer_opens_with_a_summary_whose_figures_link_to_their_sections(worked_answer):
    """The summary table as Voilà shows it: every row, every figure a link, every link to an element of the page."""
    import datetime as dt

    from drmath import answer, drills, presets, solve
    from drmath.formatting import format_quantity
    from drmath.io import scenarios
    from drmath.io.drills import example_log, read_drill_records

    seed = scenarios.SCENARIO_DIR / "seed.toml"
    solution = solve(scenarios.load(seed))
    promise = drills.promised_rto(read_drill_records(example_log()), 0.95, as_of=scenarios.read_meta(seed)["date"])
    rows = worked_answer.evaluate(SUMMARY_JS)
    lead = worked_answer.locator("#rendered_cells p", has_text="The answer.").first.inner_text()
    assert rows, "no summary table on the page"
    shown = {row["point"]: row for row in rows}
    points = {"Site RPO", "Site RTO promised", "Site RTO planned", "Replication", "DR tier", "Cost", "Drills"}
    assert points <= set(shown)
    assert [p for p in shown if p.startswith("Requirement: ")]
    assert {f"Why not {presets.DR_TIERS[n].label.lower()}" for n in solution.reasons} <= set(shown)
    for row in rows:
        assert row["href"] in answer.SECTIONS.values() and row["target"] is not None, row  # the anchor resolves
    assert shown["Site RPO"]["figure"] == solution.plan.format("rpo_site")
    assert shown["Site RTO promised"]["figure"] == format_quantity(promise.promised, "duration")
    assert shown["Cost"]["figure"] == solution.plan.format("total_cost_of_resilience")  # "$…" as read
    assert promise.expires - promise.as_of >= dt.timedelta(days=30)
    assert solution.plan.format("total_cost_of_resilience") in lead
