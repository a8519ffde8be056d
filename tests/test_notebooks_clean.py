"""Committed notebooks hold no outputs and no execution counts (and no stored widget state)."""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# the workbook notebooks, and the app notebook that ships as package data (drmath/data/dashboard.ipynb)
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "drmath" / "data").glob("*.ipynb"))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 9, [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[str(p.relative_to(ROOT)) for p in NOTEBOOKS])
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
    assert not dirty, (f"{path.name} must be committed without outputs (regenerate it from its script, "
                       f"see tests/test_notebook_pairs.py): " + "; ".join(dirty))
