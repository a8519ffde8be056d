"""Write the workbook notebooks 00-05 from the text below, without outputs.

    .venv/bin/python notebooks/_build.py

The .ipynb files are generated: edit this script, not the notebooks. Every cell
is written with no outputs and ``execution_count`` null, so the committed files
never hold outputs. Every number a notebook shows is computed by drmath when it
runs (``plan()``, ``Plan.explain()``, ``sweep()``); the prose holds none.
"""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).parent

IMPORTS = """\
from drmath import Scenario, plan, sweep, units, presets
from drmath import diagrams
import numpy as np
import ipywidgets as widgets
import plotly.graph_objects as go
import plotly.io as pio
from IPython.display import Markdown, display

# Static figures travel as JSON (no 4.8 MB plotly.js per figure). Setting this also loads plotly's
# renderer stack here, once, rather than inside the first widget callback.
pio.renderers.default = "plotly_mimetype"
"""

EXPLAIN = """\
def explain(p, *names):
    \"\"\"Render the worked derivation of each plan field (formula, inputs, result).\"\"\"
    for name in names:
        display(Markdown(p.explain(name)))"""


def md(text):
    return new_markdown_cell(text.strip("\n"))


def code(text):
    return new_code_cell(text.strip("\n"))


def write(name, cells):
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    })
    for cell in nb.cells:
        cell.pop("id", None)  # ids are random; keep the files stable between builds
    nb.nbformat, nb.nbformat_minor = 4, 4
    nbformat.validate(nb)
    (HERE / name).write_text(nbformat.writes(nb) + "\n")
    print("wrote", name)


# ============================================================================ 00


