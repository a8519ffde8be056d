"""The files drmath reads at run time, found the same way from a checkout and from an installed wheel.

Two places hold them:

- ``drmath/data/`` (package data, :func:`data_dir`): what the code itself needs, in git inside the package:
  ``dashboard.ipynb`` (the app notebook that ``python -m drmath.serve`` runs in Voilà);
  ``voila/templates/drlab/`` (the Voilà template, :func:`template_dir`, with the vendored plotly.js
  "basic" bundle in its ``static/`` folder, :func:`plotly_bundle`); ``report/`` (what the standalone report
  is rendered from); ``widgets/``. ``data/`` is laid out as a Jupyter data directory, which ``drmath.serve``
  puts first on ``JUPYTER_PATH``; Voilà serves the template's ``static/`` files at
  ``voila/templates/drlab/static/<file>``.
- The repository's top-level ``data/`` (:func:`shipped_dir`): the data a reader should see, in git once, at
  the root: ``scenarios/*.toml`` (:func:`scenario_files`), ``drills_example.csv`` (an illustrative drill
  log) and ``incidents_example.csv`` (a generated incident log, the dashboard's "use the example log").
  ``setup.py`` copies them into ``drmath/data/`` when a wheel is built, so an installed drmath finds them
  inside the package; a checkout (or an editable install) finds them at the root.

``pyproject.toml`` declares ``drmath/data/`` as package data. The functions return
:class:`pathlib.Path` objects, because Voilà and the report read real files: pip installs a wheel
unpacked, and an editable install points into the checkout.

    >>> data_file("voila", "templates", "drlab", "conf.json").name
    'conf.json'
    >>> (template_dir() / "conf.json").read_text().strip()
    '{"base_template": "lab"}'
    >>> shipped_file("scenarios", "seed.toml").name
    'seed.toml'
"""

from importlib.resources import files
from pathlib import Path

__all__ = ["data_dir", "data_file", "shipped_dir", "shipped_file", "scenario_dir", "scenario_files", "template_dir",
           "plotly_bundle", "notebook_files", "SHIPPED", "NOTEBOOKS", "PLOTLY_JS_VERSION", "PLOTLY_STATIC"]

SHIPPED = ("scenarios", "drills_example.csv", "incidents_example.csv", "run_example.jsonl")
"""What the repository's top-level ``data/`` holds for the package (``setup.py`` copies these into the wheel)."""

NOTEBOOKS = "notebooks"
"""The folder of the numbered notebooks (``00_worked_answer.ipynb`` …): ``notebooks/`` at the root of a checkout,
``drmath/data/notebooks/`` in a wheel (``setup.py`` copies them there), so ``python -m drmath.serve`` serves them
from either (:func:`notebook_files`)."""

PLOTLY_JS_VERSION = "4.1.1"
"""Version of the vendored plotly.js "basic" bundle (scatter, bar and pie traces only)."""

PLOTLY_STATIC = f"voila/templates/drlab/static/plotly-basic-{PLOTLY_JS_VERSION}.min.js?v={PLOTLY_JS_VERSION}"
"""plotly.js (the scatter/bar/pie "basic" bundle, vendored in the drlab template), relative to
the server's base URL. The versioned query makes tornado mark it cacheable for ten years."""


def data_dir():
    """The folder of drmath's data files, ``drmath/data/`` where drmath is installed.

    Returns
    -------
    path : pathlib.Path
        The folder; it is also a Jupyter data directory (``voila/templates/...``).

    Raises
    ------
    RuntimeError
        If drmath is imported from a zip archive, where its data files are not files.

    Examples
    --------
    >>> data_dir().name
    'data'
    """
    root = files(__package__) / "data"
    if not isinstance(root, Path):
        raise RuntimeError(f"drmath's data files must be files on disk; drmath is imported from {root}: "
                           f"install it with pip (unpacked), not as a zip archive")
    return root


def data_file(*parts):
    """A file or folder under ``drmath/data/``.

    Parameters
    ----------
    *parts : str
        Path components below ``drmath/data/``, e.g. ``"report", "report.css"``.

    Returns
    -------
    path : pathlib.Path
        Its path (whether or not it exists).

    Raises
    ------
    ValueError
        If a part is absolute or ``..``: nothing outside the package's data is reached.

    Examples
    --------
    >>> data_file("report").name
    'report'
    >>> data_file("..", "serve.py")
    Traceback (most recent call last):
    ...
    ValueError: data_file parts = ('..', 'serve.py'): each must be a name below drmath/data (no '..', not absolute)
    """
    return _below(data_dir, parts, "data_file", "drmath/data")


