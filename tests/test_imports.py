"""The package's import graph: no circle, and nothing on the ground floor imports upward.

Every module of ``drmath`` is read with :mod:`ast` (never imported), and each import it makes is an
edge: module-level imports and those inside functions, relative (``from .plan import x``) and absolute
(``import drmath.units``, ``from drmath import units``), and ``importlib.import_module("drmath.x")``
with a literal name. A deferred import inside a function still makes a circle: it only moves the
moment the circle bites.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "drmath"

GROUND_FLOOR = {"drmath.units": {"drmath._validate"}, "drmath._validate": set()}
"""The ground floor and the only drmath modules each may import."""


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules():
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _resolve(name, modules):
    """The module a dotted name means: itself if it is one, else its longest prefix that is one."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _package_names(modules):
    """What ``drmath.<name>`` means: ``{name: module}`` from the package's ``__init__`` (each ``from .x import
    name``) and its submodules (``drmath.io``, loaded on first use by its ``__getattr__``)."""
    names = {name.split(".")[1]: name for name in modules if name.count(".") >= 1}
    for node in ast.parse((PACKAGE / "__init__.py").read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for alias in node.names:
                dotted = f"drmath.{node.module}.{alias.name}" if node.module else f"drmath.{alias.name}"
                names[alias.asname or alias.name] = _resolve(dotted, modules)
    return names


def _dotted(node):
    """``a.b.c`` for an attribute chain on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def _imports(module, source, modules, is_package=False, names=None):
    """The drmath modules ``module`` imports, anywhere in its ``source``, with the line of each.

    A name taken from the package itself counts as an import of the module that defines it: ``import drmath``
    then ``drmath.plan(…)`` imports ``drmath._plan``, and so does ``from drmath import plan`` (``names``:
    :func:`_package_names`). Without that, every arrow through ``import drmath`` would be hidden.
    """
    package = module if is_package else module.rpartition(".")[0]
    names = {} if names is None else names
    found, aliases = {}, {}  # aliases: each local name bound to drmath or one of its modules, and what it is

    def add(name, line):
        target = _resolve(name, modules)
        if target is not None and target != module:
            found.setdefault(target, line)

    def add_package_name(attr, line):
        if attr in names:
            add(names[attr], line)

    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "drmath" or alias.name.startswith("drmath."):
                    add(alias.name, node.lineno)
                    aliases[alias.asname or "drmath"] = alias.name if alias.asname else "drmath"
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            elif node.module and (node.module == "drmath" or node.module.startswith("drmath.")):
                base = node.module
            else:
                continue
            for alias in node.names:  # `from . import units` imports the module drmath.units
                submodule = f"{base}.{alias.name}"
                add(submodule if submodule in modules else base, node.lineno)
                if base == "drmath" and submodule not in modules:  # `from drmath import plan`
                    add_package_name(alias.name, node.lineno)
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None))
              == "import_module" and node.args and isinstance(node.args[0], ast.Constant)
              and str(node.args[0].value).startswith("drmath")):
            add(node.args[0].value, node.lineno)
    for node in ast.walk(tree):  # `drmath.plan(...)`, `drmath.io.scenarios.loads(...)` after `import drmath`
        dotted = _dotted(node) if isinstance(node, ast.Attribute) else None
        head, *attrs = dotted.split(".") if dotted else [None]
        if head in aliases:
            whole = ".".join([aliases[head], *attrs])
            if _resolve(whole, modules) not in (None, "drmath"):
                add(whole, node.lineno)
            elif aliases[head] == "drmath":
                add_package_name(attrs[0], node.lineno)
    return found


def import_graph():
    """``{module: {imported module: line}}`` over every module of the package."""
    modules = _modules()
    names = _package_names(modules)
    return {module: _imports(module, path.read_text(), modules, path.name == "__init__.py", names)
            for module, path in modules.items()}


def _without_package_inits(graph):
    """The graph without edges from a submodule into its own package's ``__init__``.

    ``from . import units`` is resolved to the module ``drmath.units`` above; what is left of an edge into
    ``drmath`` itself is a name the package defines (``from . import __version__``), read from a package
    that is already being initialised whenever its submodule runs.
    """
    return {module: {t: line for t, line in targets.items() if not module.startswith(t + ".")}
            for module, targets in graph.items()}


def cycles(graph):
    """Each strongly connected group of two or more modules, as one circle through it (Tarjan)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_circle(graph, group) for group in groups]