WORKED = [
    md(r"""
# Design disaster recovery for a three-month training run on 8,000 GPUs

This is the worked answer, top to bottom, for drmath's default scenario. Every number on this page is
computed by `drmath.plan()` and printed with its derivation: the formula, the inputs substituted with
their units, and the result. Nothing is typed by hand, so the text and the numbers cannot disagree.

**What you'll learn**
1. How long the run takes, what it costs in GPU-hours, and how much that moves when MFU falls from 40% to 30%.
2. How big a checkpoint is, and which storage tier takes which job: host memory, the parallel filesystem, the object store.
3. How often the cluster fails, how often to checkpoint, and the share of wall-clock time that makes progress (ETTR).
4. How checkpoints reach the other site, and the recovery point (RPO) that follows, including when replication does not keep up.
5. Which failover tier to buy, and the recovery time (RTO) it gives, phase by phase.
6. What it costs, and the cost of delay at which each tier pays for itself.
7. The drills that make these numbers true.

The topic notebooks `01_time_to_train.ipynb` to `05_cost.ipynb` take one step each and let you drag the inputs.

---
"""),
    code(IMPORTS + "\n\n" + EXPLAIN),
    md(r"""
## The scenario

A dense 405B-parameter model (Llama 3 405B's size) trained for a fixed window on H100s, with a warm
standby at a second site. The window drives the run: the tokens that fit in it are derived. Each input
states its basis in `drmath.scenario.FIELDS`.
"""),
    code(r"""
s = Scenario()
p = plan(s)
tier = presets.DR_TIERS[s.failover.tier]
display(Markdown(
    f"| input | value |\n|---|---|\n"
    f"| GPUs | {s.training.gpus:,} × {units.format_quantity(s.training.peak_flop_rate, 'flop_rate')} dense BF16 |\n"
    f"| model | {units.format_quantity(s.training.params, 'count')} parameters |\n"
    f"| window | {units.format_quantity(s.training.window, 'duration')} |\n"
    f"| MFU | {units.format_quantity(s.training.mfu, 'fraction')} |\n"
    f"| cross-site link | {units.format_quantity(s.replication.link_bandwidth, 'bandwidth')} |\n"
    f"| failover tier | {tier.label} |"))
"""),
    md(r"""
## 1. Time to train and GPU-hours

Training compute is $C = k\,N\,D$ with $k = 6$ FLOP per parameter per token (forward and backward;
8 with full activation recomputation), after Kaplan et al. 2020 (arXiv:2001.08361) and Narayanan et al.
2021 (arXiv:2104.04473, eq. 4). The cluster delivers $G\,P\,\mathrm{MFU}$ FLOP/s while it runs, and it
makes progress only a share ETTR of the wall-clock time (section 3):

$$T = \frac{k\,N\,D}{G\,P\,\mathrm{MFU}\,\mathrm{ETTR}}$$

Llama 3 reports 38–43% BF16 MFU on 8–16k H100s (arXiv:2407.21783, Table 4), so 40% is the default.
Here the window is fixed, so the derivation runs the other way: how many tokens fit.
"""),
    code(r"""
explain(p, "time_to_train", "tokens", "training_flops", "gpu_hours")
"""),
    md(r"""
**If MFU falls from 40% to 30%.** MFU is the least certain input, and it enters linearly. Hold the
tokens above fixed and lower MFU: the same run takes longer and burns more GPU-hours. Hold the window
fixed instead and the model sees fewer tokens.
"""),
    code(r"""
fixed_tokens = plan(s.with_changes({"training.tokens": p.tokens, "training.mfu": 0.30}))
fixed_window = plan(s.with_changes({"training.mfu": 0.30}))
explain(fixed_tokens, "time_to_train", "gpu_hours")
explain(fixed_window, "tokens")
"""),
    md(r"""
## 2. Checkpoints, and which storage tier takes which job

A checkpoint holds what training needs to resume bit-for-bit: bf16 weights plus the fp32 master
weights and Adam's two moments, $b = 2 + 4 + 4 + 4 = 14$ bytes per parameter. Gradients are not saved.
This follows ZeRO's accounting (arXiv:1910.02054, §3.1), which counts 16 B/param for the full training
state in memory. Each GPU writes its shard in parallel.
"""),
    code(r"""
explain(p, "checkpoint_size", "shard_size")
"""),
    md(r"""
Each tier has one job:

| tier | its job | why this tier |
|---|---|---|
| **host memory** | absorb the checkpoint so training can continue | the GPU is blocked only while its shard is copied out (asynchronous checkpointing, CheckFreq FAST'21; PyTorch DCP async) |
| **parallel filesystem** | make it **durable** and serve local restarts | terabytes per second of aggregate bandwidth: it is the only tier fast enough for a checkpoint every few minutes and a load in seconds |
| **site object store** | the durable, cheap copy that replication reads from | sized per byte rather than per bandwidth, and it keeps the filesystem's bandwidth for training |
| **remote site** | survive the loss of the building | the only copy that is **off-site** |

A checkpoint is **not durable until its persist to the filesystem finishes**, and **not off-site until
its replication finishes**. Until then a failure of the node or the site loses it. The stall, the
persist and the load:
"""),
    code(r"""
explain(p, "checkpoint_stall", "checkpoint_write_time", "checkpoint_load_time", "checkpoint_bandwidth_share")
"""),
    md(r"""
The filesystem is shared with data loading, so the share of its write bandwidth the cadence consumes
($S/\tau$ against capacity) must stay small. The whole path of one checkpoint, with each hop's
bandwidth and time (section 4 explains the last two hops, section 5 the restore):
"""),
    code(r"""
diagrams.data_path_figure(p).show()
"""),
    md(r"""
## 3. Failure rate, checkpoint cadence and ETTR

Interruptions at this scale are a Poisson process with rate $G\lambda$. Llama 3 saw 419 unexpected
interruptions in 54 days on 16,384 H100s (arXiv:2407.21783, §3.3.4); per GPU that is the default
$\lambda$. The cluster's mean time between failures is $M = 1/(G\lambda)$.
"""),
    code(r"""
explain(p, "mtbf", "expected_interruptions")
"""),
    md(r"""
The checkpoint interval trades the stall paid every interval against the work lost at each failure.
Young's first-order optimum is $\tau = \sqrt{2\delta M}$ (Young 1974, *CACM* 17(9)); Daly's higher-order
form (Daly 2006, *FGCS* 22(3), eq. 37) is used. With asynchronous checkpoints the stall is so small that
the optimum could fall below the persist time, so the interval has a floor: a checkpoint cannot start
before the previous one is durable.
"""),
    code(r"""
explain(p, "young_interval", "daly_interval", "checkpoint_interval", "restart_overhead", "ettr")
"""),
    md(r"""
The restart overhead $u_0$ is the local RTO of section 5. ETTR follows Kokolis et al. 2024
(arXiv:2410.21680): the expected share of wall-clock time spent making progress.

## 4. Replication and RPO

Shipping every checkpoint off-site is neither possible nor needed. drmath ships every $k$-th one,
$k = \lceil \text{target interval} / \tau \rceil$. Each copy is uploaded to the site object store and then
sent over the cross-site link, each hop taking $t = \ell + \frac{S/c}{B\,\eta}$. Store-and-forward adds
the hops; streaming takes the slower one. Replication **keeps up** only if one copy finishes before the
next is due: $t_{rep} \le k\tau$.
"""),
    code(r"""
explain(p, "replication_every", "object_store_time", "link_time", "replication_time", "replication_utilization")
"""),
    md(r"""
The recovery point follows from the failure's scope. For a **local** failure (a GPU, node or rack) the
site's storage survives, so at most one interval plus the persist is lost. When the **site** is lost,
the newest copy that survives is the last one that reached the other site.
"""),
    code(r"""
explain(p, "rpo_local", "rpo_local_expected", "rpo_site", "rpo_site_expected", "replication_bandwidth_needed")
"""),
    md(r"""
**When replication does not keep up.** Sweep the link down. Below the bandwidth needed, each copy takes
longer than the interval, the backlog grows for the whole run, and the site RPO has no bound. drmath
says so instead of printing a finite number; the curve stops at that point (the dashed line).
"""),
    code(r"""
links = np.geomspace(1, 400, 200) * units.Gbit_per_s
rpo = sweep(s, "replication.link_bandwidth", links, ["rpo_site"])["rpo_site"]
fig = go.Figure(go.Scatter(x=links / units.Gbit_per_s, y=np.where(np.isfinite(rpo), rpo / units.hour, None), name="site RPO"))
fig.add_vline(x=p.replication_bandwidth_needed / units.Gbit_per_s, line_dash="dash", annotation_text="needed to keep up")
fig.update_layout(xaxis=dict(type="log", title="cross-site link [Gbit/s]"), yaxis_title="site RPO, worst case [h]", height=360).show()
explain(plan(s.with_changes({"replication.link_bandwidth": "dx-10g"})), "rpo_site")
"""),
    md(r"""
## 5. Failover tier and RTO

The recovery time is a sum of named phases, after the AWS DR whitepaper ("Disaster Recovery of Workloads
on AWS"): detection, failing over resources, restoring data, warming up.

- **Local failure**: detection → reschedule onto spares → launch (scheduler, containers, collective
  init at scale) → checkpoint load → validation (the first steps reproduce the loss).
- **Site loss**: detection → decision to fail over → standby readiness (set by the tier) → staging the
  checkpoint onto the standby's storage (zero when replication already lands there) → launch → load →
  validation.
"""),
    code(r"""
explain(p, "rto_local", "rto_site")
diagrams.recovery_timeline_figure(p).show()
"""),
    md(r"""
The tiers map AWS's backup & restore, pilot light, warm standby and multi-site onto a GPU fleet. The
readiness phase is what you buy: weeks to obtain thousands of GPUs from nothing, days from a pilot
slice, an hour to drain a reserved cluster running preemptible work, minutes for an idle one. A
multi-site run loses no time to readiness but continues at the surviving share of the fleet, so it pays
in schedule slip instead.
"""),
    code(r"""
def tier_row(name):
    t = plan(s.with_changes({"failover.tier": name}))
    return f"| {presets.DR_TIERS[name].label} | {t.format('rto_site')} | {t.format('standby_gpus')} | {t.format('schedule_slip')} | {t.format('standby_cost')} |"
display(Markdown("| tier | site RTO | standby GPUs | expected slip | standby cost |\n|---|---|---|---|---|\n" + "\n".join(tier_row(n) for n in presets.DR_TIERS)))
"""),
    md(r"""
## 6. Cost

The run itself is the GPU-hours times the price. Disaster recovery adds the standby's reservation, the
replication (egress, remote storage, the link port), and the expected loss from a site event:

$$E[C_{loss}] = P(\text{site event during the run})\,(\mathrm{RPO}_{site} + \mathrm{RTO}_{site} + \Delta T)\,(F + D)$$

where $F$ is the fleet's cost rate and $D$ the **cost of delay**: what a late model is worth to the
business per day. Without $D$, a rare site loss never pays for any standby.
"""),
    code(r"""
explain(p, "run_cost", "standby_cost", "replication_cost", "site_event_probability", "expected_disaster_loss", "total_dr_cost")
"""),
    md(r"""
Each tier trades a standing cost against the time a disaster costs. The break-even cost of delay is the
$D$ above which a tier is cheaper in expectation than cold backup & restore.
"""),
    code(r"""
explain(p, "tier_total_costs", "break_even_delay_costs")
"""),
    md(r"""
## 7. The drills that make the numbers true

Every RTO above is a sum of planned phase durations: a sum of best cases. A promise needs the
distribution of that sum, and each phase's distribution has to be **measured**. Four drills each
measure named phases:

| drill | what it proves | phases it measures |
|---|---|---|
| **checkpoint-restore drill** | a checkpoint loads, and the first steps reproduce the loss | launch, load, validation |
| **replication-verification drill** | the off-site copy is complete and readable, within the RPO | replication time (RPO), staging |
| **failover game day** | the standby really becomes ready, and people know the runbook | decision, readiness, launch |
| **detection/alerting drill** | the page fires and someone confirms the event | detection |

The RTO you can promise is a high percentile (say the 95th) of the sum of the measured phase
distributions, computed by Monte Carlo convolution, and it expires when its drills go stale. Notebook
`06_drills_and_simulation.ipynb` does that convolution from drill records and cross-checks this page's
closed forms against a simulation of the whole run. The phases a drill must measure, and what this
plan assumes for them:
"""),
    code(r"""
display(Markdown("| phase | planned, local | planned, site |\n|---|---|---|\n" + "\n".join(
    f"| {name} | {units.format_quantity(p.rto_local_phases[name], 'duration') if name in p.rto_local_phases else '—'} "
    f"| {units.format_quantity(p.rto_site_phases[name], 'duration') if name in p.rto_site_phases else '—'} |"
    for name in dict.fromkeys([*p.rto_local_phases, *p.rto_site_phases]))))
"""),
    md(r"""
## The answer on one page
"""),
    code(r"""
display(Markdown(
    f"**Takeaway.** The {s.training.gpus:,}-GPU run lasts {p.format('time_to_train')} and uses "
    f"{p.format('gpu_hours')} ({p.format('run_cost')}); at 30% MFU the same tokens take "
    f"{fixed_tokens.format('time_to_train')}. A {p.format('checkpoint_size')} checkpoint every "
    f"{p.format('checkpoint_interval')} stalls training {p.format('checkpoint_stall')} and is durable after "
    f"{p.format('checkpoint_write_time')}; the cluster fails every {p.format('mtbf')} and the run keeps "
    f"ETTR = {p.format('ettr')}. One checkpoint in {int(p.replication_every)} reaches the other site after {p.format('replication_time')} "
    f"(link {p.format('replication_utilization')} busy; it stops keeping up below "
    f"{p.format('replication_bandwidth_needed')}), so a site loss costs at most {p.format('rpo_site')} of "
    f"work and a node failure at most {p.format('rpo_local')}. The {tier.label.lower()} resumes training "
    f"{p.format('rto_site')} after a site loss ({p.format('rto_local')} after a node failure), for "
    f"{p.format('standby_cost')}; it pays for itself in expectation once a day of delay costs more than "
    f"{units.format_quantity(p.break_even_delay_costs[s.failover.tier], 'usd_rate')}. Those RTOs become "
    f"promises only when drills measure them."))
"""),
]


