# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Choose a failover tier from its RTO, and size the standby
#
# **What you'll learn**
# - The recovery time (RTO) as a sum of named phases, for a local failure and for a site loss.
# - What each DR tier buys: cold, pilot light, warm standby, hot standby, multi-site.
# - Active-passive against active-active: a second cluster waiting, or both sites training.
# - How much headroom a standby needs: a smaller standby is cheaper but the run then slips.
#
# ---

# %%
from functools import partial

import ipywidgets as widgets
from IPython.display import Markdown, display

from drmath import Scenario, compare, formulas, offline, plan, presets, recovery, viz
from drmath.formatting import format_quantity, markdown_text
from drmath.quantities import QUANTITIES
from drmath.viz import diagrams
from drmath.viz.headline import card_title

# Figures travel as JSON to Voilà and JupyterLab, with an offline HTML copy for an export (drmath.offline).
# Setting this also loads plotly's renderer stack here, once, rather than inside the first widget callback.
offline.use()

# %% [markdown]
# ## The formulas
#
# Each formula below is the one `plan()` computes with, shown from the library. The recovery time is a sum of
# named phases, for a local failure and for the loss of the site:

# %%
formulas(recovery.local_rto_phases, recovery.site_rto_phases)

# %% [markdown]
# The phases follow the AWS DR whitepaper ("Disaster Recovery of Workloads on AWS": detect, fail over
# resources, restore data, warm up). Readiness $t_{ready}$ is what the tier buys; staging $t_{stage}$ is zero when
# replication already lands on the standby's own storage; the decision $t_{dec}$ is skipped by an automatic tier.
# The local RTO is the restart overhead $u_0$ of Kokolis et al. 2024 (arXiv:2410.21680), 5–20 min in
# practice.
#
# A standby of $G_s$ GPUs, smaller than the primary's $G$, trains at its share of the speed (time scales as one
# over the GPU count, Narayanan et al. 2021, arXiv:2104.04473, eq. 4) until the lost site is rebuilt, which takes
# $R$. For a site event at a uniform time in a run of length $T$, half the run remains on average, and the
# rebuild caps the time lost at reduced capacity:

# %%
formulas((recovery.resume_slip, "expected"))

# %% [markdown]
# The schedule slip adds the work lost (the expected site RPO) and the outage (the site RTO) to it:

# %%
formulas((recovery.schedule_slip, "expected"))

# %% [markdown]
# ## Work the default: a warm standby

# %%
s = Scenario()
p = plan(s)
display(p.explain("rto_local", "rto_site"))
diagrams.recovery_timeline_figure(p).show()

# %% [markdown]
# ## Compare the tiers
#
# **Active-passive** tiers (cold to hot) keep a second cluster in some state of readiness and move the
# whole run to it. **Active-active** (multi-site) trains on both sites at once: no readiness phase and an
# automatic restart, but losing a site leaves the run on the surviving half.

# %%
fields = ["rto_site", "standby_gpus", "schedule_slip", "standby_cost"]
tiers = compare([plan(s.with_changes({"failover.tier": name})) for name in presets.DR_TIERS],
                [t.label for t in presets.DR_TIERS.values()], fields).drop(columns="title").T
tiers["assumes"] = [t.assumptions for t in presets.DR_TIERS.values()]
(tiers.rename_axis("tier").reset_index().style.hide()
 .format({f: partial(format_quantity, kind=QUANTITIES[f].kind) for f in fields})
 .relabel_index(["tier", *map(card_title, fields), "assumes"], axis="columns"))

# %% [markdown]
# ## Drag the tier and the standby's size
#
# The timeline redraws phase by phase. A standby smaller than the primary (its size as a share of the
# primary's) makes the site RTO no shorter, but the run finishes later.

# %%
tier = widgets.Dropdown(options=[(t.label, n) for n, t in presets.DR_TIERS.items()], value=s.failover.tier,
                        description="tier")
size = widgets.FloatSlider(value=1.0, min=0.25, max=1.0, step=0.05, description="standby", readout_format=".0%",
                           continuous_update=False)

view = offline.Redraw()


def show(change=None):
    q = plan(s.with_changes({"failover.tier": tier.value, "failover.standby_fraction": size.value}))
    view.show(diagrams.recovery_timeline_figure(q), q.explain("rto_site", "schedule_slip", "standby_cost"))


for control in (tier, size):
    control.observe(show, "value")
display(widgets.HBox([tier, size]), view.output)
show()

# %% [markdown]
# ## How much headroom does the standby need?
#
# The expected slip and the standby's cost against its size, for the warm tier:

# %%
viz.plan_figure("standby", p).show()

# %% [markdown]
# ## Takeaway

# %%
cold, hot, multi = (plan(s.with_changes({"failover.tier": n})) for n in ("cold", "hot", "multi-site"))
half = plan(s.with_changes({"failover.standby_fraction": 0.5}))
display(Markdown(markdown_text(
    f"**Takeaway.** A warm standby resumes training {p.format('rto_site')} after the site is lost, against "
    f"{cold.format('rto_site')} for cold backup & restore and {hot.format('rto_site')} for an idle hot standby: "
    f"the readiness is measured in hours, not weeks, for {p.format('standby_cost')} over the run. Active-active "
    f"multi-site resumes in {multi.format('rto_site')} but then runs on {multi.format('standby_gpus')} GPUs and "
    f"slips {multi.format('schedule_slip')} on average; a warm standby at half size costs "
    f"{half.format('standby_cost')} and slips {half.format('schedule_slip')}.")))
