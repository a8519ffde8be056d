r"""Your own fleet: an incident log in, the fitted failure and repair models out, each with its interval.

:func:`fit_events` fits what the literature says matters to a fleet's failure events (an incident log read by
:func:`drmath.io.incidents.read_incidents`, which also says how its rows become events):

- **Time between failures.** A Weibull MLE of the gaps with a profile-likelihood interval for the
  shape (:func:`weibull_fit`): HPC fleets show shapes below 1, a hazard that falls after each failure
  [1]_. The cluster MTBF, window / failures, with a renewal interval that widens the Poisson count's
  (:func:`exponential_fit`) by the gaps' dispersion (:func:`renewal_fit`, :func:`weibull_cv2`), so that
  it covers what it claims for gaps that are not exponential.
- **A trend.** The Laplace test (:func:`laplace_trend`): a failure rate falling over the window
  (burn-in) or rising (wear-out) is flagged in a sentence; ``since`` restricts the fit to a recent
  window.
- **Repairs.** A lognormal fit of the events' durations (:func:`lognormal_fit`): its median and
  :math:`\sigma`.
- **Causes.** Counts and shares by cause, as Llama 3's Table 5 [2]_ gives them (:func:`cause_table`).

scipy is imported inside the functions that use them, so ``import drmath`` stays numpy-only.

References
----------
.. [1] B. Schroeder and G. A. Gibson, "A large-scale study of failures in high-performance computing
   systems," IEEE Trans. Dependable Secure Comput. 7(4), 2010 (Weibull shapes 0.7-0.8 for the time
   between failures).
.. [2] Llama Team, AI @ Meta, "The Llama 3 Herd of Models," arXiv:2407.21783, 2024, section 3.3.4
   and Table 5.

Examples
--------
>>> h = 3600.0
>>> fit = fit_events([0, 5 * h, 9 * h, 16 * h], 0.0, 24 * h, durations=[1800, 720, 2700, 1200])
>>> fit.events, fit.window / h, fit.mtbf / h
(4, 24.0, 6.0)
"""

import math
from dataclasses import dataclass, field

import numpy as np

from ._moved import delegate, forwarder
from ._validate import short_repr, visible, visible_list

__all__ = ["Calibration", "fit_events", "exponential_fit", "renewal_fit", "weibull_cv2", "weibull_fit",
           "weibull_fit_grouped",
           "laplace_trend", "lognormal_fit", "cause_table", "MIN_EVENTS", "CONFIDENCE"]

MOVED = {name: "drmath.io.incidents" for name in (
    "IncidentLogError", "read_incidents", "parse_incidents", "example_log", "count_lines", "check_table",
    "DURATION_UNITS", "MAX_LISTED", "MAX_ROWS", "MAX_COLUMNS", "MAX_CELLS", "MAX_LINE_CHARS", "MAX_CELL_CHARS",
    "MAX_TIME_CHARS", "MAX_FORMAT_CHARS", "MAX_DURATION")}
"""The incident-log reader's names, moved to :mod:`drmath.io.incidents` (issue 33): ``drmath.calibrate.X`` still
gives them, with a :class:`FutureWarning`, until 0.3."""


__getattr__ = forwarder(__name__, MOVED)

MIN_EVENTS = 3
"""Fewest events in the window that are fitted [1]: two gaps, the least a Weibull shape can be fitted to."""

CONFIDENCE = 0.95
"""The level of every interval [1]."""

_SHAPE_BOUNDS = (1e-2, 1e2)
"""Weibull shapes searched [1]; an interval end that reaches a bound is reported as 0 or inf."""



