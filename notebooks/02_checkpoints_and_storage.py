# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Size a checkpoint and choose the storage tier for each job
#
# **What you'll learn**
# - How big a full training checkpoint is, byte by byte.
# - What training pays for it: the stall (asynchronous against synchronous), the persist, the load.
# - Why the parallel filesystem and the object store take different jobs, and how much filesystem
#   bandwidth the cadence consumes.
# - When a checkpoint counts: it is **not durable until persisted** and **not off-site until replicated**.
#
# ---

# %%
from functools import partial

import ipywidgets as widgets
from IPython.display import Markdown, display

from drmath import Scenario, checkpoint, compare, formulas, offline, plan, presets
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
# The checkpoint's size, each GPU's shard, the persist, the staging to host memory, the stall (asynchronous,
# synchronous, then measured) and the load, as `plan()` computes them:

# %%
formulas(checkpoint.checkpoint_bytes, checkpoint.shard_bytes, checkpoint.checkpoint_write_time,
         checkpoint.checkpoint_staging_time, (checkpoint.checkpoint_stall, "asynchronous"),
         (checkpoint.checkpoint_stall, "synchronous"), (checkpoint.checkpoint_stall, "measured"),
         checkpoint.checkpoint_load_time)

# %% [markdown]
# - $b$ is 14 bytes per parameter: bf16 weights (2) plus fp32 master weights, Adam $m$ and $v$ (4 each).
#   Gradients are not saved. ZeRO (arXiv:1910.02054, §3.1) counts 16 for the state in memory; 2 is a
#   weights-only export.
# - Each of the $G$ GPUs writes its shard $s$; the aggregate write is capped by the filesystem's write
#   bandwidth $B_w$ (Llama 3's Tectonic sustains 2 TB/s, arXiv:2407.21783 §3.3.1) and by each writer's
#   share of its node's NIC $b_w$. The load is capped the same way, by $B_r$ and $b_r$.
# - Asynchronous checkpointing (CheckFreq, FAST'21; PyTorch DCP async) blocks training only for the staging
#   to host memory at $b_h$ per GPU (never longer than a synchronous write); the persist runs behind it. IBM
#   and Meta measured a 7B model's checkpoint "down time" at 148.8 s synchronous against 6.3 s asynchronous
#   (23.62x, PyTorch blog 2024). A blocking time measured on your run (`checkpoint.blocking_time`; Meta and
#   Crusoe measured 0.78 s for Llama3-70B on 1,856 H200) replaces the modelled one. Either way the persist
#   still takes $W$: the next checkpoint cannot start before the previous one is durable, which floors the
#   interval, and $W$ is the write time in the RPO:

# %%
formulas(checkpoint.checkpoint_interval_floor, checkpoint.checkpoint_bandwidth_share)

# %% [markdown]
# The cadence uses the share $u_{fs}$ of the filesystem's write bandwidth, which it shares with data loading.

# %% [markdown]
# ## Work the default checkpoint

# %%
s = Scenario()
p = plan(s)
p.explain("checkpoint_size", "shard_size", "checkpoint_staging_time", "checkpoint_stall", "checkpoint_write_time",
          "checkpoint_load_time", "checkpoint_bandwidth_share")

# %% [markdown]
# ## What each byte layout costs
#
# The same 405B model under each preset layout in `drmath.presets.BYTES_PER_PARAM`:

# %%
fields = ["checkpoint_size", "checkpoint_write_time", "object_store_time", "link_time"]
layouts = [plan(s.with_changes({"checkpoint.bytes_per_param": name})) for name in presets.BYTES_PER_PARAM]
table = compare(layouts, list(presets.BYTES_PER_PARAM), fields).drop(columns="title").T
table.insert(0, "B/param", [q.scenario.checkpoint.bytes_per_param for q in layouts])
(table.rename_axis("layout").reset_index().style.hide()
 .format({"B/param": "{:g}", **{f: partial(format_quantity, kind=QUANTITIES[f].kind) for f in fields}})
 .relabel_index(["layout", "B/param", *map(card_title, fields)], axis="columns"))

# %% [markdown]
# ## Which tier takes which job
#
# | tier | job | what limits it |
# |---|---|---|
# | host memory | take the checkpoint off the GPU so training continues | the per-GPU copy rate; sets the stall |
# | parallel filesystem | make it durable; serve every local restart | aggregate bandwidth, shared with data loading |
# | site object store | keep the durable copies replication reads from | request concurrency; cheap per byte |
# | remote site | survive the loss of the building | the cross-site link (notebook `03`) |
#
# The filesystem takes the hot path because only it writes and reads terabytes in seconds; the object
# store takes the cold path because it is priced per byte, not per bandwidth, and replicates across
# sites. Pick the model, drag the layout, the mode and the filesystem below and watch the data path. A mixture of
# experts checkpoints every expert: Mixtral 8x7B's checkpoint holds all eight experts, though a token uses two.

# %%
model = widgets.Dropdown(options=["as above (405B)", *presets.MODELS], description="model")
layout = widgets.Dropdown(options=list(presets.BYTES_PER_PARAM), value="mixed-precision-adam-checkpoint",
                          description="layout")
mode = widgets.ToggleButtons(options=["async", "sync"], value=s.checkpoint.mode, description="mode")
fs = widgets.Dropdown(options=["tectonic", "jeanzay-gpfs"], value="tectonic", description="filesystem")

view = offline.Redraw()


def show(change=None):
    picked = {} if model.value not in presets.MODELS else {"training.model": model.value}
    q = plan(s.with_changes({"checkpoint.bytes_per_param": layout.value, "checkpoint.mode": mode.value,
                             "checkpoint.write_bandwidth": fs.value, "checkpoint.read_bandwidth": fs.value, **picked}))
    view.show(diagrams.data_path_figure(q), q.explain("params", "checkpoint_size", "checkpoint_stall",
                                                      "checkpoint_write_time", "checkpoint_interval",
                                                      "checkpoint_bandwidth_share"))


for control in (model, layout, mode, fs):
    control.observe(show, "value")
display(widgets.VBox([model, layout, mode, fs]), view.output)
show()

# %% [markdown]
# ## Takeaway

# %%
sync = plan(s.with_changes({"checkpoint.mode": "sync"}))
gpfs = plan(s.with_changes({"checkpoint.write_bandwidth": "jeanzay-gpfs"}))
display(Markdown(markdown_text(
    f"**Takeaway.** A {p.format('checkpoint_size')} checkpoint stalls training {p.format('checkpoint_stall')} "
    f"when asynchronous and {sync.format('checkpoint_stall')} when synchronous, but either way it is not "
    f"durable until the {p.format('checkpoint_write_time')} persist ends, and not off-site until replication "
    f"ends {p.format('replication_time')} later. Every {p.format('checkpoint_interval')} it uses "
    f"{p.format('checkpoint_bandwidth_share')} of a {format_quantity(s.checkpoint.write_bandwidth, 'bandwidth')} "
    f"filesystem; on a "
    f"{format_quantity(gpfs.scenario.checkpoint.write_bandwidth, 'bandwidth')} filesystem the persist takes "
    f"{gpfs.format('checkpoint_write_time')} and the share is {gpfs.format('checkpoint_bandwidth_share')}.")))
