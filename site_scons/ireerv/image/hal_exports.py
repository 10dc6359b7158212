"""The HAL module's exports a compiled program imports, for a HAL module of just those.

IREE's HAL module registers every function listed in its exports.inl (about 70):
their code, their shims and a descriptor table each, though a program imports a
few of them (the 4x4 matmul: 17).  Each image compiles the module's source
(runtime/src/iree/modules/hal/module.c) again, with a copy of exports.inl that
keeps only the lines for the functions its program imports; that copy is
found first on the include path, so the IREE tree stays as fetched.  The object
defines every symbol the runtime library's copy does, so the linker never pulls
that one in.

The local-sync device and its two command buffers are compiled again per image
too (DEVICE_SOURCES, with patches/iree-sync-device-without-unreached-operations.patch and
patches/iree-command-buffers-without-unused-commands.patch): their tables of
operations link the code of every one, though a program reaches the file
transfers, the emulated queue transfers and most kinds of command only through
a few of the HAL module's functions.  A header forced into those compiles
leaves out the groups its program does not import.

Imports are resolved by name at start-up.  With the export list known here, the
module is also given a hash table over it
(patches/iree-native-module-export-table.patch): one comparison per import
instead of a binary search.

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
# The parts of the local-sync device (with its command buffers and heap allocator) compiled
# again per image, as (object, source in the IREE tree, name in config.toml's [hot] list).
DEVICE_SOURCES = (
    ("sync_device.o", "runtime/src/iree/hal/drivers/local_sync/sync_device.c",
     "hal/drivers/local_sync/sync_device.c"),
    ("inline_command_buffer.o", "runtime/src/iree/hal/local/inline_command_buffer.c",
     "hal/local/inline_command_buffer.c"),
    ("deferred_command_buffer.o", "runtime/src/iree/hal/utils/deferred_command_buffer.c",
     "hal/utils/deferred_command_buffer.c"),
    ("allocator_heap.o", "runtime/src/iree/hal/allocator_heap.c", "hal/allocator_heap.c"),
)
FEATURES_HEADER = "hal_features.h"  # forced into their compiles and the module's
_FILES = ("device.queue.read", "device.queue.write", "ex.file.from_memory")
# Groups of operations and kinds of command, each reached only through these HAL module
# functions (the files' transfers copy, the emulated queue transfers record commands).
FEATURES = {
    "IREE_HAL_SYNC_DEVICE_FILES": _FILES,
    "IREE_HAL_SYNC_DEVICE_QUEUE_TRANSFERS": ("device.queue.copy", "device.queue.fill",
                                             "device.queue.update"),
    "IREE_HAL_SYNC_DEVICE_HOST_CALLS": (),  # the module makes none
    "IREE_HAL_COMMAND_BUFFER_EVENTS": (),  # the module records no events
    "IREE_HAL_COMMAND_BUFFER_ADVISE_BUFFER": ("command_buffer.advise_buffer",),
    "IREE_HAL_COMMAND_BUFFER_FILL_BUFFER": ("command_buffer.fill_buffer", "device.queue.fill"),
    "IREE_HAL_COMMAND_BUFFER_UPDATE_BUFFER": ("command_buffer.update_buffer",
                                              "device.queue.update"),
    "IREE_HAL_COMMAND_BUFFER_COPY_BUFFER": ("command_buffer.copy_buffer", "device.queue.copy",
                                            *_FILES),
    "IREE_HAL_COMMAND_BUFFER_COLLECTIVE": ("command_buffer.collective",),
    "IREE_HAL_HEAP_ALLOCATOR_EXTERNAL_BUFFERS": ("allocator.import",),
    # The module is always synchronous: fence.await never yields (its own compile).
    "IREE_HAL_MODULE_AWAIT_YIELDS": (),
}
TABLE_HEADER = "hal_export_table.h"  # forced into the module's compile
_FNV_BASIS, _FNV_PRIME = 2166136261, 16777619  # FNV-1a's, as the runtime's hash uses them

_IMPORT = re.compile(r'\{IREE_VM_NATIVE_IMPORT_(REQUIRED|OPTIONAL),\s*\{"([^"]+)",\s*\d+\}\}')
# <module>_imports_[]: the module's name is the MLIR module's (`module @m`), else "module".
_TABLE = re.compile(r"\b\w+_imports_\[\]\s*=\s*\{(.*?)\};", re.S)
_EXPORT = re.compile(r'^\s*EXPORT_FN(?:_CUSTOM)?\("([^"]+)"')


class HalExportsError(BuildError):
    """The program and the HAL module do not fit together."""


def imports(module_header: str, prefix: str = PREFIX) -> dict[str, bool]:
    """The program's imports from the module whose names start with `prefix` (the HAL
    module's by default), by name without it -> required?"""
    table = _TABLE.search(module_header)
    if not table:
        raise HalExportsError("the vm-c program has no import table (<module>_imports_)")
    return {name.removeprefix(prefix): kind == "REQUIRED"
            for kind, name in _IMPORT.findall(table.group(1)) if name.startswith(prefix)}