@dataclass(frozen=True)
class Calibration:
    """What an incident log says about a fleet: the fits, their intervals, the causes and the provenance.

    Every time is in seconds and every rate per second (SI). Built by :func:`drmath.io.incidents.read_incidents`,
    :func:`~drmath.io.incidents.parse_incidents` or :func:`fit_events`; :meth:`to_dict` gives the JSON of
    ``drmath calibrate --json``, :meth:`model` the fields the fit sets, and :func:`drmath.io.fits.fragment` them
    as the scenario fragment of ``-o``.
    """

    events: int
    """Failures counted inside the window [1] (an event that only opens the window is not one)."""
    window: float
    """Length of the observation window [s]."""
    mtbf: float
    """Exponential MLE of the cluster MTBF, window / events [s]."""
    mtbf_ci: tuple
    """95% renewal interval of the MTBF [s]: the Poisson count's, widened by the gaps' dispersion
    (:func:`renewal_fit`); Garwood's exact interval for exponential gaps."""
    weibull_shape: float
    """Weibull MLE of the gaps' shape [1]: below 1, a hazard that falls after each failure."""
    weibull_shape_ci: tuple
    """Profile-likelihood 95% interval of the shape [1]."""
    weibull_scale: float
    """Weibull MLE of the gaps' scale [s]."""
    repair_median: float | None
    """Median repair duration, lognormal fit [s]; None with fewer than two durations > 0."""
    repair_sigma: float | None
    """Lognormal sigma of the repair durations [1]."""
    trend: dict
    """Laplace test: ``statistic`` U, two-sided ``p_value``, ``direction`` and ``sentence``."""
    causes: tuple = ()
    """``(cause, count, share)`` for each cause, most frequent first; empty without a cause column."""
    scopes: tuple = ()
    """``(scope, count, share)`` for each scope, as :attr:`causes`."""
    gpus: int | None = None
    """GPUs of the fleet the log covers [1], when given."""
    gpu_failure_rate: float | None = None
    """Failures per GPU per second, 1 / (gpus × mtbf) [1/s]; None without ``gpus``."""
    gpu_failure_rate_ci: tuple | None = None
    """95% interval of the per-GPU rate [1/s], the MTBF's mapped."""
    gaps_cv2: float = 1.0
    """The gaps' squared coefficient of variation the MTBF interval takes [1]: :func:`weibull_cv2` of the
    fitted shape (1 for exponential gaps)."""
    provenance: dict = field(default_factory=dict)
    """Where the numbers come from: file, rows read and used, filter, window, the rows merged."""
    failure_times: np.ndarray | None = field(default=None, repr=False, compare=False)
    """The failures counted, from the window's start [s]: what the trend test took (for the trend figure)."""
    gaps: np.ndarray | None = field(default=None, repr=False, compare=False)
    """The observed gaps between consecutive events [s], each from the last row merged into an event to the next
    event's start: what the Weibull fit took (for the gaps' histogram)."""

    def to_dict(self):
        """The fit as a JSON-ready dict (``drmath calibrate --json``).

        Returns
        -------
        fit : dict
            ``events``, ``window`` [s], ``mtbf`` [s], ``mtbf_ci`` [lo, hi], ``weibull_shape``,
            ``weibull_shape_ci``, ``weibull_scale`` [s], ``gaps_cv2``, ``repair_median`` [s], ``repair_sigma``,
            ``trend`` {``statistic``, ``p_value``, ``direction``}, with ``gpus``:
            ``gpu_failure_rate`` [1/s] and ``gpu_failure_rate_ci``; then ``causes`` (a list of
            ``{cause, count, share}``) and ``provenance``. An infinite interval end is None. [1]

        Examples
        --------
        >>> fit = fit_events([0.0, 3000.0, 9000.0, 10000.0, 18000.0], 0.0, 20000.0)
        >>> fit.to_dict()["mtbf"], fit.to_dict()["trend"]["direction"]
        (4000.0, 'none')
        """
        out = {"events": self.events, "window": self.window, "mtbf": self.mtbf, "mtbf_ci": _pair(self.mtbf_ci),
               "weibull_shape": self.weibull_shape, "weibull_shape_ci": _pair(self.weibull_shape_ci),
               "weibull_scale": self.weibull_scale, "gaps_cv2": self.gaps_cv2, "repair_median": self.repair_median,
               "repair_sigma": self.repair_sigma,
               "trend": {k: self.trend[k] for k in ("statistic", "p_value", "direction")}}
        if self.gpus is not None:
            out["gpus"] = self.gpus
            out["gpu_failure_rate"] = self.gpu_failure_rate
            out["gpu_failure_rate_ci"] = _pair(self.gpu_failure_rate_ci)
        out["causes"] = [{"cause": c, "count": n, "share": s} for c, n, s in self.causes]
        out["provenance"] = dict(self.provenance)
        return out

    def cause_frame(self):
        """The cause table as a pandas DataFrame (index ``cause``; columns ``count``, ``share`` [1]).

        Returns
        -------
        table : pandas.DataFrame
            One row per cause, most frequent first. [1]

        Examples
        --------
        >>> fit_events([0.0, 10.0, 30.0], 0.0, 40.0, causes=["GPU", "NIC", "GPU"]).cause_frame()["count"].tolist()
        [2, 1]
        """
        import pandas as pd

        frame = pd.DataFrame(list(self.causes), columns=["cause", "count", "share"])
        return frame.set_index("cause")

    def summary(self, hints=None):
        """The fit as text for a terminal: how rows became events, the fits and intervals, the trend sentence,
        the cause table.

        Parameters
        ----------
        hints : dict, optional
            The options of the reader's tool to name, by key (``"since"``, ``"until"``, ``"merge_within"``,
            ``"time_format"``), e.g. ``{"since": "--since"}`` on the command line; None names none (the
            dashboard's panel and a notebook have no such options).

        Returns
        -------
        text : str
            Several lines. [1]

        Examples
        --------
        >>> print(fit_events([0.0, 3000.0, 9000.0, 10000.0, 18000.0], 0.0, 20000.0).summary().splitlines()[1])
        Events          5 in a window of 5.56 h
        """
        from .formatting import short_duration as d

        p = self.provenance
        head = f"drmath calibrate: {visible(str(p.get('file', 'incidents')))}"
        used = f"{p['rows_used']:,} of {p['rows_read']:,} rows" if "rows_read" in p else ""
        if p.get("filter"):
            used += f" where {visible_list(p['filter'], ' and ')}"
        lines = [head + (f" ({used})" if used else ""),
                 f"Events          {self.events:,} in a window of {d(self.window)}"
                 + (f" ({p['window_start']} to {p['window_end']})" if p.get("window_start") else ""),
                 *_rows_line(p, d, self.events, hints or {}),
                 f"MTBF            {d(self.mtbf)}   95% interval {d(self.mtbf_ci[0])} to {d(self.mtbf_ci[1])}"
                 f"   (window / events; renewal interval, gaps' CV² {_num(self.gaps_cv2)})",
                 f"Weibull         shape {self.weibull_shape:.3g} (95% interval {_num(self.weibull_shape_ci[0])} "
                 f"to {_num(self.weibull_shape_ci[1])}), scale {d(self.weibull_scale)}   (MLE, profile likelihood"
                 + (f"; times to {d(p['resolution'])}: gaps interval-censored)" if p.get("gaps_interval_censored")
                    else ")")]
        if self.gpu_failure_rate is not None:
            lo, hi = self.gpu_failure_rate_ci
            lines.append(f"Per GPU         {self.gpu_failure_rate:.3g} /s   95% interval {lo:.3g} to {hi:.3g} /s   "
                         f"({self.gpus:,} GPUs; {self.gpu_failure_rate * 86400 * 1000:.3g} per 1,000 GPU-days)")
        if self.repair_median is not None:
            late = p.get("repairs_censored", 0)
            over = (f"{p.get('repairs_fitted', '?')} repairs done and {late:,} still open, right-censored"
                    if late else f"{p.get('repairs_fitted', '?')} events")
            lines.append(f"Repairs         median {d(self.repair_median)}, sigma {self.repair_sigma:.3g}   "
                         f"(lognormal MLE over {over})")
        else:
            lines.append("Repairs         too few durations > 0 to fit")
        t = self.trend
        since = (hints or {}).get("since")
        lines.append(f"Trend           Laplace U = {t['statistic']:.3g}: {t['sentence']}"
                     + (f" ({since})" if since and t["direction"] != "none" else ""))
        if self.causes:
            lines += ["", f"  {'cause':<32} {'count':>6} {'share':>7}"]
            lines += [f"  {c:<32} {n:>6,} {s:>7.1%}" for c, n, s in self.causes]
        return "\n".join(lines)

    def model(self):
        """The fitted failure model as scenario changes: the fields and the spreads of their 95% intervals.

        With ``gpus``, ``failures.gpu_failure_rate`` (and ``failures.measured_mtbf`` unset, so the fitted
        rate is the one the plan uses, scaled to the plan's own GPU count); without, ``failures.measured_mtbf``,
        the fitted cluster MTBF. Then ``failures.weibull_shape``, the fitted shape. Each carries its fitted
        95% interval as a lognormal :class:`drmath.scenario.Spread` (``uncertainty.<path>``). The shape and its
        interval are clipped to the field's range (0.3-3); a shape's interval that clipping empties is left out.

        Returns
        -------
        changes : dict
            ``{path: value}`` and ``{"uncertainty." + path: Spread}`` for :meth:`drmath.Scenario.with_changes`.

        Examples
        --------
        >>> fit = fit_events([0.0, 3000.0, 9000.0, 10000.0, 18000.0], 0.0, 20000.0)
        >>> sorted(fit.model())[:2]
        ['failures.measured_mtbf', 'failures.weibull_shape']
        """
        from .scenario import FIELDS, PREFIX, Spread

        if self.gpu_failure_rate is not None:
            changes = {"failures.gpu_failure_rate": self.gpu_failure_rate, "failures.measured_mtbf": None}
            spreads = {"failures.gpu_failure_rate": self.gpu_failure_rate_ci}
        else:
            changes = {"failures.measured_mtbf": self.mtbf}
            spreads = {"failures.measured_mtbf": self.mtbf_ci}
        info = FIELDS["failures.weibull_shape"]
        changes["failures.weibull_shape"] = float(np.clip(self.weibull_shape, info.low, info.high))
        spreads["failures.weibull_shape"] = tuple(np.clip(self.weibull_shape_ci, info.low, info.high))
        for path, (lo, hi) in spreads.items():
            if math.isfinite(lo) and math.isfinite(hi) and 0 < lo < hi:
                changes[PREFIX + path] = Spread(float(lo), float(hi), "lognormal", CONFIDENCE)
        return changes

    def apply(self, scenario=None):
        """The scenario with the fitted failure model and its uncertainty (:meth:`model`).

        Parameters
        ----------
        scenario : drmath.Scenario, optional
            What the fit applies to; the defaults when omitted.

        Returns
        -------
        scenario : drmath.Scenario
            A copy whose failure model (and its spreads) are the fit's. [1]

        Examples
        --------
        >>> fit = fit_events([0.0, 3000.0, 9000.0, 10000.0, 18000.0], 0.0, 20000.0)
        >>> s = fit.apply()
        >>> s.failures.measured_mtbf, "failures.measured_mtbf" in s.uncertainty
        (4000.0, True)
        """
        from .scenario import Scenario

        return (Scenario() if scenario is None else scenario).with_changes(self.model())

    def fragment(self):
        """Deprecated: the scenario fragment (TOML) moved to :func:`drmath.io.fits.fragment` (issue 33).

        ``fit.fragment()`` gives ``drmath.io.fits.fragment(fit)`` with a :class:`FutureWarning` until 0.3.
        Writing TOML, and checking it as a scenario file is checked, crosses the model's boundary, and this
        module is the model core, which imports nothing from :mod:`drmath.io`; so the method runs the function
        :mod:`drmath.io` registers when it is imported (:func:`drmath._moved.delegate`). A fit comes from
        :func:`drmath.io.incidents.read_incidents`, which imports it; after :func:`fit_events` alone, with
        nothing of :mod:`drmath.io` imported, the method raises a :class:`RuntimeError` that names the new home.

        Returns
        -------
        text : str
            As :func:`drmath.io.fits.fragment`. [1]

        Examples
        --------
        >>> import warnings
        >>> from drmath.io import fits
        >>> fit = fit_events([0.0, 3000.0, 9000.0, 10000.0, 18000.0], 0.0, 20000.0)
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     fit.fragment() == fits.fragment(fit), caught[0].category.__name__
        (True, 'FutureWarning')
        """
        return delegate("drmath.calibrate.Calibration.fragment()", "drmath.io.fits.fragment", self)


