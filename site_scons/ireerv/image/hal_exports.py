"""The HAL module's exports a compiled program imports, for a HAL module of just those.

IREE's HAL module registers every function listed in its exports.inl (about 70):
their code, their shims and a descriptor table each, though a program imports a
few of them (the 4x4 matmul: 17).  Each image compiles the module's source
(runtime/src/iree/modules/hal/module.c) again, with a copy of exports.inl that
keeps only the lines for the functions its program imports; that copy is
found first on the include path, so the IREE tree stays as fetched.  The object
defines every symbol the runtime library's copy does, so the linker never pulls
that one in.

The import table comes from the vm-c program (model_module.h).  A function the
program imports that the module does not export is a build error: the runtime
would fail at start-up anyway.  The kept lines stay in the file's order, which
the VM's lookups rely on (sorted by name).
"""

from __future__ import annotations

import re

from ireerv.util.buildlog import BuildError

# The path module.c includes the list as: a copy at this path under a folder placed first
# on the include path takes its place.
INCLUDE_PATH = "iree/modules/hal/exports.inl"
MODULE_SOURCE = "runtime/src/iree/modules/hal/module.c"  # in the IREE tree
PREFIX = "hal."  # the module's name, as the program's imports carry it

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
