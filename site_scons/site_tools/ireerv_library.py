"""`scons library`: the model for the user's own firmware, as a folder (docs/firmware.md).

Adds env.ModelLibrary(board, model, size) -> the folder's files.  The model is compiled as
its image of the board's default HARTS is (the same iree-compile outputs); the runtime
archive is IREE's archives, the inline HAL, the soft-float routines and the API
(runtime/api); the model archive's only global symbol is `<m>_model`, and on a board whose
default is HARTS=auto it carries the runner's dispatcher for several harts compiled with
the model's tables (runtime/api/model_harts.c); `<M>_ARENA_BYTES` is measured by running a
probe firmware on the board's simulator.  The logic is in ireerv.library.
"""

from __future__ import annotations

from pathlib import Path

import SCons.Action

from ireerv import simulators, targets
from ireerv.formats.base import ModelError
from ireerv.image import hal_exports, iree_compile, layout
from ireerv.library import archives, folder, model_source, package
from ireerv.paths import PROJECT_ROOT
from ireerv.runtime import inline_hal, iree_build
from ireerv.simulators.base import Image, SimulationError
from ireerv.targets import Target
from ireerv.util.scons import build_error, short_action, user_error, write_value
from ireerv.util.sources import module_files

API_DIR = PROJECT_ROOT / "runtime" / "api"
API_SOURCES = ("ireerv.c", "arena.c", "harts.c")
# The runner's HARTS=auto dispatcher, compiled into a model's archive with its tables.
HART_SOURCES = (iree_build.RUNNER_DIR / "parallel.c", iree_build.RUNNER_DIR / "hart_local.c",
                iree_build.RUNNER_DIR / "hart_plan.c", API_DIR / "model_harts.c")
# The files that run for every dispatch: -O2, as in the runner (image/runner_flags.py).
HART_CFLAGS = ["-O2"]


def _compile_env(benv):
    """The board's environment with IREE's headers and defines, without LTO: the archives
    link into any firmware, with or without -flto."""
    rdir = Path(benv.Dir(benv.RuntimeDir()).path)
    runtime = iree_build.runtime_layout(benv.GetFetcher().path("iree"), rdir, benv["PROFILE"])
    lenv = benv.Clone()
    for inc in runtime.include_dirs:
        lenv.Append(CCFLAGS=["-isystem", str(inc)])
    lenv.Append(CPPDEFINES=runtime.defines, CPPPATH=[str(API_DIR)],
                CCFLAGS=["-Os" if benv["PROFILE"] == "release" else "-Og"])
    return lenv


def _runtime_archive(env, lenv, work: str, libs: list, harts: int) -> object:
    """lib/libireerv.a: IREE's archives, the inline HAL, the soft-float routines, the API
    (ireerv_worker's team for `harts` harts)."""
    src = lenv.GetFetcher().path("iree")
    aenv = lenv.Clone()
    aenv.Append(CPPDEFINES=[("IREERV_HARTS", harts)])
    henv = lenv.Clone()
    henv.Append(CCFLAGS=["-Wno-format", "-Wno-unused-function",
                         "-Wno-unused-but-set-variable"])
    objects = [aenv.Object(f"{work}/api/{Path(s).stem}.o", str(API_DIR / s))[0]
               for s in API_SOURCES]
    heap = [(o, s) for o, s, _ in hal_exports.DEVICE_SOURCES if o == "allocator_heap.o"]
    for obj, source in [*((o, s) for o, s, _, _ in inline_hal.MODULE_SOURCES), *heap]:
        oenv = henv.Clone()
        oenv.Append(CCFLAGS=iree_build.hot_cflags(lenv["PROFILE"],
                                                  source.removeprefix("runtime/src/iree/")))
        objects += oenv.Object(f"{work}/hal/{obj}", str(src / source))
    lenv.Depends(objects, libs)  # the runtime build's generated headers
    objects += env.SoftFloatObjects(lenv)
    archive = lenv.Command(f"{work}/libireerv.a", [*libs, *objects], short_action(
        lambda target, source, env: _merge(env, target, source, len(libs)), "AR"))[0]
    lenv.Depends(archive, module_files(archives))  # how the archive is made
    return archive


def _merge(env, target, source, count: int) -> None:
    paths = [Path(str(s)) for s in source]
    try:
        archives.merge(Path(env["AR"]), Path(str(target[0])), paths[:count], paths[count:],
                       Path(env["OBJCOPY"]))
    except archives.ArchiveError as err:
        build_error(err)


