"""The process of a served page's kernel: ipykernel, less what a visitor's kernel never uses (issue 24).

``python -m drmath.serve`` puts ``drmath/data`` first on ``JUPYTER_PATH``, so its kernels start from the
``python3`` kernel spec there (``drmath/data/kernels/python3/kernel.json``), which runs :func:`main`:

- no debugger: ipykernel imports debugpy at start (~50 ms of CPU per kernel), for ``debug_request``
  messages that a visitor's websocket never forwards (:mod:`drmath.serve.frames`);
- no input history (``--HistoryManager.enabled=False`` in the spec): nobody types into these kernels;
- no cyclic garbage collection until the page's first cell has run: almost every object that starting
  Python, ipykernel, numpy, ipywidgets and the dashboard makes lives as long as the kernel, yet each
  collection during start-up walked the young ones again. Collection resumes after the first cell.
  (Freezing them there too, :func:`gc.freeze`, made a kernel fed 1 MB widget messages slower to reach
  its memory limit in ``tests/test_resilience.py``: not done.)

Run as ``python -c "import gc; gc.disable(); from drmath._kernel import main; main()" -f <connection file>``,
so that collection is off before ``import drmath`` loads numpy.
"""

import gc
import sys

__all__ = ["main"]


def _collect_after_first_cell(shell):
    """Turn cyclic collection back on once ``shell`` has run its first cell."""

    def resume(result):
        shell.events.unregister("post_run_cell", resume)
        gc.enable()

    shell.events.register("post_run_cell", resume)


def main(argv=None):
    """Start ipykernel (``IPKernelApp``) with the command line ``argv`` (``sys.argv[1:]`` when omitted).

    Returns
    -------
    None
        It returns when the kernel stops.
    """
    sys.modules.setdefault("debugpy", None)  # ipykernel then runs without its debugger
    from ipykernel.kernelapp import IPKernelApp

    app = IPKernelApp.instance()
    app.initialize(argv)
    _collect_after_first_cell(app.shell)
    app.start()
