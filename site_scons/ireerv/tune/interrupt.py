"""Stopping a tune at once: Ctrl-C or SIGTERM ends the rounds in flight, and none of them
is stored (a round that was stopped measured nothing, so it is not a failed candidate)."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM)
STOP = threading.Event()  # set once the tune is interrupted


class Interrupted(Exception):
    """The tune was interrupted: the rounds in flight have no result."""


def check() -> None:
    if STOP.is_set():
        raise Interrupted


@contextlib.contextmanager
def watched() -> Iterator[None]:
    """Within the block SIGINT and SIGTERM set STOP, then reach the handler that was there
    (SCons's, which stops the build).  Python installs handlers from the main thread only:
    elsewhere (`scons -j2 tune`) the rounds still stop by the signal a terminal sends
    their whole process group, and say so in their output."""
    STOP.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in SIGNALS}

    def handler(signum, frame) -> None:
        STOP.set()
        if callable(before := previous[signum]):
            before(signum, frame)

    for sig in SIGNALS:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, before in previous.items():
            signal.signal(sig, before)
