"""One model's image for one board: BSP, IREE runtime, compiled model, runner, link.

Adds env.ModelImage(board, model, size, runtime) -> Image and
env.IreeRuntime(board).  Needs the ireerv_setup tool.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import SCons.Action
import SCons.Errors

from ireerv.boards import CONFIG_HEADER, Board, config_header, linker_script
from ireerv.image import iree_build, iree_compile, plain_c, runner_data
from ireerv.image.models import Model, ModelError
from ireerv.inputs import identity
from ireerv.inputs.cache import ensure_dir
from ireerv.inputs.fetch import FetchError
from ireerv.inputs.toolchain import ToolchainError
from ireerv.paths import BUILD

RUNNER_SOURCE = iree_build.RUNNER_DIR / "runner.c"


@dataclass
class Image:
    board: Board
    model: Model
    size: int | None
    runtime: str
    dir: str
    elf: object
    map: object
    hex: object
    dis: object

    @property
    def outputs(self) -> list:
        return [self.elf, self.hex, self.map, self.dis]


def _fail(err: Exception) -> None:
    raise SCons.Errors.UserError(str(err)) from None


def _write_value(target, source, env):
    Path(str(target[0])).write_text(source[0].read())


def _gen(function, label: str = "GEN"):
    """A Python action with a short message.  (A cmdstr's $TARGET expands to
    nothing when the sources include a Value node, so use a strfunction.)"""
    return SCons.Action.Action(function, strfunction=lambda target, source, env:
                               f"{label:<8}{target[0]}")


def _board_env(env, board: Board):
    """A cross environment for the board, with its BSP objects; one per board."""
    envs = env.setdefault("_BOARD_ENVS", {})
    if board.name in envs:
        return envs[board.name]
    try:
        toolchain = env.GetFetcher().toolchain()
    except (FetchError, ToolchainError) as err:
        _fail(err)
    benv = env.Clone(TOOLCHAIN=toolchain, BOARD_SPEC=board)
    benv.Tool("cross_gcc")
    bdir = f"{BUILD}/{board.name}"
    write = _gen(_write_value)
    header = benv.Command(f"{bdir}/include/{CONFIG_HEADER}", benv.Value(config_header(board)),
                          write)
    script = benv.Command(f"{bdir}/link.ld", benv.Value(linker_script(board)), write)
    benv.Append(CPPPATH=[f"{bdir}/include", *map(str, board.include_dirs())])
    benv.Append(LINKFLAGS=["-T", script[0].abspath])
    objects = []
    for src in board.bsp_sources():
        obj = benv.Object(f"{bdir}/bsp/{src.stem}.o", str(src))
        benv.Depends(obj, header)
        objects += obj
    benv["_BSP_OBJECTS"] = objects
    benv["_LINKER_SCRIPT"] = script
    envs[board.name] = benv
    return benv


# -- IREE runtime --------------------------------------------------------------------------


def _runtime_dir(benv) -> str:
    board = benv["BOARD_SPEC"]
    return f"{BUILD}/runtime/{benv['PROFILE']}-{board.march}-{board.mabi}"


def _host_tools(env) -> Path:
    """IREE's host tools, built once per IREE pin into the cache."""
    fetcher = env.GetFetcher()
    src = fetcher.path("iree")
    key = env["LOCK"].input("iree").key()
    final = Path(env["CACHE_DIR"]) / "tools" / f"iree-host-tools-{key}"

    log = Path(env["CACHE_DIR"]) / "logs" / f"{final.name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)

    def build(tmp: Path) -> None:
        print("building IREE host tools (iree-flatcc-cli, iree-c-embed-data)...")
        iree_build.build_host_tools(src, tmp, log_path=log)

    ensure_dir(final, build)
    return final / "tools"


def _build_runtime(target, source, env):
    try:
        src = env.GetFetcher().path("iree")
        host_bin = _host_tools(env)
        build_dir = Path(env.Dir(_runtime_dir(env)).abspath)
        iree_build.build_runtime(
            src, build_dir, env["TOOLCHAIN"], host_bin,
            profile=env["PROFILE"], cflags=env["BOARD_SPEC"].compile_flags(),
            log_path=build_dir.with_suffix(".log"),
        )
    except (iree_build.IreeBuildError, FetchError) as err:
        # The message names the failing command, its log and the log's tail.
        raise SCons.Errors.BuildError(errstr=str(err)) from None