def filtered(exports_inl: str, wanted: dict[str, bool], prefix: str = PREFIX) -> str:
    """exports.inl with only the EXPORT_FN lines of the `wanted` functions (of the module
    whose imports start with `prefix`)."""
    kept, exported = [], set()
    for line in exports_inl.splitlines():
        match = _EXPORT.match(line)
        if match:
            exported.add(match.group(1))
            if match.group(1) in wanted:
                kept.append(line)
    missing = sorted(n for n, required in wanted.items() if required and n not in exported)
    if missing:
        names = ", ".join(prefix + n for n in missing)
        raise HalExportsError(f"the program imports {names}, which the pinned IREE's "
                              f"{prefix.rstrip('.')} module does not export: compiler and "
                              "runtime do not match")
    header = ("// Generated from IREE's exports.inl: only the functions this image's program "
              "imports.\n// clang-format off\n")
    return header + "".join(line + "\n" for line in kept)


def features_header(wanted: Mapping[str, bool], runtime_defines: Mapping[str, str]) -> str:
    """The header forced into the image's compiles of the device's parts: the runtime's own
    defines (as its library was built with) and which groups of operations to keep."""
    lines = ["// Generated: the local-sync device as this image's program uses it.",
             *(f"#define {name} {value}" for name, value in runtime_defines.items()),
             *(f"#define {name} {int(any(f in wanted for f in functions))}"
               for name, functions in FEATURES.items())]
    return "\n".join(lines) + "\n"


def name_hash(seed: int, name: str) -> int:
    """The hash iree_vm_native_module_name_hash computes: the name's length and six of its
    bytes (the first, at 1/2 and 5/8 of its length, the last three), FNV-1a style."""
    data = name.encode()
    size = len(data)
    value = (((_FNV_BASIS ^ seed) ^ size) * _FNV_PRIME) & 0xFFFFFFFF
    if size >= 3:
        for byte in (data[0], data[size // 2], data[size * 5 // 8], *data[-3:]):
            value = ((value ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return value ^ (value >> 16)


def export_table(names: list[str]) -> tuple[int, list[int]] | None:
    """(seed, slots) of a table in which each name has a slot of its own: slot
    name_hash(seed, name) & (len(slots) - 1) holds its ordinal + 1, the rest 0.  None
    when no seed separates the names (the module then searches them, as upstream)."""
    if len(names) > 254:
        return None  # ordinals are bytes
    smallest = 1
    while smallest < 2 * max(len(names), 1):
        smallest *= 2
    for size in (smallest, 2 * smallest, 4 * smallest):  # the smallest some seed separates
        for seed in range(1 << 12):
            slots = [0] * size
            for ordinal, name in enumerate(names):
                slot = name_hash(seed, name) & (size - 1)
                if slots[slot]:
                    break
                slots[slot] = ordinal + 1
            else:
                return seed, slots
    return None


def table_header(exports_inl: str) -> str:
    """The HAL module's export table for the functions of a (filtered) exports.inl; no
    table when none separates their names."""
    names = [m.group(1) for line in exports_inl.splitlines() if (m := _EXPORT.match(line))]
    text = "// Generated: the HAL module's exports by name hash (one comparison per lookup).\n"
    table = export_table(names)
    if table is None:
        return text + "// (none: no seed separates these names; the module searches them)\n"
    seed, slots = table
    rows = [", ".join(str(v) for v in slots[i:i + 16]) for i in range(0, len(slots), 16)]
    return (text + "#include <stdint.h>\n"
            f"#define IREE_HAL_MODULE_EXPORT_TABLE_SEED {seed}u\n"
            f"static const uint8_t iree_hal_module_export_table_[{len(slots)}] = {{\n"
            + "".join(f"    {row},\n" for row in rows) + "};\n")
