# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Compare two to four scenarios side by side
#
# A design review rarely asks about one cluster. It asks how the answer moves: from 8,000 GPUs to 16,384, from a
# dedicated flagship run to a multi-tenant research cluster, from a warm standby to a hot one. This page puts two to
# four scenarios next to each other: a table of the plan's key numbers, with every value that differs from the first
# column highlighted with its relative change, and their curves drawn on the same axes.
#
# **What you'll do**
# 1. Pick two to four of the scenario files that ship with drmath (`data/scenarios/*.toml`). The first one
#    is the baseline.
# 2. Read the table: the recovery point (RPO) and recovery time (RTO) by failure scope, the effective training time
#    ratio (ETTR), whether replication keeps up, and what the disaster-recovery tier costs.
# 3. Read the overlaid curves: ETTR against the checkpoint interval, site RPO against the replication target, and the
#    total expected DR cost against the link's line rate.
#
# **What you'll need:** nothing but this page. The same comparison runs in a terminal as
# `drmath compare seed llama3-405b` (a shipped scenario's name, or any scenario file).

# %%
import ipywidgets as widgets
from IPython.display import Markdown, display

from drmath import comparison, formulas, offline, plan, viz
from drmath.formatting import markdown_text
from drmath.io import scenarios

# Figures travel as JSON to Voilà and JupyterLab, with an offline HTML copy for an export (drmath.offline).
offline.use()

# %% [markdown]
# ## What the numbers are
#
# Every number in the table is one field of `drmath.plan()` for that scenario, formatted, never re-derived here. The
# ones a reviewer looks at first, with the formulas `plan()` computes them by:
#
# - **Cluster MTBF** $M$, from the $G$ GPUs and $\lambda$ interruptions per GPU per second. Llama 3 saw 419
#   unexpected interruptions in 54 days on 16,384 GPUs; Meta's RSC-1 research cluster 6.50 per 1,000 node-days
#   (Kokolis et al. 2024).
# - **ETTR**, the share of wall-clock time spent making progress, with checkpoint interval $\tau$, checkpoint stall
#   $\delta$, persist time $W$ and restart overhead $u_0$ (Daly 2006; Kokolis et al. 2024).
# - **Site RPO** (worst): every $k$-th checkpoint goes off-site, $W$ is its persist time and $t_{rep}$ its
#   replication time. If the slowest hop takes longer than the period $P$ between copies, the backlog grows through
#   the run and the site RPO has **no bound**.
# - **Site RTO** is the sum of named phases: detection, decision, standby readiness (set by the DR tier), staging,
#   launch, checkpoint load and validation.
# - **Total DR cost**: standby, replication (and a multi-site run's cross-site link), and the expected disaster loss,
#   priced with the cost of delay.

# %%
formulas("mtbf", "ettr", "rpo_site", "rto_site", "total_dr_cost")

# %% [markdown]
# Each scenario file gives the source of every number it sets in a comment beside it: the Llama 3 paper
# (arXiv:2407.21783), Kokolis et al. (arXiv:2410.21680), AWS Direct Connect pricing, the Uptime Institute outage
# analysis. Fields a file leaves out keep drmath's defaults, whose bases are listed in the report
# (`drmath report SCENARIO.toml -o plan.html`).

# %% [markdown]
# ## Pick the scenarios
#
# Hold Ctrl (or ⌘) to pick several. With fewer than two or more than four picked, the page says so instead of drawing.

# %%
files = scenarios.shipped_scenarios()
picker = widgets.SelectMultiple(options=list(files), value=list(files)[:2], rows=len(files),
                                description="Scenarios", layout=widgets.Layout(width="560px"),
                                style={"description_width": "80px"})
view = offline.Redraw()  # the table and the curves, redrawn in place


def show(change=None):
    # plan each picked scenario, then draw the table and the overlaid curves
    names = list(picker.value)
    plans = [plan(scenarios.load(files[name])) for name in names]
    if 2 <= len(plans) <= 4:
        view.show(comparison.compare_style(plans, names), viz.compare_figure(plans, names))
    else:
        view.show(Markdown(f"Pick two to four scenarios (now {len(plans)})."), Markdown(""))


picker.observe(show, names="value")
display(picker, view.output)
show()

# %% [markdown]
# ## Takeaway

# %%
everything = {name: plan(scenarios.load(path)) for name, path in files.items()}
fastest = min(everything, key=lambda n: everything[n].mtbf)
slowest = max(everything, key=lambda n: everything[n].mtbf)
display(Markdown(markdown_text(
    f"Across the shipped scenarios the cluster MTBF runs from **{everything[fastest].format('mtbf')}** "
    f"({fastest}) to **{everything[slowest].format('mtbf')}** ({slowest}), and ETTR from "
    f"**{everything[fastest].format('ettr')}** to **{everything[slowest].format('ettr')}**. The time between "
    f"failures shrinks in proportion to the GPU count, so at scale the checkpoint interval and the restart "
    f"overhead decide how much of the run makes progress.")))
