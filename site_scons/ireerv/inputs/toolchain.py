"""The cross toolchain as unpacked in the cache: where its tools and C library are."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class ToolchainError(Exception):
    """The toolchain tree lacks something the build needs."""


@dataclass(frozen=True)
class Toolchain:
    root: Path
    bin_dir: Path
    prefix: str
    libc: str
    libc_prefix: Path | None = None

    def tool(self, name: str) -> Path:
        """The path of a tool such as "gcc", "objcopy" or "size"; raises if it is missing."""
        path = self.bin_dir / f"{self.prefix}{name}"
        if not path.is_file():
            raise ToolchainError(f"toolchain at {self.root} has no {path.name}")
        return path

    def libc_flags(self) -> list[str]:
        """Flags that select the C library, for compiling and linking alike."""
        if self.libc != "picolibc":
            return []
        triple = self.prefix.rstrip("-")
        prefix = self.libc_prefix or self.root
        specs = prefix / "lib" / "picolibc" / triple / "picolibc.specs"
        return [f"--specs={specs}", f"--picolibc-prefix={prefix}"]