def _rows_line(p, d, events, hints):
    """The summary's lines on how rows became events, how times were read and the open incidents (the reader's
    provenance), or none without it; ``hints`` names the reader's options (:meth:`Calibration.summary`)."""
    if "rows_simultaneous" not in p:
        return []
    w = p.get("merge_within", 0.0)
    dup, merged, joined, outside = (p.get(k, 0) for k in ("rows_duplicate", "rows_simultaneous", "rows_joined",
                                                          "events_outside_window"))
    made = p["rows_used"] - dup - merged - joined
    tail = f"; {outside:,} outside the window" if outside else ""
    if p.get("window_opens_at_first_event"):
        tail += f"; the first opens the window, so {events:,} failures"
    lines = [f"Rows            {p['rows_used']:,} rows, {made:,} events: {dup:,} duplicate{'s' * (dup != 1)} dropped, "
             f"{merged:,} merged, {joined:,} joined{tail}"]
    rule = "at the same recorded time as" if w == 0 else f"within {d(w)} of"
    lines.append(f"Merged rows     {merged:,} rows starting {rule} the row before "
                 f"({hints.get('merge_within', 'merge window')} {w:g} s)"
                 + (f"; {joined:,} joined by the join column" if joined else ""))
    if p.get("time_formats"):
        given = f" by {hints['time_format']}" if "time_format" in hints else ""
        how = (f"(the formats given{given}, tried in order)" if p.get("time_formats_given")
               else "(no format given: ISO 8601, then formats inferred from the values)")
        lines.append("Times           " + ", ".join(f"{f!r} ({n:,} cells)" if f != "ISO 8601" else f"{f} ({n:,} cells)"
                                                    for f, n in zip(p["time_formats"], p["time_format_cells"]))
                     + f"   {how}")
    if p.get("open_incidents"):
        n = p["open_incidents"]
        until = f"; {hints['until']} moves it" if "until" in hints else ""
        mute = n - p.get("repairs_censored", n)
        mute = f"; {mute:,} opened at that time, which says nothing of its repair, left out of the fit" if mute else ""
        lines.append(f"Open            {n:,} event{'s' * (n != 1)} with no end time: counted as failures, their "
                     f"repairs right-censored at the window's end ({p.get('window_end')}{until}){mute}")
    return lines


def _pair(ci):
    return None if ci is None else [None if not math.isfinite(x) else float(x) for x in ci]


def _num(x):
    return f"{x:.3g}" if math.isfinite(x) else "inf"


# --------------------------------------------------------------------------- fits on arrays


def exponential_fit(failures, exposure, confidence=CONFIDENCE):
    r"""Exponential MLE of the mean time between failures, with its exact interval.

    Parameters
    ----------
    failures : int
        Failures :math:`r` observed in the window. [1]
    exposure : float
        Length of the window :math:`T`, the total time observed. [s]
    confidence : float, default 0.95
        Level of the two-sided interval :math:`1 - \alpha`. [1]

    Returns
    -------
    mtbf : float
        :math:`\hat M = T / r`; inf when ``failures`` is 0. [s]
    interval : tuple of float
        ``(lo, hi)``, the exact interval; ``hi`` is inf when ``failures`` is 0. [s]

    Raises
    ------
    ValueError
        If ``failures`` is negative or ``exposure`` is not > 0.

    Notes
    -----
    The window ends at a fixed time, not at a failure (time-truncated data), so the last gap is
    censored and the interval is [1]_, section 8.3:

    .. math::

       \left[\frac{2T}{\chi^2_{1-\alpha/2}(2r + 2)},\ \frac{2T}{\chi^2_{\alpha/2}(2r)}\right]

    It is the Garwood interval of a Poisson count, exact in the sense that it covers the true MTBF
    in at least :math:`1 - \alpha` of repeated windows (a little more, since counts are whole), when
    the gaps are exponential: :func:`renewal_fit` with :math:`CV^2 = 1`, which widens it for gaps
    that are not.

    References
    ----------
    .. [1] W. Q. Meeker and L. A. Escobar, *Statistical Methods for Reliability Data*, Wiley, 1998,
       chapter 7 (exponential) and section 8.3.

    Examples
    --------
    >>> mtbf, (lo, hi) = exponential_fit(419, 54 * 86400.0)
    >>> round(mtbf / 3600, 2), round(lo / 3600, 2), round(hi / 3600, 2)
    (3.09, 2.81, 3.41)
    """
    return renewal_fit(failures, exposure, 1.0, confidence)


