r"""Checkpoint size, and the time to write, stall on and load it.

A checkpoint is not durable until its persist (the write to the parallel
filesystem) finishes. With asynchronous checkpointing the training loop only
stalls for the copy of each GPU's shard to host memory; the persist runs in
the background. The next checkpoint cannot start before the previous one is
durable, which floors the interval at the write time.

Physical limits hold everywhere: the stall never exceeds a synchronous write,
a load goes through the same per-GPU NIC and storage limits as a write, the
training state must fit in the GPUs' HBM, and a cadence that consumes the
whole write bandwidth is flagged. Parallel filesystems sold by capacity give
their throughput per TiB provisioned.

References
----------
.. [1] S. Rajbhandari, J. Rasley, O. Ruwase, and Y. He, "ZeRO: Memory
   optimizations toward training trillion parameter models," in Proc. SC20,
   2020, arXiv:1910.02054, Sec. 3.1.
.. [2] J. Mohan, A. Phanishayee, and V. Chidambaram, "CheckFreq: Frequent,
   fine-grained DNN checkpointing," in Proc. USENIX FAST, 2021.
.. [3] Amazon FSx for Lustre, API reference, ``PerUnitStorageThroughput``.
"""

import numpy as np

from ._formula import formula
from ._validate import (
    broadcasting,
    require_flag,
    require_nonnegative_or_inf,
    require_number,
    require_positive,
)

__all__ = [
    "checkpoint_bytes", "shard_bytes", "checkpoint_write_time", "checkpoint_staging_time", "checkpoint_stall",
    "checkpoint_load_time", "checkpoint_interval_floor", "checkpoint_bandwidth_share",
    "min_gpus_for_state", "state_fits_hbm", "storage_saturated", "provisioned_bandwidth",
    "capacity_for_bandwidth",
]

SATURATION_ROUNDING = 1e-9
"""Relative slack of :func:`storage_saturated` [1]: a share computed as S / (W B_w) with
W = S / B_w (the interval floored at a storage-bound write) can land a few ulps under 1."""


def _require_positive_or_inf(**values):
    """Every value must be > 0; +inf is allowed (no limit)."""
    require_number(**values)  # numbers only, never NaN
    for name, value in values.items():
        bad = ~(np.asarray(value) > 0)
        if bad.any():
            first = float(np.asarray(value)[bad].flat[0]) if np.ndim(value) else float(value)
            raise ValueError(f"{name} must be > 0 (inf allowed), got {first!r}")


def _through(size, aggregate, ranks, per_rank):
    """S / min(B, n b): bytes through the storage's aggregate limit and the ranks' own (NIC) limit."""
    return size / np.minimum(aggregate, ranks * per_rank)


@formula(r"S = N\,b")
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
    .. formula::

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


