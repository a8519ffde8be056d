r"""A Monte Carlo of the whole run: failures, checkpoints, restarts and site events.

The closed forms of :mod:`drmath.reliability` give the *expected* share of
wall-clock time that makes progress. This module draws the run itself, many
times, and returns distributions: completion time, ETTR, lost GPU-hours, and
the site RPO and RTO actually realised. Every derived input (cadence
:math:`\tau`, stall :math:`\delta`, persist time :math:`W`, restart overhead
:math:`u_0`, replication interval and time, site RTO, standby size) comes from
:func:`drmath.plan`; only the stochastic event logic lives here.

The model
---------
*Work.* The run must do :math:`C` = ``plan.compute_time`` seconds of training
on the primary's :math:`G` GPUs (its compute time at ETTR = 1).

*Training.* Between interruptions the job alternates :math:`\tau` of compute
and a blocking stall :math:`\delta`; checkpoint :math:`j` of a segment starts at
the start of its stall and is durable :math:`W` later (``plan`` floors
:math:`\tau \ge \max(W, \delta)`, so one persist is in flight at most). The run
ends as soon as the work is done; no checkpoint is taken at the very end.

*Local interruptions.* A renewal process on wall-clock time: exponential gaps
of mean :math:`M = 1/(G\lambda)` (a Poisson process at :math:`G\lambda`), or
Weibull gaps of the same mean with ``failure_shape`` :math:`k \ne 1`
(Schroeder and Gibson measured :math:`k \approx 0.7`-0.8). An interruption
while training loses the work since the start of the newest *durable*
checkpoint. Each interruption is followed by a restart drawn from a gamma
distribution of mean :math:`u_0` and coefficient of variation ``restart_cv``.
Failures keep arriving during a restart (the process never pauses): a restart
that is hit is abandoned and a fresh one is drawn, as in Daly (2006). The
closed form ignores that second-order effect.

*Site events.* The first site event is drawn at rate ``failures.site_event_rate``
(a later one would strike the standby, which has no standby of its own; its
probability is the square of an already small number and it is ignored).
Replication follows the launch rule of :func:`drmath.recovery.rpo_site_pipeline`,
the one its worst and expected site RPO are derived from: every k-th
checkpoint (k = ``plan.replication_every``) enters the pipeline when it is
durable; the pipeline is one server of service time :math:`T`, its slowest
hop, followed by a delay :math:`L - T` (:math:`L` = ``plan.replication_time``),
so a copy that enters at :math:`s` is off-site at :math:`s + L`. Under
``"every-k"`` copies enter first in, first out, and a pipeline that cannot
keep up builds a backlog; under ``"newest"`` a free pipeline takes the newest
durable copy and skips older ones. A local interruption never rolls back past
a durable checkpoint, so shipped checkpoints arrive in order of progress, at
least :math:`k(\tau + \delta)` apart (:func:`drmath.replication.launch_spacing`,
the spacing the plan's keeps-up check and bound use). The newest-only policy
here chooses at the pipeline's entrance; the plan's bound also covers hops that
each take the newest copy. The site event loses all progress since the newest
copy off-site (the realised site RPO, in seconds of training), then the run
waits the realised site RTO (gamma, mean
``plan.rto_site``, coefficient of variation ``site_rto_cv``) and finishes on
the standby: :math:`G_s` GPUs at speed :math:`G_s/G`, failing at
:math:`G_s\lambda`, with the same cadence and restart overhead. Under a tier
whose every site holds the training state (multi-site) the event loses what a
local failure would: the progress since the newest durable checkpoint.

*Vectorisation.* Trials advance together, one inter-failure segment per step:
each step draws one gap and one restart for every trial and settles the
segment with modulo arithmetic over checkpoint cycles (durable progress
:math:`\tau \lfloor (x + \delta - W)/(\tau + \delta) \rfloor`), so the cost is
about 40 array operations per interruption of the longest trial, whatever the
number of checkpoints. The pipeline's starts within a segment also follow in
closed form (its shipped checkpoints are durable at :math:`a_0 + jk(\tau +
\delta)`), about 20 more. Memory is a few arrays of length ``trials``.

References
----------
.. [1] A. Kokolis et al., "Revisiting Reliability in Large-Scale Machine
   Learning Research Clusters," HPCA 2025, arXiv:2410.21680 (E[ETTR]).
.. [2] J. T. Daly, "A higher order estimate of the optimum checkpoint interval
   for restart dumps," Future Gener. Comput. Syst. 22(3):303-312, 2006.
.. [3] B. Schroeder and G. A. Gibson, "A large-scale study of failures in
   high-performance computing systems," DSN 2006 (Weibull time between
   failures, shape 0.7-0.8).
"""

import math
import statistics
import time
from dataclasses import dataclass, field

import numpy as np

from . import presets
from ._plan import Plan
from ._plan import plan as _plan
from ._validate import short_repr
from .scenario import Scenario
from .units import hour

__all__ = ["SimulationResult", "simulate_run", "simulate_run_log", "ettr_sweep", "TRIAL_ARRAYS", "TRIAL_UNITS",
           "POLICIES"]

TRIAL_ARRAYS = ("ettr", "completion_time", "lost_gpu_hours", "interruptions", "site_rpo", "site_rto")
"""Per-trial arrays of :class:`SimulationResult` that :meth:`SimulationResult.percentiles` reads."""

