"""A long run's terminal: the program's output as it comes and, while it is quiet, how far
the run is (the simulated count so far and its rate)."""

from __future__ import annotations

import sys
import threading
import time

# A long run says how far it is this often while the program is quiet.
PROGRESS_SECONDS = 5
# Output lines longer than this are cut on the terminal (the check reads them whole).
SHOWN_LINE = 120


class Echo:
    """Shows the program's output as it comes and, while it is quiet, how far the run is:
    the simulated count so far and its rate."""

    def __init__(self, prefix: str = "", unit: str = "cycles") -> None:
        self.prefix = prefix
        self.unit = unit
        self.last = time.monotonic()
        self.start = self.last
        self.count: int | None = None
        self.done = threading.Event()
        self.pending = ""
        threading.Thread(target=self._beat, daemon=True).start()

    def __call__(self, text: str) -> None:
        self.last = time.monotonic()
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            if line.startswith("OUTPUT ") and len(line) > SHOWN_LINE:
                line = f"{line[:SHOWN_LINE]} ... ({len(line.split(':', 1)[1].split())} values)"
            sys.stdout.write(f"{self.prefix}{line}\n")
        sys.stdout.flush()

    def progress(self, count: int) -> None:
        self.count = count

    def close(self) -> None:
        self.done.set()
        if self.pending:
            sys.stdout.write(self.pending + "\n")

    def _beat(self) -> None:
        shown_at, shown = self.start, 0
        while not self.done.wait(1):
            now, count = time.monotonic(), self.count
            if now - self.last < PROGRESS_SECONDS:
                continue
            if count is None or count == shown:
                line = "still running"
            else:
                rate = (count - shown) / (now - shown_at)
                line = f"{count:,} {self.unit} ({rate:,.0f}/s)"
                shown_at, shown = now, count
            print(f"{self.prefix}... {now - self.start:.0f} s: {line}", flush=True)
            self.last = now
