"""Parsing and validation of toolchain.lock, the pins of every outside input."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import posixpath
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

SCHEMA = 1
KINDS = ("git", "archive", "deb", "wheel")
# Bumped whenever the way a tree is made from its pin changes, so old cache
# entries are not mistaken for new ones.
TREE_FORMAT = 1
TOOLCHAIN = "toolchain"  # the name of the combined toolchain tree in the cache

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
# Characters with a meaning in sparse-checkout patterns, and path separators.
_EXCLUDE_BAD = re.compile(r"[/\\*?\[\]!#\s]")
_INCLUDE_BAD = re.compile(r"[\\*?\[\]!#\s]")

# kind -> (required fields, optional fields)
_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "git": (("url", "commit"), ("tag", "submodules", "exclude", "include", "patches",
                                "license")),
    "archive": (("url", "sha256"), ("strip", "patches", "license")),
    "deb": (("package", "version", "sha256"), ("patches", "license")),
    "wheel": (("package", "version", "files"), ("patches", "license")),
}


class LockError(Exception):
    """toolchain.lock is missing, malformed or inconsistent."""


@dataclass(frozen=True)
class Patch:
    file: str  # relative to the directory of the lock file
    sha256: str


@dataclass(frozen=True)
class Input:
    """One [inputs.NAME] table."""

    name: str
    kind: str
    url: str | None = None
    commit: str | None = None
    tag: str | None = None
    submodules: dict[str, str] = field(default_factory=dict)  # path -> input name
    # Top-level paths of a git tree left out of the checkout (never fetched).
    exclude: tuple[str, ...] = ()
    # Paths of a git tree that are the whole checkout (nothing else is fetched).
    include: tuple[str, ...] = ()
    patches: tuple[Patch, ...] = ()
    sha256: str | None = None
    strip: int = 0
    package: str | None = None
    version: str | None = None
    files: dict[str, str] = field(default_factory=dict)  # wheel file name -> sha256
    # (path, key of the submodule input), filled by load_lock: a submodule's pin is
    # part of the superproject's tree.
    submodule_keys: tuple[tuple[str, str], ...] = ()
    license: str = ""  # SPDX expression, for the release's bill of materials (not in the pin)

    def pin(self) -> dict[str, Any]:
        """What determines the unpacked tree (not where it is fetched from)."""
        pin: dict[str, Any] = {"format": TREE_FORMAT, "kind": self.kind}
        if self.kind == "git":
            pin["commit"] = self.commit
            pin["submodules"] = dict(self.submodule_keys)
            if self.exclude:  # absent when empty, so older keys stay valid
                pin["exclude"] = sorted(self.exclude)
            if self.include:
                pin["include"] = sorted(self.include)
        elif self.kind == "archive":
            pin["sha256"] = self.sha256
            pin["strip"] = self.strip
        elif self.kind == "deb":
            pin["sha256"] = self.sha256
        else:
            pin["files"] = self.files
        pin["patches"] = [p.sha256 for p in self.patches]
        return pin

    def key(self) -> str:
        """A short stable hash of the pin; the cache entry is f"{name}-{key}"."""
        canonical = json.dumps(self.pin(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ToolchainSpec:
    inputs: list[str]
    bin: str
    prefix: str
    libc: str
    libc_prefix: str | None
    # [toolchain.source]: the recipe of TOOLCHAIN=source, checked by toolchain_build.
    source: dict[str, Any] | None = None


@dataclass(frozen=True)
class Lock:
    path: Path
    inputs: dict[str, Input]
    toolchain: ToolchainSpec

    def input(self, name: str) -> Input:
        try:
            return self.inputs[name]
        except KeyError:
            valid = ", ".join(sorted(self.inputs))
            raise LockError(f"{self.path}: no input named '{name}' (inputs: {valid})") from None

    def toolchain_key(self) -> str:
        """The key of the combined toolchain tree: the pins of its inputs, in order."""
        # With each version: a changed version makes a new tree, whose unpacking checks
        # the version against the package (see Fetcher.toolchain).
        keys = [f"{n}={self.inputs[n].key()}" + (f" {v}" if (v := self.inputs[n].version) else "")
                for n in self.toolchain.inputs]
        return hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16]


class _Table:
    """Typed access to one TOML table, with errors that name the table and field."""

    def __init__(self, path: Path, where: str, data: Any) -> None:
        self.path, self.where = path, where
        if not isinstance(data, dict):
            raise self.error(None, "must be a table")
        self.data: dict[str, Any] = data

    def error(self, key: str | None, msg: str) -> LockError:
        place = f"[{self.where}]" + (f" field '{key}'" if key else "")
        return LockError(f"{self.path}: {place}: {msg}")

    def check_keys(self, allowed: tuple[str, ...]) -> None:
        for key in self.data:
            if key not in allowed:
                raise self.error(key, f"unknown field (allowed: {', '.join(allowed)})")

    def string(self, key: str, required: bool = True) -> str | None:
        value = self.data.get(key)
        if value is None:
            if required:
                raise self.error(key, "is required")
            return None
        if not isinstance(value, str) or not value:
            raise self.error(key, f"must be a non-empty string, got {value!r}")
        return value

    def hex(self, key: str, pattern: re.Pattern[str], what: str, value: Any = None) -> str:
        value = self.string(key) if value is None else value
        if not isinstance(value, str) or not pattern.match(value.lower()):
            raise self.error(key, f"must be {what}, got {value!r}")
        return value.lower()


def _rel_path(table: _Table, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise table.error(key, f"paths must be non-empty strings, got {value!r}")
    p = PurePosixPath(value)
    if p.is_absolute() or ".." in p.parts:
        raise table.error(key, f"path '{value}' must be relative and may not contain '..'")
    return str(p)


def _exclude(table: _Table, submodules: dict[str, str]) -> tuple[str, ...]:
    value = table.data.get("exclude", [])
    if not isinstance(value, list):
        raise table.error("exclude", "must be a list of top-level paths")
    for name in value:
        if (
            not isinstance(name, str)
            or name in ("", ".", "..", ".git")
            or _EXCLUDE_BAD.search(name)
        ):
            raise table.error(
                "exclude",
                f"{name!r} is not a top-level path (one name; no '/', spaces or any of *?[]!#\\)",
            )
        for sub_path in submodules:
            if sub_path == name or sub_path.startswith(name + "/"):
                raise table.error("exclude", f"'{name}' holds the submodule '{sub_path}'")
    if len(set(value)) != len(value):
        raise table.error("exclude", "lists a path twice")
    return tuple(value)


def _check_wheel_version(t: _Table, version: str, fname: str) -> None:
    # The hashes pin the files; a 'version' they do not carry would be ignored.
    file_version = fname.split("-")[1] if fname.count("-") >= 4 else None
    if file_version != version:
        raise t.error("version", f"is {version!r}, but the wheel '{fname}' is version "
                                 f"{file_version!r}; change 'version' and 'files' (names and "
                                 "sha256) together")


def _parse_input(path: Path, name: str, data: Any) -> Input:
    t = _Table(path, f"inputs.{name}", data)
    if not _NAME.match(name):
        raise t.error(None, "input names may use letters, digits, '.', '_' and '-' only")
    if name == TOOLCHAIN:
        raise t.error(None, f"the name '{TOOLCHAIN}' is reserved for the combined toolchain tree")
    kind = t.string("kind")
    if kind not in KINDS:
        raise t.error("kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    required, optional = _FIELDS[kind]
    t.check_keys(("kind", *required, *optional))
    for key in required:
        if key not in t.data:
            raise t.error(key, f"is required for kind '{kind}'")

    fields: dict[str, Any] = {"name": name, "kind": kind}
    if kind in ("git", "archive"):
        fields["url"] = t.string("url")
    if kind == "git":
        fields.update(_git_fields(t))
    if kind in ("archive", "deb"):
        fields["sha256"] = t.hex("sha256", _SHA256, "64 hex digits (a sha256)")
    if kind == "archive":
        fields["strip"] = _archive_strip(t, fields["url"])
    if kind in ("deb", "wheel"):
        fields["package"] = t.string("package")
        fields["version"] = t.string("version")
    if kind == "wheel":
        fields["files"] = _wheel_files(t, fields["version"])
    fields["patches"] = _patches(path, name, t)
    if "license" in t.data:
        fields["license"] = t.string("license")
    return Input(**fields)


def _git_fields(t: _Table) -> dict[str, Any]:
    subs = t.data.get("submodules", {})
    if not isinstance(subs, dict):
        raise t.error("submodules", "must be a table of path = input name")
    submodules = {}
    for sub_path, sub_name in subs.items():
        if not isinstance(sub_name, str):
            raise t.error("submodules", f"'{sub_path}' must name an input, got {sub_name!r}")
        submodules[_rel_path(t, "submodules", sub_path)] = sub_name
    return {"commit": t.hex("commit", _COMMIT, "a full 40-hex-digit commit id"),
            "tag": t.string("tag", required=False), "submodules": submodules,
            "exclude": _exclude(t, submodules), "include": _include(t, submodules)}


def _include(table: _Table, submodules: dict[str, str]) -> tuple[str, ...]:
    value = table.data.get("include", [])
    if not isinstance(value, list) or not value and "include" in table.data:
        raise table.error("include", "must be a non-empty list of paths in the tree")
    if value and (submodules or table.data.get("exclude")):
        raise table.error("include", "cannot be combined with 'submodules' or 'exclude'")
    for name in value:
        if not isinstance(name, str) or _INCLUDE_BAD.search(name) or not name.strip("/"):
            raise table.error("include", f"{name!r} is not a path (no spaces or any of *?[]!#\\)")
        _rel_path(table, "include", name)
    if len(set(value)) != len(value):
        raise table.error("include", "lists a path twice")
    return tuple(value)


def _archive_strip(t: _Table, url_text: str) -> int:
    strip = t.data.get("strip", 0)
    if not isinstance(strip, int) or isinstance(strip, bool) or strip < 0:
        raise t.error("strip", f"must be a whole number >= 0, got {strip!r}")
    url = urlsplit(url_text)
    if url.scheme not in ("http", "https", "file") or not posixpath.basename(url.path):
        raise t.error("url", f"'{url_text}' must be an http(s) or file URL ending in a file name")
    return strip


def _wheel_files(t: _Table, version: str) -> dict[str, str]:
    files = t.data["files"]
    if not isinstance(files, dict) or not files:
        raise t.error("files", "must be a non-empty table of wheel file name = sha256")
    checked = {}
    for fname, digest in files.items():
        if not fname.endswith(".whl") or "/" in fname:
            raise t.error("files", f"'{fname}' is not a wheel file name")
        what = f"64 hex digits (the sha256 of {fname})"
        checked[fname] = t.hex("files", _SHA256, what, digest)
        _check_wheel_version(t, version, fname)
    return checked


def _patches(path: Path, name: str, t: _Table) -> tuple[Patch, ...]:
    patches = t.data.get("patches", [])
    if not isinstance(patches, list):
        raise t.error("patches", "must be a list of { file = ..., sha256 = ... }")
    parsed = []
    for i, patch in enumerate(patches):
        pt = _Table(path, f"inputs.{name}.patches[{i}]", patch)
        pt.check_keys(("file", "sha256"))
        file = _rel_path(pt, "file", pt.string("file"))
        parsed.append(Patch(file, pt.hex("sha256", _SHA256, "64 hex digits")))
    return tuple(parsed)


def _resolve_submodules(path: Path, inputs: dict[str, Input]) -> dict[str, Input]:
    """Fill in submodule keys, depth first, refusing unknown names and cycles."""
    done: dict[str, Input] = {}

    def visit(name: str, stack: tuple[str, ...]) -> Input:
        if name in done:
            return done[name]
        inp = inputs[name]
        keys = []
        for sub_path, sub_name in sorted(inp.submodules.items()):
            where = f"{path}: [inputs.{name}] field 'submodules': '{sub_path}'"
            if sub_name not in inputs:
                raise LockError(f"{where} names the unknown input '{sub_name}'")
            if inputs[sub_name].kind != "git":
                raise LockError(f"{where} names '{sub_name}', which is not of kind 'git'")
            if sub_name in stack:
                raise LockError(f"{where}: submodule cycle {' -> '.join((*stack, sub_name))}")
            keys.append((sub_path, visit(sub_name, (*stack, sub_name)).key()))
        done[name] = dataclasses.replace(inp, submodule_keys=tuple(keys))
        return done[name]

    for name in inputs:
        visit(name, (name,))
    return {name: done[name] for name in inputs}


def _parse_toolchain(path: Path, data: Any, inputs: dict[str, Input]) -> ToolchainSpec:
    t = _Table(path, "toolchain", data)
    t.check_keys(("inputs", "bin", "prefix", "libc", "libc_prefix", "source"))
    names = t.data.get("inputs")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise t.error("inputs", "must be a non-empty list of input names")
    for n in names:
        if n not in inputs:
            valid = ", ".join(sorted(inputs))
            raise t.error("inputs", f"names the unknown input '{n}' (inputs: {valid})")
        if inputs[n].kind == "git":
            msg = "is a git input; toolchain inputs must be archive, deb or wheel"
            raise t.error("inputs", f"'{n}' {msg}")
    if len(set(names)) != len(names):
        raise t.error("inputs", "lists an input twice")
    bin_dir = t.string("bin")
    assert bin_dir is not None
    libc_prefix = t.string("libc_prefix", required=False)
    for key, value in (("bin", bin_dir), ("libc_prefix", libc_prefix)):
        if value is not None:
            _rel_path(t, key, value)
    return ToolchainSpec(
        inputs=list(names),
        bin=bin_dir,
        prefix=t.string("prefix") or "",
        libc=t.string("libc") or "",
        libc_prefix=libc_prefix,
        source=t.data.get("source"),
    )


def load_lock(path: Path) -> Lock:
    """Read and validate a lock file; every error names the file, table and field."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise LockError(f"{path}: lock file not found") from None
    except tomllib.TOMLDecodeError as e:
        raise LockError(f"{path}: not valid TOML: {e}") from None
    top = _Table(path, "top level", data)
    top.check_keys(("schema", "toolchain", "inputs"))
    if data.get("schema") != SCHEMA:
        raise top.error("schema", f"must be {SCHEMA}, got {data.get('schema')!r}")
    raw_inputs = data.get("inputs")
    if not isinstance(raw_inputs, dict) or not raw_inputs:
        raise LockError(f"{path}: no [inputs.NAME] tables")
    inputs = {name: _parse_input(path, name, table) for name, table in raw_inputs.items()}
    inputs = _resolve_submodules(path, inputs)
    if "toolchain" not in data:
        raise LockError(f"{path}: no [toolchain] table")
    toolchain = _parse_toolchain(path, data["toolchain"], inputs)
    return Lock(path=path.resolve(), inputs=inputs, toolchain=toolchain)
