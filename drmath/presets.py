"""Named presets: accelerators, nodes, models, failure rates, links, storage, DR tiers, prices.

Every preset is a frozen dataclass with a required ``source``: the document,
section and, where the number is derived, the arithmetic. Numbers come from the
project's domain reference; tags follow it: [V1] verified from the primary
text, [V2] from a secondary source, [R] recalled, [D] derived, and
"assumption" for a drmath modelling choice that no source gives.

Registries map a lowercase-hyphen name to its preset. Look one up with
:func:`get`::

    >>> get(ACCELERATORS, "h100-sxm").peak_flop_rate
    989400000000000.0
"""

from dataclasses import dataclass

from .architecture import Architecture
from .units import GB, Gbit_per_s, MB_per_s, TB_per_s, TiB, day, hour, minute, week

__all__ = [
    "Accelerator", "Node", "ModelSize", "BytesPerParam", "FailureRate", "Link", "StorageTier", "DRTier",
    "Price", "SiteEventRate", "ProvisionedStorage", "GlobalBatch",
    "ACCELERATORS", "NODES", "MODELS", "BYTES_PER_PARAM", "FAILURE_RATES", "LINKS", "STORAGE", "DR_TIERS",
    "PRICES", "SITE_EVENT_RATES", "PROVISIONED_STORAGE", "GLOBAL_BATCHES", "BYTES_PER_GRADIENT",
    "SITE_REBUILD_TIME", "BASELINE_TIER", "SEARCHED_TIERS", "REGISTRIES", "get",
]


SITE_REBUILD_TIME = 3 * week
"""Time to rebuild a lost site's GPU capacity (obtain and burn in thousands of GPUs) [s]: an assumption
every DR tier shares (:attr:`DRTier.rebuild_time`). Cold's readiness is this same time; a tier whose
standby is smaller than the primary (multi-site's surviving half) runs slower only until the lost
capacity is rebuilt."""


class _Preset:
    """Refuses to exist without a source (astropy's provenance rule)."""

    def __post_init__(self):
        if not getattr(self, "source", "").strip():
            raise TypeError(f"{type(self).__name__} {getattr(self, 'name', '?')!r} requires a source")


@dataclass(frozen=True, kw_only=True)
class Accelerator(_Preset):
    """A GPU from its datasheet: dense BF16 peak and HBM capacity (what the training state must fit in)."""

    name: str
    peak_flop_rate: float  #: dense BF16 peak [FLOP/s]
    hbm: float  #: HBM capacity, decimal GB as printed [B]
    source: str


@dataclass(frozen=True, kw_only=True)
class Node(_Preset):
    """A GPU server: the GPUs that share it and its front-end (storage and Internet) NIC."""

    name: str
    gpus: int  #: GPUs per node [1]
    frontend_bandwidth: float  #: the node's front-end network line rate [B/s]
    source: str

    @property
    def per_gpu_frontend_bandwidth(self):
        """Each GPU's share of the front-end NIC, e.g. what one checkpoint writer can push. [B/s]

        >>> from drmath.units import GB_per_s
        >>> NODES["h100-hgx"].per_gpu_frontend_bandwidth / GB_per_s
        6.25
        """
        return self.frontend_bandwidth / self.gpus


@dataclass(frozen=True, kw_only=True)
class ModelSize(_Preset):
    """A dense model's trainable parameter count."""

    name: str
    params: float  #: [1]
    source: str

    @property
    def active_params(self):
        """A dense model computes with every parameter: :attr:`params`. [1]"""
        return self.params


@dataclass(frozen=True, kw_only=True)
class BytesPerParam(_Preset):
    """A checkpoint layout: bytes saved per parameter."""

    name: str
    value: float  #: [B]
    source: str


@dataclass(frozen=True, kw_only=True)
class FailureRate(_Preset):
    """Unexpected interruptions per GPU, from a published cluster rate."""

    name: str
    per_node_day: float  #: interruptions per node per day [1]
    source: str
    gpus_per_node: int  #: GPUs per node of the cluster measured [1]

    @property
    def gpu_failure_rate(self):
        """Interruptions per GPU per second. [1/s]"""
        return self.per_node_day / (self.gpus_per_node * day)


