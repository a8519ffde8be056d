"""Simulated incident logs of known Weibull gaps, and how often drmath's intervals and bands hold their truth.

Shared by ``tests/test_calibrate_coverage.py`` (a CI size) and ``bench/bench_intervals.py`` (the full size, 500
logs of 300 events). Each log is a Weibull renewal process that fails at the window's start (which only opens
the window) and is fitted by :func:`drmath.calibrate.fit_events` as the reader would fit it: either up to its
300th failure (the window ends at the last event, as a log without ``until`` does) or on a fixed window of 300
mean gaps (``until`` given).

``interval="poisson"`` gives what drmath did before issue 34 (the Garwood interval of the count,
:func:`drmath.calibrate.exponential_fit`), for the before/after columns of the bench.
"""

import functools
import math

import numpy as np
from scipy.special import gamma

import drmath
from drmath import Scenario, plan
from drmath.calibrate import exponential_fit, fit_events, weibull_fit
from drmath.io.incidents import _events
from drmath.scenario import PREFIX, Spread

SHAPES = (0.5, 0.7, 1.0, 1.5)
"""The Weibull shapes of issue 34: 0.7 is what drmath fits on HPC logs; 1 exponential; 1.5 wear-out."""


def renewal_log(rng, shape, mean, events, fixed_end):
    """``(times, window_end)`` of one log: failures at Weibull(``shape``) gaps of mean ``mean`` [s] from 0."""
    scale = mean / gamma(1.0 + 1.0 / shape)
    if not fixed_end:
        times = np.cumsum(np.r_[0.0, scale * rng.weibull(shape, events)])
        return times, float(times[-1])
    end = events * mean
    times = np.cumsum(np.r_[0.0, scale * rng.weibull(shape, 5 * events + 50)])
    assert times[-1] > end  # enough gaps drawn
    return times[times <= end], end


def _fits(shape, logs, events, seed, fixed_end, mean, gpus=None):
    rng = np.random.default_rng(seed)
    for _ in range(logs):
        times, end = renewal_log(rng, shape, mean, events, fixed_end)
        yield fit_events(times, 0.0, end, opens_window=True, gpus=gpus)


def _poisson(fit):
    """The fit's MTBF interval as it was before issue 34: the Poisson count's (Garwood)."""
    return exponential_fit(fit.events, fit.window)[1]


def mtbf_coverage(shape, logs, events=300, seed=0, fixed_end=False):
    """``{"renewal": share, "poisson": share}``: how many of ``logs`` simulated logs have a 95% MTBF interval
    that holds the true MTBF [1], drmath's (renewal) and the Poisson count's of before issue 34, on the same logs."""
    mean = 3600.0
    held = {"renewal": 0, "poisson": 0}
    for fit in _fits(shape, logs, events, seed, fixed_end, mean):
        for name, (lo, hi) in (("renewal", fit.mtbf_ci), ("poisson", _poisson(fit))):
            held[name] += lo <= mean <= hi
    return {name: n / logs for name, n in held.items()}


def band_coverage(shape, logs, events=300, seed=0, fixed_end=False, interval="renewal", draws=1000):
    """The share of ``logs`` simulated logs whose fitted scenario's 90% goodput band (:func:`drmath.bands`, ETTR)
    holds the goodput of the true failure model [1]: the seed scenario's per-GPU rate at ``shape``."""
    base = Scenario()
    gpus, rate = base.training.gpus, base.failures.gpu_failure_rate
    truth = plan(base.with_changes({"failures.gpu_failure_rate": rate, "failures.weibull_shape": shape,
                                    "failures.measured_mtbf": None})).ettr
    held = 0
    for i, fit in enumerate(_fits(shape, logs, events, seed, fixed_end, 1.0 / (gpus * rate), gpus)):
        changes = fit.model()
        if interval != "renewal":
            lo, hi = _poisson(fit)
            changes[PREFIX + "failures.gpu_failure_rate"] = Spread(1.0 / (gpus * hi), 1.0 / (gpus * lo), "lognormal",
                                                                   0.95)
        low, high = drmath.bands(base.with_changes(changes), draws=draws, seed=i).range("ettr")
        held += low <= truth <= high
    return held / logs


def minute_log(rng, shape, mean, events, merge_within=0.0):
    """``(event_starts, window_end, true_times, gaps_from)`` of a log kept to the minute: Weibull gaps, each time
    rounded down to its minute, rows merged by the reader's rule (:func:`drmath.io.incidents._events`: the same
    minute at the default window, else within ``merge_within`` [s] of the row before), the window closed within an
    hour after the last failure; ``gaps_from`` is each event's last row's start."""
    times, end = renewal_log(rng, shape, mean, events, fixed_end=False)
    end = np.floor((end + rng.uniform(0.0, 3600.0)) / 60.0) * 60.0
    recorded = np.floor(times / 60.0) * 60.0
    starts, _, last, *_ = _events(recorded, recorded, np.zeros(recorded.size, dtype=bool), merge_within)
    return starts, end, times, last


def minute_shapes(shape, logs, events=300, seed=0, mean=3600.0, merge_within=0.0):
    """Fits of ``logs`` logs kept to the minute, rows merged within ``merge_within`` [s]: ``{name: (mean shape,
    coverage)}`` for drmath's fit (``grouped``: the gaps interval-censored and conditioned on not being merged, each
    from the last merged row), the same fit of the gaps from each event's first row (``from_starts``, before the
    gaps ran from the last row), the fit that takes the recorded gaps as exact (``exact``, before issue 34) and the
    fit of the true times before rounding (``true``); the coverage is the share whose 95% shape interval holds
    ``shape`` [1]."""
    rng = np.random.default_rng(seed)
    shapes = {"grouped": [], "from_starts": [], "exact": [], "true": []}
    held = dict.fromkeys(shapes, 0)
    for _ in range(logs):
        starts, end, times, last = minute_log(rng, shape, mean, events, merge_within)
        fit = functools.partial(fit_events, starts, 0.0, end, opens_window=True, resolution=60.0,
                                merge_within=merge_within)
        grouped = fit(gaps_from=last)
        # with no row merged after its event's first, the gaps from the first row are the same gaps: one fit
        first = grouped if np.array_equal(last, starts) else fit()
        fits = {name: (f.weibull_shape, f.weibull_shape_ci) for name, f in (("grouped", grouped),
                                                                           ("from_starts", first))}
        fits["exact"] = weibull_fit(np.diff(starts), [end - starts[-1]])[:2]
        fits["true"] = weibull_fit(np.diff(times), [max(end - times[-1], 0.0)])[:2]
        for name, (k, (lo, hi)) in fits.items():
            shapes[name].append(k)
            held[name] += lo <= shape <= hi
    return {name: (float(np.mean(shapes[name])), held[name] / logs) for name in shapes}


def binomial_band(p, n, sigmas=3.0):
    """``(lo, hi)``: ``p`` ± ``sigmas`` binomial standard errors of a share over ``n`` logs [1]."""
    se = math.sqrt(p * (1.0 - p) / n)
    return p - sigmas * se, p + sigmas * se
