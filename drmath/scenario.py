r"""The scenario: every input of the model, validated, with its unit, range and basis.

Data flows one way: inputs -> :class:`Scenario` -> :func:`drmath.plan` ->
:class:`drmath.Plan` -> views. A Scenario is immutable and validated on construction, so a bad
value raises ``ValueError`` (or ``TypeError`` for a wrong type) naming the
field, its value and its valid range, and nothing is ever half-applied.

    >>> s = Scenario()
    >>> s.training.gpus, s.failover.tier
    (8000, 'warm')
    >>> s.with_changes({"training.gpus": 16_384}).training.gpus
    16384
    >>> Scenario().with_changes({"training.mfu": 1.5})
    Traceback (most recent call last):
    ...
    ValueError: training.mfu = 1.5 is out of range: must be in [0.01, 1]
"""

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields

import numpy as np

from . import presets
from ._validate import TINY, short_repr
from .architecture import Architecture
from .units import GB, Gbit_per_s, MB_per_s, day, hour, minute, year

__all__ = ["Scenario", "FieldInfo", "FIELDS", "SECTIONS", "Requirements", "Spread", "Uncertainty", "DISTRIBUTIONS",
           "UNCERTAIN"]


# --------------------------------------------------------------------------- fields


@dataclass(frozen=True)
class FieldInfo:
    """What one input is: its unit, default, valid range and the basis of its default."""

    path: str
    unit: str
    kind: str
    default: object
    doc: str
    basis: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    integer: bool = False
    optional: bool = False
    choices: tuple | None = None
    preset: tuple | None = None  # (registry, attribute): names accepted in place of a number

    @property
    def section(self):
        return self.path.split(".")[0]

    @property
    def name(self):
        return self.path.split(".")[1]

    def range_text(self):
        """The valid range, in words."""
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind == "flag":
            return "true or false"
        lo = "(" if self.low_open else "["
        text = f"in {lo}{self.low:g}, {self.high:g}]"
        if self.integer:
            text = "a whole number " + text
        if self.optional:
            text += ", or unset"
        if self.preset:
            text += f", or a preset name ({', '.join(sorted(self.preset[0]))})"
        return text

    def coerce(self, value):
        """Check one value; return it normalised (int for whole numbers) or raise."""
        where = f"{self.path} = {short_repr(value)}"
        if value is None:
            if self.optional:
                return None
            raise ValueError(f"{where} is not allowed: must be {self.range_text()}")
        if self.choices is not None:
            if not isinstance(value, str) or value not in self.choices:
                raise ValueError(f"{where} is not valid: must be {self.range_text()}")
            return value
        if self.kind == "flag":
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{where} has the wrong type ({type(value).__name__}): must be true or false")
            return bool(value)
        if isinstance(value, str) and self.preset:
            registry, attribute = self.preset
            if value in registry:
                return self.coerce(getattr(registry[value], attribute))
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{where} has the wrong type ({type(value).__name__}): must be {self.range_text()}")
        try:
            number = float(value)
        except OverflowError:  # an int beyond float range (e.g. 1000 digits from a TOML file)
            raise ValueError(f"{where} is out of range: must be {self.range_text()}") from None
        if not math.isfinite(number):
            raise ValueError(f"{where} is not finite: must be {self.range_text()}")
        below = number <= self.low if self.low_open else number < self.low
        if below or number > self.high:
            raise ValueError(f"{where} is out of range: must be {self.range_text()}")
        if number != 0 and abs(number) < TINY:
            raise ValueError(f"{where} is too small to be physical: must be 0 or at least {TINY:g}")
        if self.integer:
            if not number.is_integer():
                raise ValueError(f"{where} is not a whole number: must be {self.range_text()}")
            return int(number)
        return number


def _field(path, default, unit, kind, doc, basis, **kw):
    info = FieldInfo(path=path, unit=unit, kind=kind, default=default, doc=doc, basis=basis, **kw)
    return field(default=default, metadata={"info": info})


_LLAMA3 = presets.FAILURE_RATES["llama3"]
_NODE = presets.NODES["h100-hgx"]


@dataclass(frozen=True)
class _Section:
    def __post_init__(self):
        for f in fields(self):
            if "info" in f.metadata:  # an input; Training.model is the architecture its counts come from
                object.__setattr__(self, f.name, f.metadata["info"].coerce(getattr(self, f.name)))


