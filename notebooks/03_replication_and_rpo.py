# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Ship checkpoints off-site fast enough to bound the RPO
#
# **What you'll learn**
# - How long one checkpoint takes to reach the other site, hop by hop.
# - Which checkpoints to ship, and whether replication keeps up with the cadence.
# - The recovery point (RPO) for a local failure and for the loss of the site, worst case and expected.
# - The link bandwidth below which the site RPO has no bound.
#
# ---

# %%
import ipywidgets as widgets
from IPython.display import Markdown, display

from drmath import Scenario, formulas, offline, plan, recovery, replication, units, viz
from drmath.formatting import format_quantity, markdown_text
from drmath.viz import diagrams

# Figures travel as JSON to Voilà and JupyterLab, with an offline HTML copy for an export (drmath.offline).
# Setting this also loads plotly's renderer stack here, once, rather than inside the first widget callback.
offline.use()

# %% [markdown]
# ## The formulas
#
# Each formula below is the one `plan()` computes with, shown from the library. Each hop (filesystem → object
# store, object store → remote site) takes the checkpoint's compressed bytes over the hop's bandwidth, plus the
# link's latency:

# %%
formulas((replication.transfer_time, "object_store"), (replication.transfer_time, "link"))

# %% [markdown]
# with latency $\ell$, compression ratio $c$, upload bandwidth $B_{os}$, line rate $B$ and efficiency $\eta$.
# A chain of hops is store-and-forward (the hops add up) or streamed (the slowest hop sets the pace):

# %%
formulas(replication.chain_time)

# %% [markdown]
# Every $k$-th checkpoint is shipped, where $T_{rep}$ is the target interval between off-site copies. A copy
# enters the pipeline once it is durable, and each checkpoint stalls the run for $\delta$, so copies are launched
# a period $P$ apart, not $k$ checkpoint intervals:

# %%
formulas(replication.replication_every, replication.launch_spacing)

# %% [markdown]
# Replication **keeps up** only if every hop finishes a copy within that period: the slowest hop's time $T$ must
# not exceed $P$. Otherwise, under the every-k-th policy, the backlog grows for the whole run and the site RPO
# has no bound:

# %%
formulas((replication.replication_keeps_up, "pipeline"))

# %% [markdown]
# The recovery point for a local failure, and for the loss of the site (under the every-k-th policy, bounded only
# while replication keeps up):

# %%
formulas(recovery.rpo_local, (recovery.rpo_site_pipeline, "every_k_behind"))

# %% [markdown]
# The worst case is the DR convention (the AWS DR whitepaper defines RPO as the maximum acceptable data
# loss); the expected loss replaces the interval by half of it. A checkpoint counts for a site loss only
# once it is off-site.

# %% [markdown]
# ## Work the default replication

# %%
s = Scenario()
p = plan(s)
p.explain("replication_every", "object_store_time", "link_time", "replication_time", "replication_utilization",
          "rpo_local", "rpo_site", "rpo_site_expected")

# %% [markdown]
# ## Sweep the link down until replication stops keeping up
#
# The curve is the worst-case site RPO as the cross-site link shrinks; it ends where replication no
# longer keeps up (dashed line), because there the RPO has no bound. Drag the target interval and try
# streaming the two hops.

# %%
target = widgets.FloatSlider(value=s.replication.interval / units.hour, min=0.25, max=6, step=0.25,
                             description="every [h]", continuous_update=False)
streamed = widgets.Checkbox(value=s.replication.streamed, description="stream the hops")

view = offline.Redraw()


def show(change=None):
    q = plan(s.with_changes({"replication.interval": target.value * units.hour,
                             "replication.streamed": streamed.value}))
    view.show(viz.plan_figure("rpo_link", q), q.explain("rpo_site"))


for control in (target, streamed):
    control.observe(show, "value")
display(widgets.HBox([target, streamed]), view.output)
show()

# %% [markdown]
# ## See the data path on a smaller link
#
# The same checkpoint over a 10 Gbit/s port (AWS Direct Connect `dx-10g`):

# %%
small = plan(s.with_changes({"replication.link_bandwidth": "dx-10g"}))
diagrams.data_path_figure(small).show()
small.explain("rpo_site")

# %% [markdown]
# ## Takeaway

# %%
verdict = "keeps up" if small.replication_keeps_up else "does not keep up, and the site RPO has no bound"
display(Markdown(markdown_text(
    f"**Takeaway.** Shipping one checkpoint in {int(p.replication_every)} "
    f"over {format_quantity(s.replication.link_bandwidth, 'line_rate')} takes {p.format('replication_time')} "
    f"per copy, {p.format('replication_utilization')} of the link's time, so the site RPO is {p.format('rpo_site')} "
    f"at worst against {p.format('rpo_local')} for a local failure. Replication needs at least "
    f"{p.format('replication_bandwidth_needed')}; on a 10 Gbit/s port it {verdict}.")))
