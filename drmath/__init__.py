"""drmath: the disaster-recovery math of a frontier training run.

The modules hold the equations (``drmath.training``, ``drmath.checkpoint`` …);
:class:`Scenario` holds the inputs and :func:`plan` derives every number::

    >>> import drmath
    >>> p = drmath.plan(drmath.Scenario())
    >>> p.scenario.training.gpus
    8000

Only numpy is imported here; plotly and ipywidgets load where they are used.
"""

from . import checkpoint, cost, presets, recovery, reliability, replication, training, units
from .scenario import Plan, Scenario, plan, sweep

__all__ = ["Scenario", "Plan", "plan", "sweep", "units", "presets", "training", "checkpoint",
           "replication", "reliability", "recovery", "cost"]
__version__ = "0.1.0"