_DENSE_MODELS = {name: m for name, m in presets.MODELS.items() if m.active_params == m.params}
"""The model presets whose every parameter is active: a name ``training.params`` takes. A mixture of experts is
named by ``training.model``, so its active parameters set the compute."""


@dataclass(frozen=True)
class Training(_Section):
    """The run: cluster, model and how long or how many tokens."""

    gpus: int = _field("training.gpus", 8_000, "[1]", "count", "GPUs in the primary cluster.",
                       "drmath's seed case: ~8,000 GPUs", low=1, high=10_000_000, integer=True)
    peak_flop_rate: float = _field(
        "training.peak_flop_rate", 989.4e12, "[FLOP/s]", "flop_rate", "Dense BF16 peak per GPU.",
        presets.ACCELERATORS["h100-sxm"].source, low=1e12, high=1e17,
        preset=(presets.ACCELERATORS, "peak_flop_rate"))
    mfu: float = _field("training.mfu", 0.40, "[1]", "fraction", "Model FLOPs utilisation.",
                        "Llama 3 Table 4: 38-43% BF16 MFU [V1]", low=0.01, high=1.0)
    params: float = _field("training.params", 405e9, "[1]", "params",
                           "Trainable parameters, in total: what the training state and the checkpoint hold.",
                           "Llama 3 (arXiv:2407.21783) §1: 'a flagship model with 405B trainable parameters' [V1]",
                           low=1e6, high=1e14, preset=(_DENSE_MODELS, "params"))
    active_share: float = _field(
        "training.active_share", 1.0, "[1]", "fraction",
        "Share of the parameters each token computes with: a mixture of experts' active over total; 1 is dense.",
        "1: a dense model, every parameter active", low=1e-4, high=1.0)
    window: float = _field("training.window", 90 * day, "[s]", "duration",
                           "Wall-clock window of the run; drives it when tokens is unset.",
                           "drmath's seed case: a three-month run", low=hour, high=10 * year)
    tokens: float | None = _field(
        "training.tokens", None, "[1]", "count",
        "Training tokens; when set they drive the run and its length is derived.",
        "unset: the window drives the run", low=1e6, high=1e17, optional=True)
    flops_per_param_token: float = _field(
        "training.flops_per_param_token", 6.0, "[FLOP]", "plain",
        "k in C = kND: 6, or 8 with full activation recomputation.",
        "Kaplan et al. 2020 Sec. 2.1; Narayanan et al. 2021 eq. (4)", low=2.0, high=24.0)
    hbm_per_gpu: float = _field(
        "training.hbm_per_gpu", presets.ACCELERATORS["h100-sxm"].hbm, "[B]", "bytes",
        "Memory (HBM) of one GPU; the training state must fit in the cluster's.",
        presets.ACCELERATORS["h100-sxm"].source, low=1e9, high=1e13, preset=(presets.ACCELERATORS, "hbm"))
    state_bytes_per_param: float = _field(
        "training.state_bytes_per_param", 16.0, "[B]", "plain",
        "Bytes of training state per parameter held in HBM, fully sharded (activations not counted).",
        presets.BYTES_PER_PARAM["zero-training-state"].source, low=2.0, high=64.0,
        preset=(presets.BYTES_PER_PARAM, "value"))
    batch_tokens: float = _field(
        "training.batch_tokens", presets.GLOBAL_BATCHES["llama3-405b"].tokens, "[1]", "count",
        "Tokens per optimizer step (the global batch): one gradient exchange per step.",
        presets.GLOBAL_BATCHES["llama3-405b"].source, low=1e3, high=1e10,
        preset=(presets.GLOBAL_BATCHES, "tokens"))
    model: Architecture | None = field(default=None)
    """The architecture ``params`` and ``active_share`` are counted from (``training.model``: a preset name of
    :data:`drmath.presets.MODELS`, an :class:`~drmath.architecture.Architecture` or a table of its fields); None when
    they are given as numbers."""

    def __post_init__(self):
        super().__post_init__()
        model = self.model
        if model is not None:
            if not isinstance(model, Architecture):
                raise TypeError(f"training.model must be an Architecture, got {type(model).__name__}")
            object.__setattr__(self, "params", FIELDS["training.params"].coerce(model.params))
            object.__setattr__(self, "active_share", FIELDS["training.active_share"].coerce(
                model.active_params / model.params))

    @property
    def active_params(self):
        """The parameters each token computes with: ``params × active_share`` (all of them for a dense model). [1]"""
        return self.params * self.active_share


