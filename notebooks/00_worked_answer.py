# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Design disaster recovery for a three-month training run on 8,000 GPUs
#
# This is the worked answer, top to bottom, for drmath's default scenario. Every number on this page is
# computed by `drmath.plan()` and printed with its derivation: the formula, the inputs substituted with
# their units, and the result. Nothing is typed by hand, so the text and the numbers cannot disagree.
#
# **What you'll learn**
# 1. How long the run takes, what it costs in GPU-hours, and how much that moves when MFU falls from 40% to
#    30%.
# 2. How big a checkpoint is, and which storage tier takes which job: host memory, the parallel filesystem, the
#    object store.
# 3. How often the cluster fails, how often to checkpoint, and the share of wall-clock time that makes progress
#    (ETTR).
# 4. How checkpoints reach the other site, and the recovery point (RPO) that follows, including when replication
#    does not keep up.
# 5. Which failover tier to buy, and the recovery time (RTO) it gives, phase by phase.
# 6. What it costs, and the cost of delay at which each tier pays for itself.
# 7. The drills that make these numbers true.
#
# The topic notebooks `01_time_to_train.ipynb` to `05_cost.ipynb` take one step each and let you drag the
# inputs.
#
# ---

# %%
from functools import partial

import pandas as pd
import plotly.io as pio
from IPython.display import Markdown, display

from drmath import Scenario, compare, diagrams, plan, presets, units, viz
from drmath.formatting import markdown_text
from drmath.quantities import QUANTITIES, card_title

# Static figures travel as JSON (no 4.8 MB plotly.js per figure). Setting this also loads plotly's
# renderer stack here, once, rather than inside the first widget callback.
pio.renderers.default = "plotly_mimetype"

# %% [markdown]
# ## The scenario
#
# A dense 405B-parameter model (Llama 3 405B's size) trained for a fixed window on H100s, with a warm
# standby at a second site. The window drives the run: the tokens that fit in it are derived. Each input
# states its basis in `drmath.scenario.FIELDS`.

# %%
s = Scenario()
p = plan(s)
tier = presets.DR_TIERS[s.failover.tier]
display(Markdown(markdown_text(
    f"| input | value |\n|---|---|\n"
    f"| GPUs | {s.training.gpus:,} × {units.format_quantity(s.training.peak_flop_rate, 'flop_rate')} "
    f"dense BF16 |\n"
    f"| model | {units.format_quantity(s.training.params, 'params')} parameters |\n"
    f"| window | {units.format_quantity(s.training.window, 'duration')} |\n"
    f"| MFU | {units.format_quantity(s.training.mfu, 'fraction')} |\n"
    f"| cross-site link | {units.format_quantity(s.replication.link_bandwidth, 'line_rate')} |\n"
    f"| failover tier | {tier.label} |")))

# %% [markdown]
# ## 1. Time to train and GPU-hours
#
# Training compute is $C = k\,N\,D$ with $k = 6$ FLOP per parameter per token (forward and backward;
# 8 with full activation recomputation), after Kaplan et al. 2020 (arXiv:2001.08361) and Narayanan et al.
# 2021 (arXiv:2104.04473, eq. 4). The cluster delivers $G\,P\,\mathrm{MFU}$ FLOP/s while it runs, and it
# makes progress only a share ETTR of the wall-clock time (section 3):
#
# $$T = \frac{k\,N\,D}{G\,P\,\mathrm{MFU}\,\mathrm{ETTR}}$$
#
# Llama 3 reports 38–43% BF16 MFU on 8–16k H100s (arXiv:2407.21783, Table 4), so 40% is the default.
# Here the window is fixed, so the derivation runs the other way: how many tokens fit.

# %%
p.explain("time_to_train", "tokens", "training_flops", "gpu_hours")

# %% [markdown]
# **If MFU falls from 40% to 30%.** MFU is the least certain input, and it enters linearly. Hold the
# tokens above fixed and lower MFU: the same run takes longer and burns more GPU-hours. Hold the window
# fixed instead and the model sees fewer tokens.

# %%
fixed_tokens = plan(s.with_changes({"training.tokens": p.tokens, "training.mfu": 0.30}))
fixed_window = plan(s.with_changes({"training.mfu": 0.30}))
display(fixed_tokens.explain("time_to_train", "gpu_hours"))
fixed_window.explain("tokens")

# %% [markdown]
# ## 2. Checkpoints, and which storage tier takes which job
#
# A checkpoint holds what training needs to resume bit-for-bit: bf16 weights plus the fp32 master
# weights and Adam's two moments, $b = 2 + 4 + 4 + 4 = 14$ bytes per parameter. Gradients are not saved.
# This follows ZeRO's accounting (arXiv:1910.02054, §3.1), which counts 16 B/param for the full training
# state in memory. Each GPU writes its shard in parallel.

