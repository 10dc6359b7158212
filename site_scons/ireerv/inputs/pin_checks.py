"""Checks of a pin against what it names, and advice when a source cannot serve a pin."""

from __future__ import annotations

from pathlib import Path

from ireerv.inputs import archive
from ireerv.inputs.lock import Input


def deb_version_problem(inp: Input, file: Path, lock_path: Path) -> str | None:
    """Why a deb's 'version' does not match its pinned file, or None when it does.

    The sha256 pins the file; a 'version' it does not carry must not pass silently."""
    if inp.kind != "deb":
        return None
    actual = archive.deb_version(file)
    if actual is None or actual == inp.version:
        return None
    return (
        f"input '{inp.name}': 'version' is {inp.version!r}, but the pinned file {file.name} "
        f"(sha256 {inp.sha256}) is version {actual!r}; change 'version' and 'sha256' together "
        f"in [inputs.{inp.name}] of {lock_path}"
    )


def git_advice(inp: Input, error: str) -> str:
    """What to do when a git fetch of `inp` failed with `error`."""
    if inp.exclude and "filtering not recognized by server" in error:
        # git then asks for every object of the commit, the excluded paths' too.
        return (
            f"The git server (or mirror) of {inp.url} does not allow filtered fetches, so it "
            f"had to send the excluded paths ({', '.join(inp.exclude)}) as well, and could "
            "not. On the mirror, run `git config uploadpack.allowFilter true` (for a local or "
            "file:// mirror: in the mirror repository or your global git configuration), or "
            "make the mirror a complete copy of the upstream repository."
        )
    return "Check the URL and network, or that the commit exists upstream."
