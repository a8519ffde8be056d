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
from ._plan import Plan, compare, plan, sweep
from ._solve import Solution, solve
from ._uncertainty import Bands, uncertainty
from .scenario import Scenario

__all__ = ["Scenario", "Plan", "plan", "sweep", "solve", "Solution", "uncertainty", "Bands", "compare", "units",
           "presets", "training", "checkpoint", "replication", "reliability", "recovery", "cost"]
__version__ = "0.1.0"
