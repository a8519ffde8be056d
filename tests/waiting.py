"""Waiting for a fact, not for a time: the tests' one way to wait (issue 33).

A test that needs something to have happened (a server to answer, a kernel to go, a log line, a process to
exit) waits for that fact with :func:`wait_until`, which polls it with a short interval and, if it never
holds, fails naming what never happened. The timeout is only how long a loaded machine may take; it is never
what the test asserts.
"""

import time


def wait_until(predicate, timeout, what, interval=0.05):
    """Poll ``predicate()`` every ``interval`` s until it returns something true; return that.

    Fails (``AssertionError``) with "``what``: did not happen within ``timeout`` s" if it never does (``what``
    may be a function, asked then: e.g. for a log's tail); the predicate is asked once more at the deadline, so a
    fact that holds by then is not missed.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what() if callable(what) else what}: did not happen within {timeout} s")
        time.sleep(interval)


def log_has(path, text):
    """A predicate: the file at ``path`` holds ``text`` (a missing file holds nothing)."""
    from pathlib import Path

    def holds():
        try:
            return text in Path(path).read_text(errors="replace")
        except FileNotFoundError:
            return False
    return holds


async def until(predicate, timeout, what, interval=0.01):
    """:func:`wait_until` for a coroutine: polls ``predicate()`` between turns of the event loop, so the tasks it
    waits for run meanwhile."""
    import asyncio

    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what() if callable(what) else what}: did not happen within {timeout} s")
        await asyncio.sleep(interval)
