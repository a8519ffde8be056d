"""The house drawing: drmath's modules in their layers, and the arrows between the layers, from the import graph.

``docs/house.svg`` is drawn from :func:`test_imports.import_graph` (every import, in functions too, and every
``drmath.<name>`` reached through ``import drmath``), so it cannot say what the code does not do.
``tests/test_house.py`` fails when the committed drawing is not what the code draws now; redraw it with::

    python tests/house.py

Four floors, the model core at the bottom: each arrow between two floors is counted, and an arrow that climbs
(a lower floor importing a higher one) is drawn in red beside its count. There are none.
"""

import html
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest imports this file with --import-mode=importlib
from test_imports import ABOVE, CORE, import_graph  # noqa: E402

DRAWING = Path(__file__).resolve().parent.parent / "docs" / "house.svg"

SERVE = ("drmath.serve",)
IO = ("drmath.io", "drmath.scenario_io")
FLOORS = (
    ("serve", "serve/: the public page (Voilà), its kernels and their plumbing", SERVE),
    ("views", "the views and the clients: figures, dashboard, report, side by side, worked answer, CLI",
     ("drmath.__main__", *(p for p in ABOVE if not p.startswith(SERVE + IO)))),
    ("io", "io/: what crosses the boundary (TOML, share links, incident logs, drill records, files)", IO),
    ("core", "the model core: numbers and arrays in, results out", tuple(sorted(CORE))),
)
"""Each floor, top to bottom: its name, what it holds, and the module names (or prefixes) on it."""


def floor_of(module):
    """The floor a module stands on (its longest matching name or prefix); None if no floor claims it."""
    best = None
    for name, _, members in FLOORS:
        for member in members:
            if module == member or (module.startswith(member + ".") and member != "drmath"):
                if best is None or len(member) > best[1]:
                    best = (name, len(member))
    return best and best[0]


def arrows(graph):
    """``{(from floor, to floor): count}`` over every import between two floors."""
    counts = {}
    for module, targets in graph.items():
        for target in targets:
            a, b = floor_of(module), floor_of(target)
            if a != b:
                counts[(a, b)] = counts.get((a, b), 0) + 1
    return counts


def climbing(counts):
    """The arrows that go up a floor: ``{(from, to): count}``."""
    order = [name for name, _, _ in FLOORS]  # top first
    return {(a, b): n for (a, b), n in counts.items() if order.index(a) > order.index(b)}


def _short(module):
    return module.removeprefix("drmath.") or "drmath"


def draw(graph):
    """The drawing as SVG text."""
    left, box_w, line_h = 20, 660, 15
    by_floor = {name: sorted(m for m in graph if floor_of(m) == name) for name, _, _ in FLOORS}
    counts = arrows(graph)
    up = climbing(counts)
    parts, y, boxes = [], 20, {}
    for name, what, _ in FLOORS:
        words, lines, line = [_short(m) for m in by_floor[name]], [], ""
        for word in words:
            if len(line) + len(word) + 2 > 100:
                lines.append(line)
                line = ""
            line = f"{line}  {word}" if line else word
        lines.append(line)
        height = 34 + line_h * len(lines)
        fill = "#e8f0fa" if name == "core" else "#f6f6f6"
        parts.append(f'<rect x="{left}" y="{y}" width="{box_w}" height="{height}" rx="6" fill="{fill}" '
                     f'stroke="#456"/>')
        parts.append(f'<text x="{left + 10}" y="{y + 18}" font-weight="bold">{html.escape(what)} '
                     f'({len(words)} modules)</text>')
        for i, text in enumerate(lines):
            parts.append(f'<text x="{left + 10}" y="{y + 36 + i * line_h}" font-size="11" '
                         f'font-family="monospace">{html.escape(text)}</text>')
        boxes[name] = (y, y + height)
        y += height + 26
    x = left + box_w + 30
    order = [name for name, _, _ in FLOORS]
    for i, (a, b) in enumerate(sorted(counts, key=lambda ab: (order.index(ab[0]), order.index(ab[1])))):
        going_up = (a, b) in up
        y0 = boxes[a][1] - 8 if not going_up else boxes[a][0] + 8
        y1 = boxes[b][0] + 8 if not going_up else boxes[b][1] - 8
        xi = x + 40 * i
        colour = "#c0392b" if going_up else "#456"
        head = "up" if going_up else "head"
        parts.append(f'<line x1="{xi}" y1="{y0}" x2="{xi}" y2="{y1}" stroke="{colour}" marker-end="url(#{head})"/>')
        parts.append(f'<text x="{xi + 4}" y="{(y0 + y1) / 2}" font-size="11" fill="{colour}">{counts[(a, b)]}</text>')
    parts.append(f'<text x="{left}" y="{y + 4}" font-size="12">Arrows: imports from floor to floor (every import, '
                 f'and each drmath.&lt;name&gt; reached through import drmath), counted. Climbing a floor: '
                 f'{sum(up.values())}.</text>')
    height, width = y + 20, x + 40 * len(counts) + 10
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">\n'
            '<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#456"/></marker>'
            '<marker id="up" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#c0392b"/></marker></defs>\n'
            '<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(parts) + "\n</svg>\n")


if __name__ == "__main__":
    DRAWING.parent.mkdir(exist_ok=True)
    DRAWING.write_text(draw(import_graph()))
    print(f"wrote {DRAWING.name}", file=sys.stderr)