@dataclass(frozen=True)
class Checkpoint(_Section):
    """What a checkpoint holds, where it goes and how often."""

    bytes_per_param: float = _field(
        "checkpoint.bytes_per_param", 14.0, "[B]", "plain", "Bytes saved per parameter.",
        presets.BYTES_PER_PARAM["mixed-precision-adam-checkpoint"].source, low=0.5, high=64.0,
        preset=(presets.BYTES_PER_PARAM, "value"))
    mode: str = _field("checkpoint.mode", "async", "[1]", "plain",
                       "async: block only for the staging to host memory, the persist runs behind training; "
                       "sync: block for the whole persist.",
                       "CheckFreq (FAST'21); PyTorch DCP async", choices=("async", "sync"))
    interval: float | None = _field(
        "checkpoint.interval", None, "[s]", "duration",
        "Time between checkpoints; unset uses Daly's optimum, floored at the persist time.",
        "Young 1974 / Daly 2006 eq. 37", low=1.0, high=30 * day, optional=True)
    write_bandwidth: float = _field(
        "checkpoint.write_bandwidth", 2e12, "[B/s]", "bandwidth",
        "Parallel filesystem's aggregate write bandwidth (shared with data loading).",
        presets.STORAGE["tectonic"].source, low=1e6, high=1e15,
        preset=(presets.STORAGE, "write_bandwidth"))
    read_bandwidth: float = _field(
        "checkpoint.read_bandwidth", 2e12, "[B/s]", "bandwidth",
        "Aggregate read bandwidth for loading a checkpoint (primary and standby alike).",
        presets.STORAGE["tectonic"].source, low=1e6, high=1e15,
        preset=(presets.STORAGE, "read_bandwidth"))
    per_writer_bandwidth: float = _field(
        "checkpoint.per_writer_bandwidth", _NODE.per_gpu_frontend_bandwidth, "[B/s]", "bandwidth",
        "What one GPU can push to or pull from storage: its share of the node's front-end NIC.",
        _NODE.source, low=1e6, high=1e12)
    host_copy_bandwidth: float = _field(
        "checkpoint.host_copy_bandwidth", 677e6, "[B/s]", "bandwidth",
        "Effective rate at which one GPU stages its shard into host memory (async stall).",
        "PyTorch blog 2025-04-30 (Meta + Crusoe): 0.78 s GPU blocking for Llama3-70B on 1,856 "
        "H200 -> 70B params x 14 B / 1,856 / 0.78 s = 677 MB/s per GPU [V1 inputs, D]",
        low=1e6, high=1e12)
    blocking_time: float | None = _field(
        "checkpoint.blocking_time", None, "[s]", "duration",
        "Blocking time measured on the run; when set it replaces the modelled stall (async: the staging to host; "
        "sync: the persist). The persist still floors the interval and is the write time in the RPO.",
        "unset: modelled; PyTorch blog 2025-04-30 (Meta + Crusoe) measured 0.78 s for Llama3-70B on 1,856 H200 "
        "[V1]; IBM + Meta 2024: 6.3 s async, 148.8 s sync for a 7B model [V1]", low=1e-3, high=day, optional=True)


