r"""Each formula's math is written once: beside its function, and the registry points at it.

A formula function's TeX is ``func.tex`` (and ``func.tex_variants``), which its docstring shows.
Every quantity of :mod:`drmath.quantities` whose formula a function computes shows that very
string (the same object, not an equal copy), in every branch a plan can take; the TeX the registry
keeps for itself (definitions, requirement margins) restates no function's formula.
"""

import ast
import inspect
import re
from pathlib import Path

import pytest

from drmath import architecture, checkpoint, cost, plan, quantities, recovery, reliability, replication, training
from drmath._formula import docstring_tex
from drmath.io import scenarios
from drmath.scenario import Scenario

MODULES = (architecture, training, checkpoint, replication, reliability, recovery, cost)

# every branch a formula picks on: sync/async, streamed, policy and keeping up, window- or token-driven,
# inputs set or left to the model, a stall of at least 2M
CHANGES = [
    {}, {"checkpoint.mode": "sync"}, {"checkpoint.mode": "async"}, {"replication.streamed": True},
    {"replication.streamed": False}, {"training.tokens": None}, {"checkpoint.interval": 600.0},
    {"failover.standby_fraction": 0.5}, {"cost.link_hour_price": 50.0}, {"replication.policy": "newest"},
    {"replication.link_bandwidth": 1e8}, {"replication.link_bandwidth": 1e8, "replication.policy": "newest"},
    {"training.gpus": 8}, {"failures.gpu_failure_rate": 1e-3, "checkpoint.mode": "sync"},
    {"training.model": "mixtral-8x7b"}, {"training.active_share": 0.5},
]


def _formula_functions():
    for module in MODULES:
        for name in module.__all__:
            func = getattr(module, name)
            if inspect.isfunction(func):
                yield f"{module.__name__}.{name}", func


def _owned():
    """Every formula function's TeX objects (its .tex and variants), by id, with their names."""
    owned = {}
    for name, func in _formula_functions():
        for key, tex in [("", getattr(func, "tex", None)), *getattr(func, "tex_variants", {}).items()]:
            if tex is not None:
                owned[id(tex)] = f"{name}{'[' + key + ']' if key else ''}"
    return owned


def _normal(tex):
    """TeX with its spacing dropped, so two ways of typing one formula compare equal."""
    return re.sub(r"\\[,;:!]|\\quad|\\qquad|\\cdot|\\left|\\right|\\ |\s|\{|\}", "", tex)


def _written():
    """Every formula the functions write, as TeX: their .tex and variants and their docstrings' math."""
    texts = {}
    for name, func in _formula_functions():
        for tex in [getattr(func, "tex", None), *getattr(func, "tex_variants", {}).values(),
                    *docstring_tex(func)]:
            if tex:
                texts[_normal(tex)] = name
    return texts


def _plans():
    shipped = [scenarios.load(path) for path in scenarios.shipped_scenarios().values()]
    return shipped + [Scenario().with_changes(change) for change in CHANGES]


PLANS = [plan(s) for s in _plans()]


def test_the_branches_are_reached():
    """The plans above take every branch the registry's formulas pick on."""
    seen = {(p.scenario.checkpoint.mode, p.scenario.replication.streamed, p.run_driver) for p in PLANS}
    assert {m for m, _, _ in seen} == {"sync", "async"} and {s for _, s, _ in seen} == {True, False}
    assert {d for _, _, d in seen} == {"window", "tokens"}
    assert any(not p.replication_keeps_up and p.scenario.replication.policy == "every-k" for p in PLANS)
    assert any(not p.replication_keeps_up and p.scenario.replication.policy == "newest" for p in PLANS)
    assert any(p.checkpoint_stall >= 2 * p.mtbf for p in PLANS)


@pytest.mark.parametrize("name", list(quantities.QUANTITIES))
def test_each_formula_is_its_function_s_own_string_or_restates_none(name):
    q, owned, written = quantities.QUANTITIES[name], _owned(), _written()
    for p in PLANS:
        tex = q.tex(p) if hasattr(q, "tex") else (q.formula(p) if callable(q.formula) else q.formula)
        assert tex, name
        if id(tex) in owned:
            continue
        assert _normal(tex) not in written, (
            f"{name}: {tex!r} restates {written[_normal(tex)]}'s formula; point the registry at it instead")


def test_no_tex_literal_in_the_registry_restates_a_function():
    tree = ast.parse(Path(quantities.__file__).read_text())
    written = _written()
    restated = [(node.value, written[_normal(node.value)]) for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip()
                and _normal(node.value) in written]
    assert restated == []


@pytest.mark.parametrize("name, func", list(_formula_functions()))
def test_a_docstring_shows_the_tex_it_carries(name, func):
    """The math a docstring shows is exactly the function's TeX: written in @formula, nowhere else."""
    carried = [t for t in [getattr(func, "tex", None), *getattr(func, "tex_variants", {}).values()] if t]
    assert sorted(docstring_tex(func)) == sorted(carried), name
