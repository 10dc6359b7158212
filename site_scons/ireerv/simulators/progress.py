"""How far a running simulation is: the simulated count so far, while it runs.

The cluster's testbench prints "[TB] progress <N> cycles" every PROGRESS_EVERY
cycles (its +progress plusarg, patches/cluster-tb-progress.patch); QEMU, run
with -icount, answers QMP's `query-replay` with the instructions executed so
far.  Either feeds a callback with the latest count.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

ProgressCallback = Callable[[int], None]
OutputCallback = Callable[[str], None]

PROGRESS_EVERY = 1_000_000  # cluster cycles between two progress lines of the testbench
# The testbench prints it whenever the count is reached, so it may land in the middle
# of a line the program is writing byte by byte: cut it out wherever it is.
_TB_PROGRESS = re.compile(r"\[TB\] progress (\d+) cycles\n")


class TestbenchLines:
    """Passes a run's output on in whole lines, without the testbench's progress reports,
    whose counts go to `on_progress`."""

    def __init__(self, on_output: OutputCallback | None, on_progress: ProgressCallback) -> None:
        self.on_output = on_output
        self.on_progress = on_progress
        self.pending = ""

    def __call__(self, text: str) -> None:
        self.pending += text
        for match in _TB_PROGRESS.finditer(self.pending):
            self.on_progress(int(match.group(1)))
        self.pending = _TB_PROGRESS.sub("", self.pending)
        # A report still arriving has no newline yet: it stays pending with its line.
        cut = self.pending.rfind("\n") + 1
        shown, self.pending = self.pending[:cut], self.pending[cut:]
        if shown and self.on_output is not None:
            self.on_output(shown)

    def close(self) -> None:
        if self.pending and self.on_output is not None:
            self.on_output(self.pending)
        self.pending = ""


def strip_progress(output: str) -> str:
    """The testbench's output without its progress reports."""
    return _TB_PROGRESS.sub("", output)


class QmpInstructionCount:
    """Asks a running QEMU (-qmp unix:<socket>,server=on,wait=off) every `period` seconds how
    many instructions it has executed, until stopped.  A QEMU that never answers (not yet
    listening, already gone) is simply not asked again: progress is a courtesy."""

    def __init__(self, sock: Path, on_progress: ProgressCallback, period: float = 1.0) -> None:
        self.sock = sock
        self.on_progress = on_progress
        self.period = period
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> QmpInstructionCount:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.thread.join(timeout=5)

    def _connect(self) -> socket.socket | None:
        deadline = time.monotonic() + 10
        while not self.stopped.is_set() and time.monotonic() < deadline:
            try:
                conn = socket.socket(socket.AF_UNIX)
                conn.settimeout(5)
                conn.connect(str(self.sock))
                return conn
            except OSError:
                conn.close()
                self.stopped.wait(0.05)
        return None

    def _poll(self) -> None:
        conn = self._connect()
        if conn is None:
            return
        try:
            reader = conn.makefile("r")
            reader.readline()  # the greeting
            conn.sendall(b'{"execute": "qmp_capabilities"}\n')
            reader.readline()
            while not self.stopped.wait(self.period):
                conn.sendall(b'{"execute": "query-replay"}\n')
                count = json.loads(reader.readline()).get("return", {}).get("icount")
                if isinstance(count, int):
                    self.on_progress(count)
        except (OSError, ValueError):
            return  # QEMU ended
        finally:
            conn.close()
