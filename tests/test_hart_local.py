"""Which kernels harts 1.. may run from their own scratchpads: decided from real objects."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ireerv.harts import hart_local

KERNELS = {
    # Reads only its arguments and calls nothing: may run from the scratchpad.
    "pure": """
int m_dispatch_0_add(const int* a, int* b, int n) {
  for (int i = 0; i < n; ++i) b[i] += a[i] * 3;
  return 0;
}
""",
    # A constant table in .rodata: that read would cross the shared path.
    "table": """
static const int table[17] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2};
int m_dispatch_0_lookup(const int* a, int* b, int n) {
  for (int i = 0; i < n; ++i) b[i] = table[a[i] & 15];
  return 0;
}
""",
    # Calls a soft-float routine: bound by instruction fetch.
    "calls": """
float m_dispatch_0_scale(float x, float y) { return x * y; }
""",
    # Calls a routine of another object that reads only its arguments, storing bytes.
    "copies": """
void copy_bytes(char* d, const char* s, int n);
int m_dispatch_1_copy(char* d, const char* s, int n) { copy_bytes(d, s, n); return 0; }
""",
    "copy_bytes": """
void copy_bytes(char* d, const char* s, int n) { while (n--) *d++ = *s++; }
""",
    # A library's table of entry points, as iree-compile's kernel object has it.
    "library": """
static int m_dispatch_0_first(void) { return 1; }
static int m_dispatch_1_second(void) { return 2; }
typedef int (*entry_t)(void);
const entry_t m_linked_library_query_v0_funcs[] = {
    m_dispatch_1_second, m_dispatch_0_first, m_dispatch_1_second};
""",
    "softfloat": """
float __mulsf3(float a, float b) { (void)b; return a; }
""",
    # Helpers that no entry point calls do not count.
    "unused_helper": """
