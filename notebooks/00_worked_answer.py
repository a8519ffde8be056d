# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Design disaster recovery for a three-month training run on 8,000 GPUs

# %%
import datetime as dt
from functools import partial

from IPython.display import Markdown, display

from drmath import answer, cost, drills, formulas, offline, plan, replication, training, viz
from drmath.formatting import format_quantity, markdown_text, short_duration
from drmath.io import scenarios
from drmath.quantities import TARGETS
from drmath.scenario import FIELDS
from drmath.viz import diagrams

# Figures travel as JSON to Voilà and JupyterLab, with an offline HTML copy for an export (drmath.offline).
# Setting this also loads plotly's renderer stack here, once, rather than inside the first widget callback.
offline.use()

# %%
# The worked answer: drmath.solve() of the seed scenario, whose [requirements] are the answer's stated assumptions
# (answer.REASONS gives each one's reason). The dashboard, `drmath solve` and `drmath report` show this same
# solution: answer.worked_answer() is the one place it is searched.
SEED = scenarios.SCENARIO_DIR / "seed.toml"
meta = scenarios.read_meta(SEED)  # its `date` is the day the run starts: the drill schedule starts then
wanted = scenarios.seed()  # the seed carries the requirements
solution = answer.worked_answer()
s, p = solution.scenario, solution.plan  # the solved design: every section below shows it
records, promise = answer.example_promise()  # the drills' promise, made on the day of the newest drill
best = answer.tier_solutions(wanted)  # each tier at its own best (section 5): the summary's "why not" quotes them
display(Markdown(answer.summary(solution, promise, log=answer.EXAMPLE_LOG, best=best)))

# %% [markdown]
# The rest of this page derives every number in that table: the formula, the inputs substituted with
# their units, and the result. Each is computed by `drmath.plan()` on the design `drmath.solve()` found, so
# the summary and the sections cannot disagree.
#
# **What you'll learn**
# 1. How to state the requirements, and how `solve()` turns them into the cheapest design that meets them.
# 2. How long the run takes, what it costs in GPU-hours, and how much that moves when MFU falls.
# 3. How big a checkpoint is, and which storage tier takes which job: host memory, the parallel filesystem, the
#    object store.
# 4. How often the cluster fails, how often to checkpoint, and the share of wall-clock time that makes progress
#    (ETTR).
# 5. How checkpoints reach the other site, and the recovery point (RPO) that follows, including when replication
#    does not keep up.
# 6. Which failover tier the requirements call for, and the recovery time (RTO) it gives, phase by phase.
# 7. What it costs, and why the cheaper tiers are ruled out.
# 8. The drills that turn the RTO into a promise, their schedule and their GPU-hours.
# 9. The follow-up questions an interviewer asks, answered with numbers.
#
# The topic notebooks `01_time_to_train.ipynb` to `07_compare.ipynb` take one step each and let you drag the
# inputs. `08_your_fleet.ipynb` fits the failure model to a fleet's own incident log and solves for a confidence
# level.
#
# ---
#
# <a id="requirements"></a>
#
# ## The requirements, and the design that meets them
#
# A design review starts from targets, not from a tier. This answer states three as its assumptions: how
# much training a site loss may destroy (site RPO), how soon training must resume (site RTO), and how far
# the schedule may slip. `drmath.solve()` then searches the DR tier, the link, the off-site cadence, the
# checkpoint interval and the standby size for the design with the lowest total cost of resilience (the
# DR cost plus the goodput the cadences cost) that meets all of them.

# %%
display(Markdown(answer.requirements_table(wanted)))
display(Markdown(markdown_text(solution.message)))

# %% [markdown]
# The scenario around it: a dense 405B-parameter model (Llama 3 405B's size) trained for a fixed window on
# H100s. The window drives the run: the tokens that fit in it are derived. Each input states its basis in
# `drmath.scenario.FIELDS`; the rows marked *solved* are the levers `solve()` set.

# %%
display(Markdown(answer.design_table(solution)))

# %% [markdown]
# ## 1. Time to train and GPU-hours
#
# Training compute counts $k$ FLOP for each of the $N$ parameters on each of the $D$ tokens; $k$ is 6 (forward
# and backward; 8 with full activation recomputation), after Kaplan et al. 2020 (arXiv:2001.08361) and
# Narayanan et al. 2021 (arXiv:2104.04473, eq. 4). The cluster's $G$ GPUs deliver their peak $P$ times the MFU while it runs, and it
# makes progress only a share ETTR of the wall-clock time (section 3):

# %%
formulas(training.training_flops, training.time_to_train)

