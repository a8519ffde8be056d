"""Each notebook's source is its jupytext py:percent script; the committed .ipynb must be what jupytext makes of it.

After editing ``notebooks/NN_name.py``, regenerate its notebook (ids kept, no outputs)::

    .venv/bin/jupytext --update --to ipynb notebooks/NN_name.py

The app notebook that ``python -m drmath.serve`` runs ships inside the package::

    .venv/bin/jupytext --update --to ipynb notebooks/dashboard.py -o drmath/data/dashboard.ipynb
"""

import json
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SHIPPED = {"dashboard": ROOT / "drmath" / "data" / "dashboard.ipynb"}
"""Scripts whose notebook lives elsewhere: the app notebook is package data."""

SCRIPTS = sorted(p for p in NOTEBOOKS.glob("*.py") if p.name != "conftest.py")


def notebook_of(script):
    """The committed .ipynb generated from a script."""
    return SHIPPED.get(script.stem, script.with_suffix(".ipynb"))


def _cells(nb):
    return [(c["cell_type"], c["source"] if isinstance(c["source"], str) else "".join(c["source"]))
            for c in nb["cells"]]


def drift(script_text, notebook_text):
    """How a committed notebook differs from the one its script makes: a list of findings, empty when in step.

    Compares the kernelspec and each cell's type and source (outputs and ids are not compared:
    test_notebooks_clean.py keeps outputs out).
    """
    want = jupytext.reads(script_text, fmt="py:percent")
    have = json.loads(notebook_text)
    found = []
    if want.metadata.get("kernelspec") != have.get("metadata", {}).get("kernelspec"):
        found.append(f"kernelspec: script {want.metadata.get('kernelspec')} != "
                     f"notebook {have.get('metadata', {}).get('kernelspec')}")
    a, b = _cells(want), _cells(have)
    if len(a) != len(b):
        found.append(f"{len(a)} cells in the script, {len(b)} in the notebook")
    for i, ((type_a, src_a), (type_b, src_b)) in enumerate(zip(a, b)):
        if type_a != type_b:
            found.append(f"cell {i}: {type_a} in the script, {type_b} in the notebook")
        elif src_a != src_b:
            line = next((j for j, (x, y) in enumerate(zip(src_a.splitlines(), src_b.splitlines())) if x != y),
                        min(len(src_a.splitlines()), len(src_b.splitlines())))
            found.append(f"cell {i} ({type_a}) differs from line {line + 1}")
    return found


def test_there_are_scripts():
    assert len(SCRIPTS) >= 9, [p.name for p in SCRIPTS]


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_script_has_its_notebook(script):
    assert notebook_of(script).is_file(), f"{script.name} has no notebook: {notebook_of(script)} is missing"


def test_every_notebook_has_its_script():
    orphans = [p.name for p in NOTEBOOKS.glob("*.ipynb") if not p.with_suffix(".py").is_file()]
    assert not orphans, f"notebooks without a script (write notebooks/NN_name.py, then generate): {orphans}"
    strays = [p.name for p in NOTEBOOKS.glob("*.ipynb") if p.stem in SHIPPED]
    assert not strays, f"these notebooks are generated into the package, not notebooks/: {strays}"


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_script_is_percent_format_with_a_python3_kernel(script):
    nb = jupytext.reads(script.read_text(encoding="utf-8"), fmt="py:percent")
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", \
        f"{script.name}: its header needs kernelspec name python3 (Voilà and nbval start that kernel)"
    assert any(c.cell_type == "code" for c in nb.cells), f"{script.name}: no '# %%' code cell"


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_notebook_matches_its_script(script):
    notebook = notebook_of(script)
    found = drift(script.read_text(encoding="utf-8"), notebook.read_text(encoding="utf-8"))
    target = "" if script.stem not in SHIPPED else f" -o {notebook.relative_to(ROOT)}"
    assert not found, (f"{notebook.relative_to(ROOT)} is out of step with {script.relative_to(ROOT)}; regenerate it: "
                       f".venv/bin/jupytext --update --to ipynb {script.relative_to(ROOT)}{target}\n"
                       + "\n".join(found))


# fails if drift() stops seeing an edited script: each edit below must be reported
@pytest.mark.parametrize("edit, expected", [
    pytest.param(lambda s: s.replace("# ## Takeaway", "# ## The takeaway", 1), r"cell \d+ \(markdown\) differs",
                 id="prose"),
    pytest.param(lambda s: s.replace("p = plan(s)", "p = plan(s.with_changes({}))", 1), r"cell \d+ \(code\) differs",
                 id="code"),
    pytest.param(lambda s: s + "\n# %%\nprint(p.format('mtbf'))\n", r"\d+ cells in the script", id="new-cell"),
    pytest.param(lambda s: s.replace("# %% [markdown]\n# ## Takeaway", "# %%\n# ## Takeaway", 1),
                 r"cell \d+: code in the script, markdown in the notebook", id="cell-type"),
    pytest.param(lambda s: s.replace("#     name: python3", "#     name: python2", 1), "kernelspec", id="kernel"),
])
def test_drift_catches_an_edited_script(edit, expected):
    script = NOTEBOOKS / "03_replication_and_rpo.py"
    text = script.read_text(encoding="utf-8")
    notebook = notebook_of(script).read_text(encoding="utf-8")
    assert drift(text, notebook) == []
    edited = edit(text)
    assert edited != text
    assert any(re.match(expected, f) for f in drift(edited, notebook)), drift(edited, notebook)
