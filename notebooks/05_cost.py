# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Price each DR tier against the cost of a late model
#
# **What you'll learn**
# - What the run costs, and what each part of disaster recovery adds: the standby, the replication, the
#   expected loss from a site event.
# - Why the **cost of delay** decides the tier, and the break-even cost of delay per tier.
# - Where the total expected cost is lowest, against tier and against link bandwidth.
#
# ---

# %%
import ipywidgets as widgets
import numpy as np
from IPython.display import Markdown, display

from drmath import Scenario, cost, formulas, offline, plan, presets, sweep, units, viz
from drmath.formatting import format_quantity, markdown_text

# Figures travel as JSON to Voilà and JupyterLab, with an offline HTML copy for an export (drmath.offline).
# Setting this also loads plotly's renderer stack here, once, rather than inside the first widget callback.
offline.use()

# %% [markdown]
# ## The formulas
#
# The run, the standby and the replication, as `plan()` computes them:

# %%
formulas(cost.run_cost, cost.standby_cost, cost.replication_cost)

# %% [markdown]
# - $p$ is the GPU-hour price (EC2 Capacity Blocks for H100, late 2024), $H$ the run's GPU-hours, $G_s$ the
#   standby's GPUs and $r$ the share of the standby's price the tier pays (a warm standby is another cluster of
#   the organisation running preemptible work: a reservation premium plus the value of the work preempted, not a
#   second fleet's full price).
# - $V$ is the bytes shipped off-site at egress price $p_e$, $S_r$ the bytes retained remotely at $p_s$ a month,
#   and $p_l$ the link's hourly price, which scales with its bandwidth.
#
# A site event during the run, its expected loss, and the DR cost that sums them:

# %%
formulas("site_event_probability", (cost.expected_disaster_loss, "expanded"), "total_dr_cost")

# %% [markdown]
# - $\lambda_s$ is the rate of losing a site (Uptime Institute 2022 outage survey, read as an upper bound) and
#   $n_s$ the sites that can be lost; $\Delta T$ is the schedule slip a site event causes (notebook `04`).
# - $F$ is the fleet's cost rate and $D$ the **cost of delay**, the business value lost per day the model
#   lands late; $C_x$ is the cross-site link a multi-site run needs for its gradients.
#
# The break-even cost of delay is the one above which a tier is cheaper in expectation than cold backup &
# restore, with $\Delta C$ its extra standing cost and $\Delta L$ the time it saves per site event:

# %%
formulas(cost.break_even_delay_cost)

# %% [markdown]
# ## Work the default costs

# %%
s = Scenario()
p = plan(s)
p.explain("run_cost", "standby_cost", "replication_cost", "site_event_probability", "expected_disaster_loss",
          "total_dr_cost", "break_even_delay_costs")

# %% [markdown]
# ## Drag the cost of delay
#
# Each bar is a tier's total expected DR cost at that cost of delay. The cheapest tier changes as a late
# model becomes more expensive.

# %%
delay = widgets.FloatLogSlider(value=s.cost.delay_cost * units.day / units.mega, base=10, min=-1, max=3, step=0.05,
                               description="$M / day late", continuous_update=False,
                               style={"description_width": "initial"})

view = offline.Redraw()


def show(change=None):
    q = plan(s.with_changes({"cost.delay_cost": delay.value * units.mega / units.day}))
    view.show(viz.cost_tier_figure(q), q.explain("expected_disaster_loss"))


for control in (delay,):
    control.observe(show, "value")
display(delay, view.output)
show()

# %% [markdown]
# ## Total cost against link bandwidth
#
# A bigger link costs more per hour but shortens the site RPO; below the bandwidth needed, replication
# stops keeping up and the expected loss has no bound (the curve ends).

# %%
links = np.geomspace(2, 400, 150) * units.Gbit_per_s
curves = sweep(s, "replication.link_bandwidth", links, ["total_dr_cost", "standby_cost", "replication_cost",
                                                        "expected_disaster_loss", "replication_keeps_up"])
viz.cost_link_figure(p, links, curves).show()

# %% [markdown]
# ## Takeaway

# %%
cheapest = min(p.tier_total_costs, key=p.tier_total_costs.get)
display(Markdown(markdown_text(
    f"**Takeaway.** The run costs {p.format('run_cost')}. At a cost of delay of "
    f"{format_quantity(s.cost.delay_cost, 'usd_rate')}, the "
    f"{presets.DR_TIERS[s.failover.tier].label.lower()} "
    f"adds {p.format('total_dr_cost')} in expectation, and the cheapest tier is "
    f"{presets.DR_TIERS[cheapest].label.lower()} at {format_quantity(p.tier_total_costs[cheapest], 'usd')}. "
    f"The warm standby pays for itself only once a day of delay costs more than "
    f"{format_quantity(p.break_even_delay_costs['warm'], 'usd_rate')}, because a site loss during the run "
    f"has probability {p.format('site_event_probability')}: buy it to bound the worst case, and say so.")))