def _circle(graph, group):
    """One path that starts and ends at the group's first module, through the group (breadth-first)."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node]):
                if nxt == start:
                    return paths[node] + [start]
                if nxt in members and nxt not in paths:
                    paths[nxt] = paths[node] + [nxt]
                    following.append(nxt)
        frontier = following
    return group  # unreachable for a strongly connected group


def _describe(graph, circle):
    return " -> ".join(f"{a} (line {graph[a][b]})" for a, b in zip(circle, circle[1:])) + f" -> {circle[-1]}"


def test_the_walker_sees_every_kind_of_import():
    # fails if the walker misses an import inside a function, a relative or absolute one, `from . import module`
    # or importlib.import_module: each is one way a circle hides
    modules = {"drmath": None, "drmath.a": None, "drmath.b": None, "drmath.c": None, "drmath.d": None,
               "drmath.e": None, "drmath.sub": None, "drmath.sub.f": None}
    source = """
from . import a, __version__
from .b import thing


def later():
    import drmath.c
    from drmath.d import other
    from .sub import f
    return importlib.import_module("drmath.e")
"""
    found = _imports("drmath.x", source, modules)
    assert set(found) == {"drmath", "drmath.a", "drmath.b", "drmath.c", "drmath.d", "drmath.e", "drmath.sub.f"}
    assert found["drmath.c"] == 7
    assert set(_imports("drmath.sub.f", "from ..a import y\nfrom . import g", modules)) == {"drmath.a", "drmath.sub"}
    assert set(_imports("drmath.sub", "from . import f", modules, is_package=True)) == {"drmath.sub.f"}


def test_the_walker_sees_an_arrow_through_import_drmath():
    # fails if `import drmath` then `drmath.plan(...)` hides its arrow to the module defining plan: the way views
    # called the model without the graph showing it (issue 33)
    modules = {"drmath": None, "drmath._plan": None, "drmath.io": None, "drmath.io.links": None, "drmath.units": None}
    names = {"plan": "drmath._plan", "io": "drmath.io", "units": "drmath.units"}
    source = """
import drmath
import drmath.units as u


def view(s):
    p = drmath.plan(s)
    u.hour
    return drmath.io.links.share_link(p)
"""
    found = _imports("drmath.viz.x", source, modules, names=names)
    assert found == {"drmath": 2, "drmath.units": 3, "drmath._plan": 7, "drmath.io": 9, "drmath.io.links": 9}
    assert set(_imports("drmath.viz.x", "from drmath import plan", modules, names=names)) == {"drmath", "drmath._plan"}
    assert set(_package_names(_modules())) >= {"plan", "sweep", "uncertainty", "solve", "explain", "io", "viz"}


def test_the_cycle_finder_finds_a_circle():
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b": 1}, "b": {}}) == []


def test_no_import_circle():
    graph = _without_package_inits(import_graph())
    found = cycles(graph)
    assert not found, "import circles:\n" + "\n".join(_describe(graph, c) for c in found)


@pytest.mark.parametrize("module", sorted(GROUND_FLOOR))
def test_the_ground_floor_imports_nothing_above_it(module):
    graph = import_graph()
    upward = {target: line for target, line in graph[module].items() if target not in GROUND_FLOOR[module]}
    assert not upward, f"{module} imports " + ", ".join(f"{t} (line {line})" for t, line in sorted(upward.items()))


# --------------------------------------------------------------------------- the layer line (issue 33)

CORE = {"drmath", "drmath.units", "drmath._validate", "drmath._formula", "drmath.training", "drmath.checkpoint",
        "drmath.architecture",
        "drmath.replication", "drmath.reliability", "drmath.recovery", "drmath.cost", "drmath.presets",
        "drmath.scenario", "drmath.quantities", "drmath._plan", "drmath._explain", "drmath._solve",
        "drmath._search", "drmath._confidence", "drmath._uncertainty", "drmath.simulate", "drmath.calibrate",
        "drmath.drills", "drmath.formatting", "drmath._spread_text", "drmath._resources", "drmath._probe",
        "drmath._moved", "drmath._variants", "drmath._params_text",
        "drmath._symbols", "drmath.measure"}
"""The model core: numbers and arrays in, results out (DESIGN.md, "Architecture")."""

ABOVE = ("drmath.io", "drmath.scenario_io", "drmath.viz", "drmath.dashboard", "drmath.serve", "drmath.report",
         "drmath.comparison", "drmath.answer", "drmath.offline", "drmath.diagrams", "drmath.cli", "drmath._templates")
"""What crosses the boundary (``drmath.io``), the views and the server: the core imports none of them."""

def _across(graph):
    return {(module, target): line for module in CORE for target, line in graph.get(module, {}).items()
            if target.startswith(ABOVE)}


def test_the_core_imports_no_reader_writer_view_or_server():
    across = _across(import_graph())
    assert not across, "the core imports across the line: " + ", ".join(
        f"{m} -> {t} (line {line})" for (m, t), line in sorted(across.items()))


def test_the_layer_check_sees_an_arrow_across_the_line():
    graph = {"drmath.training": {"drmath.viz.rpo": 3}, "drmath.viz.rpo": {"drmath.training": 1},
             "drmath.cost": {"drmath.units": 2}}
    assert _across(graph) == {("drmath.training", "drmath.viz.rpo"): 3}
    assert set(CORE) <= set(import_graph()), "a core module named here does not exist"


# --------------------------------------------------------------------------- views consume a Plan (issue 33)

STEPS = {"plan", "sweep", "bands", "uncertainty", "solve", "simulate"}
"""The model's steps: each derives numbers from a scenario. A view is handed their results."""