def renewal_fit(failures, exposure, cv2, confidence=CONFIDENCE):
    r"""The MTBF of a renewal process, :math:`T/r`, with an interval that holds for gaps of any dispersion.

    Parameters
    ----------
    failures : int
        Failures :math:`r` observed in the window. [1]
    exposure : float
        Length of the window :math:`T`. [s]
    cv2 : float
        The gaps' squared coefficient of variation :math:`CV^2 = \sigma^2/\mu^2`, > 0 (1 for exponential
        gaps; :func:`weibull_cv2` of a fitted shape); inf gives the interval (0, inf). [1]
    confidence : float, default 0.95
        Level of the two-sided interval :math:`1 - \alpha`. [1]

    Returns
    -------
    mtbf : float
        :math:`\hat M = T / r`; inf when ``failures`` is 0. [s]
    interval : tuple of float
        ``(lo, hi)``; ``hi`` is inf when ``failures`` is 0. [s]

    Raises
    ------
    ValueError
        If ``failures`` is not a whole number >= 0, ``exposure`` is not > 0 or ``cv2`` is not > 0.

    Notes
    -----
    For a renewal process whose gaps have mean :math:`\mu` and variance :math:`\sigma^2`, the count in a
    window of length :math:`T` is asymptotically normal with mean :math:`T/\mu` and variance
    :math:`\sigma^2 T/\mu^3 = CV^2\,T/\mu` ([1]_, section 3.3; [2]_, chapter 4): a
    Poisson count's variance times :math:`CV^2`. The count is therefore taken as an over-dispersed Poisson
    one, :math:`r/CV^2` effective failures over an effective exposure :math:`T/CV^2` (the same
    :math:`\hat M`), and the Garwood interval of :func:`exponential_fit` is applied to them
    ([3]_, section 8.3):

    .. math::

       \left[\frac{2T/CV^2}{\chi^2_{1-\alpha/2}(2r/CV^2 + 2)},\
             \frac{2T/CV^2}{\chi^2_{\alpha/2}(2r/CV^2)}\right]

    It is Garwood's exact interval at :math:`CV^2 = 1`, wider for clustered gaps (:math:`CV^2 > 1`, a
    Weibull shape below 1) and narrower for regular ones. Chosen over a bootstrap of the gaps because it
    is deterministic and closed-form, and it is the dispersion of the model the plan then uses (the
    fitted Weibull shape). Held to simulated logs: 95% coverage at shapes 0.5-1.5
    (tests/test_calibrate_coverage.py, bench/bench_intervals.py).

    References
    ----------
    .. [1] S. M. Ross, *Stochastic Processes*, 2nd ed., Wiley, 1996, section 3.3 (the central limit
       theorem for renewal processes).
    .. [2] D. R. Cox, *Renewal Theory*, Methuen, 1962, chapter 4 (the number of renewals in an interval).
    .. [3] W. Q. Meeker and L. A. Escobar, *Statistical Methods for Reliability Data*, Wiley, 1998,
       section 8.3.

    Examples
    --------
    >>> mtbf, (lo, hi) = renewal_fit(300, 300 * 3600.0, cv2=2.0)
    >>> mtbf, round(lo / 3600, 3), round(hi / 3600, 3)
    (3600.0, 0.852, 1.182)
    """
    from scipy import special  # chdtri(df, p): the chi-square quantile of upper tail p (lighter than scipy.stats)

    if not (isinstance(failures, (int, np.integer)) and failures >= 0):
        raise ValueError(f"failures must be a whole number >= 0, got {short_repr(failures)}")
    if not exposure > 0:
        raise ValueError(f"exposure must be > 0 [s], got {short_repr(exposure)}")
    if not cv2 > 0:
        raise ValueError(f"cv2 must be > 0 [1] (1 for exponential gaps), got {short_repr(cv2)}")
    mtbf = exposure / failures if failures else math.inf
    if math.isinf(cv2):
        return float(mtbf), (0.0, math.inf)
    alpha = 1.0 - confidence
    r, t = failures / cv2, exposure / cv2
    lo = 2.0 * t / special.chdtri(2 * r + 2, alpha / 2.0)
    low_quantile = special.chdtri(2 * r, 1.0 - alpha / 2.0) if failures else 0.0
    hi = 2.0 * t / low_quantile if low_quantile > 0 else math.inf  # 0 for a count too dispersed to bound
    return float(mtbf), (float(lo), float(hi))


def weibull_cv2(shape):
    r"""The squared coefficient of variation of Weibull gaps of a shape: how much more than exponential gaps
    they disperse a count of failures.

    Parameters
    ----------
    shape : float
        The Weibull shape :math:`k`, > 0. [1]

    Returns
    -------
    cv2 : float
        :math:`CV^2`; inf where it overflows (a shape below about 0.0045). [1]

    Raises
    ------
    ValueError
        If ``shape`` is not > 0.

    Notes
    -----
    With :math:`\mu = \lambda\Gamma(1 + 1/k)` and :math:`E[X^2] = \lambda^2\Gamma(1 + 2/k)` ([1]_, section 4.8):

    .. math::

       CV^2 = \frac{\Gamma(1 + 2/k)}{\Gamma(1 + 1/k)^2} - 1

    1 at :math:`k = 1` (exponential), 5 at 0.5, 2.14 at 0.7, 0.46 at 1.5; computed through
    :math:`\ln\Gamma`, so large ratios do not overflow before they must.

    References
    ----------
    .. [1] W. Q. Meeker and L. A. Escobar, *Statistical Methods for Reliability Data*, Wiley, 1998,
       section 4.8 (the Weibull distribution).

    Examples
    --------
    >>> round(weibull_cv2(0.5), 6), round(weibull_cv2(1.0), 6), round(weibull_cv2(0.7), 3)
    (5.0, 1.0, 2.139)
    """
    from scipy import special

    if not shape > 0:
        raise ValueError(f"shape must be > 0 [1], got {short_repr(shape)}")
    log_ratio = special.gammaln(1.0 + 2.0 / shape) - 2.0 * special.gammaln(1.0 + 1.0 / shape)
    return math.expm1(log_ratio) if log_ratio < 700.0 else math.inf


def _profile(k, log_all, log_unc, r):
    """The Weibull profile log-likelihood of shape ``k`` (scale maximised out), for gaps given by their logs."""
    from scipy.special import logsumexp

    return r * math.log(k) - r * (logsumexp(k * log_all) - math.log(r)) + (k - 1.0) * log_unc.sum() - r


def _score(k, log_all, log_unc, r):
    """d(profile)/dk: decreasing in k, zero at the MLE."""
    from scipy.special import softmax

    return r / k - r * float(softmax(k * log_all) @ log_all) + log_unc.sum()