def _hart_objects(lenv, image, work: str) -> list:
    """The model's dispatcher for several harts (none for an image of one hart)."""
    if image.harts < 2:
        return []
    idir = image.dir
    henv = lenv.Clone()
    henv.Prepend(CPPPATH=[idir, str(iree_build.RUNNER_DIR)])
    henv.Append(CCFLAGS=HART_CFLAGS, CPPDEFINES=[
        ("RUNNER_HARTS", image.harts), ("RUNNER_HARTS_AUTO", 1), ("RUNNER_HARTS_LIBRARY", 1)])
    objects = [henv.Object(f"{work}/model/{s.stem}.o", str(s))[0] for s in HART_SOURCES]
    henv.Depends(objects, [f"{idir}/hart_local_check.h", f"{idir}/model_dispatches.h"])
    return objects


def _model_archive(lenv, image, name: str, work: str) -> tuple[object, object]:
    """lib/lib<m>.a and the list of its large constants' sections."""
    idir = image.dir
    module_o = lenv.Object(f"{work}/model/model_module.o", f"{idir}/model_module.c",
                           CPPPATH=[idir, *lenv["CPPPATH"]])
    harts = _hart_objects(lenv, image, work)
    descriptor = lenv.Command(
        f"{work}/model/{name}_model.c",
        [f"{idir}/model_kernel.h", image.mlir, lenv.Value(repr(image.key)),
         *module_files(model_source)],
        short_action(_write_descriptor), LIB_IMAGE=image, LIB_NAME=name)
    desc_o = lenv.Object(f"{work}/model/{name}_model.o", descriptor,
                         CPPPATH=[*lenv["CPPPATH"], str(iree_build.RUNNER_DIR)])
    joined = lenv.Command([f"{work}/{name}.o", f"{work}/{name}.sections"],
                          [module_o, desc_o, *harts, f"{idir}/model_kernel.o",
                           *module_files(archives)],
                          short_action(_localise, "LOCAL"), LIB_NAME=name)
    archive = lenv.Command(f"{work}/lib{name}.a", joined[0],
                           SCons.Action.Action("$AR rcD $TARGET $SOURCES", "$ARCOMSTR"))
    return archive[0], joined[1]


def _write_descriptor(target, source, env) -> None:
    image, name = env["LIB_IMAGE"], env["LIB_NAME"]
    model = image.model
    try:
        mlir_text = Path(str(source[1])).read_text()
        queries = _queries(Path(str(source[0])).read_text())
        text = model_source.descriptor_source(
            name, model.vm_module or iree_compile.module_name(mlir_text), model.function,
            queries, model_source.inputs(model, image.size),
            model_source.outputs(model, mlir_text), harts=image.harts > 1)
    except (model_source.LibraryError, ModelError) as err:
        build_error(err)
    Path(str(target[0])).write_text(text)


def _queries(kernel_header: str) -> list[str]:
    from ireerv.image import runner_data

    return runner_data.library_queries(kernel_header)


def _localise(target, source, env) -> None:
    tools = env["TOOLCHAIN"]
    name = env["LIB_NAME"]
    out = Path(str(target[0]))
    objects = [Path(str(s)) for s in source if str(s).endswith(".o")]
    try:
        joined = out.with_suffix(".all.o")
        archives.localise(tools.tool("ld"), tools.tool("objcopy"), joined, objects, [])
        found = archives.large_sections(tools.tool("readelf"), joined, 1 << 20)
        joined.unlink()
        rename = {s: f".rodata.ireerv.{name}.constants{i}" for i, s in enumerate(found)}
        archives.localise(tools.tool("ld"), tools.tool("objcopy"), out, objects,
                          [f"{name}_model"], rename)
    except archives.ArchiveError as err:
        build_error(err)
    Path(str(target[1])).write_text("".join(f"{s}\n" for s in rename.values()))