TRIAL_UNITS = {"ettr": "[1]", "completion_time": "[s]", "lost_gpu_hours": "[GPU·h]", "interruptions": "[1]",
               "site_event": "[bool]", "site_time": "[s]", "site_rpo": "[s]", "site_rto": "[s]"}
"""The columns of :meth:`SimulationResult.to_frame`, in order, with their units."""

POLICIES = ("every-k", "newest")
"""Replication policies :func:`simulate_run` accepts (see :func:`drmath.recovery.rpo_site_pipeline`)."""


def _require_number(name, value, low, high, low_open=False, integer=False):
    ok_type = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    number = float(value) if ok_type else math.nan
    below = number <= low if low_open else number < low
    bad = (not ok_type) or not math.isfinite(number) or below or number > high
    if integer and not bad:
        bad = not number.is_integer()
    if bad:
        bracket = "(" if low_open else "["
        kind = "a whole number" if integer else "a number"
        raise ValueError(f"{name} must be {kind} in {bracket}{low:g}, {high:g}], got {value!r}")
    return int(number) if integer else number


def _gamma(rng, mean, cv, size):
    """Gamma draws of a given mean and coefficient of variation (cv = 0: constant)."""
    if mean <= 0 or cv == 0:
        return np.full(size, float(mean))
    shape = 1.0 / (cv * cv)
    # float32 draws are twice as fast; their 6e-8 relative resolution is far below any restart's spread
    return rng.standard_gamma(shape, size, dtype=np.float32) * (mean / shape)


class _Pipeline:
    """The off-site copies of every trial under the launch rule of :func:`drmath.recovery.rpo_site_pipeline`.

    Checkpoint n·kτ enters the pipeline when durable; the pipeline is one server of
    service time ``cycle`` (its slowest hop) then a delay ``latency - cycle``, so a
    copy that enters at s is off-site at s + latency. ``newest``: a free server takes
    the newest waiting copy, skipping older ones; else first in, first out.

    Each failure-free segment's shipped checkpoints are durable at a0 + j·P
    (P = k(τ+δ)), j = 0..J-1, so the server's starts follow in closed form and a
    segment costs a few array operations, whatever its number of copies. The one
    query is known in advance (the site event at t_e: the newest copy that entered by
    t_e - latency), so ``best`` keeps its answer as the segments go by.
    """

    def __init__(self, site_time, k, tau, delta, cycle, latency, newest):
        n = site_time.size
        self.k, self.tau, self.period = k, tau, k * (tau + delta)
        self.cycle, self.newest = cycle, newest
        self.query = site_time - latency          # a copy off-site by t_e entered by then
        self.free = np.full(n, -np.inf)           # when the server can next take a copy
        self.best = np.zeros(n)                   # progress of the newest copy off-site by t_e
        self.waiting = np.zeros(n, dtype=bool)    # newest only: a copy awaits the server
        self.waiting_progress = np.zeros(n)

    def segment(self, mask, start, saved, end, delta, write):
        """The shipped checkpoints durable from ``start`` (progress ``saved``) until ``end``."""
        k, tau, P, T, u = self.k, self.tau, self.period, self.cycle, self.query
        done = np.rint(saved / tau)                               # checkpoints before this segment
        first = k - np.mod(done, k)                               # its first shipped checkpoint, 1..k
        a0 = start + first * (tau + delta) - delta + write        # ... durable then
        p0 = (done + first) * tau
        J = np.where(mask & (a0 <= end), np.floor((end - a0) / P) + 1.0, 0.0)
        has = J > 0
        if not has.any():
            return
        last = p0 + (J - 1.0) * k * tau                           # progress of the segment's newest copy
        if not self.newest:                                       # first in, first out: start j at
            s0 = np.maximum(a0, self.free)                        # max(a0 + jP, s0 + jT), j < J
            started = np.floor(np.minimum((u - a0) / P, (u - s0) / T)) + 1.0
            started = np.clip(started, 0.0, J)
            self.best = np.where(has & (started > 0), np.maximum(self.best, p0 + (started - 1.0) * k * tau),
                                 self.best)
            self.free = np.where(has, np.maximum(a0 + (J - 1.0) * P, s0 + (J - 1.0) * T) + T, self.free)
            return
        # a copy left waiting by the last segment enters if the server frees before a0, else it is stale
        late_start = has & self.waiting & (self.free < a0)
        self.best = np.where(late_start & (self.free <= u), np.maximum(self.best, self.waiting_progress), self.best)
        self.free = np.where(late_start, self.free + T, self.free)
        self.waiting &= ~has
        s0 = np.maximum(a0, self.free)
        go = has & (s0 <= end)            # starts after `end` may take a later segment's copy: they wait
        if T < P:                     # each copy waits at most for the one before: start j at
            n = np.minimum(J, np.floor((end - s0) / T) + 1.0)          # max(a0 + jP, s0 + jT)
            j = np.minimum(np.minimum(n - 1.0, np.floor((u - a0) / P)), np.floor((u - s0) / T))
            self.best = np.where(go & (j >= 0), np.maximum(self.best, p0 + j * k * tau), self.best)
            self.free = np.where(go, np.maximum(a0 + (n - 1.0) * P, s0 + (n - 1.0) * T) + T, self.free)
            left = go & (n < J)
        else:                         # busy: start r at s0 + rT takes the newest copy then
            R = np.maximum(0.0, np.ceil((a0 + (J - 1.0) * P - s0) / T))  # the one taking the newest
            r = np.minimum(R, np.floor((end - s0) / T))
            ru = np.minimum(r, np.floor((u - s0) / T))
            j = np.minimum(J - 1.0, np.floor((s0 + ru * T - a0) / P))
            self.best = np.where(go & (ru >= 0), np.maximum(self.best, p0 + j * k * tau), self.best)
            self.free = np.where(go, s0 + (r + 1.0) * T, self.free)
            left = go & (r < R)
        wait = (has & ~go) | left
        self.waiting |= wait
        self.waiting_progress = np.where(wait, last, self.waiting_progress)

    def offsite(self, which):
        """Progress off-site at the site event of trials ``which`` (all their segments seen)."""
        if self.newest:  # a copy still waiting enters when the server frees, if no newer one came
            late = self.waiting[which] & (self.free[which] <= self.query[which])
            return np.where(late, np.maximum(self.best[which], self.waiting_progress[which]), self.best[which])
        return self.best[which]


