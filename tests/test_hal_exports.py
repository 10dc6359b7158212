"""The HAL module built per image keeps just the functions its program imports."""

from __future__ import annotations

import pytest
from conftest import require_input

from ireerv.image import hal_exports

HEADER = (
    'static const iree_vm_native_import_descriptor_t module_imports_[] = {'
    '{IREE_VM_NATIVE_IMPORT_REQUIRED, {"hal.fence.create", 16}},'
    '{IREE_VM_NATIVE_IMPORT_OPTIONAL, {"hal.device.queue.flush", 22}},'
    '{IREE_VM_NATIVE_IMPORT_REQUIRED, {"hal.buffer.assert", 17}},'
    '{IREE_VM_NATIVE_IMPORT_REQUIRED, {"other.thing", 11}},};\n'
)
EXPORTS = """// comment
EXPORT_FN("buffer.assert", iree_hal_module_buffer_assert, rrrIii, v)
EXPORT_FN("buffer.length", iree_hal_module_buffer_length, r, I)
EXPORT_FN_CUSTOM("command_buffer.dispatch", iree_hal_module_command_buffer_dispatch, rr, v)
EXPORT_FN("fence.create", iree_hal_module_fence_create, rI, r)
"""


def test_imports_are_the_hal_ones_with_whether_required() -> None:
    assert hal_exports.imports(HEADER) == {
        "fence.create": True, "device.queue.flush": False, "buffer.assert": True}
    # A named MLIR module (`module @m`) names the table after itself.
    named = HEADER.replace("module_imports_", "m_imports_")
    assert hal_exports.imports(named) == hal_exports.imports(HEADER)


def test_filtered_keeps_the_imported_lines_in_the_files_order() -> None:
    text = hal_exports.filtered(EXPORTS, hal_exports.imports(HEADER))
    lines = [line for line in text.splitlines() if line.startswith("EXPORT_FN")]
    assert lines == [EXPORTS.splitlines()[1], EXPORTS.splitlines()[4]]


def test_a_required_import_the_module_lacks_is_an_error() -> None:
    with pytest.raises(hal_exports.HalExportsError, match=r"hal\.buffer\.frobnicate"):
        hal_exports.filtered(EXPORTS, {"buffer.frobnicate": True})
    hal_exports.filtered(EXPORTS, {"buffer.frobnicate": False})  # optional: left unbound


def test_a_program_without_an_import_table_is_an_error() -> None:
    with pytest.raises(hal_exports.HalExportsError, match="no import table"):
        hal_exports.imports("int x;")


def test_device_keeps_only_the_operation_groups_its_program_reaches() -> None:
    defines = {"IREE_WAIT_UNTIL_FN(deadline_ns)": "true", "ONE_SHOT": "1"}
    text = hal_exports.features_header(hal_exports.imports(HEADER), defines)
    assert text.splitlines()[1:] == [
        "#define IREE_WAIT_UNTIL_FN(deadline_ns) true",
        "#define ONE_SHOT 1",
        "#define IREE_HAL_SYNC_DEVICE_FILES 0",
        "#define IREE_HAL_SYNC_DEVICE_QUEUE_TRANSFERS 0",
        "#define IREE_HAL_SYNC_DEVICE_HOST_CALLS 0",
        "#define IREE_HAL_COMMAND_BUFFER_EVENTS 0",
        "#define IREE_HAL_COMMAND_BUFFER_ADVISE_BUFFER 0",
        "#define IREE_HAL_COMMAND_BUFFER_FILL_BUFFER 0",
        "#define IREE_HAL_COMMAND_BUFFER_UPDATE_BUFFER 0",
        "#define IREE_HAL_COMMAND_BUFFER_COPY_BUFFER 0",
        "#define IREE_HAL_COMMAND_BUFFER_COLLECTIVE 0",
        "#define IREE_HAL_HEAP_ALLOCATOR_EXTERNAL_BUFFERS 0",
        "#define IREE_HAL_MODULE_AWAIT_YIELDS 0",
    ]
    reads = hal_exports.features_header({"device.queue.read": False, "device.queue.fill": True}, {})
    assert "IREE_HAL_SYNC_DEVICE_FILES 1" in reads
    assert "IREE_HAL_SYNC_DEVICE_QUEUE_TRANSFERS 1" in reads
    # A queue fill records a fill, a file read copies: their commands stay.
    assert "IREE_HAL_COMMAND_BUFFER_FILL_BUFFER 1" in reads
    assert "IREE_HAL_COMMAND_BUFFER_COPY_BUFFER 1" in reads
    assert "IREE_HAL_COMMAND_BUFFER_UPDATE_BUFFER 0" in reads



