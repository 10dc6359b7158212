"""Building Verilator and the cluster simulator, and running firmware on the simulator."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest
from conftest import needs_tool, require_input
from fetch_fixtures import tree_files

from ireerv import boards, paths
from ireerv.inputs.fetch import FetchConfig, Fetcher
from ireerv.inputs.lock import load_lock
from ireerv.inputs.toolchain import Toolchain
from ireerv.simulators import verilator_build as vb

TESTBENCH = boards.load_board("cluster4").simulator.extra["testbench"]

needs_autoconf = needs_tool("autoconf", "autoconf")


# --- without the upstream sources ---------------------------------------------


def fake_verilator(root: Path, body: str) -> Path:
    root.mkdir(parents=True)
    (root / "configure.ac").write_text(f"AC_INIT([Verilator],[5.050 2026-07-01])\n{body}\n")
    return root


def test_source_version(tmp_path: Path) -> None:
    assert vb.source_version(fake_verilator(tmp_path / "v", "")) == "v5.050"
    (tmp_path / "v" / "configure.ac").write_text("AC_INIT([other],[1.0])\n")
    with pytest.raises(vb.VerilatorBuildError, match="names no Verilator version"):
        vb.source_version(tmp_path / "v")
    with pytest.raises(vb.VerilatorBuildError, match="is not a Verilator source tree"):
        vb.source_version(tmp_path / "nothing")


@needs_autoconf
def test_failing_step_names_command_and_log(tmp_path: Path) -> None:
    src = fake_verilator(tmp_path / "src", "AC_MSG_ERROR([this tree cannot be configured])")
    before = tree_files(src)
    log = tmp_path / "logs" / "verilator.log"
    work = tmp_path / "work"
    with pytest.raises(vb.VerilatorBuildError) as info:
        vb.build_verilator(src, tmp_path / "prefix", log_path=log, jobs=1, work_dir=work)
    err = info.value
    assert err.command is not None and err.command[0] == "./configure"
    assert f"--prefix={tmp_path / 'prefix'}" in err.command
    assert err.log_path == log and str(log) in str(err)
    assert "this tree cannot be configured" in log.read_text()
    assert "this tree cannot be configured" in str(err)  # the log's tail
    assert tree_files(src) == before  # built in a copy: no configure script in the source
    assert not (tmp_path / "prefix").exists()


def test_model_needs_verilator_and_complete_testbench(tmp_path: Path) -> None:
    prefix = tmp_path / "verilator"
    log = tmp_path / "model.log"
    with pytest.raises(vb.VerilatorBuildError, match=r"no Verilator at .*/bin/verilator"):
        vb.build_cluster_model(tmp_path, TESTBENCH, prefix, tmp_path / "out", log_path=log)
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "verilator").write_text("")
    tb = tmp_path / "tb"
    for part in (*TESTBENCH.sources, TESTBENCH.main):
        (tb / part).parent.mkdir(parents=True, exist_ok=True)
        (tb / part).write_text("")
    with pytest.raises(vb.VerilatorBuildError, match=r"lacks cv32e40p/.* \(the cv32e40p submodule"):
        vb.build_cluster_model(tb, TESTBENCH, prefix, tmp_path / "out", log_path=log)


def test_cache_entries_follow_inputs_and_flags(tmp_path: Path) -> None:
    lock = load_lock(paths.LOCK_FILE)
    f = Fetcher(lock, FetchConfig(cache_root=tmp_path, log=lambda _: None))
    entry = vb.verilator_entry(f)
    assert entry.parent == tmp_path / "tools" and entry.name.startswith("verilator-")
    recipe = vb.VERILATOR_RECIPE
    try:
        vb.VERILATOR_RECIPE = recipe + 1  # a changed build recipe is a new entry
        assert vb.verilator_entry(f) != entry
    finally:
        vb.VERILATOR_RECIPE = recipe
    sim = vb.cluster_simulator_entry(f, TESTBENCH)
    assert sim.parent == tmp_path / "tools" and sim.name.startswith("cluster4-sim-")
    assert vb.cluster_simulator_entry(f, TESTBENCH) == sim  # stable
    other = dataclasses.replace(TESTBENCH, cflags=("-std=gnu++14", "-O3"))
    assert vb.cluster_simulator_entry(f, other) != sim


# --- with the pinned upstreams ---------------------------------------------------


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("verilator-logs")


@pytest.fixture(scope="module")
def simulator(fetcher: Fetcher, log_dir: Path) -> Path:
    require_input(fetcher, "verilator")
    require_input(fetcher, "cluster-tb")
    return vb.cluster_simulator(fetcher, TESTBENCH, log_dir)


@pytest.mark.cluster
@pytest.mark.upstream
def test_verilator_from_source(fetcher: Fetcher, log_dir: Path) -> None:
    src = require_input(fetcher, "verilator")
    exe = vb.verilator(fetcher, log_dir)
    assert exe == vb.verilator_entry(fetcher) / "bin" / "verilator"
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout
    tag = fetcher.lock.input("verilator").tag
    assert out.startswith(f"Verilator {tag.lstrip('v')} ") and f"rev {tag}" in out, out
    # The cached source stays as fetched: no configure run in it, regression suite left out.
    for made in ("configure", "config.status", "Makefile", "bin/verilator_bin"):
        assert not (src / made).exists(), made
    assert not (src / "test_regress").exists()


def assemble(toolchain: Toolchain, directory: Path, name: str, source: str) -> Path:
    """Assemble `source` at the boot address 0x80; returns the `objcopy -O verilog` hex."""
    asm, obj = directory / f"{name}.S", directory / f"{name}.o"
    elf, hexfile = directory / f"{name}.elf", directory / f"{name}.hex"
    asm.write_text(source)
    for cmd in (
        [toolchain.tool("as"), "-march=rv32imc_zicsr", "-mabi=ilp32", "-o", obj, asm],
        [toolchain.tool("ld"), "-m", "elf32lriscv", "-Ttext=0x80", "-e", "_start", "-o", elf, obj],
        [toolchain.tool("objcopy"), "-O", "verilog", elf, hexfile],
    ):
        subprocess.run(cmd, check=True, capture_output=True)
    return hexfile


# Hart 0 prints "OK\n" and ends the run; the other three harts wait.
OK_FIRMWARE = """\
    .globl _start
