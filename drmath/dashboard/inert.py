"""Which controls do nothing for the chosen DR tier, found from the model itself, and why.

A control "does nothing" for a tier when no scalar output of :func:`drmath.plan` moves as it sweeps its range
(the per-tier table still shows every tier, so it is left out). Rather than a hand list beside the tier presets,
each control is probed at its two extreme values with the tier on screen: the model says which inputs its
formulas read (``drmath._probe.moves_nothing``, a model step; this module only words the reasons). A multi-site
run fails over automatically, so its decision time moves nothing; a tier whose replication lands on the standby
has no staging, and so on, as :mod:`drmath.recovery` computes it.

    >>> import drmath
    >>> p = drmath.plan(drmath.Scenario().with_changes({"failover.tier": "multi-site"}))
    >>> inert = inert_fields(p, {"failover.decision_time": (0.0, 28_800.0), "training.gpus": (512, 131_072)})
    >>> list(inert), "Multi-site" in inert["failover.decision_time"]
    (['failover.decision_time'], True)
"""

from .._probe import moves_nothing
from ..presets import DR_TIERS
from ..quantities import QUANTITIES, SCALARS

__all__ = ["inert_fields", "compute_note"]

_DR_OUTPUTS = tuple(name for name in SCALARS if QUANTITIES[name].group != "run")
"""Every scalar output but the run's own (its compute, tokens, time and cost): what the charts draw."""


def _reason(scenario, path, p):
    """Why ``path`` does nothing for the scenario's tier, in words: the phase it times is skipped, or no number
    of the plan reads it."""
    tier = DR_TIERS[scenario.failover.tier]
    phase = path.split(".", 1)[1].removesuffix("_time")
    if path.startswith("failover.") and p.rto_site_phases.get(phase) == 0:
        why = (f"the {phase} phase is skipped: it fails over automatically" if tier.automatic and phase == "decision"
               else f"the {phase} phase takes no time on this tier")
    else:
        why = "no number of the plan depends on it"
    return f"does nothing for {tier.label}: {why}"


def inert_fields(p, probes):
    """The inputs among ``probes`` that move no scalar output of the plan for its scenario's tier, with why.

    Parameters
    ----------
    p : Plan
        The plan on screen; its tier is the one judged.
    probes : dict of str to tuple
        Each input path and the values it is tried at (a control's extremes), in SI.

    Returns
    -------
    inert : dict of str to str
        Each input that moves nothing, mapped to the reason in words ("does nothing for Multi-site …").
    """
    return {path: _reason(p.scenario, path, p) for path in moves_nothing(p, probes)}


def mark_inert(p, controls, note, previous=None):
    """Disable the dashboard's controls that do nothing for the scenario's tier, with the reason on each and in
    ``note``; re-enable the others. Probes only when the tier changed since ``previous`` (the tier last judged).

    Parameters
    ----------
    p : Plan
        The plan on screen.
    controls : dict of str to drmath.dashboard.widgets._Control
        The dashboard's controls, by input path; the tier and the targets are never disabled.
    note : ipywidgets.HTML
        Where the reasons are written, for a reader who cannot hover.
    previous : str, optional
        The tier judged last time: nothing is probed again while it holds.

    Returns
    -------
    tier : str
        The tier judged, to pass back as ``previous``.
    """
    import html

    from ..scenario import FIELDS

    tier = p.scenario.failover.tier
    if tier == previous:
        return tier
    probes = {}
    for path, control in controls.items():
        if path == "failover.tier" or path.startswith("requirements."):
            continue
        values = [control.to_si(v) for _, v in control.widget.options]
        values = [v for v in values if v is not None]
        probes[path] = (values[0], values[-1])
    inert = inert_fields(p, probes)
    for path in probes:
        controls[path].widget.disabled = path in inert
        controls[path].widget.tooltip = inert.get(path, FIELDS[path].doc)
    note.value = "".join(f'<div class="drmath-inert">{html.escape(controls[path].widget.description)} '
                         f'{html.escape(reason)}.</div>' for path, reason in inert.items())
    return tier


def compute_note(p, mfus):
    """The line under the MFU control: what MFU moves, and why no chart moves with it when none does.

    MFU sets the run's compute. With the run's window set, that is the tokens it trains, and most tiers' DR
    numbers do not read it (the probe asks the model, at each of ``mfus``; a multi-site run's cross-site link
    is sized by the step time, so its cost does). With the tokens set, MFU sets the time to train and every
    cost over it.

    Parameters
    ----------
    p : Plan
        The plan on screen.
    mfus : sequence of float
        The MFU values probed (the control's extremes). [1]

    Returns
    -------
    note : str
        One line, starting "→".

    Examples
    --------
    >>> import drmath
    >>> print(compute_note(drmath.plan(), (0.2, 0.6)))  # doctest: +NORMALIZE_WHITESPACE
    → MFU sets the tokens trained in the run's 90.0 days (9.77T, on the Time to train card); no DR number
    depends on it, so no chart moves
    >>> multi_site = drmath.Scenario().with_changes({"failover.tier": "multi-site"})
    >>> print(compute_note(drmath.plan(multi_site), (0.2, 0.6)))  # doctest: +NORMALIZE_WHITESPACE
    → MFU sets the tokens trained in the run's 90.0 days (9.77T, on the Time to train card), and DR numbers
    with them
    """
    if p.run_driver != "window":
        return f"→ MFU sets the time to train ({p.format('time_to_train')}), and with it every cost over the run"
    if moves_nothing(p, {"training.mfu": mfus}, outputs=_DR_OUTPUTS):
        return (f"→ MFU sets the tokens trained in the run's {p.format('time_to_train')} ({p.format('tokens')}, "
                "on the Time to train card); no DR number depends on it, so no chart moves")
    return (f"→ MFU sets the tokens trained in the run's {p.format('time_to_train')} ({p.format('tokens')}, "
            "on the Time to train card), and DR numbers with them")
