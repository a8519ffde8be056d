"""Page kernels forked from the zygote (issue 24, :mod:`drmath.serve.zygote`): they run as a spawned kernel did,
are the server's own children, and go when the server goes.

The CPU each kernel saves is measured by ``bench/bench_kernel.py`` (a test never asserts a timing); these tests pin
what makes the forks safe to hand to jupyter_client in place of ``Popen``.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from waiting import wait_until  # noqa: E402

from drmath.serve import zygote  # noqa: E402
from drmath.serve.kernels import _lower_priority  # noqa: E402
from drmath.serve.settings import REFILL_NICENESS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# A stand-in for the server, in a process of its own: it becomes a subreaper (which the test process must not),
# starts kernels from drmath's spec through jupyter_client, asks each what it is, and prints one JSON line a step.
SERVER = textwrap.dedent("""
    import asyncio, json, os, sys, time
    from jupyter_client.manager import AsyncKernelManager
    from drmath import serve
    from drmath.serve import zygote

    os.environ["JUPYTER_PATH"] = serve.voila_env({})["JUPYTER_PATH"]
    ASK = ("import os, sys; print(json.dumps({'pid': os.getpid(), 'ppid': os.getppid(), "
           "'forked': 'drmath.serve.zygote_process' in sys.modules, 'cwd': os.getcwd(), "
           "'marker': os.environ.get('MARKER'), "
           "'widget_targets': sorted(t for t in get_comm_manager().targets if 'widget' in t)}))")

    async def start(km, **kwargs):
        await km.start_kernel(env={**os.environ, "MARKER": "m1"}, cwd=sys.argv[1], **kwargs)
        kc = km.client()
        kc.start_channels()
        await kc.wait_for_ready(timeout=60)
        out = []
        await kc.execute_interactive("import json; from comm import get_comm_manager; " + ASK, timeout=60,
                                     output_hook=lambda m: out.append(m["content"].get("text", "")))
        kc.stop_channels()
        return json.loads("".join(out))

    async def main():
        print(json.dumps({"enabled": zygote.enable(), "server": os.getpid()}), flush=True)
        km = AsyncKernelManager(kernel_name="python3")
        print(json.dumps(dict(await start(km), provisioner=type(km.provisioner).__name__)), flush=True)
        if sys.argv[2] == "shutdown":
            process = km.provisioner.process
            await km.shutdown_kernel(now=False)
            print(json.dumps({"returncode": process.returncode}), flush=True)
            forker = await zygote.zygote()
            forker.process.kill()  # a zygote that died is started again for the next kernel
            forker.process.wait()
            km = AsyncKernelManager(kernel_name="python3")
            print(json.dumps(await start(km)), flush=True)
            process = km.provisioner.process
            await km.provisioner.kill()  # as a culled or dead-page kernel is ended
            await km.provisioner.wait()
            print(json.dumps({"returncode": process.returncode}), flush=True)
        else:
            forker = await zygote.zygote()
            print(json.dumps({"zygote": forker.process.pid}), flush=True)
            time.sleep(600)  # until the test kills this process

    asyncio.run(main())
""")


def start_server(tmp_path, mode):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", SERVER, str(tmp_path), mode], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def read(server):
    """The stand-in server's next JSON line (its kernels write their own lines to the same stdout)."""
    for line in server.stdout:
        if line.startswith("{"):
            return json.loads(line)
    raise AssertionError(f"the stand-in server printed nothing more (exit {server.poll()})")


def running(pid):
    """Whether process ``pid`` runs (a zombie, exited but not yet reaped by its new parent, does not)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.fixture
def stand_in(tmp_path):
    """Start the stand-in server in a mode (``stand_in("stay")``): ``(process, its hello)``; skipped where the
    server cannot adopt forked kernels. The process is killed at the end."""
    started = []

    def start(mode):
        server = start_server(tmp_path, mode)
        started.append(server)
        hello = read(server)
        if not hello["enabled"]:
            pytest.skip("this machine cannot make a process a subreaper (not Linux)")
        return server, hello

    yield start
    for server in started:
        server.kill()
        server.wait()


@pytest.mark.slow
def test_a_forked_kernel_runs_in_its_request_and_is_the_servers_child_until_it_exits(tmp_path, stand_in):
    server, hello = stand_in("shutdown")
    kernel = read(server)
    assert kernel["provisioner"] == "ForkProvisioner"
    assert kernel["forked"] is True  # it carries the zygote's modules: not a new interpreter
    assert kernel["ppid"] == hello["server"]  # adopted by the server, as a kernel it had spawned
    assert (kernel["cwd"], kernel["marker"]) == (str(tmp_path), "m1")  # the request's directory and environment
    # what ipywidgets does as it is imported in a kernel: a page asks for the widgets' state on the control target
    assert kernel["widget_targets"] == ["jupyter.widget", "jupyter.widget.control"]
    assert read(server)["returncode"] == 0  # a clean shutdown: reaped by the server, with its exit code
    again = read(server)  # after the zygote was killed, a new one forks the next kernel
    assert again["forked"] is True and again["ppid"] == hello["server"]
    assert read(server)["returncode"] == -signal.SIGKILL
    assert server.wait(timeout=60) == 0


@pytest.mark.slow
def test_the_zygote_and_its_kernels_go_when_the_server_goes(stand_in):
    server, _ = stand_in("stay")
    kernel, forker = read(server)["pid"], read(server)["zygote"]
    assert running(kernel) and running(forker)
    server.kill()
    server.wait()
    wait_until(lambda: not any(running(pid) for pid in (kernel, forker)), 30, lambda: (
        f"the kernel and the forker gone after the server was killed (still running: "
        f"{[pid for pid in (kernel, forker) if running(pid)]})"))


def test_only_the_specs_own_command_with_plain_options_is_forked():
    provisioner = zygote.ForkProvisioner.__new__(zygote.ForkProvisioner)
    cmd = [sys.executable, "-c", zygote.kernel_code(), "-f", "kernel-1.json", "--HistoryManager.enabled=False"]
    request = provisioner._fork_request(cmd, {"env": {"A": "1"}, "cwd": "/tmp", "kernel_id": "1"})
    assert request == {"args": cmd[3:], "env": {"A": "1", "JPY_PARENT_PID": str(os.getpid())}, "cwd": "/tmp",
                       "niceness": 0, "title": " ".join(cmd)}  # the parent's pid: the kernel ends with the server
    assert provisioner._fork_request(cmd, {"env": {}, "preexec_fn": _lower_priority})["niceness"] == REFILL_NICENESS
    assert provisioner._fork_request(cmd, {"env": {}, "preexec_fn": os.getpid}) is None  # any other hook: Popen
    assert provisioner._fork_request(cmd, {"env": {}, "stdout": subprocess.PIPE}) is None  # pipes: Popen
    other = [sys.executable, "-m", "ipykernel_launcher", "-f", "kernel-1.json"]
    assert provisioner._fork_request(other, {"env": {}}) is None  # another kernel's command: Popen
