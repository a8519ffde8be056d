"""The one build step pyproject.toml cannot say: ship the repository's top-level data/ inside the package.

The scenarios and the example drill log live once in git, in ``data/`` at the root, where a reader sees
them (``data/README.md``). A wheel must carry them, so building copies them into ``drmath/data/`` of the
build tree; ``drmath._resources.shipped_dir`` finds them there when installed, and in ``data/`` in a
checkout. Everything else about the build is in ``pyproject.toml``.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# drmath._resources.SHIPPED (not imported: this runs before drmath)
SHIPPED = ("scenarios", "drills_example.csv", "incidents_example.csv", "run_example.jsonl")
NOTEBOOKS = "notebooks"  # drmath._resources.NOTEBOOKS: the numbered notebooks the served site shows


class build_py_with_shipped_data(build_py):
    """``build_py``, then a copy of ``data/<each of SHIPPED>`` into ``drmath/data/`` of the build tree, and of the
    numbered notebooks into ``drmath/data/notebooks/``."""

    def run(self):
        super().run()
        target = Path(self.build_lib) / "drmath" / "data"
        for name in SHIPPED:
            source = ROOT / "data" / name
            if source.is_dir():
                shutil.copytree(source, target / name, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__", ".*"))
            else:
                target.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / name)
        (target / NOTEBOOKS).mkdir(parents=True, exist_ok=True)  # the site's pages (python -m drmath.serve)
        for source in sorted((ROOT / NOTEBOOKS).glob("[0-9][0-9]_*.ipynb")):
            shutil.copy2(source, target / NOTEBOOKS / source.name)


setup(cmdclass={"build_py": build_py_with_shipped_data})
