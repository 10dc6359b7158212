"""Running SCons on a private copy of the project, as a user would from a clone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from ireerv import paths
from ireerv.release import release

SCONS = [sys.executable, "-c", "import SCons.Script; SCons.Script.main()"]


def copy_project(dest: Path) -> Path:
    """A clone of the project at `dest`, with the working tree's uncommitted changes."""
    release.fresh_checkout(paths.PROJECT_ROOT, dest, include_changes=True)
    return dest


def scons(tree: Path, *args: str, check: bool = True,
          timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.setdefault("IREERV_CACHE", str(paths.default_cache_dir()))
    proc = subprocess.run([*SCONS, *args], cwd=tree, capture_output=True, text=True, env=env,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"scons {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n"
            f"{proc.stderr[-3000:]}")
    return proc


def scons_interrupted(tree: Path, *args: str, after: str, timeout: float = 600,
                      sig: signal.Signals = signal.SIGINT) -> tuple[int, str]:
    """Start scons as a terminal would (its own process group), press Ctrl-C (SIGINT to the
    group; or send `sig`, SIGKILL: nothing can clean up) once a line containing `after` is
    printed; (exit status, everything printed)."""
    env = dict(os.environ)
    env.setdefault("IREERV_CACHE", str(paths.default_cache_dir()))
    proc = subprocess.Popen([*SCONS, *args], cwd=tree, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if after in line:
            os.killpg(proc.pid, sig)
            break
    lines.append(proc.stdout.read())
    return proc.wait(timeout=timeout), "".join(lines)