# ============================================================================ 01


TIME_TO_TRAIN = [
    md(r"""
# Estimate how long the run takes and how many GPU-hours it burns

**What you'll learn**
- The compute of a dense transformer run, $C = 6ND$, and the time it takes on $G$ GPUs.
- Why wall-clock time is longer than compute time (ETTR), and what the run costs in GPU-hours.
- How much the answer moves when MFU falls from 40% to 30%, the least certain input.

**What you'll need**: nothing but the sliders below. The worked answer is `00_worked_answer.ipynb`.

---

## The formula

$$C = k\,N\,D, \qquad T = \frac{C}{G\,P\,\mathrm{MFU}\,\mathrm{ETTR}}, \qquad H = G\,T$$

- $k = 6$ FLOP per parameter per token for a forward and backward pass (Kaplan et al. 2020,
  arXiv:2001.08361, §2.1); 8 with full activation recomputation (Narayanan et al. 2021, arXiv:2104.04473,
  eq. 4).
- $N$ parameters, $D$ tokens, $G$ GPUs of peak $P$ FLOP/s (dense BF16), run at a model FLOPs
  utilisation MFU. Llama 3 reports 38–43% on 8–16k H100s (arXiv:2407.21783, Table 4).
- ETTR, the share of wall-clock time spent making progress, accounts for checkpoints and restarts
  (Kokolis et al. 2024, arXiv:2410.21680; notebook `02`).
- $H$ is the GPU-hours, which set the bill.

A fixed window (three months) turns the question round: how many tokens fit. Here the tokens are fixed
at what the default run fits in its window, so that MFU moves the time, not the tokens.
"""),
    code(IMPORTS + "\n\n" + EXPLAIN),
    md(r"""
## Work the default run
"""),
    code(r"""
base = plan()
fixed = Scenario().with_changes({"training.tokens": base.tokens})
explain(plan(fixed), "training_flops", "time_to_train", "gpu_hours", "run_cost")
"""),
    md(r"""
## Drag the cluster and the MFU

The curve is the time to train the same tokens for every MFU from 20% to 60%; the dot is your choice.
"""),
    code(r"""
mfus = np.linspace(0.2, 0.6, 81)
gpus = widgets.IntSlider(value=fixed.training.gpus, min=1024, max=32768, step=512, description="GPUs", continuous_update=False)
mfu = widgets.FloatSlider(value=fixed.training.mfu, min=0.2, max=0.6, step=0.01, description="MFU", readout_format=".0%", continuous_update=False)

out = widgets.Output()

def show(change=None):
    q = plan(fixed.with_changes({"training.gpus": gpus.value, "training.mfu": mfu.value}))
    with out:
        out.clear_output()
        curve = sweep(q.scenario, "training.mfu", mfus, ["time_to_train"])["time_to_train"] / units.day
        go.Figure([go.Scatter(x=mfus, y=curve, name="time to train"), go.Scatter(x=[mfu.value], y=[q.time_to_train / units.day], mode="markers", marker_size=12, name="this cluster")],
                  layout=dict(xaxis=dict(title="MFU", tickformat=".0%"), yaxis_title="time to train [days]", height=340, margin=dict(t=30))).show()
        explain(q, "time_to_train", "gpu_hours")

for control in (gpus, mfu):
    control.observe(show, "value")
show()
display(widgets.HBox([gpus, mfu]), out)
"""),
    md(r"""
## Takeaway
"""),
    code(r"""
at30 = plan(fixed.with_changes({"training.mfu": 0.30}))
display(Markdown(
    f"**Takeaway.** {base.tokens / units.tera:.2f} trillion tokens on {fixed.training.gpus:,} GPUs take "
    f"{plan(fixed).format('time_to_train')} ({plan(fixed).format('gpu_hours')}) at "
    f"{units.format_quantity(fixed.training.mfu, 'fraction')} MFU, and {at30.format('time_to_train')} "
    f"({at30.format('gpu_hours')}, {at30.format('run_cost')}) at 30%. MFU enters the time linearly, so budget "
    f"the schedule at the MFU you have measured at scale, not the one you hope for."))
"""),
]


