r"""Training compute and time: C = k·N·D, and its inverses.

All functions broadcast over numpy arrays, so one call draws a curve. Inputs
must be finite and positive; anything else raises ``ValueError`` naming the
argument.

References
----------
.. [1] J. Kaplan et al., "Scaling Laws for Neural Language Models,"
   arXiv:2001.08361, 2020, Sec. 2.1.
.. [2] D. Narayanan et al., "Efficient Large-Scale Language Model Training on
   GPU Clusters Using Megatron-LM," in Proc. SC21, 2021, arXiv:2104.04473,
   eq. (4).
.. [3] Llama Team, AI @ Meta, "The Llama 3 Herd of Models," arXiv:2407.21783,
   2024.
"""

import numpy as np

from ._formula import formula
from ._validate import broadcasting, require_fraction, require_nonnegative, require_positive, require_unit_interval

__all__ = ["training_flops", "time_to_train", "gpus_for_deadline", "tokens_in_window", "mfu_from_throughput",
           "effective_flop_rate"]


@formula(r"C = k\,N\,D")
@broadcasting
def training_flops(params, tokens, flops_per_param_token=6.0):
    r"""Total training compute.

    Parameters
    ----------
    params : float or array_like
        Trainable parameters :math:`N`. [1]
    tokens : float or array_like
        Training tokens :math:`D`. [1]
    flops_per_param_token : float or array_like, default 6.0
        :math:`k`: 6 for forward plus backward [1]_, 8 with full activation
        recomputation [2]_. [FLOP]

    Returns
    -------
    training_flops : float or ndarray
        Compute :math:`C`. [FLOP]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] Kaplan et al. 2020, arXiv:2001.08361, Sec. 2.1.
    .. [2] Narayanan et al. 2021, arXiv:2104.04473, eq. (4).

    Examples
    --------
    Llama 3 405B on 15.6T tokens (the paper states 3.8e25 FLOPs):

    >>> f"{training_flops(405e9, 15.6e12):.3g}"
    '3.79e+25'
    """
    require_positive(params=params, flops_per_param_token=flops_per_param_token)
    require_nonnegative(tokens=tokens)
    return flops_per_param_token * params * tokens


def _throughput(gpus, peak_flop_rate, mfu, ettr):
    """Useful FLOP per wall-clock second of the whole cluster [FLOP/s]."""
    require_positive(gpus=gpus, peak_flop_rate=peak_flop_rate)
    require_fraction(mfu=mfu)
    require_unit_interval(ettr=ettr)
    return gpus * peak_flop_rate * mfu * ettr


