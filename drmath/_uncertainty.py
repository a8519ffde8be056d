r"""``bands()``: every headline number's 90% range, from the spreads of a scenario's inputs.

A scenario's inputs may carry spreads (:attr:`drmath.Scenario.uncertainty`: a central interval and a
distribution each, typed by hand or fitted by :mod:`drmath.calibrate`). :func:`bands` draws every
uncertain input at once (:func:`draw_inputs`), derives the plan for all draws in one vectorised pass through
the plan's own steps (:func:`drmath._plan._derive`), and gives each quantity with bands
(:data:`drmath.quantities.BANDED`: the headline numbers) its 5th, 50th and 95th percentiles (:class:`Bands`).

This module is private, as :mod:`drmath._plan` is: its public names are :func:`drmath.bands` and
:class:`drmath.Bands`, so the module and the function never share a name. The function was called
``uncertainty()`` until issue 33: a scenario's ``uncertainty`` is its inputs' spreads, and what the function gives
back is their bands; ``drmath.uncertainty()`` still works, with a :class:`FutureWarning`.

    >>> import drmath
    >>> s = drmath.Scenario().replace(**{"uncertainty.failures.gpu_failure_rate": (2e-7 / 3600, 4e-7 / 3600)})
    >>> b = drmath.bands(s, draws=500, seed=1)
    >>> p05, p50, p95 = b.percentiles["rpo_local"]
    >>> p05 < p50 < p95
    True
"""

import dataclasses
import functools
import math
import warnings
from statistics import NormalDist

import numpy as np

from ._plan import _derive, plan
from .formatting import format_quantity
from .quantities import BANDED, QUANTITIES
from .scenario import FIELDS, Scenario

__all__ = ["bands", "uncertainty", "Bands", "draw", "draw_inputs", "check_draws", "PERCENTILES", "MAX_DRAWS"]

PERCENTILES = (5.0, 50.0, 95.0)
"""The percentiles every band gives: its 90% range and its median."""

MAX_DRAWS = 1_000_000
"""Most draws :func:`bands` takes (memory grows with them)."""


def draw(low, high, distribution, confidence, size, rng):
    r"""Draw an input from the distribution whose central ``confidence`` interval is ``[low, high]``.

    Parameters
    ----------
    low, high : float
        The central interval's ends, ``low < high``, in the input's SI unit (``[s]``, ``[1/s]`` …). [SI]
    distribution : {"lognormal", "normal", "uniform", "loguniform"}
        The distribution's family. [1]
    confidence : float
        The interval's probability :math:`c`, in (0, 1). [1]
    size : int
        How many draws. [1]
    rng : numpy.random.Generator
        Where the randomness comes from. [1]

    Returns
    -------
    x : ndarray
        ``size`` draws, in the unit of ``low`` and ``high``. [SI]

    Notes
    -----
    With :math:`z = \Phi^{-1}\!\left(\tfrac{1 + c}{2}\right)` (1.96 at 95%) and :math:`Z \sim N(0, 1)`,
    :math:`U \sim U(0, 1)`:

    .. math::

       \text{normal: } x = \tfrac{a + b}{2} + \tfrac{b - a}{2z} Z \qquad
       \text{lognormal: } \ln x = \tfrac{\ln a + \ln b}{2} + \tfrac{\ln b - \ln a}{2z} Z

       \text{uniform: } x = \tfrac{a + b}{2} + \tfrac{b - a}{c}\,(U - \tfrac12) \qquad
       \text{loguniform: the same in } \ln x

    so that :math:`P(a \le x \le b) = c` in each case (a uniform's central interval is a share
    :math:`c` of its support).

    References
    ----------
    .. [1] A. Gelman et al., *Bayesian Data Analysis*, 3rd ed., CRC Press, 2013, appendix A (the normal,
       lognormal and uniform distributions and their quantiles).

    Examples
    --------
    >>> x = draw(1.0, 4.0, "lognormal", 0.95, 100_000, np.random.default_rng(0))
    >>> round(float(np.median(x)), 2), round(float(np.mean((x >= 1.0) & (x <= 4.0))), 2)
    (2.0, 0.95)
    """
    log = distribution in ("lognormal", "loguniform")
    a, b = (math.log(low), math.log(high)) if log else (low, high)
    middle, width = (a + b) / 2.0, b - a
    if distribution in ("normal", "lognormal"):
        z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
        x = middle + width / (2.0 * z) * rng.standard_normal(size)
    elif distribution in ("uniform", "loguniform"):
        x = middle + width / confidence * (rng.random(size) - 0.5)
    else:
        raise ValueError(f"distribution = {distribution!r} is not valid: must be one of lognormal, normal, "
                         "uniform, loguniform")
    return np.exp(x) if log else x