@dataclass(frozen=True, kw_only=True)
class Link(_Preset):
    """A cross-site link port and what it costs."""

    name: str
    bandwidth: float  #: line rate [B/s]
    hour_price: float  #: port price per hour [USD]
    source: str

    @property
    def bandwidth_hour_price(self):
        """Price per hour of one B/s of line rate: a link's price scales with its bandwidth. [USD/h per B/s]

        >>> from drmath.units import Gbit_per_s
        >>> round(LINKS["dx-400g"].bandwidth_hour_price * Gbit_per_s, 4)  # $85/h over 400 Gbit/s
        0.2125
        """
        return self.hour_price / self.bandwidth


@dataclass(frozen=True, kw_only=True)
class StorageTier(_Preset):
    """A storage tier's aggregate bandwidths."""

    name: str
    write_bandwidth: float  #: [B/s]
    read_bandwidth: float  #: [B/s]
    source: str


@dataclass(frozen=True, kw_only=True)
class DRTier(_Preset):
    """A failover tier for training, after AWS's DR strategies.

    ``readiness`` is the time from the decision to fail over until the standby
    can launch the job. ``standby_fraction`` is the standby's size over the
    primary's (G_s/G). ``reserved_share`` is the share of the standby's full
    GPU-hour price paid for the whole run to keep it at this tier.
    ``lands_on_standby`` says whether replication already lands on the
    standby's own storage (then no staging phase). ``automatic`` means no human
    decision phase. ``sites`` is how many sites train at once, so that losing
    any one of them interrupts the run (2 for multi-site, else 1).
    ``state_at_each_site`` says every site holds the training state and its own
    checkpoints, so a site loss costs the survivor's local RPO and cross-site
    checkpoint copies protect nothing (multi-site).
    ``rebuild_time`` is how long it takes to rebuild a lost site's capacity;
    every tier shares :data:`SITE_REBUILD_TIME`, the same three weeks that cold
    takes to obtain a new cluster.
    ``replica_groups`` is how many data-parallel replica groups recover a local
    failure without a restart (torchft-style); 0, every other tier, recovers by
    checkpoint-restart.
    """

    name: str
    label: str
    readiness: float  #: [s]
    standby_fraction: float  #: [1]
    reserved_share: float  #: [1]
    lands_on_standby: bool
    automatic: bool
    assumptions: str
    source: str
    sites: int = 1  #: sites that train at once; losing any one interrupts the run [1]
    rebuild_time: float = SITE_REBUILD_TIME  #: time to rebuild a lost site's GPUs [s]
    state_at_each_site: bool = False  #: each site holds the training state and its checkpoints [1]
    replica_groups: int = 0  #: replica groups that drop out and rejoin with no restart; 0: checkpoint-restart [1]


@dataclass(frozen=True, kw_only=True)
class Price(_Preset):
    """A GPU-hour price."""

    name: str
    gpu_hour_price: float  #: price of one GPU for one hour [USD]
    source: str


@dataclass(frozen=True, kw_only=True)
class SiteEventRate(_Preset):
    """The annual rate of losing a site, with its stated basis."""

    name: str
    rate: float  #: site-loss events per second [1/s]
    source: str


@dataclass(frozen=True, kw_only=True)
class ProvisionedStorage(_Preset):
    """A parallel filesystem sold by capacity, whose throughput scales with the capacity provisioned."""

    name: str
    bandwidth_per_capacity: float  #: throughput per byte provisioned, (B/s)/B [1/s]
    source: str

    @property
    def per_tib(self):
        """Throughput per TiB provisioned, as the vendor prints it. [B/s]

        >>> from drmath.units import MB_per_s
        >>> PROVISIONED_STORAGE["fsx-lustre-persistent2-1000"].per_tib / MB_per_s
        1000.0
        """
        return self.bandwidth_per_capacity * TiB


@dataclass(frozen=True, kw_only=True)
class GlobalBatch(_Preset):
    """Tokens per optimizer step (the global batch): one gradient exchange per step."""

    name: str
    tokens: float  #: tokens per step [1]
    source: str


def _registry(*presets):
    return {p.name: p for p in presets}


