"""Page kernels forked from one process that has imported what they need (issue 24): :class:`ForkProvisioner`.

A page's kernel used to spend most of its ~0.5 CPU-s before the page's first cell importing ipykernel, IPython,
zmq, numpy, ipywidgets, anywidget and drmath, the same for every kernel. The server now starts one process,
the zygote (:mod:`drmath.serve.zygote_process`), that imports them once, and each kernel is a fork of it. drmath's
kernel spec (``drmath/data/kernels/python3/kernel.json``) names :class:`ForkProvisioner`, which jupyter_client finds
through the ``jupyter_client.kernel_provisioners`` entry point in ``pyproject.toml``. It is jupyter_client's
:class:`~jupyter_client.provisioning.LocalProvisioner`, except that, where the zygote can stand for the
spec's command, the kernel comes from the zygote instead of ``Popen``:

- only in the server :func:`enable` was called in (``python -m drmath.serve`` calls it; a kernel started from
  the same spec anywhere else is a plain ``Popen``);
- only for the spec's own command (``python -c CODE args``) with no ``Popen`` option but the environment, the
  working directory and the refill's lower priority (:func:`drmath.serve.kernels._lower_priority`);
- only where the server can be a subreaper (Linux ``prctl(PR_SET_CHILD_SUBREAPER)``, :func:`subreaper`): the
  kernel is the zygote's grandchild, orphaned as it starts, so it becomes the server's child, and the server
  waits for it, signals it and reads its exit status as for a kernel it started itself (:class:`ForkedProcess`);
  its pid is never released to be reused while the server still holds it.

Anything else, or a zygote that failed, is logged and falls back to ``Popen``: a kernel is never refused for it.

When the server stops (SIGTERM, :mod:`drmath.serve.app`), :func:`stop` ends the zygote, and from then on no
kernel starts, forked or not: one started while the server shuts its kernels down would outlive that shutdown.
"""

import asyncio
import functools
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time

from jupyter_client.provisioning import LocalProvisioner

__all__ = ["ForkProvisioner", "ForkedProcess", "Zygote", "enable", "stop", "subreaper"]

log = logging.getLogger(__name__)

ZYGOTE_CODE = "import gc; gc.disable(); from drmath.serve.zygote_process import main; main()"
"""The zygote's ``python -c`` code (collection off before numpy loads, as in a kernel)."""

READY_TIMEOUT = 60.0  # [s] the zygote's imports take ~0.35 CPU-s; a loaded machine may take much longer
FORK_TIMEOUT = 10.0  # [s] one fork answers in milliseconds


@functools.cache
def kernel_code():
    """The ``python -c`` code of drmath's kernel spec (the zygote stands for this command only)."""
    from .. import _resources

    argv = json.loads(_resources.data_file("kernels", "python3", "kernel.json").read_text("utf-8"))["argv"]
    return argv[argv.index("-c") + 1]


def subreaper():
    """Make this process the reaper of its orphaned descendants (Linux ``PR_SET_CHILD_SUBREAPER``); False where
    it cannot be."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


class ForkedProcess:
    """The ``Popen``-like handle of a kernel forked by the zygote and now this process's child.

    Examples
    --------
    >>> child = subprocess.Popen([sys.executable, "-c", "pass"])
    >>> handle = ForkedProcess(child.pid)
    >>> handle.wait(timeout=30)
    0
    >>> handle.poll(), handle.returncode
    (0, 0)
    """

    stdin = stdout = stderr = None  # as a Popen without pipes (LocalProvisioner.wait closes the ones it has)

    def __init__(self, pid):
        self.pid = pid
        self.returncode = None

    def poll(self):
        """The exit code (negative: the signal that ended it) once it has exited, else None; reaps it."""
        if self.returncode is None:
            try:
                done, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: it is gone, how it ended is not known
                self.returncode = 255
            else:
                if done:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout=None):
        """Wait for it to exit; its exit code (``subprocess.TimeoutExpired`` after ``timeout`` s)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout)
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, signum):
        """Send ``signum`` to it while it runs (never to a pid it has released)."""
        if self.poll() is None:
            os.kill(self.pid, signum)

    def terminate(self):
        self.send_signal(signal.SIGTERM)

    def kill(self):
        self.send_signal(signal.SIGKILL)