def draw_inputs(scenario, draws=2000, seed=0):
    """Every uncertain input of a scenario, drawn: ``{path: ndarray of draws}``, in field order.

    Each input is drawn by :func:`draw` from one ``numpy.random.default_rng(seed)``, in the order of
    :data:`drmath.scenario.FIELDS`, then clipped to its field's valid range (and rounded for a whole
    number), so every draw is a value the Scenario would accept. Empty when the scenario has no spread.

    >>> s = Scenario().replace(**{"uncertainty.training.mfu": (0.35, 0.45)})
    >>> draw_inputs(s, draws=3)["training.mfu"].shape
    (3,)
    """
    rng = np.random.default_rng(seed)
    inputs = {}
    for path, spread in scenario.uncertainty.items():
        info = FIELDS[path]
        x = draw(spread.low, spread.high, spread.distribution, spread.confidence, draws, rng)
        x = np.clip(x, info.low, info.high)
        if info.low_open:
            x = np.maximum(x, np.nextafter(info.low, math.inf))
        inputs[path] = np.round(x) if info.integer else x
    return inputs


def _percentiles(x):
    """The 5th, 50th and 95th percentiles (linear between order statistics; an infinite draw stays infinite)."""
    x = np.sort(np.asarray(x, dtype=float))
    rank = np.asarray(PERCENTILES) / 100.0 * (len(x) - 1)
    lo, hi = x[np.floor(rank).astype(int)], x[np.ceil(rank).astype(int)]
    with np.errstate(invalid="ignore"):
        return tuple(float(v) for v in np.where(lo == hi, lo, lo + (hi - lo) * (rank - np.floor(rank))))


@dataclasses.dataclass(frozen=True)
class Bands:
    """Each headline quantity's spread over the draws of a scenario's uncertain inputs (:func:`bands`): each
    of :data:`drmath.quantities.BANDED`."""

    scenario: Scenario  #: the scenario drawn from
    plan: object  #: its point plan (:func:`drmath.plan`)
    draws: int  #: how many draws
    seed: int  #: the seed of the draws
    inputs: dict  #: ``{path: ndarray}``: the uncertain inputs drawn (empty without uncertainty)
    _samples: dict = dataclasses.field(repr=False, compare=False)

    @property
    def has_uncertainty(self):
        """Whether the scenario has a spread; without one, every band is the point value."""
        return bool(self.inputs)

    @functools.cached_property
    def percentiles(self):
        """``{quantity: (p05, p50, p95)}`` for every quantity with bands, in SI (a flag: the share of draws true)."""
        if not self.has_uncertainty:
            return {name: (float(getattr(self.plan, name)),) * 3 for name in BANDED}
        return {name: _percentiles(self._samples[name]) for name in BANDED}

    def samples(self, name):
        """The quantity ``name`` over the draws, in SI (the point value repeated without uncertainty)."""
        _check(name)
        if not self.has_uncertainty:
            return np.full(self.draws, float(getattr(self.plan, name)))
        return self._samples[name].copy()

    def range(self, name):
        """``(p05, p95)`` of a quantity with bands, in SI: its 90% range."""
        _check(name)
        p05, _, p95 = self.percentiles[name]
        return p05, p95

    def varies(self, name):
        """Whether a quantity with bands varies over the draws, as a reader reads it: its 90% range's two ends
        differ once written (a flag: it holds in some draws and not in others).

        A quantity no drawn input moves (the window's 90 days, a full standby's zero time at reduced capacity)
        has a range from a value to itself; the views show a band only where this is True.

        >>> import drmath
        >>> s = drmath.Scenario().replace(**{"uncertainty.failures.gpu_failure_rate": (1e-6, 2e-6)})
        >>> b = drmath.bands(s, draws=50)
        >>> b.varies("ettr"), b.varies("time_to_train")
        (True, False)
        """
        _check(name)
        if not self.has_uncertainty:
            return False
        kind = QUANTITIES[name].kind
        if kind == "flag":
            share = float(np.mean(self.samples(name)))
            return 0.0 < share < 1.0
        low, high = self.range(name)
        return format_quantity(low, kind) != format_quantity(high, kind)

    def to_json_dict(self):
        """``{"<name>_p05": …, "<name>_p50": …, "<name>_p95": …}`` for every quantity with bands, in SI; an
        unbounded value (inf) is None."""
        return {f"{name}_p{int(q):02d}": (None if math.isinf(v) else v)
                for name, values in self.percentiles.items() for q, v in zip(PERCENTILES, values)}

    def format_range(self, name):
        """The 90% range in words, e.g. ``"90% range 31.2 min – 52.0 min"``; a flag's share of draws that hold."""
        kind = QUANTITIES[name].kind
        if kind == "flag":
            share = float(np.mean(self.samples(name)))
            return f"{format_quantity(True, 'flag')} in {share:.0%} of draws"
        low, high = self.range(name)
        return f"90% range {format_quantity(low, kind)} – {format_quantity(high, kind)}"


