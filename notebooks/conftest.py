"""The notebooks' py:percent scripts are their sources, not test or doctest modules.

nbval runs the paired ``.ipynb`` files (``pytest --nbval-lax notebooks/``); importing a
script under ``--doctest-modules`` would run the whole notebook at collection time.
"""

collect_ignore_glob = ["*.py"]
