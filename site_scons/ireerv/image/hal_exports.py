"""The HAL module's exports a compiled program imports, for a HAL module of just those.

IREE's HAL module registers every function listed in its exports.inl (about 70):
their code, their shims and a descriptor table each, though a program imports a
few of them (the 4x4 matmul: 17).  Each image compiles the module's source
(runtime/src/iree/modules/hal/module.c) again, with a copy of exports.inl that
keeps only the lines for the functions its program imports; that copy is
found first on the include path, so the IREE tree stays as fetched.  The object
defines every symbol the runtime library's copy does, so the linker never pulls
that one in.

The local-sync device is compiled again per image too
(runtime/src/iree/hal/drivers/local_sync/sync_device.c, with
patches/iree-sync-device-without-files.patch): its table of operations links
the code of every one, though a program reaches the file transfers and the
emulated queue transfers only through a few of the HAL module's functions.
A header forced into that compile leaves out the groups its program does not
import.

The import table comes from the vm-c program (model_module.h).  A function the
program imports that the module does not export is a build error: the runtime
would fail at start-up anyway.  The kept lines stay in the file's order, which
the VM's lookups rely on (sorted by name).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ireerv.util.buildlog import BuildError

# The path module.c includes the list as: a copy at this path under a folder placed first
# on the include path takes its place.
INCLUDE_PATH = "iree/modules/hal/exports.inl"
MODULE_SOURCE = "runtime/src/iree/modules/hal/module.c"  # in the IREE tree
PREFIX = "hal."  # the module's name, as the program's imports carry it
DEVICE_SOURCE = "runtime/src/iree/hal/drivers/local_sync/sync_device.c"  # in the IREE tree
DEVICE_HOT_NAME = "hal/drivers/local_sync/sync_device.c"  # as runtime/config.toml's [hot] names it
DEVICE_HEADER = "sync_device_features.h"
# Groups of the device's operations, each reached only through these HAL module functions.
DEVICE_FEATURES = {
    "IREE_HAL_SYNC_DEVICE_FILES": ("device.queue.read", "device.queue.write",
                                   "ex.file.from_memory"),
    "IREE_HAL_SYNC_DEVICE_QUEUE_TRANSFERS": ("device.queue.copy", "device.queue.fill",
                                             "device.queue.update"),
}

_IMPORT = re.compile(r'\{IREE_VM_NATIVE_IMPORT_(REQUIRED|OPTIONAL),\s*\{"([^"]+)",\s*\d+\}\}')
# <module>_imports_[]: the module's name is the MLIR module's (`module @m`), else "module".
_TABLE = re.compile(r"\b\w+_imports_\[\]\s*=\s*\{(.*?)\};", re.S)
_EXPORT = re.compile(r'^\s*EXPORT_FN(?:_CUSTOM)?\("([^"]+)"')


class HalExportsError(BuildError):
    """The program and the HAL module do not fit together."""


def imports(module_header: str) -> dict[str, bool]:
    """The program's imports from the HAL module (name without "hal.") -> required?"""
    table = _TABLE.search(module_header)
    if not table:
        raise HalExportsError("the vm-c program has no import table (<module>_imports_)")
    return {name.removeprefix(PREFIX): kind == "REQUIRED"
            for kind, name in _IMPORT.findall(table.group(1)) if name.startswith(PREFIX)}


def filtered(exports_inl: str, wanted: dict[str, bool]) -> str:
    """exports.inl with only the EXPORT_FN lines of the `wanted` functions."""
    kept, exported = [], set()
    for line in exports_inl.splitlines():
        match = _EXPORT.match(line)
        if match:
            exported.add(match.group(1))
            if match.group(1) in wanted:
                kept.append(line)
    missing = sorted(n for n, required in wanted.items() if required and n not in exported)
    if missing:
        names = ", ".join(PREFIX + n for n in missing)
        raise HalExportsError(f"the program imports {names}, which the pinned IREE's HAL "
                              "module does not export: compiler and runtime do not match")
    header = ("// Generated from IREE's exports.inl: only the functions this image's program "
              "imports.\n// clang-format off\n")
    return header + "".join(line + "\n" for line in kept)


def device_header(wanted: Mapping[str, bool], runtime_defines: Mapping[str, str]) -> str:
    """The header forced into the image's compile of the device: the runtime's own
    defines (as its library was built with) and which groups of operations to keep."""
    lines = ["// Generated: the local-sync device as this image's program uses it.",
             *(f"#define {name} {value}" for name, value in runtime_defines.items()),
             *(f"#define {name} {int(any(f in wanted for f in functions))}"
               for name, functions in DEVICE_FEATURES.items())]
    return "\n".join(lines) + "\n"