NODES = _registry(
    Node(name="h100-hgx", gpus=8, frontend_bandwidth=400 * Gbit_per_s,
         source="Llama 3 (arXiv:2407.21783) §3.3.1: 'Each server has 8 GPUs and 2 CPUs' (H100) [V1]; "
                "stas00/ml-engineering network/README.md: front-end (storage and Internet) network "
                "'typically a single 100-400 Gbps connection' per node, upper end taken [V1]"),
)
"""GPU servers by name: ``NODES["h100-hgx"].gpus``; every per-node figure divides by it."""

_HGX = NODES["h100-hgx"]


ACCELERATORS = _registry(
    Accelerator(name="h100-sxm", peak_flop_rate=989.4e12, hbm=80 * GB,
                source="stas00/ml-engineering compute/accelerator/README.md, TFLOPS table: H100 SXM "
                       "BF16 dense 989 (= 1830 MHz x 528 TC x 512 FMA x 2 = 989.43), 80 GB HBM3 [V1]; "
                       "Llama 3 (arXiv:2407.21783) §3.3.1: 'H100 GPUs, each running at 700W TDP with 80GB "
                       "HBM3' [V1]"),
    Accelerator(name="h200-sxm", peak_flop_rate=989.4e12, hbm=141 * GB,
                source="stas00/ml-engineering compute/accelerator/README.md: H200 SXM BF16 dense 989, "
                       "141 GB HBM3e [V1]"),
    Accelerator(name="b200-sxm", peak_flop_rate=2.25e15, hbm=180 * GB,
                source="stas00/ml-engineering compute/accelerator/README.md: B200 SXM BF16 dense 2,250, "
                       "180 GB HBM3e (HGX usable) [V1]"),
)
"""Accelerators by name: ``ACCELERATORS["h100-sxm"]``."""

_LLAMA3_TABLE3 = ("Llama 3 (arXiv:2407.21783) Table 3, p.7: {layers} layers, model dimension {d:,}, FFN dimension "
                  "{ffn:,}, {heads} attention heads, 8 KV heads, SwiGLU; vocabulary 128,256 (the released "
                  "tokenizer; Table 3 prints 128,000 [R]), untied embeddings: {count} [V1 inputs, D]")


def _llama3(name, layers, d, ffn, heads, count):
    return Architecture(name=name, layers=layers, d_model=d, d_ffn=ffn, heads=heads, kv_heads=8, vocab=128_256,
                        source=_LLAMA3_TABLE3.format(layers=layers, d=d, ffn=ffn, heads=heads, count=count))


MODELS = _registry(
    _llama3("llama3-405b", 126, 16_384, 53_248, 128, "405.85e9"),
    _llama3("llama3-70b", 80, 8_192, 28_672, 64, "70.55e9"),
    _llama3("llama3-8b", 32, 4_096, 14_336, 32, "8.03e9"),
    Architecture(name="mixtral-8x7b", layers=32, d_model=4_096, d_ffn=14_336, heads=32, kv_heads=8, vocab=32_000,
                 experts=8, experts_per_token=2,
                 source="Mistral AI, 'Mixtral of Experts' (arXiv:2401.04088) Table 1: dim 4096, n_layers 32, "
                        "head_dim 128, hidden_dim 14336, n_heads 32, n_kv_heads 8, vocab_size 32000, num_experts 8, "
                        "top_k_experts 2; Sec. 2.1: '47B' total, '13B active parameters' [R: not in the domain "
                        "reference]; counted here: 46.70e9 and 12.88e9 [D]"),
    ModelSize(name="gpt3-175b", params=175e9,
              source="Brown et al. 2020 (GPT-3), Table D.1: 175B parameters [R]; a size only: GPT-3's "
                     "non-gated MLP and learned positions are not an Architecture here"),
)
"""Models by name: :class:`~drmath.architecture.Architecture` where the architecture is published (its
``params`` total and ``active_params``), else a :class:`ModelSize`: ``MODELS["llama3-405b"].params``."""

