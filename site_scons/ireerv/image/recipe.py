"""The image recipe: one model's image for one board, from the model resolved once
(model_build.ModelBuild) through iree-compile, the runner's sources and the runtime to the
linked ELF, .hex, .map and .dis.

`model_image(env, board, model, size, runtime)` -> Image (the board's environment, the
model's build with its iree-compile flags, the runtime libraries and the outputs), for the
Tools that run, measure and release it.  site_tools/ireerv_image.py registers it as
env.ModelImage, with the IreeCompile builder whose action is `compile_action`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ireerv.boards import Board
from ireerv.boards.board import CODE_LAYOUT_FLAGS
from ireerv.formats.base import Model, ModelError
from ireerv.harts import dispatch_counts
from ireerv.image import iree_compile, layout, plain_c, rodata, runner_data, runner_flags, warm_up
from ireerv.image import tuning as image_tuning
from ireerv.image.key import DEFAULT_SHAPES, ImageKey
from ireerv.image.model_build import ModelBuild
from ireerv.inputs.fetch import FetchError
from ireerv.library import model_source
from ireerv.paths import PROJECT_ROOT
from ireerv.runtime import inline_hal, iree_build
from ireerv.size import lto_map
from ireerv.size.report import SizeReportError
from ireerv.size.text import format_summary
from ireerv.tune import spec
from ireerv.util.scons import build_error, short_action, user_error, write_value
from ireerv.util.sources import module_files

RUNNER_SOURCE = iree_build.RUNNER_DIR / "runner.c"
RODATA_BLOB = "model_rodata.bin"  # the program's large constants (image/rodata.py)
PARALLEL_SOURCE = iree_build.RUNNER_DIR / "parallel.c"
HART_LOCAL_SOURCE = iree_build.RUNNER_DIR / "hart_local.c"
HART_PLAN_SOURCE = iree_build.RUNNER_DIR / "hart_plan.c"
HOST_ALLOCATOR_SOURCE = iree_build.RUNNER_DIR / "host_allocator.c"
STAGING_SOURCE = iree_build.RUNNER_DIR / "staging.c"
WEIGHT_CACHE_SOURCE = iree_build.RUNNER_DIR / "weight_cache.c"
# The library's API (runtime/api), through which the runner opens and calls the model.
API_DIR = iree_build.RUNTIME_DIR / "api"
API_SOURCES = (("ireerv", str(API_DIR / "ireerv.c")), ("arena", str(API_DIR / "arena.c")))


@dataclass
class Image:
    board: Board
    build: ModelBuild  # the model, its size and inputs, its iree-compile flags
    runtime: str  # "iree" or "none" (plain C)
    dir: str  # SCons path of the image's build directory
    env: object  # the board's cross environment the image was linked in
    elf: object
    map: object
    hex: object
    dis: object
    runtime_libs: list = field(default_factory=list)  # IREE runtime archives, link order
    harts: int = 1  # harts sharing each dispatch (HARTS)
    key: ImageKey | None = None  # its configuration, from which its folders are named
    mlir: object = None  # the MLIR iree-compile takes (None for plain C)

    @property
    def model(self) -> Model:
        return self.build.model

    @property
    def size(self) -> int | None:
        return self.build.size

    @property
    def iree_flags(self) -> list[str]:
        """Empty for plain C."""
        return list(self.build.flags)

    @property
    def outputs(self) -> list:
        return [self.elf, self.hex, self.map, self.dis]


def _runtime_compile_env(benv):
    """The board environment plus what code including IREE headers needs."""
    rdir = Path(benv.Dir(benv.RuntimeDir()).path)  # relative: the same in every clone
    runtime = iree_build.runtime_layout(benv.GetFetcher().path("iree"), rdir, benv["PROFILE"])
    renv = benv.Clone()
    for inc in runtime.include_dirs:  # -isystem: IREE's headers are not ours to warn about
        renv.Append(CCFLAGS=["-isystem", str(inc)])
    renv.Append(CPPDEFINES=runtime.defines)
    renv.Append(CCFLAGS=["-Os" if benv["PROFILE"] == "release" else "-Og"])
    lto_cflags = iree_build.lto_flags(benv["PROFILE"])[0]
    if lto_cflags:  # seeded by the object's path: the same LTO names on every build
        renv.Append(CCFLAGS=[*lto_cflags, "-frandom-seed=$TARGET"])
    return renv


def _object_env(renv, benv, source: str, cache: dict):
    """renv with the runner source's own optimisation flags (runner_flags), one per set."""
    profile, staged = benv["PROFILE"], bool(benv["BOARD_SPEC"].placement.constants)
    extra = runner_flags.extra_cflags(source, profile, staged)
    drop = runner_flags.without_lto(source, profile, staged)
    if not extra:
        return renv
    if (key := (*extra, drop)) not in cache:
        oenv = cache[key] = renv.Clone()
        if drop:
            lto_cflags = iree_build.lto_flags(profile)[0]
            oenv["CCFLAGS"] = [f for f in oenv["CCFLAGS"] if f not in lto_cflags]
        oenv.Append(CCFLAGS=extra)
    return cache[key]