def weibull_fit(gaps, censored=(), confidence=CONFIDENCE):
    r"""Weibull MLE of the times between failures, with a profile-likelihood interval for the shape.

    Parameters
    ----------
    gaps : array_like
        Observed times between consecutive failures, each > 0. [s]
    censored : array_like, default ()
        Gaps still running when observation stopped (right-censored), each >= 0; zeros add
        nothing. [s]
    confidence : float, default 0.95
        Level of the shape's interval. [1]

    Returns
    -------
    shape : float
        :math:`\hat k`. [1]
    interval : tuple of float
        ``(lo, hi)`` of the shape; an end beyond the searched shapes 0.01-100 is 0 or inf. [1]
    scale : float
        :math:`\hat\lambda`. [s]

    Raises
    ------
    ValueError
        With fewer than two gaps, a gap that is not > 0 and finite, or all gaps equal (the shape
        has no finite MLE).

    Notes
    -----
    With :math:`r` observed gaps :math:`x_i` and censored ones :math:`c_j`, the scale has a closed
    form for each shape, :math:`\lambda^k = S(k)/r` with :math:`S(k) = \sum x_i^k + \sum c_j^k`, so
    the likelihood is maximised over the shape alone ([1]_, section 8.2):

    .. math::

       \ell_p(k) = r \ln k - r \ln\frac{S(k)}{r} + (k - 1)\sum \ln x_i - r

    :math:`\hat k` is the root of :math:`\ell_p'(k)`, which falls monotonically, found by
    :func:`scipy.optimize.brentq`; the interval is the set where
    :math:`2[\ell_p(\hat k) - \ell_p(k)] \le \chi^2_{1}(0.95)`, whose ends are found the same way.
    Written here rather than through ``scipy.stats.weibull_min.fit`` on ``CensoredData`` (which gives
    the same MLE, tests/test_calibrate.py) because the interval needs the profile anyway, and one
    root in one variable is exact to 1e-10 and takes milliseconds where a two-variable simplex on
    100,000 gaps takes seconds.

    References
    ----------
    .. [1] W. Q. Meeker and L. A. Escobar, *Statistical Methods for Reliability Data*, Wiley, 1998,
       section 8.2 (Weibull ML with censoring) and 8.3 (likelihood-based intervals).

    Examples
    --------
    >>> shape, (lo, hi), scale = weibull_fit([1.0, 2.0, 4.0, 8.0, 16.0], censored=[3.0])
    >>> round(shape, 4), round(lo, 3), round(hi, 3), round(scale, 3)
    (1.2096, 0.544, 2.156, 7.087)
    """
    from scipy import optimize, special

    x = np.asarray(gaps, dtype=float).ravel()
    c = np.asarray(censored, dtype=float).ravel()
    if x.size < 2:
        raise ValueError(f"gaps must hold at least 2 values to fit a Weibull shape, got {x.size}")
    if not np.all(np.isfinite(x) & (x > 0)):
        raise ValueError(f"gaps must be > 0 and finite [s], got {short_repr(x[~(np.isfinite(x) & (x > 0))][0])}")
    if not np.all(np.isfinite(c) & (c >= 0)):
        raise ValueError(f"censored must be >= 0 and finite [s], got {short_repr(c[~(np.isfinite(c) & (c >= 0))][0])}")
    c = c[c > 0]
    unit = float(np.exp(np.log(x).mean()))  # scaled to a geometric mean of 1, so x**k stays in range
    log_unc = np.log(x / unit)
    log_all = np.concatenate([log_unc, np.log(c / unit)])
    r = x.size
    if np.ptp(log_unc) == 0 and not np.any(log_all[r:] > log_unc.max()):
        raise ValueError(f"gaps are all equal ({float(x[0])!r} s): the Weibull shape has no finite MLE")
    low, high = _SHAPE_BOUNDS
    args = (log_all, log_unc, r)
    if _score(high, *args) > 0:
        raise ValueError("gaps are too regular for a Weibull shape below 100")
    shape = optimize.brentq(_score, low, high, args=args, xtol=1e-12, rtol=1e-12) if _score(low, *args) > 0 else low
    top = _profile(shape, *args)
    drop = special.chdtri(1, 1.0 - confidence) / 2.0  # chi2(1) quantile / 2: 1.92 at 95%

    def below(k):
        return top - _profile(k, *args) - drop

    lo = optimize.brentq(below, low, shape, xtol=1e-10) if below(low) > 0 else 0.0
    hi = optimize.brentq(below, shape, high, xtol=1e-10) if below(high) > 0 else math.inf
    scale = unit * float(np.exp((np.log(np.exp(shape * log_all - (shape * log_all).max()).sum())
                                 + (shape * log_all).max() - math.log(r)) / shape))
    return float(shape), (float(lo), float(hi)), scale


_EXACT_FROM = 30
"""Gaps of at least this many resolutions are fitted by their density [1]: the triangular kernel of a gap between
two rounded times averages the density over two resolutions, which differs from it by O((resolution/gap)^2)."""


def _grouped_loglik(k, log_lam, grouped, long, merged):
    """Weibull log-likelihood of gaps between times recorded to a resolution of 1 (:func:`weibull_fit_grouped`):
    ``grouped = (m, count)`` of the short recorded gaps; ``long = (n, sum ln x, sum x^k)`` of the long ones
    (taken at their density), the censored added to the sum of ``x^k``; and the most resolutions a merged gap
    spans. ``sum x^k`` is the shape's alone, so a profile over the scale costs no pass over the gaps."""
    from scipy import special

    lam = math.exp(log_lam)
    mean = lam * math.gamma(1.0 + 1.0 / k)

    def h(a):  # the integral of the survival function from 0 to a
        return mean * special.gammainc(1.0 / k, (np.maximum(a, 0.0) / lam) ** k)

    m, count = grouped
    n, sum_log, sum_power = long
    mass = -(h(m + 1.0) - 2.0 * h(m) + h(m - 1.0))
    total = float(count @ np.log(np.maximum(mass, 1e-300)))
    total += n * (math.log(k) - k * log_lam) + (k - 1.0) * sum_log - sum_power * math.exp(-k * log_lam)
    kept = float(h(np.array(merged + 1.0))[()] - h(np.array(float(merged)))[()])
    return total - (count.sum() + n) * math.log(max(kept, 1e-300))


