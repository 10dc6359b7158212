"""Release builds: the source-tree check, the manifest, checksums and byte-for-byte comparison."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ireerv.util.files import sha256_file

MANIFEST_SCHEMA = "ireerv-release/2"  # 2: "configuration", the image key
CHECKSUMS = "SHA256SUMS"


class ReleaseError(Exception):
    """A release cannot be made, or two releases differ."""


def _git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise ReleaseError(f"git {' '.join(args)} failed in {root}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def source_state(root: Path) -> dict[str, Any]:
    """The commit, whether the tree has uncommitted changes, and the commit time."""
    if not (root / ".git").exists():
        raise ReleaseError(f"{root} is not a git checkout: a release needs its commit")
    commit = _git(root, "rev-parse", "HEAD")
    changes = _git(root, "status", "--porcelain", "--untracked-files=normal")
    return {
        "commit": commit,
        "dirty": bool(changes),
        "changes": changes.splitlines(),
        "source_date_epoch": int(_git(root, "log", "-1", "--format=%ct")),
        "version": _git(root, "describe", "--always", "--tags", "--abbrev=12")
        + ("-dirty" if changes else ""),
    }


def check_clean(state: Mapping[str, Any], allow_dirty: bool) -> None:
    if state["dirty"] and not allow_dirty:
        shown = "\n  ".join(state["changes"][:10])
        raise ReleaseError(
            "the source tree has uncommitted changes; commit them, or pass ALLOW_DIRTY=1 "
            f"to try a build that is marked as not a release:\n  {shown}"
        )


def normalize_map(text: str, replacements: Mapping[str, str]) -> str:
    """A link map without this machine's paths (the linker writes absolute ones)."""
    for old, new in sorted(replacements.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(old, new)
    return text


def write_checksums(directory: Path, names: Iterable[str]) -> Path:
    lines = [f"{sha256_file(directory / name)}  {name}\n" for name in sorted(names)]
    path = directory / CHECKSUMS
    path.write_text("".join(lines))
    return path


def data_files(given: Path, files: Iterable[Path]) -> dict[str, str]:
    """The files the model's file reads beside it (ONNX external data), named from its
    folder, with their sha256: the weights are inputs of the release as much as it is."""
    return {file.relative_to(given.parent).as_posix(): sha256_file(file) for file in files}


def manifest(*, state: Mapping[str, Any], model: Mapping[str, Any], board: Mapping[str, Any],
             inputs: Mapping[str, Any], tools: Mapping[str, str], flags: Mapping[str, Any],
             outputs: Mapping[str, str]) -> dict[str, Any]:
    """Everything that went into a release, and the sha256 of everything that came out."""
    return {
        "schema": MANIFEST_SCHEMA,
        "release": not state["dirty"],
        "version": state["version"],
        "source": {"commit": state["commit"], "dirty": state["dirty"],
                   "source_date_epoch": state["source_date_epoch"]},
        "model": dict(model),
        "board": dict(board),
        "inputs": dict(inputs),
        "tools": dict(tools),
        "flags": dict(flags),
        "outputs": dict(sorted(outputs.items())),
    }


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def first_difference(a: Path, b: Path) -> str | None:
    """Where two files first differ, or None when they are the same bytes."""
    da, db = a.read_bytes(), b.read_bytes()
    if da == db:
        return None
    for offset, (x, y) in enumerate(zip(da, db)):  # noqa: B905 - lengths may differ
        if x != y:
            return f"byte {offset:#x}: {x:#04x} != {y:#04x}"
    return f"lengths {len(da)} and {len(db)} (one is a prefix of the other)"


def compare_trees(a: Path, b: Path) -> list[str]:
    """Every file that differs between two release directories, with its first difference."""
    names_a = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    names_b = {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    problems = [f"{n}: only in {a}" for n in sorted(names_a - names_b)]
    problems += [f"{n}: only in {b}" for n in sorted(names_b - names_a)]
    for name in sorted(names_a & names_b):
        where = first_difference(a / name, b / name)
        if where:
            problems.append(f"{name}: {where}")
    return problems


def fresh_checkout(root: Path, dest: Path, *, include_changes: bool) -> None:
    """A copy of the source tree at `dest`: the commit, plus uncommitted changes if asked."""
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(root), str(dest)], check=True)
    if not include_changes:
        return
    for line in _git(root, "ls-files", "-m", "-o", "--exclude-standard").splitlines():
        src, dst = root / line, dest / line
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst, follow_symlinks=False)  # a link stays a link (to a folder too)
    for line in _git(root, "ls-files", "-d").splitlines():
        (dest / line).unlink(missing_ok=True)


def scrubbed_environment(epoch: int, path: str = "/usr/local/bin:/usr/bin:/bin") -> dict[str, str]:
    """The only variables a release build sees."""
    env = {"PATH": path, "LC_ALL": "C", "TZ": "UTC", "SOURCE_DATE_EPOCH": str(epoch)}
    if "HOME" in os.environ:  # git reads the user's configuration (mirrors) from here
        env["HOME"] = os.environ["HOME"]
    return env