# ============================================================================ 02


CHECKPOINTS = [
    md(r"""
# Size a checkpoint and choose the storage tier for each job

**What you'll learn**
- How big a full training checkpoint is, byte by byte.
- What training pays for it: the stall (asynchronous against synchronous), the persist, the load.
- Why the parallel filesystem and the object store take different jobs, and how much filesystem
  bandwidth the cadence consumes.
- When a checkpoint counts: it is **not durable until persisted** and **not off-site until replicated**.

---

## The formulas

$$S = N\,b, \qquad s = S / G, \qquad W = \frac{S}{\min(B_{fs},\; G\,b_w)}, \qquad
\delta = \begin{cases} s / b_h & \text{async} \\ W & \text{sync} \end{cases}, \qquad L = \frac{S}{B_{read}}$$

- $b = 14$ bytes per parameter: bf16 weights (2) plus fp32 master weights, Adam $m$ and $v$ (4 + 4 + 4).
  Gradients are not saved. ZeRO (arXiv:1910.02054, §3.1) counts 16 for the state in memory; 2 is a
  weights-only export.
- Each of the $G$ GPUs writes its shard $s$; the aggregate write is capped by the filesystem's
  bandwidth $B_{fs}$ (Llama 3's Tectonic sustains 2 TB/s, arXiv:2407.21783 §3.3.1) and by each writer's
  share of its node's NIC $b_w$.
- Asynchronous checkpointing (CheckFreq, FAST'21; PyTorch DCP async) blocks training only for the copy
  to host memory at $b_h$ per GPU; the persist runs behind it. The next checkpoint cannot start before
  the previous one is durable, which floors the interval at $W$.
- The cadence uses $S/\tau$ of the filesystem's bandwidth, which it shares with data loading.
"""),
    code(IMPORTS + "\n\n" + EXPLAIN),
    md(r"""
## Work the default checkpoint
"""),
    code(r"""
s = Scenario()
p = plan(s)
explain(p, "checkpoint_size", "shard_size", "checkpoint_stall", "checkpoint_write_time", "checkpoint_load_time", "checkpoint_bandwidth_share")
"""),
    md(r"""
## What each byte layout costs

The same 405B model under each preset layout in `drmath.presets.BYTES_PER_PARAM`:
"""),
    code(r"""
def layout_row(name):
    q = plan(s.with_changes({"checkpoint.bytes_per_param": name}))
    return f"| `{name}` | {q.scenario.checkpoint.bytes_per_param:g} | {q.format('checkpoint_size')} | {q.format('checkpoint_write_time')} | {q.format('object_store_time')} | {q.format('link_time')} |"
display(Markdown("| layout | B/param | size | persist | upload to object store | cross-site link |\n|---|---|---|---|---|---|\n" + "\n".join(layout_row(n) for n in presets.BYTES_PER_PARAM)))
"""),
    md(r"""
## Which tier takes which job

| tier | job | what limits it |
|---|---|---|
| host memory | take the checkpoint off the GPU so training continues | the per-GPU copy rate; sets the stall |
| parallel filesystem | make it durable; serve every local restart | aggregate bandwidth, shared with data loading |
| site object store | keep the durable copies replication reads from | request concurrency; cheap per byte |
| remote site | survive the loss of the building | the cross-site link (notebook `03`) |

The filesystem takes the hot path because only it writes and reads terabytes in seconds; the object
store takes the cold path because it is priced per byte, not per bandwidth, and replicates across
sites. Drag the layout, the mode and the filesystem below and watch the data path.
"""),
    code(r"""
layout = widgets.Dropdown(options=list(presets.BYTES_PER_PARAM), value="mixed-precision-adam-checkpoint", description="layout")
mode = widgets.ToggleButtons(options=["async", "sync"], value=s.checkpoint.mode, description="mode")
fs = widgets.Dropdown(options=["tectonic", "jeanzay-gpfs"], value="tectonic", description="filesystem")

out = widgets.Output()

def show(change=None):
    q = plan(s.with_changes({"checkpoint.bytes_per_param": layout.value, "checkpoint.mode": mode.value, "checkpoint.write_bandwidth": fs.value, "checkpoint.read_bandwidth": fs.value}))
    with out:
        out.clear_output()
        diagrams.data_path_figure(q).show()
        explain(q, "checkpoint_stall", "checkpoint_write_time", "checkpoint_interval", "checkpoint_bandwidth_share")

for control in (layout, mode, fs):
    control.observe(show, "value")
show()
display(widgets.VBox([layout, mode, fs]), out)
"""),
    md(r"""
## Takeaway
"""),
    code(r"""
sync = plan(s.with_changes({"checkpoint.mode": "sync"}))
gpfs = plan(s.with_changes({"checkpoint.write_bandwidth": "jeanzay-gpfs"}))
display(Markdown(
    f"**Takeaway.** A {p.format('checkpoint_size')} checkpoint stalls training {p.format('checkpoint_stall')} "
    f"when asynchronous and {sync.format('checkpoint_stall')} when synchronous, but either way it is not "
    f"durable until the {p.format('checkpoint_write_time')} persist ends, and not off-site until replication "
    f"ends {p.format('replication_time')} later. Every {p.format('checkpoint_interval')} it uses "
    f"{p.format('checkpoint_bandwidth_share')} of a {units.format_quantity(s.checkpoint.write_bandwidth, 'bandwidth')} filesystem; on a "
    f"{units.format_quantity(gpfs.scenario.checkpoint.write_bandwidth, 'bandwidth')} filesystem the persist takes "
    f"{gpfs.format('checkpoint_write_time')} and the share is {gpfs.format('checkpoint_bandwidth_share')}."))
"""),
]


