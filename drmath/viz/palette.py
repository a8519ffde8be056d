"""The one palette: every colour and the font drmath draws with, for figures, diagrams and pages.

Figures and diagrams (:mod:`drmath.viz.diagrams`) take the colours by name (:data:`BLUE`,
:data:`PHASE_COLOURS` …); a page's stylesheet takes them as CSS custom properties (:func:`css_variables`), so each
colour is written once, here.

    >>> PALETTE["blue"] == BLUE, css_variables().startswith(":root { --drmath-ink: ")
    (True, True)
"""

__all__ = ["PALETTE", "SERIES", "PHASE_COLOURS", "TIER_COLOURS", "FONT", "rgba", "css_variables", "INK", "MUTED",
           "GRID", "BLUE", "ORANGE", "GREEN", "GREY", "RED", "PURPLE", "PINK", "TEAL", "BAD_FILL"]

PALETTE = {
    # a quiet palette that reads in print and on a projector
    "ink": "#1f2933", "muted": "#52606d", "faint": "#7b8794", "grid": "#e4e7eb", "bg": "#f8fafc",
    "blue": "#2563eb", "orange": "#ea580c", "green": "#16a34a", "grey": "#9aa5b1", "red": "#dc2626",
    "purple": "#7c3aed", "pink": "#db2777", "teal": "#0d9488",
    # tints for messages on a page: errors, notices, notes, formulas
    "red-ink": "#b91c1c", "red-tint": "#fef2f2", "red-line": "#fecaca",
    "amber-ink": "#92400e", "amber-tint": "#fffbeb", "amber-line": "#fde68a",
    "blue-tint": "#eff6ff", "indigo-tint": "#eef2ff",
}
"""Every colour drmath draws with, by name: figures, diagrams, the dashboard and the report
(pages get them as CSS variables, :func:`css_variables`)."""

INK, MUTED, GRID = PALETTE["ink"], PALETTE["muted"], PALETTE["grid"]
BLUE, ORANGE, GREEN, GREY = PALETTE["blue"], PALETTE["orange"], PALETTE["green"], PALETTE["grey"]
RED, PURPLE, PINK, TEAL = PALETTE["red"], PALETTE["purple"], PALETTE["pink"], PALETTE["teal"]

SERIES = (BLUE, ORANGE, GREEN, PURPLE)
"""One colour per plan when plans are overlaid, in order."""

PHASE_COLOURS = {"detection": PURPLE, "decision": PINK, "reschedule": ORANGE, "readiness": ORANGE,
                 "staging": TEAL, "launch": BLUE, "load": GREEN, "validation": GREY}
"""The colour of each recovery phase (:data:`drmath.recovery.SITE_PHASES`) on a timeline."""

TIER_COLOURS = {"cold": BLUE, "pilot-light": TEAL, "warm": GREEN, "hot": PURPLE, "multi-site": PINK}
"""One colour per DR tier on the Pareto front (orange is the chosen design's, red the infeasible side's)."""

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
"""The font stack of every figure and page."""


def rgba(colour, alpha):
    """A palette colour made translucent, for fills.

    Parameters
    ----------
    colour : str
        ``"#rrggbb"``.
    alpha : float
        Opacity from 0 (clear) to 1.

    Returns
    -------
    css : str
        ``"rgba(r, g, b, alpha)"``.

    Examples
    --------
    >>> rgba(RED, 0.08)
    'rgba(220, 38, 38, 0.08)'
    """
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha:g})"


BAD_FILL = rgba(RED, 0.08)
"""The fill of a region where the design fails: replication falls behind, a target is missed."""


def css_variables():
    """The palette and font as CSS custom properties, for a page's stylesheet.

    Returns
    -------
    css : str
        A ``:root`` rule: ``--drmath-<name>`` for each colour of :data:`PALETTE`, and
        ``--drmath-font``.

    Examples
    --------
    >>> css_variables().split("; ")[0]
    ':root { --drmath-ink: #1f2933'
    """
    props = [f"--drmath-{name}: {value}" for name, value in PALETTE.items()] + [f"--drmath-font: {FONT}"]
    return ":root { " + "; ".join(props) + "; }"