@dataclass(frozen=True)
class Replication(_Section):
    """Shipping checkpoints off-site."""

    link_bandwidth: float = _field(
        "replication.link_bandwidth", 100 * Gbit_per_s, "[B/s]", "line_rate",
        "Line rate of the cross-site link.", presets.LINKS["dx-100g"].source, low=1e6, high=1e14,
        preset=(presets.LINKS, "bandwidth"))
    efficiency: float = _field(
        "replication.efficiency", 0.9, "[1]", "fraction", "Share of the line rate achieved.",
        "assumption: 90% after protocol overhead", low=0.01, high=1.0)
    latency: float = _field("replication.latency", 0.05, "[s]", "duration",
                            "Fixed cost per transfer (round trips, set-up).",
                            "assumption: one cross-region round trip", low=0.0, high=hour)
    compression: float = _field("replication.compression", 1.0, "[1]", "plain",
                                "Compression ratio of the shipped checkpoint.",
                                "assumption: optimizer state in fp32 barely compresses", low=1.0,
                                high=20.0)
    interval: float = _field(
        "replication.interval", hour, "[s]", "duration",
        "Time asked for between off-site copies; every k-th checkpoint is shipped, k = ceil(interval / tau).",
        "assumption: hourly off-site copies", low=minute, high=30 * day)
    object_store_bandwidth: float = _field(
        "replication.object_store_bandwidth", 1000 * 87.5 * MB_per_s, "[B/s]", "bandwidth",
        "Upload rate from the parallel filesystem into the site's object store.",
        presets.STORAGE["object-store"].source, low=1e6, high=1e15,
        preset=(presets.STORAGE, "write_bandwidth"))
    streamed: bool = _field(
        "replication.streamed", False, "[1]", "flag",
        "true: the object-store and link hops stream; false: store-and-forward.",
        "assumption: object-store cross-region replication copies after upload")
    policy: str = _field(
        "replication.policy", "every-k", "[1]", "plain",
        "every-k: each scheduled copy ships, and one that falls behind queues (the backlog grows); newest: a "
        "latest-wins replicator skips copies superseded while a hop was busy, so the site RPO stays bounded.",
        "assumption: every scheduled copy ships (object-store cross-region replication queues)",
        choices=("every-k", "newest"))
    retained: int = _field("replication.retained", 2, "[1]", "count",
                           "Checkpoints kept at the remote site.",
                           "assumption: the newest plus one known-good", low=1, high=10_000,
                           integer=True)


@dataclass(frozen=True)
class Failures(_Section):
    """How often things break, and the local recovery phases."""

    gpu_failure_rate: float = _field(
        "failures.gpu_failure_rate", _LLAMA3.gpu_failure_rate, "[1/s]", "rate",
        "Unexpected interruptions per GPU per second.", _LLAMA3.source, low=1e-15, high=1e-3,
        preset=(presets.FAILURE_RATES, "gpu_failure_rate"))
    measured_mtbf: float | None = _field(
        "failures.measured_mtbf", None, "[s]", "duration",
        "A cluster MTBF measured on this cluster; when set it replaces 1/(G λ).",
        "unset: derived from the per-GPU rate; Llama 3 §3.3.4 measured 54 days / 419 = 3.09 h",
        low=minute, high=100 * year, optional=True)
    weibull_shape: float = _field(
        "failures.weibull_shape", 1.0, "[1]", "plain",
        "Weibull shape of the times between failures: 1 is exponential (a constant hazard); below 1 the "
        "hazard falls after each failure, and goodput comes from a renewal model of Weibull gaps.",
        "1: exponential gaps, as Young and Daly assume; Schroeder & Gibson 2010 fit 0.7-0.8 on HPC failures",
        low=0.3, high=3.0)
    site_event_rate: float = _field(
        "failures.site_event_rate", presets.SITE_EVENT_RATES["uptime-serious-outage"].rate, "[1/s]",
        "rate", "Site-loss events per second (building or region).",
        presets.SITE_EVENT_RATES["uptime-serious-outage"].source, low=0.0, high=1e-5,
        preset=(presets.SITE_EVENT_RATES, "rate"))
    detection_time: float = _field(
        "failures.detection_time", 3 * minute, "[s]", "duration",
        "From a fault to the job known dead.",
        "assumption; Kokolis: health checks every 5 min; local phases sum to u0 = 10 min "
        "(Kokolis 5-20 min [V2])", low=0.0, high=day)
    reschedule_time: float = _field("failures.reschedule_time", 2 * minute, "[s]", "duration",
                                    "Swapping failed nodes for spares.",
                                    "assumption; phases sum to u0 = 10 min", low=0.0, high=day)
    launch_time: float = _field("failures.launch_time", 3 * minute, "[s]", "duration",
                                "Scheduler, containers and collective init at scale.",
                                "assumption; phases sum to u0 = 10 min", low=0.0, high=day)
    validation_time: float = _field("failures.validation_time", 2 * minute, "[s]", "duration",
                                    "First steps until they reproduce the loss.",
                                    "assumption; phases sum to u0 = 10 min", low=0.0, high=day)