# ============================================================================ 03


REPLICATION = [
    md(r"""
# Ship checkpoints off-site fast enough to bound the RPO

**What you'll learn**
- How long one checkpoint takes to reach the other site, hop by hop.
- Which checkpoints to ship, and whether replication keeps up with the cadence.
- The recovery point (RPO) for a local failure and for the loss of the site, worst case and expected.
- The link bandwidth below which the site RPO has no bound.

---

## The formulas

Each hop (filesystem → object store, object store → remote site) takes

$$t = \ell + \frac{S / c}{B\,\eta}$$

with latency $\ell$, compression ratio $c$, line rate $B$ and efficiency $\eta$. A chain of hops is
store-and-forward ($t_{rep} = \sum t_i$) or streamed ($t_{rep} = \max t_i$). Every $k$-th checkpoint is
shipped, $k = \lceil \text{target} / \tau \rceil$, and replication **keeps up** only if
$t_{rep} \le k\tau$; otherwise the backlog grows for the whole run.

$$\mathrm{RPO}_{local} = \tau + W, \qquad \mathrm{RPO}_{site} = k\tau + W + t_{rep}\ \text{if}\ t_{rep} \le k\tau,\ \text{else unbounded}$$

The worst case is the DR convention (the AWS DR whitepaper defines RPO as the maximum acceptable data
loss); the expected loss replaces the interval by half of it. A checkpoint counts for a site loss only
once it is off-site.
"""),
    code(IMPORTS + "\n\n" + EXPLAIN),
    md(r"""
## Work the default replication
"""),
    code(r"""
s = Scenario()
p = plan(s)
explain(p, "replication_every", "object_store_time", "link_time", "replication_time", "replication_utilization", "rpo_local", "rpo_site", "rpo_site_expected")
"""),
    md(r"""
## Sweep the link down until replication stops keeping up

The curve is the worst-case site RPO as the cross-site link shrinks; it ends where replication no
longer keeps up (dashed line), because there the RPO has no bound. Drag the target interval and try
streaming the two hops.
"""),
    code(r"""
links = np.geomspace(1, 400, 200) * units.Gbit_per_s
target = widgets.FloatSlider(value=s.replication.interval / units.hour, min=0.25, max=6, step=0.25, description="every [h]", continuous_update=False)
streamed = widgets.Checkbox(value=s.replication.streamed, description="stream the hops")

out = widgets.Output()

def show(change=None):
    q = plan(s.with_changes({"replication.interval": target.value * units.hour, "replication.streamed": streamed.value}))
    with out:
        out.clear_output()
        rpo = sweep(q.scenario, "replication.link_bandwidth", links, ["rpo_site"])["rpo_site"]
        fig = go.Figure(go.Scatter(x=links / units.Gbit_per_s, y=np.where(np.isfinite(rpo), rpo / units.hour, None)), layout=dict(xaxis=dict(type="log", title="cross-site link [Gbit/s]"), yaxis_title="site RPO, worst case [h]", height=340, margin=dict(t=30)))
        fig.add_vline(x=q.replication_bandwidth_needed / units.Gbit_per_s, line_dash="dash", annotation_text=f"keeps up above {q.format('replication_bandwidth_needed')}").show()
        explain(q, "rpo_site")

for control in (target, streamed):
    control.observe(show, "value")
show()
display(widgets.HBox([target, streamed]), out)
"""),
    md(r"""
## See the data path on a smaller link

The same checkpoint over a 10 Gbit/s port (AWS Direct Connect `dx-10g`):
"""),
    code(r"""
small = plan(s.with_changes({"replication.link_bandwidth": "dx-10g"}))
diagrams.data_path_figure(small).show()
explain(small, "rpo_site")
"""),
    md(r"""
## Takeaway
"""),
    code(r"""
verdict = "keeps up" if small.replication_keeps_up else "does not keep up, and the site RPO has no bound"
display(Markdown(
    f"**Takeaway.** Shipping one checkpoint in {int(p.replication_every)} "
    f"over {units.format_quantity(s.replication.link_bandwidth, 'bandwidth')} takes {p.format('replication_time')} "
    f"per copy, {p.format('replication_utilization')} of the link's time, so the site RPO is {p.format('rpo_site')} "
    f"at worst against {p.format('rpo_local')} for a local failure. Replication needs at least "
    f"{p.format('replication_bandwidth_needed')}; on a 10 Gbit/s port it {verdict}."))
"""),
]