BYTES_PER_PARAM = _registry(
    BytesPerParam(name="mixed-precision-adam-checkpoint", value=14.0,
                  source="bf16 weights (2) + fp32 master, Adam m and v (4+4+4); gradients are not "
                         "checkpointed (domain ref §4; ZeRO arXiv:1910.02054 §3.1 accounting) [V2/D]"),
    BytesPerParam(name="optimizer-state-only", value=12.0,
                  source="fp32 master, m and v: ZeRO's K = 12 (arXiv:1910.02054 §3.1) [V2]"),
    BytesPerParam(name="zero-training-state", value=16.0,
                  source="ZeRO arXiv:1910.02054 §3.1: 2Ψ + 2Ψ + 12Ψ = 16Ψ bytes in memory [V2]"),
    BytesPerParam(name="bf16-weights-only", value=2.0,
                  source="bf16 export of the weights alone, 2 bytes per parameter (domain ref §4) [D]"),
)
"""Checkpoint layouts: ``BYTES_PER_PARAM["mixed-precision-adam-checkpoint"].value == 14``."""

FAILURE_RATES = _registry(
    FailureRate(name="llama3", per_node_day=419 / (2048 * 54), gpus_per_node=_HGX.gpus,
                source="Llama 3 §3.3.4: 419 unexpected interruptions in a 54-day snapshot on 16,384 "
                       "H100 (2,048 nodes) -> 3.79 per 1,000 node-days [V1 inputs, D]"),
    FailureRate(name="rsc-1", per_node_day=6.50e-3, gpus_per_node=_HGX.gpus,
                source="Kokolis et al. 2024 (arXiv:2410.21680), RSC-1 (16k A100, multi-tenant): "
                       "r_f = 6.50 per 1,000 node-days, 8 GPUs per node as on an HGX node [V2]"),
    FailureRate(name="rsc-2", per_node_day=2.34e-3, gpus_per_node=_HGX.gpus,
                source="Kokolis et al. 2024 (arXiv:2410.21680), RSC-2 (8k A100): "
                       "r_f = 2.34 per 1,000 node-days, 8 GPUs per node as on an HGX node [V2]"),
)
"""Interruption rates: ``FAILURE_RATES["llama3"].gpu_failure_rate`` in [1/s]."""

LINKS = _registry(
    Link(name="dx-10g", bandwidth=10 * Gbit_per_s, hour_price=2.25,
         source="AWS Direct Connect dedicated 10 Gbps port, $2.25/port-hour (pricing page, 2026-09-20) [V2]"),
    Link(name="dx-100g", bandwidth=100 * Gbit_per_s, hour_price=22.50,
         source="AWS Direct Connect dedicated 100 Gbps port, $22.50/port-hour (pricing page, 2026-09-20) [V2]"),
    Link(name="dx-400g", bandwidth=400 * Gbit_per_s, hour_price=85.00,
         source="AWS Direct Connect dedicated 400 Gbps port, $85.00/port-hour (pricing page, 2026-09-20) [V2]"),
)
"""Cross-site link ports: ``LINKS["dx-100g"].bandwidth`` in [B/s]."""

STORAGE = _registry(
    StorageTier(name="tectonic", write_bandwidth=2 * TB_per_s, read_bandwidth=2 * TB_per_s,
                source="Llama 3 §3.3.1: Tectonic 'sustainable throughput of 2 TB/s and a peak "
                       "throughput of 7 TB/s' (sustained used for both) [V1]"),
    StorageTier(name="jeanzay-gpfs", write_bandwidth=57.5 * GB, read_bandwidth=57.5 * GB,
                source="BLOOM-176B: 2.3 TB saved in 40 s to GPFS over NVMe at JeanZay -> 57.5 GB/s "
                       "(stas00/ml-engineering training/fault-tolerance) [V1 inputs, D]"),
    StorageTier(name="object-store", write_bandwidth=1000 * 87.5 * MB_per_s,
                read_bandwidth=1000 * 87.5 * MB_per_s,
                source="Amazon S3 guidance: 'one concurrent request for each 85-90 MB/s' [V1]; "
                       "1,000 concurrent requests assumed -> 87.5 GB/s"),
)
"""Storage tiers: ``STORAGE["tectonic"].write_bandwidth`` in [B/s]."""

_REBUILD = ("A lost site's capacity is rebuilt in 3 weeks, the time cold takes to obtain a cluster; a "
            "smaller standby runs slower only until then.")

