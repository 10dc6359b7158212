"""IREE host tools and the bare-metal runtime: configuration, CMake driving, a real build.

The build tests need the pinned IREE source and the cross toolchain; the last
one also needs iree-compile and QEMU and runs the generic runner on a matmul.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from conftest import needs_qemu, needs_tool, require_input

from ireerv import boards, paths
from ireerv.image import runner_data
from ireerv.inputs.fetch import Fetcher
from ireerv.inputs.toolchain import Toolchain
from ireerv.library import model_source
from ireerv.run import runner_output
from ireerv.runtime import iree_build
from ireerv.runtime.iree_build import IreeBuildError, RuntimeBuild

# The project's rv32imc boards: compile with Zicsr/Zifencei, link with the multilib name.
BOARD_CFLAGS = ["-march=rv32imc_zicsr_zifencei", "-mabi=ilp32"]
LINK_FLAGS = ["-march=rv32imc", "-mabi=ilp32"]

MATMUL_MLIR = """\
func.func @matmul_f32f32f32(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %lhs, %c0 : tensor<?x?xf32>
  %n = tensor.dim %rhs, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%lhs, %rhs : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""

# Just enough QEMU virt glue for the runner: UART stdout, cycle counter, exit
# through the test finisher.  picolibc's hosted crt0 does the rest.
QEMU_GLUE = """\
#include <stdint.h>
#include <stdio.h>
#include "bsp_cycles.h"
static int uart_putc(char c, FILE* file) {
  (void)file;
  volatile uint8_t* uart = (volatile uint8_t*)0x10000000;
  while (!(uart[5] & 0x20)) {}
  uart[0] = (uint8_t)c;
  return (unsigned char)c;
}
static FILE uart = FDEV_SETUP_STREAM(uart_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE* const stdout = &uart;
FILE* const stderr = &uart;  /* assert messages (debug profile) */
uint64_t bsp_cycles(void) {
  uint32_t hi, lo, again;
  do {
    __asm__ volatile("rdcycleh %0" : "=r"(hi));
    __asm__ volatile("rdcycle %0" : "=r"(lo));
    __asm__ volatile("rdcycleh %0" : "=r"(again));
  } while (hi != again);
  return ((uint64_t)hi << 32) | lo;
}
void _exit(int code) {
  *(volatile uint32_t*)0x100000 = code ? ((uint32_t)code << 16) | 0x3333 : 0x5555;
  for (;;) {}
}
size_t bsp_stack_used(void) { return 0; }  /* no marks: the runner prints 0 */
size_t bsp_heap_peak(void) { return 0; }
/* abort() (asserts in the debug profile) raises a signal. */
int getpid(void) { return 1; }
int kill(int pid, int sig) { (void)pid; _exit(128 + sig); }
"""
QEMU_MEMORY = ["__flash=0x80000000", "__flash_size=0x400000", "__ram=0x80400000",
               "__ram_size=0x800000", "__stack_size=0x10000"]
IREE_COMPILE_FLAGS = [
    "--output-format=vm-c", "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-triple=riscv32-unknown-elf", "--iree-llvmcpu-target-cpu=generic",
    "--iree-llvmcpu-target-cpu-features=+m,+c", "--iree-llvmcpu-target-abi=ilp32",
    "--iree-llvmcpu-link-embedded=false", "--iree-llvmcpu-link-static",
    "--iree-vm-target-index-bits=32", "--iree-opt-level=O2",
]


# --- configuration (no upstream needed) ---------------------------------------------------


def test_config_has_profiles_and_libraries() -> None:
    config = iree_build.load_config()
    assert {"release", "debug"} <= set(config["profiles"])
    assert all(lib.endswith(".a") for lib in config["target"]["libraries"])
    assert config["target"]["cmake"]["IREE_ENABLE_THREADING"] == "OFF"


def test_app_defines_follow_the_profile() -> None:
    release = iree_build.app_defines("release")
    debug = iree_build.app_defines("debug")
    assert "IREE_STATUS_MODE=0" in release and "NDEBUG=1" in release
    assert "IREE_STATUS_MODE=2" in debug and not any(d.startswith("NDEBUG") for d in debug)
    for defines in (release, debug):
        assert "IREE_ALLOCATOR_SYSTEM_CTL=iree_allocator_libc_ctl" in defines
        # Runtime-only defines never reach application code.
        assert not any(d.startswith(("IREE_TIME_NOW_FN", "IREE_WAIT_UNTIL_FN")) for d in defines)


def test_unknown_profile_is_refused() -> None:
    with pytest.raises(IreeBuildError, match="unknown runtime profile 'fast'.*debug, release"):
        iree_build.app_defines("fast")


def test_bad_config_names_the_problem(tmp_path: Path) -> None:
    bad = tmp_path / "config.toml"
    bad.write_text("schema = 1\n[host]\ntargets = []\n")
    with pytest.raises(IreeBuildError, match=r"\[host\] lacks 'build_type'"):
        iree_build.load_config(bad)


def test_missing_source_is_named(tmp_path: Path) -> None:
    (tmp_path / "CMakeLists.txt").write_text("")
    with pytest.raises(IreeBuildError, match="lacks runtime/src/iree/base/api.h"):
        iree_build.build_host_tools(tmp_path, tmp_path / "out", log_path=tmp_path / "log")


def test_configured_build_dir_is_kept_and_a_changed_one_removed(tmp_path: Path) -> None:
    build = tmp_path / "build"
    assert iree_build._prepare_build_dir(build, "config A")
    (build / "CMakeCache.txt").write_text("")
    (build / iree_build.STAMP_NAME).write_text("config A")
    (build / "object.o").write_text("")
    assert not iree_build._prepare_build_dir(build, "config A")
    assert (build / "object.o").exists()
    assert iree_build._prepare_build_dir(build, "config B")
    assert not (build / "object.o").exists()


@needs_tool("cmake", "cmake")
def test_toolchain_file_carries_flags_through_cmake_and_shell(
    toolchain: Toolchain, tmp_path: Path
) -> None:
    """Flags with spaces, braces, quotes and parentheses reach the compiler unchanged."""
    flags = [*BOARD_CFLAGS, "-DTIME_FN={ return 0; }", "-DWAIT(t)=true", '-DQ="x y"', "-D$D=1"]
    text = iree_build.toolchain_file_text(toolchain, flags)
    assert str(toolchain.tool("gcc")) in text
    toolchain_file = tmp_path / "toolchain.cmake"
    toolchain_file.write_text(text)
    script = tmp_path / "print.cmake"
    script.write_text(f'include("{toolchain_file}")\nmessage("${{CMAKE_C_FLAGS_INIT}}")\n')
    cmake = shutil.which("cmake") or "cmake"
    result = subprocess.run([cmake, "-P", str(script)], capture_output=True, text=True, check=True)
    # Ninja hands the flags string to /bin/sh, which must split it back into `flags`.
    assert shlex.split(result.stderr.strip()) == flags


def test_compiler_commit_is_checked(fetcher: Fetcher, compiler: Path) -> None:
    commit = fetcher.lock.input("iree").commit
    assert iree_build.compiler_commit(compiler) == commit
    iree_build.check_compiler_commit(compiler, commit.upper())
    other = "ae97779f59a81bc56f804927be57749bb22548fa"
    with pytest.raises(IreeBuildError) as info:
        iree_build.check_compiler_commit(compiler, other)
    assert commit in str(info.value) and other in str(info.value)


def test_compiler_without_commit_is_an_error(tmp_path: Path) -> None:
    fake = tmp_path / "iree-compile"
    fake.write_text("#!/bin/sh\necho 'IREE compiler version 0.0'\n")
    fake.chmod(0o755)
    with pytest.raises(IreeBuildError, match="printed no commit"):
        iree_build.compiler_commit(fake)


# --- real builds (pinned IREE source and cross toolchain) --------------------------------


@pytest.fixture(scope="module")
def iree_src(fetcher: Fetcher) -> Path:
    return require_input(fetcher, "iree")


@pytest.fixture(scope="module")
def host_tools(iree_src: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("iree-host")
    return iree_build.build_host_tools(iree_src, out / "build", log_path=out / "build.log")


@pytest.fixture(scope="module")
def runtimes(iree_src: Path, host_tools: dict[str, Path], toolchain: Toolchain,
             tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], RuntimeBuild]:
    """Builds the runtime for a profile on first use."""
    out = tmp_path_factory.mktemp("iree-runtime")
    host_bin = host_tools["iree-c-embed-data"].parent
    built: dict[str, RuntimeBuild] = {}

    def get(profile: str) -> RuntimeBuild:
        if profile not in built:
            built[profile] = iree_build.build_runtime(
                iree_src, out / profile, toolchain, host_bin, profile=profile,
                cflags=BOARD_CFLAGS, log_path=out / f"{profile}.log")
        return built[profile]

    return get


@pytest.fixture(scope="module")
def runtime(runtimes: Callable[[str], RuntimeBuild]) -> RuntimeBuild:
    return runtimes("release")


@pytest.mark.upstream
def test_host_tools_run(host_tools: dict[str, Path], tmp_path: Path) -> None:
    assert set(host_tools) == {"iree-flatcc-cli", "iree-c-embed-data"}
    blob = tmp_path / "blob.bin"
    blob.write_bytes(bytes(range(7)))
    subprocess.run(
        [host_tools["iree-c-embed-data"], f"--output_header={tmp_path / 'blob.h'}",
         f"--output_impl={tmp_path / 'blob.c'}", "--identifier=blob_toc", "--flatten", blob],
        check=True, capture_output=True)
    assert "blob_toc" in (tmp_path / "blob.h").read_text()
    assert "blob.bin" in (tmp_path / "blob.c").read_text()
    schema = tmp_path / "tiny.fbs"
    schema.write_text("table Tiny { value: int; }\nroot_type Tiny;\n")
    subprocess.run([host_tools["iree-flatcc-cli"], "-a", "-o", tmp_path, schema],
                   check=True, capture_output=True)
    assert (tmp_path / "tiny_reader.h").is_file()


@pytest.mark.upstream
def test_runtime_libraries_are_rv32(runtime: RuntimeBuild, toolchain: Toolchain) -> None:
    assert [lib.name for lib in runtime.libraries] == [
        "libiree_hal_local_loaders_static_library_loader.a",
        "libiree_hal_local_executable_library_util.a",
        "libiree_runtime_unified.a",
    ]
    for library in runtime.libraries:
        header = subprocess.run([toolchain.tool("readelf"), "-h", library],
                                capture_output=True, text=True, check=True).stdout
        assert "ELF32" in header and "RISC-V" in header
    assert (runtime.include_dirs[0] / "iree" / "runtime" / "api.h").is_file()
    assert "IREE_STATUS_MODE=0" in runtime.defines


@pytest.mark.upstream
def test_runtime_rebuild_is_a_no_op(runtime: RuntimeBuild, iree_src: Path,
                                    host_tools: dict[str, Path], toolchain: Toolchain) -> None:
    log = runtime.build_dir.with_suffix(".again.log")
    again = iree_build.build_runtime(iree_src, runtime.build_dir, toolchain,
                                     host_tools["iree-c-embed-data"].parent, profile="release",
                                     cflags=BOARD_CFLAGS, log_path=log)
    assert again == runtime
    assert "no work to do" in log.read_text()
    assert "-G Ninja" not in log.read_text()  # not configured again


@pytest.mark.upstream
def test_build_failure_names_command_and_log(iree_src: Path, host_tools: dict[str, Path],
                                             toolchain: Toolchain, tmp_path: Path) -> None:
    log = tmp_path / "bad.log"
    with pytest.raises(IreeBuildError) as info:
        iree_build.build_runtime(iree_src, tmp_path / "bad", toolchain,
                                 host_tools["iree-c-embed-data"].parent, profile="release",
                                 cflags=["-march=rv32nonsense", "-mabi=ilp32"], log_path=log)
    assert info.value.log_path == log and info.value.command
    assert str(log) in str(info.value)


@pytest.mark.upstream
@needs_qemu
@pytest.mark.parametrize("profile", ["release", "debug"])
def test_matmul_image_runs_on_qemu(profile: str, runtimes: Callable[[str], RuntimeBuild],
                                   toolchain: Toolchain, compiler: Path,
                                   tmp_path: Path) -> None:
    """Runner + vm-c module + static kernel + runtime: an image that computes a @ b."""
    runtime = runtimes(profile)
    qemu = shutil.which("qemu-system-riscv32") or "qemu-system-riscv32"
    (tmp_path / "matmul.mlir").write_text(MATMUL_MLIR)
    subprocess.run([compiler, *IREE_COMPILE_FLAGS,
                    f"--iree-llvmcpu-static-library-output-path={tmp_path / 'kernel.o'}",
                    tmp_path / "matmul.mlir", "-o", tmp_path / "module.h"], check=True)
    # iree-compile writes the kernel object, its header next to it, and the vm-c module.
    assert {p.name for p in tmp_path.iterdir()} >= {"kernel.o", "kernel.h", "module.h"}

    rng = np.random.default_rng(7)
    a, b = (rng.standard_normal((4, 4)).astype(np.float32) for _ in range(2))
    queries = runner_data.library_queries((tmp_path / "kernel.h").read_text())
    sources = {
        "model_data.c": runner_data.model_source(
            "module", "matmul_f32f32f32", [a, b], library_queries=queries,
            outputs=[model_source.Tensor("c", "f32", (4, 4))]),
        "module.c": runner_data.module_impl_source("module.h"),
        "glue.c": QEMU_GLUE,
        "bsp_cycles.h": "#include <stdint.h>\nuint64_t bsp_cycles(void);\n",
        "bsp_memory.h": "#include <stddef.h>\nsize_t bsp_stack_used(void);\n"
                        "size_t bsp_heap_peak(void);\n",
        # The board's facts the runner reads (qemu-virt's: one hart runs this image).
        "bsp_config.h": boards.config_header(boards.load_board("qemu-virt")),
    }
    for name, text in sources.items():
        (tmp_path / name).write_text(text)
    gcc = toolchain.tool("gcc")
    cflags = [*BOARD_CFLAGS, *toolchain.libc_flags(), "-Os", "-ffunction-sections",
              "-fdata-sections", *("-D" + d for d in runtime.defines),
              "-DIREERV_FULL_HAL=1",  # the program is compiled for the full HAL
              *(f"-isystem{d}" for d in runtime.include_dirs),
              f"-I{iree_build.RUNNER_DIR}", f"-I{iree_build.RUNTIME_DIR / 'api'}",
              f"-I{tmp_path}",
              f"-I{paths.PROJECT_ROOT / 'bsp' / 'include'}"]
    objects = []
    runner = [*(iree_build.RUNNER_DIR / name
                for name in ("runner.c", "parallel.c", "host_allocator.c")),
              *(iree_build.RUNTIME_DIR / "api" / name for name in ("ireerv.c", "arena.c"))]
    for source in [*runner, *(tmp_path / n for n in sources)]:
        if source.suffix == ".c":
            obj = tmp_path / (source.stem + ".o")
            subprocess.run([gcc, *cflags, "-c", source, "-o", obj], check=True)
            objects.append(obj)
    elf = tmp_path / "image.elf"
    subprocess.run([gcc, *LINK_FLAGS, *toolchain.libc_flags(), "--crt0=hosted",
                    "-DPICOLIBC_INTEGER_PRINTF_SCANF",
                    *(f"-Wl,--defsym={m}" for m in QEMU_MEMORY), "-o", elf,
                    *objects, tmp_path / "kernel.o", *runtime.libraries], check=True)

    sizes = subprocess.run([toolchain.tool("size"), elf], capture_output=True, text=True,
                           check=True).stdout.splitlines()[1].split()
    if profile == "release":
        assert int(sizes[0]) + int(sizes[1]) < 256 * 1024  # text + data of the lean image

    run = subprocess.run([qemu, "-machine", "virt", "-smp", "1", "-bios", "none", "-nographic",
                          "-icount", "shift=0", "-kernel", elf],
                         capture_output=True, text=True, timeout=60)
    result = runner_output.parse_runner_output(run.stdout)
    assert run.returncode == 0 and result.ok, run.stdout + run.stderr
    assert len(result.call_cycles) == 2 and result.startup_cycles
    (out,) = result.outputs
    assert out.dtype == np.float32 and out.shape == (4, 4)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-6)
