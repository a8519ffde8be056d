"""One name per thing: no module of drmath shares its name with a function or class the package exports."""

import importlib
import pkgutil
import pydoc
import subprocess
import sys

import pytest

import drmath


def test_no_module_is_named_like_an_exported_function():
    # fails if drmath/plan.py (or solve.py …) comes back: `import drmath.plan as m` would give the function
    modules = {info.name for info in pkgutil.iter_modules(drmath.__path__)}
    exported = {name for name in dir(drmath) if not isinstance(getattr(drmath, name), type(drmath))}
    assert not sorted(modules & exported)


@pytest.mark.parametrize("path", ["drmath.Plan", "drmath.sweep", "drmath.compare", "drmath.solve",
                                  "drmath.Solution", "drmath._plan.STEPS", "drmath._plan.Plan",
                                  "drmath._solve.Solution", "drmath._solve.SEARCHED", "drmath.Explanation",
                                  "drmath._explain.Explanation", "drmath.explain"])
def test_documented_paths_resolve(path):
    assert pydoc.locate(path) is not None


def test_the_plan_modules_import_as_modules():
    code = ("import drmath._plan as p, drmath._solve as s, drmath._explain as e; "
            "print(p.STEPS[0][0], s.Solution.__name__, e.Explanation.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["checkpoint", "Solution", "Explanation"]


def test_the_old_scenario_shim_is_gone():
    # fails if drmath.scenario hands on plan names again (it made a circle plan -> scenario -> plan)
    scenario = importlib.import_module("drmath.scenario")
    for name in ("plan", "Plan", "sweep", "PLAN_FIELDS"):
        assert not hasattr(scenario, name)


def test_every_public_module_is_reachable_after_import_drmath():
    # fails if a public module of drmath raises AttributeError after `import drmath` (issue 33 found four)
    code = ("import pkgutil, drmath; "
            "names = [m.name for m in pkgutil.iter_modules(drmath.__path__) if not m.name.startswith('_')]; "
            "print(' '.join(n for n in names if not hasattr(drmath, n)) or 'all')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["all"]


def test_explain_is_a_function_of_quantity_names():
    text = drmath.explain("rpo_site")
    assert "RPO" in str(text) and callable(drmath.explain)


def test_the_bands_of_a_scenario_are_bands_and_the_old_name_warns():
    s = drmath.Scenario().replace(**{"uncertainty.training.mfu": (0.3, 0.5)})
    b = drmath.bands(s, draws=50, seed=1)
    assert isinstance(b, drmath.Bands) and b.has_uncertainty
    with pytest.warns(FutureWarning, match=r"drmath.uncertainty\(\) moved to drmath.bands\(\)"):
        old = drmath.uncertainty(s, draws=50, seed=1)
    assert old.percentiles == b.percentiles


def test_plans_side_by_side_have_one_name_comparison():
    from drmath import comparison, viz

    with pytest.warns(FutureWarning, match="drmath.viz.compare.compare_spec moved to drmath.viz.comparison"):
        from drmath.viz.compare import compare_spec
    assert compare_spec is viz.comparison.compare_spec is viz.compare_spec
    with pytest.warns(FutureWarning, match="drmath.comparison.compare_figure moved to drmath.viz"):
        assert comparison.compare_figure is viz.compare_figure
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        comparison.no_such_name  # noqa: B018
