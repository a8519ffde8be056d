r"""The scenario (every input, validated) and ``plan()`` (every output, explained).

Data flows one way: inputs -> :class:`Scenario` -> :func:`plan` -> :class:`Plan`
-> views. A Scenario is immutable and validated on construction, so a bad
value raises ``ValueError`` (or ``TypeError`` for a wrong type) naming the
field, its value and its valid range, and nothing is ever half-applied.

    >>> s = Scenario()
    >>> s.training.gpus, s.failover.tier
    (8000, 'warm')
    >>> p = plan(s.with_changes({"training.gpus": 16_384}))
    >>> round(p.mtbf / 3600, 2)
    3.09
    >>> Scenario().with_changes({"training.mfu": 1.5})
    Traceback (most recent call last):
    ...
    ValueError: training.mfu = 1.5 is out of range: must be in [0.01, 1]
"""

import dataclasses
import functools
import math
from dataclasses import dataclass, field, fields

import numpy as np

from . import checkpoint, cost, presets, recovery, reliability, replication, training
from ._validate import TINY, short_repr, trusted
from .units import GB, Gbit_per_s, MB_per_s, day, hour, minute, year

__all__ = ["Scenario", "Plan", "plan", "sweep", "FieldInfo", "FIELDS", "SECTIONS", "PLAN_FIELDS"]


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


@dataclass(frozen=True)
class _Section:
    def __post_init__(self):
        for f in fields(self):
            object.__setattr__(self, f.name, f.metadata["info"].coerce(getattr(self, f.name)))


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
    params: float = _field("training.params", 405e9, "[1]", "count", "Trainable parameters (dense).",
                           presets.MODELS["llama3-405b"].source, low=1e6, high=1e14,
                           preset=(presets.MODELS, "params"))
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


@dataclass(frozen=True)
class Checkpoint(_Section):
    """What a checkpoint holds, where it goes and how often."""

    bytes_per_param: float = _field(
        "checkpoint.bytes_per_param", 14.0, "[B]", "plain", "Bytes saved per parameter.",
        presets.BYTES_PER_PARAM["mixed-precision-adam-checkpoint"].source, low=0.5, high=64.0,
        preset=(presets.BYTES_PER_PARAM, "value"))
    mode: str = _field("checkpoint.mode", "async", "[1]", "plain",
                       "async: stall only for the copy to host memory; sync: stall for the persist.",
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
        "checkpoint.per_writer_bandwidth", 400 * Gbit_per_s / 8, "[B/s]", "bandwidth",
        "What one GPU can push to storage: its share of the node's front-end NIC.",
        "stas00/ml-engineering network/README.md: front-end 100-400 Gbps per node [V1]; "
        "400 Gbps over 8 GPUs", low=1e6, high=1e12)
    host_copy_bandwidth: float = _field(
        "checkpoint.host_copy_bandwidth", 677e6, "[B/s]", "bandwidth",
        "Effective rate at which one GPU stages its shard into host memory (async stall).",
        "PyTorch blog 2025-04-30 (Meta + Crusoe): 0.78 s GPU blocking for Llama3-70B on 1,856 "
        "H200 -> 70e9 x 14 B / 1,856 / 0.78 s = 677 MB/s per GPU [V1 inputs, D]",
        low=1e6, high=1e12)


