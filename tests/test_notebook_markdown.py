r"""No stray math: every ``$`` the notebooks show is either escaped or part of a formula.

Jupyter and Voilà hand Markdown (cells and ``text/markdown`` outputs) and HTML outputs to MathJax, which
pairs unescaped dollars within a paragraph and typesets what lies between them. Money written as
``$21.24M`` therefore swallows the text up to the next dollar: a sentence, or the rows of a table.
Money outside math is written by :func:`drmath.formatting.markdown_text`, which leaves no ``$`` at all (an entity
in a span); ``\$`` is not enough, as JupyterLab's Markdown renderer drops the backslash before MathJax reads the
page. This test reads the sources and outputs; ``tests/test_rendered_text.py`` reads the page Voilà renders.

This module reads each notebook executed (:func:`conftest.executed_notebook`, two at a time), collects the
Markdown cells and the ``text/markdown`` and ``text/html`` outputs, and fails on every dollar that is
not in a balanced ``$…$`` or ``$$…$$`` span holding TeX.
"""

import re
import sys
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import executed_notebook

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

_CODE = re.compile(r"^(```|~~~).*?^\1[^\n]*$|(`+)(?:(?!\2).)+?\2", re.S | re.M)
_TOKEN = re.compile(r"\\\\|\\\$|\$\$|\$")
_TEXT_GROUP = re.compile(r"\\(?:text|textrm|textit|textbf|mathrm|mathit|mathbf|operatorname)\s*\{")
_MONEY = re.compile(r"\s*(?:\d{1,3}(?:,\d{3})+|\d+\.\d\d\b|\d+(?:\.\d+)?[kMB]\b)")
"""An amount of money where a formula would start: ``21.24M``, ``3,090.85``, ``1.00``."""


def _without_groups(tex):
    """The TeX without the places words are allowed: ``\text{…}``-like groups, sub- and superscripts, commands."""
    out, i = [], 0
    for match in _TEXT_GROUP.finditer(tex):
        if match.start() < i:
            continue
        out.append(tex[i:match.start()])
        depth, j = 1, match.end()
        while j < len(tex) and depth:
            depth += {"{": 1, "}": -1}.get(tex[j], 0)
            j += 1
        i = j
    out.append(tex[i:])
    tex = re.sub(r"[_^](?:\{[^{}]*\}|\w)|\\(?:begin|end)\{[^{}]*\}", " ", "".join(out))
    return re.sub(r"\\[A-Za-z]+", " ", tex)


def looks_like_tex(body):
    r"""Whether the text between two dollars is a formula rather than prose between two amounts of money.

    >>> looks_like_tex(r"C = k\,N\,D"), looks_like_tex(r"P(\text{site event during the run})")
    (True, True)
    >>> looks_like_tex(r"\mathrm{RTO}_{local} = t_{det} + L"), looks_like_tex("1/G"), looks_like_tex("T_{window}")
    (True, True, True)
    >>> looks_like_tex("21.24M; the checkpoint takes 5.67 TB and costs "), looks_like_tex("3,090.85 | 2 | ")
    (False, False)
    """
    if not body.strip() or _MONEY.match(body) or "|" in body:
        return False
    return not re.search(r"[A-Za-z]{4,}", _without_groups(body))


def stray_math(markdown, lone_ok=False):
    r"""The dollars MathJax would misread in one Markdown text: a list of short excerpts, empty when clean.

    Code spans and fences are skipped, ``\$`` is text, and a span cannot cross a blank line (MathJax's
    paragraph rule in Jupyter). Every other dollar must open or close a ``$…$``/``$$…$$`` holding TeX;
    with ``lone_ok`` a dollar that pairs with nothing passes (one HTML text node: MathJax leaves it as text).

    >>> stray_math(r"A $C = k\,N\,D$ formula, \$21.24M escaped, `$x` in code.")
    []
    >>> stray_math("costs $84.95M (at 30% 21.24M); the link $3,090.85")
    ['$84.95M (at 30% 21.24M); the link $']
    >>> stray_math("| warm | $1.00M/day |")
    ['$1.00M/day |']
    """
    found = []
    text = _CODE.sub(lambda m: " " * len(m.group(0)), str(markdown))
    for paragraph in re.split(r"\n[ \t]*\n", text):
        tokens = [m for m in _TOKEN.finditer(paragraph) if m.group(0) in ("$", "$$")]
        i = 0
        while i < len(tokens):
            opening = tokens[i]
            closing = next((t for t in tokens[i + 1:] if t.group(0) == opening.group(0)), None)
            if closing is None:
                if not lone_ok:
                    found.append(paragraph[opening.start():opening.start() + 40].strip())
                i += 1
                continue
            body = paragraph[opening.end():closing.start()]
            if not looks_like_tex(body):
                found.append(paragraph[opening.start():closing.end()][:80])
            i = tokens.index(closing) + 1
    return found


class _Text(HTMLParser):
    """The text of an HTML output, one string per element: MathJax 3 pairs dollars only within one text run."""

    def __init__(self):
        super().__init__()
        self.parts = [""]

    def handle_starttag(self, tag, attrs):
        self.parts.append("")

    def handle_endtag(self, tag):
        self.parts.append("")

    def handle_data(self, data):
        self.parts[-1] += data


def html_texts(html):
    """The text runs of an HTML output, without ``<script>``/``<style>`` bodies."""
    html = re.sub(r"<(script|style)\b.*?</\1>", "", str(html), flags=re.S | re.I)
    parser = _Text()
    parser.feed(html)
    return [part for part in parser.parts if "$" in part]


def texts(nb):
    """(where, kind, text) of every Markdown cell and every Markdown or HTML output of a notebook."""
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            yield f"cell {index}", "markdown", cell.source
        for output in cell.get("outputs", ()):
            data = output.get("data", {})
            if "text/markdown" in data:
                yield f"cell {index} output", "markdown", data["text/markdown"]
            elif "text/html" in data:
                for part in html_texts(data["text/html"]):
                    yield f"cell {index} html", "html", part


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """Each notebook executed once, two kernels at a time."""
    pytest.importorskip("nbclient")
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(NOTEBOOKS, pool.map(lambda path: executed_notebook(path, tmp_path_factory), NOTEBOOKS)))


@pytest.mark.slow  # executes every notebook (~50 s of kernels); the fast set runs them under nbval already
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_stray_math(executed, path):
    problems = [f"{where}: {excerpt!r}"
                for where, kind, text in texts(executed[path]) for excerpt in stray_math(text, kind == "html")]
    assert not problems, f"{path.name}: dollars MathJax would misread (write money as \\$):\n" + "\n".join(problems)


def test_the_checker_sees_the_reported_garbling():
    """The summary of the worked answer as it was reported: money pairs with money across a sentence."""
    summary = "uses 17.3M GPU·h ($84.95M); at 30% MFU 21.24M … for $3,090.85; above $1.00M/day."
    assert stray_math(summary)
    assert not stray_math(summary.replace("$", r"\$"))
    assert stray_math("| cold | $3,090.85 |\n| warm | $21.24M |")
    assert stray_math("$3,090.85", lone_ok=True) == [] and stray_math("$1.5M and $2M", lone_ok=True)
    assert html_texts("<td>$3,090.85</td><script>var a = '$x$';</script>") == ["$3,090.85"]