def shipped_dir():
    """The folder of the shipped scenarios and drill example (:data:`SHIPPED`).

    Inside the installed package (``drmath/data/``) when a wheel put them there, else the checkout's
    top-level ``data/``, where they live in git.

    Returns
    -------
    path : pathlib.Path
        The folder.

    Raises
    ------
    RuntimeError
        If neither place holds them (a wheel built without ``setup.py``'s copy step).

    Examples
    --------
    >>> (shipped_dir() / "drills_example.csv").is_file()
    True
    """
    for root in (data_dir(), Path(__file__).resolve().parent.parent / "data"):
        if all((root / name).exists() for name in SHIPPED):
            return root
    raise RuntimeError(f"drmath's shipped data ({', '.join(SHIPPED)}) is neither in {data_dir()} nor in a "
                       f"checkout's data/ folder: build the wheel with the repository's setup.py")


def shipped_file(*parts):
    """A file or folder under :func:`shipped_dir`, e.g. ``shipped_file("drills_example.csv")``.

    Parameters
    ----------
    *parts : str
        Path components below it.

    Returns
    -------
    path : pathlib.Path
        Its path (whether or not it exists).

    Raises
    ------
    ValueError
        If a part is absolute or ``..``.

    Examples
    --------
    >>> shipped_file("drills_example.csv").read_text().splitlines()[0][:20]
    '# ILLUSTRATIVE DATA:'
    """
    return _below(shipped_dir, parts, "shipped_file", "the shipped data")


def _below(root, parts, name, where):
    """``root() / parts``, refused (ValueError naming ``name`` and ``where``) unless each part is a name below it."""
    if not parts or any(Path(part).is_absolute() or ".." in Path(part).parts for part in parts):
        raise ValueError(f"{name} parts = {parts!r}: each must be a name below {where} (no '..', not absolute)")
    return root().joinpath(*parts)


def scenario_dir():
    """The folder of the shipped scenario files: ``scenarios/`` in :func:`shipped_dir`.

    Returns
    -------
    path : pathlib.Path
        The folder.

    Examples
    --------
    >>> scenario_dir().name
    'scenarios'
    """
    return shipped_file("scenarios")


def scenario_files():
    """The shipped scenario files, by file name.

    Returns
    -------
    paths : list of pathlib.Path
        Every ``*.toml`` in :func:`scenario_dir`, sorted by name.

    Examples
    --------
    >>> [p.name for p in scenario_files()]
    ['answer.toml', 'frontier-100k-rsc1.toml', 'llama3-405b.toml', 'llama3-70b-2048.toml', 'seed.toml']
    """
    return sorted(scenario_dir().glob("*.toml"))


def notebook_files():
    """The numbered notebooks the served site shows (``NN_name.ipynb``), by name without ``.ipynb``.

    Inside the installed package (``drmath/data/notebooks/``) when a wheel put them there, else the checkout's
    top-level ``notebooks/``, where they live in git.

    Returns
    -------
    paths : dict of str to pathlib.Path
        Each notebook by its stem (``"00_worked_answer"``), in name order; empty when neither place holds any.

    Examples
    --------
    >>> list(notebook_files())[:2]
    ['00_worked_answer', '01_time_to_train']
    """
    for root in (data_dir() / NOTEBOOKS, Path(__file__).resolve().parent.parent / NOTEBOOKS):
        found = sorted(p for p in root.glob("[0-9][0-9]_*.ipynb") if p.is_file())
        if found:
            return {p.stem: p for p in found}
    return {}


def template_dir(name="drlab"):
    """A Voilà template that ships with drmath: ``drmath/data/voila/templates/<name>/``.

    Parameters
    ----------
    name : str, default "drlab"
        The template. ``drlab`` is Voilà's ``lab`` with no CDN link, plus the plotly.js bundle
        and drmath's session-end notice.

    Returns
    -------
    path : pathlib.Path
        Its folder (``conf.json``, ``index.html.j2``, ``static/``).

    Examples
    --------
    >>> sorted(p.name for p in template_dir().iterdir())
    ['conf.json', 'in_page_links.js', 'index.html.j2', 'page.html', 'static', 'tree-lab.html']
    """
    return data_file("voila", "templates", name)


def plotly_bundle(version):
    """The vendored plotly.js "basic" bundle of a version (scatter, bar and pie traces).

    Parameters
    ----------
    version : str
        Its version, :data:`PLOTLY_JS_VERSION`.

    Returns
    -------
    path : pathlib.Path
        ``plotly-basic-<version>.min.js`` in the ``drlab`` template's ``static/`` folder, which
        Voilà serves at ``voila/templates/drlab/static/plotly-basic-<version>.min.js`` and the
        report inlines.

    Examples
    --------
    >>> plotly_bundle(PLOTLY_JS_VERSION).name, round(plotly_bundle(PLOTLY_JS_VERSION).stat().st_size / 1e6, 1)
    ('plotly-basic-4.1.1.min.js', 1.2)
    """
    return template_dir("drlab") / "static" / f"plotly-basic-{version}.min.js"
