r"""RPO and RTO by failure scope.

*Local* failures (a GPU, node or rack; the site's storage survives) lose the
work since the last durable checkpoint. *Site* failures (the building is lost)
lose the work since the last checkpoint that finished arriving off-site. The
worst case is the DR convention; the expected value sits beside it.

RTO is a sum of named phases, so a drill can measure each one.

References
----------
.. [1] AWS, "Disaster Recovery of Workloads on AWS: Recovery in the Cloud,"
   AWS Well-Architected whitepaper.
.. [2] A. Kokolis et al., HPCA 2025, arXiv:2410.21680 (restart overhead u0).
"""

import functools

import numpy as np

from ._validate import (
    as_output,
    broadcasting,
    require_flag,
    require_fraction,
    require_nonnegative,
    require_nonnegative_or_inf,
    require_positive,
    short_repr,
)

__all__ = ["rpo_local", "rpo_site", "local_rto_phases", "site_rto_phases", "rto", "resume_slip",
           "expected_remaining_run", "LOCAL_PHASES", "SITE_PHASES"]

LOCAL_PHASES = ("detection", "reschedule", "launch", "load", "validation")
"""Phases of a local recovery, in order."""

SITE_PHASES = ("detection", "decision", "readiness", "staging", "launch", "load", "validation")
"""Phases of a site failover, in order."""


@broadcasting
def rpo_local(checkpoint_interval, write_time, expected=False):
    r"""Progress lost to a local failure.

    Parameters
    ----------
    checkpoint_interval : float or array_like
        Time between checkpoints :math:`\tau`. [s]
    write_time : float or array_like
        Persist time :math:`W`: a checkpoint is not durable before it ends. [s]
    expected : bool or array_like, default False
        False for the worst case, True for the expected value. [1]

    Returns
    -------
    rpo_local : float or ndarray
        Lost progress. [s]

    Notes
    -----
    .. math::

       \mathrm{RPO}_{local} = \tau + W, \qquad
       E[\text{loss}] = \tau/2 + W

    A failure at a uniform time :math:`t` after a checkpoint starts loses
    :math:`t` once that checkpoint is durable, and :math:`\tau + t` while it
    is still persisting; the mean is exactly :math:`\tau/2 + W` for
    :math:`W \le \tau`.

    References
    ----------
    .. [1] Mohan et al., "CheckFreq," FAST'21 (snapshot and persist phases).

    Examples
    --------
    >>> rpo_local(600.0, 3.0)
    603.0
    >>> rpo_local(600.0, 3.0, expected=True)
    303.0
    """
    require_positive(checkpoint_interval=checkpoint_interval)
    require_nonnegative(write_time=write_time)
    require_flag(expected=expected)
    return np.where(expected, checkpoint_interval / 2, checkpoint_interval) + write_time


@broadcasting
def rpo_site(replication_interval, write_time, replication_time, keeps_up=True, expected=False):
    r"""Progress lost when the site is lost.

    Parameters
    ----------
    replication_interval : float or array_like
        Effective time between off-site copies :math:`k\tau`. [s]
    write_time : float or array_like
        Persist time :math:`W`. [s]
    replication_time : float or array_like
        Time to ship one checkpoint off-site :math:`t_{rep}`. [s]
    keeps_up : bool or array_like, default True
        Whether replication keeps up (see
        :func:`drmath.replication.replication_keeps_up`); where it does not,
        the backlog grows and the RPO has no bound. [1]
    expected : bool or array_like, default False
        False for the worst case, True for the expected value. [1]

    Returns
    -------
    rpo_site : float or ndarray
        Lost progress; ``inf`` where replication does not keep up. [s]

    Notes
    -----
    .. math::

       \mathrm{RPO}_{site} = k\tau + W + t_{rep}, \qquad
       E[\text{loss}] = k\tau/2 + W + t_{rep}

    References
    ----------
    .. [1] AWS DR whitepaper: RPO is the age of the newest copy at the
       recovery site.

    Examples
    --------
    >>> rpo_site(3600.0, 3.0, 504.0)
    4107.0
    >>> rpo_site(3600.0, 3.0, 5000.0, keeps_up=False)
    inf
    """
    require_positive(replication_interval=replication_interval)
    require_nonnegative(write_time=write_time, replication_time=replication_time)
    require_flag(keeps_up=keeps_up, expected=expected)
    finite = np.where(expected, replication_interval / 2, replication_interval) + write_time + replication_time
    return np.where(keeps_up, finite, np.inf)


def local_rto_phases(detection, reschedule, launch, load, validation):
    r"""Phases of recovering from a local failure, in order.

    Parameters
    ----------
    detection : float or array_like
        From the fault to the job known dead (health checks, collective
        timeouts). [s]
    reschedule : float or array_like
        Replacing the failed nodes with spares. [s]
    launch : float or array_like
        Scheduler, containers and collective initialisation at scale. [s]
    load : float or array_like
        Reading the checkpoint back (:func:`drmath.checkpoint.checkpoint_load_time`). [s]
    validation : float or array_like
        The first steps, until they reproduce the loss. [s]

    Returns
    -------
    phases : dict of str to float or ndarray
        Phase name to duration, keys :data:`LOCAL_PHASES`. [s]

    Notes
    -----
    .. math:: \mathrm{RTO}_{local} = t_{det} + t_{resched} + t_{launch} + L + t_{val}

    Their sum is the restart overhead :math:`u_0` of :func:`drmath.reliability.ettr`.

    References
    ----------
    .. [1] Kokolis et al., arXiv:2410.21680: u0 of 5-20 min, checkpoint load included.

    Examples
    --------
    >>> rto(local_rto_phases(180.0, 120.0, 180.0, 2.8, 120.0))
    602.8
    """
    values = dict(zip(LOCAL_PHASES, (detection, reschedule, launch, load, validation)))
    require_nonnegative(**values)
    return values


