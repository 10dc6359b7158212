"""A memory region: a named address range.  Boards add what they need to know about it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Region:
    name: str
    origin: int
    length: int

    def __post_init__(self) -> None:
        if self.length <= 0 or self.origin < 0:
            raise ValueError(f"region {self.name}: needs origin >= 0 and length > 0")

    @property
    def end(self) -> int:
        return self.origin + self.length