# %% [markdown]
# Llama 3 reports 38–43% BF16 MFU on 8–16k H100s (arXiv:2407.21783, Table 4), so 40% is the default.
# Here the window is fixed, so the derivation runs the other way: how many tokens fit.

# %%
p.explain("time_to_train", "tokens", "training_flops", "gpu_hours")

# %% [markdown]
# **If MFU falls.** MFU is the least certain input, and it enters linearly. Hold the
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
# weights and Adam's two moments: 2 bytes and three times 4 per parameter. Gradients are not saved.
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
# (one checkpoint per interval, against capacity) must stay small. The whole path of one checkpoint, with each hop's
# bandwidth and time (section 4 explains the last two hops, section 5 the restore):

# %%
diagrams.data_path_figure(p).show()

# %% [markdown]
# ## 3. Failure rate, checkpoint cadence and ETTR
#
# Interruptions at this scale are a Poisson process whose rate grows with the GPU count $G$. Llama 3 saw 419
# unexpected interruptions in 54 days on 16,384 H100s (arXiv:2407.21783, §3.3.4); per GPU that is the default
# rate $\lambda$, and the cluster's mean time between failures $M$ follows.

# %%
p.explain("mtbf", "expected_interruptions")

# %% [markdown]
# The checkpoint interval trades the stall paid every interval against the work lost at each failure.
# Young's first-order optimum (Young 1974, *CACM* 17(9)) and Daly's higher-order
# form (Daly 2006, *FGCS* 22(3), eq. 37) is used. With asynchronous checkpoints the stall is so small that
# the optimum could fall below the persist time, so the interval has a floor: a checkpoint cannot start
# before the previous one is durable.

# %%
p.explain("young_interval", "daly_interval", "checkpoint_interval", "restart_overhead", "ettr")

# %% [markdown]
# The restart overhead $u_0$ is the local RTO of section 5. ETTR follows Kokolis et al. 2024
# (arXiv:2410.21680): the expected share of wall-clock time spent making progress.
#
# <a id="replication-and-rpo"></a>
#
# ## 4. Replication and RPO
#
# Shipping every checkpoint off-site is neither possible nor needed. drmath ships every $k$-th one, with
# $T_{rep}$ the target interval between off-site copies. Each copy is uploaded to the site object store and then
# sent over the cross-site link; store-and-forward adds the hops, streaming takes the slower one. A copy enters the
# pipeline once it is durable, and each checkpoint stalls the run for $\delta$, so copies are launched a period
# $P$ apart. Replication **keeps up** only if its slowest hop, taking $T$, finishes within that period:

# %%
formulas(replication.replication_every, (replication.transfer_time, "object_store"),
         (replication.transfer_time, "link"), replication.chain_time, replication.launch_spacing,
         (replication.replication_keeps_up, "pipeline"))

# %% [markdown]
#
# The off-site cadence is not assumed. It is derived from the site RPO requirement: `solve()` searched the
# target interval together with the link and kept the cheapest pair whose worst-case site RPO fits the target.

# %%
display(Markdown(markdown_text(
    f"`solve()` searched every off-site cadence from each checkpoint to "
    f"{short_duration(FIELDS['replication.interval'].high)} and chose "
    f"{format_quantity(s.replication.interval, 'duration')}: with a checkpoint every "
    f"{p.format('checkpoint_interval')}, one copy in {p.format('replication_every')} goes off-site, every "
    f"{p.format('replication_interval')}. Against its target the site RPO is "
    f"{answer.margin_words(p, next(t for t in TARGETS if t.value == 'rpo_site'))}.")))
p.explain("replication_every", "replication_interval", "object_store_time", "link_time", "replication_time",
          "replication_utilization", "replication_bandwidth_needed")

# %% [markdown]
# The recovery point follows from the failure's scope. For a **local** failure (a GPU, node or rack) the
# site's storage survives, so at most one interval plus the persist is lost. When the **site** is lost,
# the newest copy that survives is the last one that reached the other site.

# %%
p.explain("rpo_local", "rpo_local_expected", "rpo_site", "rpo_site_expected", "rpo_site_margin")

# %% [markdown]
# **When replication does not keep up.** Sweep the link down. Below the bandwidth needed, each copy takes
# longer than the interval, the backlog grows for the whole run, and the site RPO has no bound. drmath
# says so instead of printing a finite number; the curve stops at that point (the dashed line). A link
# below that bandwidth shows it:

# %%
viz.plan_figure("rpo_link", p).show()
plan(s.with_changes({"replication.link_bandwidth": "dx-10g"})).explain("replication_bandwidth_needed", "rpo_site")