def iree_runtime(env, board: Board):
    """The runtime libraries for this board's flags and PROFILE, in link order."""
    benv = _board_env(env, board)
    if "_RUNTIME" in benv:
        return benv["_RUNTIME"]
    config = iree_build.load_config()
    libs = config["target"]["libraries"]
    rdir = _runtime_dir(benv)
    # What the runtime depends on, beyond its configuration files.
    key = "\n".join([
        env["LOCK"].input("iree").key(),
        env["LOCK"].toolchain_key(),
        env["PROFILE"],
        *board.compile_flags(),
    ])
    nodes = benv.Command(
        [f"{rdir}/{lib}" for lib in libs],
        [benv.Value(key), str(iree_build.CONFIG_FILE), str(iree_build.TOOLCHAIN_TEMPLATE)],
        _gen(_build_runtime, "RUNTIME"),
    )
    benv["_RUNTIME"] = nodes
    return nodes


def _runtime_compile_env(benv):
    """The board environment plus what code including IREE headers needs."""
    src = benv.GetFetcher().path("iree")
    rdir = benv.Dir(_runtime_dir(benv)).abspath
    renv = benv.Clone()
    config = iree_build.load_config()
    for inc in config["target"]["include_dirs"]:
        # -isystem: IREE's own headers are not ours to warn about.
        renv.Append(CCFLAGS=["-isystem", inc.format(src=src, build=rdir)])
    renv.Append(CPPDEFINES=iree_build.app_defines(benv["PROFILE"], config))
    renv.Append(CCFLAGS=["-Os" if benv["PROFILE"] == "release" else "-Og"])
    return renv


# -- Model compilation ---------------------------------------------------------------------

_checked_compilers: set[str] = set()


def _iree_compile_path(env) -> Path:
    wheel = env.GetFetcher().path("iree-compiler")
    return wheel / "iree" / "compiler" / "_mlir_libs" / "iree-compile"


def _iree_compile_emitter(target, source, env):
    module_h = target[0]
    names = [p.name for p in iree_compile.outputs(Path(module_h.name))]
    return [module_h.dir.File(name) for name in names], source


def _iree_compile(target, source, env):
    try:
        compiler = _iree_compile_path(env)
        if str(compiler) not in _checked_compilers:
            iree_build.check_compiler_commit(compiler, env["LOCK"].input("iree").commit)
            _checked_compilers.add(str(compiler))
        iree_compile.compile_model(compiler, env["IREE_FLAGS"], Path(str(source[0])),
                                   Path(str(target[0])))
        iree_compile.add_empty_kernel(Path(str(target[0])), env.subst("$CC $CCFLAGS").split())
    except (iree_build.IreeBuildError, iree_compile.CompileError, FetchError) as err:
        raise SCons.Errors.BuildError(errstr=str(err)) from None


def _model_data(target, source, env):
    model: Model = env["_MODEL"]
    kernel_h = Path(str(source[0])).read_text()
    try:
        text = runner_data.model_source(
            env["_MODULE_NAME"], model.function, model.generate_inputs(env["_SIZE"]),
            library_queries=runner_data.library_queries(kernel_h), repeat=int(env["REPEAT"]),
        )
    except (runner_data.RunnerDataError, ModelError) as err:
        raise SCons.Errors.BuildError(errstr=str(err)) from None
    Path(str(target[0])).write_text(text)


