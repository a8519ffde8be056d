"""The process of a served page's kernel: ipykernel, less what a visitor's kernel never uses (issue 24).

``python -m drmath.serve`` puts ``drmath/data`` first on ``JUPYTER_PATH``, so its kernels start from the
``python3`` kernel spec there (``drmath/data/kernels/python3/kernel.json``), which runs :func:`main`:

- no debugger: ipykernel imports debugpy at start (~50 ms of CPU per kernel), for ``debug_request``
  messages that a visitor's websocket never forwards (:mod:`drmath.serve.frames`);
- no input history (``--HistoryManager.enabled=False`` in the spec): nobody types into these kernels;
- no listing of the machine's network interfaces: jupyter_client computes the default ``ip`` even when the
  connection file names one (as every connection file does), and that imports psutil (~10 ms of CPU);
  here the default is loopback without asking (:func:`_skip_interface_listing`);
- no cyclic garbage collection until the page's first cell has run: almost every object that starting
  Python, ipykernel, numpy, ipywidgets and the dashboard makes lives as long as the kernel, yet each
  collection during start-up walked the young ones again. After the first cell they are moved to the
  oldest generation at once (:func:`gc.freeze` then :func:`gc.unfreeze`: no walk, ~20 ms of CPU less than
  the young-generation collection that would walk all of them right away) and collection resumes: the next
  full collection walks them as usual, so nothing is kept out of reach of the collector. (Leaving them
  frozen made a kernel fed 1 MB widget messages slower to reach its memory limit in
  ``tests/test_resilience.py``: not done.)

Run as ``python -c "import gc; gc.disable(); from drmath._kernel import main; main()" -f <connection file>``,
so that collection is off before ``import drmath`` loads numpy.
"""

import gc
import sys

__all__ = ["main"]


def _collect_after_first_cell(shell):
    """Turn cyclic collection back on once ``shell`` has run its first cell, start-up's objects in the oldest
    generation (moved there without a walk).

    The first cell is the notebook's: a cell run without history (Voilà runs one to set ``VOILA_KERNEL_ID``
    before the notebook) does not count, or the app's cell would run with collection on.
    """

    def resume(result):
        if not result.info.store_history:  # Voilà's own cell before the page's (its kernel id into os.environ)
            return
        shell.events.unregister("post_run_cell", resume)
        gc.freeze()  # every tracked object into the permanent generation: a list splice, no walk
        gc.unfreeze()  # and back into the oldest one, which only a full collection walks
        gc.enable()

    shell.events.register("post_run_cell", resume)


def _skip_interface_listing(app):
    """Make ``app``'s default ``ip`` loopback without listing the machine's interfaces.

    ``jupyter_client.connect.ConnectionFileMixin.load_connection_info`` calls ``self._ip_default()`` even when
    the connection file names the ip; for TCP that default asks psutil for every interface. A page's kernel is
    always handed its ip, so the default is never used: loopback stands for it.
    """
    ip_default = app._ip_default

    def loopback():
        return "127.0.0.1" if app.transport == "tcp" else ip_default()

    app._ip_default = loopback


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
    _skip_interface_listing(app)
    app.initialize(argv)
    _collect_after_first_cell(app.shell)
    app.start()
