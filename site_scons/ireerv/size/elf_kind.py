"""Whether a file is an image this project builds: a 32-bit RISC-V ELF, from its header."""

from __future__ import annotations

from pathlib import Path

from ireerv.size.report import SizeReportError

MAGIC = b"\x7fELF"
ELFCLASS32 = 1
ELFDATA2LSB = 1
EM_RISCV = 243
# Names of the machines an ELF given by mistake most likely is built for (e_machine).
MACHINES = {3: "x86", 8: "MIPS", 20: "PowerPC", 21: "64-bit PowerPC", 22: "s390",
            40: "ARM", 62: "x86-64", 183: "AArch64", EM_RISCV: "RISC-V"}
HEADER_BYTES = 20  # e_ident (16), e_type (2), e_machine (2)


def check_riscv32(elf: Path, what: str = "") -> None:
    """Refuse anything but a 32-bit RISC-V ELF; `what` names it in the message
    (default: its path)."""
    name = what or str(elf)
    try:
        with elf.open("rb") as f:
            header = f.read(HEADER_BYTES)
    except OSError as err:
        raise SizeReportError(f"{name}: cannot read it ({err.strerror})") from None
    if len(header) < HEADER_BYTES or not header.startswith(MAGIC):
        raise SizeReportError(f"{name} is not an ELF file; give a RISC-V image (image.elf)")
    order = "little" if header[5] == ELFDATA2LSB else "big"
    machine = int.from_bytes(header[18:20], order)
    if machine != EM_RISCV:
        kind = MACHINES.get(machine, f"machine number {machine}")
        raise SizeReportError(f"{name} is an ELF for {kind}, not a 32-bit RISC-V image")
    if header[4] != ELFCLASS32:
        raise SizeReportError(f"{name} is a 64-bit RISC-V ELF, not a 32-bit RISC-V image")
