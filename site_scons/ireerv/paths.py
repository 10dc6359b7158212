"""Where the project keeps its source, build outputs and download cache."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
LOCK_FILE = PROJECT_ROOT / "toolchain.lock"
# SCons path of the build tree ("#": relative to the top directory).
BUILD = "#build"
CACHE_ENV = "IREERV_CACHE"


def default_cache_dir() -> Path:
    """The download and tool cache: $IREERV_CACHE, else the per-user XDG cache."""
    from ireerv.inputs.envvars import cache_dir

    return cache_dir()