_AWS_DR = ("AWS whitepaper 'Disaster Recovery of Workloads on AWS', section 'Disaster recovery "
           "options in the cloud' (backup & restore, pilot light, warm standby, multi-site) and "
           "Resilience Hub's HOT_STANDBY [V2/V1]; the mapping to GPU training is drmath's assumption")

DR_TIERS = _registry(
    DRTier(name="cold", label="Cold (backup & restore)", readiness=SITE_REBUILD_TIME, standby_fraction=1.0,
           reserved_share=0.0, lands_on_standby=False, automatic=False,
           assumptions="Checkpoints in remote object storage, no reserved compute: readiness is the "
                       "weeks it takes to obtain and burn in thousands of GPUs (SITE_REBUILD_TIME, 3 weeks "
                       "assumed). The checkpoint must be staged from the object store onto new storage.",
           source=_AWS_DR, rebuild_time=SITE_REBUILD_TIME),
    DRTier(name="pilot-light", label="Pilot light", readiness=3 * day, standby_fraction=1.0,
           reserved_share=0.05, lands_on_standby=True, automatic=False,
           assumptions="A 5% slice of the standby is kept alive with its storage and the replicated "
                       "checkpoints; the rest is obtained within days (3 days assumed). " + _REBUILD,
           source=_AWS_DR, rebuild_time=SITE_REBUILD_TIME),
    DRTier(name="warm", label="Warm standby", readiness=1 * hour, standby_fraction=1.0,
           reserved_share=0.25, lands_on_standby=True, automatic=False,
           assumptions="A second cluster of the organisation, reserved and running preemptible work. "
                       "Its cost is a reservation premium plus the value of the work preempted "
                       "(25% of its GPU-hour price assumed); draining it takes about an hour. " + _REBUILD,
           source=_AWS_DR, rebuild_time=SITE_REBUILD_TIME),
    DRTier(name="hot", label="Hot standby", readiness=10 * minute, standby_fraction=1.0,
           reserved_share=1.0, lands_on_standby=True, automatic=False,
           assumptions="A second cluster idle, images pulled, storage synced: paid at full price, "
                       "ready in minutes (10 min assumed). " + _REBUILD,
           source=_AWS_DR, rebuild_time=SITE_REBUILD_TIME),
    DRTier(name="multi-site", label="Multi-site (active-active)", readiness=0.0, standby_fraction=0.5,
           reserved_share=0.02, lands_on_standby=True, automatic=True,
           assumptions="Both sites train together, half the fleet each, data parallel across them (each "
                       "site holds a full replica). Losing either site interrupts the run, so the event "
                       "probability is that of two sites, 1 - exp(-2 lambda T). The survivor continues at "
                       "half speed after an automatic restart until the lost half is rebuilt (3 weeks, the "
                       "time cold takes to obtain a cluster), then at full speed. Every step all-reduces the "
                       "gradients across the sites, N x b_g bytes each way for two sites (ZeRO §7.1: data "
                       "parallelism moves 2 Psi per step [V1]), so the link must carry that within a step; "
                       "it is priced per bandwidth at the 400G Direct Connect port rate, with no per-byte "
                       "charge (a private circuit). Its reserved share is the cross-site efficiency loss: "
                       "the OFC 2025 two-DC trial kept 98.95-99.41% [V2], i.e. ~1% of the fleet, written as "
                       "2% of the surviving half. Each site holds the training state and writes its own "
                       "checkpoints, so a site loss costs the survivor's local RPO; cross-site checkpoint copies "
                       "protect nothing here (a replication link the scenario buys is priced but does not enter the "
                       "site RPO). A survivor larger than its half (failover.standby_fraction above 0.5) is idle "
                       "capacity at both sites, charged at full price.",
           source=_AWS_DR + "; ZeRO arXiv:1910.02054 §7.1 [V1]; OFC 2025 two-DC field trial [V2]",
           sites=2, rebuild_time=SITE_REBUILD_TIME, state_at_each_site=True),
    DRTier(name="fault-tolerant", label="Fault-tolerant replica groups", readiness=SITE_REBUILD_TIME,
           standby_fraction=1.0, reserved_share=0.0, lands_on_standby=False, automatic=False, replica_groups=8,
           assumptions="Recovery without restart (torchft-style): the fleet trains as 8 data-parallel replica "
                       "groups (assumed), each holding a full replica of the training state sharded over its G/8 "
                       "GPUs. A failed group drops out and the others keep training; the step in flight is "
                       "dropped, and the group rejoins after detection, rescheduling, its launch and fetching the "
                       "state from a healthy peer over its NICs (no checkpoint load, no validation). Goodput is "
                       "committed steps x participating groups. What it costs: memory, not GPUs: each group holds "
                       "the whole state, so the state per GPU is 8x the fully sharded one and must fit in HBM; the "
                       "cross-group all-reduce is data parallelism's own, and the spares a group restarts on are "
                       "those a restart uses. Its checkpoints still go off-site for a site loss, with no standby: "
                       "the site side is cold's. Local recovery and site recovery are separate axes; this row shows "
                       "checkpoint-restart's alternative for the first at cold's price for the second.",
           source="PyTorch blog on torchft, Jun 2025: 300 L40S in 30 groups, a failure every 60 s, 5,145/6,249 "
                  "steps committed x 29.6/30 groups = 81.2% training efficiency; Gloo re-init < 1 s [V1]; "
                  + _AWS_DR, rebuild_time=SITE_REBUILD_TIME),
)
"""DR tiers for training, cheapest first (the checkpoint-restart tiers; fault-tolerant, a local-recovery tier,
last): ``DR_TIERS["warm"].readiness`` in [s]."""