def _ratio(numerator, denominator):
    """numerator / denominator: 0 where the numerator is 0 (no work takes no time and no GPUs, even
    with no progress; no progress fits no tokens), +inf where only the denominator is 0 (work that
    never progresses, or a product of tiny inputs that underflowed)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(numerator == 0, 0.0, numerator / denominator)


@formula(r"T = \frac{k\,N\,D}{G\,P\,\mathrm{MFU}\,\mathrm{ETTR}}",
         compute=r"T_c = \frac{C}{G\,P\,\mathrm{MFU}}",
         step=r"t_{step} = \frac{k\,N\,B_{tok}}{G\,P\,\mathrm{MFU}}")
@broadcasting
def time_to_train(params, tokens, gpus, peak_flop_rate, mfu, ettr=1.0, flops_per_param_token=6.0):
    r"""Wall-clock time to train.

    Parameters
    ----------
    params : float or array_like
        Trainable parameters :math:`N`. [1]
    tokens : float or array_like
        Training tokens :math:`D`. [1]
    gpus : float or array_like
        GPUs :math:`G`. [1]
    peak_flop_rate : float or array_like
        Dense BF16 peak per GPU :math:`P`. [FLOP/s]
    mfu : float or array_like
        Model FLOPs utilisation, in (0, 1]. [1]
    ettr : float or array_like, default 1.0
        Effective training time ratio, the share of wall-clock time spent
        making progress, in [0, 1]. 1 gives pure compute time; 0 (no
        progress) gives ``inf``. [1]
    flops_per_param_token : float or array_like, default 6.0
        :math:`k`, see :func:`training_flops`. [FLOP]

    Returns
    -------
    time_to_train : float or ndarray
        Wall-clock time :math:`T`. [s]

    Notes
    -----
    .. formula::

    With ETTR = 1 it is the pure compute time of :math:`C = k\,N\,D` FLOP,
    and of one optimizer step of :math:`B_{tok}` tokens:

    .. formula:: compute

    .. formula:: step

    References
    ----------
    .. [1] Narayanan et al. 2021, arXiv:2104.04473, eq. (4).

    Examples
    --------
    Llama 3 405B at 400 TFLOP/s per GPU on 16,384 GPUs (Table 4):

    >>> from drmath.units import day
    >>> round(time_to_train(405e9, 15.6e12, 16_384, 989.4e12, 400 / 989.4) / day, 1)
    66.9
    """
    flops = training_flops(params, tokens, flops_per_param_token)
    return _ratio(flops, _throughput(gpus, peak_flop_rate, mfu, ettr))


@formula(r"G = \frac{k N D}{T \cdot P \cdot \mathrm{MFU} \cdot \mathrm{ETTR}}")
@broadcasting
def gpus_for_deadline(params, tokens, deadline, peak_flop_rate, mfu, ettr=1.0, flops_per_param_token=6.0):
    r"""GPUs needed to finish by a deadline (fractional; round up to buy).

    Parameters
    ----------
    params : float or array_like
        Trainable parameters :math:`N`. [1]
    tokens : float or array_like
        Training tokens :math:`D`. [1]
    deadline : float or array_like
        Wall-clock time available :math:`T`. [s]
    peak_flop_rate : float or array_like
        Dense BF16 peak per GPU :math:`P`. [FLOP/s]
    mfu : float or array_like
        Model FLOPs utilisation, in (0, 1]. [1]
    ettr : float or array_like, default 1.0
        Effective training time ratio, in [0, 1]. [1]
    flops_per_param_token : float or array_like, default 6.0
        :math:`k`, see :func:`training_flops`. [FLOP]

    Returns
    -------
    gpus : float or ndarray
        GPUs :math:`G`. [1]

    Notes
    -----
    .. formula::

    The inverse of :func:`time_to_train` in :math:`G`.

    References
    ----------
    .. [1] Narayanan et al. 2021, arXiv:2104.04473, eq. (4).

    Examples
    --------
    >>> from drmath.units import day
    >>> round(gpus_for_deadline(405e9, 15.6e12, 90 * day, 989.4e12, 0.40, 0.90))
    13687
    """
    require_positive(deadline=deadline)
    flops = training_flops(params, tokens, flops_per_param_token)
    return _ratio(flops, _throughput(deadline, peak_flop_rate, mfu, ettr))


@formula(r"D = \frac{T\,G\,P\,\mathrm{MFU}\,\mathrm{ETTR}}{k\,N}")
@broadcasting
def tokens_in_window(params, window, gpus, peak_flop_rate, mfu, ettr=1.0, flops_per_param_token=6.0):
    r"""Tokens that fit in a wall-clock window.

    Parameters
    ----------
    params : float or array_like
        Trainable parameters :math:`N`. [1]
    window : float or array_like
        Wall-clock time available :math:`T`. [s]
    gpus : float or array_like
        GPUs :math:`G`. [1]
    peak_flop_rate : float or array_like
        Dense BF16 peak per GPU :math:`P`. [FLOP/s]
    mfu : float or array_like
        Model FLOPs utilisation, in (0, 1]. [1]
    ettr : float or array_like, default 1.0
        Effective training time ratio, in [0, 1]. [1]
    flops_per_param_token : float or array_like, default 6.0
        :math:`k`, see :func:`training_flops`. [FLOP]

    Returns
    -------
    tokens : float or ndarray
        Training tokens :math:`D`. [1]

    Notes
    -----
    .. formula::

    The inverse of :func:`time_to_train` in :math:`D`.

    References
    ----------
    .. [1] Narayanan et al. 2021, arXiv:2104.04473, eq. (4).

    Examples
    --------
    drmath's seed case, 8,000 H100 for 90 days at MFU 0.40 and ETTR 0.90:

    >>> from drmath.units import day
    >>> f"{tokens_in_window(405e9, 90 * day, 8_000, 989.4e12, 0.40, 0.90):.3g}"
    '9.12e+12'
    """
    require_positive(params=params, window=window, flops_per_param_token=flops_per_param_token)
    return _ratio(window * _throughput(gpus, peak_flop_rate, mfu, ettr), flops_per_param_token * params)


@formula(r"\mathrm{MFU} = \frac{F_{achieved}}{P}")
@broadcasting
def mfu_from_throughput(achieved_flop_rate, peak_flop_rate):
    r"""Model FLOPs utilisation from the achieved throughput per GPU.

    Parameters
    ----------
    achieved_flop_rate : float or array_like
        Model FLOP per second one GPU achieves (e.g. "400 TFLOPs/GPU"), at
        most the peak. [FLOP/s]
    peak_flop_rate : float or array_like
        Dense BF16 peak per GPU :math:`P`. [FLOP/s]

    Returns
    -------
    mfu : float or ndarray
        :math:`\mathrm{MFU}`, in (0, 1]. [1]

    Notes
    -----
    .. formula::

    Papers print MFU and TFLOP/s side by side, each rounded; the peak they
    divide by is not always the spec sheet's (Llama 3 prints 41% beside
    400 TFLOPs, where 400/989.4 = 40.4%).

    References
    ----------
    .. [1] Llama 3, arXiv:2407.21783, Table 4: 430, 400 and 380 TFLOPs/GPU at
       43%, 41% and 38% BF16 MFU on H100.
    .. [2] Narayanan et al. 2021, arXiv:2104.04473, Sec. 5.1.

    Examples
    --------
    >>> round(mfu_from_throughput(430e12, 989.4e12), 3)
    0.435
    """
    require_positive(achieved_flop_rate=achieved_flop_rate, peak_flop_rate=peak_flop_rate)
    over = np.asarray(achieved_flop_rate > peak_flop_rate)
    if over.any():
        first = float(np.broadcast_to(np.asarray(achieved_flop_rate, dtype=float), over.shape)[over].flat[0])
        peak = float(np.broadcast_to(np.asarray(peak_flop_rate, dtype=float), over.shape)[over].flat[0])
        raise ValueError(f"achieved_flop_rate must be at most peak_flop_rate ({peak!r}), got {first!r}")
    return achieved_flop_rate / peak_flop_rate


@formula(r"F_{eff} = \frac{C}{H}, \qquad H = G \, T")
@broadcasting
def effective_flop_rate(training_flops, gpu_time):
    r"""Effective throughput per GPU over everything the GPU-hours paid for.

    Parameters
    ----------
    training_flops : float or array_like
        Model FLOPs of the run :math:`C`, e.g. from :func:`training_flops`. [FLOP]
    gpu_time : float or array_like
        GPU time held, GPUs times wall-clock time (GPU-hours times 3,600).
        [s]

    Returns
    -------
    effective_flop_rate : float or ndarray
        :math:`C / H`: model FLOP per GPU-second, failures, restarts and
        stalls included; over the peak it is the all-in MFU (goodput
        :math:`\approx \mathrm{MFU} \times \mathrm{ETTR}`). [FLOP/s]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] Llama 3.1 model card: 405B "30.84M" GPU hours; Llama 3,
       arXiv:2407.21783, Sec. 1: "3.8 × 10^25 FLOPs".

    Examples
    --------
    Llama 3.1 405B: 3.8e25 FLOPs over 30.84M H100-hours, in TFLOP/s per GPU:

    >>> from drmath.units import hour
    >>> round(effective_flop_rate(3.8e25, 30.84e6 * hour) / 1e12)
    342
    """
    require_nonnegative(training_flops=training_flops)
    require_positive(gpu_time=gpu_time)
    return training_flops / gpu_time
