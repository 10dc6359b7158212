"""The committed SHA-256 of the reference release, one table per toolchain.

`release-digests.toml` proves a release is the same bytes on any machine:
`scons release-check` compares a fresh build with it, and
`scons release-digests` rewrites the table of the toolchain in use.  The
manifest and SHA256SUMS are left out: they name the commit that holds the
digests, so they cannot be known before it is made.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

from ireerv.util.files import sha256_file

FILE_NAME = "release-digests.toml"
FILES = ("image.elf", "image.hex", "image.map", "size-report.json")
REGENERATE = "scons release-digests TOOLCHAIN={kind}"
_HEADER = f"""\
# SHA-256 of every output of the reference release (`scons release`, that is
# MODEL=matmul BOARD=cluster4), one table per TOOLCHAIN.  `scons release-check`
# compares a fresh build with them: the same bytes on any machine.
# A change that alters the release updates them in the same commit:
#     {REGENERATE.format(kind="debian")}
#     {REGENERATE.format(kind="source")}
# (add ALLOW_DIRTY=1 before committing; the images do not depend on the commit).
# manifest.json and SHA256SUMS are not listed: they name the commit itself.
"""


class DigestError(Exception):
    """The digests file is unreadable or lacks the toolchain asked for."""


def load(path: Path) -> dict[str, dict[str, str]]:
    """toolchain kind -> file name -> sha256; empty when the file does not exist."""
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise DigestError(f"{path.name}: cannot be read: {err}") from None
    tables = {}
    for kind, table in data.items():
        if not isinstance(table, dict) or not all(
            isinstance(v, str) and len(v) == 64 for v in table.values()
        ):
            raise DigestError(f"{path.name}: [{kind}] must map file names to sha256 strings")
        tables[kind] = dict(table)
    return tables


def of_release(directory: Path) -> dict[str, str]:
    """The digests of a release directory's files that the digests file covers."""
    return {name: sha256_file(directory / name) for name in FILES}


def write(path: Path, kind: str, digests: Mapping[str, str]) -> None:
    """Replace the table of `kind` in the digests file, keeping the other toolchains'."""
    tables = load(path)
    tables[kind] = dict(digests)
    parts = [_HEADER]
    for name in sorted(tables):
        parts.append(f"\n[{name}]\n")
        parts += [f'"{f}" = "{sha}"\n' for f, sha in sorted(tables[name].items())]
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text("".join(parts))
    tmp.replace(path)


def compare(directory: Path, path: Path, kind: str) -> list[str]:
    """How the release in `directory` differs from the committed digests (empty: identical)."""
    tables = load(path)
    if kind not in tables:
        return [f"{path.name} has no [{kind}] table; write it with "
                f"`{REGENERATE.format(kind=kind)}`"]
    expected = tables[kind]
    actual = of_release(directory)
    problems = [f"{name}: not in the release" for name in sorted(set(expected) - set(actual))]
    for name in FILES:
        if name not in expected:
            problems.append(f"{name}: no committed digest")
        elif actual[name] != expected[name]:
            problems.append(f"{name}: sha256 {actual[name]}, committed {expected[name]}")
    return problems