@dataclass(frozen=True)
class Failover(_Section):
    """The DR tier and the site-failover phases."""

    tier: str = _field("failover.tier", "warm", "[1]", "plain", "DR tier of the standby.",
                       presets.DR_TIERS["warm"].source, choices=tuple(presets.DR_TIERS))
    standby_fraction: float | None = _field(
        "failover.standby_fraction", None, "[1]", "fraction",
        "Standby size over primary size; unset uses the tier's.", "the tier preset",
        low=0.01, high=1.0, optional=True)
    detection_time: float = _field("failover.detection_time", 5 * minute, "[s]", "duration",
                                   "From the site event to it being confirmed.",
                                   "assumption: a whole-site loss is loud", low=0.0, high=7 * day)
    decision_time: float = _field("failover.decision_time", 30 * minute, "[s]", "duration",
                                  "Deciding to fail over (skipped by automatic tiers).",
                                  "assumption: an on-call incident lead decides", low=0.0,
                                  high=7 * day)
    staging_bandwidth: float = _field(
        "failover.staging_bandwidth", 1000 * 87.5 * MB_per_s, "[B/s]", "bandwidth",
        "Copy rate from the remote object store onto the standby's filesystem.",
        presets.STORAGE["object-store"].source, low=1e6, high=1e15)
    gradient_bytes: float = _field(
        "failover.gradient_bytes", presets.BYTES_PER_GRADIENT["bf16-gradients"].value, "[B]", "plain",
        "Bytes per gradient exchanged between sites each step (multi-site only).",
        presets.BYTES_PER_GRADIENT["bf16-gradients"].source, low=1.0, high=8.0,
        preset=(presets.BYTES_PER_GRADIENT, "value"))


@dataclass(frozen=True)
class Cost(_Section):
    """Prices."""

    gpu_hour_price: float = _field(
        "cost.gpu_hour_price", presets.PRICES["ec2-capacity-block-h100"].gpu_hour_price, "[USD]",
        "usd", "Price of one GPU for one hour.", presets.PRICES["ec2-capacity-block-h100"].source,
        low=0.0, high=1000.0, preset=(presets.PRICES, "gpu_hour_price"))
    delay_cost: float = _field(
        "cost.delay_cost", 1e6 / day, "[USD/s]", "usd_rate",
        "Business value lost per second the run finishes late.",
        "assumption: $1M/day, the order of the fleet's own daily cost", low=0.0, high=1e6)
    link_hour_price: float | None = _field(
        "cost.link_hour_price", None, "[USD]", "usd",
        "Price of the replication link per hour, whatever its bandwidth (a negotiated circuit); unset prices "
        "it from replication.link_bandwidth: the cheapest bundle of identical ports that carries it.",
        "unset: AWS Direct Connect dedicated ports, $2.25/22.50/85.00 per port-hour for 10/100/400 Gbps "
        "(pricing page, 2026-09-20) [V2]; a LAG bundles ports of one speed", low=0.0, high=1e5,
        optional=True, preset=(presets.LINKS, "hour_price"))
    egress_price: float = _field("cost.egress_price", 0.02 / GB, "[USD/B]", "usd_per_byte",
                                 "Price of sending one byte off-site.",
                                 "AWS Direct Connect data transfer out $0.02-0.1923/GB [V2]; low end",
                                 low=0.0, high=1e-6)
    storage_month_price: float = _field(
        "cost.storage_month_price", 0.023 / GB, "[USD/B]", "usd_per_byte_month",
        "Price of storing one byte at the remote site for one month.",
        "[R] object-storage list price ~$0.023/GB-month; not verified in a stored source",
        low=0.0, high=1e-6)
    link_bandwidth_hour_price: float = _field(
        "cost.link_bandwidth_hour_price", presets.LINKS["dx-400g"].bandwidth_hour_price, "[USD/(B/s·h)]",
        "usd_per_bandwidth_hour",
        "Price of one B/s of cross-site bandwidth for one hour (multi-site's gradient traffic).",
        presets.LINKS["dx-400g"].source, low=0.0, high=1e-6, preset=(presets.LINKS, "bandwidth_hour_price"))


def _target(name, default, doc, basis, low=1.0):
    return _field(f"requirements.{name}", default, "[s]", "duration", doc, basis, low=low, high=10 * year,
                  optional=True)


