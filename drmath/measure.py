r"""A run's events in, its measured goodput and badput out.

The plan predicts the share of wall-clock time that makes progress (ETTR); a
run's event log says what it was. :func:`measure_events` takes the events,
already parsed (times in seconds, event names, step numbers; the JSONL reader
is :mod:`drmath.io.runs`), and splits the wall time into five parts that add up
to it: productive step time, rework, downtime, restart and load, and
checkpoint stalls. :class:`RunMeasurement` holds them, with the goodput and
the failure rate the log implies (in the units of
``failures.gpu_failure_rate`` once the GPU count is known).

The events are those of Google's goodput library where it has them
(:data:`EVENTS`): ``job_start``, ``step`` (a step finished), ``checkpoint_saved``
(a save returned to the training loop), ``checkpoint_loaded`` (the state is
loaded), ``failure`` and ``job_end``.

How each stretch of time is read
--------------------------------
Each record ends the stretch of wall time since the record before it, and that
stretch goes to one part, by the record and what the job was doing:

- **Downtime**: a stretch that ends at ``job_start`` (from a failure, or a
  ``job_end``, to the next start), or at ``job_end`` (the job shutting down after
  its last record): no job is training.
- **Restart and load**: from a ``job_start`` to the first ``step`` after it, the
  ``checkpoint_loaded`` on the way included; also a job's stretch that ends at a
  failure or a job end before any step. The first step after a start (or a load)
  holds the job's warm-up (initialisation, compilation, the data pipeline),
  which a log of finished steps cannot split from the step: it counts here.
  A ``checkpoint_loaded`` in a training job (a roll-back without a restart)
  starts the same phase again.
- **Checkpoint stalls**: a stretch that ends at ``checkpoint_saved``: the loop
  blocked from the record before (its step) until the save returned. When the
  record carries ``"duration"`` (seconds the save blocked), the stall is that
  many seconds, ending at the record (at most the stretch, give or take
  :data:`DURATION_SLACK` for times written to the millisecond), and the rest
  of the stretch goes with the next stretch (time spent on the next step).
- **Rework**: a ``step`` stretch whose step numbers were already finished before
  (after a load went back to an older checkpoint), and the stretch from the
  last record to a ``failure`` while training (a step cut short). A stretch that
  covers several step numbers (a log that records every k-th step) is split in
  proportion of its repeated and new step numbers.
- **Productive**: the rest of the ``step`` stretches: steps finished for the first
  time.

The log must begin with ``job_start``; steps only go forward within a job,
unless a ``checkpoint_loaded`` comes first; a job that loads nothing continues
from the newest step finished. Each break of these rules, and a time going back,
raises ``ValueError`` naming the record (its line in the file, when the reader
gives them).

References
----------
.. [1] Google, "ml-goodput-measurement" (Python package ``ml-goodput-measurement``),
   github.com/AI-Hypercomputer/ml-goodput-measurement, 2024-2025: goodput as the
   share of time spent on productive training steps; badput by cause (program
   start-up, checkpoint load and save, wasted progress from disruptions).
.. [2] A. Kokolis et al., "Revisiting Reliability in Large-Scale Machine
   Learning Research Clusters," HPCA 2025, arXiv:2410.21680 (ETTR).
"""

import math
from dataclasses import dataclass

import numpy as np

from ._formula import formula
from ._validate import broadcasting, require_nonnegative, require_positive, short_repr

__all__ = ["EVENTS", "PARTS", "RunMeasurement", "measure_events", "measured_goodput", "implied_failure_rate"]

EVENTS = ("job_start", "step", "checkpoint_saved", "checkpoint_loaded", "failure", "job_end")
"""The event names a run log may hold, as Google's goodput library names them where it has them."""

STEP_REQUIRED = ("step", "checkpoint_loaded")
"""The events that must give their step number."""

DURATION_SLACK = 2e-3
"""How much a ``checkpoint_saved`` duration may exceed its stretch [s]: two times and a duration, each written to
the millisecond, are off by 1.5 ms at most. Within it the stall is the stretch."""

PARTS = ("productive", "rework", "downtime", "restart", "checkpoint_stall")
"""The parts of the wall time, in order: productive step time, then the badput."""

PART_TITLES = {"productive": "Productive steps", "rework": "Rework", "downtime": "Downtime",
               "restart": "Restart and load", "checkpoint_stall": "Checkpoint stalls"}