@dataclass(frozen=True)
class Replication(_Section):
    """Shipping checkpoints off-site."""

    link_bandwidth: float = _field(
        "replication.link_bandwidth", 100 * Gbit_per_s, "[B/s]", "bandwidth",
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
        "Target time between off-site copies; every k-th checkpoint is shipped, k = ceil(target / tau).",
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
    link_hour_price: float = _field("cost.link_hour_price", 22.50, "[USD]", "usd",
                                    "Price of the cross-site link port per hour.",
                                    presets.LINKS["dx-100g"].source, low=0.0, high=1e5,
                                    preset=(presets.LINKS, "hour_price"))
    egress_price: float = _field("cost.egress_price", 0.02 / GB, "[USD/B]", "plain",
                                 "Price of sending one byte off-site.",
                                 "AWS Direct Connect data transfer out $0.02-0.1923/GB [V2]; low end",
                                 low=0.0, high=1e-6)
    storage_month_price: float = _field(
        "cost.storage_month_price", 0.023 / GB, "[USD/B]", "plain",
        "Price of storing one byte at the remote site for one month.",
        "[R] object-storage list price ~$0.023/GB-month; not verified in a stored source",
        low=0.0, high=1e-6)


_SECTION_TYPES = {"training": Training, "checkpoint": Checkpoint, "replication": Replication,
                  "failures": Failures, "failover": Failover, "cost": Cost}
SECTIONS = tuple(_SECTION_TYPES)
"""Section names, in order."""

FIELDS = {f.metadata["info"].path: f.metadata["info"]
          for cls in _SECTION_TYPES.values() for f in fields(cls)}
"""Every input by ``section.field``: its :class:`FieldInfo`."""

_PATHS = tuple((path, info.section, info.name) for path, info in FIELDS.items())


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

    def __post_init__(self):
        for name, cls in _SECTION_TYPES.items():
            if not isinstance(getattr(self, name), cls):
                raise TypeError(f"{name} must be a {cls.__name__} section, got {type(getattr(self, name)).__name__}")

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
        for key, value in _flatten(changes).items():
            section, name = _split(key)
            updates[section][name] = value
        return Scenario(**{s: dataclasses.replace(getattr(self, s), **updates[s]) if updates[s]
                           else getattr(self, s) for s in SECTIONS})


def _flatten(changes):
    if not isinstance(changes, dict):
        raise TypeError(f"changes must be a mapping, got {type(changes).__name__}")
    flat = {}
    for key, value in changes.items():
        if not isinstance(key, str):
            raise TypeError(f"scenario keys must be strings, got {short_repr(key)}")
        if "." not in key and isinstance(value, dict):
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


# --------------------------------------------------------------------------- the plan

PLAN_FIELDS = {
    # name: (kind, title)
    "training_flops": ("flop", "Training compute"),
    "compute_time": ("duration", "Compute time (ETTR = 1)"),
    "time_to_train": ("duration", "Time to train (wall-clock)"),
    "tokens": ("count", "Tokens"),
    "gpu_hours": ("gpu_hours", "GPU-hours"),
    "run_cost": ("usd", "Run cost"),
    "checkpoint_size": ("bytes", "Checkpoint size"),
    "shard_size": ("bytes", "Shard per GPU"),
    "checkpoint_write_time": ("duration", "Checkpoint write (persist) time"),
    "checkpoint_stall": ("duration", "Checkpoint stall"),
    "checkpoint_load_time": ("duration", "Checkpoint load time"),
    "checkpoint_interval": ("duration", "Checkpoint interval"),
    "checkpoint_interval_floor": ("duration", "Interval floor"),
    "checkpoint_bandwidth_share": ("fraction", "Filesystem bandwidth used by checkpoints"),
    "mtbf": ("duration", "Cluster MTBF"),
    "expected_interruptions": ("count", "Expected interruptions"),
    "young_interval": ("duration", "Young interval"),
    "daly_interval": ("duration", "Daly interval"),
    "optimal_interval": ("duration", "Optimal checkpoint interval"),
    "restart_overhead": ("duration", "Restart overhead u0"),
    "ettr": ("fraction", "ETTR"),
    "replication_every": ("count", "Replicate every k-th checkpoint"),
    "replication_interval": ("duration", "Replication interval"),
    "object_store_time": ("duration", "Upload to object store"),
    "link_time": ("duration", "Transfer over the link"),
    "replication_time": ("duration", "Replication time"),
    "replication_utilization": ("fraction", "Link utilisation"),
    "replication_keeps_up": ("flag", "Replication keeps up"),
    "replication_bandwidth_needed": ("bandwidth", "Link bandwidth needed to keep up"),
    "rpo_local": ("duration", "Local RPO (worst)"),
    "rpo_local_expected": ("duration", "Local RPO (expected)"),
    "rpo_site": ("duration", "Site RPO (worst)"),
    "rpo_site_expected": ("duration", "Site RPO (expected)"),
    "rto_local": ("duration", "Local RTO"),
    "rto_site": ("duration", "Site RTO"),
    "standby_gpus": ("count", "Standby GPUs"),
    "schedule_slip": ("duration", "Expected schedule slip after failover"),
    "fleet_cost_rate": ("usd_rate", "Fleet cost"),
    "standby_cost": ("usd", "Standby cost"),
    "replication_cost": ("usd", "Replication cost"),
    "site_event_probability": ("fraction", "P(site event during the run)"),
    "expected_disaster_loss": ("usd", "Expected disaster loss"),
    "total_dr_cost": ("usd", "Total DR cost"),
}
"""Every scalar field of :class:`Plan`: its formatting kind and title."""

_DICT_FIELDS = ("rto_local_phases", "rto_site_phases", "tier_total_costs", "break_even_delay_costs")


@dataclass(frozen=True)
class Plan:
    """Every derived number of a scenario, in SI, with :meth:`explain` for each.

    ``rpo_site`` (and what depends on it) is ``inf`` when replication does not
    keep up; ``replication_keeps_up`` is then False and ``explain("rpo_site")``
    says what would fix it.
    """

    scenario: Scenario
    run_driver: str
    training_flops: float
    compute_time: float
    time_to_train: float
    tokens: float
    gpu_hours: float
    run_cost: float
    checkpoint_size: float
    shard_size: float
    checkpoint_write_time: float
    checkpoint_stall: float
    checkpoint_load_time: float
    checkpoint_interval: float
    checkpoint_interval_floor: float
    checkpoint_interval_floored: bool
    checkpoint_bandwidth_share: float
    mtbf: float
    expected_interruptions: float
    young_interval: float
    daly_interval: float
    optimal_interval: float
    restart_overhead: float
    ettr: float
    replication_every: float
    replication_interval: float
    object_store_time: float
    link_time: float
    replication_time: float
    replication_utilization: float
    replication_keeps_up: bool
    replication_bandwidth_needed: float
    rpo_local: float
    rpo_local_expected: float
    rpo_site: float
    rpo_site_expected: float
    rto_local: float
    rto_local_phases: dict
    rto_site: float
    rto_site_phases: dict
    standby_gpus: float
    schedule_slip: float
    fleet_cost_rate: float
    standby_cost: float
    replication_cost: float
    site_event_probability: float
    expected_disaster_loss: float
    total_dr_cost: float

    @functools.cached_property
    def _tiers(self):
        return _py(_compare_tiers(self.scenario.flat()))

    @property
    def tier_total_costs(self):
        """Total DR cost (standby + replication + expected disaster loss) of every tier. [USD]"""
        return self._tiers["tier_total_costs"]

    @property
    def break_even_delay_costs(self):
        """Cost of delay above which each tier pays for itself against cold. [USD/s]"""
        return self._tiers["break_even_delay_costs"]

    def explain(self, name):
        """The worked derivation of one field, as Markdown with LaTeX.

        Parameters
        ----------
        name : str
            A field of this Plan, e.g. ``"rpo_site"``. [1]

        Returns
        -------
        text : str
            The formula, the inputs substituted with units, and the result. [1]
        """
        from ._explain import explain
        return explain(self, name)

    def format(self, name, digits=3):
        """The human reading of one scalar field, e.g. ``"6.31 h"``."""
        from .units import format_quantity
        kind, _ = PLAN_FIELDS[name]
        return format_quantity(getattr(self, name), kind, digits)

    def to_dict(self):
        """Every field in SI, keyed by name; ``inf`` stays ``inf`` (see :meth:`to_json`)."""
        out = {"run_driver": self.run_driver, "checkpoint_interval_floored": self.checkpoint_interval_floored}
        out.update({k: getattr(self, k) for k in PLAN_FIELDS})
        out.update({k: dict(getattr(self, k)) for k in _DICT_FIELDS})
        return out

    def to_json_dict(self):
        """Like :meth:`to_dict`, but JSON-safe: each ``inf`` becomes ``None`` with
        ``"<field>_unbounded": True`` beside it."""
        out = {}
        for key, value in self.to_dict().items():
            if isinstance(value, dict):
                out[key] = {k: (None if _is_inf(v) else v) for k, v in value.items()}
                unbounded = sorted(k for k, v in value.items() if _is_inf(v))
                if unbounded:
                    out[f"{key}_unbounded"] = unbounded
            elif _is_inf(value):
                out[key] = None
                out[f"{key}_unbounded"] = True
            else:
                out[key] = value
        return out


def _is_inf(value):
    return isinstance(value, float) and math.isinf(value)


def _py(value):
    """numpy scalar -> Python scalar; arrays stay arrays."""
    if isinstance(value, dict):
        return {k: _py(v) for k, v in value.items()}
    if np.ndim(value):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    return float(value)


def _derive(v, tiers=None):
    """Every output from the flat inputs ``v``; any numeric input may be an array.

    ``v`` comes from a validated Scenario (and sweep() checks its values against the
    field's range), so the formulas' own argument checks are skipped: bad input raises
    once, at the boundary.
    """
    with trusted():
        return _derive_trusted(v, tiers)


def _derive_trusted(v, tiers):
    out = {}
    G = v["training.gpus"]
    N = v["training.params"]
    asynchronous = v["checkpoint.mode"] == "async"

    # checkpoints
    S = checkpoint.checkpoint_bytes(N, v["checkpoint.bytes_per_param"])
    shard = checkpoint.shard_bytes(S, G)
    W = checkpoint.checkpoint_write_time(S, v["checkpoint.write_bandwidth"], G, v["checkpoint.per_writer_bandwidth"])
    delta = checkpoint.checkpoint_stall(W, shard, v["checkpoint.host_copy_bandwidth"], asynchronous)
    L = checkpoint.checkpoint_load_time(S, v["checkpoint.read_bandwidth"])
    floor = checkpoint.checkpoint_interval_floor(W, delta)

    # failures and cadence
    M = reliability.cluster_mtbf(G, v["failures.gpu_failure_rate"])
    local = recovery.local_rto_phases(v["failures.detection_time"], v["failures.reschedule_time"],
                                      v["failures.launch_time"], L, v["failures.validation_time"])
    u0 = recovery.rto(local)
    young = reliability.young_interval(delta, M)
    daly = reliability.daly_interval(delta, M)
    optimal = np.maximum(daly, floor)
    chosen = optimal if v["checkpoint.interval"] is None else v["checkpoint.interval"]
    tau = np.maximum(chosen, floor)
    ettr = reliability.ettr(tau, delta, u0, M)

    # training
    args = (v["training.gpus"], v["training.peak_flop_rate"], v["training.mfu"])
    k_flop = v["training.flops_per_param_token"]
    if v["training.tokens"] is None:
        T = v["training.window"] * np.ones_like(ettr)
        D = training.tokens_in_window(N, T, *args, ettr, k_flop)
    else:
        D = v["training.tokens"] * np.ones_like(ettr)
        T = training.time_to_train(N, D, *args, ettr, k_flop)
    out.update(
        run_driver="window" if v["training.tokens"] is None else "tokens",
        training_flops=training.training_flops(N, D, k_flop),
        compute_time=training.time_to_train(N, D, *args, 1.0, k_flop),
        time_to_train=T, tokens=D, gpu_hours=cost.gpu_hours(G, T),
        run_cost=cost.run_cost(G, T, v["cost.gpu_hour_price"]),
        checkpoint_size=S, shard_size=shard, checkpoint_write_time=W, checkpoint_stall=delta,
        checkpoint_load_time=L, checkpoint_interval=tau, checkpoint_interval_floor=floor,
        checkpoint_interval_floored=chosen < floor,
        checkpoint_bandwidth_share=checkpoint.checkpoint_bandwidth_share(S, tau, v["checkpoint.write_bandwidth"]),
        mtbf=M, expected_interruptions=reliability.expected_interruptions(T, M),
        young_interval=young, daly_interval=daly, optimal_interval=optimal,
        restart_overhead=u0, ettr=ettr, rto_local_phases=local, rto_local=u0,
    )

    # replication
    compression = v["replication.compression"]
    k = replication.replication_every(v["replication.interval"], tau)
    k_tau = k * tau
    upload = replication.transfer_time(S, v["replication.object_store_bandwidth"], compression=compression)
    link = replication.transfer_time(S, v["replication.link_bandwidth"], v["replication.efficiency"],
                                     v["replication.latency"], compression)
    streamed = v["replication.streamed"]
    t_rep = replication.chain_time([upload, link], streamed)
    keeps_up = replication.replication_keeps_up(t_rep, k_tau)
    # the link time that would just fit: the whole interval, less the upload when store-and-forward
    link_budget = k_tau - (0.0 if streamed else upload) - v["replication.latency"]
    with np.errstate(divide="ignore", over="ignore"):
        needed = np.where(link_budget > 0, S / compression / (v["replication.efficiency"] * np.maximum(link_budget, 1e-300)), np.inf)
    out.update(
        replication_every=k, replication_interval=k_tau, object_store_time=upload, link_time=link,
        replication_time=t_rep, replication_utilization=replication.replication_utilization(t_rep, k_tau),
        replication_keeps_up=keeps_up, replication_bandwidth_needed=needed,
        rpo_local=recovery.rpo_local(tau, W), rpo_local_expected=recovery.rpo_local(tau, W, expected=True),
        rpo_site=recovery.rpo_site(k_tau, W, t_rep, keeps_up),
        rpo_site_expected=recovery.rpo_site(k_tau, W, t_rep, keeps_up, expected=True),
    )

    # failover and cost, for the chosen tier and (for the comparison) every tier
    shipped = T / k_tau * S / compression
    repl_cost = cost.replication_cost(shipped, v["cost.egress_price"], v["replication.retained"] * S / compression,
                                      v["cost.storage_month_price"], T, v["cost.link_hour_price"])
    P = cost.site_event_probability(v["failures.site_event_rate"], T)
    F = G * v["cost.gpu_hour_price"] / hour
    out.update(fleet_cost_rate=F, replication_cost=repl_cost, site_event_probability=P)

    def tier_outputs(name):
        tier = presets.DR_TIERS[name]
        fraction = tier.standby_fraction if v["failover.standby_fraction"] is None else v["failover.standby_fraction"]
        staging = 0.0 if tier.lands_on_standby else replication.transfer_time(S, v["failover.staging_bandwidth"])
        phases = recovery.site_rto_phases(
            v["failover.detection_time"], 0.0 if tier.automatic else v["failover.decision_time"],
            tier.readiness, staging, v["failures.launch_time"], L, v["failures.validation_time"])
        rto_site = recovery.rto(phases)
        slip = recovery.resume_slip(T / 2, fraction)
        standby = cost.standby_cost(fraction * G, T, v["cost.gpu_hour_price"], tier.reserved_share)
        lost = out["rpo_site_expected"] + rto_site + slip
        loss = cost.expected_disaster_loss(P, lost, F, v["cost.delay_cost"])
        return dict(rto_site_phases=phases, rto_site=rto_site, standby_gpus=fraction * G,
                    schedule_slip=slip, standby_cost=standby, lost_time=lost,
                    expected_disaster_loss=loss, total_dr_cost=standby + repl_cost + loss)

    if tiers is not None:  # the comparison across tiers, asked for by name
        every = {name: tier_outputs(name) for name in tiers}
        base = every["cold"]
        def saved(t):  # both unbounded (replication behind): no tier saves anything
            with np.errstate(invalid="ignore"):
                diff = np.asarray(base["lost_time"] - t["lost_time"], dtype=float)
            return np.where(np.isnan(diff), 0.0, diff)
        return {"tier_total_costs": {name: t["total_dr_cost"] for name, t in every.items()},
                "break_even_delay_costs": {
                    name: cost.break_even_delay_cost(t["standby_cost"] - base["standby_cost"], saved(t), P, F)
                    for name, t in every.items()}}
    chosen_tier = tier_outputs(v["failover.tier"])
    chosen_tier.pop("lost_time")
    out.update(chosen_tier)
    return out


def _compare_tiers(v):
    """Every tier's total DR cost and break-even cost of delay, for the inputs ``v``."""
    return _derive(v, tiers=tuple(presets.DR_TIERS))


def plan(scenario=None):
    """Derive every number of a scenario.

    Parameters
    ----------
    scenario : Scenario, optional
        The inputs; the seed case when omitted. [1]

    Returns
    -------
    plan : Plan
        Every derived number in SI, with ``explain()``. [1]

    Examples
    --------
    >>> p = plan()
    >>> p.replication_keeps_up, round(p.checkpoint_size / 1e12, 2)
    (True, 5.67)
    """
    scenario = Scenario() if scenario is None else scenario
    if not isinstance(scenario, Scenario):
        raise TypeError(f"plan() needs a Scenario, got {type(scenario).__name__}")
    out = _derive(scenario.flat())
    return Plan(scenario=scenario, **{k: _py(v) if k != "run_driver" else v for k, v in out.items()})


def sweep(scenario, path, values, outputs=None):
    """Every plan output along one input, in one vectorised pass.

    Parameters
    ----------
    scenario : Scenario
        The base inputs. [1]
    path : str
        The numeric input to vary, ``section.field``. [1]
    values : array_like
        Its values, each checked against the field's range. [1]
    outputs : sequence of str, optional
        Plan fields to return; all scalar ones when omitted. [1]

    Returns
    -------
    curves : dict of str to ndarray
        Each output, one entry per value. [1]

    Examples
    --------
    >>> import numpy as np
    >>> curves = sweep(Scenario(), "replication.link_bandwidth", np.array([1e9, 1e10]), ["rpo_site"])
    >>> curves["rpo_site"].shape
    (2,)
    """
    _split(path)
    info = FIELDS[path]
    if info.choices is not None or info.kind == "flag":
        raise ValueError(f"{path} is a choice, not a number: compare plans per choice instead of sweeping")
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"values for {path} must be a non-empty 1-D array, got shape {arr.shape}")
    for x in (arr.min(), arr.max()) if np.isfinite(arr).all() else arr[~np.isfinite(arr)][:1]:
        info.coerce(float(x))
    if info.integer and not np.all(arr == np.round(arr)):
        raise ValueError(f"{path} values must be whole numbers: must be {info.range_text()}")
    v = scenario.flat()
    v[path] = arr
    derived = _derive(v)
    names = [k for k in PLAN_FIELDS] if outputs is None else list(outputs)
    for name in names:
        if name not in PLAN_FIELDS:
            raise ValueError(f"unknown plan field {short_repr(name)}: choose from {', '.join(PLAN_FIELDS)}")
    out = {}
    for name in names:
        value = np.asarray(derived[name], dtype=float)
        out[name] = value if value.shape == arr.shape else np.full(arr.shape, value)  # constant along the sweep
    return out