VIEWS = ("drmath.viz", "drmath.dashboard", "drmath.report", "drmath.comparison", "drmath.answer", "drmath.offline",
         "drmath.diagrams")
"""The views: figures, the dashboard, the report, the side-by-side and the worked answer's summary."""

CLIENTS = {"drmath.dashboard.app": "the dashboard: plans each input change, bands it, solves on a click",
           "drmath.dashboard.fleet": "the fleet panel: fits an incident log and plans the fitted scenario",
           "drmath.report": "`drmath report`'s entry: plans the scenario once and hands the plan to its renderers",
           "drmath.answer": "the worked answer: solves the seed once (worked_answer), then each tier and each "
                            "follow-up question's scenario, for notebook 00 and `drmath report`"}
"""The views that run the model for a reader, as the CLI and the notebooks do, with what they run it for."""

def step_calls(source):
    """The model steps ``source`` calls, ``{step: line}``: ``plan(…)`` after ``from drmath import plan`` or
    ``from .._plan import plan``, and ``drmath.plan(…)`` after ``import drmath``. Docstrings are text, not calls."""
    tree = ast.parse(source)
    local = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("drmath")):
            for alias in node.names:
                if alias.name in STEPS:
                    local[alias.asname or alias.name] = alias.name
    calls = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in local:
            calls.setdefault(local[func.id], node.lineno)
        elif isinstance(func, ast.Attribute) and func.attr in STEPS and _dotted(func.value) == "drmath":
            calls.setdefault(func.attr, node.lineno)
    return calls


def test_the_step_finder_sees_each_way_to_call_the_model():
    source = ('"""\n>>> drmath.plan()\n"""\nimport drmath\nfrom .._plan import sweep as s\n\n\n'
              'def f(p):\n    p.sweep("x", [1])\n    return drmath.plan(p.scenario), s(p.scenario, "x", [1])\n')
    assert step_calls(source) == {"plan": 10, "sweep": 10}  # the docstring's and the Plan's own method aside


def test_views_consume_a_plan_and_never_run_the_model():
    modules = _modules()
    ran = {}
    for module, path in modules.items():
        if module.startswith(VIEWS) and module not in CLIENTS:
            calls = step_calls(path.read_text())
            if calls:
                ran[module] = calls
    said = [f"{m} calls " + ", ".join(f"{s}() (line {line})" for s, line in sorted(c.items()))
            for m, c in sorted(ran.items())]
    assert not ran, "views that run the model: " + "; ".join(said)
