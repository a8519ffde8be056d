"""`import drmath` stays light: numpy is the only third-party package it loads.

pandas, plotly and ipywidgets are imported inside the functions that use them. Each check runs in a
fresh interpreter and compares the third-party packages in ``sys.modules`` before and after.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = {"pandas", "plotly", "ipywidgets"}

PROBE = """
import json, sys, sysconfig
site = sysconfig.get_paths()["purelib"]

def third_party():
    return {{name.split(".")[0] for name, module in list(sys.modules.items())
             if (getattr(module, "__file__", None) or "").startswith(site)}}

before = third_party()
{code}
print(json.dumps(sorted(third_party() - before)))
"""


def loaded_by(code):
    """The third-party top-level packages that running ``code`` loads, in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", PROBE.format(code=code)], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=120)
    return set(json.loads(out.stdout))


@pytest.mark.parametrize("module", ["drmath", "drmath.simulate", "drmath.drills"])
def test_import_loads_numpy_and_nothing_else(module):
    loaded = loaded_by(f"import {module}")
    assert not loaded & HEAVY, loaded
    assert loaded == {"numpy"}


def test_pandas_loads_when_a_table_is_asked_for():
    # the probe sees a heavy import when there is one: a simulation's frame and a drill log need pandas
    assert "pandas" in loaded_by("from drmath.simulate import simulate_run; simulate_run(trials=10).to_frame()")
    assert "pandas" in loaded_by("from drmath.io.drills import COLUMNS, parse_drill_records; "
                                 "parse_drill_records(','.join(COLUMNS))")
