"""The library folder `scons library` writes: what is in it, and its manifest and SBOM,
as a release has them."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from ireerv.library import model_source, package
from ireerv.paths import PROJECT_ROOT
from ireerv.util.files import sha256_file

MANIFEST_SCHEMA = "ireerv-library/1"
_ARENA = re.compile(r"^ARENA (\d+)$", re.M)
SBOM = "sbom.cdx.json"


class LibraryFolderError(Exception):
    """The folder cannot be made: the probe did not say its arena."""


def FILES(name: str) -> list[str]:  # noqa: N802 - a table, read as one
    """Every file of the folder; include/ireerv.h first (the folder is its parent's)."""
    return ["include/ireerv.h", f"include/{name}.h", package.RUNTIME_ARCHIVE,
            package.model_archive(name), *package.BOARD_FILES, "cmake/toolchain.cmake",
            "lib/cmake/ireerv/ireerv-config.cmake", "ireerv.mk", "lib/pkgconfig/ireerv.pc",
            f"lib/pkgconfig/ireerv-{name}.pc", "example/main.c", "example/CMakeLists.txt",
            "example/Makefile", "manifest.json", SBOM]


def measured_arena(program_output: str) -> int:
    """The probe's `ARENA <bytes>` line."""
    found = _ARENA.search(program_output)
    if not found or "STATUS OK" not in program_output:
        tail = program_output.strip().splitlines()[-3:]
        raise LibraryFolderError("the arena probe did not finish: " + " / ".join(tail))
    return int(found.group(1))


def flags(env) -> package.Flags:
    board, toolchain = env["BOARD_SPEC"], env["TOOLCHAIN"]
    libc = toolchain.libc_flags()
    return package.Flags(gcc=str(toolchain.tool("gcc")),
                         compile=(*board.compile_flags(), *libc),
                         link=(f"-march={board.link_march}", f"-mabi={board.mabi}", *libc))


def write(root: Path, env, image, name: str, sources: list[Path]) -> None:
    """The folder from the build's outputs (in the Tool's order)."""
    runtime, model_a, arena, sections, board_o, script, api_h, _, mlir = sources
    if root.exists():
        shutil.rmtree(root)
    for sub in ("include", "lib/cmake/ireerv", "lib/pkgconfig", "board", "cmake", "example"):
        (root / sub).mkdir(parents=True)
    model = image.model
    ins = model_source.inputs(model, image.size)
    outs = model_source.outputs(model, mlir.read_text())
    arena_bytes = model_source.arena_bytes(int(arena.read_text()))
    names = [line for line in sections.read_text().splitlines() if line]
    build = flags(env)
    texts = {
        f"include/{name}.h": model_source.header(name, arena_bytes, ins, outs, names),
        "cmake/toolchain.cmake": package.toolchain_cmake(build),
        "lib/cmake/ireerv/ireerv-config.cmake": package.cmake_config(name, build),
        "ireerv.mk": package.make_include(name, build),
        **package.pkg_config(name, build, _version()),
        "example/main.c": package.example_source(name),
        "example/CMakeLists.txt": package.example_cmake(name),
        "example/Makefile": package.example_makefile(),
    }
    for rel, text in texts.items():
        (root / rel).write_text(text)
    copies = {"include/ireerv.h": api_h, package.RUNTIME_ARCHIVE: runtime,
              package.model_archive(name): model_a, "board/board.o": board_o,
              "board/link.ld": script}
    for rel, path in copies.items():
        shutil.copyfile(path, root / rel)
    outputs = {p.relative_to(root).as_posix(): sha256_file(p)
               for p in sorted(root.rglob("*")) if p.is_file()}
    manifest = _manifest(env, image, name, arena_bytes, int(arena.read_text()), outputs)
    from ireerv.release import release

    release.write_json(root / "manifest.json", manifest)
    _write_sbom(env, root, manifest, outputs)


def _version() -> str:
    from ireerv.release import release

    try:
        return release.source_state(PROJECT_ROOT)["version"]
    except release.ReleaseError:
        return "unknown"


def _manifest(env, image, name: str, arena_bytes: int, measured: int,
              outputs: dict[str, str]) -> dict[str, Any]:
    from ireerv.inputs import toolchain_build
    from ireerv.release import release

    try:
        state = release.source_state(PROJECT_ROOT)
    except release.ReleaseError:
        state = {"commit": "", "dirty": True, "source_date_epoch": 0, "version": "unknown"}
    return {
        "schema": MANIFEST_SCHEMA, "version": state["version"],
        "source": {"commit": state["commit"], "dirty": state["dirty"],
                   "source_date_epoch": state["source_date_epoch"]},
        "library": name, "configuration": image.key.config(),
        "arena": {"bytes": arena_bytes, "measured": measured},
        "flags": {"compile": list(flags(env).compile)[:2], "iree-compile": image.iree_flags},
        "toolchain": toolchain_build.manifest(env.GetFetcher(), env["TOOLCHAIN_KIND"]),
        "inputs": {n: {**inp.pin(), "key": inp.key()} for n, inp in env["LOCK"].inputs.items()},
        "outputs": outputs,
    }


def _write_sbom(env, root: Path, manifest: dict[str, Any], outputs: dict[str, str]) -> None:
    from ireerv.release import sbom

    inputs = [sbom.input_component(inp, PROJECT_ROOT) for inp in env["LOCK"].inputs.values()]
    meta = {"name": root.name, "version": manifest["version"],
            "source_date_epoch": manifest["source"]["source_date_epoch"]}
    (root / SBOM).write_text(sbom.document(release=meta, inputs=inputs,
                                           python=sbom.python_components(), linked=[],
                                           outputs=outputs))
