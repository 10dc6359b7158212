"""The weight cache of staged constants (runtime/runner/weight_cache.c), compiled for the
host over a heap laid out as the BSP's: copies go downward from the heap's end while the
break leaves room, and room goes back latest copy first, to the heap (sbrk) or to the
staging area, never while a dispatch has the cache pinned."""

from __future__ import annotations

import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import host_c
import pytest

from ireerv.paths import PROJECT_ROOT

RUNNER = PROJECT_ROOT / "runtime/runner"
BSP_INCLUDE = PROJECT_ROOT / "bsp/include"
DRIVER = Path(__file__).parent / "data/weight_cache/main.c"
HEAP, CONSTANTS, SLOTS = 65536, 0x40000000, 256


@dataclass
class Model:
    """weight_cache.c's rule, written from its description."""

    copies: list[tuple[int, int, int, int]] = field(default_factory=list)  # from, length, below, at
    area: int = 0
    cache: int = 0
    brk: int = 0
    limit: int = HEAP
    pinned: bool = False

    def _reserve(self, area: int, cache: int) -> bool:
        if area + cache > HEAP - self.brk:
            return False
        self.area, self.cache, self.limit = area, cache, HEAP - area - cache
        return True

    def _drop(self) -> None:
        _, _, below, _ = self.copies.pop()
        self._reserve(self.area, below)

    def find(self, offset: int, length: int) -> int:
        return next((at for f, n, _, at in self.copies if (f, n) == (offset, length)), -1)

    def add(self, offset: int, length: int) -> int:
        start = CONSTANTS + offset
        words = (start + length - (start & ~3) + 3) // 4
        size = (64 + 4 * words + 63) & ~63
        below = self.cache
        if len(self.copies) == SLOTS // 2 or not self._reserve(self.area, below + size):
            return -1
        at = below + size - (start & 63)
        self.copies.append((offset, length, below, at))
        return at

    def grow_area(self, size: int) -> int:
        if size <= self.area:
            return 1
        while not self._reserve(size, self.cache):
            if not self.copies:
                return 0
            self._drop()
        return 1

    def grow(self, n: int) -> int:
        if n > self.limit - self.brk and not self.pinned:
            want = max(self.cache - (n - (self.limit - self.brk)), 0)
            while self.copies and self.cache > want:
                self._drop()
        if n > self.limit - self.brk or -n > self.brk:
            return 0
        self.brk += n
        return 1

    def apply(self, command: str) -> str:
        name, *args = command.split()
        values = [int(a) for a in args]
        if name == "add":
            answer = self.add(*values)
        elif name == "find":
            answer = self.find(*values)
        elif name == "area":
            answer = self.grow_area(*values)
        elif name == "grow":
            answer = self.grow(*values)
        else:
            self.pinned, answer = bool(values[0]), 1
        return f"{answer} {self.cache} {len(self.copies)} {self.limit} {self.brk}"


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return host_c.build(tmp_path_factory.mktemp("cache"), "cache",
                        [DRIVER, RUNNER / "weight_cache.c"], [BSP_INCLUDE, RUNNER])


def _run(driver: Path, commands: list[str]) -> list[str]:
    out = subprocess.run([str(driver)], input="".join(c + "\n" for c in commands),
                         capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def test_latest_copies_give_room_back_first(driver: Path) -> None:
    # Copies of 4,096, 8,064 and 192 bytes; the heap's break then needs the room of the
    # latest two, the staging area a little more, and the heap more while pinned.
    commands = ["add 0 4000", "add 4096 8000", "add 12288 100", "find 4096 8000",
                "grow 58000", "find 4096 8000", "find 0 4000", "area 3000",
                "pin 1", "grow 2000", "pin 0", "grow 2000", "area 9000"]
    lines = [line.split() for line in _run(driver, commands)]
    assert lines[1][0] == lines[3][0] != "-1"  # found where it was put
    assert (HEAP - int(lines[0][0])) % 64 == 0  # the same address modulo 64 as its constant
    assert lines[2][1:3] == ["12352", "3"]
    assert lines[4][:3] == ["1", "4096", "1"]  # the latest two gave their room
    assert lines[5][0] == "-1" and lines[6][0] == lines[0][0]
    assert lines[7][:4] == ["1", "4096", "1", str(HEAP - 3000 - 4096)]  # the area beside it
    assert lines[9][:3] == ["0", "4096", "1"]  # pinned: the heap gets nothing from it
    assert lines[11][:3] == ["1", "0", "0"]  # unpinned it does
    assert lines[12][0] == "0"  # the area cannot grow past the heap's break


def test_the_cache_follows_its_rule(driver: Path) -> None:
    rng = random.Random(11)
    bindings = [(rng.randrange(0, 1 << 20), rng.choice((40, 256, 1000, 3000, 9000)))
                for _ in range(60)]
    commands = []
    for _ in range(4000):
        op = rng.random()
        offset, length = rng.choice(bindings)
        if op < 0.45:
            commands.append(f"find {offset} {length}")
        elif op < 0.75:  # added only when not kept: the caller finds first
            commands.append(f"try {offset} {length}")
        elif op < 0.85:
            commands.append(f"area {rng.choice((512, 4096, 12000, 30000))}")
        elif op < 0.95:
            commands.append(f"grow {rng.choice((-3000, -800, 800, 3000, 9000))}")
        else:
            commands.append(f"pin {rng.randrange(2)}")
    model, sent, want = Model(), [], []
    for command in commands:
        if command.startswith("try"):
            _, offset, length = command.split()
            if model.find(int(offset), int(length)) >= 0:
                continue
            command = f"add {offset} {length}"
        sent.append(command)
        want.append(model.apply(command))
    got = _run(driver, sent)
    assert got == want
    assert sum(c.startswith("add") for c in sent) > 500
    assert any(line.split()[2] == "0" for line in want[100:])  # emptied at times
