r"""The workbook's two hand-built diagrams: the data path and the recovery timelines.

Both are pure plotly builders ``f(plan) -> go.Figure``. They hold no physics:
every number drawn is a field of the :class:`drmath.Plan` (or an input of its
scenario), rendered with :meth:`drmath.Plan.format`,
:func:`drmath.formatting.format_quantity` or the rest of :mod:`drmath.formatting`, in the
colours of :data:`drmath.viz.palette.PALETTE`. The only arithmetic here is layout: the
start of a phase on a timeline is the sum of the phases before it, and axes are
scaled into a readable unit (:func:`drmath.formatting.duration_unit`).

This module imports plotly; ``import drmath`` and ``import drmath.viz`` do not import it (issue 33 moved it here
from ``drmath.diagrams``, which still forwards its names with a :class:`FutureWarning`).

    >>> from drmath import plan
    >>> fig = data_path_figure(plan())
    >>> [a.text for a in fig.layout.annotations if a.name == "edge:link"][0].split("<br>")[-1]
    '<b>8.40 min</b> per copy'
"""

import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .. import presets
from ..formatting import duration_unit, every, format_quantity, line_rate
from .palette import BLUE, FONT, GREEN, GREY, GRID, INK, MUTED, PALETTE, PHASE_COLOURS, RED, rgba

__all__ = ["data_path_figure", "recovery_timeline_figure", "NODES", "EDGES"]

NODES = ("primary", "host", "filesystem", "object_store", "remote", "standby")
"""The stations of the data path, in order."""

EDGES = ("host_copy", "persist", "upload", "link", "restore")
"""The hops between consecutive :data:`NODES`, in order."""


def _bw(value):
    return format_quantity(value, "bandwidth")


def _dur(value):
    return format_quantity(value, "duration")


def _data_path_labels(plan):
    """The data path's words: each station's (title, body) and each hop's (title, rate, time), by name."""
    s = plan.scenario
    tier = presets.DR_TIERS[s.failover.tier]
    asynchronous = s.checkpoint.mode == "async"
    keeps_up = plan.replication_keeps_up
    k = int(plan.replication_every)
    staging = plan.rto_site_phases["staging"]

    nodes = {
        "primary": ("Primary cluster", f"{s.training.gpus:,} GPUs<br>checkpoint every<br>"
                                       f"<b>{plan.format('checkpoint_interval')}</b>"),
        "host": ("Host memory", f"shard {plan.format('shard_size')}<br>per GPU"),
        "filesystem": ("Parallel filesystem", f"checkpoint {plan.format('checkpoint_size')}<br>"
                                              f"uses {plan.format('checkpoint_bandwidth_share')} of<br>"
                                              "its write bandwidth"),
        "object_store": ("Site object store", f"{every(k)}<br>"
                                              f"(every {plan.format('replication_interval')})"),
        "remote": ("Remote site", f"keeps {s.replication.retained} checkpoints<br>"
                                  f"site RPO {plan.format('rpo_site')}"),
        "standby": ("Standby cluster", f"{plan.format('standby_gpus')} GPUs<br>{tier.label}<br>"
                                       f"site RTO {plan.format('rto_site')}"),
    }
    link_line = f"{line_rate(s.replication.link_bandwidth)} × {format_quantity(s.replication.efficiency, 'fraction')}"
    if asynchronous:
        host_copy = ("GPU → host copy", f"{_bw(s.checkpoint.host_copy_bandwidth)} per GPU",
                     f"<b>{plan.format('checkpoint_stall')}</b> stall")
    else:
        host_copy = ("sync: no host copy", "training waits for the persist",
                     f"<b>{plan.format('checkpoint_stall')}</b> stall")
    edges = {
        "host_copy": host_copy,
        "persist": ("persist", f"{_bw(s.checkpoint.write_bandwidth)} aggregate",
                    f"<b>{plan.format('checkpoint_write_time')}</b>"),
        "upload": ("upload", _bw(s.replication.object_store_bandwidth),
                   f"<b>{plan.format('object_store_time')}</b>"),
        "link": ("cross-site link" if keeps_up else "link: DOES NOT KEEP UP", link_line,
                 f"<b>{plan.format('link_time')}</b> per copy"),
        "restore": ("stage + load",
                    (f"stage at {_bw(s.failover.staging_bandwidth)}" if staging > 0
                     else "lands on standby storage"),
                    f"<b>{_dur(staging)}</b> + <b>{plan.format('checkpoint_load_time')}</b>"),
    }

    return nodes, edges


