"""The built wheel works outside the repository: every file the code reads ships inside it.

The wheel is built from a copy of the sources (so no stale ``build/`` can slip a file in) and
installed, without its dependencies, into a fresh venv. That venv borrows the dependencies of the
environment running the tests through a ``.pth`` line (offline and fast), which adds their directory
to ``sys.path`` without running its ``.pth`` files, so the editable install of this checkout stays
inactive there; every command runs from a temporary directory, never from the checkout.
"""

import ast
import http.client
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import answers, free_port, stop_voila  # noqa: E402
from waiting import wait_until  # noqa: E402

from drmath import _resources  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "drmath", "data", "notebooks")
"""What the wheel is built from: setup.py copies data/ and the numbered notebooks of notebooks/ into the package."""

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """``(python, drmath, cwd, env)`` of a fresh venv holding only the wheel: its interpreter, its
    ``drmath`` command, a working directory outside the checkout and a clean environment."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            src.mkdir(exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    wheels = tmp / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "-w", str(wheels), str(src)],
                   check=True, capture_output=True, text=True, timeout=300)
    (wheel,) = wheels.glob("drmath-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    deps = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (Path(purelib) / "_test_dependencies.pth").write_text("".join(f"{d}\n" for d in deps))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                    "--disable-pip-version-check", str(wheel)], check=True, capture_output=True, text=True,
                   timeout=300)
    cwd = tmp / "elsewhere"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JUPYTER_PATH", "PYTHONHOME")}
    env["PYTHONUNBUFFERED"] = "1"
    # the borrowed Voilà's own templates (lab, base) and labextensions are data files of its environment
    # (<prefix>/share/jupyter), which a real install puts in the venv's prefix
    env["JUPYTER_PATH"] = os.path.join(sysconfig.get_paths()["data"], "share", "jupyter")
    return python, venv / "bin" / "drmath", cwd, env


def run(argv, installed, **kwargs):
    _, _, cwd, env = installed
    proc = subprocess.run([str(a) for a in argv], check=False, cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, **kwargs)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


def get(url, timeout=180):
    """``(status, body)`` of one GET; the whole answer must arrive within ``timeout`` s (Voilà streams a
    page, and one whose rendering failed never ends)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    deadline = time.monotonic() + timeout
    try:
        conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""), headers={"Accept": "text/html"})
        r = conn.getresponse()
        body = b""
        while chunk := r.read1(65536):
            body += chunk
            assert time.monotonic() < deadline, f"no complete answer in {timeout} s: {r.status} {body[-300:]!r}"
        return r.status, body
    finally:
        conn.close()


def in_venv(installed, code):
    return run([installed[0], "-c", code], installed)


def test_the_wheel_is_what_runs(installed):
    python = installed[0]
    where = in_venv(installed, "import drmath, sys; print(drmath.__file__); print(sys.path)").splitlines()
    assert Path(where[0]).is_relative_to(python.parent.parent), where[0]
    assert str(ROOT) not in ast.literal_eval(where[1])  # the checkout is not on sys.path


