r"""Moving checkpoints between tiers and sites: hop times, chains and keeping up.

The tiers are host memory, local NVMe, the site's parallel filesystem, the
site's object store and the remote site. Remote replication ships every k-th
checkpoint; it keeps up only if one transfer fits inside its interval.
Otherwise the backlog grows through the run and the site RPO has no bound.

References
----------
.. [1] AWS, "Disaster Recovery of Workloads on AWS: Recovery in the Cloud,"
   AWS Well-Architected whitepaper, section "Disaster recovery options in the
   cloud".
.. [2] Amazon S3 User Guide, "Performance guidelines": one concurrent request
   for each 85-90 MB/s.
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
    require_ratio,
)

__all__ = ["transfer_time", "chain_time", "replication_every", "replication_utilization",
           "replication_keeps_up", "bandwidth_needed", "bytes_shipped"]


@broadcasting
def transfer_time(size, bandwidth, efficiency=1.0, latency=0.0, compression=1.0):
    r"""Time for one hop to move a payload.

    Parameters
    ----------
    size : float or array_like
        Payload before compression :math:`S`. [B]
    bandwidth : float or array_like
        Line rate of the hop :math:`B`. [B/s]
    efficiency : float or array_like, default 1.0
        Share of the line rate achieved (protocol, congestion), in (0, 1]
        :math:`\eta`. [1]
    latency : float or array_like, default 0.0
        Fixed cost per transfer (round trips, request set-up) :math:`\ell`. [s]
    compression : float or array_like, default 1.0
        Compression ratio, >= 1 :math:`c`. [1]

    Returns
    -------
    transfer_time : float or ndarray
        :math:`t`. [s]

    Notes
    -----
    .. math:: t = \ell + \frac{S / c}{B \, \eta}

    References
    ----------
    .. [1] Google Cloud blog, "AI infrastructure: data center and global
       networks built for the AI era": 100 Gbps moves 1 PB in 22.2 h.

    Examples
    --------
    >>> from drmath.units import PB, Gbit_per_s, hour
    >>> round(transfer_time(1 * PB, 100 * Gbit_per_s) / hour, 1)
    22.2
    """
    require_positive(size=size, bandwidth=bandwidth)
    require_fraction(efficiency=efficiency)
    require_nonnegative(latency=latency)
    require_ratio(compression=compression)
    return latency + size / compression / (bandwidth * efficiency)


def chain_time(hop_times, streamed=False):
    r"""Time for a payload to cross a chain of hops.

    Parameters
    ----------
    hop_times : sequence of float or array_like
        Each hop's :func:`transfer_time`, in order. [s]
    streamed : bool, default False
        False for store-and-forward (each hop waits for the whole payload),
        True for streaming through (the slowest hop sets the pace). [1]

    Returns
    -------
    chain_time : float or ndarray
        :math:`t_{chain}`. [s]

    Notes
    -----
    .. math::

       t_{chain} = \begin{cases} \sum_i t_i & \text{store-and-forward} \\
                                  \max_i t_i & \text{streamed} \end{cases}

    Streaming ignores the pipeline fill of the faster hops, a first-order
    approximation when payloads are large.

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Vol. 2*, Wiley, 1976 (store-and-forward).

    Examples
    --------
    >>> chain_time([64.8, 504.0])
    568.8
    >>> chain_time([64.8, 504.0], streamed=True)
    504.0
    """
    require_flag(streamed=streamed)
    if isinstance(hop_times, (str, bytes)) or not hasattr(hop_times, "__len__"):
        raise TypeError(f"hop_times must be a sequence of times, got {type(hop_times).__name__}")
    if len(hop_times) == 0:
        raise ValueError("hop_times must name at least one hop, got []")
    for i, t in enumerate(hop_times):
        require_nonnegative(**{f"hop_times[{i}]": t})
    # hop by hop, in order, so a number and an array add up alike
    return as_output(functools.reduce(np.maximum if streamed else np.add,
                                      [np.asarray(t, dtype=float) for t in hop_times]))


@broadcasting
def replication_every(replication_interval, checkpoint_interval):
    r"""Which checkpoints go off-site: every k-th.

    Parameters
    ----------
    replication_interval : float or array_like
        Target time between off-site copies. [s]
    checkpoint_interval : float or array_like
        Checkpoint interval :math:`\tau`. [s]

    Returns
    -------
    replication_every : float or ndarray
        :math:`k`, a whole number >= 1. [1]

    Notes
    -----
    .. math:: k = \max\left(1, \left\lceil T_{rep} / \tau \right\rceil\right)

    The effective replication interval is :math:`k \tau`, at least the target.

    References
    ----------
    .. [1] AWS DR whitepaper: RPO is set by the replication cadence.

    Examples
    --------
    >>> replication_every(3600.0, 600.0)
    6.0
    >>> replication_every(3600.0, 700.0)
    6.0
    """
    require_positive(replication_interval=replication_interval, checkpoint_interval=checkpoint_interval)
    # 1e-9 forgives float noise: 3600/600 must give 6, not 7
    return np.maximum(1.0, np.ceil(replication_interval / checkpoint_interval - 1e-9))


@broadcasting
def replication_utilization(replication_time, replication_interval):
    r"""Share of the replication interval the link is busy.

    Parameters
    ----------
    replication_time : float or array_like
        Time to ship one checkpoint off-site :math:`t_{rep}`. [s]
    replication_interval : float or array_like
        Effective time between off-site copies :math:`k\tau`. [s]

    Returns
    -------
    replication_utilization : float or ndarray
        :math:`\rho`; above 1 the backlog grows without bound. [1]

    Notes
    -----
    .. math:: \rho = \frac{t_{rep}}{k \tau}

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Vol. 1*, Wiley, 1975 (a queue with
       utilisation above 1 is unstable).

    Examples
    --------
    >>> replication_utilization(504.0, 3600.0)
    0.14
    """
    require_nonnegative(replication_time=replication_time)
    require_positive(replication_interval=replication_interval)
    return replication_time / replication_interval


@broadcasting
def replication_keeps_up(replication_time, replication_interval):
    r"""Whether each off-site copy finishes before the next one is due.

    Parameters
    ----------
    replication_time : float or array_like
        Time to ship one checkpoint off-site :math:`t_{rep}`. [s]
    replication_interval : float or array_like
        Effective time between off-site copies :math:`k\tau`. [s]

    Returns
    -------
    replication_keeps_up : bool or ndarray
        :math:`t_{rep} \le k\tau`. [1]

    Notes
    -----
    .. math:: t_{rep} \le k \tau

    References
    ----------
    .. [1] AWS DR whitepaper: replication lag bounds the RPO.

    Examples
    --------
    An 8.4-min copy every hour keeps up; every 5 min it does not:

    >>> replication_utilization(504.0, 3600.0), replication_keeps_up(504.0, 3600.0)
    (0.14, True)
    >>> replication_utilization(504.0, 300.0), replication_keeps_up(504.0, 300.0)
    (1.68, False)
    """
    return replication_utilization(replication_time, replication_interval) <= 1.0


@broadcasting
def bandwidth_needed(size, interval, efficiency, latency, upload_time, compression=1.0, streamed=False):
    r"""Link line rate at which off-site replication just keeps up.

    Parameters
    ----------
    size : float or array_like
        Checkpoint size before compression :math:`S`. [B]
    interval : float or array_like
        Effective time between off-site copies :math:`k\tau`. [s]
    efficiency : float or array_like
        Share of the line rate achieved, in (0, 1] :math:`\eta`. [1]
    latency : float or array_like
        Fixed cost per transfer :math:`\ell`. [s]
    upload_time : float or array_like
        Time of the hop before the link (the object-store upload) :math:`t_{os}`. [s]
    compression : float or array_like, default 1.0
        Compression ratio, >= 1 :math:`c`. [1]
    streamed : bool, default False
        Whether the upload and the link stream (else store-and-forward). [1]

    Returns
    -------
    bandwidth_needed : float or ndarray
        :math:`B^*`; ``inf`` where no line rate keeps up: the upload and the
        latency alone fill the interval. [B/s]

    Notes
    -----
    Replication keeps up while one copy's chain time fits in its interval
    (:func:`replication_keeps_up`). Store-and-forward, the chain time is
    :math:`t_{os} + \ell + \frac{S/c}{B \eta}` (:func:`chain_time` of
    :func:`transfer_time` hops); solved for the line rate :math:`B` at equality:

    .. math::

       B^* = \frac{S / c}{\eta \, (k\tau - \ell - t_{os})}, \qquad
       B^* = \infty \text{ where } k\tau - \ell - t_{os} \le 0

    Streamed, the slowest hop sets the pace, so the link alone must fit in
    :math:`k\tau` (the formula with :math:`t_{os} = 0`), and no line rate
    helps where the upload itself does not fit (:math:`t_{os} > k\tau`).

    References
    ----------
    .. [1] Derived here: :func:`transfer_time` and :func:`chain_time` set equal
       to the interval :math:`k\tau` and solved for the line rate; the queue is
       stable while utilisation is at most 1 (L. Kleinrock, *Queueing Systems,
       Vol. 1*, Wiley, 1975).

    Examples
    --------
    A 5.67 TB checkpoint every hour, 80% efficient, 1 s latency, after a 64.8 s
    upload:

    >>> from drmath.units import Gbit_per_s
    >>> round(bandwidth_needed(5.67e12, 3600.0, 0.8, 1.0, 64.8) / Gbit_per_s, 2)
    16.04
    >>> round(bandwidth_needed(5.67e12, 3600.0, 0.8, 1.0, 64.8, streamed=True) / Gbit_per_s, 2)
    15.75
    >>> bandwidth_needed(5.67e12, 3600.0, 0.8, 1.0, 4000.0, streamed=True)
    inf
    """
    require_positive(size=size, interval=interval)
    require_fraction(efficiency=efficiency)
    require_nonnegative(latency=latency, upload_time=upload_time)
    require_ratio(compression=compression)
    require_flag(streamed=streamed)
    budget = interval - latency - np.where(streamed, 0.0, upload_time)
    feasible = (budget > 0) & ~(streamed & (upload_time > interval))
    return np.where(feasible, size / compression / (efficiency * budget), np.inf)


@broadcasting
def bytes_shipped(run_time, replication_interval, size, compression=1.0):
    r"""Bytes sent off-site over the run.

    Parameters
    ----------
    run_time : float or array_like
        Wall-clock time of the run :math:`T`; may be ``inf``. [s]
    replication_interval : float or array_like
        Effective time between off-site copies :math:`k\tau`. [s]
    size : float or array_like
        Checkpoint size before compression :math:`S`. [B]
    compression : float or array_like, default 1.0
        Compression ratio, >= 1 :math:`c`. [1]

    Returns
    -------
    bytes_shipped : float or ndarray
        :math:`V`, the volume that pays egress. [B]

    Notes
    -----
    One compressed checkpoint leaves every :math:`k\tau`:

    .. math:: V = \frac{T}{k\tau} \cdot \frac{S}{c}

    :math:`T / k\tau` is not rounded: the mean volume of a run whose last copy
    may fall anywhere in its interval.

    References
    ----------
    .. [1] Derived here: copies per run times bytes per copy. Egress is priced
       per byte sent (AWS Direct Connect pricing, data transfer out).

    Examples
    --------
    A 5.67 TB checkpoint shipped every hour of a 90-day run:

    >>> from drmath.units import PB, day
    >>> round(bytes_shipped(90 * day, 3600.0, 5.67e12) / PB, 2)
    12.25
    """
    require_nonnegative_or_inf(run_time=run_time)
    require_positive(replication_interval=replication_interval, size=size)
    require_ratio(compression=compression)
    return run_time / replication_interval * size / compression