@dataclass(frozen=True)
class Requirements(_Section):
    """The targets a design review starts from; each unset one is not required."""

    rpo_site: float | None = _target(
        "rpo_site", None, "Largest worst-case progress a site loss may cost (site RPO target).",
        "unset: no target; the business sets it (e.g. 15 min)")
    rto_site: float | None = _target(
        "rto_site", None, "Longest time from a site loss until training resumes (site RTO target).",
        "unset: no target; the business sets it (e.g. 4 h)")
    rpo_local: float | None = _target(
        "rpo_local", None, "Largest worst-case progress a local failure may cost (local RPO target).",
        "unset: no target")
    rto_local: float | None = _target(
        "rto_local", None, "Longest time from a local failure until training resumes (local RTO target).",
        "unset: no target")
    max_slip: float | None = _target(
        "max_slip", None, "Largest expected schedule slip after a site loss the business accepts: work lost, "
        "outage and time at reduced capacity.",
        "unset: no target; 0 is never met (a site loss always costs some time)", low=0.0)


_SECTION_TYPES = {"training": Training, "checkpoint": Checkpoint, "replication": Replication,
                  "failures": Failures, "failover": Failover, "cost": Cost, "requirements": Requirements}
SECTIONS = tuple(_SECTION_TYPES)
"""Section names, in order."""

FIELDS = {f.metadata["info"].path: f.metadata["info"]
          for cls in _SECTION_TYPES.values() for f in fields(cls) if "info" in f.metadata}
"""Every input by ``section.field``: its :class:`FieldInfo`."""

_PATHS = tuple((path, info.section, info.name) for path, info in FIELDS.items())


# --------------------------------------------------------------------------- uncertainty

DISTRIBUTIONS = ("lognormal", "normal", "uniform", "loguniform")
"""How a :class:`Spread` is drawn from its central interval."""

UNCERTAIN = tuple(path for path, info in FIELDS.items()
                  if info.choices is None and info.kind != "flag" and info.section != "requirements")
"""The inputs that may carry a :class:`Spread`: every numeric one but the targets."""

PREFIX = "uncertainty."
"""How a spread is named in a flat change: ``"uncertainty.failures.gpu_failure_rate"``."""


@dataclass(frozen=True)
class Spread:
    """How uncertain one input is: its central interval and the distribution drawn from it.

    ``low`` and ``high`` bound the central ``confidence`` interval of the input, in its SI unit;
    :func:`drmath.bands` draws from the ``distribution`` (one of :data:`DISTRIBUTIONS`) that has
    that interval. A Scenario checks it against its field (:meth:`Scenario.with_changes`).

    >>> Spread(2e-7 / 3600, 4e-7 / 3600).distribution
    'lognormal'
    """

    low: float
    high: float
    distribution: str = "lognormal"
    confidence: float = 0.95


def spread_for(path, value):
    """``value`` (a :class:`Spread`, ``(low, high)`` or ``{low, high, distribution, confidence}``) checked as
    the spread of input ``path``; a ValueError naming ``uncertainty.<path>`` and the valid range otherwise."""
    where = f"{PREFIX}{path}"
    if path not in UNCERTAIN:
        try:
            _split(path)  # an unknown field: say which exist
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        raise ValueError(f"{where} is not allowed: {path} is not a numeric input (uncertain inputs are the numeric "
                         "fields of every section but requirements)")
    if isinstance(value, Spread):
        parts = dataclasses.asdict(value)
    elif isinstance(value, Mapping):
        unknown = set(value) - {"low", "high", "distribution", "confidence"}
        if unknown or not {"low", "high"} <= set(value):
            raise ValueError(f"{where} = {short_repr(value)} must give low and high (and optionally distribution, "
                             "confidence)")
        parts = dict(value)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        parts = {"low": value[0], "high": value[1]}
    else:
        raise ValueError(f"{where} = {short_repr(value)} is not a spread: give (low, high), a dict or a Spread")
    spread = Spread(**parts)
    _check_spread(where, FIELDS[path], spread)
    return Spread(float(spread.low), float(spread.high), spread.distribution, float(spread.confidence))


def _check_spread(where, info, spread):
    if spread.distribution not in DISTRIBUTIONS:
        raise ValueError(f"{where}.distribution = {short_repr(spread.distribution)} is not valid: must be one of "
                         + ", ".join(repr(d) for d in DISTRIBUTIONS))
    c = spread.confidence
    if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)) or not 0 < c < 1:
        raise ValueError(f"{where}.confidence = {short_repr(c)} is out of range: must be in (0, 1)")
    for end in ("low", "high"):
        x = getattr(spread, end)
        if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)) or not math.isfinite(x):
            raise ValueError(f"{where}.{end} = {short_repr(x)} is not a finite number: must be in "
                             f"[{info.low:g}, {info.high:g}]")
    low, high = float(spread.low), float(spread.high)
    log = spread.distribution in ("lognormal", "loguniform")
    below = (low <= info.low if info.low_open else low < info.low) or (log and low <= 0.0)
    if below or high > info.high or not low < high:
        lo = "(" if info.low_open else "["
        raise ValueError(f"{where} = ({low!r}, {high!r}) is out of range: low < high, both in "
                         f"{lo}{info.low:g}, {info.high:g}]"
                         + (" and low > 0 for a log distribution" if log else ""))