def weibull_fit_grouped(gaps, censored=(), resolution=60.0, merge_within=0.0, confidence=CONFIDENCE):
    r"""Weibull MLE of gaps between times recorded to a resolution (to the minute), short gaps merged: interval
    censoring, with a profile-likelihood interval for the shape.

    Parameters
    ----------
    gaps : array_like
        Gaps between consecutive recorded event starts, each a whole number of ``resolution`` s, each
        > ``merge_within`` (a shorter one was merged into one event). [s]
    censored : array_like, default ()
        Gaps still running when observation stopped, each >= 0. [s]
    resolution : float, default 60
        The times' resolution :math:`\Delta`, > 0: a time is recorded as the start of its minute. [s]
    merge_within : float, default 0
        Recorded gaps up to this long were merged into the event before (>= 0). [s]
    confidence : float, default 0.95
        Level of the shape's interval. [1]

    Returns
    -------
    shape : float
        :math:`\hat k`. [1]
    interval : tuple of float
        ``(lo, hi)`` of the shape; 0 or inf where the likelihood does not fall far enough. [1]
    scale : float
        :math:`\hat\lambda`. [s]

    Raises
    ------
    ValueError
        With a ``resolution`` not > 0, a ``merge_within`` < 0, a gap that is not a whole number of resolutions
        above ``merge_within``, or as :func:`weibull_fit`.

    Notes
    -----
    With both ends of a gap :math:`x` rounded down to a multiple of :math:`\Delta` at a uniform phase, the recorded
    gap is :math:`m\Delta` with the triangular probability :math:`K_m(x) = \max(0, 1 - |x/\Delta - m|)`, so
    ([1]_, section 3.5; [2]_)

    .. math::

       P(m) = \int f K_m = -\frac{H((m+1)\Delta) - 2H(m\Delta) + H((m-1)\Delta)}{\Delta}, \qquad
       H(a) = \int_0^a S = \lambda\Gamma(1 + 1/k)\,P\!\left(\tfrac1k, (a/\lambda)^k\right)

    (:math:`P` the regularised lower incomplete gamma function). Gaps recorded as at most
    :math:`M\Delta`, :math:`M = \lfloor w/\Delta \rfloor` with :math:`w` = ``merge_within``, were merged, so each
    gap seen is conditioned on :math:`m > M`, of probability :math:`(H((M+1)\Delta) - H(M\Delta))/\Delta`. Gaps of
    :data:`_EXACT_FROM` resolutions or more take :math:`f(m\Delta)\Delta`; a censored gap :math:`S(c)`. The
    likelihood is maximised over :math:`(k, \lambda)`; the interval is where the profile (over
    :math:`\lambda`) is within :math:`\chi^2_1(0.95)/2` of its peak. Each gap is one gap between rows: it runs
    from the last row merged into an event (:func:`fit_events`' ``gaps_from``), so the merged rows' time is not
    carried into it. Held to the fit of the true times on simulated logs kept to the minute
    (tests/test_calibrate_coverage.py, bench/bench_intervals.py): 0.708 against 0.706 for a true 0.7 at the
    reader's default window, where :func:`weibull_fit` of the recorded gaps gives 0.776; 0.710 against 0.701 over
    200 logs merged within 5 min, where gaps from each event's first row gave 0.728.

    References
    ----------
    .. [1] W. Q. Meeker and L. A. Escobar, *Statistical Methods for Reliability Data*, Wiley, 1998, section
       2.2 and 3.5 (interval-censored, "read-out" data) and 8.2 (Weibull ML).
    .. [2] D. F. Heitjan, "Inference from grouped continuous data: a review," Statistical Science 4(2),
       164-179, 1989 (rounded data).

    Examples
    --------
    Gaps to the minute, some a minute long: taken as exact (:func:`weibull_fit`) they look more regular than
    they are.

    >>> gaps, censored = [60.0, 120.0, 600.0, 3600.0, 7200.0], [1800.0]
    >>> round(weibull_fit_grouped(gaps, censored)[0], 3), round(weibull_fit(gaps, censored)[0], 3)
    (0.501, 0.643)
    """
    from scipy import optimize, special

    x = np.asarray(gaps, dtype=float).ravel()
    c = np.asarray(censored, dtype=float).ravel()
    if not (isinstance(resolution, (int, float, np.integer, np.floating)) and 0 < resolution < math.inf):
        raise ValueError(f"resolution must be > 0 [s], got {short_repr(resolution)}")
    if not merge_within >= 0:
        raise ValueError(f"merge_within must be >= 0 [s], got {short_repr(merge_within)}")
    m = x / resolution
    merged = math.floor(merge_within / resolution + 1e-9)
    bad = ~((np.abs(m - np.round(m)) < 1e-6) & (np.round(m) > merged))
    if bad.any():
        raise ValueError(f"gaps must be whole numbers of the resolution {resolution:g} s above merge_within "
                         f"{merge_within:g} s, got {short_repr(x[bad][0])}")
    if x.size < 2:
        raise ValueError(f"gaps must hold at least 2 values to fit a Weibull shape, got {x.size}")
    if not np.all(np.isfinite(c) & (c >= 0)):
        raise ValueError(f"censored must be >= 0 and finite [s], got {short_repr(c[~(np.isfinite(c) & (c >= 0))][0])}")
    m = np.round(m)
    log_all = np.log(m)
    short = m < _EXACT_FROM
    grouped = tuple(np.asarray(v, dtype=float) for v in np.unique(m[short], return_counts=True))
    log_long = np.log(np.r_[m[~short], c[c > 0] / resolution])
    n_long = int((~short).sum())
    sum_log = float(log_long[:n_long].sum())

    def profile(k):
        long = (n_long, sum_log, float(np.exp(k * log_long).sum()))
        start = (math.log(np.exp(k * log_all).sum() + long[2]) - math.log(x.size)) / k  # exact gaps' scale
        best = optimize.minimize_scalar(lambda v: -_grouped_loglik(k, v, grouped, long, merged),
                                        bounds=(start - 5, start + 5), method="bounded", options={"xatol": 1e-9})
        return -best.fun, best.x

    low, high = _SHAPE_BOUNDS
    found = optimize.minimize_scalar(lambda v: -profile(math.exp(np.clip(v, math.log(low), math.log(high))))[0],
                                     bracket=(-0.1, 0.0), options={"xtol": 1e-10})
    shape = float(min(max(math.exp(found.x), low), high))
    top, log_scale = profile(shape)
    drop = special.chdtri(1, 1.0 - confidence) / 2.0

    def below(k):
        return top - profile(k)[0] - drop

    lo = optimize.brentq(below, max(low, shape / 10), shape, xtol=1e-8) if below(max(low, shape / 10)) > 0 else 0.0
    hi = optimize.brentq(below, shape, min(high, shape * 4), xtol=1e-8) if below(min(high, shape * 4)) > 0 \
        else math.inf
    return shape, (float(lo), float(hi)), float(math.exp(log_scale) * resolution)


