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

import numpy as np

from ._validate import broadcasting, require_flag, as_output as _out, require_fraction, require_nonnegative, require_positive

__all__ = ["transfer_time", "chain_time", "replication_every", "replication_utilization",
           "replication_keeps_up"]


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
    require_positive(compression=compression)
    if np.any(np.asarray(compression) < 1):
        raise ValueError(f"compression must be >= 1, got {compression!r}")
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
    stacked = np.broadcast_arrays(*[np.asarray(t, dtype=float) for t in hop_times])
    return _out(np.max(stacked, axis=0) if streamed else np.sum(stacked, axis=0))


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
    return _out(np.maximum(1.0, np.ceil(np.asarray(replication_interval) / checkpoint_interval - 1e-9)))


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
    >>> replication_keeps_up(504.0, 3600.0)
    True
    >>> replication_keeps_up(504.0, 300.0)
    False
    """
    return _out(np.asarray(replication_utilization(replication_time, replication_interval) <= 1.0))
