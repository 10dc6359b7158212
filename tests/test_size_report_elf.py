"""size-report ELF=: only a 32-bit RISC-V ELF is reported on, and the reports go under
build/, never beside the file given (which may be anywhere: /bin, a read-only share)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from scons_helpers import scons

from ireerv.size.elf_kind import check_riscv32
from ireerv.size.report import SizeReportError

NEEDS_INPUTS = ("toolchain",)  # for the `tree` fixture (conftest.py)
REPORTS = ("image.elf.size.json", "image.elf.size.svg", "image.elf.size.txt")


def refused(tree: Path, *args: str) -> str:
    proc = scons(tree, *args, check=False)
    printed = proc.stdout + proc.stderr
    assert proc.returncode == 2, printed
    assert "Traceback" not in printed
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, printed
    return lines[0]


@pytest.fixture(scope="module")
def riscv_image(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A qemu-virt image (the plain C matmul) and its map, copied out of the tree."""
    scons(tree, "image", "MODEL=matmul", "BOARD=qemu-virt", "RUNTIME=none", "-j1")
    built = tree / "build" / "qemu-virt" / "matmul-4-c"
    folder = tmp_path_factory.mktemp("elsewhere")
    for name in ("image.elf", "image.map"):
        shutil.copy(built / name, folder / name)
    return folder / "image.elf"


def test_a_host_program_is_refused_and_nothing_is_written_beside_it(tree: Path,
                                                                     tmp_path: Path) -> None:
    program = tmp_path / "ls"
    shutil.copy("/bin/ls", program)
    line = refused(tree, "size-report", f"ELF={program}")
    # The machine named is this host's (x86-64 on most).
    assert line.startswith(f"scons: *** ELF={program} is an ELF for ")
    assert line.endswith(", not a 32-bit RISC-V image  Stop.")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ls"]


def test_a_file_that_is_no_elf_is_refused(tree: Path, tmp_path: Path) -> None:
    text = tmp_path / "notes.elf"
    text.write_text("not an image\n")
    assert refused(tree, "size-report", f"ELF={text}") == (
        f"scons: *** ELF={text} is not an ELF file; give a RISC-V image (image.elf)  Stop.")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.elf"]


@pytest.mark.upstream
def test_a_riscv_image_is_reported_under_build(tree: Path, riscv_image: Path) -> None:
    out = scons(tree, "size-report", f"ELF={riscv_image}").stdout
    assert "size-report: build/size-report/image.elf.size.json" in out
    assert sorted(p.name for p in riscv_image.parent.iterdir()) == ["image.elf", "image.map"]
    report = json.loads((tree / "build" / "size-report" / REPORTS[0]).read_text())
    assert report["elf"] == "image.elf" and report["map"] == "image.map"
    assert all((tree / "build" / "size-report" / name).is_file() for name in REPORTS)


def header(ident_class: int, machine: int) -> bytes:
    ident = b"\x7fELF" + bytes([ident_class, 1, 1]) + bytes(9)
    return ident + (2).to_bytes(2, "little") + machine.to_bytes(2, "little") + bytes(40)


@pytest.mark.parametrize(("data", "message"), [
    (header(2, 62), "is an ELF for x86-64, not a 32-bit RISC-V image"),
    (header(1, 40), "is an ELF for ARM, not a 32-bit RISC-V image"),
    (header(1, 9999), "is an ELF for machine number 9999, not a 32-bit RISC-V image"),
    (header(2, 243), "is a 64-bit RISC-V ELF, not a 32-bit RISC-V image"),
    (b"\x7fEL", "is not an ELF file; give a RISC-V image (image.elf)"),
    (b"#!/bin/sh\necho hello, this is long enough\n", "is not an ELF file"),
])
def test_the_header_says_what_a_file_is(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "file"
    path.write_bytes(data)
    with pytest.raises(SizeReportError) as err:
        check_riscv32(path, "ELF=x")
    assert str(err.value).startswith(f"ELF=x {message}")
    path.write_bytes(header(1, 243))
    check_riscv32(path)