def site_rto_phases(detection, decision, readiness, staging, launch, load, validation):
    r"""Phases of failing over to the standby site, in order.

    Parameters
    ----------
    detection : float or array_like
        From the site event to it being confirmed. [s]
    decision : float or array_like
        Deciding to fail over (0 where it is automatic). [s]
    readiness : float or array_like
        Until the standby can launch the job; set by the DR tier. [s]
    staging : float or array_like
        Copying the checkpoint onto the standby's own storage; 0 when
        replication already lands there. [s]
    launch : float or array_like
        Scheduler, containers and collective initialisation on the standby. [s]
    load : float or array_like
        Reading the checkpoint on the standby. [s]
    validation : float or array_like
        The first steps, until they reproduce the loss. [s]

    Returns
    -------
    phases : dict of str to float or ndarray
        Phase name to duration, keys :data:`SITE_PHASES`. [s]

    Notes
    -----
    .. math::

       \mathrm{RTO}_{site} = t_{det} + t_{dec} + t_{ready} + t_{stage}
                             + t_{launch} + L + t_{val}

    References
    ----------
    .. [1] AWS DR whitepaper: RTO covers detection, failover of resources,
       data restore and warm-up.

    Examples
    --------
    >>> rto(site_rto_phases(300.0, 1800.0, 3600.0, 0.0, 180.0, 2.8, 120.0)) / 60
    100.04666666666667
    """
    values = dict(zip(SITE_PHASES, (detection, decision, readiness, staging, launch, load, validation)))
    require_nonnegative(**values)
    return values


def rto(phases):
    r"""Recovery time: the sum of the phases.

    Parameters
    ----------
    phases : dict of str to float or array_like
        Phase name to duration, from :func:`local_rto_phases` or
        :func:`site_rto_phases`. [s]

    Returns
    -------
    rto : float or ndarray
        :math:`\sum_i t_i`. [s]

    Notes
    -----
    .. math:: \mathrm{RTO} = \sum_i t_i

    A promise needs the distribution of this sum, from drills, not the sum of
    best cases.

    References
    ----------
    .. [1] AWS DR whitepaper.

    Examples
    --------
    >>> rto({"detection": 60.0, "load": 30.0})
    90.0
    """
    if not hasattr(phases, "items") or not phases:
        raise ValueError(f"phases must name at least one phase, got {short_repr(phases)}")
    for name, value in phases.items():
        require_nonnegative(**{str(name): value})
    # phase by phase, in order, so a number and an array add up alike
    return as_output(functools.reduce(np.add, [np.asarray(v, dtype=float) for v in phases.values()]))


@broadcasting
def resume_slip(remaining_time, standby_fraction):
    r"""Schedule slip from finishing on a smaller standby.

    Parameters
    ----------
    remaining_time : float or array_like
        Wall-clock time the run still needed on the primary. [s]
    standby_fraction : float or array_like
        Standby size over primary size :math:`G_s/G`, in (0, 1]. [1]

    Returns
    -------
    resume_slip : float or ndarray
        Extra wall-clock time. [s]

    Notes
    -----
    .. math:: \Delta T = T_{rem} \left(\frac{G}{G_s} - 1\right)

    Assumes throughput scales with GPUs and the primary is not rebuilt within
    the run. For a site event at a uniform time in the run, the expected
    :math:`T_{rem}` is half the run.

    References
    ----------
    .. [1] Narayanan et al. 2021, arXiv:2104.04473, eq. (4): time scales as 1/G.

    Examples
    --------
    >>> resume_slip(45 * 86_400.0, 0.5) / 86_400
    45.0
    """
    require_nonnegative_or_inf(remaining_time=remaining_time)
    require_fraction(standby_fraction=standby_fraction)
    factor = 1.0 / standby_fraction - 1.0
    with np.errstate(invalid="ignore"):  # inf × 0: a full-size standby never slips
        return np.where(factor == 0, 0.0, remaining_time * factor)


@broadcasting
def expected_remaining_run(run_time):
    r"""Expected run time left when a site event strikes.

    Parameters
    ----------
    run_time : float or array_like
        Wall-clock time of the run :math:`T`; may be ``inf``. [s]

    Returns
    -------
    expected_remaining_run : float or ndarray
        :math:`E[T_{rem}] = T/2`, the :math:`T_{rem}` of :func:`resume_slip`. [s]

    Notes
    -----
    A site event at a uniform time :math:`t \in [0, T]` leaves
    :math:`T - t` to run, whose mean is

    .. math:: E[T_{rem}] = T / 2

    Events are rare (:math:`\lambda_s T \ll 1`), so given one in the run its
    time is close to uniform.

    References
    ----------
    .. [1] Derived here: the mean of :math:`T - t` for :math:`t` uniform on
       :math:`[0, T]`, the first-event time of a Poisson process of small
       :math:`\lambda_s T` (Kleinrock, *Queueing Systems, Vol. 1*, Wiley, 1975,
       Sec. 2.4).

    Examples
    --------
    >>> expected_remaining_run(90 * 86_400.0) / 86_400
    45.0
    """
    require_nonnegative_or_inf(run_time=run_time)
    return run_time / 2
