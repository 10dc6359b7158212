"""A Verilator testbench recipe: which sources make the model and how; data from board.toml."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ireerv.simulators.base import SettingsError

KEYS = ("input", "top", "main", "sources", "manifest", "rtl_dir", "verilator_flags", "cflags")


@dataclass(frozen=True)
class Testbench:
    input: str  # the toolchain.lock input holding the testbench (with its RTL submodule)
    top: str  # the top module; the simulator executable is V<top>
    main: str  # the C++ main of the testbench
    sources: tuple[str, ...]  # Verilog sources, in the order the testbench's Makefile uses
    manifest: str  # the core's file list (-f)
    rtl_dir: str  # DESIGN_RTL_DIR, which the manifest refers to
    verilator_flags: tuple[str, ...]  # besides --cc --sv --exe --top-module <top>
    cflags: tuple[str, ...]  # for compiling the generated C++

    @property
    def executable(self) -> str:
        return f"V{self.top}"

    def flags(self) -> list[str]:
        return ["--cc", "--sv", "--exe", "--top-module", self.top, *self.verilator_flags]

    def recipe(self, cflags: tuple[str, ...] | list[str] | None = None) -> dict[str, object]:
        """Everything about the model build besides its inputs; part of its cache key."""
        return {
            "sources": list(self.sources),
            "main": self.main,
            "manifest": self.manifest,
            "rtl_dir": self.rtl_dir,
            "flags": self.flags(),
            "cflags": list(self.cflags if cflags is None else cflags),
        }


def parse(table: Any, where: str) -> Testbench:
    where = f"{where[:-1]}.testbench]"
    if not isinstance(table, dict):
        raise SettingsError(f"{where}: missing (the recipe of the Verilator model)")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise SettingsError(f"{where}: unknown key(s) {', '.join(unknown)}")
    values: dict[str, Any] = {}
    for key in KEYS:
        value = table.get(key)
        if key in ("sources", "verilator_flags", "cflags"):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise SettingsError(f"{where}: {key} must be a list of strings")
            value = tuple(value)
        elif not isinstance(value, str) or not value:
            raise SettingsError(f"{where}: {key} must be a non-empty string")
        values[key] = value
    return Testbench(**values)
