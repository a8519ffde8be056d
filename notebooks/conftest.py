"""The notebooks' py:percent scripts are their sources, not test or doctest modules.

nbval runs the paired ``.ipynb`` files (``pytest --nbval-lax notebooks/``); importing a
script under ``--doctest-modules`` would run the whole notebook at collection time.
"""

import pytest

collect_ignore_glob = ["*.py"]


def pytest_collection_modifyitems(config, items):
    """Every notebook's cells are ``slow``: each notebook starts a kernel and takes ~10 s, ~1.5 CPU-min for the nine,
    a third of the fast set's budget (``-m "not browser and not slow"``); CI runs them all."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)