def laplace_trend(times, exposure, alpha=1.0 - CONFIDENCE):
    r"""The Laplace test for a trend in the failure rate over the window.

    Parameters
    ----------
    times : array_like
        Failure times counted from the window's start, each in [0, ``exposure``]. [s]
    exposure : float
        Length of the window :math:`T`. [s]
    alpha : float, default 0.05
        Significance level of the two-sided test. [1]

    Returns
    -------
    trend : dict
        ``statistic`` (:math:`U` [1]), ``p_value`` (two-sided [1]), ``direction`` (``"falling"``,
        ``"rising"`` or ``"none"``) and ``sentence`` (what it means for the plan). [1]

    Raises
    ------
    ValueError
        If ``exposure`` is not > 0 or there is no failure time.

    Notes
    -----
    Under a constant rate (a homogeneous Poisson process) the failure times are uniform on the
    window, so their mean is :math:`T/2` with variance :math:`T^2/(12r)` and ([1]_, section 16.5)

    .. math::

       U = \frac{\frac{1}{r}\sum t_i - T/2}{T\sqrt{1/(12 r)}} \sim N(0, 1)

    :math:`U < 0` puts the failures early (a falling rate: burn-in), :math:`U > 0` late (a rising
    rate: wear-out). The direction is named when :math:`p < \alpha`.

    References
    ----------
    .. [1] W. Q. Meeker and L. A. Escobar, *Statistical Methods for Reliability Data*, Wiley, 1998,
       chapter 16 (recurrence data; the Laplace test).

    Examples
    --------
    >>> t = laplace_trend([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 20.0], 100.0)
    >>> round(t["statistic"], 2), t["direction"]
    (-4.77, 'falling')
    """
    from scipy import special

    t = np.asarray(times, dtype=float).ravel()
    if not exposure > 0:
        raise ValueError(f"exposure must be > 0 [s], got {short_repr(exposure)}")
    if t.size == 0:
        raise ValueError("times must hold at least one failure time")
    r = t.size
    u = float((t.mean() - exposure / 2.0) / (exposure * math.sqrt(1.0 / (12.0 * r))))
    p = float(2.0 * special.ndtr(-abs(u)))
    if p >= alpha:
        direction = "none"
        sentence = (f"no trend (p = {p:.2g} >= {alpha:g}): a constant failure rate fits the window, "
                    "so one MTBF describes it")
    elif u < 0:
        direction = "falling"
        sentence = (f"the failure rate is falling (p = {p:.2g}): failures come early in the window, as in "
                    "burn-in; the whole-window MTBF understates the fleet today, so fit a recent window")
    else:
        direction = "rising"
        sentence = (f"the failure rate is rising (p = {p:.2g}): failures come late in the window, as in "
                    "wear-out or a worsening fleet; the whole-window MTBF overstates the fleet today, so fit a "
                    "recent window")
    return {"statistic": u, "p_value": p, "direction": direction, "sentence": sentence}


def lognormal_fit(durations, censored=()):
    r"""Lognormal MLE of repair or recovery durations: the median and :math:`\sigma`, right-censored ones included.

    Parameters
    ----------
    durations : array_like
        Complete durations (repairs done), each > 0. [s]
    censored : array_like, default ()
        Right-censored durations, each > 0: repairs still running when the log ends, known only to last
        longer than this. [s]

    Returns
    -------
    median : float
        :math:`e^{\hat\mu}`. [s]
    sigma : float
        :math:`\hat\sigma`. [1]

    Raises
    ------
    ValueError
        With fewer than two complete durations, or a duration that is not > 0 and finite.

    Notes
    -----
    Without censored durations the MLE is closed-form ([1]_, section 4.6), the same as
    ``scipy.stats.lognorm.fit(d, floc=0)``:

    .. math::

       \hat\mu = \frac{1}{n}\sum \ln d_i, \qquad
       \hat\sigma = \sqrt{\frac{1}{n}\sum (\ln d_i - \hat\mu)^2}

    With censored durations :math:`c_j` it maximises ([1]_, section 8.2)

    .. math::

       \ell(\mu, \sigma) = \sum_i \left[\ln\phi\left(\frac{\ln d_i - \mu}{\sigma}\right) - \ln\sigma\right]
       + \sum_j \ln\left[1 - \Phi\left(\frac{\ln c_j - \mu}{\sigma}\right)\right]

    from the closed form, so a repair still running counts as "longer than :math:`c_j`", never as a repair
    of :math:`c_j` (which would shorten the median). Written here (BFGS on the analytic gradient) rather than
    through ``scipy.stats.lognorm.fit`` on ``CensoredData``, which gives the same MLE
    (tests/test_calibrate_tickets.py, to 1e-5; ~1e-8 apart in practice): that fit's generic simplex took
    0.06-0.12 s on 300-20,000 repairs where this takes ~0.01 s, on the panel's every fit.

    References
    ----------
    .. [1] W. Q. Meeker and L. A. Escobar, *Statistical Methods for Reliability Data*, Wiley, 1998,
       section 4.6 (the lognormal distribution) and chapter 8 (maximum likelihood with censored data).

    Examples
    --------
    >>> median, sigma = lognormal_fit([600.0, 1200.0, 2400.0])
    >>> round(median, 1), round(sigma, 4)
    (1200.0, 0.566)
    >>> round(lognormal_fit([600.0, 1200.0, 2400.0], censored=[3000.0])[0]) > 1200
    True
    """
    d = np.asarray(durations, dtype=float).ravel()
    c = np.asarray(censored, dtype=float).ravel()
    if d.size < 2:
        raise ValueError(f"durations must hold at least 2 values, got {d.size}")
    for what, x in (("durations", d), ("censored", c)):
        if not np.all(np.isfinite(x) & (x > 0)):
            bad = float(x[~(np.isfinite(x) & (x > 0))][0])
            raise ValueError(f"{what} must be > 0 and finite [s], got {short_repr(bad)}")
    logs = np.log(d)
    mu, sigma = float(logs.mean()), float(logs.std())
    if c.size == 0 or sigma == 0:
        return float(np.exp(mu)), sigma
    from scipy import optimize, special

    logc = np.log(c)

    def minus(theta):  # -loglik and its gradient in (mu, ln sigma)
        m, s = theta[0], math.exp(theta[1])
        z, w = (logs - m) / s, (logc - m) / s
        tail = special.log_ndtr(-w)
        h = np.exp(-0.5 * w * w - 0.5 * math.log(2 * math.pi) - tail)  # phi(w) / (1 - Phi(w))
        loglik = -0.5 * float(z @ z) - logs.size * theta[1] + float(tail.sum())
        grad = [float(z.sum() + h.sum()) / s, float(z @ z) - logs.size + float(h @ w)]
        return -loglik, -np.asarray(grad)

    best = optimize.minimize(minus, [mu, math.log(sigma)], jac=True, method="BFGS", options={"gtol": 1e-9})
    return float(np.exp(best.x[0])), float(np.exp(best.x[1]))


def cause_table(causes):
    """Counts and shares by cause, most frequent first (as Llama 3's Table 5 [1]_).

    Parameters
    ----------
    causes : sequence of str
        One cause per event. [1]

    Returns
    -------
    table : pandas.DataFrame
        Index ``cause``; columns ``count`` [1] and ``share`` (of all events [1]). Ties keep the order
        of first appearance.

    References
    ----------
    .. [1] Llama Team, "The Llama 3 Herd of Models," arXiv:2407.21783, 2024, Table 5.

    Examples
    --------
    >>> table = cause_table(["GPU", "NIC", "GPU", "GPU"])
    >>> table.to_dict(orient="index")
    {'GPU': {'count': 3, 'share': 0.75}, 'NIC': {'count': 1, 'share': 0.25}}
    """
    import pandas as pd

    counts = pd.Series(list(causes), dtype=object).value_counts(sort=True)
    table = pd.DataFrame({"count": counts.astype(int), "share": counts / counts.sum()})
    table.index.name = "cause"
    return table


