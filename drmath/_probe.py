"""Which inputs move nothing: the model says which of its inputs its formulas read for one scenario.

An input "moves nothing" for a plan when no scalar output of :func:`drmath.plan` changes as it takes each of the
values tried (the per-tier table is left out: it shows every tier whatever the scenario's own). The dashboard
disables such a control and says why (:mod:`drmath.dashboard.inert`); the probe itself is a model step, so the
view that draws the controls never calls :func:`drmath.plan`.

    >>> import drmath
    >>> p = drmath.plan(drmath.Scenario().with_changes({"failover.tier": "multi-site"}))
    >>> moves_nothing(p, {"failover.decision_time": (0.0, 28_800.0), "training.gpus": (512, 131_072)})
    ['failover.decision_time']
"""

import math

from ._plan import plan
from .quantities import SCALARS

__all__ = ["moves_nothing"]


def _same(a, b, outputs=SCALARS):
    """Whether two plans agree on every one of ``outputs`` (scalar names; NaN equal to NaN)."""
    for name in outputs:
        x, y = getattr(a, name), getattr(b, name)
        if x != y and not (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y)):
            return False
    return True


def moves_nothing(p, probes, outputs=SCALARS):
    """The inputs among ``probes`` that move no scalar output (or none of ``outputs``) of the plan ``p``.

    Parameters
    ----------
    p : Plan
        The plan judged (its scenario is varied one input at a time).
    probes : dict of str to sequence
        Each input path, ``section.field``, and the values it is tried at (e.g. a control's extremes), in SI.
    outputs : sequence of str, default every scalar output
        The outputs judged (names of :data:`drmath.quantities.SCALARS`).

    Returns
    -------
    paths : list of str
        The probed inputs, in the order given, whose every tried value leaves every scalar output as it is.

    Raises
    ------
    ValueError
        If a path is not an input or a value is outside its field's range (from :meth:`Scenario.with_changes`).

    Examples
    --------
    >>> import drmath
    >>> moves_nothing(drmath.plan(), {"training.gpus": (512, 131_072)})
    []
    >>> moves_nothing(drmath.plan(), {"training.mfu": (0.2, 0.6)}, outputs=["rpo_site", "total_dr_cost"])
    ['training.mfu']
    """
    return [path for path, values in probes.items()
            if all(_same(plan(p.scenario.with_changes({path: v})), p, outputs) for v in values)]
