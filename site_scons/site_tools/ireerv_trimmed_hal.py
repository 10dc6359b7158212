"""The parts of IREE's runtime each image compiles again with only what its program uses.

Adds env.TrimmedHalObjects(image_dir, module_h, runtime_libs, inline) -> the objects of
IREE's HAL module (only the functions the program imports, with a hash
table over their names) and of the local-sync device and its command buffers
(only the groups of operations those functions reach), all from the pinned
IREE tree (image/hal_exports.py).  With `inline` (runtime/inline_hal.py): the
inline HAL's two modules and the heap allocator instead.  Linked before the
runtime library, they stand in for its copies.  Needs the ireerv_setup tool.
"""

from __future__ import annotations

from pathlib import Path

from ireerv.image import hal_exports
from ireerv.runtime import inline_hal, iree_build
from ireerv.util.scons import build_error, short_action


def trimmed_hal_objects(renv, idir: str, module_h, runtime_libs, inline: bool) -> list:
    src = renv.GetFetcher().path("iree")
    folder = f"{idir}/hal_exports"
    features = renv.Command(f"{folder}/{hal_exports.FEATURES_HEADER}", module_h,
                            short_action(_write_features_header),
                            RUNTIME_DEFINES=iree_build.runtime_only_defines())
    renv.Depends(features, [hal_exports.__file__, str(iree_build.CONFIG_FILE)])
    henv = renv.Clone()
    henv.Prepend(CPPPATH=[folder])  # -I: searched before the IREE tree's -isystem
    # As the runtime builds it (runtime/config.toml [target] cflags, IREE's warnings).
    henv.Append(CCFLAGS=["-Wno-format", "-Wno-unused-function", "-Wno-unused-but-set-variable"])
    if inline:
        modules = _inline_modules(henv, src, folder, idir, module_h, runtime_libs)
        device_sources = [s for s in hal_exports.DEVICE_SOURCES if s[0] == "allocator_heap.o"]
    else:
        modules = _hal_module(henv, src, folder, idir, module_h, [features, runtime_libs])
        device_sources = list(hal_exports.DEVICE_SOURCES)
    device = []
    for obj, source, hot_name in device_sources:
        denv = henv.Clone()
        denv.Append(CCFLAGS=[*iree_build.hot_cflags(renv["PROFILE"], hot_name),
                             "-include", features[0].path])
        device += denv.Object(f"{idir}/{obj}", str(src / source))
        denv.Depends(device[-1], [features, runtime_libs])
    return [*modules, *device]


def _hal_module(henv, src, folder: str, idir: str, module_h, deps: list) -> list:
    """The HAL module with the program's imports alone and a hash table over their names."""
    inl = henv.Command(f"{folder}/{hal_exports.INCLUDE_PATH}",
                       [module_h, str(src / "runtime/src" / hal_exports.INCLUDE_PATH)],
                       short_action(_write_hal_exports))
    table = henv.Command(f"{folder}/{hal_exports.TABLE_HEADER}", inl,
                         short_action(_write_table_header))
    henv.Depends([inl, table], hal_exports.__file__)
    menv = henv.Clone()
    menv.Append(CCFLAGS=["-include", table[0].path, "-include", deps[0][0].path])
    module = menv.Object(f"{idir}/hal_module.o", str(src / hal_exports.MODULE_SOURCE))
    menv.Depends(module, [inl, table, *deps])
    return module


def _inline_modules(henv, src, folder: str, idir: str, module_h, runtime_libs) -> list:
    """The inline HAL's two modules, each with the program's imports from it alone."""
    modules = []
    for obj, source, exports_inl, prefix in inline_hal.MODULE_SOURCES:
        kept = henv.Command(f"{folder}/{exports_inl}",
                            [module_h, str(src / "runtime/src" / exports_inl)],
                            short_action(_write_module_exports), IMPORT_PREFIX=prefix)
        henv.Depends(kept, hal_exports.__file__)
        ienv = henv.Clone()
        hot_name = source.removeprefix("runtime/src/iree/")
        ienv.Append(CCFLAGS=iree_build.hot_cflags(henv["PROFILE"], hot_name))
        modules += ienv.Object(f"{idir}/{obj}", str(src / source))
        ienv.Depends(modules[-1], [kept, runtime_libs])
    return modules


def _writer(make):
    """An action writing make(the sources' texts, env) to its target; a program and module
    that do not fit together are a build error."""
    def write(target, source, env):
        try:
            text = make([Path(str(s)).read_text() for s in source], env)
        except hal_exports.HalExportsError as err:
            build_error(err)
        Path(str(target[0])).write_text(text)
    return write


_write_hal_exports = _writer(
    lambda texts, env: hal_exports.filtered(texts[1], hal_exports.imports(texts[0])))
_write_module_exports = _writer(lambda texts, env: hal_exports.filtered(
    texts[1], hal_exports.imports(texts[0], env["IMPORT_PREFIX"]), env["IMPORT_PREFIX"]))
_write_table_header = _writer(lambda texts, env: hal_exports.table_header(texts[0]))
_write_features_header = _writer(lambda texts, env: hal_exports.features_header(
    hal_exports.imports(texts[0]), env["RUNTIME_DEFINES"]))


def generate(env) -> None:
    env.Tool("ireerv_setup")  # the fetcher
    env.AddMethod(trimmed_hal_objects, "TrimmedHalObjects")


def exists(env) -> bool:
    return True
