"""Soft-float choices: the host reference, the bench table, and the routines on qemu-virt.

The unit tests need nothing.  The check runs the real device program
(softfloat/check.c) on QEMU for every SOFTFLOAT choice: millions of operand
sets per operation plus edge cases, compared with IEEE 754 results on the
host.  It needs the cross toolchain, QEMU and the pinned RVfplib source.
"""

from __future__ import annotations

import json
import struct
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from conftest import needs_qemu
from scons_helpers import scons

from ireerv.softfloat import bench, choices, reference


def _round_f32(q: Fraction) -> int:
    """Exact round-to-nearest-even of a rational to float32 bits (finite, non-zero)."""
    sign, q = (0x80000000 if q < 0 else 0), abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    e = e - 1 if Fraction(2) ** e > q else e
    e = max(e, -126)  # subnormals share the smallest exponent
    ulp = Fraction(2) ** (e - 23)
    m, rest = divmod(q / ulp, 1)
    m = int(m) + (rest > Fraction(1, 2) or (rest == Fraction(1, 2) and int(m) % 2 == 1))
    value = m * ulp
    if value >= Fraction(2) ** 128:
        return sign | 0x7F800000
    return sign | int(np.float32(float(value)).view(np.uint32))


def test_host_fmaf_is_correctly_rounded() -> None:
    a, b, c = reference.operands("fma", seed=7, count=3000)
    got = reference.RESULTS["fma"](a, b, c)
    checked = 0
    for x, y, z, r in zip(a, b, c, got, strict=True):
        fx, fy, fz = (struct.unpack("<f", struct.pack("<I", int(v)))[0] for v in (x, y, z))
        if not all(np.isfinite((fx, fy, fz))):
            continue
        exact = Fraction(fx) * Fraction(fy) + Fraction(fz)
        if exact == 0 or abs(exact) >= Fraction(2) ** 128:
            continue
        assert int(r) == _round_f32(exact), (hex(x), hex(y), hex(z))
        checked += 1
    assert checked > 2500


def test_nan_results_are_canonical_and_zero_signs_kept() -> None:
    e = np.array([0x7FC12345, 0x3F800000, 0x80000000, 0x00000000], np.uint32)
    add = reference.RESULTS["add"]
    assert add(e[:1], e[1:2], e[:1])[0] == reference.CANONICAL_NAN
    assert add(e[2:3], e[2:3], e[:1])[0] == 0x80000000  # -0 + -0 = -0
    assert add(e[2:3], e[3:4], e[:1])[0] == 0x00000000  # -0 + +0 = +0


def test_operands_cover_the_slow_paths() -> None:
    a, b, _ = reference.operands("add", seed=1, count=1 << 16)
    exponents = np.concatenate([a, b]) >> np.uint32(23) & np.uint32(0xFF)
    assert (exponents == 0).sum() > 100 and (exponents == 0xFF).sum() > 100
    assert len(np.unique(a)) > 60000


def _device_output(seed: int, count: int) -> str:
    sums = reference.expected(seed, count)
    return "".join(f"SF {op} {where} 0x{value:08x}\n" for (op, where), value in sums.items())


def test_compare_names_the_differing_block() -> None:
    count = 3 * reference.BLOCK
    good = _device_output(1, count)
    assert reference.compare(good, 1, count).passed
    bad = good.replace(f"SF mul 1 0x{reference.expected(1, count)[('mul', '1')]:08x}",
                       "SF mul 1 0x00000000")
    result = reference.compare(bad, 1, count)
    assert result.mismatches == ["mul operand sets 65536..131071: differs"]
    missing = "\n".join(ln for ln in good.splitlines() if not ln.startswith("SF fma edge"))
    assert reference.compare(missing, 1, count).mismatches == ["fma edge cases: missing"]
    with pytest.raises(reference.SoftFloatCheckError, match="no SF lines"):
        reference.compare("STATUS OK\n", 1, count)


def test_choices() -> None:
    assert choices.DEFAULT in choices.CHOICES
    with pytest.raises(choices.SoftFloatError, match="not one of: libgcc, rvfplib"):
        choices.choice("fast")


def test_rvfplib_tree_without_a_routine_is_refused(tmp_path: Path) -> None:
    with pytest.raises(choices.SoftFloatError, match=r"lacks src/asm/ieee754/__addsf3\.S"):
        choices.rvfplib_sources(tmp_path)


BENCH_OUTPUT = """SFB normal add 6000 600 64
SFB normal mul 7000 600 64
SFB special add 5000 600 64
SFH 1 200000 1000
SFH 4 400000 1000
STATUS OK
"""


def test_bench_table() -> None:
    per_call, harts = bench.parse(BENCH_OUTPUT)
    assert per_call["normal"] == {"add": 84.38, "mul": 100.0}
    assert harts == {"1": 200.0, "4": 400.0, "speedup": 2.0}
    faster = BENCH_OUTPUT.replace("6000", "3800")
    table = bench.collect({("cluster4", "libgcc"): BENCH_OUTPUT,
                           ("cluster4", "rvfplib"): faster}, {"cluster4": "cycles"}, "cluster4")
    text = bench.markdown(table)
    assert "| add | 84.4 | 50.0 | 222.0 | 1.69× |" in text
    assert "| libgcc | 200.0 | 400.0 | 2.0× |" in text
    assert json.loads(json.dumps(table))["schema"] == bench.SCHEMA
    with pytest.raises(bench.SoftFloatBenchError):
        bench.parse("STATUS OK\n")


NEEDS_INPUTS = ("toolchain", choices.RVFPLIB_INPUT)  # for the `tree` fixture (conftest.py)


@needs_qemu
@pytest.mark.upstream
@pytest.mark.parametrize("name", list(choices.CHOICES))
def test_routines_are_bit_exact_on_qemu(tree: Path, name: str) -> None:
    out = scons(tree, "softfloat-check", f"SOFTFLOAT={name}").stdout
    assert f"PASS: SOFTFLOAT={name} bit-exact" in out
    assert "1,048,576 random operand sets" in out


@pytest.mark.upstream
def test_unknown_choice_is_one_clear_error(tree: Path) -> None:
    proc = scons(tree, "softfloat-check", "SOFTFLOAT=fast", check=False)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "Invalid value for enum variable 'SOFTFLOAT': 'fast'" in proc.stderr


@pytest.mark.upstream
def test_images_link_the_chosen_routines(tree: Path) -> None:
    """The size report names the soft-float routines of each choice; libgcc's stay out."""
    found = {}
    for name in ("libgcc", "rvfplib"):
        scons(tree, "size-report", "MODEL=matmul", "RUNTIME=none", "BOARD=qemu-virt",
              f"SOFTFLOAT={name}")
        folder = "matmul-4-c" + ("" if name == choices.DEFAULT else f"-{name}")
        report = json.loads((tree / "build/qemu-virt" / folder / "size-report.json").read_text())
        found[name] = {c["name"]: c for c in report["components"]}
    assert "soft-float" not in found["libgcc"]
    assert "libgcc soft-float" not in found["rvfplib"]
    ours = found["rvfplib"]["soft-float"]["inputs"]
    assert any("softfloat/rvfplib/__addsf3.o" in name for name in ours)
    assert found["rvfplib"]["soft-float"]["size"] < found["libgcc"]["libgcc soft-float"]["size"]