# -- Model compilation ---------------------------------------------------------------------

_checked_compilers: set[str] = set()


def iree_compile_path(env) -> Path:
    wheel = env.GetFetcher().path("iree-compiler")
    return wheel / "iree" / "compiler" / "_mlir_libs" / "iree-compile"


def compile_emitter(target, source, env):
    module_h = target[0]
    names = [p.name for p in iree_compile.outputs(Path(module_h.name))]
    return [module_h.dir.File(name) for name in [*names, RODATA_BLOB]], source


def compile_action(target, source, env):
    """iree-compile on the model's MLIR, the empty kernel where it makes none, and the
    constants' split; a failure said in the terms of the user's file (ModelBuild.explain)."""
    try:
        compiler = iree_compile_path(env)
        if str(compiler) not in _checked_compilers:
            iree_build.check_compiler_commit(compiler, env["LOCK"].input("iree").commit)
            _checked_compilers.add(str(compiler))
        iree_compile.compile_model(compiler, env["IREE_FLAGS"], Path(str(source[0])),
                                   Path(str(target[0])), env["_BUILD"].explain)
        # The kernel object as the target: $CCFLAGS seeds LTO names with $TARGET.
        cc = env.subst("$CC $CCFLAGS", target=target[1:2]).split()
        iree_compile.add_empty_kernel(Path(str(target[0])), cc)
        # Named from the project's top folder, where the assembler runs: the same in every
        # clone.
        rodata.split(Path(str(target[0])), Path(str(target[-1])), target[-1].path)
    except (iree_compile.CompileError, iree_build.IreeBuildError, rodata.RodataError,
            FetchError) as err:
        build_error(err)


def _model_data(target, source, env):
    """model_data.c: the model's description from the library's generator, with the
    runner's inputs."""
    build: ModelBuild = env["_BUILD"]
    kernel_h = Path(str(source[0])).read_text()
    try:
        arrays = build.device_inputs()
        text = runner_data.model_source(
            env["MODULE_NAME"], build.model.function, arrays,
            library_queries=runner_data.library_queries(kernel_h), repeat=int(env["REPEAT"]),
            name=model_source.c_name(build.model.name),
            tensors=model_source.inputs(build.model, build.size, arrays),
            outputs=model_source.outputs(build.model, Path(str(source[1])).read_text(),
                                         dynamic=True))
    except (runner_data.RunnerDataError, model_source.LibraryError, ModelError) as err:
        build_error(err)
    Path(str(target[0])).write_text(text)


def model_image(env, board: Board, model: Model, size: int | None, runtime: str,
                harts: int | None = None, tuning: str | None = None) -> Image:
    """The image of `model` (formats.load_model's, MODEL resolved once); `tuning` overrides
    TUNING."""
    benv = env.BoardEnv(board)
    try:
        harts, auto = layout.parse_harts(env.get("HARTS") if harts is None else harts, board,
                                         runtime)
        if auto and runtime == "none":
            raise ModelError("HARTS=auto applies to IREE images: the plain C matmul has no "
                             "dispatches to choose for; give a number")
        build = ModelBuild.of(model, size)  # inputs that cannot be made fail here, once
        layout.check_harts(board, runtime, harts)
    except ModelError as err:
        user_error(err)
    key = layout.image_key(env, board, build, runtime, layout.AUTO if auto else harts, tuning)
    idir = key.build_dir()
    libs: list = []
    mlir = None
    if runtime == "none":
        objects = _plain_c_objects(benv, build, idir, harts)
    else:
        libs = env.IreeRuntime(board)
        benv["SOFTFLOAT_OBJECTS"] = env.SoftFloatObjects(benv)
        benv["HARTS_AUTO"] = auto
        # The board's tiles for several harts, or the tuned ones; the HAL of the image.
        library = _merged_library(benv, build.model, key, idir, harts)
        build = build.with_flags(iree_compile.flags(board, harts, benv["PROFILE"], library,
                                                    key.value("HAL")))
        objects, mlir = _iree_objects(benv, build, idir, libs, harts, key.value("HAL"))
        objects += libs
    elf, map_file, hex_file, dis = _link(env, benv, idir, objects, runtime)
    return Image(board, build, runtime, idir, benv, elf, map_file, hex_file, dis,
                 runtime_libs=list(libs), harts=harts, key=key, mlir=mlir)