"""What the views call each part of :data:`PARTS`."""


@formula(r"G = \frac{T_{prod}}{T_{wall}}")
@broadcasting
def measured_goodput(productive_time, wall_time):
    r"""Measured goodput: the share of a run's wall time spent on steps finished for the first time.

    Parameters
    ----------
    productive_time : float or array_like
        Productive step time :math:`T_{prod}`. [s]
    wall_time : float or array_like
        The run's wall time :math:`T_{wall}`, first record to last, more than 0. [s]

    Returns
    -------
    measured_goodput : float or ndarray
        Goodput :math:`G`; a badput part's share is its time over :math:`T_{wall}` the same way. [1]

    Notes
    -----
    .. formula::

    with the wall time split in five parts (:func:`measure_events`),
    :math:`T_{wall} = T_{prod} + T_{rework} + T_{down} + T_{restart} + T_{stall}`.
    For a run that trains to its end it is the measured counterpart of the
    plan's ETTR [2]_.

    References
    ----------
    .. [1] Google, "ml-goodput-measurement" (goodput: productive training time over total time).
    .. [2] Kokolis et al., HPCA 2025, arXiv:2410.21680 (ETTR).

    Examples
    --------
    A day of wall time, 22.8 hours of it on new steps:

    >>> round(measured_goodput(22.8 * 3600, 24 * 3600), 3)
    0.95
    """
    require_nonnegative(productive_time=productive_time)
    require_positive(wall_time=wall_time)
    return productive_time / wall_time


@formula(r"\hat\lambda = \frac{n}{G\,T_{up}}")
@broadcasting
def implied_failure_rate(failures, exposure, gpus=1.0):
    r"""The failure rate a run log implies: failures over the GPU time they struck in.

    Parameters
    ----------
    failures : float or array_like
        Failures :math:`n` in the log. [1]
    exposure : float or array_like
        Time a job ran :math:`T_{up}` (the wall time less the downtime), more than 0. [s]
    gpus : float or array_like, default 1.0
        GPUs :math:`G` of the job; 1 gives the job's interruption rate :math:`1/M`. [1]

    Returns
    -------
    implied_failure_rate : float or ndarray
        :math:`\hat\lambda`, per GPU when ``gpus`` is given, the unit of
        ``failures.gpu_failure_rate``. [1/s]

    Notes
    -----
    .. formula::

    The maximum-likelihood rate of a Poisson process [1]_; with ``gpus`` it
    inverts the plan's :math:`M = 1/(G\lambda)`. A log of few failures says
    little: ``drmath calibrate``'s exact interval
    (:func:`drmath.calibrate.exponential_fit`) applies to the same count and time.

    References
    ----------
    .. [1] W. Q. Meeker and L. A. Escobar, *Statistical Methods for Reliability Data*, Wiley, 1998, ch. 7.

    Examples
    --------
    Seven failures in 40 hours of a 1,024-GPU job, per GPU-hour:

    >>> round(implied_failure_rate(7, 40 * 3600.0, 1024) * 3600, 7)
    0.0001709
    """
    require_nonnegative(failures=failures)
    require_positive(exposure=exposure, gpus=gpus)
    return failures / (gpus * exposure)