# %% [markdown]
# <a id="failover-and-rto"></a>
#
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
display(p.explain("rto_local", "rto_site", "rto_site_margin", "schedule_slip"))
diagrams.recovery_timeline_figure(p).show()

# %% [markdown]
# The tiers map AWS's backup & restore, pilot light, warm standby and multi-site onto a GPU fleet. The
# readiness phase is what you buy: weeks to obtain thousands of GPUs from nothing, days from a pilot
# slice, an hour to drain a reserved cluster running preemptible work, minutes for an idle one. A
# multi-site run loses no time to readiness but continues at the surviving share of the fleet, so it pays
# in schedule slip instead.
#
# Below, each tier at its own best: the cheapest design of that tier that meets every requirement, or, when
# none does, the one that comes closest. The requirements, not the tier's price, decide.

# %%
display(Markdown(answer.tier_table(best)))  # best: solve() restricted to each tier, in the first cell
display(Markdown(answer.slip_reasons({name: b.plan for name, b in best.items()})))
display(Markdown(answer.why_not(solution, best)))

# %% [markdown]
# <a id="cost"></a>
#
# ## 6. Cost
#
# The run itself is the GPU-hours times the price. Disaster recovery adds the standby's reservation, the
# replication (egress, remote storage, the link priced by its bandwidth), and the expected loss from a site
# event: the probability $P$ of a site event during the run, times the schedule slip $\Delta T$ it causes (section 5),
# priced at the fleet's cost rate $F$ plus the **cost of delay** $D$: what a late model is worth to the
# business per day.

# %%
formulas((cost.expected_disaster_loss, "expanded"), cost.site_event_probability)

# %% [markdown]
# The cadences cost goodput too (stalls, rework, restarts), so the figure `solve()`
# minimises is the **total cost of resilience**: the DR cost plus the goodput lost.

# %%
p.explain("run_cost", "standby_cost", "replication_cost", "site_event_probability", "expected_disaster_loss",
          "total_dr_cost", "goodput_lost_cost", "total_cost_of_resilience")

# %% [markdown]
# Each tier trades a standing cost against the time a disaster costs. The break-even cost of delay is the
# $D$ above which a tier is cheaper in expectation than cold backup & restore.

# %%
display(p.explain("tier_total_costs", "break_even_delay_costs"))
display(Markdown(answer.tier_tables_note(p, {name: b.plan for name, b in best.items()})))
display(Markdown(answer.expectation_note(p)))

# %% [markdown]
# <a id="drills"></a>
#
# ## 7. The drills that make the numbers true
#
# Every RTO above is a sum of planned phase durations: a sum of best cases. A promise needs the
# distribution of that sum, and each phase's distribution has to be **measured**. Four drills each
# measure named phases, on a schedule, and each costs GPU-hours: a drill is a real recovery on the real
# cluster. The schedule below starts on the scenario's date, the day the run starts.

# %%
schedule = drills.drill_schedule(p, meta["date"])
display(schedule[["label", "measures", "cadence", "held", "first", "last", "gpu_hours_each", "gpu_hours_total"]]
        .style.hide().format({"cadence": short_duration, "first": dt.date.isoformat, "last": dt.date.isoformat,
                              "gpu_hours_each": partial(format_quantity, kind="gpu_hours"),
                              "gpu_hours_total": partial(format_quantity, kind="gpu_hours")})
        .relabel_index(["drill", "phases it measures", "cadence", "in the run", "first", "last", "GPU-hours each",
                        "GPU-hours in the run"], axis="columns"))
display(Markdown(markdown_text(
    f"In all, {format_quantity(schedule['held'].sum(), 'count')} drills cost "
    f"{format_quantity(schedule['gpu_hours_total'].sum(), 'gpu_hours')}, against the run's "
    f"{p.format('gpu_hours')}.")))

# %% [markdown]
# The RTO you can promise is a high percentile of the sum of the measured phase distributions, computed
# by Monte Carlo convolution (`drills.promised_rto`), and it expires when the drill that owns a phase goes
# stale. The drill log here is drmath's example: **illustrative**, invented numbers in the format of a real
# log. Each site phase as the plan assumes it and as the drills measured it:

# %%
display(Markdown(answer.evidence_table(p, promise)))
display(Markdown(answer.promise_note(p, promise, meta["date"])))

# %% [markdown]
# ## 8. Talking points: the follow-up questions
#
# An interviewer probes the design. Each answer below comes from `plan()` or `solve()` on a changed
# scenario, so it is as worked as the design itself.

# %%
display(Markdown(answer.follow_ups(solution, wanted, best["hot"], promise,
                                   schedule.loc["failover-game-day", "held"])))