def data_path_figure(plan):
    r"""Where a checkpoint goes, hop by hop, with each hop's bandwidth and time.

    Primary cluster -> host memory -> parallel filesystem -> site object
    store -> remote site -> standby cluster. A checkpoint is *durable* once the
    persist to the filesystem finishes and *off-site* once the link transfer
    finishes; both points are marked.

    Parameters
    ----------
    plan : drmath.Plan
        The derived numbers; every label is one of its fields or an input of
        ``plan.scenario``.

    Returns
    -------
    figure : plotly.graph_objects.Figure
        Six boxes and five labelled arrows. Each hop's label is a layout
        annotation named ``"edge:<hop>"`` (hops in :data:`EDGES`) and each box's
        ``"node:<station>"`` (stations in :data:`NODES`).

    Notes
    -----
    The hop times drawn are ``checkpoint_stall`` (async copy to host memory),
    ``checkpoint_write_time``, ``object_store_time``, ``link_time`` and, for
    the restore, ``rto_site_phases["staging"]`` plus ``checkpoint_load_time``.
    When replication does not keep up (``replication_keeps_up`` is False) the
    link is drawn red and says so.

    Examples
    --------
    >>> from drmath import plan
    >>> fig = data_path_figure(plan())
    >>> sorted(a.name for a in fig.layout.annotations if (a.name or "").startswith("edge:"))
    ['edge:host_copy', 'edge:link', 'edge:persist', 'edge:restore', 'edge:upload']
    """
    s = plan.scenario
    keeps_up = plan.replication_keeps_up
    nodes, edges = _data_path_labels(plan)

    fig = go.Figure()
    width, top, bottom = 0.78, 1.0, 0.55
    xs = {name: i for i, name in enumerate(NODES)}
    # the two sites, as shaded regions behind the boxes
    for x0, x1, label in ((-0.5, 3.5, "Primary site"), (3.5, 5.5, "Remote site")):
        fig.add_shape(type="rect", x0=x0 + 0.04, x1=x1 - 0.04, y0=0.02, y1=1.22, layer="below",
                      line=dict(color=GREY, dash="dot"), fillcolor=PALETTE["bg"])
        fig.add_annotation(x=(x0 + x1) / 2, y=1.17, text=f"<b>{label}</b>", showarrow=False,
                           font=dict(size=13, color=MUTED), name=f"site:{label}")
    for name, (title, body) in nodes.items():
        x = xs[name]
        colour = GREEN if name == "standby" else BLUE
        fig.add_shape(type="rect", x0=x - width / 2, x1=x + width / 2, y0=bottom, y1=top,
                      line=dict(color=colour, width=2), fillcolor="white")
        fig.add_annotation(x=x, y=(top + bottom) / 2, text=f"<b>{title}</b><br>{body}", showarrow=False,
                           font=dict(size=11, color=INK), name=f"node:{name}")
    for i, name in enumerate(EDGES):
        title, rate, time = edges[name]
        colour = RED if (name == "link" and not keeps_up) else INK
        y = (top + bottom) / 2
        fig.add_annotation(x=i + 1 - width / 2, y=y, ax=i + width / 2, ay=y, xref="x", yref="y",
                           axref="x", ayref="y", text="", showarrow=True, arrowhead=3,
                           arrowsize=1.2, arrowwidth=2, arrowcolor=colour)
        fig.add_annotation(x=i + 0.5, y=0.36, text=f"<i>{title}</i><br>{rate}<br>{time}",
                           showarrow=False, font=dict(size=11, color=colour), name=f"edge:{name}",
                           bgcolor="rgba(255,255,255,0.85)")
    # when the checkpoint becomes durable, and when it is off-site
    marks = (
        (1.5, "durable", f"durable after {plan.format('checkpoint_write_time')}"),
        (3.5, "offsite", f"off-site after {plan.format('replication_time')}"
                         + ("" if keeps_up else " — backlog grows, RPO unbounded")),
    )
    for x, key, text in marks:
        ok = keeps_up or key == "durable"
        fig.add_shape(type="line", x0=x + 0.5, x1=x + 0.5, y0=0.14, y1=0.5,
                      line=dict(color=GREEN if ok else RED, width=2))
        fig.add_annotation(x=x + 0.5, y=0.1, text=f"{'✓' if ok else '✗'} {text}", showarrow=False,
                           font=dict(size=11, color=GREEN if ok else RED), name=f"mark:{key}")
    streamed = "streamed" if s.replication.streamed else "store-and-forward"
    fig.update_layout(
        title=dict(text=(f"Data path of one {plan.format('checkpoint_size')} checkpoint "
                         f"({s.checkpoint.mode} checkpoints, {streamed} replication: "
                         f"{plan.format('replication_time')} per off-site copy, link busy "
                         f"{plan.format('replication_utilization')})"), font=dict(size=14)),
        xaxis=dict(range=[-0.55, 5.55], visible=False, fixedrange=True),
        yaxis=dict(range=[0.0, 1.26], visible=False, fixedrange=True),
        height=380, margin=dict(l=10, r=10, t=50, b=10),
        plot_bgcolor="white", paper_bgcolor="white", showlegend=False, font=dict(family=FONT, color=INK),
    )
    return fig


