"""Committed notebooks hold no outputs and no execution counts (and no stored widget state)."""

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/*.ipynb not found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_committed_clean(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    dirty = []
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        if cell.get("outputs"):
            dirty.append(f"cell {i}: {len(cell['outputs'])} output(s)")
        if cell.get("execution_count") is not None:
            dirty.append(f"cell {i}: execution_count {cell['execution_count']}")
    if "widgets" in nb.get("metadata", {}):
        dirty.append("metadata.widgets: stored widget state")
    assert not dirty, (f"{path.name} must be committed without outputs "
                       f"(jupyter nbconvert --clear-output --inplace {path.name}): " + "; ".join(dirty))