class Uncertainty(Mapping):
    """A scenario's spreads, read-only and hashable: ``{input path: Spread}`` in field order."""

    __slots__ = ("_items",)

    def __init__(self, items=()):
        items = dict(items)
        self._items = {path: items[path] for path in FIELDS if path in items}

    def __getitem__(self, path):
        return self._items[path]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def __hash__(self):
        return hash(tuple(self._items.items()))

    def __repr__(self):
        return f"Uncertainty({self._items!r})"


@dataclass(frozen=True)
class Scenario:
    """Every input of the model, grouped by section, validated on construction.

    Build one with keyword sections (``Scenario(training=Training(gpus=4096))``),
    from a flat mapping (:meth:`from_dict`) or by changing another
    (:meth:`with_changes`). Field metadata (unit, range, basis) is in
    :data:`FIELDS`.
    """

    training: Training = field(default_factory=Training)
    checkpoint: Checkpoint = field(default_factory=Checkpoint)
    replication: Replication = field(default_factory=Replication)
    failures: Failures = field(default_factory=Failures)
    failover: Failover = field(default_factory=Failover)
    cost: Cost = field(default_factory=Cost)
    requirements: Requirements = field(default_factory=Requirements)
    uncertainty: Uncertainty = field(default_factory=Uncertainty)
    """``{input path: Spread}``: the inputs drawn by :func:`drmath.bands`; empty by default."""

    def __post_init__(self):
        for name, cls in _SECTION_TYPES.items():
            if not isinstance(getattr(self, name), cls):
                raise TypeError(f"{name} must be a {cls.__name__} section, got {type(getattr(self, name)).__name__}")
        spreads = self.uncertainty
        if not isinstance(spreads, Mapping):
            raise TypeError(f"uncertainty must be a mapping of input paths to spreads, got {type(spreads).__name__}")
        if not isinstance(spreads, Uncertainty) or any(not isinstance(x, Spread) for x in spreads.values()):
            spreads = Uncertainty({path: spread_for(path, x) for path, x in spreads.items()})
        object.__setattr__(self, "uncertainty", spreads)

    def get(self, path):
        """The value of ``section.field``."""
        section, name = _split(path)
        return getattr(getattr(self, section), name)

    def to_dict(self):
        """Nested ``{section: {field: value}}``; unset optional fields are left out."""
        return {s: {k: v for k, v in dataclasses.asdict(getattr(self, s)).items() if v is not None}
                for s in SECTIONS}

    def flat(self):
        """Flat ``{"section.field": value}`` of every field, unset ones as None."""
        return {path: getattr(getattr(self, section), name) for path, section, name in _PATHS}

    @classmethod
    def from_dict(cls, data):
        """Build from nested ``{section: {field: value}}`` and/or flat ``{"section.field": value}``.

        Unknown sections or fields raise ``ValueError`` naming them.
        """
        return cls().with_changes(data)

    def with_changes(self, changes):
        """A new Scenario with some fields changed; this one is untouched.

        Parameters
        ----------
        changes : mapping
            ``{"section.field": value}`` or ``{section: {field: value}}``. [1]

        Returns
        -------
        scenario : Scenario
            The changed copy, validated as a whole. [1]
        """
        updates = {s: {} for s in SECTIONS}
        spreads = dict(self.uncertainty)
        for key, value in _flatten(changes).items():
            if isinstance(key, str) and key.startswith(PREFIX):
                path = key[len(PREFIX):]
                spreads.pop(path, None) if value is None else spreads.update({path: spread_for(path, value)})
                continue
            if key == MODEL:
                size = presets.MODELS.get(value) if isinstance(value, str) else None
                if size is not None and not isinstance(size, Architecture):  # a published size, no architecture
                    updates["training"].update(params=size.params, active_share=1.0)
                    continue
                updates["training"]["model"] = model_of(value)
                continue
            if key == "training.params" and isinstance(value, str) and value in presets.MODELS \
                    and value not in _DENSE_MODELS:
                raise ValueError(f"training.params = {value!r} is a mixture of experts: set training.model = "
                                 f"{value!r}, so that its active parameters set the compute and its total the state")
            section, name = _split(key)
            updates[section][name] = value
        _settle_model(updates["training"])
        return Scenario(**{s: dataclasses.replace(getattr(self, s), **updates[s]) if updates[s]
                           else getattr(self, s) for s in SECTIONS}, uncertainty=Uncertainty(spreads))

    def replace(self, **changes):
        """A new Scenario with some fields (``section.field``) or spreads (``uncertainty.section.field``) changed.

        >>> s = Scenario().replace(**{"uncertainty.failures.gpu_failure_rate": (2e-7 / 3600, 4e-7 / 3600)})
        >>> s.uncertainty["failures.gpu_failure_rate"].distribution, Scenario().uncertainty == {}
        ('lognormal', True)
        """
        return self.with_changes(changes)


