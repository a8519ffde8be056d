r"""Every formula a notebook page shows is the library's own TeX: none is typed in a notebook (issue 34).

A formula typed into a page drifts from the function that computes the number beside it: notebook 03 said
replication keeps up while t_rep ≤ kτ after the library had moved to k(τ + δ), and notebook 04 gave a slip of
T/2·(G/G_s − 1), 45 days at half standby, where ``plan()`` says 10.5. So a page shows a formula only as output
of a cell that asks the library for it (:func:`drmath.formulas`, ``explain()``), and this module holds that:

- **In the Markdown a notebook writes** (its Markdown cells) there is no display math (``$$…$$``) and no TeX
  command that builds a formula (``\frac``, ``\sqrt``, ``\sum`` …), and inline math names one symbol: a letter or
  a Greek letter (``\tau``), or ``\mathrm{…}`` of letters (``\mathrm{RPO}``), with at most one subscript and
  one superscript (``t_{rep}``, ``u_0``, ``\mathrm{RPO}_{site}``), and a hat or a Delta before it (``\hat M``,
  ``\Delta T``). No operator, no relation, no two symbols:
  ``$k$-th`` passes, ``$k = 6$``, ``$S/\tau$`` and ``$G\lambda$`` do not.
- **In what the cells display** (Markdown and LaTeX outputs of every notebook, executed), each display formula is
  one of the library's TeX strings (a formula function's ``tex`` or ``tex_variants``, the ``.. math::`` of a
  public function's docstring, or the registry's formula for some plan), or the substituted line
  ``explain()`` writes under one (it opens with ``=``); inline math in an output is one symbol, as above, or a
  library string.
"""

import inspect
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import executed_notebook
from test_formulas_once import PLANS

from drmath import (
    calibrate,
    checkpoint,
    cost,
    drills,
    measure,
    quantities,
    recovery,
    reliability,
    replication,
    simulate,
    training,
)
from drmath._formula import docstring_tex

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MODULES = (training, checkpoint, replication, reliability, recovery, cost, calibrate, drills, simulate, measure)

_CODE = re.compile(r"^(```|~~~).*?^\1[^\n]*$|(`+)(?:(?!\2).)+?\2", re.S | re.M)
_SCRIPT = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$])\$(?!\$)([^$\n]+?)(?<!\\)\$(?!\$)")
_BUILDS = re.compile(r"\\(?:frac|dfrac|tfrac|sqrt|sum|prod|int|begin|left|right|lceil|rceil|le|ge|cdot|times)\b")
_SUB = r"(?:\{[^{}]*\}|\\?[A-Za-z0-9*])"
SYMBOL = re.compile(rf"^(?:\\(?:hat|bar|tilde|Delta)\s*)?(?:\\mathrm\{{[A-Za-z]+\}}|\\[A-Za-z]+|[A-Za-z])"
                    rf"(?:_{_SUB})?(?:\^{_SUB})?$")
r"""Inline math that names one symbol: ``\tau``, ``G_s``, ``t_{rep}``, ``\mathrm{RPO}_{site}``, ``\hat M``,
``\Delta T``, ``\tau^*`` (an optimum)."""


def _normal(tex):
    return " ".join(tex.split()).rstrip(",.; ")


def library_tex():
    """Every TeX string the library holds: formula functions' own, their docstrings' math, and the registry's."""
    found = set()
    for module in MODULES:
        for name in module.__all__:
            func = getattr(module, name)
            if not callable(func):
                continue
            found.update(t for t in [getattr(func, "tex", None), *getattr(func, "tex_variants", {}).values()] if t)
            if inspect.isfunction(func):
                found.update(docstring_tex(func))
    for q in quantities.QUANTITIES.values():
        found.update(q.tex(p) for p in PLANS)
    return {_normal(t) for t in found if t}


LIBRARY = library_tex()


def _text(markdown):
    return _CODE.sub(" ", _SCRIPT.sub(" ", str(markdown)))


def typed_formulas(markdown):
    r"""The formulas one Markdown cell types: display math, formula-building TeX, inline math of more than a symbol.

    >>> typed_formulas(r"The interval $\tau$ and $t_{rep}$; the $k$-th copy, `$$x$$` in code.")
    []
    >>> typed_formulas(r"keeps up only if $t_{rep} \le k\tau$: $$T = \frac{C}{G}$$")
    ['$$T = \\frac{C}{G}$$', '$t_{rep} \\le k\\tau$']
    >>> typed_formulas(r"with $k = 6$ and rate $G\lambda$, at most \frac{1}{2}")
    ['$k = 6$', '$G\\lambda$', '\\frac']
    """
    text = _text(markdown)
    found = [f"$${m.group(1)}$$" for m in _DISPLAY.finditer(text)]
    text = _DISPLAY.sub(" ", text)
    found += [f"${m.group(1)}$" for m in _INLINE.finditer(text) if not SYMBOL.match(m.group(1).strip())]
    found += _BUILDS.findall(_INLINE.sub(" ", text))
    return found