def fit_events(starts, window_start, window_end, *, opens_window=False, gaps_from=None, durations=None, censored=None,
               causes=None, scopes=None, gpus=None, provenance=None, confidence=CONFIDENCE, resolution=0.0,
               merge_within=0.0):
    r"""Fit the failure and repair models to events already in order: the numbers of :class:`Calibration`.

    Parameters
    ----------
    starts : array_like
        Event start times, ascending, all in the window. [s]
    window_start, window_end : float
        The observation window. [s]
    opens_window : bool, default False
        True when the first event is the window's start (no ``since``): it is then not counted as a
        failure inside the window. [1]
    gaps_from : array_like, optional
        Where each event's gap to the next runs from: the start of its last row when rows were merged into it,
        each in [its start, the next event's start). None: the event starts. [s]
    durations : array_like, optional
        Each event's repair duration (>= 0; zeros are left out of the lognormal fit). [s]
    censored : array_like of bool, optional
        True where the event's repair was still running at the log's end (an open incident): its duration is
        then the time to the window's end, right-censored in the lognormal fit (:func:`lognormal_fit`); the
        event counts as a failure all the same. None: every repair is complete. [1]
    causes, scopes : sequence of str, optional
        Each event's cause and scope. [1]
    gpus : int, optional
        GPUs of the fleet, for the per-GPU rate. [1]
    provenance : dict, optional
        Kept in the result as it is. [1]
    confidence : float, default 0.95
        Level of the intervals. [1]
    resolution : float, default 0
        The resolution the starts were recorded to (60 for times to the minute), >= 0; 0 takes them as
        exact. [s]
    merge_within : float, default 0
        Rows that started at most this long after the row before were merged into one event (the
        reader's rule), >= 0. [s]

    Returns
    -------
    fit : Calibration
        The fits. [1]

    Raises
    ------
    ValueError
        With fewer than :data:`MIN_EVENTS` events, times out of order or outside the window.

    Notes
    -----
    With :math:`r` failures in a window of length :math:`T`: the Weibull fit takes the gaps between
    consecutive events, each from ``gaps_from`` (the last merged row) to the next event's start, and the censored
    gap from the last one to the window's end (:func:`weibull_fit`; with a
    ``resolution``, :func:`weibull_fit_grouped` when a gap is shorter than :data:`_EXACT_FROM` resolutions or rows
    were merged by a window; times given to better than a resolution are taken as exact, and so are the gaps
    a window merged among them);
    :math:`\hat M = T/r` with the renewal interval of gaps of the fitted shape's dispersion
    (:func:`renewal_fit` with :func:`weibull_cv2` of :math:`\hat k`); the trend test takes
    the failure times from the window's start (:func:`laplace_trend`); the per-GPU rate is
    :math:`1/(G \hat M)` with the interval mapped the same way.

    References
    ----------
    .. [1] W. Q. Meeker and L. A. Escobar, *Statistical Methods for Reliability Data*, Wiley, 1998.

    Examples
    --------
    >>> fit = fit_events([0.0, 3600.0, 9000.0, 10800.0], 0.0, 14400.0, opens_window=True)
    >>> fit.events, fit.mtbf
    (3, 4800.0)
    """
    t = np.asarray(starts, dtype=float).ravel()
    a, b = float(window_start), float(window_end)
    if t.size < MIN_EVENTS:
        raise ValueError(f"an incident log needs at least {MIN_EVENTS} events in the window to be fitted, "
                         f"got {t.size}")
    if np.any(np.diff(t) <= 0):
        raise ValueError("starts must be strictly ascending (simultaneous rows are one event)")
    if t[0] < a or t[-1] > b or not b > a:
        raise ValueError(f"starts must lie in the window [{a!r}, {b!r}] [s]")
    last = t if gaps_from is None else np.asarray(gaps_from, dtype=float).ravel()
    if last.shape != t.shape or not np.all((last >= t) & (last < np.r_[t[1:], b + 1.0]) & (last <= b)):
        raise ValueError("gaps_from must hold one time per event, each from its start to before the next event's "
                         "start, in the window [s]")
    failures = t[1:] if opens_window else t
    exposure = b - a
    gaps = t[1:] - last[:-1]
    grouped = _grouped(gaps, resolution, merge_within)
    fit = weibull_fit_grouped if grouped else (lambda x, c, _r, _w, level: weibull_fit(x, c, level))
    shape, shape_ci, scale = fit(gaps, [b - last[-1]], resolution, merge_within, confidence)
    cv2 = weibull_cv2(shape)
    mtbf, mtbf_ci = renewal_fit(int(failures.size), exposure, cv2, confidence)
    trend = laplace_trend(failures - a, exposure, 1.0 - confidence)
    repair_median = repair_sigma = None
    fitted = running = 0
    if durations is not None:
        d = np.asarray(durations, dtype=float).ravel()
        late = np.zeros(d.size, dtype=bool) if censored is None else np.asarray(censored, dtype=bool).ravel()
        if late.size != d.size:
            raise ValueError(f"censored must hold one flag per duration ({d.size}), got {late.size}")
        done, running = d[(d > 0) & ~late], d[(d > 0) & late]
        fitted = int(done.size)
        if done.size >= 2:
            repair_median, repair_sigma = lognormal_fit(done, running)
        running = int(running.size)
    rate = rate_ci = None
    if gpus is not None:
        if not (isinstance(gpus, (int, np.integer)) and 1 <= gpus <= 10**8):
            raise ValueError(f"gpus must be a whole number in [1, 1e8], got {short_repr(gpus)}")
        gpus = int(gpus)
        rate = 1.0 / (gpus * mtbf)
        rate_ci = (1.0 / (gpus * mtbf_ci[1]), 1.0 / (gpus * mtbf_ci[0]))
    table = () if causes is None else _rows(cause_table(causes))
    scope_rows = () if scopes is None else _rows(cause_table(scopes))
    prov = dict(provenance or {})
    prov.setdefault("repairs_fitted", fitted)
    prov.setdefault("repairs_censored", running)
    prov["gaps_interval_censored"] = grouped
    return Calibration(events=int(failures.size), window=exposure, mtbf=mtbf, mtbf_ci=mtbf_ci, weibull_shape=shape,
                       weibull_shape_ci=shape_ci, weibull_scale=scale, repair_median=repair_median,
                       repair_sigma=repair_sigma, trend=trend, causes=table, scopes=scope_rows, gpus=gpus,
                       gpu_failure_rate=rate, gpu_failure_rate_ci=rate_ci, gaps_cv2=cv2, provenance=prov,
                       failure_times=failures - a, gaps=gaps)


def _grouped(gaps, resolution, merge_within):
    """Whether :func:`fit_events` fits the gaps as grouped (:func:`weibull_fit_grouped`): where the resolution or a
    merge window matters."""
    if not (resolution >= 0 and merge_within >= 0):
        raise ValueError(f"resolution and merge_within must be >= 0 [s], got {short_repr(resolution)} and "
                         f"{short_repr(merge_within)}")
    return bool(resolution > 0 and (merge_within > 0 or gaps.min() < _EXACT_FROM * resolution))


def _rows(table):
    return tuple((str(c), int(n), float(s)) for c, n, s in zip(table.index, table["count"], table["share"]))