MODEL = "training.model"
"""The change that sets the architecture: ``{"training.model": "mixtral-8x7b"}`` (or an Architecture, or a table of
its fields); ``None`` drops it and keeps its counts as numbers. The name of a preset that is a size only
(``"gpt3-175b"``) sets ``training.params`` to it, dense."""


def model_of(value):
    """``training.model``'s value as an :class:`~drmath.architecture.Architecture` (or None): a preset name of
    :data:`drmath.presets.MODELS`, an Architecture, or a mapping of its fields; a ValueError naming it otherwise.

    >>> model_of("mixtral-8x7b").experts
    8
    """
    if value is None or isinstance(value, Architecture):
        return value
    if isinstance(value, str):
        names = [n for n, m in presets.MODELS.items() if isinstance(m, Architecture)]
        if value not in names:
            raise ValueError(f"{MODEL} = {short_repr(value)} is not a known architecture: must be one of "
                             f"{', '.join(names)}, an Architecture or a table of its fields")
        return presets.MODELS[value]
    if isinstance(value, Mapping):
        return Architecture.from_dict(value)
    raise TypeError(f"{MODEL} = {short_repr(value)} has the wrong type ({type(value).__name__}): must be a preset "
                    "name, an Architecture or a table of its fields")


def _settle_model(training):
    """A change to ``training``'s counts: set by the model when one is given (numbers given beside it must agree),
    and the model dropped when the counts are changed without it."""
    counted = [k for k in ("params", "active_share") if k in training]
    if "model" not in training:
        if counted:
            training["model"] = None  # the numbers no longer come from the architecture
        return
    model = training["model"]
    if model is None:
        return
    for name, own in (("params", model.params), ("active_share", model.active_params / model.params)):
        given = training.pop(name, None)
        if given is not None and not (isinstance(given, (int, float)) and math.isclose(given, own, rel_tol=1e-9)):
            raise ValueError(f"training.{name} = {short_repr(given)} disagrees with training.model {model.name!r} "
                             f"({own:g}): give one or the other")


def _flatten(changes):
    if not isinstance(changes, dict):
        raise TypeError(f"changes must be a mapping, got {type(changes).__name__}")
    flat = {}
    for key, value in changes.items():
        if not isinstance(key, str):
            raise TypeError(f"scenario keys must be strings, got {short_repr(key)}")
        if key == "uncertainty" and isinstance(value, Mapping):
            flat.update({PREFIX + str(path): inner for path, inner in value.items()})
        elif "." not in key and isinstance(value, dict):
            if key not in _SECTION_TYPES:
                raise ValueError(f"unknown section {short_repr(key)}: must be one of {', '.join(SECTIONS)}")
            for name, inner in value.items():
                flat[f"{key}.{name}"] = inner
        else:
            flat[key] = value
    return flat


def _split(path):
    if path not in FIELDS:
        section = path.split(".")[0] if isinstance(path, str) else path
        if section not in _SECTION_TYPES:
            raise ValueError(f"unknown field {short_repr(path)}: sections are {', '.join(SECTIONS)}")
        names = [p.split(".")[1] for p in FIELDS if p.startswith(section + ".")]
        raise ValueError(f"unknown field {short_repr(path)}: {section} has {', '.join(names)}")
    return path.split(".")