def _gap_sampler(rng, rate, failure_shape, n):
    """A function drawing ``n`` times between failures [s] of mean ``1 / rate``: exponential, or Weibull of
    ``failure_shape`` scaled to the same mean."""
    if failure_shape == 1.0:
        return lambda: rng.exponential(1.0 / rate, n)
    scale = 1.0 / (rate * math.gamma(1.0 + 1.0 / failure_shape))
    return lambda: scale * rng.weibull(failure_shape, n)


def _note(trace, *arrays):
    """Append copies of one segment's arrays to ``trace`` (a list), unless it is None."""
    if trace is not None:
        trace.append(tuple(np.array(a) for a in arrays))


def _segments(rng, work, rate, tau, delta, write, restart_mean, restart_cv, failure_shape,
              site_time=None, pipeline=None, record=False, progress=None, max_steps=None, trace=None):
    """Advance every trial through its inter-failure segments (see the module notes).

    ``work`` is per-trial compute time at this cluster's own speed [s]. Returns a
    dict of per-trial arrays (and flat event arrays when ``record``). A
    ``pipeline`` (:class:`_Pipeline`) follows the off-site copies up to each
    trial's ``site_time``. A ``trace`` list gets each segment's start, gap,
    restart, saved progress, whether it was active and whether it completed
    (for :func:`simulate_run_log`).
    """
    n = work.size
    c = tau + delta
    t = np.zeros(n)                      # wall time at the start of the segment
    saved = np.zeros(n)                  # durable progress at the start of the segment
    active = np.ones(n, dtype=bool)
    done = np.full(n, np.nan)
    count = np.zeros(n, dtype=np.int64)
    lost = np.zeros(n)
    restarting = np.zeros(n)
    outage_start = np.full(n, np.nan)    # wall time of the failure that began the current outage
    hit = np.zeros(n, dtype=bool)
    hit_progress = np.zeros(n)
    hit_durable = np.zeros(n)            # progress of the newest durable checkpoint at the site event
    events_rpo, events_rto, trial_rpo, trial_rto = [], [], [], []
    gaps = _gap_sampler(rng, rate, failure_shape, n)
    idx = np.arange(n)
    step = 0
    while active.any():
        if max_steps is not None and step > max_steps:
            raise ValueError(
                f"the run does not finish within {max_steps} interruptions per trial: failures "
                f"(MTBF {1 / rate:.3g} s) come faster than the restart ({restart_mean:.3g} s) and "
                f"cadence ({tau:.3g} s) can save progress")
        g = gaps()
        u = _gamma(rng, restart_mean, restart_cv, n) if step else np.zeros(n)
        start = t + u                                   # training resumes here, if g > u
        x = g - u                                       # training time in this segment
        left = work - saved
        need = left + delta * np.maximum(np.ceil(left / tau) - 1.0, 0.0)
        trains = x > 0
        completes = active & trains & (x >= need)
        stop = np.where(completes, start + need, t + g)
        _note(trace, t, g, u, saved, active, completes, stop)
        if pipeline is not None:
            pipeline.segment(active & trains, start, saved, np.minimum(stop, site_time), delta, write)
        if site_time is not None:
            h = active & (site_time < stop)
            if h.any():
                y = np.maximum(site_time[h] - start[h], 0.0)
                cycles = np.floor(y / c)
                hit_progress[h] = saved[h] + cycles * tau + np.minimum(y - cycles * c, tau)
                hit_durable[h] = saved[h] + np.maximum(np.floor((y + delta - write) / c), 0.0) * tau
                restarting[h] += np.minimum(u[h], site_time[h] - t[h])
                hit[h] = True
                active &= ~h
                completes &= ~h
        resumed = active & trains & ~np.isnan(outage_start)
        if record and resumed.any():
            events_rto.append(start[resumed] - outage_start[resumed])
            trial_rto.append(idx[resumed])
        outage_start[resumed] = np.nan
        done[completes] = stop[completes]
        restarting += np.where(completes, u, 0.0)
        fails = active & ~completes
        in_train = fails & trains
        cycles = np.floor(x / c)
        done_work = cycles * tau + np.minimum(x - cycles * c, tau)
        durable = np.maximum(np.floor((x + delta - write) / c), 0.0) * tau
        lost_now = np.where(in_train, done_work - durable, 0.0)
        if record and in_train.any():
            events_rpo.append(lost_now[in_train])
            trial_rpo.append(idx[in_train])
        lost += lost_now
        saved += np.where(in_train, durable, 0.0)
        restarting += np.where(fails, np.minimum(g, u), 0.0)
        outage_start = np.where(in_train, t + g, outage_start)
        t = np.where(fails, t + g, t)
        count += fails
        active &= ~completes
        step += 1
        if progress is not None and step % 16 == 0:
            progress(float(np.mean(np.where(active, saved / work, 1.0))))
    out = dict(done=done, count=count, lost=lost, restarting=restarting, hit=hit,
               hit_progress=hit_progress, hit_durable=hit_durable, steps=step)
    if record:
        def cat(parts, dtype=float):
            return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
        out.update(local_rpo=cat(events_rpo), local_rpo_trial=cat(trial_rpo, np.int64),
                   local_rto=cat(events_rto), local_rto_trial=cat(trial_rto, np.int64))
    return out


