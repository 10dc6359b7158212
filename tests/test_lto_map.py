"""The link map of an LTO image: fixed names, each section credited to the object it came from."""

from __future__ import annotations

from pathlib import Path

from ireerv.size import lto_map, mapfile

MAP = """\
Archive member included to satisfy reference by file (symbol)

lib/librt.a(context.c.obj)    build/img/runner.o (symbol from plugin) (iree_vm_context_create)
lib/librt.a(module.c.obj)     build/img/runner.o (symbol from plugin) (iree_vm_get)
/abs/toolchain/libc.a(memset.o)
                              /tmp/ccAbC123.ltrans0.ltrans.o (memset)

Linker script and memory map

LOAD build/img/runner.o
LOAD build/img/hal_module.o
LOAD /tmp/ccAbC123.ltrans0.ltrans.o
LOAD /tmp/ccXyZ789.debug.temp.o
LOAD lib/librt.a
LOAD /abs/toolchain/libc.a

.text           0x00000000      0x200
 .text.main     0x00000000       0x40 /tmp/ccAbC123.ltrans0.ltrans.o
                0x00000000                main
 .text.iree_vm_context_create.constprop.0
                0x00000040       0x80 /tmp/ccAbC123.ltrans0.ltrans.o
 .text.fence_await.isra.0
                0x000000c0       0x60 /tmp/ccAbC123.ltrans0.ltrans.o
 .text.shared_inline.lto_priv.0
                0x00000120       0x20 /tmp/ccAbC123.ltrans0.ltrans.o
 .rodata.str1.4 0x00000140       0x10 /tmp/ccAbC123.ltrans0.ltrans.o
 .text.memset   0x00000150       0x30 /abs/toolchain/libc.a(memset.o)
"""

READELF = {
    "build/img/runner.o": (
        "  [ 5] .gnu.lto_main.12.ab12cd PROGBITS 0 0 0 00 E 0 0 1\n"
        "  [ 7] .text.main PROGBITS 0 0 0 00 AX 0 0 2\n"
    ),
    "build/img/hal_module.o": "  [ 5] .gnu.lto_fence_await.40.ff00 PROGBITS 0 0 0 00 E 0 0 1\n",
    "lib/librt.a": (
        "File: lib/librt.a(context.c.obj)\n"
        "  [ 5] .gnu.lto_iree_vm_context_create.7.0a0b PROGBITS 0 0 0 00 E 0 0 1\n"
        "  [ 6] .gnu.lto_shared_inline.8.0a0b PROGBITS 0 0 0 00 E 0 0 1\n"
        "File: lib/librt.a(module.c.obj)\n"
        "  [ 5] .gnu.lto_fence_await.9.0c0d PROGBITS 0 0 0 00 E 0 0 1\n"
        "  [ 6] .sdata.shared_inline PROGBITS 0 0 0 00 WA 0 0 4\n"
        "File: lib/librt.a(unused.c.obj)\n"
        "  [ 5] .gnu.lto_main.3.0e0f PROGBITS 0 0 0 00 E 0 0 1\n"
    ),
}


def test_inputs_are_the_projects_objects_and_the_archive_members_used() -> None:
    assert lto_map.link_inputs(MAP) == {
        "build/img/runner.o": None, "build/img/hal_module.o": None,
        "lib/librt.a": {"context.c.obj", "module.c.obj"}}


def test_each_partition_section_goes_to_the_object_that_held_its_symbol() -> None:
    origins = lto_map.symbol_origins(lto_map.link_inputs(MAP), READELF.__getitem__)
    assert origins["main"] == "build/img/runner.o"  # the unused member's copy does not count
    assert origins["iree_vm_context_create"] == "lib/librt.a(context.c.obj)"
    assert origins["fence_await"] == "build/img/hal_module.o"  # stands in for the archive's
    assert "shared_inline" not in origins  # two origins: stays with the partition
    text = lto_map.rewrite(MAP, origins)
    assert "ccAbC123" not in text and "ccXyZ789" not in text
    assert list(lto_map.unresolved(text)) == [".text.shared_inline.lto_priv.0", ".rodata.str1.4"]
    parsed = {i.name: i.origin.display() for i in mapfile.parse(text).sections[0].inputs}
    assert parsed == {
        ".text.main": "build/img/runner.o",
        ".text.iree_vm_context_create.constprop.0": "librt.a(context.c.obj)",
        ".text.fence_await.isra.0": "build/img/hal_module.o",
        ".text.shared_inline.lto_priv.0": lto_map.PARTITION,
        ".rodata.str1.4": lto_map.PARTITION,
        ".text.memset": "libc.a(memset.o)",
    }
    assert "LOAD lto-partition.o" in text and "LOAD lto-early-debug.o" in text


def test_a_map_without_lto_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "image.map"
    path.write_text(MAP.replace("/tmp/ccAbC123.ltrans0.ltrans.o", "build/img/runner.o"))
    before = path.read_text()
    assert not lto_map.fix_map(path, READELF.__getitem__)
    assert path.read_text() == before


def test_symbol_names_lose_gcc_clone_suffixes() -> None:
    assert lto_map.symbol_name(".text.f.constprop.0.isra.0") == "f"
    assert lto_map.symbol_name(".text.unlikely.g") == "g"
    assert lto_map.symbol_name(".sbss.counter") == "counter"
    assert lto_map.symbol_name(".comment") is None
