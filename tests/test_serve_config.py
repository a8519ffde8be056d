"""The Voilà options drmath.serve passes reach the objects they configure."""

import os
from pathlib import Path

import nbformat
import pytest
from voila.app import Voila
from voila.execute import VoilaExecutor

from drmath import serve


def test_a_busy_server_waits_for_the_app_cells_output():
    """A CI run served a page with no app on it: while a 1 MB-message flood kept the server busy, the pooled
    kernel's app cell outlived nbclient's 4 s wait for its output ("Timeout waiting for IOPub output" in the
    log), the rest of that cell's output was skipped, and the page never drew. The executor must wait longer."""
    app = Voila()
    app.parse_command_line(serve.voila_argv()[1:])  # the options, not the notebook
    executor = VoilaExecutor(nbformat.v4.new_notebook(), config=app.config)
    assert executor.iopub_timeout == serve.IOPUB_TIMEOUT >= 60
    assert VoilaExecutor(nbformat.v4.new_notebook()).iopub_timeout == 4  # nbclient's default, too short here


def test_the_server_starts_its_kernels_from_drmaths_kernel_spec(monkeypatch):
    """issue 24: the python3 kernel spec the server finds first is drmath's lighter one
    (drmath.serve.kernel_process)."""
    from jupyter_client.kernelspec import KernelSpecManager

    from drmath import _resources

    monkeypatch.setenv("JUPYTER_PATH", serve.voila_env({})["JUPYTER_PATH"])  # the server's environment
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert Path(spec.resource_dir) == _resources.data_dir() / "kernels" / "python3"
    assert "drmath.serve.kernel_process" in " ".join(spec.argv)


def test_a_page_kernel_runs_without_debugger_or_history_and_collects_after_its_first_cell(tmp_path, monkeypatch):
    """The kernel a page gets: no debugpy loaded, no input history, cyclic collection back on once its first
    cell has run."""
    from jupyter_client.manager import start_new_kernel

    from drmath import _resources

    monkeypatch.setenv("JUPYTER_PATH", serve.voila_env({})["JUPYTER_PATH"])
    km, kc = start_new_kernel(kernel_name="python3", env=dict(os.environ), cwd=str(tmp_path))
    try:
        assert Path(km.kernel_spec.resource_dir) == _resources.data_dir() / "kernels" / "python3"
        probe = ("import gc, sys; print(gc.isenabled(), "
                 "sys.modules.get('debugpy'), '_pydevd_bundle' in sys.modules, "
                 "get_ipython().history_manager.enabled)")
        outputs = []
        kc.execute_interactive("x = 1", timeout=60, output_hook=lambda m: None)  # the page's first cell
        kc.execute_interactive(probe, timeout=60, output_hook=lambda m: outputs.append(m["content"].get("text", "")))
        assert "".join(outputs).split() == ["True", "None", "False", "False"], outputs
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_a_page_still_rendering_keeps_its_seat_past_the_connect_timeout():
    """A notebook run at the page's request (not from the pool) outputs cell after cell; on a loaded machine its
    page took longer than ``connect_timeout`` to stream, and the watchdog freed the kernel mid-page as if a bot
    had taken it ("Kernel died", then "An exception occurred at the server" on the page). The wait for the
    websocket counts from the kernel's last output; a page that never connects still loses its seat."""
    import datetime
    import time
    import types

    from jupyter_server._tz import utcnow

    from drmath.serve.kernels import GraceKernelManager

    manager = GraceKernelManager(connect_timeout=30)
    now = time.monotonic()
    claimed = now - 40  # the page request took the kernel 40 s ago and has not opened its websocket

    def kernel(seconds_since_output):
        return types.SimpleNamespace(last_activity=utcnow() - datetime.timedelta(seconds=seconds_since_output))

    assert manager._verdict("rendering", kernel(2), claimed, now) is None
    assert manager._verdict("bot", kernel(35), claimed, now) == "unclaimed"
    assert manager._verdict("new", kernel(35), now - 5, now) is None  # a pooled kernel just taken


def test_the_page_templates_are_compiled_once_per_server_not_once_per_page(monkeypatch):
    """Voilà makes an exporter, and a Jinja environment, per page: each compiled the templates anew, 40 % of the
    server's event-loop CPU in a 50-arrival burst (py-spy). The page's exporter (drmath.serve.app) shares them."""
    import jinja2
    import voila.app
    import voila.notebook_renderer
    from voila.paths import collect_template_paths

    from drmath.serve.app import CachedTemplatesExporter, voila_main
    from drmath.serve.cli import voila_env

    monkeypatch.setattr(Voila, "launch_instance", lambda argv: None)  # voila_main's set-up, not the server
    monkeypatch.setattr(voila.notebook_renderer, "VoilaExporter", voila.notebook_renderer.VoilaExporter)
    monkeypatch.setattr(voila.app, "voila_kernel_manager_factory", voila.app.voila_kernel_manager_factory)
    voila_main([])
    assert voila.notebook_renderer.VoilaExporter is CachedTemplatesExporter  # what each page's renderer makes

    monkeypatch.setenv("JUPYTER_PATH", voila_env()["JUPYTER_PATH"])
    paths = collect_template_paths(["voila", "nbconvert"], "drlab", prune=True)
    compiled = []
    compile_ = jinja2.Environment.compile
    monkeypatch.setattr(jinja2.Environment, "compile", lambda self, source, name=None, *a, **k: (
        compiled.append(name), compile_(self, source, name, *a, **k))[1])
    for page in range(3):
        compiled.clear()
        environment = CachedTemplatesExporter(template_paths=paths, template_name="drlab").environment
        environment.get_template("index.html.j2")  # the others compile as it renders, with the page's filters
        assert compiled == ([] if page else ["index.html.j2"]), page


@pytest.mark.browser  # starts a server (conftest keeps those out of the fast set)
def test_a_port_in_use_stops_the_start_instead_of_moving_to_another_port(tmp_path):
    # Voilà moved to the next free port, while each kernel's request channel still dialled the port given: every
    # page of that server waited for a request that never came (seen with a second server left on the port)
    import socket
    import subprocess

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        cmd, env = serve.command(["--port", str(port), "--no-prerender"])
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    finally:
        taken.close()
    assert done.returncode != 0
    assert f"The port {port} is already in use" in done.stderr and "could not be started" in done.stderr
    assert "Voilà is running at" not in done.stderr
