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