def test_every_data_file_ships(installed):
    # the package's own data, plus what setup.py copies in from the top-level data/ (its README stays out)
    package, top = _resources.data_dir(), ROOT / "data"
    shipped = {p.relative_to(package).as_posix() for p in package.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    for name in _resources.SHIPPED:
        paths = [top / name] if (top / name).is_file() else (top / name).rglob("*")
        shipped |= {p.relative_to(top).as_posix() for p in paths if p.is_file()}
    # and the numbered notebooks, the served site's pages (issue 35), which setup.py copies from notebooks/
    shipped |= {f"{_resources.NOTEBOOKS}/{p.name}" for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")}
    shipped = sorted(shipped)
    listing = in_venv(installed, "from drmath import _resources as r\n"
                                 "print(r.data_dir())\n"
                                 "for p in sorted(r.data_dir().rglob('*')):\n"
                                 "    print(p.relative_to(r.data_dir()).as_posix()) if p.is_file() else None")
    data_dir, *files = listing.splitlines()
    assert Path(data_dir).is_relative_to(installed[0].parent.parent)
    assert files == shipped
    assert {"dashboard.ipynb", "drills_example.csv", "scenarios/seed.toml", "notebooks/00_worked_answer.ipynb",
            "notebooks/08_your_fleet.ipynb", "voila/templates/drlab/conf.json"} <= set(files)


def _third_party_imports():
    """``{top-level name: modules}`` that drmath/*.py import, other than the standard library, drmath itself
    and imports guarded by ``except ImportError`` (optional)."""
    found = {}
    for path in sorted((ROOT / "drmath").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        optional = {id(node) for t in ast.walk(tree) if isinstance(t, ast.Try)
                    and any(isinstance(h.type, ast.Name) and h.type.id in ("ImportError", "ModuleNotFoundError")
                            for h in t.handlers)
                    for stmt in t.body for node in ast.walk(stmt)}
        for node in ast.walk(tree):
            if id(node) in optional:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "drmath":
                    found.setdefault(top, set()).add(path.name)
    return found


def _closure(requirements):
    """Normalized names of the distributions ``requirements`` bring in, theirs included (as installed here)."""
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen, todo = set(), [(Requirement(r), "") for r in requirements]
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        seen.add(name)
        try:
            todo += [(Requirement(r), e) for r in requires(req.name) or () for e in ("", *req.extras)]
        except PackageNotFoundError:
            pass
    return seen


def test_every_import_is_a_declared_dependency(installed):
    from importlib.metadata import packages_distributions

    from packaging.utils import canonicalize_name

    declared = in_venv(installed, "import importlib.metadata as m; print(*m.requires('drmath'), sep='\\n')")
    declared = declared.splitlines()
    core = _closure(r for r in declared if "extra ==" not in r)
    everything = _closure(r.split(";")[0] for r in declared)  # the extras' too
    dists = packages_distributions()
    missing = {}
    for top, modules in _third_party_imports().items():
        names = {canonicalize_name(d) for d in dists.get(top, [top])}
        if not names & everything:
            missing[top] = sorted(modules)
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"
    assert {"numpy", "jinja2", "pandas", "plotly"} <= core  # the CLI's report and compare need no extra


def test_cli_plan_report_and_compare(installed):
    _, drmath, cwd, _ = installed
    assert "drmath plan" in run([drmath, "plan"], installed)
    paths = in_venv(installed, "from drmath import _resources as r\n"
                               "print(*r.scenario_files(), sep='\\n')").splitlines()
    assert {Path(p).name for p in paths} == {p.name for p in _resources.scenario_files()}
    seed, l405 = (next(p for p in paths if p.endswith(name)) for name in ("seed.toml", "llama3-405b.toml"))
    assert "16,384 GPUs" in run([drmath, "plan", l405], installed)
    run([drmath, "report", l405, "-o", "x.html", "--quiet"], installed)
    html = (cwd / "x.html").read_text(encoding="utf-8")
    assert _resources.plotly_bundle(_plotly_version()).read_text(encoding="utf-8") in html  # inlined, offline
    out = run([drmath, "compare", seed, l405], installed)
    assert "Seed" in out and "405B" in out
    assert "Seed" in in_venv(installed, "from drmath.io import scenarios; print(*scenarios.shipped_scenarios())")
    assert in_venv(installed, "from drmath import _resources as r\nfrom drmath.io import drills\n"
                              "print(len(drills.read_drill_records(r.data_file('drills_example.csv'))))").strip() != "0"


def test_serve_finds_template_and_bundle(installed):
    python, _, cwd, env = installed
    port = free_port()
    log = cwd / "voila.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([python, "-m", "drmath.serve", f"--port={port}", "--pool-size=0",
                                 "--max-kernels=2", "--no-prerender"],
                                cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_until(lambda: answers(url, proc, log), 120, lambda: f"the server up: {log.read_text()[-3000:]}",
                   interval=0.3)
        from drmath.dashboard import PLOTLY_STATIC

        status, bundle = get(url + PLOTLY_STATIC)
        assert status == 200 and bundle == _resources.plotly_bundle(_plotly_version()).read_bytes()
        status, page = get(url)
        assert status == 200, page[-2000:]
        page = page.decode()
        assert "plotly-basic" in page and "drmath-" in page, log.read_text()[-3000:]  # drlab, running the app
        assert "TemplateNotFound" not in log.read_text() and "Traceback" not in log.read_text()
    finally:
        stop_voila(proc)


def _plotly_version():
    from drmath.viz import PLOTLY_JS_VERSION

    return PLOTLY_JS_VERSION