SEARCHED_TIERS = tuple(name for name, tier in DR_TIERS.items() if not tier.replica_groups)
"""The DR tiers :func:`drmath.solve` searches: the checkpoint-restart ones. Fault-tolerant replica groups are left
out (and refused): their goodput, committed steps x participating groups, is a first-order model that no simulation
holds, while every searched tier's goodput is held to :func:`drmath.simulate_run` within 1%, and the solver
recommends only what the simulator checks. They stay in every tier table, priced beside the others."""

BASELINE_TIER = "cold"
"""The tier every other is weighed against: the break-even cost of delay is where a tier's extra cost
pays for the time it saves over cold backup & restore, which reserves no compute."""

PRICES = _registry(
    Price(name="ec2-capacity-block-h100", gpu_hour_price=39.33 / _HGX.gpus,
          source="EC2 Capacity Blocks p5.48xlarge (8 x H100), us-east-1, late 2024: $39.33/h "
                 "= $4.92 per GPU-hour [V2]"),
    Price(name="neocloud-h100", gpu_hour_price=2.0,
          source="Neocloud H100 rental, $1.5-3 per GPU-hour (2026), midpoint [V2]"),
)
"""GPU-hour prices: ``PRICES["ec2-capacity-block-h100"].gpu_hour_price`` in [USD]."""

SITE_EVENT_RATES = _registry(
    SiteEventRate(name="uptime-serious-outage", rate=(1 / 5) / 3 / (365 * day),
                  source="Uptime Institute 2022: one in five organisations had a serious or severe "
                         "outage in the past three years -> ~7% per organisation-year [V2, D]; taken "
                         "as a site-loss rate, an order-of-magnitude upper bound"),
)
"""Site-loss rates: ``SITE_EVENT_RATES["uptime-serious-outage"].rate`` in [1/s]."""

_FSX = ("Amazon FSx for Lustre API, PerUnitStorageThroughput: 'File system throughput capacity is "
        "calculated by multiplying file system storage capacity (TiB) by the PerUnitStorageThroughput "
        "(MB/s/TiB)' [V1]; ")
_GCP = ("Google Cloud Managed Lustre, 'Create a Managed Lustre instance': 'performance tiers ranging from "
        "125 MBps per TiB to 1000 MBps per TiB, as well as a Dynamic tier ... 25 MBps per TiB' [V1]; ")

