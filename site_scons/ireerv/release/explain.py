"""Where two releases differ, in diffoscope's words (Debian's `diffoscope`): the report of
every differing file is kept beside the fresh build, and its start is shown."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

SHOWN_LINES = 40
TIMEOUT = 600  # seconds for one file


def diffoscope(ours: Path, theirs: Path, names: list[str], report: Path) -> str:
    """Run diffoscope on each differing file into `report`; the report's first lines, or
    why there is none."""
    tool = shutil.which("diffoscope")
    if tool is None:
        return ("(diffoscope is not installed: Debian's package diffoscope-minimal; "
                "./bootstrap installs it)")
    parts = []
    for name in names:
        try:
            proc = subprocess.run([tool, "--no-progress", "--text", "-", str(ours / name),
                                   str(theirs / name)], capture_output=True, text=True,
                                  timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            parts.append(f"{name}: diffoscope did not finish in {TIMEOUT} s\n")
            continue
        parts.append(proc.stdout or proc.stderr)
    text = "".join(parts)
    report.write_text(text)
    lines = text.splitlines()
    more = f"\n  ... ({len(lines) - SHOWN_LINES} more lines in {report})" \
        if len(lines) > SHOWN_LINES else ""
    return "\n".join(f"  {line}" for line in lines[:SHOWN_LINES]) + more