# ============================================================================ 04


FAILOVER = [
    md(r"""
# Choose a failover tier from its RTO, and size the standby

**What you'll learn**
- The recovery time (RTO) as a sum of named phases, for a local failure and for a site loss.
- What each DR tier buys: cold, pilot light, warm standby, hot standby, multi-site.
- Active-passive against active-active: a second cluster waiting, or both sites training.
- How much headroom a standby needs: a smaller standby is cheaper but the run then slips.

---

## The formulas

$$\mathrm{RTO}_{local} = t_{det} + t_{resched} + t_{launch} + L + t_{val}$$

$$\mathrm{RTO}_{site} = t_{det} + t_{dec} + t_{ready} + t_{stage} + t_{launch} + L + t_{val}$$

The phases follow the AWS DR whitepaper ("Disaster Recovery of Workloads on AWS": detect, fail over
resources, restore data, warm up). Readiness $t_{ready}$ is what the tier buys; staging is zero when
replication already lands on the standby's own storage; the decision is skipped by an automatic tier.
The local RTO is the restart overhead $u_0$ of Kokolis et al. 2024 (arXiv:2410.21680), 5–20 min in
practice.

A standby with $G_s < G$ GPUs finishes the run at $G_s/G$ of the speed. For a site event at a uniform
time in the run, half the run remains on average:

$$\Delta T = \frac{T}{2}\left(\frac{G}{G_s} - 1\right)$$

(time scales as $1/G$, Narayanan et al. 2021, arXiv:2104.04473, eq. 4).
"""),
    code(IMPORTS + "\n\n" + EXPLAIN),
    md(r"""
## Work the default: a warm standby
"""),
    code(r"""
s = Scenario()
p = plan(s)
explain(p, "rto_local", "rto_site")
diagrams.recovery_timeline_figure(p).show()
"""),
    md(r"""
## Compare the tiers

**Active-passive** tiers (cold to hot) keep a second cluster in some state of readiness and move the
whole run to it. **Active-active** (multi-site) trains on both sites at once: no readiness phase and an
automatic restart, but losing a site leaves the run on the surviving half.
"""),
    code(r"""
def tier_row(name):
    t = plan(s.with_changes({"failover.tier": name}))
    return f"| {presets.DR_TIERS[name].label} | {t.format('rto_site')} | {t.format('standby_gpus')} | {t.format('schedule_slip')} | {t.format('standby_cost')} | {presets.DR_TIERS[name].assumptions} |"
display(Markdown("| tier | site RTO | standby GPUs | expected slip | standby cost | assumes |\n|---|---|---|---|---|---|\n" + "\n".join(tier_row(n) for n in presets.DR_TIERS)))
"""),
    md(r"""
## Drag the tier and the standby's size

The timeline redraws phase by phase. A standby smaller than the primary (its size as a share of the
primary's) makes the site RTO no shorter, but the run finishes later.
"""),
    code(r"""
tier = widgets.Dropdown(options=[(t.label, n) for n, t in presets.DR_TIERS.items()], value=s.failover.tier, description="tier")
size = widgets.FloatSlider(value=1.0, min=0.25, max=1.0, step=0.05, description="standby", readout_format=".0%", continuous_update=False)

out = widgets.Output()

def show(change=None):
    q = plan(s.with_changes({"failover.tier": tier.value, "failover.standby_fraction": size.value}))
    with out:
        out.clear_output()
        diagrams.recovery_timeline_figure(q).show()
        explain(q, "rto_site", "schedule_slip", "standby_cost")

for control in (tier, size):
    control.observe(show, "value")
show()
display(widgets.HBox([tier, size]), out)
"""),
    md(r"""
## How much headroom does the standby need?

The expected slip and the standby's cost against its size, for the warm tier:
"""),
    code(r"""
sizes = np.linspace(0.25, 1.0, 61)
curves = sweep(s, "failover.standby_fraction", sizes, ["schedule_slip", "standby_cost"])
fig = go.Figure([go.Scatter(x=sizes, y=curves["schedule_slip"] / units.day, name="expected slip [days]"),
                 go.Scatter(x=sizes, y=curves["standby_cost"] / units.mega, name="standby cost [$M]", yaxis="y2")])
fig.update_layout(xaxis=dict(title="standby size / primary size", tickformat=".0%"), yaxis_title="expected slip [days]",
                  yaxis2=dict(title="standby cost [$M]", overlaying="y", side="right"), height=360, legend=dict(x=0.4, y=1)).show()
"""),
    md(r"""
## Takeaway
"""),
    code(r"""
cold, hot, multi = (plan(s.with_changes({"failover.tier": n})) for n in ("cold", "hot", "multi-site"))
half = plan(s.with_changes({"failover.standby_fraction": 0.5}))
display(Markdown(
    f"**Takeaway.** A warm standby resumes training {p.format('rto_site')} after the site is lost, against "
    f"{cold.format('rto_site')} for cold backup & restore and {hot.format('rto_site')} for an idle hot standby: "
    f"the readiness is measured in hours, not weeks, for {p.format('standby_cost')} over the run. Active-active "
    f"multi-site resumes in {multi.format('rto_site')} but then runs on {multi.format('standby_gpus')} GPUs and "
    f"slips {multi.format('schedule_slip')} on average; a warm standby at half size costs "
    f"{half.format('standby_cost')} and slips {half.format('schedule_slip')}."))
"""),
]


