r"""Checkpoint size, and the time to write, stall on and load it.

A checkpoint is not durable until its persist (the write to the parallel
filesystem) finishes. With asynchronous checkpointing the training loop only
stalls for the copy of each GPU's shard to host memory; the persist runs in
the background. The next checkpoint cannot start before the previous one is
durable, which floors the interval at the write time.

References
----------
.. [1] S. Rajbhandari, J. Rasley, O. Ruwase, and Y. He, "ZeRO: Memory
   optimizations toward training trillion parameter models," in Proc. SC20,
   2020, arXiv:1910.02054, Sec. 3.1.
.. [2] J. Mohan, A. Phanishayee, and V. Chidambaram, "CheckFreq: Frequent,
   fine-grained DNN checkpointing," in Proc. USENIX FAST, 2021.
"""

import numpy as np

from ._validate import broadcasting, require_flag, require_positive

__all__ = [
    "checkpoint_bytes", "shard_bytes", "checkpoint_write_time", "checkpoint_stall",
    "checkpoint_load_time", "checkpoint_interval_floor", "checkpoint_bandwidth_share",
]


@broadcasting
def checkpoint_bytes(params, bytes_per_param=14.0):
    r"""Size of a full training checkpoint.

    Parameters
    ----------
    params : float or array_like
        Trainable parameters :math:`N`. [1]
    bytes_per_param : float or array_like, default 14.0
        Bytes saved per parameter :math:`b`. 14 is bf16 weights (2) plus fp32
        master weights, Adam m and v (4 + 4 + 4); 12 is the optimizer state
        alone; 16 is ZeRO's full in-memory training state; 2 is weights only.
        See :data:`drmath.presets.BYTES_PER_PARAM`. [B]

    Returns
    -------
    checkpoint_bytes : float or ndarray
        Checkpoint size :math:`S`. [B]

    Notes
    -----
    .. math:: S = N \cdot b

    Gradients are not saved, so the default is 2 B per parameter less than the
    16 B per parameter training state of [1]_.

    References
    ----------
    .. [1] Rajbhandari et al., "ZeRO," SC20, arXiv:1910.02054, Sec. 3.1.

    Examples
    --------
    >>> from drmath.units import TB
    >>> checkpoint_bytes(405e9) / TB
    5.67
    """
    require_positive(params=params, bytes_per_param=bytes_per_param)
    return params * bytes_per_param


@broadcasting
def shard_bytes(size, writers):
    r"""Bytes each writer (GPU) holds of a sharded checkpoint.

    Parameters
    ----------
    size : float or array_like
        Checkpoint size :math:`S`. [B]
    writers : float or array_like
        Ranks that each write a distinct shard, usually every GPU. [1]

    Returns
    -------
    shard_bytes : float or ndarray
        Shard size :math:`S / n_w`. [B]

    Notes
    -----
    .. math:: s = S / n_w

    References
    ----------
    .. [1] Llama 3, arXiv:2407.21783, Sec. 3.3.1: "each GPU's model state,
       ranging from 1 MB to 4 GB per GPU".

    Examples
    --------
    >>> from drmath.units import MB
    >>> round(shard_bytes(5.67e12, 8_000) / MB, 1)
    708.8
    """
    require_positive(size=size, writers=writers)
    return size / writers


@broadcasting
def checkpoint_write_time(size, write_bandwidth, writers, per_writer_bandwidth):
    r"""Time to persist a checkpoint to the parallel filesystem.

    Parameters
    ----------
    size : float or array_like
        Checkpoint size :math:`S`. [B]
    write_bandwidth : float or array_like
        The filesystem's aggregate write bandwidth :math:`B_w`. [B/s]
    writers : float or array_like
        Ranks writing in parallel :math:`n_w`. [1]
    per_writer_bandwidth : float or array_like
        What one writer can push, e.g. its share of the node's front-end NIC
        :math:`b_w`. [B/s]

    Returns
    -------
    checkpoint_write_time : float or ndarray
        Persist time :math:`W`. [s]

    Notes
    -----
    .. math:: W = \frac{S}{\min(B_w,\; n_w \, b_w)}

    References
    ----------
    .. [1] Llama 3, arXiv:2407.21783, Sec. 3.3.1 (Tectonic: 2 TB/s sustained).

    Examples
    --------
    >>> round(checkpoint_write_time(5.67e12, 2e12, 8_000, 6.25e9), 3)
    2.835
    """
    require_positive(size=size, write_bandwidth=write_bandwidth, writers=writers,
                     per_writer_bandwidth=per_writer_bandwidth)
    return size / np.minimum(write_bandwidth, writers * per_writer_bandwidth)