def _link(env, benv, idir: str, objects: list, runtime: str) -> list:
    """The ELF, its map, .hex and disassembly."""
    # The soft-float objects define __addsf3 & co. before libgcc is searched.
    objects = [*objects, *env.SoftFloatObjects(benv)]
    lto_link = _lto_link_flags(benv) if runtime == "iree" else []
    elf, map_file = benv.Program(f"{idir}/image.elf", [*objects, *benv["BSP_OBJECTS"]],
                                 LIBS=benv.get("IMAGE_LIBS", []),
                                 LINKFLAGS=[*benv["LINKFLAGS"], *lto_link])[:2]
    benv.Depends([elf, map_file], benv["LINKER_SCRIPT"])
    if lto_link:
        benv.AddPostAction(elf, benv.Action(_fix_lto_map, None))
    hex_file = benv.Hex(f"{idir}/image.hex", elf)[0]
    dis = benv.Disassembly(f"{idir}/image.dis", elf)[0]
    benv.AddPostAction(elf, benv.Action(_print_summary, None))
    return [elf, map_file, hex_file, dis]


def _merged_library(benv, model: Model, key: ImageKey, idir: str, harts: int) -> str | None:
    """The board's library with its harts library (several harts) and the model's tunings
    (`scons tune`; the board's own, and the one it borrows) merged in ahead of it; None:
    the library as it is."""
    board = benv["BOARD_SPEC"]
    tunings = image_tuning.used_by(model, board, key.value("TUNING"))
    overlays = [(PROJECT_ROOT / board.iree.harts_library, spec.HARTS)] \
        if harts > 1 and board.iree.harts_library else []
    # Each overlay goes ahead of those before it: the board's own tuning last, so it wins.
    overlays += [(t, spec.BORROWED if image_tuning.borrowed(t, board) else spec.TUNED)
                 for t in reversed(tunings)]
    if not overlays or not board.iree.library:
        return None
    merged = benv.Command(f"{idir}/{image_tuning.MERGED}",
                          [str(PROJECT_ROOT / board.iree.library), *(str(f) for f, _ in overlays)],
                          short_action(_merge_tiles, varlist=["OVERLAY_PREFIXES"]),
                          OVERLAY_PREFIXES=[p for _, p in overlays])[0]
    benv.Depends(merged, module_files(spec))  # how the overlays merge
    return Path(merged.abspath).relative_to(PROJECT_ROOT).as_posix()  # as the flag names it


def _merge_tiles(target, source, env):
    text = Path(str(source[0])).read_text()
    for overlay, prefix in zip(source[1:], env["OVERLAY_PREFIXES"], strict=True):
        try:
            # Checked alone: iree-compile would name the merged file's lines, not its own.
            iree_compile.check_library(iree_compile_path(env), Path(str(overlay)))
            text = spec.merge(text, spec.renamed(Path(str(overlay)).read_text(), prefix),
                              prefix)
        except spec.SpecError as err:
            build_error(f"{overlay}: {err}")
        except (iree_compile.CompileError, FetchError) as err:
            build_error(err)
    Path(str(target[0])).write_text(text)


def _compiled(renv, build: ModelBuild, idir: str) -> tuple[object, list]:
    """The MLIR iree-compile takes (the format's import step's, specialised to the inputs'
    shapes where it applies), and what iree-compile makes of it."""
    model = build.model
    mlir = build.import_step(renv)
    if layout.specializes(model, "iree", renv.get("SHAPES", DEFAULT_SHAPES)):
        mlir = renv.MlirSpecialize(model, build.size, mlir, idir)[0]
    compiled = renv.IreeCompile(f"{idir}/model_module.h", mlir, IREE_FLAGS=list(build.flags),
                                _BUILD=build)
    libraries = [str(p) for p in iree_compile.library_files(list(build.flags))]
    # The transform library, and our code that compiles and splits out the constants.
    renv.Depends(compiled, [*libraries, *module_files(iree_compile, rodata, dispatch_counts,
                                                      inline_hal)])
    return mlir, compiled