# %%
p.explain("checkpoint_size", "shard_size")

# %% [markdown]
# Each tier has one job:
#
# | tier | its job | why this tier |
# |---|---|---|
# | **host memory** | absorb the checkpoint so training can continue | the GPU is blocked only while its shard is copied out (asynchronous checkpointing, CheckFreq FAST'21; PyTorch DCP async) |
# | **parallel filesystem** | make it **durable** and serve local restarts | terabytes per second of aggregate bandwidth: it is the only tier fast enough for a checkpoint every few minutes and a load in seconds |
# | **site object store** | the durable, cheap copy that replication reads from | sized per byte rather than per bandwidth, and it keeps the filesystem's bandwidth for training |
# | **remote site** | survive the loss of the building | the only copy that is **off-site** |
#
# A checkpoint is **not durable until its persist to the filesystem finishes**, and **not off-site until
# its replication finishes**. Until then a failure of the node or the site loses it. The stall, the
# persist and the load:

# %%
p.explain("checkpoint_stall", "checkpoint_write_time", "checkpoint_load_time", "checkpoint_bandwidth_share")

# %% [markdown]
# The filesystem is shared with data loading, so the share of its write bandwidth the cadence consumes
# ($S/\tau$ against capacity) must stay small. The whole path of one checkpoint, with each hop's
# bandwidth and time (section 4 explains the last two hops, section 5 the restore):

# %%
diagrams.data_path_figure(p).show()

# %% [markdown]
# ## 3. Failure rate, checkpoint cadence and ETTR
#
# Interruptions at this scale are a Poisson process with rate $G\lambda$. Llama 3 saw 419 unexpected
# interruptions in 54 days on 16,384 H100s (arXiv:2407.21783, §3.3.4); per GPU that is the default
# $\lambda$. The cluster's mean time between failures is $M = 1/(G\lambda)$.

# %%
p.explain("mtbf", "expected_interruptions")

# %% [markdown]
# The checkpoint interval trades the stall paid every interval against the work lost at each failure.
# Young's first-order optimum is $\tau = \sqrt{2\delta M}$ (Young 1974, *CACM* 17(9)); Daly's higher-order
# form (Daly 2006, *FGCS* 22(3), eq. 37) is used. With asynchronous checkpoints the stall is so small that
# the optimum could fall below the persist time, so the interval has a floor: a checkpoint cannot start
# before the previous one is durable.

# %%
p.explain("young_interval", "daly_interval", "checkpoint_interval", "restart_overhead", "ettr")

# %% [markdown]
# The restart overhead $u_0$ is the local RTO of section 5. ETTR follows Kokolis et al. 2024
# (arXiv:2410.21680): the expected share of wall-clock time spent making progress.
#
# ## 4. Replication and RPO
#
# Shipping every checkpoint off-site is neither possible nor needed. drmath ships every $k$-th one,
# $k = \lceil \text{target interval} / \tau \rceil$. Each copy is uploaded to the site object store and then
# sent over the cross-site link, each hop taking $t = \ell + \frac{S/c}{B\,\eta}$. Store-and-forward adds
# the hops; streaming takes the slower one. Replication **keeps up** only if one copy finishes before the
# next is due: $t_{rep} \le k\tau$.

# %%
p.explain("replication_every", "object_store_time", "link_time", "replication_time", "replication_utilization")

# %% [markdown]
# The recovery point follows from the failure's scope. For a **local** failure (a GPU, node or rack) the
# site's storage survives, so at most one interval plus the persist is lost. When the **site** is lost,
# the newest copy that survives is the last one that reached the other site.

# %%
p.explain("rpo_local", "rpo_local_expected", "rpo_site", "rpo_site_expected", "replication_bandwidth_needed")

# %% [markdown]
# **When replication does not keep up.** Sweep the link down. Below the bandwidth needed, each copy takes
# longer than the interval, the backlog grows for the whole run, and the site RPO has no bound. drmath
# says so instead of printing a finite number; the curve stops at that point (the dashed line).

# %%
viz.plan_figure("rpo_link", p).show()
plan(s.with_changes({"replication.link_bandwidth": "dx-10g"})).explain("rpo_site")

# %% [markdown]
# ## 5. Failover tier and RTO
#
# The recovery time is a sum of named phases, after the AWS DR whitepaper ("Disaster Recovery of Workloads
# on AWS"): detection, failing over resources, restoring data, warming up.
#
# - **Local failure**: detection → reschedule onto spares → launch (scheduler, containers, collective
#   init at scale) → checkpoint load → validation (the first steps reproduce the loss).
# - **Site loss**: detection → decision to fail over → standby readiness (set by the tier) → staging the
#   checkpoint onto the standby's storage (zero when replication already lands there) → launch → load →
#   validation.