# ============================================================================ 05


COST = [
    md(r"""
# Price each DR tier against the cost of a late model

**What you'll learn**
- What the run costs, and what each part of disaster recovery adds: the standby, the replication, the
  expected loss from a site event.
- Why the **cost of delay** decides the tier, and the break-even cost of delay per tier.
- Where the total expected cost is lowest, against tier and against link bandwidth.

---

## The formulas

$$C_{run} = H\,p, \qquad C_{standby} = f\,G\,T\,p\,r, \qquad
C_{rep} = V\,p_{egress} + n\,S\,p_{store}\,T + T\,p_{link}$$

$$P = 1 - e^{-\lambda_{site} T}, \qquad
E[C_{loss}] = P\,(\mathrm{RPO}_{site} + \mathrm{RTO}_{site} + \Delta T)\,(F + D)$$

$$C_{DR} = C_{standby} + C_{rep} + E[C_{loss}], \qquad
D^* = \max\!\left(0, \frac{\Delta C}{P\,\Delta L} - F\right)$$

- $p$ is the GPU-hour price (EC2 Capacity Blocks for H100, late 2024), $r$ the share of the standby's
  price the tier pays (a warm standby is another cluster of the organisation running preemptible work:
  a reservation premium plus the value of the work preempted, not a second fleet's full price).
- $V$ is the bytes shipped off-site, $n$ the checkpoints retained remotely, $p_{link}$ the port price.
- $\lambda_{site}$ is the rate of losing the site (Uptime Institute 2022 outage survey, read as an upper
  bound), $F$ the fleet's cost rate and $D$ the **cost of delay**, the business value lost per day the
  model lands late.
- $D^*$ is the cost of delay above which a tier is cheaper in expectation than cold backup & restore:
  $\Delta C$ its extra standing cost, $\Delta L$ the time it saves per site event.
"""),
    code(IMPORTS + "\n\n" + EXPLAIN),
    md(r"""
## Work the default costs
"""),
    code(r"""
s = Scenario()
p = plan(s)
explain(p, "run_cost", "standby_cost", "replication_cost", "site_event_probability", "expected_disaster_loss", "total_dr_cost", "break_even_delay_costs")
"""),
    md(r"""
## Drag the cost of delay

Each bar is a tier's total expected DR cost at that cost of delay. The cheapest tier changes as a late
model becomes more expensive.
"""),
    code(r"""
delay = widgets.FloatLogSlider(value=s.cost.delay_cost * units.day / units.mega, base=10, min=-1, max=3, step=0.05, description="$M / day late", continuous_update=False, style={"description_width": "initial"})

out = widgets.Output()

def show(change=None):
    q = plan(s.with_changes({"cost.delay_cost": delay.value * units.mega / units.day}))
    with out:
        out.clear_output()
        labels = [presets.DR_TIERS[n].label for n in q.tier_total_costs]
        go.Figure(go.Bar(x=labels, y=[v / units.mega for v in q.tier_total_costs.values()], text=[units.format_quantity(v, "usd") for v in q.tier_total_costs.values()]), layout=dict(yaxis=dict(title="total DR cost [$M]", type="log"), height=340, margin=dict(t=30))).show()
        explain(q, "expected_disaster_loss")

for control in (delay,):
    control.observe(show, "value")
show()
display(delay, out)
"""),
    md(r"""
## Total cost against link bandwidth

A bigger link costs more per hour but shortens the site RPO; below the bandwidth needed, replication
stops keeping up and the expected loss has no bound (the curve ends).
"""),
    code(r"""
links = np.geomspace(2, 400, 150) * units.Gbit_per_s
total = sweep(s, "replication.link_bandwidth", links, ["total_dr_cost"])["total_dr_cost"]
go.Figure(go.Scatter(x=links / units.Gbit_per_s, y=np.where(np.isfinite(total), total / units.mega, None)),
          layout=dict(xaxis=dict(type="log", title="cross-site link [Gbit/s]"), yaxis_title=f"total DR cost, {presets.DR_TIERS[s.failover.tier].label.lower()} [$M]", height=340)).show()
"""),
    md(r"""
## Takeaway
"""),
    code(r"""
cheapest = min(p.tier_total_costs, key=p.tier_total_costs.get)
display(Markdown(
    f"**Takeaway.** The run costs {p.format('run_cost')}. At a cost of delay of "
    f"{units.format_quantity(s.cost.delay_cost, 'usd_rate')}, the {presets.DR_TIERS[s.failover.tier].label.lower()} "
    f"adds {p.format('total_dr_cost')} in expectation, and the cheapest tier is "
    f"{presets.DR_TIERS[cheapest].label.lower()} at {units.format_quantity(p.tier_total_costs[cheapest], 'usd')}. "
    f"The warm standby pays for itself only once a day of delay costs more than "
    f"{units.format_quantity(p.break_even_delay_costs['warm'], 'usd_rate')}, because a site loss during the run "
    f"has probability {p.format('site_event_probability')}: buy it to bound the worst case, and say so."))
"""),
]


if __name__ == "__main__":
    write("00_worked_answer.ipynb", WORKED)
    write("01_time_to_train.ipynb", TIME_TO_TRAIN)
    write("02_checkpoints_and_storage.ipynb", CHECKPOINTS)
    write("03_replication_and_rpo.ipynb", REPLICATION)
    write("04_failover_and_rto.ipynb", FAILOVER)
    write("05_cost.ipynb", COST)