PROVISIONED_STORAGE = _registry(
    *(ProvisionedStorage(name=f"fsx-lustre-persistent2-{rate}", bandwidth_per_capacity=rate * MB_per_s / TiB,
                         source=_FSX + f"PERSISTENT_2 SSD: 125, 250, 500, 1000 MB/s/TiB; {rate} taken")
      for rate in (125, 250, 500, 1000)),
    *(ProvisionedStorage(name=f"fsx-lustre-persistent1-{rate}", bandwidth_per_capacity=rate * MB_per_s / TiB,
                         source=_FSX + f"PERSISTENT_1 SSD: 50, 100, 200 MB/s/TiB; {rate} taken")
      for rate in (50, 100, 200)),
    *(ProvisionedStorage(name=f"fsx-lustre-persistent1-hdd-{rate}", bandwidth_per_capacity=rate * MB_per_s / TiB,
                         source=_FSX + f"PERSISTENT_1 HDD: 12, 40 MB/s/TiB; {rate} taken")
      for rate in (12, 40)),
    *(ProvisionedStorage(name=f"gcp-managed-lustre-{rate}", bandwidth_per_capacity=rate * MB_per_s / TiB,
                         source=_GCP + f"{rate} MBps per TiB tier")
      for rate in (125, 250, 500, 1000)),
    ProvisionedStorage(name="gcp-managed-lustre-dynamic", bandwidth_per_capacity=25 * MB_per_s / TiB,
                       source=_GCP + "Dynamic tier, 25 MBps per TiB aggregate"),
)
"""Parallel filesystems sold by capacity: throughput = capacity x the tier's rate per TiB
(:func:`drmath.checkpoint.provisioned_bandwidth`). MB is taken as decimal, as printed. WEKA and VAST
publish no per-TiB rate in a stored source (domain ref §6), so they have no entry here.
``PROVISIONED_STORAGE["fsx-lustre-persistent2-1000"].bandwidth_per_capacity`` in [1/s]."""

GLOBAL_BATCHES = _registry(
    GlobalBatch(name="llama3-405b", tokens=8_192 * 32 * 64,
                source="Llama 3 (arXiv:2407.21783) Table 4: sequence 8,192 x batch size per DP 32 x DP 64 = "
                       "16,777,216 tokens, printed '16M'; §3.4.1: 16M tokens per batch after 2.87T tokens "
                       "[V1 inputs, D]"),
)
"""Global batches (tokens per optimizer step, one gradient exchange each):
``GLOBAL_BATCHES["llama3-405b"].tokens``."""

BYTES_PER_GRADIENT = _registry(
    BytesPerParam(name="bf16-gradients", value=2.0,
                  source="ZeRO arXiv:1910.02054 §3.1: fp16 gradients take 2Psi bytes; bf16 has the same "
                         "width [V1, stored transcription of the paper]"),
    BytesPerParam(name="fp32-gradients", value=4.0,
                  source="Llama 3 (arXiv:2407.21783) §3.3.2, as summarised in the domain ref §1: gradient "
                         "accumulation and reduce-scatter run in FP32 [V1]"),
)
"""Bytes each gradient element takes on the wire during the data-parallel exchange:
``BYTES_PER_GRADIENT["bf16-gradients"].value == 2``."""

REGISTRIES = {
    "accelerators": ACCELERATORS, "nodes": NODES, "models": MODELS, "bytes_per_param": BYTES_PER_PARAM,
    "failure_rates": FAILURE_RATES, "links": LINKS, "storage": STORAGE, "dr_tiers": DR_TIERS,
    "prices": PRICES, "site_event_rates": SITE_EVENT_RATES, "provisioned_storage": PROVISIONED_STORAGE,
    "global_batches": GLOBAL_BATCHES, "bytes_per_gradient": BYTES_PER_GRADIENT,
}
"""Every registry, by name; a test checks that every preset in them has a source."""


def get(registry, name):
    """Look a preset up by name, with a helpful error.

    Parameters
    ----------
    registry : dict
        One of the registries above, e.g. :data:`DR_TIERS`. [1]
    name : str
        The preset's name. [1]

    Returns
    -------
    preset : object
        The preset dataclass. [1]

    Raises
    ------
    ValueError
        If ``name`` is not in ``registry``; the message lists the valid names.

    Examples
    --------
    >>> get(DR_TIERS, "warm").readiness / hour
    1.0
    """
    try:
        return registry[name]
    except (KeyError, TypeError):
        raise ValueError(f"{name!r} is not a known preset; choose one of {sorted(registry)}") from None

