"""Meta-test of the formula modules' docstrings (the house rule for a formula).

Every public function of a formula module gives each parameter and return a ``[unit]`` and an
Example whose doctest shows a number. A formula also states its formula in Notes and its source in
References ("Derived here: …" when drmath derives it). Views and helpers are not held to this.
"""

import importlib
import inspect
import re
from pathlib import Path

import pytest

FORMULA_MODULES = ["architecture", "training", "checkpoint", "replication", "reliability", "recovery", "cost",
                   "measure"]
"""Modules whose public functions are formulas: units, Notes, References and Examples."""
MODULES = [*FORMULA_MODULES, "units"]
"""units' functions read and write text: units and Examples only."""


def _public_functions():
    for name in MODULES:
        module = importlib.import_module(f"drmath.{name}")
        for attr in module.__all__:
            obj = getattr(module, attr)
            if inspect.isfunction(obj):
                yield pytest.param(obj, name in FORMULA_MODULES, id=f"{name}.{attr}")


def _sections(doc):
    """numpydoc sections of a docstring: title -> body text (the summary under "")."""
    sections, title, lines = {}, "", []
    rows = inspect.cleandoc(doc).splitlines()
    i = 0
    while i < len(rows):
        if i + 1 < len(rows) and rows[i].strip() and re.fullmatch(r"-{3,}", rows[i + 1].strip()):
            sections[title] = "\n".join(lines)
            title, lines = rows[i].strip(), []
            i += 2
            continue
        lines.append(rows[i])
        i += 1
    sections[title] = "\n".join(lines)
    return sections


def _entries(section):
    """numpydoc entries: a 'name : type' line, then its indented description lines."""
    entries, current = [], None
    for line in section.splitlines():
        if line.strip() and not line.startswith(" "):
            current = [line.strip(), []]
            entries.append(current)
        elif current is not None and line.strip():
            current[1].append(line.strip())
    return entries


def problems(func, formula=True):
    """What ``func``'s docstring lacks, as a list of sentences (empty when it keeps the rule)."""
    doc = func.__doc__
    if not doc:
        return ["no docstring"]
    sections, found = _sections(doc), []
    params = [p for p in inspect.signature(func).parameters if p not in ("self", "cls")]
    if params:
        entries = _entries(sections.get("Parameters", ""))
        documented = {head.split(":")[0].strip().lstrip("*") for head, _ in entries}
        found += [f"parameter {p!r} undocumented" for p in params if p not in documented]
        found += [f"parameter {head!r} ends without [unit]" for head, body in entries
                  if not body or not re.search(r"\[[^\]]+\]$", body[-1])]
    returns = _entries(sections.get("Returns", ""))
    if not returns:
        found.append("no Returns")
    found += [f"return {head!r} ends without [unit]" for head, body in returns
              if not body or not re.search(r"\[[^\]]+\]$", body[-1])]
    examples = sections.get("Examples", "").splitlines()
    outputs = [line for i, line in enumerate(examples) if i and examples[i - 1].lstrip().startswith(">>>")
               and line.strip() and not line.lstrip().startswith(">>>")]
    if not any(re.search(r"\d", line) for line in outputs):
        found.append("no Example whose doctest shows a number")
    if formula:
        if ":math:" not in sections.get("Notes", "") and ".. math::" not in sections.get("Notes", ""):
            found.append("no formula in Notes")
        if not re.search(r"\.\. \[\d+\]\s+\S", sections.get("References", "")):
            found.append("no References (write 'Derived here: ...' with the reasoning when drmath derives it)")
    return found


@pytest.mark.parametrize("func, formula", list(_public_functions()))
def test_formula_docstrings_keep_the_rule(func, formula):
    assert problems(func, formula) == []


def _complete(size, interval):
    r"""A formula that keeps the rule.

    Parameters
    ----------
    size : float
        Bytes :math:`S`. [B]
    interval : float
        Time :math:`\tau`. [s]

    Returns
    -------
    rate : float
        :math:`S / \tau`. [B/s]

    Notes
    -----
    .. math:: r = S / \tau

    References
    ----------
    .. [1] Derived here: bytes over time.

    Examples
    --------
    >>> _complete(10.0, 2.0)
    5.0
    """
    return size / interval


@pytest.mark.parametrize("cut, expected", [
    (("Bytes :math:`S`. [B]", "Bytes :math:`S`."), "parameter 'size : float' ends without [unit]"),
    (("interval : float\n        Time :math:`\\tau`. [s]\n", ""), "parameter 'interval' undocumented"),
    (("        :math:`S / \\tau`. [B/s]", "        :math:`S / \\tau`."), "return 'rate : float' ends without [unit]"),
    (("Notes\n    -----\n    .. math:: r = S / \\tau\n", ""), "no formula in Notes"),
    (("    .. [1] Derived here: bytes over time.\n", ""), "no References"),
    (("    >>> _complete(10.0, 2.0)\n    5.0\n", "    >>> _complete\n    <function>\n"), "no Example whose doctest"),
])
def test_the_rule_fails_a_formula_that_breaks_it(cut, expected):
    """The meta-test is not hollow: each missing piece is reported."""
    assert problems(_complete) == []
    old, new = cut
    assert old in _complete.__doc__

    def broken(size, interval):
        return size / interval
    broken.__doc__ = _complete.__doc__.replace(old, new)
    assert any(p.startswith(expected) for p in problems(broken)), problems(broken)


def test_every_error_test_uses_match():
    """An error test without match= passes on the wrong error (pvlib's uninterpolated message)."""
    here = Path(__file__).resolve().parent
    offenders = []
    for path in sorted(here.glob("test_*.py")):
        text = path.read_text()
        for m in re.finditer(r"pytest\.raises\(", text):
            depth, i = 1, m.end()
            while depth and i < len(text):
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
            call = text[m.start():i]
            if "match=" not in call and "pytest.raises(\\" not in call:
                offenders.append(f"{path.name}: {call[:60]}")
    assert offenders == []
