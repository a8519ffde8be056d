"""The fork server of a served page's kernels (issue 24): what every kernel imports is imported once, here.

A page's kernel spends most of its CPU before the page's first cell importing the same modules as every other
kernel: ipykernel and IPython, zmq, numpy, ipywidgets, anywidget and drmath. ``python -m drmath.serve`` starts
this process once (:mod:`drmath.serve.zygote`); it imports them (:data:`PRELOAD`) and then forks one kernel per
request. A forked kernel shares the imported modules' memory with this process until it writes to it, and
starts ipykernel at once (:func:`drmath.serve.kernel_process.run`), exactly as the kernel spec's command would have,
in the request's environment, working directory and niceness.

Each kernel is the grandchild of this process: the child in between exits as soon as it has forked, so the
kernel is handed to the nearest subreaper up the tree, the server (:func:`drmath.serve.zygote.subreaper`).
The server can then wait for it, signal it and read its exit status as for a kernel it started itself, and
ipykernel's parent poller, which ends the kernel when its parent goes, watches the server.

The protocol is one line of JSON each way on the socket whose file descriptor is ``sys.argv[1]``:

- this process, once its imports are done: ``{"ready": pid, "cpu": CPU-seconds spent}``;
- the server, for each kernel: ``{"args": [...], "env": {...}, "cwd": "...", "niceness": n, "title": "..."}``
  (``args``: the kernel's command line after ``python -c CODE``; ``title``: the command line ``ps`` shows);
- this process: ``{"pid": pid}``, or ``{"error": "..."}``.

It exits when the server closes the socket (the server stopped), or its kernels stay: each is its own session
leader, and goes when the server goes.

Run as ``python -c "import gc; gc.disable(); from drmath.serve.zygote_process import main; main()" FD``.
"""

import gc
import json
import os
import sys
import time

__all__ = ["PRELOAD", "main"]

PRELOAD = ("ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell", "IPython.display", "comm",
           "ipywidgets", "anywidget", "drmath", "drmath.dashboard", "drmath.serve.query_client")
"""The modules every page kernel imports, in the order they are imported here: the kernel itself, then what the
app notebook's cells import."""


def preload():
    """Ready this process as :func:`drmath.serve.kernel_process.main` readies a kernel, then import :data:`PRELOAD`."""
    import importlib

    from drmath.serve import kernel_process

    kernel_process.prepare()
    for name in PRELOAD:
        importlib.import_module(name)


def _become_kernel(request, report):
    """In the forked kernel: take the request's session, title, environment and niceness, tell the zygote its pid on
    ``report`` (a pipe's write end), then run ipykernel as the spec's command would."""
    import random

    import setproctitle  # before the environment changes: it takes the space of the original one

    os.setsid()  # its own session and group: the server signals the kernel's group, never the zygote's
    setproctitle.setproctitle(request["title"])  # ps (and the server's process checks) see its command line
    os.write(report, str(os.getpid()).encode())
    os.close(report)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    if request.get("niceness"):
        os.nice(int(request["niceness"]))
    random.seed()  # not the zygote's random state, which every fork shares
    args = list(request["args"])
    if os.environ.get("JPY_PARENT_PID"):  # ipykernel read it as it was imported, here, before any request
        args.append(f"--IPKernelApp.parent_handle={int(os.environ['JPY_PARENT_PID'])}")
    sys.argv = ["-c", *args]
    from drmath.serve import kernel_process

    kernel_process.run(args, initialized=_as_if_imported_in_the_kernel)
    # the kernel has stopped and sent its shutdown reply: the process ends now. The interpreter's own exit, which a
    # spawned kernel takes, hung in about half of the forked kernels tried (jupyter_client then sent SIGTERM after
    # 2.5 s); where it waits was not found
    os._exit(0)


def _as_if_imported_in_the_kernel():
    """What a module of :data:`PRELOAD` does as it is imported inside a kernel, and did not do in the zygote, where
    there was none: ipywidgets registers its comm targets (without them a page cannot ask for the widgets' state)."""
    import ipywidgets

    ipywidgets.register_comm_target()


def fork_kernel(server):
    """Fork a kernel: ``(pid, None)`` in the zygote; ``(0, report)`` in the kernel, which must then
    :func:`_become_kernel` (``report``: the pipe on which it tells the zygote its pid).

    The kernel is forked by a child that exits at once, so that the kernel is orphaned and adopted by the server;
    ``server`` (the zygote's socket) is closed in both.
    """
    read, write = os.pipe()
    middle = os.fork()
    if middle == 0:  # the child in between
        try:
            os.close(read)
            os.close(server.detach())  # detached: closing the socket object later will not close a reused number
            if os.fork() == 0:
                return 0, write
        except BaseException:  # noqa: BLE001 - nothing may escape the child in between
            os._exit(1)
        os._exit(0)
    os.close(write)
    os.waitpid(middle, 0)
    with os.fdopen(read, "rb") as pipe:
        pid = pipe.read()
    if not pid:
        raise OSError("the forked kernel did not start")
    return int(pid), None


def main(argv=None):
    """Serve the socket on file descriptor ``argv[0]`` (``sys.argv[1:]`` when omitted) until it closes."""
    import socket

    argv = sys.argv[1:] if argv is None else argv
    server = socket.socket(fileno=int(argv[0]))
    preload()
    gc.freeze()  # the preloaded objects go to the permanent generation: a kernel's collections skip them
    server.sendall(json.dumps({"ready": os.getpid(), "cpu": round(time.process_time(), 3)}).encode() + b"\n")
    with server.makefile("rb") as lines:
        for line in lines:
            try:
                request = json.loads(line)
                pid, report = fork_kernel(server)
            except (OSError, ValueError) as exc:
                answer = {"error": f"{type(exc).__name__}: {exc}"}
            else:
                if pid == 0:
                    break  # this process is the kernel now
                answer = {"pid": pid}
            server.sendall(json.dumps(answer).encode() + b"\n")
        else:
            return  # the server closed the socket: it stopped
    # the kernel: out of the zygote's loop (its socket closed, detached), it runs ipykernel until it stops
    _become_kernel(request, report)