_start:
    csrr t0, mhartid
    bnez t0, park
    li   t1, 0x10000000     # print a byte
    li   t2, 0x4f           # 'O'
    sb   t2, 0(t1)
    li   t2, 0x4b           # 'K'
    sb   t2, 0(t1)
    li   t2, 0x0a           # newline
    sb   t2, 0(t1)
    li   t1, 0x20000004     # exit with status 0
    sw   zero, 0(t1)
park:
    j    park
"""

LOOP_FIRMWARE = """\
    .globl _start
_start:
    j _start
"""


def run_sim(sim: Path, hexfile: Path, maxcycles: int) -> subprocess.CompletedProcess[str]:
    # cwd: where the simulator would leave a core file when it aborts.
    return subprocess.run(
        [sim, f"+firmware={hexfile}", f"+maxcycles={maxcycles}"],
        cwd=hexfile.parent, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.cluster
@pytest.mark.upstream
def test_simulator_runs_firmware(simulator: Path, toolchain: Toolchain, tmp_path: Path) -> None:
    assert simulator.name == TESTBENCH.executable and simulator.parent.parent.name == "tools"
    hexfile = assemble(toolchain, tmp_path, "ok", OK_FIRMWARE)
    assert hexfile.read_text().startswith("@00000080")
    run = run_sim(simulator, hexfile, 1_000_000)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "OK\n" in run.stdout and "[TB] CLUSTER EXIT SUCCESS" in run.stdout, out


@pytest.mark.cluster
@pytest.mark.upstream
def test_simulator_stops_at_cycle_limit(
    simulator: Path, toolchain: Toolchain, tmp_path: Path
) -> None:
    hexfile = assemble(toolchain, tmp_path, "loop", LOOP_FIRMWARE)
    run = run_sim(simulator, hexfile, 100_000)
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    assert "[TB] max cycle limit reached (100000)" in out, out
    assert "CLUSTER EXIT SUCCESS" not in out


@pytest.mark.cluster
@pytest.mark.upstream
def test_an_image_deep_in_a_checkout_still_loads(simulator: Path, toolchain: Toolchain,
                                                 tmp_path: Path) -> None:
    """The testbench reads at most 128 characters of +firmware: the run names the image
    from its own folder, so a checkout's depth never cuts the name short."""
    from ireerv.simulators import verilator_cluster

    deep = tmp_path / ("a-rather-long-folder-name-" * 6) / "build" / "cluster4" / "model"
    deep.mkdir(parents=True)
    hexfile = assemble(toolchain, deep, "ok", OK_FIRMWARE)
    assert len(str(hexfile)) > verilator_cluster.MAX_FILE_NAME
    result = verilator_cluster.run_cluster(simulator, hexfile, maxcycles=1_000_000, timeout=120)
    assert result.passed, result.detail
    assert "OK\n" in result.program_output
