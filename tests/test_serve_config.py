"""The Voilà options drmath.serve passes reach the objects they configure."""

import nbformat
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
