"""The process of a served page's kernel: ipykernel, less what a visitor's kernel never uses (issue 24).

``python -m drmath.serve`` puts ``drmath/data`` first on ``JUPYTER_PATH``, so its kernels start from the
``python3`` kernel spec there (``drmath/data/kernels/python3/kernel.json``), which runs :func:`main`:

- no debugger: ipykernel imports debugpy at start (~50 ms of CPU per kernel), for ``debug_request``
  messages that a visitor's websocket never forwards (:mod:`drmath.serve.frames`);
- no input history (``--HistoryManager.enabled=False`` in the spec): nobody types into these kernels;
- no listing of the machine's network interfaces: jupyter_client computes the default ``ip`` even when the
  connection file names one (as every connection file does), and that imports psutil (~10 ms of CPU);
  here the default is loopback without asking (:func:`_skip_interface_listing`);
- no kernel managers, kernel specs, provisioners or async clients: ipykernel needs a few of jupyter_client's modules
  (the session, the connection file), but ``import jupyter_client`` runs its package ``__init__``, which loads
  all the rest (~6 ms of CPU net: ~10 ms at start, less what ``importlib.metadata``, which anywidget also
  needs, costs later). Here the package starts without it, and the first name asked of it that is not
  already there runs it (:func:`_defer_jupyter_client_init`), so ``from jupyter_client import KernelManager`` in
  a kernel still works;
- no cyclic garbage collection until the notebook's first cell has run: almost every object that starting
  Python, ipykernel, numpy, ipywidgets and the dashboard makes lives as long as the kernel, yet each
  collection during start-up walked the young ones again. After the first cell they are moved to the
  oldest generation at once (:func:`gc.freeze` then :func:`gc.unfreeze`: no walk, ~20 ms of CPU less than
  the young-generation collection that would walk all of them right away) and collection resumes: the next
  full collection walks them as usual, so nothing is kept out of reach of the collector. (Leaving them
  frozen made a kernel fed 1 MB widget messages slower to reach its memory limit in
  ``tests/test_resilience.py``: not done.)

Run as ``python -c "import gc; gc.disable(); from drmath.serve.kernel_process import main; main()"
-f <connection file>``, so that collection is off before ``import drmath`` loads numpy. It runs inside the kernel,
not in the server: it imports nothing of :mod:`drmath.serve` but the package itself, whose names load lazily.
"""

import gc
import sys

__all__ = ["main", "prepare", "run"]


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


def _defer_jupyter_client_init():
    """Make ``jupyter_client`` a package whose ``__init__`` runs only when a name it defines is first asked for.

    Its submodules import as usual. The names a kernel takes from the package itself are set from their
    modules: those of :mod:`jupyter_client.connect`, which ``__init__`` re-exports (``ipykernel.connect`` uses
    ``write_connection_file`` and ``find_connection_file``), and ``BlockingKernelClient`` (the default of
    ``ConnectionFileMixin.blocking_class``, a class named by string, resolved as the kernel app is made). Any
    other name the package lacks runs the real ``__init__`` once (module ``__getattr__``, PEP 562) and is then
    looked up again.
    """
    import importlib
    import importlib.util

    if "jupyter_client" in sys.modules:
        return
    spec = importlib.util.find_spec("jupyter_client")
    package = importlib.util.module_from_spec(spec)

    def initialize(name):
        del package.__getattr__  # the real __init__ imports submodules, which look names up on the package
        spec.loader.exec_module(package)
        return getattr(package, name)

    package.__getattr__ = initialize
    sys.modules["jupyter_client"] = package
    connect = importlib.import_module("jupyter_client.connect")  # not ``from jupyter_client import``: that asks
    from jupyter_client.blocking.client import BlockingKernelClient

    for name in connect.__all__:  # as __init__'s ``from .connect import *``: ipykernel.connect takes two of them
        setattr(package, name, getattr(connect, name))
    package.BlockingKernelClient = BlockingKernelClient  # the default of ConnectionFileMixin.blocking_class


def prepare():
    """What this process does before ipykernel is imported: no debugger, no jupyter_client ``__init__`` (above).

    :mod:`drmath.serve.zygote_process` calls it once before it imports what every kernel needs; :func:`main` calls
    it first.
    """
    sys.modules.setdefault("debugpy", None)  # ipykernel then runs without its debugger
    _defer_jupyter_client_init()


def run(argv, initialized=None):
    """Start ipykernel (``IPKernelApp``) with the command line ``argv``, in a process :func:`prepare` has readied;
    ``initialized()``, when given, runs once the kernel and its comm manager exist, before it starts serving.

    Returns
    -------
    None
        It returns when the kernel stops.
    """
    from ipykernel.kernelapp import IPKernelApp

    app = IPKernelApp.instance()
    _skip_interface_listing(app)
    app.initialize(argv)
    _collect_after_first_cell(app.shell)
    if initialized is not None:
        initialized()
    app.start()


def main(argv=None):
    """Start ipykernel (``IPKernelApp``) with the command line ``argv`` (``sys.argv[1:]`` when omitted).

    Returns
    -------
    None
        It returns when the kernel stops.
    """
    prepare()
    run(sys.argv[1:] if argv is None else argv)