@broadcasting
def checkpoint_stall(write_time, shard, host_copy_bandwidth, asynchronous=True):
    r"""Time the training loop blocks for one checkpoint.

    Parameters
    ----------
    write_time : float or array_like
        Persist time :math:`W` from :func:`checkpoint_write_time`. [s]
    shard : float or array_like
        Bytes per GPU :math:`s` from :func:`shard_bytes`. [B]
    host_copy_bandwidth : float or array_like
        Effective rate at which one GPU stages its shard into host memory
        :math:`b_h`. [B/s]
    asynchronous : bool or array_like, default True
        Whether the persist runs in the background. [1]

    Returns
    -------
    checkpoint_stall : float or ndarray
        Blocking time :math:`\delta`. [s]

    Notes
    -----
    .. math::

       \delta = \begin{cases} s / b_h & \text{asynchronous} \\
                               W & \text{synchronous} \end{cases}

    References
    ----------
    .. [1] Mohan et al., "CheckFreq," FAST'21: snapshot() to host memory, then
       persist() in the background.
    .. [2] PyTorch blog, "6x faster async checkpointing," 2025: 0.78 s of GPU
       blocking for Llama3-70B on 1,856 H200.

    Examples
    --------
    >>> round(checkpoint_stall(2.835, 708.75e6, 677e6), 3)
    1.047
    >>> checkpoint_stall(2.835, 708.75e6, 677e6, asynchronous=False)
    2.835
    """
    require_positive(write_time=write_time, shard=shard, host_copy_bandwidth=host_copy_bandwidth)
    require_flag(asynchronous=asynchronous)
    return np.where(asynchronous, shard / host_copy_bandwidth, write_time)


@broadcasting
def checkpoint_load_time(size, read_bandwidth):
    r"""Time to read a checkpoint back.

    Parameters
    ----------
    size : float or array_like
        Checkpoint size :math:`S`. [B]
    read_bandwidth : float or array_like
        The storage's aggregate read bandwidth :math:`B_r`. [B/s]

    Returns
    -------
    checkpoint_load_time : float or ndarray
        Load time :math:`L`. [s]

    Notes
    -----
    .. math:: L = S / B_r

    References
    ----------
    .. [1] Llama 3, arXiv:2407.21783, Sec. 3.3.1.

    Examples
    --------
    >>> checkpoint_load_time(5.67e12, 2e12)
    2.835
    """
    require_positive(size=size, read_bandwidth=read_bandwidth)
    return size / read_bandwidth


@broadcasting
def checkpoint_interval_floor(write_time, stall):
    r"""Shortest interval at which checkpoints can follow each other.

    Parameters
    ----------
    write_time : float or array_like
        Persist time :math:`W`. [s]
    stall : float or array_like
        Blocking time :math:`\delta`. [s]

    Returns
    -------
    checkpoint_interval_floor : float or ndarray
        :math:`\tau_{min}`. [s]

    Notes
    -----
    .. math:: \tau_{min} = \max(W, \delta)

    A checkpoint cannot start before the previous one is durable.

    References
    ----------
    .. [1] Mohan et al., "CheckFreq," FAST'21, Sec. 4 (one persist in flight).

    Examples
    --------
    >>> checkpoint_interval_floor(2.835, 1.05)
    2.835
    """
    require_positive(write_time=write_time, stall=stall)
    return np.maximum(write_time, stall)


@broadcasting
def checkpoint_bandwidth_share(size, interval, write_bandwidth):
    r"""Share of the filesystem's write bandwidth that the cadence consumes.

    Parameters
    ----------
    size : float or array_like
        Checkpoint size :math:`S`. [B]
    interval : float or array_like
        Checkpoint interval :math:`\tau`. [s]
    write_bandwidth : float or array_like
        The filesystem's aggregate write bandwidth :math:`B_w`. [B/s]

    Returns
    -------
    checkpoint_bandwidth_share : float or ndarray
        :math:`S / (\tau B_w)`; the rest is left for data loading. [1]

    Notes
    -----
    .. math:: u_{fs} = \frac{S / \tau}{B_w}

    References
    ----------
    .. [1] Llama 3, arXiv:2407.21783, Sec. 3.3.1: "highly bursty checkpoint
       writes that saturate the storage fabric".

    Examples
    --------
    >>> round(checkpoint_bandwidth_share(5.67e12, 600.0, 2e12), 4)
    0.0047
    """
    require_positive(size=size, interval=interval, write_bandwidth=write_bandwidth)
    return size / interval / write_bandwidth