@pytest.mark.upstream
def test_every_device_group_names_functions_the_pinned_hal_module_exports(fetcher) -> None:
    """An export renamed upstream would otherwise leave a reachable group out unnoticed."""
    src = require_input(fetcher, "iree")
    exports_inl = (src / "runtime/src" / hal_exports.INCLUDE_PATH).read_text()
    names = {f for functions in hal_exports.FEATURES.values() for f in functions}
    kept = hal_exports.filtered(exports_inl, dict.fromkeys(names, True))  # raises if one is missing
    assert kept.count("EXPORT_FN") == len(names)
    # The hash tells all of the pinned module's names apart: each image gets a table.
    assert "IREE_HAL_MODULE_EXPORT_TABLE_SEED" in hal_exports.table_header(exports_inl)


def test_export_table_gives_every_name_its_own_slot() -> None:
    names = ["buffer.assert", "buffer_view.create", "command_buffer.copy_buffer",
             "command_buffer.fill_buffer", "fence.await", "fence.create"]
    seed, slots = hal_exports.export_table(names)
    assert len(slots) & (len(slots) - 1) == 0
    assert sorted(v for v in slots if v) == [1, 2, 3, 4, 5, 6]
    for ordinal, name in enumerate(names):
        assert slots[hal_exports.name_hash(seed, name) & (len(slots) - 1)] == ordinal + 1
    header = hal_exports.table_header(EXPORTS)
    assert f"iree_hal_module_export_table_[{8}]" in header
    assert "IREE_HAL_MODULE_EXPORT_TABLE_SEED" in header


def test_names_no_seed_separates_get_no_table() -> None:
    assert hal_exports.export_table(["same", "same"]) is None
    twice = EXPORTS + 'EXPORT_FN("fence.create", iree_hal_module_fence_create, rI, r)\n'
    assert "IREE_HAL_MODULE_EXPORT_TABLE_SEED" not in hal_exports.table_header(twice)


def test_name_hash_reads_length_and_six_bytes() -> None:
    """The C side (patches/iree-native-module-export-table.patch) computes the same."""
    assert hal_exports.name_hash(0, "ab") == hal_exports.name_hash(0, "xy")  # length only
    value = hal_exports.name_hash(0, "abc")
    expected = ((2166136261 ^ 3) * 16777619) & 0xFFFFFFFF
    for byte in b"abbabc":
        expected = ((expected ^ byte) * 16777619) & 0xFFFFFFFF
    assert value == expected ^ (expected >> 16)


def test_the_inline_hals_modules_are_filtered_by_their_own_prefix() -> None:
    header = HEADER.replace('{"other.thing", 11}', '{"hal_inline.buffer.storage", 25}')
    assert hal_exports.imports(header, "hal_inline.") == {"buffer.storage": True}
    inl = 'EXPORT_FN("buffer.length", f, r, I)\nEXPORT_FN("buffer.storage", g, r, r)\n'
    kept = hal_exports.filtered(inl, {"buffer.storage": True}, "hal_inline.")
    assert "buffer.storage" in kept and "buffer.length" not in kept
    with pytest.raises(hal_exports.HalExportsError, match=r"hal_inline\.buffer\.wrap.*"
                                                          r"hal_inline module"):
        hal_exports.filtered(inl, {"buffer.wrap": True}, "hal_inline.")