@dataclass(frozen=True)
class SimulationResult:
    """Per-trial outcomes of :func:`simulate_run`, with the plan it was drawn from.

    Per-trial arrays (length ``trials``): ``ettr`` [1], ``completion_time`` [s],
    ``lost_gpu_hours`` [GPU·h], ``interruptions`` [1], ``site_event``
    (bool), and for trials hit by a site event ``site_time`` [s] (when it
    struck), ``site_rpo`` [s] (training lost
    since the newest landed off-site copy) and ``site_rto`` [s] (site event to
    training on the standby); NaN elsewhere. With ``record_events=True``,
    ``local_rpo`` [s] holds the work lost by each interruption during training
    and ``local_rto`` [s] the time from each such interruption until training
    resumed (restarts hit by further failures included); ``local_rpo_trial``
    and ``local_rto_trial`` give their trial index.

    :meth:`to_frame` gives the per-trial arrays as a table, one row per run,
    and :meth:`summary` the count, mean and percentiles of each; both are
    pandas DataFrames, and pandas is imported only when they are called.
    """

    plan: Plan
    trials: int
    seed: int
    failure_shape: float
    restart_cv: float
    site_rto_cv: float
    ettr: np.ndarray
    completion_time: np.ndarray
    lost_gpu_hours: np.ndarray
    interruptions: np.ndarray
    site_event: np.ndarray
    site_time: np.ndarray
    site_rpo: np.ndarray
    site_rto: np.ndarray
    local_rpo: np.ndarray = field(default_factory=lambda: np.zeros(0))
    local_rpo_trial: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    local_rto: np.ndarray = field(default_factory=lambda: np.zeros(0))
    local_rto_trial: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    elapsed: float = 0.0

    @property
    def events(self):
        """Interruptions drawn in all trials. [1]"""
        return int(self.interruptions.sum())

    def percentiles(self, name, q=(1, 5, 50, 95, 99)):
        """Percentiles of one per-trial array, ignoring NaN.

        Parameters
        ----------
        name : str
            One of :data:`TRIAL_ARRAYS`.
        q : sequence of float, default (1, 5, 50, 95, 99)
            Percentiles, each in [0, 100].

        Returns
        -------
        percentiles : dict of float to float
            Percentile to value, in the array's unit; NaN when no trial has a
            value (e.g. no site event).
        """
        if name not in TRIAL_ARRAYS:
            raise ValueError(f"name must be one of {', '.join(TRIAL_ARRAYS)}, got {name!r}")
        for p in q:
            _require_number("q", p, 0, 100)
        values = np.asarray(getattr(self, name), dtype=float)
        values = values[~np.isnan(values)]
        if values.size == 0:
            return {float(p): math.nan for p in q}
        return {float(p): float(v) for p, v in zip(q, np.percentile(values, q))}

    def ettr_interval(self, confidence=0.99):
        """Central interval holding ``confidence`` of the trials' ETTR.

        Parameters
        ----------
        confidence : float, default 0.99
            Share of trials inside, in (0, 1). [1]

        Returns
        -------
        low, high : float
            The :math:`(1-c)/2` and :math:`(1+c)/2` quantiles of ETTR. [1]
        """
        confidence = _require_number("confidence", confidence, 0, 1, low_open=True)
        if confidence >= 1:
            raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}")
        lo, hi = np.quantile(self.ettr, [(1 - confidence) / 2, (1 + confidence) / 2])
        return float(lo), float(hi)

    def ettr_mean_interval(self, confidence=0.99):
        """Normal confidence interval of the mean ETTR (its Monte Carlo error).

        Parameters
        ----------
        confidence : float, default 0.99
            Coverage, in (0, 1). [1]

        Returns
        -------
        low, high : float
            :math:`\\bar{x} \\mp z\\, s/\\sqrt{n}`. [1]
        """
        confidence = _require_number("confidence", confidence, 0, 1, low_open=True)
        if confidence >= 1:
            raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}")
        z = statistics.NormalDist().inv_cdf((1 + confidence) / 2)
        mean = float(np.mean(self.ettr))
        half = z * float(np.std(self.ettr, ddof=1)) / math.sqrt(self.trials) if self.trials > 1 else math.inf
        return mean - half, mean + half

    def to_frame(self):
        """One row per simulated run: the per-trial arrays as a tidy pandas DataFrame.

        Returns
        -------
        frame : pandas.DataFrame
            Index ``trial`` (0 to ``trials - 1``); the columns of
            :data:`TRIAL_UNITS`, in SI: ``ettr`` [1], ``completion_time`` [s],
            ``lost_gpu_hours`` [GPU·h], ``interruptions`` [1], ``site_event``
            (bool), and ``site_time``, ``site_rpo``, ``site_rto`` [s], which
            are NaN for runs without a site event. ``frame.attrs["units"]``
            repeats the units.

        Examples
        --------
        >>> r = simulate_run(trials=1_000, seed=1)
        >>> runs = r.to_frame()
        >>> hit = runs.loc[runs.site_event, ["ettr", "interruptions", "site_rpo"]]
        >>> hit.head(3).round(3)  # doctest: +NORMALIZE_WHITESPACE
                ettr  interruptions  site_rpo
        trial
        59     0.965            327  2178.164
        264    0.964            336  1383.050
        316    0.962            360  3356.712
        """
        import pandas as pd

        frame = pd.DataFrame({name: getattr(self, name) for name in TRIAL_UNITS},
                             index=pd.RangeIndex(self.trials, name="trial"))
        frame.attrs["units"] = dict(TRIAL_UNITS)
        return frame

    def describe(self, q=(5, 50, 95)):
        """The headline numbers of each per-trial quantity: count, mean and percentiles.

        Parameters
        ----------
        q : sequence of float, default (5, 50, 95)
            Percentiles, each in [0, 100], as in :meth:`percentiles`.

        Returns
        -------
        table : pandas.DataFrame
            One row per name of :data:`TRIAL_ARRAYS` (index ``quantity``);
            columns ``unit``, ``count`` (runs with a value: all of them, or
            for the site quantities those a site event hit), ``mean``, and
            one column ``p<q>`` per percentile, each in the row's unit and
            over the runs with a value.

        Examples
        --------
        >>> r = simulate_run(trials=1_000, seed=1)
        >>> table = r.describe().loc[["ettr", "interruptions"], ["count", "mean", "p5", "p95"]]
        >>> table.round(3)  # doctest: +NORMALIZE_WHITESPACE
                       count     mean       p5      p95
        quantity
        ettr            1000    0.964    0.961    0.967
        interruptions   1000  342.214  312.000  373.000
        """
        for p in q:
            _require_number("q", p, 0, 100)
        runs = self.to_frame()[list(TRIAL_ARRAYS)].astype(float)
        table = runs.agg(["count", "mean"]).T.astype({"count": int})
        for p in q:
            table[f"p{p:g}"] = runs.quantile(p / 100)
        table.insert(0, "unit", [TRIAL_UNITS[name] for name in TRIAL_ARRAYS])
        return table.rename_axis("quantity")

    def summary(self):
        """The headline numbers as a dict: means, 5th/50th/95th percentiles and counts.

        :meth:`describe` gives the same as a table.

        Returns
        -------
        summary : dict of str to float
            Keys such as ``"ettr_mean"``, ``"completion_time_p95"`` in SI.

        Examples
        --------
        >>> s = simulate_run(trials=1_000, seed=1).summary()
        >>> round(s["ettr_mean"], 3), s["trials"]
        (0.964, 1000.0)
        """
        out = {"trials": float(self.trials), "events": float(self.events),
               "site_event_share": float(np.mean(self.site_event))}
        table = self.describe()
        for name, row in table.iterrows():
            out[f"{name}_mean"] = float(row["mean"]) if row["count"] else math.nan
            for p in (5, 50, 95):
                out[f"{name}_p{p}"] = float(row[f"p{p}"])
        return out