def _arena(env, lenv, board, name: str, work: str, archives_: list) -> object:
    """The measured arena: a probe firmware run once on the board's simulator."""
    probe_c = lenv.Command(f"{work}/probe/probe.c", lenv.Value(package.probe_source(name)),
                           short_action(write_value))
    probe_o = lenv.Object(f"{work}/probe/probe.o", probe_c)
    elf = lenv.Program(f"{work}/probe/probe.elf", [probe_o, *archives_, *lenv["BSP_OBJECTS"]],
                       LIBS=lenv.get("IMAGE_LIBS", []))[0]
    lenv.Depends(elf, lenv["LINKER_SCRIPT"])
    hex_file = lenv.Hex(f"{work}/probe/probe.hex", elf)[0]
    tools = env.Value(simulators.identity(board.simulator, env.GetFetcher()))
    return lenv.Command(f"{work}/arena.txt", [elf, hex_file, tools],
                        short_action(_measure, "PROBE"), LIB_BOARD=board)[0]


def _measure(target, source, env) -> None:
    board = env["LIB_BOARD"]
    sim = env.SimulatorPath(board)
    try:
        result = simulators.run(board.simulator, sim,
                                Image(Path(str(source[0])), Path(str(source[1]))))
    except SimulationError as err:
        build_error(err)
    try:
        used = folder.measured_arena(result.program_output)
    except folder.LibraryFolderError as err:
        build_error(err)
    Path(str(target[0])).write_text(f"{used}\n")


def model_library(env, board, model, size) -> list:
    """The library folder's files for `model` on `board` (HAL=inline)."""
    if env.get("HAL", inline_hal.DEFAULT) != "inline":
        user_error(ModelError("the library runs models through the inline HAL: HAL=inline"))
    if board.placement.constants:
        user_error(ModelError(f"placement {board.placement_name!r} stages constants; the "
                              "library takes a placement without staging"))
    # HARTS=auto's compile and dispatcher where it is the board's default, else one hart's.
    auto = layout.parse_harts(None, board)[1]
    image = env.ModelImage(board, model, size, "iree", harts=layout.AUTO if auto else 1)
    lenv = _compile_env(image.env)
    name = model_source.c_name(model.name)
    out = f"{image.key.build_dir()}-library"
    work = f"{image.dir}/library"
    runtime = _runtime_archive(env, lenv, work, list(image.runtime_libs), image.harts)
    model_a, sections = _model_archive(lenv, image, name, work)
    arena = _arena(env, lenv, board, name, work, [model_a, runtime])
    board_o = lenv.Command(f"{work}/board.o", lenv["BSP_OBJECTS"],
                           short_action(_join, "LD"))[0]
    sources = [runtime, model_a, arena, sections, board_o, lenv["LINKER_SCRIPT"][0],
               str(API_DIR / "ireerv.h"), f"{image.dir}/model_kernel.h", image.mlir]
    nodes = lenv.Command([f"{out}/{f}" for f in folder.FILES(name)], sources,
                         short_action(_write_folder, "LIBRARY"), LIB_IMAGE=image,
                         LIB_NAME=name)
    lenv.Depends(nodes, module_files(folder, package, model_source))
    return nodes


def _library_target(env, request) -> list:
    """The folder, and its path said on every build (a no-op one too)."""
    nodes = env.ModelLibrary(request.placed_board, request.model,
                             int(env["SIZE"]) if env["SIZE"] else None)
    root = Path(str(nodes[0])).parent.parent.as_posix()
    said = env.Alias("library-path", nodes, env.Action(
        lambda target, source, env: print(f"library: {root}"), None))
    env.AlwaysBuild(said)
    return said


def _join(target, source, env) -> None:
    try:
        archives.join(env["TOOLCHAIN"].tool("ld"), Path(str(target[0])),
                      [Path(str(s)) for s in source])
    except archives.ArchiveError as err:
        build_error(err)


def _write_folder(target, source, env) -> None:
    image, name = env["LIB_IMAGE"], env["LIB_NAME"]
    root = Path(str(target[0])).parent.parent  # include/ireerv.h's folder's parent
    try:
        folder.write(root, env, image, name, [Path(str(s)) for s in source])
    except (folder.LibraryFolderError, model_source.LibraryError, ModelError) as err:
        build_error(err)


def generate(env) -> None:
    env.Tool("ireerv_image")  # the model's compiled program, the board's environment
    env.Tool("ireerv_run")  # the simulator the probe runs on
    env.AddMethod(model_library, "ModelLibrary")
    targets.declare(env, Target(
        "library", "MODEL as a library for your own firmware: runtime and model archives, "
        "headers, CMake/make/pkg-config files and an example (docs/firmware.md)", "build",
        _library_target))


def exists(env) -> bool:
    return True