@dataclass(frozen=True)
class RunMeasurement:
    """A run's wall time split into its parts (:func:`measure_events`), with its counts.

    Times in seconds: ``wall_time`` (first record to last), ``productive``,
    ``rework``, ``downtime``, ``restart`` (restart and load) and
    ``checkpoint_stall``, which add up to ``wall_time``. Counts [1]: ``failures``,
    ``jobs`` (job starts), ``loads``, ``checkpoints`` (saves), ``steps`` (step
    numbers finished for the first time, from the first load's step, or 0),
    ``records``. ``.goodput`` is the
    productive share, ``.shares`` every part's.
    """

    wall_time: float
    productive: float
    rework: float
    downtime: float
    restart: float
    checkpoint_stall: float
    failures: int
    jobs: int
    loads: int
    checkpoints: int
    steps: int
    records: int

    @property
    def parts(self):
        """Each part of :data:`PARTS`, in seconds. [s]"""
        return {name: getattr(self, name) for name in PARTS}

    @property
    def shares(self):
        """Each part of :data:`PARTS` as a share of the wall time; they add up to 1. [1]"""
        return {name: float(measured_goodput(value, self.wall_time)) for name, value in self.parts.items()}

    @property
    def goodput(self):
        """Productive step time over wall time (:func:`measured_goodput`). [1]"""
        return float(measured_goodput(self.productive, self.wall_time))

    @property
    def badput(self):
        """Everything else: 1 - goodput. [1]"""
        return math.fsum(share for name, share in self.shares.items() if name != "productive")

    @property
    def exposure(self):
        """Time a job ran: wall time less downtime. [s]"""
        return self.wall_time - self.downtime

    @property
    def mtbf(self):
        """Measured time between failures of the job: running time over failures; inf with none. [s]"""
        return self.exposure / self.failures if self.failures else math.inf

    @property
    def mean_stall(self):
        """Stall per checkpoint saved; NaN with none. [s]"""
        return self.checkpoint_stall / self.checkpoints if self.checkpoints else math.nan

    @property
    def mean_restart(self):
        """Restart and load per job start; NaN with none. [s]"""
        return self.restart / self.jobs if self.jobs else math.nan

    def failure_rate(self, gpus=1):
        """The failure rate the log implies (:func:`implied_failure_rate`): per GPU with ``gpus``. [1/s]"""
        if self.exposure <= 0:
            return math.nan
        return float(implied_failure_rate(self.failures, self.exposure, gpus))

    def to_dict(self, gpus=None):
        """Every figure in SI: the parts [s], their shares [1], the goodput, counts and rates.

        ``failure_rate`` is per job [1/s]; with ``gpus`` also ``gpu_failure_rate`` [1/s], per GPU.
        """
        out = {"wall_time": self.wall_time, **self.parts, "shares": self.shares, "goodput": self.goodput,
               "badput": self.badput, "failures": self.failures, "jobs": self.jobs, "loads": self.loads,
               "checkpoints": self.checkpoints, "steps": self.steps, "records": self.records,
               "exposure": self.exposure, "mtbf": self.mtbf if self.failures else None,
               "mean_stall": self.mean_stall if self.checkpoints else None, "failure_rate": self.failure_rate()}
        if gpus is not None:
            out["gpus"] = gpus
            out["gpu_failure_rate"] = self.failure_rate(gpus)
        return out


class _Walk:
    """The state of a log read record by record (see the module notes)."""

    def __init__(self, where):
        self.where = where
        self.time = {name: [] for name in PARTS}
        self.running = None       # index of the running job's job_start, or None
        self.training = False     # a step finished since the job's start or its last load
        self.position = None      # the step the running job is at (its last step, or the step loaded)
        self.position_at = None
        self.high = None          # the newest step finished in the whole log
        self.high_at = None
        self.carry = 0.0          # the part of a checkpoint_saved stretch its duration leaves to the next
        self.ended = None         # index of the failure or job_end that stopped the last job
        self.counts = dict(failures=0, jobs=0, loads=0, checkpoints=0, steps=0)

    def fail(self, i, text):
        raise ValueError(f"{self.where(i)}: {text}")

    def must_run(self, i, event):
        if self.running is None:  # the first record is a job_start: a job ran and stopped
            self.fail(i, f"{event!r} while no job runs (the job stopped at {self.where(self.ended)}); a "
                      "'job_start' must come first")

    def job_start(self, i, gap, step, duration):
        if self.running is not None:
            self.fail(i, f"'job_start' while the job started at {self.where(self.running)} still runs: log its "
                      "'failure' or 'job_end' first")
        self.time["downtime"].append(gap)
        self.running, self.training, self.position, self.position_at = i, False, self.high, self.high_at
        self.counts["jobs"] += 1

    def checkpoint_loaded(self, i, gap, step, duration):
        self.must_run(i, "checkpoint_loaded")
        if self.high is not None and step > self.high:
            self.fail(i, f"'checkpoint_loaded' of step {step}, past the newest step finished, {self.high} "
                      f"({self.where(self.high_at)})")
        self.time["restart"].append(gap)
        self.training, self.position, self.position_at = False, step, i
        if self.high is None:  # the log begins from a checkpoint: its steps were done before the log
            self.high, self.high_at = step, i
        self.counts["loads"] += 1

    def step(self, i, gap, step, duration):
        self.must_run(i, "step")
        if self.position is not None and step <= self.position:
            back = "repeats" if step == self.position else "goes back from"
            self.fail(i, f"step {step} {back} step {self.position} ({self.where(self.position_at)}) with no "
                      "'checkpoint_loaded' before it")
        if not self.training:
            self.time["restart"].append(gap)
        else:
            span = step - self.position
            redo = 0 if self.high is None else min(max(min(step, self.high) - self.position, 0), span)
            self.time["rework"].append(gap * redo / span)
            self.time["productive"].append(gap - gap * redo / span)
        new = step - (self.high if self.high is not None else 0)  # a log that loads nothing starts at step 0
        if new > 0:
            self.counts["steps"] += new
            self.high, self.high_at = step, i
        self.training, self.position, self.position_at = True, step, i

    def checkpoint_saved(self, i, gap, step, duration):
        self.must_run(i, "checkpoint_saved")
        if duration is not None:
            if duration > gap + DURATION_SLACK:
                self.fail(i, f"'checkpoint_saved' blocked for duration {duration:g} s, longer than the "
                          f"{gap:g} s since the record before it")
            duration = min(duration, gap)
            self.time["checkpoint_stall"].append(duration)
            self.carry = gap - duration
        else:
            self.time["checkpoint_stall"].append(gap)
        self.counts["checkpoints"] += 1

    def failure(self, i, gap, step, duration):
        self.must_run(i, "failure")
        self.time["rework" if self.training else "restart"].append(gap)
        self.running, self.ended = None, i
        self.counts["failures"] += 1

    def job_end(self, i, gap, step, duration):
        self.must_run(i, "job_end")
        self.time["downtime" if self.training else "restart"].append(gap)
        self.running, self.ended = None, i