class Zygote:
    """The server's end of the zygote process: started once, then asked for one fork at a time."""

    def __init__(self):
        self.process = None
        self.ready = None  # the zygote's hello ({"ready": pid, "cpu": s}) once it has imported everything
        self._streams = None
        self._lock = asyncio.Lock()

    async def start(self, logger=log):
        """Start the zygote and wait until it has imported what every kernel needs (said on ``logger``); one that
        fails to is ended."""
        ours, theirs = socket.socketpair()
        try:
            self.process = subprocess.Popen([sys.executable, "-c", ZYGOTE_CODE, str(theirs.fileno())],
                                            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL)
        finally:
            theirs.close()
        try:
            self._streams = await asyncio.open_unix_connection(sock=ours)
            self.ready = json.loads(await asyncio.wait_for(self._streams[0].readline(), READY_TIMEOUT))
        except BaseException:
            self.stop()
            raise
        logger.info("Kernel zygote %s ready: its imports took %.2f CPU-s, once", self.process.pid, self.ready["cpu"])
        return self

    @property
    def alive(self):
        return self.process is not None and self.process.poll() is None and self.ready is not None

    async def fork(self, request):
        """Fork one kernel for ``request`` (:mod:`drmath.serve.zygote_process`'s protocol); its pid."""
        async with self._lock:
            reader, writer = self._streams
            writer.write(json.dumps(request).encode() + b"\n")
            await writer.drain()
            try:
                line = await asyncio.wait_for(reader.readline(), FORK_TIMEOUT)
            except TimeoutError:
                self.stop()  # a late answer would be read as the next request's: the next kernel gets a new zygote
                raise OSError(f"the kernel zygote did not answer in {FORK_TIMEOUT:g} s") from None
        if not line:
            raise OSError("the kernel zygote has exited")
        answer = json.loads(line)
        if "pid" not in answer:
            raise OSError(f"the kernel zygote could not fork: {answer.get('error')}")
        return int(answer["pid"])

    def stop(self):
        """End the zygote (its kernels are this process's children now, and stay)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


_ENABLED = False
_ZYGOTE = None  # the task that starts this server's zygote (one per server process)
_STOPPING = False  # the server is stopping: no kernel starts (stop)


def enable(logger=log):
    """Fork this server's page kernels from a zygote, where :class:`ForkProvisioner` can (see the module);
    True when enabled, False where the server cannot be a subreaper (kernels are then started with ``Popen``,
    as ``logger`` says)."""
    global _ENABLED
    _ENABLED = subreaper()
    if not _ENABLED:
        logger.warning("Kernels start with Popen: this server cannot adopt forked kernels (no PR_SET_CHILD_SUBREAPER)")
    return _ENABLED


async def zygote(logger=log):
    """This server's zygote, started on first use (and again if it died); None when not enabled or it failed
    (said on ``logger``)."""
    global _ZYGOTE
    if not _ENABLED or _STOPPING:
        return None
    failed = _ZYGOTE is not None and _ZYGOTE.done() and (_ZYGOTE.exception() or not _ZYGOTE.result().alive)
    if _ZYGOTE is None or failed:  # a zygote that failed to start, or has exited since, is ended already
        _ZYGOTE = asyncio.ensure_future(Zygote().start(logger))
    try:
        return await asyncio.shield(_ZYGOTE)
    except (OSError, ValueError) as exc:  # TimeoutError is an OSError
        logger.warning("The kernel zygote did not start (%s): kernels start with Popen", exc)
        return None


def stop():
    """The server is stopping: end its zygote (or the one starting) and start no kernel from now on."""
    global _STOPPING
    _STOPPING = True
    if _ZYGOTE is None:
        return
    if not _ZYGOTE.done():
        _ZYGOTE.cancel()  # Zygote.start ends the process it started as it is cancelled
    elif not _ZYGOTE.cancelled() and _ZYGOTE.exception() is None:
        _ZYGOTE.result().stop()


class ForkProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, whose kernels are forked from the zygote where it can stand for
    ``Popen`` (see the module)."""

    def _fork_request(self, cmd, kwargs):
        """The zygote's request for ``cmd`` with ``Popen`` options ``kwargs``; None when only Popen will do."""
        from .kernels import _lower_priority
        from .settings import REFILL_NICENESS

        if len(cmd) < 3 or cmd[1] != "-c" or cmd[2] != kernel_code():
            return None
        if os.path.realpath(cmd[0]) != os.path.realpath(sys.executable):
            return None
        options = {k: v for k, v in kwargs.items() if v is not None and k not in ("kernel_id", "extra_arguments")}
        niceness = 0
        preexec = options.pop("preexec_fn", None)
        if preexec is _lower_priority:
            niceness = REFILL_NICENESS
        elif preexec is not None:
            return None
        env = dict(options.pop("env", os.environ))  # None options are gone already
        cwd = str(options.pop("cwd", os.getcwd()))
        if not options.pop("independent", False):
            env["JPY_PARENT_PID"] = str(os.getpid())  # as jupyter_client's launcher: the kernel ends with the server
        if options:  # stdin, stdout, stderr or any other option the zygote does not reproduce
            return None
        return {"args": list(cmd[3:]), "env": env, "cwd": cwd, "niceness": niceness, "title": " ".join(cmd)}

    async def launch_kernel(self, cmd, **kwargs):
        if _STOPPING:
            raise RuntimeError("the server is stopping: no kernel starts")
        request = self._fork_request(cmd, kwargs)
        forker = await zygote(self.log) if request is not None else None
        if forker is None:
            return await super().launch_kernel(cmd, **kwargs)
        try:
            pid = await forker.fork(request)
        except (OSError, ValueError) as exc:  # TimeoutError is an OSError
            self.log.warning("Could not fork a kernel (%s): started with Popen", exc)
            return await super().launch_kernel(cmd, **kwargs)
        self.process = ForkedProcess(pid)
        self.pid = self.pgid = pid  # the kernel leads its own session and group before the zygote answers
        self.cwd = request["cwd"]
        return self.connection_info