@formula(r"s = S / G")
@broadcasting
def shard_bytes(size, writers):
    r"""Bytes each writer (GPU) holds of a sharded checkpoint.

    Parameters
    ----------
    size : float or array_like
        Checkpoint size :math:`S`. [B]
    writers : float or array_like
        Ranks that each write a distinct shard, usually every GPU :math:`G`. [1]

    Returns
    -------
    shard_bytes : float or ndarray
        Shard size :math:`S / G`. [B]

    Notes
    -----
    .. formula::

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


@formula(r"W = \frac{S}{\min(B_w,\; G\,b_w)}")
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
        Ranks writing in parallel :math:`G`, usually every GPU. [1]
    per_writer_bandwidth : float or array_like
        What one writer can push, e.g. its share of the node's front-end NIC
        :math:`b_w`. [B/s]

    Returns
    -------
    checkpoint_write_time : float or ndarray
        Persist time :math:`W`. [s]

    Notes
    -----
    .. formula::

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
    return _through(size, write_bandwidth, writers, per_writer_bandwidth)


@formula(r"t_h = s / b_h")
@broadcasting
def checkpoint_staging_time(shard, host_copy_bandwidth):
    r"""Time one GPU takes to stage its shard into host memory: what an asynchronous checkpoint blocks for.

    Parameters
    ----------
    shard : float or array_like
        Bytes per GPU :math:`s` from :func:`shard_bytes`. [B]
    host_copy_bandwidth : float or array_like
        Effective rate at which one GPU copies its shard to host memory
        (device to host) :math:`b_h`. [B/s]

    Returns
    -------
    checkpoint_staging_time : float or ndarray
        Staging time :math:`t_h`: the blocking phase of an asynchronous
        checkpoint; the persist to storage runs behind training. [s]

    Notes
    -----
    .. formula::

    An asynchronous checkpoint has two phases [1]_: the copy of each GPU's
    shard to host memory, which the training loop waits for, and the persist
    from host memory to storage, which runs behind training on CPU threads or
    processes. Every GPU copies its own shard at once, so the phase takes one
    shard's copy time, whatever the cluster size.

    References
    ----------
    .. [1] PyTorch blog (Meta + IBM Research), "Reducing Model Checkpointing
       Times by Over 10x with PyTorch Distributed Asynchronous Checkpointing,"
       2024: "The first phase copies the data from each gpu/rank from GPU to
       CPU. This is the visible downtime to the user and can take from 6 - 14
       seconds for 7B-13B model sizes."
    .. [2] PyTorch blog (Meta + Crusoe), "6x faster async checkpointing,"
       2025: GPU blocked 0.78 s for staging, Llama3-70B on 1,856 H200.

    Examples
    --------
    Llama3-70B at 14 B per parameter over 1,856 GPUs, at 677 MB/s each:

    >>> round(checkpoint_staging_time(70e9 * 14 / 1_856, 677e6), 2)
    0.78
    """
    require_positive(shard=shard, host_copy_bandwidth=host_copy_bandwidth)
    return shard / host_copy_bandwidth


@formula(asynchronous=r"\delta = \min(t_h,\; W)", synchronous=r"\delta = W", measured=r"\delta = \delta_m")
@broadcasting
def checkpoint_stall(write_time, staging_time, asynchronous=True, blocking_time=None):
    r"""Time the training loop blocks for one checkpoint.

    Parameters
    ----------
    write_time : float or array_like
        Persist time :math:`W` from :func:`checkpoint_write_time`. [s]
    staging_time : float or array_like
        The shard's copy to host memory :math:`t_h` from
        :func:`checkpoint_staging_time`. [s]
    asynchronous : bool or array_like, default True
        Whether the persist runs behind training. [1]
    blocking_time : float or array_like, optional
        A blocking time measured on the run :math:`\delta_m`, which replaces
        the modelled one in either mode; ``None`` (the default) models it. [s]

    Returns
    -------
    checkpoint_stall : float or ndarray
        Blocking time :math:`\delta`; a modelled one never more than :math:`W`. [s]

    Notes
    -----
    Asynchronous (blocking for the staging to host, the persist behind
    training), synchronous (blocking for the whole persist), and measured:

    .. formula:: asynchronous

    .. formula:: synchronous

    .. formula:: measured

    The modelled asynchronous stall is capped at the synchronous write: when
    staging a shard into host memory takes longer than persisting it, the
    trainer would rather write synchronously (the snapshot buys nothing), so
    no choice of mode stalls for longer than :math:`W`. Few GPUs holding large
    shards reach this: 8 GPUs staging 709 GB each at 677 MB/s would block for
    1,047 s, against a 113 s synchronous write at 6.25 GB/s per GPU.

    A measured blocking time is taken as measured, not capped: it is what the
    run did. Either way the persist still takes :math:`W`, which floors the
    interval (:func:`checkpoint_interval_floor`) and is the write time in the
    local RPO: a checkpoint is not durable until its persist ends.

    References
    ----------
    .. [1] Mohan et al., "CheckFreq," FAST'21: snapshot() to host memory, then
       persist() in the background.
    .. [2] PyTorch blog (Meta + IBM Research), 2024: a 7B model's checkpoint
       "down time" of 148.8 s synchronous against 6.3 s asynchronous, 23.62x.
    .. [3] PyTorch blog, "6x faster async checkpointing," 2025: 0.78 s of GPU
       blocking for Llama3-70B on 1,856 H200.
    .. [4] Derived here: the cap at :math:`W`, the stall of the synchronous
       alternative that the trainer can always take instead.

    Examples
    --------
    >>> round(checkpoint_stall(2.835, 1.047), 3)
    1.047
    >>> checkpoint_stall(2.835, 1.047, asynchronous=False)
    2.835

    Eight GPUs of a 405B checkpoint: the host copy would outlast the write.

    >>> checkpoint_stall(113.4, checkpoint_staging_time(708.75e9, 677e6))
    113.4

    A blocking time measured on the run replaces the model's:

    >>> checkpoint_stall(2.835, 1.047, blocking_time=0.78)
    0.78
    """
    require_positive(write_time=write_time, staging_time=staging_time)
    require_flag(asynchronous=asynchronous)
    modelled = np.where(asynchronous, np.minimum(staging_time, write_time), write_time)
    if blocking_time is None:
        return modelled
    require_positive(blocking_time=blocking_time)
    return np.broadcast_to(blocking_time, np.broadcast(modelled, blocking_time).shape) * 1.0


@formula(r"L = \frac{S}{\min(B_r,\; G\,b_r)}")
@broadcasting
def checkpoint_load_time(size, read_bandwidth, readers=1.0, per_reader_bandwidth=np.inf):
    r"""Time to read a checkpoint back, through the same limits as a write.

    Parameters
    ----------
    size : float or array_like
        Checkpoint size :math:`S`. [B]
    read_bandwidth : float or array_like
        The storage's aggregate read bandwidth :math:`B_r`. [B/s]
    readers : float or array_like, default 1.0
        Ranks reading in parallel :math:`G`, usually every GPU of the
        cluster that resumes. [1]
    per_reader_bandwidth : float or array_like, default inf
        What one reader can pull, e.g. its share of the node's front-end NIC
        (the same share as a writer's, the NIC being full duplex)
        :math:`b_r`; ``inf`` for no per-reader limit. [B/s]

    Returns
    -------
    checkpoint_load_time : float or ndarray
        Load time :math:`L`. [s]

    Notes
    -----
    .. formula::

    The same form as :func:`checkpoint_write_time`: a few GPUs cannot pull a
    checkpoint faster than their NICs allow, however fast the storage is. With
    the defaults there is no per-reader limit and :math:`L = S / B_r`.

    References
    ----------
    .. [1] Llama 3, arXiv:2407.21783, Sec. 3.3.1 (Tectonic: 2 TB/s sustained).
    .. [2] stas00/ml-engineering, network/README.md: the front-end (storage)
       network is "typically a single 100-400 Gbps connection" per node.

    Examples
    --------
    >>> checkpoint_load_time(5.67e12, 2e12)
    2.835
    >>> round(checkpoint_load_time(5.67e12, 2e12, 8, 6.25e9), 1)  # 8 GPUs: their NICs bind
    113.4
    """
    require_positive(size=size, read_bandwidth=read_bandwidth, readers=readers)
    _require_positive_or_inf(per_reader_bandwidth=per_reader_bandwidth)
    return _through(size, read_bandwidth, readers, per_reader_bandwidth)


@formula(r"\tau_{min} = \max(W, \delta)")
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
    .. formula::

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


@formula(r"u_{fs} = \frac{S/\tau}{B_w}")
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
    .. formula::

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


@formula(r"G_{min} = \lceil S_{st} / H \rceil")
@broadcasting
def min_gpus_for_state(state_bytes, hbm):
    r"""Fewest GPUs whose HBM holds the training state, fully sharded.

    Parameters
    ----------
    state_bytes : float or array_like
        The model state held during training :math:`S_{st}`, e.g.
        ``checkpoint_bytes(params, 16)``: ZeRO's 16 B per parameter (bf16
        weights 2, bf16 gradients 2, fp32 master weights, Adam m and v 12). [B]
    hbm : float or array_like
        HBM per GPU :math:`H`, from :data:`drmath.presets.ACCELERATORS`. [B]

    Returns
    -------
    min_gpus_for_state : float or ndarray
        :math:`G_{min}`, a whole number. [1]

    Notes
    -----
    .. formula::

    The state sharded over every GPU (ZeRO stage 3, FSDP) takes
    :math:`S_{st}/G` per GPU. Activations, temporary buffers and
    fragmentation (ZeRO's residual states) are not counted, so this is a
    lower bound: fewer GPUs than this cannot train the model at all.

    References
    ----------
    .. [1] Rajbhandari et al., "ZeRO," SC20, arXiv:1910.02054, Sec. 3.1 (16
       bytes per parameter of model states) and Sec. 1: "16TB divided by 1024
       is 16GB" for a trillion parameters.

    Examples
    --------
    405B parameters at 16 B each on 80 GB H100s:

    >>> min_gpus_for_state(405e9 * 16, 80e9)
    81.0
    """
    require_positive(state_bytes=state_bytes, hbm=hbm)
    return np.ceil(state_bytes / hbm)


@formula(r"S_{st} / G \le H")
@broadcasting
def state_fits_hbm(state_bytes, gpus, hbm):
    r"""Whether the training state, fully sharded over the GPUs, fits in their HBM.

    Parameters
    ----------
    state_bytes : float or array_like
        The model state held during training :math:`S_{st}` (see
        :func:`min_gpus_for_state`). [B]
    gpus : float or array_like
        GPUs the state is sharded over :math:`G`. [1]
    hbm : float or array_like
        HBM per GPU :math:`H`. [B]

    Returns
    -------
    state_fits_hbm : bool or ndarray
        True where :math:`G \ge G_{min}`. A flag, not an error: a plan can
        pass through a cluster too small to train and say so. [1]

    Notes
    -----
    .. formula::

    Equivalently :math:`G \ge G_{min}`; written against
    :func:`min_gpus_for_state`, so the two always agree.

    References
    ----------
    .. [1] Rajbhandari et al., "ZeRO," SC20, arXiv:1910.02054, Sec. 3.1 and
       Sec. 5 (stage 3 partitions the 16 B per parameter over the
       data-parallel GPUs).

    Examples
    --------
    405B parameters at 16 B each on 8 H100s: 810 GB per GPU against 80 GB.

    >>> shard_bytes(405e9 * 16, 8) / 1e9
    810.0
    >>> state_fits_hbm(405e9 * 16, 8, 80e9), state_fits_hbm(405e9 * 16, 8_000, 80e9)
    (False, True)
    """
    require_positive(state_bytes=state_bytes, gpus=gpus, hbm=hbm)
    return gpus >= min_gpus_for_state(state_bytes, hbm)


@formula(r"u_{fs} \ge 1")
@broadcasting
def storage_saturated(bandwidth_share):
    r"""Whether checkpoints alone consume the filesystem's whole write bandwidth.

    Parameters
    ----------
    bandwidth_share : float or array_like
        :func:`checkpoint_bandwidth_share`, :math:`u_{fs} = S / (\tau B_w)`. [1]

    Returns
    -------
    storage_saturated : bool or ndarray
        True where :math:`u_{fs} \ge 1`: nothing is left for data loading.
        A flag, not an error. [1]

    Notes
    -----
    .. formula::

    It is compared with a relative slack :math:`\epsilon = 10^{-9}`
    (:data:`SATURATION_ROUNDING`) that absorbs rounding: an
    interval floored at a storage-bound write, :math:`\tau = W = S/B_w`,
    gives a share that is 1 in exact arithmetic but can come out a few ulps
    under it.

    References
    ----------
    .. [1] Llama 3, arXiv:2407.21783, Sec. 3.3.1: "highly bursty checkpoint
       writes that saturate the storage fabric".

    Examples
    --------
    The seed case's cadence uses half a percent of Tectonic; an interval
    floored at its 2.835 s write uses all of it:

    >>> round(checkpoint_bandwidth_share(5.67e12, 600.0, 2e12), 4), storage_saturated(0.0047)
    (0.0047, False)
    >>> round(checkpoint_bandwidth_share(5.67e12, 2.835, 2e12), 6), storage_saturated(1.0)
    (1.0, True)
    """
    require_nonnegative_or_inf(bandwidth_share=bandwidth_share)
    return bandwidth_share >= 1.0 - SATURATION_ROUNDING


@formula(r"B = C \, \beta")
@broadcasting
def provisioned_bandwidth(capacity, bandwidth_per_capacity):
    r"""Throughput of a filesystem sold by capacity: capacity times the rate per TiB.

    Parameters
    ----------
    capacity : float or array_like
        Storage capacity provisioned :math:`C`. [B]
    bandwidth_per_capacity : float or array_like
        The tier's throughput per byte provisioned :math:`\beta`, e.g.
        1000 MB/s per TiB :math:`= 10^9 / 2^{40}`; see
        :data:`drmath.presets.PROVISIONED_STORAGE`. [1/s]

    Returns
    -------
    provisioned_bandwidth : float or ndarray
        Aggregate throughput :math:`B = C \beta`. [B/s]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] Amazon FSx for Lustre API, PerUnitStorageThroughput: "For a
       2.4-TiB file system, provisioning 50 MB/s/TiB of
       PerUnitStorageThroughput yields 120 MB/s of file system throughput."

    Examples
    --------
    >>> from drmath.units import MB_per_s, TiB
    >>> round(provisioned_bandwidth(2.4 * TiB, 50 * MB_per_s / TiB) / MB_per_s, 6)
    120.0
    """
    require_positive(capacity=capacity, bandwidth_per_capacity=bandwidth_per_capacity)
    return capacity * bandwidth_per_capacity


@formula(r"C = B / \beta")
@broadcasting
def capacity_for_bandwidth(bandwidth, bandwidth_per_capacity):
    r"""Capacity to provision on a filesystem sold by capacity to reach a throughput.

    Parameters
    ----------
    bandwidth : float or array_like
        Aggregate throughput wanted :math:`B`, e.g. the write bandwidth that
        persists a checkpoint in time. [B/s]
    bandwidth_per_capacity : float or array_like
        The tier's throughput per byte provisioned :math:`\beta`. [1/s]

    Returns
    -------
    capacity_for_bandwidth : float or ndarray
        :math:`C = B / \beta`, the inverse of :func:`provisioned_bandwidth`. [B]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] Amazon FSx for Lustre API, PerUnitStorageThroughput: throughput
       capacity = storage capacity (TiB) x PerUnitStorageThroughput (MB/s/TiB).

    Examples
    --------
    Tectonic's 2 TB/s on FSx for Lustre PERSISTENT_2 at 1000 MB/s per TiB:

    >>> from drmath.units import MB_per_s, TiB
    >>> round(capacity_for_bandwidth(2e12, 1000 * MB_per_s / TiB) / TiB, 6)
    2000.0
    """
    require_positive(bandwidth=bandwidth, bandwidth_per_capacity=bandwidth_per_capacity)
    return bandwidth / bandwidth_per_capacity
