"""drmath: the disaster-recovery math of a frontier training run.

The modules hold the equations (``drmath.training``, ``drmath.checkpoint`` …);
:class:`Scenario` holds the inputs, :func:`plan` derives every number in named
steps, and :mod:`drmath.quantities` declares each of them once::

    >>> import drmath
    >>> p = drmath.plan(drmath.Scenario())
    >>> p.scenario.training.gpus
    8000

Only numpy is imported here; pandas, plotly and ipywidgets load where they are used.
"""

from . import checkpoint, cost, presets, recovery, reliability, replication, training, units
from ._explain import Explanation
from ._plan import Plan, compare, explain, formulas, plan, sweep
from ._solve import Solution, solve
from ._uncertainty import Bands, bands, uncertainty  # noqa: F401  (uncertainty: bands()'s old name, warns)
from .architecture import Architecture
from .scenario import Scenario

__all__ = ["Scenario", "Architecture", "Plan", "plan", "explain", "formulas", "Explanation", "sweep", "solve",
           "Solution", "bands", "Bands", "compare", "units", "presets", "training", "checkpoint", "replication",
           "reliability", "recovery", "cost"]
__version__ = "0.1.0"

SUBMODULES = ("calibrate", "drills", "simulate", "scenario", "scenario_io", "quantities", "formatting", "diagrams",
              "comparison", "answer", "offline", "report", "cli", "io", "viz", "dashboard", "serve",
              "measure")
"""The public modules ``import drmath`` does not load (each loads pandas, plotly, ipywidgets or the server's
libraries, or is used by few): ``drmath.calibrate`` and the like import them on first use, as scipy does. The
packages' own modules are imported by name: ``drmath.io.links``, ``drmath.viz.headline``, ``drmath.serve.pages``."""


def __getattr__(name):
    if name in SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(SUBMODULES))