# %%
display(p.explain("rto_local", "rto_site"))
diagrams.recovery_timeline_figure(p).show()

# %% [markdown]
# The tiers map AWS's backup & restore, pilot light, warm standby and multi-site onto a GPU fleet. The
# readiness phase is what you buy: weeks to obtain thousands of GPUs from nothing, days from a pilot
# slice, an hour to drain a reserved cluster running preemptible work, minutes for an idle one. A
# multi-site run loses no time to readiness but continues at the surviving share of the fleet, so it pays
# in schedule slip instead.

# %%
fields = ["rto_site", "standby_gpus", "schedule_slip", "standby_cost"]
tiers = compare([plan(s.with_changes({"failover.tier": name})) for name in presets.DR_TIERS],
                [t.label for t in presets.DR_TIERS.values()], fields)
(tiers.drop(columns="title").T.rename_axis("tier").reset_index().style.hide()
 .format({f: partial(units.format_quantity, kind=QUANTITIES[f].kind) for f in fields})
 .relabel_index(["tier", *map(card_title, fields)], axis="columns"))

# %% [markdown]
# ## 6. Cost
#
# The run itself is the GPU-hours times the price. Disaster recovery adds the standby's reservation, the
# replication (egress, remote storage, the link port), and the expected loss from a site event:
#
# $$E[C_{loss}] = P(\text{site event during the run})\,(\mathrm{RPO}_{site} + \mathrm{RTO}_{site} + \Delta T)\,(F + D)$$
#
# where $F$ is the fleet's cost rate and $D$ the **cost of delay**: what a late model is worth to the
# business per day. Without $D$, a rare site loss never pays for any standby.

# %%
p.explain("run_cost", "standby_cost", "replication_cost", "site_event_probability", "expected_disaster_loss",
          "total_dr_cost")

# %% [markdown]
# Each tier trades a standing cost against the time a disaster costs. The break-even cost of delay is the
# $D$ above which a tier is cheaper in expectation than cold backup & restore.

# %%
p.explain("tier_total_costs", "break_even_delay_costs")

# %% [markdown]
# ## 7. The drills that make the numbers true
#
# Every RTO above is a sum of planned phase durations: a sum of best cases. A promise needs the
# distribution of that sum, and each phase's distribution has to be **measured**. Four drills each
# measure named phases:
#
# | drill | what it proves | phases it measures |
# |---|---|---|
# | **checkpoint-restore drill** | a checkpoint loads, and the first steps reproduce the loss | launch, load, validation |
# | **replication-verification drill** | the off-site copy is complete and readable, within the RPO | replication time (RPO), staging |
# | **failover game day** | the standby really becomes ready, and people know the runbook | decision, readiness, launch |
# | **detection/alerting drill** | the page fires and someone confirms the event | detection |
#
# The RTO you can promise is a high percentile (say the 95th) of the sum of the measured phase
# distributions, computed by Monte Carlo convolution, and it expires when its drills go stale. Notebook
# `06_drills_and_simulation.ipynb` does that convolution from drill records and cross-checks this page's
# closed forms against a simulation of the whole run. The phases a drill must measure, and what this
# plan assumes for them:

# %%
phases = pd.DataFrame({"planned, local": p.rto_local_phases, "planned, site": p.rto_site_phases})
phases.rename_axis("phase").style.format(partial(units.format_quantity, kind="duration"), na_rep="—")

# %% [markdown]
# ## The answer on one page

# %%
display(Markdown(markdown_text(
    f"**Takeaway.** The {s.training.gpus:,}-GPU run lasts {p.format('time_to_train')} and uses "
    f"{p.format('gpu_hours')} ({p.format('run_cost')}); at 30% MFU the same tokens take "
    f"{fixed_tokens.format('time_to_train')}. A {p.format('checkpoint_size')} checkpoint every "
    f"{p.format('checkpoint_interval')} stalls training {p.format('checkpoint_stall')} and is durable after "
    f"{p.format('checkpoint_write_time')}; the cluster fails every {p.format('mtbf')} and the run keeps "
    f"ETTR = {p.format('ettr')}. One checkpoint in {int(p.replication_every)} reaches the other site after "
    f"{p.format('replication_time')} "
    f"(link {p.format('replication_utilization')} busy; it stops keeping up below "
    f"{p.format('replication_bandwidth_needed')}), so a site loss costs at most {p.format('rpo_site')} of "
    f"work and a node failure at most {p.format('rpo_local')}. The {tier.label.lower()} resumes training "
    f"{p.format('rto_site')} after a site loss ({p.format('rto_local')} after a node failure), for "
    f"{p.format('standby_cost')}; it pays for itself in expectation once a day of delay costs more than "
    f"{units.format_quantity(p.break_even_delay_costs[s.failover.tier], 'usd_rate')}. Those RTOs become "
    f"promises only when drills measure them.")))