static const int table[4] = {1, 2, 3, 4};
int helper(int i) { return table[i & 3]; }
int m_dispatch_3_sum(const int* a, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += a[i];
  return s;
}
""",
}


@pytest.fixture(scope="module")
def objects(toolchain, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("hart_local")
    built = {}
    for name, source in KERNELS.items():
        c = out / f"{name}.c"
        c.write_text(source)
        built[name] = out / f"{name}.o"
        subprocess.run([str(toolchain.tool("gcc")), "-march=rv32imc", "-mabi=ilp32", "-O2",
                        "-fno-builtin", "-ffreestanding",
                        "-ffunction-sections", "-fdata-sections", "-c", str(c), "-o",
                        str(built[name])], check=True)
    return built


def _check(objects, kernel: str, others: tuple[str, ...] = ()):
    return hart_local.check(objects[kernel], [objects["softfloat"]],
                            [objects[o] for o in others])


def test_a_kernel_that_reads_only_its_arguments_may_run_locally(objects) -> None:
    assert _check(objects, "pure") == (None, True)
    assert _check(objects, "unused_helper") == (None, True)
    text = hart_local.header(None, True, {"m_dispatch_0_add": (1, 2)},
                             order=["m_dispatch_0_add"])
    assert "#define RUNNER_HART_LOCAL 1" in text
    assert "#define RUNNER_HART_LOCAL_WORD_STORES 1" in text
    assert "#define RUNNER_HART_LOCAL_ENTRY_COUNT 1" in text
    assert ('{0x1u, 0x2u, 1, {0, 0, 0}, 0, 0, 0u}, /* 0: m_dispatch_0_add */ \\\n'
            '  {0, 0, 0, {0, 0, 0}, 0, 0, 0}') in text


def test_called_code_is_followed_and_its_byte_stores_seen(objects) -> None:
    assert _check(objects, "copies", ("copy_bytes",)) == (None, False)
    reason, _ = _check(objects, "copies")
    assert reason == ("m_dispatch_1_copy calls copy_bytes, which is not among the "
                      "checked objects")


def test_a_constant_table_keeps_the_harts_in_place(objects) -> None:
    reason, _ = _check(objects, "table")
    assert reason is not None and reason.startswith("m_dispatch_0_lookup reads ")
    assert "#define RUNNER_HART_LOCAL 0" in hart_local.header(reason)


def test_soft_float_kernels_stay_in_place(objects) -> None:
    reason, _ = _check(objects, "calls")
    assert reason == ("m_dispatch_0_scale calls __mulsf3: soft-float kernels are bound by "
                      "instruction fetch, not data")


def test_an_unreadable_object_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "model_kernel.o"
    bad.write_bytes(b"not an object")
    with pytest.raises(hart_local.HartLocalError, match="cannot read the object"):
        hart_local.check(bad, [], [])


SOURCES = """
hal.executable private @e {
  hal.executable.variant public @v target(#t) {
    hal.executable.export public @m_dispatch_0_mm ordinal(0) layout(#l) count() {
    }
    builtin.module {
      func.func @m_dispatch_0_mm() {
        %0 = hal.interface.binding.subspan layout(#l) binding(0) alignment(64) offset(%c0) \
flags("ReadOnly|Indirect") : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x4xi8>>
        %1 = hal.interface.binding.subspan layout(#l) binding(1) alignment(64) offset(%c0) \
flags(Indirect) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x4xi32>>
        %2 = hal.interface.binding.subspan layout(#l) binding(2) alignment(64) offset(%c0) \
flags(Indirect) : !iree_tensor_ext.dispatch.tensor<readwrite:tensor<4xi32>>
        %3 = hal.interface.binding.subspan layout(#l) binding(3) alignment(64) offset(%c0) \
flags(Indirect) : memref<4xi32>
        return
      }
      func.func @m_dispatch_1_twice() {
        %0 = hal.interface.binding.subspan layout(#l) binding(0) alignment(64) offset(%c0) \
flags(Indirect) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4xi8>>
        %1 = hal.interface.binding.subspan layout(#l) binding(0) alignment(64) offset(%c4) \
flags(Indirect) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4xi8>>
        return
      }
    }
  }
}
"""


def test_binding_access_from_the_executable_sources() -> None:
    assert hart_local.entry_bindings(SOURCES) == {
        "m_dispatch_0_mm": (0b1, 0b10),  # 2: read-write; 3: a memref, unknown
        "m_dispatch_1_twice": (0, 0),  # read through one view, written through another
    }


def test_each_entry_point_is_checked_alone(objects) -> None:
    """A kernel that calls soft-float or reads a table keeps only itself in place."""
    checks = hart_local.check_entries(objects["copies"], [objects["softfloat"]],
                                      [objects["copy_bytes"]])
    assert checks == {"m_dispatch_1_copy": hart_local.EntryCheck(None, False)}
    assert checks["m_dispatch_1_copy"].mode == 1
    calls = hart_local.check_entries(objects["calls"], [objects["softfloat"]], [])
    assert calls["m_dispatch_0_scale"].mode == 2  # in place, bound by instruction fetch
    table = hart_local.check_entries(objects["table"], [objects["softfloat"]], [])
    assert table["m_dispatch_0_lookup"].mode == 0  # in place: reads data of its own


def test_the_header_gives_each_entry_point_its_mode() -> None:
    checks = {"m_dispatch_0_mm": hart_local.EntryCheck(None, True),
              "m_dispatch_1_twice": hart_local.EntryCheck(
                  "m_dispatch_1_twice calls __mulsf3: " + hart_local.SOFT_FLOAT, True)}
    reason, word_stores = hart_local.summary(checks)
    assert reason.startswith("m_dispatch_1_twice calls __mulsf3") and word_stores
    order = ["m_dispatch_1_twice", "m_dispatch_0_mm", "m_dispatch_2_other"]
    text = hart_local.header(reason, word_stores, hart_local.entry_bindings(SOURCES),
                             None, checks, order)
    assert "#define RUNNER_HART_LOCAL 1" in text  # one entry point may run locally
    assert "#define RUNNER_HART_LOCAL_DEFAULT_MODE 0" in text
    # A row per entry point at its ordinal; one iree-compile did not describe: in place.
    assert ("  {0x0u, 0x0u, 2, {0, 0, 0}, 0, 0, 0u}, /* 0: m_dispatch_1_twice */ \\\n"
            "  {0x1u, 0x2u, 1, {0, 0, 0}, 0, 0, 0u}, /* 1: m_dispatch_0_mm */ \\\n"
            "  {0x0u, 0x0u, 0, {0, 0, 0}, 0, 0, 0u}, /* 2: m_dispatch_2_other */ \\\n") in text
    fetch_bound = {"m_dispatch_1_twice": checks["m_dispatch_1_twice"]}
    text = hart_local.header(*hart_local.summary(fetch_bound), None, None, fetch_bound,
                             ["m_dispatch_1_twice"])
    assert "#define RUNNER_HART_LOCAL 0" in text
    assert "#define RUNNER_HART_LOCAL_DEFAULT_MODE 2" in text  # all soft-float: in place
    # Without iree-compile's bindings the entry points are still listed, for their floors.
    assert "{0x0u, 0x0u, 2, {0, 0, 0}, 0, 0, 0u}, /* 0: m_dispatch_1_twice */" in text


def test_entry_points_are_listed_by_ordinal(objects) -> None:
    """The order of the library's table of entry points, read from its relocations."""
    assert hart_local.export_order(objects["library"]) == [
        "m_dispatch_1_second", "m_dispatch_0_first", "m_dispatch_1_second"]
    assert hart_local.export_order(objects["pure"]) == []  # no library table


def test_a_dispatch_floor_is_its_macs_at_the_fewest_cycles_a_mac_can_take() -> None:
    floor = hart_local.CYCLES_PER_MAC_FLOOR
    qmatmul = "q_dispatch_0_matmul_like_8x12x16_i8xi8xi32"
    assert hart_local.cycles_floor(qmatmul) == 1536 * floor["i"]
    assert hart_local.cycles_floor("m_dispatch_0_matmul_like_16x16x16_f32") == 4096 * floor["f"]
    conv = "main_dispatch_1_conv_2d_nhwc_hwcf_1x25x5x64x10x2x2_i8xi8xi32"
    assert hart_local.cycles_floor(conv) == 320_000 * floor["i"]
    assert hart_local.cycles_floor("main_dispatch_14_reduction_320x25_i8xi32") == 0  # no MACs
    assert hart_local.cycles_floor("main_dispatch_0_slow_memcpy") == 0