def _simulated(scenario):
    """The scenario to simulate (the default one for None), refused when its tier is not checkpoint-restart."""
    scenario = Scenario() if scenario is None else scenario
    if not isinstance(scenario, Scenario):
        raise TypeError(f"scenario must be a Scenario, got {type(scenario).__name__}")
    tier = scenario.failover.tier
    if tier not in presets.SEARCHED_TIERS:  # replica groups: no restart, which this simulation does not draw
        raise ValueError(f"failover.tier = {tier!r} is not simulated: the simulation draws checkpoint-restart runs, "
                         f"and the {tier} tier's replica groups recover without a restart; simulate one of "
                         f"{', '.join(presets.SEARCHED_TIERS)}")
    return scenario


def simulate_run(scenario=None, trials=10_000, seed=0, *, failure_shape=None, restart_cv=0.5,
                 site_rto_cv=0.5, record_events=False, progress=None, replication_policy=None):
    r"""Monte Carlo of the whole run: many draws of its failures, checkpoints and restarts.

    Parameters
    ----------
    scenario : Scenario, optional
        The inputs; the seed case when omitted. Cadence, stall, persist time,
        restart overhead, replication and site RTO come from its
        :func:`drmath.plan`.
    trials : int, default 10000
        Independent runs to draw, in [1, 10,000,000]. [1]
    seed : int, default 0
        Seed of :func:`numpy.random.default_rng`; the same seed gives the
        same result.
    failure_shape : float, optional
        Weibull shape :math:`k` of the gaps between interruptions, in
        (0, 10]; 1 is the Poisson process of :func:`drmath.reliability.ettr_exact`,
        :math:`k < 1` clusters failures (the plan's ETTR is then
        :func:`drmath.reliability.ettr_weibull`). The mean gap stays :math:`M`.
        Default: the scenario's ``failures.weibull_shape`` (1 unless set). [1]
    restart_cv : float, default 0.5
        Coefficient of variation of each restart's duration (gamma, mean
        :math:`u_0`), in [0, 10]; 0 makes every restart :math:`u_0`. [1]
    site_rto_cv : float, default 0.5
        Coefficient of variation of the site failover time (gamma, mean
        ``plan.rto_site``), in [0, 10]. [1]
    record_events : bool, default False
        Also keep the realised local RPO and RTO of every interruption
        (memory grows with the number of interruptions).
    progress : callable, optional
        Called now and then with the share of the work done, in [0, 1], for a
        progress bar.
    replication_policy : {"every-k", "newest"}, optional
        Which copies go off-site (see
        :func:`drmath.recovery.rpo_site_pipeline`): every k-th checkpoint,
        first in, first out, or the newest only. Default: the scenario's
        ``replication.policy`` where it has one, else ``"every-k"``.

    Returns
    -------
    result : SimulationResult
        Per-trial arrays and percentiles; see :class:`SimulationResult`.

    Raises
    ------
    ValueError
        If an argument is out of range, or if failures come so fast that the
        run cannot finish.

    Notes
    -----
    Each trial's ETTR is its work over its completion time,

    .. math:: \mathrm{ETTR} = C / T_{done},

    which for :math:`\delta, u_0 \ll M` and no site event approaches the
    closed form of Kokolis et al. [1]_

    .. math:: E[\mathrm{ETTR}] \approx \frac{1 - (u_0 + \tau/2)/M}{1 + \delta/\tau}.

    Failures keep arriving during restarts, as in Daly's model [2]_.

    Lost GPU-hours count GPU time that produced no kept progress: work
    redone after an interruption or a site event, and restarts, each on the
    cluster where it happened. Waiting for the site failover is downtime
    (in ``site_rto`` and the completion time), not GPU time spent.

    References
    ----------
    .. [1] Kokolis et al., HPCA 2025, arXiv:2410.21680.
    .. [2] Daly, Future Gener. Comput. Syst. 22(3), 2006 (failures during restart).

    Examples
    --------
    >>> from drmath import Scenario, plan
    >>> s = Scenario().with_changes({"training.window": 14 * 86400.0})
    >>> r = simulate_run(s, trials=500, seed=1)
    >>> round(float(r.ettr.mean()), 4), round(plan(s).ettr, 4)   # simulated mean, closed form
    (0.9647, 0.9645)
    >>> [round(x, 4) for x in r.ettr_interval(0.99)]             # 99% of the runs
    [0.9532, 0.9753]
    """
    scenario = _simulated(scenario)
    trials = _require_number("trials", trials, 1, 10_000_000, integer=True)
    seed = _require_number("seed", seed, 0, 2**63 - 1, integer=True)
    if failure_shape is None:
        failure_shape = scenario.failures.weibull_shape
    failure_shape = _require_number("failure_shape", failure_shape, 0, 10, low_open=True)
    restart_cv = _require_number("restart_cv", restart_cv, 0, 10)
    site_rto_cv = _require_number("site_rto_cv", site_rto_cv, 0, 10)
    if replication_policy is None:
        replication_policy = scenario.replication.policy
    if not isinstance(replication_policy, str) or replication_policy not in POLICIES:
        raise ValueError(f"replication_policy must be one of {', '.join(map(repr, POLICIES))}, "
                         f"got {short_repr(replication_policy)}")
    clock = time.perf_counter()
    p = _plan(scenario)
    rng = np.random.default_rng(seed)
    G = float(scenario.training.gpus)
    tau, delta, write = p.checkpoint_interval, p.checkpoint_stall, p.checkpoint_write_time
    u0 = p.restart_overhead
    work = p.compute_time
    if not work > 0:
        raise ValueError(
            f"scenario has no work to simulate: plan().compute_time = {work!r} because the closed-form "
            f"ETTR is {p.ettr:.3g} (MTBF {p.mtbf:.3g} s against restart {u0:.3g} s); set training.tokens "
            f"so the work does not depend on ETTR")
    # a guard against runs that never finish: 50x the interruptions the exact ETTR expects
    max_steps = int(50 * work / max(p.ettr, 1e-6) / p.mtbf) + 10_000
    common = dict(tau=tau, delta=delta, write=write, restart_mean=u0, restart_cv=restart_cv,
                  failure_shape=failure_shape, record=record_events, max_steps=max_steps)

    site_rate = scenario.failures.site_event_rate
    site_time = rng.exponential(1.0 / site_rate, trials) if site_rate > 0 else None
    pipeline = None
    if site_time is not None:
        pipeline = _Pipeline(site_time, p.replication_every, tau, delta, p.replication_cycle, p.replication_time,
                             replication_policy == "newest")
    primary = _segments(rng, np.full(trials, work), 1.0 / p.mtbf, site_time=site_time, pipeline=pipeline,
                        progress=None if progress is None else (lambda f: progress(0.95 * f)), **common)
    completion = primary["done"]
    lost_gpu_seconds = G * (primary["lost"] + primary["restarting"])
    interruptions = primary["count"].copy()
    hit = primary["hit"]
    site_rpo = np.full(trials, np.nan)
    struck = np.full(trials, np.nan)
    site_rto = np.full(trials, np.nan)
    extra = {}
    if record_events:
        extra = {k: primary[k] for k in ("local_rpo", "local_rpo_trial", "local_rto", "local_rto_trial")}
    if hit.any():
        which = np.flatnonzero(hit)
        fraction = p.standby_gpus / G
        # a tier whose every site holds the training state keeps the survivor's newest durable checkpoint
        offsite = (primary["hit_durable"][which] if presets.DR_TIERS[scenario.failover.tier].state_at_each_site
                   else pipeline.offsite(which))
        struck[which] = site_time[which]
        site_rpo[which] = primary["hit_progress"][which] - offsite
        site_rto[which] = _gamma(rng, p.rto_site, site_rto_cv, which.size)
        per_gpu_rate = 1.0 / (G * p.mtbf)  # the standby's GPUs fail as the primary's do
        standby = _segments(rng, (work - offsite) / fraction, p.standby_gpus * per_gpu_rate, **common)
        completion[which] = site_time[which] + site_rto[which] + standby["done"]
        lost_gpu_seconds[which] += G * site_rpo[which] + p.standby_gpus * (standby["lost"] + standby["restarting"])
        interruptions[which] += standby["count"]
        if record_events:
            for key in ("local_rpo", "local_rto"):
                extra[key] = np.concatenate([extra[key], standby[key]])
                extra[key + "_trial"] = np.concatenate([extra[key + "_trial"], which[standby[key + "_trial"]]])
    if progress is not None:
        progress(1.0)
    return SimulationResult(
        plan=p, trials=trials, seed=seed, failure_shape=failure_shape, restart_cv=restart_cv,
        site_rto_cv=site_rto_cv, ettr=work / completion, completion_time=completion,
        lost_gpu_hours=lost_gpu_seconds / hour, interruptions=interruptions, site_event=hit,
        site_time=struck, site_rpo=site_rpo, site_rto=site_rto, elapsed=time.perf_counter() - clock, **extra)