def _add_timeline(fig, row, phases, rto_text, lost, lost_text, note=None):
    total = sum(phases.values())
    size, unit = duration_unit(total)
    labels = [name.capitalize() for name in phases]
    start = 0.0
    bounded = math.isfinite(lost)
    fig.add_trace(go.Bar(
        orientation="h", y=["Work lost"], base=[-lost / size if bounded else 0.0],
        x=[lost / size if bounded else 0.0],
        marker=dict(color=rgba(RED, 0.35), line=dict(color=RED, width=1)),
        text=[lost_text], textposition="outside", cliponaxis=False,
        textfont=dict(color=RED, size=11), name="work lost", showlegend=False,
        hovertemplate=f"{lost_text}<extra></extra>"), row=row, col=1)
    for name, label in zip(phases, labels):
        duration = phases[name]
        text = _dur(duration) + (f" ({note})" if (note and name == "staging") else "")
        fig.add_trace(go.Bar(
            orientation="h", y=[label], base=[start / size], x=[duration / size],
            marker=dict(color=PHASE_COLOURS.get(name, BLUE)), text=[text], textposition="outside",
            cliponaxis=False, textfont=dict(size=11, color=INK), name=name, showlegend=False,
            hovertemplate=f"{label}: {text}<extra></extra>"), row=row, col=1)
        start += duration
    low = -lost / size if bounded else 0.0
    fig.add_vline(x=0, line=dict(color=RED, width=2, dash="dash"), row=row, col=1)
    fig.add_vline(x=total / size, line=dict(color=GREEN, width=2), row=row, col=1)
    span = total / size - low
    fig.update_xaxes(title_text=f"time since the failure [{unit}]", range=[low - 0.03 * span,
                     total / size + 0.32 * span], zeroline=False, row=row, col=1)
    fig.update_yaxes(autorange="reversed", categoryorder="array",
                     categoryarray=["Work lost"] + labels, row=row, col=1)
    return total / size


def recovery_timeline_figure(plan):
    r"""From the failure to training resumed, phase by phase, for both scopes.

    The top panel is a local failure (a GPU, node or rack; the site's storage
    survives); the bottom one is the loss of the whole site, failing over to
    the standby at the scenario's DR tier. Each phase is a bar that starts
    where the previous one ends, so the last bar ends at the RTO. The worst-case
    work lost (the RPO) is drawn before the failure, at negative time.

    Parameters
    ----------
    plan : drmath.Plan
        The derived numbers; the bars are ``rto_local_phases`` and
        ``rto_site_phases``, the lost work ``rpo_local`` and ``rpo_site``
        (written "unbounded" when replication does not keep up).

    Returns
    -------
    figure : plotly.graph_objects.Figure
        Two rows of horizontal bars; each phase trace is named after its key
        in the phase dict. The x axes are in the unit of
        :func:`drmath.formatting.duration_unit` for the span, as the
        axis title says.

    Examples
    --------
    >>> from drmath import plan
    >>> fig = recovery_timeline_figure(plan())
    >>> [t.name for t in fig.data if t.xaxis == "x2"][-1]
    'validation'
    >>> fig.layout.annotations[0].text
    'Local failure (node or rack): RTO <b>10.0 min</b>'
    """
    s = plan.scenario
    tier = presets.DR_TIERS[s.failover.tier]
    site_lost = (f"≤ {plan.format('rpo_site')} lost" if plan.replication_keeps_up
                 else "unbounded: replication does not keep up")
    local_title = f"Local failure (node or rack): RTO <b>{plan.format('rto_local')}</b>"
    site_title = (f"Site loss, failing over to the {tier.label.lower()}: RTO <b>{plan.format('rto_site')}</b>"
                  + ("" if plan.replication_keeps_up else " — <b>RPO unbounded</b>"))
    fig = make_subplots(rows=2, cols=1, subplot_titles=(local_title, site_title),
                        vertical_spacing=0.2, row_heights=[0.42, 0.58])
    _add_timeline(fig, 1, plan.rto_local_phases, plan.format("rto_local"), plan.rpo_local,
                  f"≤ {plan.format('rpo_local')} lost")
    staging_note = None if plan.rto_site_phases["staging"] > 0 else "replicas land on the standby"
    _add_timeline(fig, 2, plan.rto_site_phases, plan.format("rto_site"), plan.rpo_site, site_lost,
                  staging_note)
    fig.update_layout(
        title=dict(text="From the failure to training resumed (red dashes: the failure; green: resumed)",
                   font=dict(size=14)),
        barmode="overlay", height=600, margin=dict(l=10, r=30, t=70, b=40),
        plot_bgcolor="white", paper_bgcolor="white", bargap=0.35, font=dict(family=FONT, color=INK),
    )
    fig.update_xaxes(showgrid=True, gridcolor=GRID)
    return fig