def _where(lines):
    if lines is None:
        return lambda i: f"record {i + 1}"
    return lambda i: f"line {lines[i]}"


def _columns(times, events, steps, durations, where):
    """The records as lists, each checked: finite times in order, known events, whole steps where needed."""
    times = np.asarray(times, dtype=float)
    events = list(events)
    n = times.size
    if times.ndim != 1 or len(events) != n:
        raise ValueError(f"times and events must be 1-D and of one length, got {times.shape} and {len(events)}")
    steps = np.full(n, np.nan) if steps is None else np.asarray(steps, dtype=float)
    durations = np.full(n, np.nan) if durations is None else np.asarray(durations, dtype=float)
    if steps.shape != (n,) or durations.shape != (n,):
        raise ValueError(f"steps and durations must have the length of times ({n}), got {steps.shape} and "
                         f"{durations.shape}")
    if n < 2:
        raise ValueError(f"a run log needs at least two records (a job_start and what followed), got {n}")
    bad = ~np.isfinite(times)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{where(i)}: time {times[i]!r} is not a finite number of seconds")
    back = np.flatnonzero(np.diff(times) < 0)
    if back.size:
        i = int(back[0]) + 1
        raise ValueError(f"{where(i)}: time goes back: {times[i]:.6g} s is before {times[i - 1]:.6g} s of "
                         f"{where(i - 1)}; records must be in time order")
    for i, event in enumerate(events):
        if event not in EVENTS:
            raise ValueError(f"{where(i)}: unknown event {short_repr(event, 60)}: must be one of "
                             f"{', '.join(EVENTS)}")
    needs = np.isin(np.asarray(events, dtype=object), STEP_REQUIRED) & np.isnan(steps)
    if needs.any():
        i = int(np.argmax(needs))
        raise ValueError(f"{where(i)}: {events[i]!r} needs its step number")
    given = ~np.isnan(steps)
    wrong = given & ((steps < 0) | (steps != np.floor(steps)) | (steps > 2**53))
    if wrong.any():
        i = int(np.argmax(wrong))
        raise ValueError(f"{where(i)}: step {steps[i]!r} must be a whole number in [0, 2**53]")
    wrong = ~np.isnan(durations) & ((durations < 0) | ~np.isfinite(durations))
    if wrong.any():
        i = int(np.argmax(wrong))
        raise ValueError(f"{where(i)}: duration {durations[i]!r} must be a finite number of seconds >= 0")
    if events[0] != "job_start":
        raise ValueError(f"{where(0)}: a run log begins with 'job_start', got {events[0]!r}")
    return (times, events, [None if math.isnan(s) else int(s) for s in steps.tolist()],
            [None if math.isnan(d) else d for d in durations.tolist()])