def _log_records(trace, work, tau, delta, h, m):
    """The records of trial 0 of a ``_segments`` trace: per segment a job start, the load, its steps (one per
    ``h`` of compute) and saves (after every ``m`` steps, blocking ``delta``), then its failure or the job's end."""
    total = math.ceil(work / h - 1e-9)
    times, kinds, steps, durations = [], [], [], []

    def add(time, kind, step=math.nan, duration=math.nan):
        times.append(np.atleast_1d(np.asarray(time, dtype=float)))
        size = times[-1].size
        kinds.append(np.full(size, kind, dtype=object))
        steps.append(np.broadcast_to(np.asarray(step, dtype=float), (size,)))
        durations.append(np.full(size, duration))

    for index, (t, g, u, saved, active, completes, stop) in enumerate(trace):
        if not active[0]:
            break
        t, g, u, saved, completes, stop = float(t[0]), float(g[0]), float(u[0]), float(saved[0]), bool(completes[0]), \
            float(stop[0])
        add(t, "job_start")
        if not completes and g <= u:            # a restart hit by the next failure
            add(t + g, "failure")
            continue
        start, done = t + u, round(saved / h)
        if index:
            add(start, "checkpoint_loaded", done)
        left = min(total - done, math.ceil((stop - start) / h) + 1)
        k = np.arange(1, left + 1)
        wall = start + k * h + delta * ((k - 1) // m)
        if completes:
            wall[-1] = stop
        k, wall = k[wall <= stop], wall[wall <= stop]
        j = np.arange(1, (left - 1) // m + 1)   # no save at the very end
        saved_at = start + j * (tau + delta)
        j, saved_at = j[saved_at <= stop], saved_at[saved_at <= stop]
        order = np.argsort(np.concatenate([2 * k, 2 * j * m + 1]), kind="stable")
        add(np.concatenate([wall, saved_at])[order], "step", np.concatenate([done + k, done + j * m])[order])
        saves = order >= k.size
        kinds[-1][saves] = "checkpoint_saved"
        durations[-1][saves] = delta
        add(stop, "job_end" if completes else "failure")
    return {"time": np.concatenate(times), "event": np.concatenate(kinds).tolist(), "step": np.concatenate(steps),
            "duration": np.concatenate(durations)}


def simulate_run_log(scenario=None, seed=0, *, failure_shape=None, restart_cv=0.5, steps_per_checkpoint=None):
    r"""One simulated run as the event log a run writes, with the goodput the simulation knows.

    The run is one trial of :func:`simulate_run`'s model (same draws, same
    rules), on the primary only: no site event is drawn. Its records are those
    :mod:`drmath.measure` reads: a ``job_start`` per job, a
    ``checkpoint_loaded`` after each restart (the newest durable checkpoint),
    a ``step`` per step, a ``checkpoint_saved`` when each save's stall ends
    (with its ``duration``), and the ``failure`` or the final ``job_end``.

    Parameters
    ----------
    scenario : Scenario, optional
        The inputs; the seed case when omitted. Keep the run short
        (``training.window``): the log has a record per step.
    seed : int, default 0
        Seed of :func:`numpy.random.default_rng`. [1]
    failure_shape : float, optional
        Weibull shape of the gaps, as :func:`simulate_run`. [1]
    restart_cv : float, default 0.5
        Coefficient of variation of each restart, as :func:`simulate_run`. [1]
    steps_per_checkpoint : int, optional
        Steps between checkpoints :math:`m`, in [1, 1e6]; default: the plan's
        step time fitted to its interval, :math:`\mathrm{round}(	au / t_{step})`. [1]

    Returns
    -------
    log : dict
        ``time`` [s] (from 0), ``event`` (list of str), ``step`` [1] and
        ``duration`` [s] (NaN where a record has none): what
        :func:`drmath.io.runs.to_jsonl` writes; and what the simulation knows:
        ``goodput`` [1] (compute time over completion time, the trial's ETTR),
        ``compute_time`` and ``completion_time`` [s], ``step_time``
        :math:`	au / m` [s] and ``failures`` [1].

    Notes
    -----
    The steps that end a segment cut short are lost with it, as is progress
    since the newest durable checkpoint; the step after a restart is time
    :mod:`drmath.measure` counts with the restart (its warm-up), so the
    measured goodput falls short of the simulated one by about
    :math:`t_{step}/M`, one step per interruption.

    Examples
    --------
    >>> from drmath import Scenario
    >>> s = Scenario().with_changes({"training.window": 86400.0})
    >>> log = simulate_run_log(s, seed=3)
    >>> len(log["event"]), log["failures"], round(log["goodput"], 4)
    (6973, 6, 0.9506)
    """
    scenario = _simulated(scenario)
    seed = _require_number("seed", seed, 0, 2**63 - 1, integer=True)
    failure_shape = _require_number("failure_shape", scenario.failures.weibull_shape if failure_shape is None
                                    else failure_shape, 0, 10, low_open=True)
    restart_cv = _require_number("restart_cv", restart_cv, 0, 10)
    p = _plan(scenario)
    tau, delta, work = p.checkpoint_interval, p.checkpoint_stall, p.compute_time
    m = (max(1, round(tau / p.step_time)) if steps_per_checkpoint is None else
         _require_number("steps_per_checkpoint", steps_per_checkpoint, 1, 1e6, integer=True))
    trace = []
    out = _segments(np.random.default_rng(seed), np.full(1, work), 1.0 / p.mtbf, tau=tau, delta=delta,
                    write=p.checkpoint_write_time, restart_mean=p.restart_overhead, restart_cv=restart_cv,
                    failure_shape=failure_shape, max_steps=int(50 * work / max(p.ettr, 1e-6) / p.mtbf) + 10_000,
                    trace=trace)
    log = _log_records(trace, work, tau, delta, tau / m, m)
    completion = float(out["done"][0])
    return {**log, "goodput": work / completion, "compute_time": work, "completion_time": completion,
            "step_time": tau / m, "failures": int(out["count"][0])}


def ettr_sweep(scenario, path, values, trials=1_000, seed=0, confidence=0.99, **options):
    r"""The plan's ETTR (exact) and the first-order form [1]_ against the simulated one along one input.

    The exact form (:func:`drmath.reliability.ettr_exact`, the plan's
    ``ettr``) follows the simulator everywhere; the sweep shows where the
    first-order form drifts: as :math:`u_0` or
    :math:`\tau` approach :math:`M`, its linear loss term
    :math:`(u_0 + \tau/2)/M` charges every interruption a full restart and
    half an interval, though the next interruption often cuts both short,
    so it turns pessimistic (and reaches 0 while the run still progresses).

    Parameters
    ----------
    scenario : Scenario
        The base inputs.
    path : str
        The numeric input to vary, ``section.field``, e.g.
        ``"failures.gpu_failure_rate"``.
    values : array_like
        Its values, each valid for that field.
    trials : int, default 1000
        Trials per value. [1]
    seed : int, default 0
        Seed; value ``i`` uses ``seed + i``.
    confidence : float, default 0.99
        Coverage of the per-trial band returned, in (0, 1). [1]
    **options
        Passed to :func:`simulate_run` (e.g. ``restart_cv``).

    Returns
    -------
    sweep : dict of str to ndarray
        ``values`` [field's unit], ``mtbf`` [s], ``restart_overhead`` [s],
        ``analytic`` [1] (``plan().ettr``), ``first_order`` [1]
        (``plan().ettr_first_order``), ``mean`` [1], ``low`` and ``high`` [1]
        (the band), and ``drift`` and ``first_order_drift`` [1] (each over the
        simulated mean, minus one).

    Notes
    -----
    .. math:: \mathrm{drift} = \mathrm{ETTR}_{closed} / \overline{\mathrm{ETTR}}_{sim} - 1

    References
    ----------
    .. [1] Kokolis et al., HPCA 2025, arXiv:2410.21680.

    Examples
    --------
    >>> from drmath import Scenario
    >>> s = Scenario().with_changes({"training.tokens": 1e11, "failures.site_event_rate": 0.0,
    ...                              "checkpoint.interval": 600.0})
    >>> rate = s.failures.gpu_failure_rate
    >>> out = ettr_sweep(s, "failures.gpu_failure_rate", [rate, 12 * rate], trials=300)
    >>> out["mtbf"].round(), out["analytic"].round(3), out["first_order"].round(3), out["mean"].round(3)
    (array([22805.,  1900.]), array([0.959, 0.617]), array([0.959, 0.524]), array([0.962, 0.627]))
    """
    if not isinstance(scenario, Scenario):
        raise TypeError(f"scenario must be a Scenario, got {type(scenario).__name__}")
    values = np.atleast_1d(np.asarray(values, dtype=float))
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"values must be a non-empty 1-D array, got shape {values.shape}")
    rows = []
    for i, value in enumerate(values):
        value = int(value) if float(value).is_integer() and path == "training.gpus" else float(value)
        r = simulate_run(scenario.with_changes({path: value}), trials, seed + i, **options)
        lo, hi = r.ettr_interval(confidence)
        rows.append((r.plan.mtbf, r.plan.restart_overhead, r.plan.ettr, r.plan.ettr_first_order,
                     float(r.ettr.mean()), lo, hi))
    mtbf, u0, analytic, first_order, mean, low, high = (np.array(col) for col in zip(*rows))
    return {"values": values, "mtbf": mtbf, "restart_overhead": u0, "analytic": analytic, "first_order": first_order,
            "mean": mean, "low": low, "high": high, "drift": analytic / mean - 1.0,
            "first_order_drift": first_order / mean - 1.0}