def _iree_objects(benv, build: ModelBuild, idir: str, runtime_libs, harts: int,
                  hal: str) -> tuple[list, object]:
    """The image's objects from IREE, and the MLIR they are compiled from."""
    try:
        renv = _runtime_compile_env(benv)
    except FetchError as err:
        user_error(err)
    renv["IREE_FLAGS"] = list(build.flags)  # the hart check compiles with them too
    inline = inline_hal.applies(hal)
    model = build.model
    module = model.vm_module or iree_compile.module_name(model.mlir.read_text())
    mlir, (module_h, kernel_o, kernel_h, shares_h, blob) = _compiled(renv, build, idir)
    module_c = renv.Command(
        f"{idir}/model_module.c", renv.Value(runner_data.module_impl_source("model_module.h")),
        short_action(write_value))
    data_c = renv.Command(
        f"{idir}/model_data.c",
        [kernel_h, mlir, renv.Value(f"{module} {model.function} {benv['REPEAT']} "
                                    f"{build.inputs_digest}"),
         *module_files(runner_data, model_source)],
        short_action(_model_data), _BUILD=build, MODULE_NAME=module)
    renv.Append(CPPPATH=[idir, str(iree_build.RUNNER_DIR), str(API_DIR)], CPPDEFINES=[
        ("RUNNER_HARTS", harts), *([("RUNNER_HARTS_AUTO", 1)] if benv.get("HARTS_AUTO") else []),
        *([] if inline else [("IREERV_FULL_HAL", 1)])])
    sources = [("model_module", module_c), ("model_data", data_c),
               ("runner", str(RUNNER_SOURCE)), *API_SOURCES, ("parallel", str(PARALLEL_SOURCE)),
               ("host_allocator", str(HOST_ALLOCATOR_SOURCE))]
    if benv["BOARD_SPEC"].placement.constants:  # BSP_STAGED_CONSTANTS: weights staged
        sources += [("staging", str(STAGING_SOURCE)),
                    ("weight_cache", str(WEIGHT_CACHE_SOURCE))]
    extra = renv.Command(f"{idir}/{warm_up.HEADER}", module_h, short_action(
        lambda target, source, env: warm_up.write_header(Path(str(source[0])),
                                                         Path(str(target[0])))))
    renv.Depends(extra, module_files(warm_up))  # the rule itself
    if harts > 1:
        extra += renv.HartLocalCheck(idir, mlir, kernel_o)
        sources += [("hart_local", str(HART_LOCAL_SOURCE)), ("hart_plan", str(HART_PLAN_SOURCE))]
    objects, envs = [], {}
    for name, src in sources:
        oenv = _object_env(renv, benv, name, envs)
        obj = oenv.Object(f"{idir}/{name}.o", src)
        renv.Depends(obj, [runtime_libs, module_h, kernel_h, shares_h, blob, *extra])
        objects += obj
    objects += renv.TrimmedHalObjects(idir, module_h, runtime_libs, inline)
    return [*objects, kernel_o], mlir


def _plain_c_objects(benv, build: ModelBuild, idir: str, harts: int) -> list:
    model, size = build.model, build.size
    source = model.mlir.parent / plain_c.SOURCE_NAME
    if not source.is_file():
        user_error(ModelError(f"model {model.name!r} has no plain C version ({source.name}); "
                              "RUNTIME=none applies to matmul only"))
    header = benv.Command(f"{idir}/{plain_c.INPUTS_HEADER}",
                          benv.Value(plain_c.inputs_header(build.inputs)),
                          short_action(write_value))
    cenv = benv.Clone()
    cenv.Append(CCFLAGS=["-O2"], CPPPATH=[idir],
                CPPDEFINES=plain_c.defines(size, int(benv["REPEAT"]), harts))
    obj = cenv.Object(f"{idir}/plain.o", str(source))
    cenv.Depends(obj, header)
    return obj


def _lto_link_flags(benv) -> list[str]:
    """The link flags of an LTO link: GCC compiles there, so it needs what the compiles had
    (sections per function for the map, debug info, the path maps in $( $))."""
    lto_link = iree_build.lto_flags(benv["PROFILE"])[1]
    if not lto_link:
        return []
    return [*lto_link, *CODE_LAYOUT_FLAGS, "-ffunction-sections", "-fdata-sections", "-g",
            "$(", *benv["PREFIX_MAPS"], "$)"]


def _fix_lto_map(target, source, env):
    """The LTO link's map: reproducible names, each section credited to its object."""
    try:
        readelf = lto_map.readelf_runner(str(env["TOOLCHAIN"].tool("readelf")))
        lto_map.fix_map(Path(str(target[1])), readelf)
    except lto_map.LtoMapError as err:
        build_error(err)


def _print_summary(target, source, env):
    elf = Path(str(target[0]))
    stem = str(target[0])[: -len(".elf")]
    for suffix in (".elf", ".hex", ".map", ".dis"):
        print(f"  {stem}{suffix}")
    try:
        from ireerv.size.analysis import analyze  # pyelftools: only when an image is linked

        print(format_summary(analyze(elf)))
    except SizeReportError as err:
        build_error(err)
