"""The committed SHA-256 of each board's reference release, one table per board and toolchain.

`release-digests.toml` proves a release is the same bytes on any machine:
`scons release-check` compares a fresh build with it, and
`scons release-digests` rewrites the table of the board and toolchain in use
(`[<board>.<toolchain>]`).  A board's reference release is MODEL=matmul with
every other setting at its default.  The manifest and SHA256SUMS are left out:
they name the commit that holds the digests, so they cannot be known before it
is made.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

from ireerv.util.files import sha256_file

FILE_NAME = "release-digests.toml"
FILES = ("image.elf", "image.hex", "image.map", "size-report.json")
REGENERATE = "scons release-digests BOARD={board} TOOLCHAIN={kind}"
_HEADER = f"""\
# SHA-256 of every output of each board's reference release (`scons release
# BOARD=<board>`: MODEL=matmul, every other setting at its default), one table
# per board and TOOLCHAIN.  `scons release-check` compares a fresh build with
# them: the same bytes on any machine.
# A change that alters a release updates its table in the same commit:
#     {REGENERATE.format(board="<board>", kind="debian")}
#     {REGENERATE.format(board="<board>", kind="source")}
# (add ALLOW_DIRTY=1 before committing; the images do not depend on the commit).
# manifest.json and SHA256SUMS are not listed: they name the commit itself.
"""


def table_name(board: str, kind: str) -> str:
    return f"{board}.{kind}"


class DigestError(Exception):
    """The digests file is unreadable or lacks the toolchain asked for."""


def load(path: Path) -> dict[str, dict[str, str]]:
    """"<board>.<toolchain>" -> file name -> sha256; empty when the file does not exist."""
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise DigestError(f"{path.name}: cannot be read: {err}") from None
    tables = {}
    for board, kinds in data.items():
        if not isinstance(kinds, dict) or not all(isinstance(t, dict) for t in kinds.values()):
            raise DigestError(f"{path.name}: [{board}] must hold one table per toolchain, "
                              f"[{table_name(board, 'debian')}]")
        for kind, table in kinds.items():
            name = table_name(board, kind)
            if not all(isinstance(v, str) and len(v) == 64 for v in table.values()):
                raise DigestError(f"{path.name}: [{name}] must map file names to sha256 strings")
            tables[name] = dict(table)
    return tables


def boards(path: Path) -> set[str]:
    """The boards whose reference release has committed digests."""
    return {name.split(".")[0] for name in load(path)}


def of_release(directory: Path) -> dict[str, str]:
    """The digests of a release directory's files that the digests file covers."""
    return {name: sha256_file(directory / name) for name in FILES}


def write(path: Path, board: str, kind: str, digests: Mapping[str, str]) -> None:
    """Replace the table of `board` and `kind` in the digests file, keeping the others."""
    tables = load(path)
    tables[table_name(board, kind)] = dict(digests)
    parts = [_HEADER]
    for name in sorted(tables):
        parts.append(f"\n[{name}]\n")
        parts += [f'"{f}" = "{sha}"\n' for f, sha in sorted(tables[name].items())]
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text("".join(parts))
    tmp.replace(path)


def compare(directory: Path, path: Path, board: str, kind: str) -> list[str]:
    """How the release in `directory` differs from the committed digests (empty: identical)."""
    tables = load(path)
    name = table_name(board, kind)
    if name not in tables:
        return [f"{path.name} has no [{name}] table; write it with "
                f"`{REGENERATE.format(board=board, kind=kind)}`"]
    expected = tables[name]
    actual = of_release(directory)
    problems = [f"{f}: not in the release" for f in sorted(set(expected) - set(actual))]
    for f in FILES:
        if f not in expected:
            problems.append(f"{f}: no committed digest")
        elif actual[f] != expected[f]:
            problems.append(f"{f}: sha256 {actual[f]}, committed {expected[f]}")
    return problems
