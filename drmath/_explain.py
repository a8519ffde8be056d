r"""The worked derivation of a plan's quantity: its formula, the inputs substituted with units, the result.

:meth:`drmath.Plan.explain` and :meth:`drmath.Plan.warnings` call this module. Each quantity's
registry entry (:mod:`drmath.quantities`) holds its formula's TeX and templates with placeholders:
``<name>`` is a quantity, an input (``<training.gpus>``), an RTO phase (``<rto_site.readiness>``) or the
DR tier's preset (``<tier.readiness>``), and ``<name|kind>`` writes it as another kind of value. This
module fills them with one plan's numbers, formatted the way every view formats them.

    >>> from drmath import plan
    >>> print(_fill(plan(), r"M = <mtbf>", True))
    M = \text{6.33 h}
"""

import re

from . import presets
from ._validate import short_repr
from .formatting import format_quantity, markdown_text
from .quantities import QUANTITIES
from .scenario import FIELDS, SECTIONS

__all__ = ["Explanation"]


class Explanation(str):
    """A worked derivation: Markdown with LaTeX, rendered as Markdown by Jupyter."""

    def _repr_markdown_(self):
        return str(self)


_PLACEHOLDER = re.compile(r"<([a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)?)(?:\|([a-z_]+))?>")


def _lookup(p, key):
    """The value and kind of a placeholder: a quantity, an input, a phase or the tier's preset."""
    head, _, rest = key.partition(".")
    if head == "tier":
        return getattr(presets.DR_TIERS[p.scenario.failover.tier], rest), "plain"
    if head in SECTIONS:
        return p.scenario.get(key), FIELDS[key].kind
    if rest:
        return getattr(p, head)[rest], "duration"
    return getattr(p, key), QUANTITIES[key].kind


def _text(p, key, kind):
    value, own = _lookup(p, key)
    return f"{value:g}" if kind == "g" else format_quantity(value, kind or own)


def _money(text):
    """Money outside the math, for every reader of the Markdown: the entity ``&#36;`` with no ``<span>``.

    The report renders this Markdown with raw HTML escaped, so no span; each amount outside the math stands
    alone in its element (the bold title, a table cell), where no two dollars can pair
    (:func:`drmath.formatting.markdown_text`).
    """
    return markdown_text(text, span=False)


def _tex_text(text):
    escaped = text.replace("\\", r"\\").replace("$", r"\$").replace("%", r"\%").replace("#", r"\#")
    return r"\text{" + escaped.replace(",", "{,}") + "}"


def _fill(p, template, tex):
    """A registry template with this plan's numbers in place of its placeholders."""
    if callable(template):
        template = template(p)
    if not template:
        return template

    def one(match):
        text = _text(p, match.group(1), match.group(2))
        return _tex_text(text) if tex else _money(text)  # "$" outside math is money, not TeX

    return _PLACEHOLDER.sub(one, template)


def _explain(p, name):
    if name in ("rto_local_phases", "rto_site_phases"):
        name = name.removesuffix("_phases")
    if name not in QUANTITIES:
        known = ", ".join(sorted(set(QUANTITIES) | {"rto_local_phases", "rto_site_phases"}))
        raise ValueError(f"unknown plan field {short_repr(name)}: choose from {known}")
    q = QUANTITIES[name]
    formula = _fill(p, q.tex(p), True)
    note = "\n\n".join(t for t in (q.where(p), _fill(p, q.note, False)) if t)  # the symbols in words, then the note
    if q.table:
        values = getattr(p, name)
        baseline = presets.BASELINE_TIER if name == "break_even_delay_costs" else None  # weighed against it
        rows = "\n".join(f"| {presets.DR_TIERS[k].label} | "
                         f"{'baseline' if k == baseline else _money(format_quantity(x, q.kind))} |"
                         for k, x in values.items())
        text = f"**{q.title}**\n\n$${formula}$$\n\n| tier | {q.short} |\n|---|---|\n{rows}\n"
        return text + (f"\n{note}\n" if note else "")
    result = p.format(name)
    substitution = _fill(p, q.substitution, True)
    line = f"{substitution} = {_tex_text(result)}" if substitution else _tex_text(result)
    text = f"**{q.title}: {_money(result)}**\n\n$${formula}$$\n\n$$= {line}$$\n"
    return text + (f"\n{note}\n" if note else "")