def foreign_formulas(markdown, library=LIBRARY):
    r"""The formulas one displayed output shows that are not the library's: a list, empty when every one is.

    >>> foreign_formulas("**Cluster MTBF**\n\n$$M = \\frac{1}{G\\,\\lambda}$$\n\n$$= \\frac{1}{8000}$$ with $M$")
    []
    >>> foreign_formulas("$$\\Delta T = \\frac{T}{2}\\left(\\frac{G}{G_s} - 1\\right)$$ and $t_{rep} \\le k\\tau$")
    ['$$\\Delta T = \\frac{T}{2}\\left(\\frac{G}{G_s} - 1\\right)$$', '$t_{rep} \\le k\\tau$']
    """
    text, found = _text(markdown), []
    for m in _DISPLAY.finditer(text):
        body = _normal(m.group(1))
        if body not in library and not body.startswith("="):
            found.append(m.group(0))
    for m in _INLINE.finditer(_DISPLAY.sub(" ", text)):
        body = m.group(1).strip()
        if not SYMBOL.match(body) and _normal(body) not in library:
            found.append(m.group(0))
    return found


def outputs(nb):
    """(cell index, text) of every Markdown and LaTeX output of an executed notebook."""
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", ()):
            for mime in ("text/markdown", "text/latex"):
                if mime in output.get("data", {}):
                    yield index, output["data"][mime]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """Each notebook executed once, two kernels at a time."""
    pytest.importorskip("nbclient")
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(NOTEBOOKS, pool.map(lambda path: executed_notebook(path, tmp_path_factory), NOTEBOOKS)))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_formula_is_typed_in_a_notebook(path):
    nb = nbformat.read(path, as_version=4)
    typed = [f"cell {i}: {f!r}" for i, cell in enumerate(nb.cells) if cell.cell_type == "markdown"
             for f in typed_formulas(cell.source)]
    assert not typed, (f"{path.name} types formulas; show the library's (drmath.formulas, explain()):\n"
                       + "\n".join(typed))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_formula_a_page_shows_is_the_librarys(executed, path):
    nb = executed[path]
    shown = [text for _, text in outputs(nb) if "$$" in text]
    foreign = [f"cell {i}: {f!r}" for i, text in outputs(nb) for f in foreign_formulas(text)]
    assert not foreign, f"{path.name} displays formulas the library does not hold:\n" + "\n".join(foreign)
    assert shown, f"{path.name} shows no formula of the library's"


def test_the_checks_see_the_drifted_formulas():
    """The two formulas that drifted, as notebooks 03 and 04 typed them: neither rule lets them through."""
    drifted_03 = r"$t_{rep} \le k\tau$; otherwise the backlog grows"
    drifted_04 = r"$$\Delta T = \frac{T}{2}\left(\frac{G}{G_s} - 1\right)$$"
    assert typed_formulas(drifted_03) and typed_formulas(drifted_04)
    assert foreign_formulas(drifted_03) and foreign_formulas(drifted_04)
    assert _normal(replication.launch_spacing.tex) in LIBRARY
    assert _normal(recovery.resume_slip.tex_variants["expected"]) in LIBRARY


def test_formulas_shows_the_librarys_own_strings():
    from drmath import formulas, plan

    assert formulas(checkpoint.checkpoint_bytes) == f"$${checkpoint.checkpoint_bytes.tex}$$\n"
    assert formulas((recovery.resume_slip, "expected")) == f"$${recovery.resume_slip.tex_variants['expected']}$$\n"
    assert formulas((drills.promised_rto, 0)).startswith(r"$$\mathrm{RTO}_c = \hat F^{-1}_{\Sigma}(c)")
    sync = plan().scenario.with_changes({"checkpoint.mode": "sync"})
    assert formulas("checkpoint_stall", of=sync) == f"$${checkpoint.checkpoint_stall.tex_variants['synchronous']}$$\n"
    assert formulas("checkpoint_stall") == f"$${checkpoint.checkpoint_stall.tex_variants['asynchronous']}$$\n"
    assert formulas((calibrate.lognormal_fit, 1))._repr_markdown_().count("$$") == 2  # its censored form


def test_formulas_refuses_what_the_library_does_not_hold():
    from drmath import formulas

    with pytest.raises(ValueError, match="needs at least one formula"):
        formulas()
    with pytest.raises(ValueError, match=r"unknown plan quantity 'rpo_sight': choose from .*rpo_site"):
        formulas("rpo_sight")
    with pytest.raises(ValueError, match=r"checkpoint_stall needs a variant: choose from \['asynchronous', 'measured'"):
        formulas(checkpoint.checkpoint_stall)
    with pytest.raises(ValueError, match=r"resume_slip has no formula variant 'worst': choose from \['expected'\]"):
        formulas((recovery.resume_slip, "worst"))
    with pytest.raises(ValueError, match=r"simulate_run: variant 5 is not one of its docstring's 2 math blocks"):
        formulas((simulate.simulate_run, 5))
    with pytest.raises(ValueError, match="is not a quantity name, a formula function"):
        formulas(3.0)