def _inputs_digest(model: Model, size: int | None) -> str:
    digest = hashlib.sha256()
    for array in model.generate_inputs(size):
        digest.update(f"{array.dtype}{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def _image_dir(board: Board, model: Model, size: int | None, runtime: str) -> str:
    variant = model.variant(size) if model.is_dynamic else model.name
    if runtime == "none":
        variant += "-c"
    return f"{BUILD}/{board.name}/{variant}"


def model_image(env, board: Board, model: Model, size: int | None, runtime: str) -> Image:
    benv = _board_env(env, board)
    try:
        size = model.resolve_size(size)
        model.generate_inputs(size)  # a generator that cannot make them fails here, once
    except ModelError as err:
        _fail(err)
    idir = _image_dir(board, model, size, runtime)
    if runtime == "none":
        objects = _plain_c_objects(benv, model, size, idir)
    else:
        objects = _iree_objects(env, benv, board, model, size, idir)
    elf_nodes = benv.Program(f"{idir}/image.elf", [*objects, *benv["_BSP_OBJECTS"]],
                             LIBS=benv.get("_IMAGE_LIBS", []))
    benv.Depends(elf_nodes, benv["_LINKER_SCRIPT"])
    elf, map_file = elf_nodes[0], elf_nodes[1]
    hex_file = benv.Hex(f"{idir}/image.hex", elf)
    dis = benv.Disassembly(f"{idir}/image.dis", elf)
    benv.AddPostAction(elf, benv.Action(_print_summary, None))
    return Image(board, model, size, runtime, idir, elf, map_file, hex_file[0], dis[0])


def _iree_objects(env, benv, board: Board, model: Model, size: int | None, idir: str) -> list:
    runtime_libs = iree_runtime(env, board)
    try:
        renv = _runtime_compile_env(benv)
    except FetchError as err:
        _fail(err)
    renv["IREE_FLAGS"] = iree_compile.flags(board)
    # The pinned compiler is not a source SCons sees: its identity is (a pin change recompiles).
    renv["IREE_COMPILER_ID"] = identity.compiler(env["LOCK"])
    renv.Append(BUILDERS={"IreeCompile": renv.Builder(
        action=SCons.Action.Action(
            _iree_compile, strfunction=lambda target, source, env: f"IREE    {source[0]}",
            varlist=["IREE_FLAGS", "IREE_COMPILER_ID"]),
        emitter=_iree_compile_emitter,
    )})
    module = iree_compile.module_name(model.mlir.read_text())
    module_h, kernel_o, kernel_h = renv.IreeCompile(f"{idir}/model_module.h", str(model.mlir))
    module_c = renv.Command(
        f"{idir}/model_module.c", renv.Value(runner_data.module_impl_source("model_module.h")),
        _gen(_write_value),
    )
    data_c = renv.Command(
        f"{idir}/model_data.c",
        [kernel_h, renv.Value(f"{module} {model.function} {env['REPEAT']} "
                              f"{_inputs_digest(model, size)}")],
        _gen(_model_data),
        _MODEL=model, _SIZE=size, _MODULE_NAME=module,
    )
    renv.Append(CPPPATH=[idir, str(iree_build.RUNNER_DIR)])
    objects = []
    for name, src in (("model_module", module_c), ("model_data", data_c),
                      ("runner", str(RUNNER_SOURCE))):
        obj = renv.Object(f"{idir}/{name}.o", src)
        renv.Depends(obj, [runtime_libs, module_h, kernel_h])
        objects += obj
    objects.append(kernel_o)
    return [*objects, *runtime_libs]


def _plain_c_objects(benv, model: Model, size: int | None, idir: str) -> list:
    source = model.mlir.parent / plain_c.SOURCE_NAME
    if not source.is_file():
        _fail(ModelError(f"model {model.name!r} has no plain C version ({source.name}); "
                         "RUNTIME=none applies to matmul only"))
    header = benv.Command(f"{idir}/{plain_c.INPUTS_HEADER}",
                          benv.Value(plain_c.inputs_header(model, size)), _gen(_write_value))
    cenv = benv.Clone()
    cenv.Append(CCFLAGS=["-O2"], CPPPATH=[idir],
                CPPDEFINES=plain_c.defines(size, int(benv["REPEAT"])))
    obj = cenv.Object(f"{idir}/plain.o", str(source))
    cenv.Depends(obj, header)
    return obj


def _print_summary(target, source, env):
    import subprocess

    elf = str(target[0])
    out = subprocess.run([env["SIZE"], elf], capture_output=True, text=True).stdout.splitlines()
    if len(out) >= 2:
        text, data, bss = (int(x) for x in out[1].split()[:3])
        stem = elf[: -len(".elf")]
        for suffix in (".elf", ".hex", ".map", ".dis"):
            print(f"  {stem}{suffix}")
        print(f"image: {text + data:,} bytes code + initialised data "
              f"(text {text:,}, data {data:,}), bss {bss:,}")


def generate(env) -> None:
    env.AddMethod(model_image, "ModelImage")
    env.AddMethod(iree_runtime, "IreeRuntime")
    env.AddMethod(_iree_compile_path, "IreeCompilePath")


def exists(env) -> bool:
    return True