@formula(r"T_{wall} = T_{prod} + T_{rework} + T_{down} + T_{restart} + T_{stall}")
def measure_events(times, events, steps=None, durations=None, lines=None):
    r"""A run's wall time split into productive step time and its badput, from its events.

    Parameters
    ----------
    times : array_like of float
        When each record happened, in time order, from any origin. [s]
    events : sequence of str
        Each record's event, one of :data:`EVENTS`. [1]
    steps : array_like of float, optional
        Each record's step number, a whole number; NaN where a record has
        none (``step`` and ``checkpoint_loaded`` need one). [1]
    durations : array_like of float, optional
        Seconds a ``checkpoint_saved`` blocked; NaN where not given (the stall
        is then the time since the record before). [s]
    lines : sequence of int, optional
        Each record's line in its file, for messages (``"line 7: ..."``);
        without it they say ``"record 7"`` (from 1). [1]

    Returns
    -------
    measurement : RunMeasurement
        The parts in seconds, adding up to the wall time; ``.goodput``,
        ``.shares`` and the counts. [s]

    Raises
    ------
    ValueError
        Naming the record: a time that is not finite or goes back, an unknown
        event, a missing or negative step, a step that goes back with no
        ``checkpoint_loaded`` before it, a load of a step never finished, a
        record while no job runs, a ``job_start`` while one runs, a first
        record that is not ``job_start``, a stall ``duration`` longer than
        its stretch.

    Notes
    -----
    .. formula::

    Each record ends the stretch since the record before it, and the stretch
    goes to one part, as the module notes state: to the downtime up to a
    ``job_start`` (and a ``job_end``), to the restart and load from a start
    to its first step, to the stalls up to a ``checkpoint_saved`` (or its
    ``duration``), to the rework for steps finished before and for a step cut
    short by a failure, else to productive step time. The stretches tile the
    wall time, so the parts add up to it (to rounding); the goodput is
    :func:`measured_goodput`. The split follows the causes of badput of
    Google's goodput library [1]_.

    References
    ----------
    .. [1] Google, "ml-goodput-measurement" (goodput and badput by cause).

    Examples
    --------
    A job saves at step 2 (blocking 10 s), finishes steps 3 and 4, fails; the
    next loads step 2 after 300 s of restart, warms up on step 3, does step 4
    again and step 5:

    >>> t = [0, 100, 200, 210, 310, 410, 450, 500, 800, 900, 1000, 1100, 1100]
    >>> e = ["job_start", "step", "step", "checkpoint_saved", "step", "step", "failure",
    ...      "job_start", "checkpoint_loaded", "step", "step", "step", "job_end"]
    >>> nan = float("nan")
    >>> s = [nan, 1, 2, 2, 3, 4, nan, nan, 2, 3, 4, 5, nan]
    >>> m = measure_events(t, e, s)
    >>> m.parts
    {'productive': 400.0, 'rework': 140.0, 'downtime': 50.0, 'restart': 500.0, 'checkpoint_stall': 10.0}
    >>> round(m.goodput, 3), m.failures, m.wall_time
    (0.364, 1, 1100.0)
    """
    where = _where(lines)
    times, events, steps, durations = _columns(times, events, steps, durations, where)
    walk = _Walk(where)
    listed = times.tolist()
    previous = listed[0]
    for i, (now, event, step, duration) in enumerate(zip(listed, events, steps, durations)):
        gap, walk.carry = now - previous + walk.carry, 0.0
        if duration is not None and event != "checkpoint_saved":
            walk.fail(i, f"'duration' belongs to 'checkpoint_saved' records, not {event!r}")
        getattr(walk, event)(i, gap, step, duration)
        previous = now
    if walk.carry:  # a last checkpoint_saved's stretch beyond its duration: nothing follows to take it
        walk.time["checkpoint_stall"].append(walk.carry)
    parts = {name: math.fsum(values) for name, values in walk.time.items()}
    wall = listed[-1] - listed[0]
    if not wall > 0:
        raise ValueError(f"the run log spans no time: its {len(listed)} records are all at {listed[0]:g} s")
    return RunMeasurement(wall_time=wall, **parts, **walk.counts, records=len(listed))
