"""HARTS=auto's cost rule (runtime/runner/hart_plan.c), compiled for the host with the main
board's figures (board.toml [sharing], through bsp_config.h): its bisection over hart 0's
share finds what a scan of every share finds, and a further hart must beat fewer by 1/64."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import host_c
import pytest

from ireerv import boards
from ireerv.paths import PROJECT_ROOT

RUNNER = PROJECT_ROOT / "runtime/runner"
STUBS = Path(__file__).parent / "data/hart_plan"
IN_PLACE, LOCAL, FETCH_BOUND = 0, 1, 2
BOARD = boards.board_with_role("main")
SHARING = BOARD.sharing
assert SHARING is not None
CAP16 = {LOCAL: SHARING.cap16["local"], FETCH_BOUND: SHARING.cap16["fetch_bound"]}
HELPER16 = SHARING.helper16
BUSY16 = {LOCAL: SHARING.busy16["local"], FETCH_BOUND: SHARING.busy16["fetch_bound"]}
COPY_IN, WRITE_BACK = SHARING.copy_in_cycles, SHARING.write_back_cycles
OVERHEAD = SHARING.overhead_cycles


def _predict(rest: int, a0: int, mode: int, b: tuple[int, int, int], n: int, k: int) -> int:
    """The rule as written before the bisection: every quantity as hart_plan.c computes it."""
    slow = BUSY16[mode][n - 1]
    per = (rest - k + n - 2) // (n - 1)
    mine = a0 * k * slow // 16
    theirs = a0 * per * slow // 16 * HELPER16 // 16
    if mode == LOCAL:
        inbound = b[0] + b[1] * per // rest
        theirs += (n - 1) * (inbound // 4) * COPY_IN
        theirs += (b[2] // 4) * WRITE_BACK * per // rest
    return max(mine, theirs) + OVERHEAD


def _scan(rest: int, a0: int, mode: int, b: tuple[int, int, int]) -> tuple[int, int]:
    if rest < 2 or mode not in CAP16:
        return 1, 0
    bar = rest * a0 - rest * a0 // 16  # to beat: hart 0 alone, then fewer harts by 1/64
    harts, first = 1, 0
    for n in range(2, min(4, rest) + 1):
        times = [_predict(rest, a0, mode, b, n, k) for k in range(1, rest)]
        least = min(times)  # of equal ones, hart 0's largest share
        if least < bar:
            bar, harts, first = least - least // 64, n, rest - 1 - times[::-1].index(least)
    return harts, first


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("plan")
    (folder / boards.CONFIG_HEADER).write_text(boards.config_header(BOARD))
    return host_c.build(folder, "plan", [STUBS / "main.c", RUNNER / "hart_plan.c"],
                        [folder, STUBS, RUNNER])


def test_the_bisection_chooses_as_the_scan_does(plan: Path) -> None:
    rng = random.Random(7)
    cases = []
    for i in range(3000):
        rest = 2 + rng.randrange(400 if i % 3 == 0 else 40)
        a0 = rng.randrange(2_000_000 if i % 2 else 3_000)
        mode = rng.choice((IN_PLACE, LOCAL, FETCH_BOUND))
        b = (0, 0, 0) if i % 5 == 0 else (rng.randrange(200_000), rng.randrange(300_000),
                                         rng.randrange(100_000))
        cases.append((rest, a0, mode, b))
    for _ in range(300):  # a0 times 16ths of a0 past 32 bits
        cases.append((2 + rng.randrange(60), rng.randrange(100_000_000, 4_000_000_000),
                      rng.choice((LOCAL, FETCH_BOUND)),
                      (rng.randrange(200_000), rng.randrange(300_000), rng.randrange(100_000))))
    for _ in range(300):  # a split's bytes times its workgroups past 32 bits
        cases.append((200 + rng.randrange(200), 1_000_000 + rng.randrange(3_000_000), LOCAL,
                      (0, rng.randrange(10_000_000, 60_000_000), rng.randrange(100_000_000))))
    text = "".join(f"{r} {a} {m} {b[0]} {b[1]} {b[2]}\n" for r, a, m, b in cases)
    out = subprocess.run([str(plan)], input=text, capture_output=True, text=True,
                         check=True).stdout.split("\n")
    got = [tuple(int(v) for v in line.split()) for line in out if line]
    want = [_scan(*case) for case in cases]
    assert got == want
    assert sum(h > 1 for h, _ in want) > 500  # many cases share, with many splits
    assert sum(h > 1 for h, _ in want[-300:]) > 30


def test_a0_from_a_shared_run_inverts_the_cap(plan: Path) -> None:
    """runner_plan_alone: harts that together ran at the cap's rate give back hart 0's a0;
    the f32 16x16 matmul's first run on 2 harts (4 + 4 workgroups) gives about the 48,000
    cycles one of its workgroups takes alone."""
    slow = 100_000 * 2 * 16 // CAP16[LOCAL]  # a workgroup on each of 2 harts at cap/2
    lines = (f"alone {LOCAL} 2 5 {5 * slow} 7 {7 * slow}\n"
             f"alone {FETCH_BOUND} 2 4 275283 4 350676\n"
             f"alone {LOCAL} 1 0 0\n")
    out = subprocess.run([str(plan)], input=lines, capture_output=True, text=True,
                         check=True).stdout.split()
    assert abs(int(out[0]) - 100_000) < 50
    assert 47_000 < int(out[1]) < 49_500
    assert out[2] == "0"  # nothing ran: unknown