def _check(name):
    if name not in BANDED:
        raise ValueError(f"unknown quantity with bands {name!r}: choose from {', '.join(BANDED)}")


def check_draws(draws, seed):
    """``(draws, seed)`` as ints, or a ValueError naming the one that is not a whole number in its range."""
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or not 10 <= draws <= MAX_DRAWS:
        raise ValueError(f"draws = {draws!r} is out of range: must be a whole number in [10, {MAX_DRAWS:,}]")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed = {seed!r} is not valid: must be a whole number >= 0")
    return int(draws), int(seed)


def bands(scenario=None, draws=2000, seed=0):
    """Each headline quantity's 5th, 50th and 95th percentiles over the scenario's uncertain inputs.

    The quantities with bands are the model's choice, :data:`drmath.quantities.BANDED`: the headline numbers.

    Parameters
    ----------
    scenario : Scenario, optional
        The inputs and their spreads (:attr:`drmath.Scenario.uncertainty`); the seed case when omitted.
    draws : int, default 2000
        How many times the uncertain inputs are drawn, 10 to :data:`MAX_DRAWS`. [1]
    seed : int, default 0
        Seed of ``numpy.random.default_rng``: the same seed gives the same draws. [1]

    Returns
    -------
    bands : Bands
        ``percentiles``, ``range(name)``, ``samples(name)``, ``to_json_dict()``, ``format_range(name)``; every
        band is the point plan's value when the scenario has no spread.

    Raises
    ------
    ValueError
        If ``draws`` is not a whole number in [10, MAX_DRAWS] or ``seed`` is not a whole number >= 0.

    Examples
    --------
    >>> import drmath
    >>> drmath.bands().has_uncertainty
    False
    """
    scenario = Scenario() if scenario is None else scenario
    if not isinstance(scenario, Scenario):
        raise TypeError(f"bands() needs a Scenario, got {type(scenario).__name__}")
    draws, seed = check_draws(draws, seed)
    inputs = draw_inputs(scenario, draws, seed)
    samples = {}
    if inputs:
        out = _derive({**scenario.flat(), **inputs})
        samples = {name: np.broadcast_to(np.asarray(out[name], dtype=float), (int(draws),)).copy() for name in BANDED}
    return Bands(scenario=scenario, plan=plan(scenario), draws=int(draws), seed=int(seed), inputs=inputs,
                 _samples=samples)


def uncertainty(scenario=None, draws=2000, seed=0):
    """:func:`bands`, by its old name (until issue 33), with a :class:`FutureWarning`; it goes in 0.3.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     uncertainty().draws, str(caught[0].message)
    (2000, 'drmath.uncertainty() moved to drmath.bands(); the old name goes in 0.3')
    """
    warnings.warn("drmath.uncertainty() moved to drmath.bands(); the old name goes in 0.3", FutureWarning,
                  stacklevel=2)
    return bands(scenario, draws, seed)
