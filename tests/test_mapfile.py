"""GNU ld map parsing, on a map written by the cross linker (tests/data/ld-riscv32.map, with
the toolchain's directory shortened to "toolchain/") and on small hand-written excerpts."""

from __future__ import annotations

from pathlib import Path

import pytest

from ireerv.size.mapfile import InputFile, MapFileError, load, parse
from ireerv.util.memory import Region

DATA = Path(__file__).parent / "data"
LIBGCC = "toolchain/lib/gcc/riscv64-unknown-elf/12.2.0/rv32im/ilp32/libgcc.a"


@pytest.fixture(scope="module")
def golden():
    return load(DATA / "ld-riscv32.map")


def test_memory_configuration(golden) -> None:
    assert golden.memory == [
        Region("ROM", 0x80000000, 0x40000),
        Region("RAM", 0x80100000, 0x10000),
    ]


def test_output_sections(golden) -> None:
    names = [s.name for s in golden.sections]
    assert names == [
        ".text",
        ".rodata",
        ".rela.dyn",
        ".data",
        ".bss",
        ".stack",
        "/DISCARD/",
        ".riscv.attributes",
        ".comment",
    ]
    text = golden.section(".text")
    assert (text.address, text.size, text.load_address) == (0x80000000, 0x764, None)
    data = golden.section(".data")
    assert (data.address, data.size, data.load_address) == (0x80100000, 0x18, 0x80000870)
    # A name too long for its column puts the numbers on the next line.
    attrs = golden.section(".riscv.attributes")
    assert (attrs.address, attrs.size) == (0, 0x44)
    assert golden.section("/DISCARD/").inputs == []
    assert golden.section(".nothing") is None


def test_inputs_cover_allocated_sections(golden) -> None:
    for name in (".text", ".rodata", ".data", ".bss", ".stack"):
        sec = golden.section(name)
        assert sum(i.size for i in sec.inputs) == sec.size, name
        pos = sec.address
        for i in sec.inputs:  # contiguous, in address order
            assert i.address == pos, (name, i)
            pos += i.size


def test_input_lines(golden) -> None:
    text = {i.name: i for i in golden.section(".text").inputs if i.kind == "section"}
    main = text[".text.startup.main"]  # wrapped
    assert (main.address, main.size, main.origin) == (0x8000000C, 0x50, InputFile("obj/g.o"))
    helper = text[".text.helper_sum"]
    assert helper.origin == InputFile("libhelp.a", "lib1.o")
    muldf3 = next(i for i in golden.section(".text").inputs if i.address == 0x8000009C)
    assert muldf3.origin == InputFile(LIBGCC, "muldf3.o") and muldf3.size == 0x5FC
    fills = [i for i in golden.section(".text").inputs if i.kind == "fill"]
    assert [(f.address, f.size, f.origin) for f in fills] == [(0x8000009A, 2, None)]
    (common,) = golden.section(".bss").inputs
    assert (common.name, common.kind, common.origin) == ("COMMON", "common", InputFile("obj/c.o"))
    # "(size before relaxing)" lines do not become inputs.
    comment = golden.section(".comment")
    assert [i.size for i in comment.inputs][:2] == [0x26, 0x27]


def test_cross_reference_table_is_not_parsed(golden) -> None:
    assert all(not s.name.startswith(("__", "Symbol")) for s in golden.sections)
    assert golden.section(".comment").inputs[-1].origin == InputFile(LIBGCC, "_clz.o")


def test_input_file_names() -> None:
    f = InputFile.parse(f"{LIBGCC}(muldf3.o)")
    assert (f.archive, f.member, f.object_name) == (LIBGCC, "muldf3.o", "muldf3.o")
    assert f.display() == "libgcc.a(muldf3.o)"
    obj = InputFile.parse("/home/u/proj/build/app/main.o")
    assert obj.archive is None and obj.object_name == "main.o"
    assert obj.display(Path("/home/u/proj/build")) == "app/main.o"
    assert obj.display(Path("/elsewhere")) == "main.o"
    assert InputFile.parse("build/app/main.o").display() == "build/app/main.o"


def test_64bit_addresses_and_odd_lines() -> None:
    text = """\
Memory Configuration

Name             Origin             Length             Attributes
FLASH            0x0000000020000000 0x0000000000010000 xr
*default*        0x0000000000000000 0xffffffffffffffff

Linker script and memory map

LOAD crt.o
.text           0x0000000020000000       0x24
 *(.text*)
 .text          0x0000000020000000       0x10 crt.o
                0x0000000020000000                _start
 *fill*         0x0000000020000010        0x4 00000013
 .text.a_rather_long_function_name
                0x0000000020000014        0x8 libx.a(a.o)
 .iplt          0x000000002000001c        0x8 linker stubs

.tdata
 *(.tdata*)
.data           0x0000000080000000        0x4 load address 0x0000000020000024
 .data          0x0000000080000000        0x4 crt.o
OUTPUT(app.elf elf64-littleriscv)
"""
    m = parse(text)
    assert m.memory == [Region("FLASH", 0x20000000, 0x10000)]
    assert [s.name for s in m.sections] == [".text", ".tdata", ".data"]
    inputs = m.section(".text").inputs
    assert [(i.kind, i.size, i.origin) for i in inputs] == [
        ("section", 0x10, InputFile("crt.o")),
        ("fill", 4, None),
        ("section", 8, InputFile("libx.a", "a.o")),
        ("section", 8, None),  # made by the linker
    ]
    assert m.section(".tdata").address is None
    assert m.section(".data").load_address == 0x20000024


def test_not_a_map(tmp_path: Path) -> None:
    with pytest.raises(MapFileError, match="GNU ld map"):
        parse("hello\n")
    with pytest.raises(MapFileError, match="cannot read"):
        load(tmp_path / "missing.map")
