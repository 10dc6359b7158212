"""Size report on real images: a small bare-metal program linked by the cross toolchain.

The program has a start file (bsp/), an application object (app/), a stand-in for the
generated kernel (kernel/kernel.o, doing double-precision arithmetic, so libgcc's soft-float
is linked), a static archive (lib/libhelpers.a) and picolibc's printf.  A second build adds
one function to the archive, for the diff.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from ireerv.inputs.toolchain import Toolchain
from ireerv.size import mapfile
from ireerv.size.analysis import analyze
from ireerv.size.diff import diff, format_diff
from ireerv.size.mapfile import InputFile
from ireerv.size.report import REMAINDER, SCHEMA, SizeReport, SizeReportError, check_regions
from ireerv.size.rules import ComponentRule, default_rules
from ireerv.size.svg import write_svg
from ireerv.size.text import format_text
from ireerv.util.memory import Region

SITE_SCONS = Path(__file__).resolve().parents[1] / "site_scons"

COMPILE = ["-march=rv32imc_zicsr_zifencei", "-mabi=ilp32", "-Os", "-g"]
COMPILE += ["-ffunction-sections", "-fdata-sections", "-fcommon"]
LINK = ["-march=rv32imc", "-mabi=ilp32", "-nostartfiles", "-Wl,--gc-sections"]

ROM = Region("ROM", 0x8000_0000, 256 * 1024)
RAM = Region("RAM", 0x8010_0000, 64 * 1024)

SOURCES = {
    "bsp/start.S": """
        .section .text.start, "ax"
        .globl _start
        .type _start, @function
_start:
        la sp, __stack_top
        call main
1:      j 1b
        .size _start, . - _start
""",
    "app/main.c": r"""
#include <stdint.h>
#include <stdio.h>

extern double kernel_scale(double x, double y);
extern int helper_sum(const int *v, int n);
extern const char *helper_label(void);

int table[4] = {1, 2, 3, 4};          /* .data */
int scratch[64];                      /* COMMON (-fcommon) */
static volatile char buffer[512];     /* .bss */
volatile double factor = 1.5;         /* .sdata */

static int uart_putc(char c, FILE *f) {
    (void)f;
    *(volatile uint8_t *)0x10000000 = (uint8_t)c;
    return (unsigned char)c;
}
static FILE uart = FDEV_SETUP_STREAM(uart_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdout = &uart;

int main(void) {
    for (int i = 0; i < 64; i++) scratch[i] = i;
    buffer[scratch[3]] = 1;
    double d = kernel_scale(factor, 3.0);
    printf("%d %d %d\n", (int)d, helper_sum(table, 4), buffer[3]);
    /* The same literal in two objects: ld merges the strings, and the map lists both
       input sections at one address. */
    puts("size report test");
    puts(helper_label());
    return 0;
}
""",
    "kernel/kernel.c": """
double kernel_scale(double x, double y) { return x * y; }
""",
    "lib/helpers.c": """
#ifdef EXTRA
__attribute__((noinline)) int helper_extra(const int *v, int n) {
    int p = 1;
    for (int i = 0; i < n; i++) p = p * v[i] + i * 7 - (p >> 3);
    return p;
}
#endif
const char *helper_label(void) { return "size report test"; }
int helper_sum(const int *v, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += v[i];
#ifdef EXTRA
    s += helper_extra(v, n);
#endif
    return s;
}
""",
    "link.ld": """
ENTRY(_start)
MEMORY {
    ROM (rx) : ORIGIN = 0x80000000, LENGTH = 256K
    RAM (rw) : ORIGIN = 0x80100000, LENGTH = 64K
}
SECTIONS {
    .text : { KEEP(*(.text.start)) *(.text .text.*) } > ROM
    .rodata : { *(.rodata .rodata.* .srodata .srodata.*) } > ROM
    .data : { *(.data .data.* .sdata .sdata.*) } > RAM AT> ROM
    .tdata : { *(.tdata .tdata.*) } > RAM AT> ROM
    .tbss : { *(.tbss .tbss.*) } > RAM
    .bss (NOLOAD) : { *(.sbss .sbss.* .bss .bss.* COMMON) } > RAM
    .stack (NOLOAD) : { . = ALIGN(16); . += 2K; __stack_top = .; } > RAM
}
""",
}


def rules() -> list[ComponentRule]:
    return [ComponentRule("helpers", archive="libhelpers.a")] + default_rules(
        kernel="kernel.o", bsp="bsp/*", app="app/*"
    )


@dataclass(frozen=True)
class Build:
    dir: Path
    elf: Path
    map: Path
    memory_usage: str  # ld --print-memory-usage


def run(cmd: list[str | Path], cwd: Path) -> str:
    proc = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{proc.stderr}"
    return proc.stdout


def build(tc: Toolchain, out: Path, *, extra: bool) -> Build:
    out.mkdir(parents=True)
    for rel, text in SOURCES.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text)
    gcc, libc = tc.tool("gcc"), tc.libc_flags()
    defines = ["-DEXTRA"] if extra else []
    objects = []
    for src in ("bsp/start.S", "app/main.c", "kernel/kernel.c", "lib/helpers.c"):
        obj = str(Path(src).with_suffix(".o"))
        run([gcc, *COMPILE, *libc, *defines, "-c", src, "-o", obj], out)
        objects.append(obj)
    # Relative paths throughout, so the map names them as the rules expect.
    run([tc.tool("ar"), "rcsD", "lib/libhelpers.a", objects.pop()], out)
    usage = run(
        [
            gcc,
            *LINK,
            *libc,
            "-T",
            "link.ld",
            "-Wl,-Map=app.map",
            "-Wl,--print-memory-usage",
            *objects,
            "lib/libhelpers.a",
            "-o",
            "app.elf",
        ],
        out,
    )
    return Build(out, out / "app.elf", out / "app.map", usage)


@pytest.fixture(scope="module")
def builds(toolchain: Toolchain, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Build]:
    root = tmp_path_factory.mktemp("sizereport")
    return {
        "base": build(toolchain, root / "base", extra=False),
        "extra": build(toolchain, root / "extra", extra=True),
    }


@pytest.fixture(scope="module")
def report(builds: dict[str, Build]) -> SizeReport:
    b = builds["base"]
    return analyze(b.elf, b.map, regions=[ROM, RAM], components=rules(), top=15)


def size_sysv(tc: Toolchain, elf: Path) -> tuple[list[tuple[str, int, int]], int]:
    """(name, size, addr) rows and the total of `size -A`."""
    out = run([tc.tool("size"), "-A", elf], elf.parent)
    rows, total = [], None
    for line in out.splitlines()[2:]:
        parts = line.split()
        if len(parts) == 2 and parts[0] == "Total":
            total = int(parts[1])
        elif len(parts) == 3:
            rows.append((parts[0], int(parts[1]), int(parts[2])))
    assert total is not None, out
    return rows, total


def test_sections_match_size_sysv(toolchain: Toolchain, builds, report: SizeReport) -> None:
    rows, total = size_sysv(toolchain, builds["base"].elf)
    assert [(s.name, s.size, s.address) for s in report.sections] == rows
    assert sum(s.size for s in report.sections) == total
    # The image has what the test means to exercise.
    names = {s.name for s in report.alloc_sections}
    assert {".text", ".rodata", ".data", ".bss", ".stack"} <= names
    assert any(s.name.startswith(".debug_") and s.memory == "none" for s in report.sections)


def test_totals_match_size_berkeley(toolchain: Toolchain, builds, report: SizeReport) -> None:
    out = run([toolchain.tool("size"), builds["base"].elf], builds["base"].dir)
    text, data, bss, dec = (int(v) for v in out.splitlines()[1].split()[:4])
    t = report.totals
    assert (t["text"], t["data_init"], t["bss"], t["alloc"]) == (text, data, bss, dec)
    assert t["code"] == text + data and t["data"] == data + bss


def test_memory_kinds(report: SizeReport) -> None:
    kinds = {s.name: s.memory for s in report.alloc_sections}
    assert kinds[".text"] == kinds[".rodata"] == "code"
    assert kinds[".data"] == "both"
    assert kinds[".bss"] == kinds[".stack"] == "data"
    data = next(s for s in report.sections if s.name == ".data")
    assert data.address >= RAM.origin and ROM.origin <= data.load_address < ROM.end


def test_components_add_up(report: SizeReport, builds) -> None:
    # The map has overlapping (merged string) inputs, which must not be counted twice.
    rodata = mapfile.load(builds["base"].map).section(".rodata")
    spans = sorted((i.address, i.address + i.size) for i in rodata.inputs if i.size)
    assert any(b[0] < a[1] for a, b in zip(spans, spans[1:], strict=False))
    t, rem = report.totals, report.remainder
    for key in ("size", "code", "data"):
        total = t["alloc" if key == "size" else key]
        assert sum(getattr(c, key) for c in report.components) + getattr(rem, key) == total
    assert rem.size == rem.reserved + rem.fill + rem.linker + rem.unattributed + rem.unmapped
    assert rem.unattributed == 0 and rem.unmapped == 0  # every input matched a rule
    for c in [*report.components, rem]:
        assert sum(c.sections.values()) == c.size


def test_components_attributed(report: SizeReport) -> None:
    comps = {c.name: c for c in report.components}
    assert {"application", "bsp", "kernel", "helpers", "libc", "libgcc", "libgcc soft-float"} <= (
        set(comps)
    )
    assert "libhelpers.a(helpers.o)" in comps["helpers"].inputs
    assert "kernel/kernel.o" in comps["kernel"].inputs
    soft = comps["libgcc soft-float"].inputs
    assert "libgcc.a(muldf3.o)" in soft
    assert all(
        name.startswith("libgcc.a(") and not name.startswith("libgcc.a(_udiv") for name in soft
    )
    assert any(n.startswith("libc.a(") and "printf" in n for n in comps["libc"].inputs)
    # The COMMON array and the .bss buffer belong to the application's RAM.
    assert comps["application"].data >= 64 * 4 + 512
    # The linker script's stack has no inputs: reserved space, shown in the remainder.
    stack = next(s.size for s in report.sections if s.name == ".stack")
    assert report.remainder.sections[".stack"] == report.remainder.reserved == stack
    assert report.remainder.reserved_sections == [".stack"]


def test_symbols(report: SizeReport, builds) -> None:
    assert len(report.symbols) == 15
    sizes = [s.size for s in report.symbols]
    assert sizes == sorted(sizes, reverse=True)
    b = builds["base"]
    full = analyze(b.elf, b.map, components=rules(), top=10_000)
    by_name = {s.name: s for s in full.symbols}
    assert by_name["__muldf3"].component == "libgcc soft-float"
    assert by_name["kernel_scale"].component == "kernel"
    assert by_name["main"].component == "application"
    assert by_name["helper_sum"].component == "helpers"
    assert by_name["scratch"].section == ".bss" and by_name["scratch"].type == "OBJECT"
    assert by_name["scratch"].component == "application"
    assert by_name["_start"].component == "bsp"
    # Aliases are merged: one entry per piece of memory.
    keys = [(s.section, s.address, s.size) for s in full.symbols]
    assert len(keys) == len(set(keys))


def test_regions(report: SizeReport, builds) -> None:
    assert check_regions(report) == []
    usage = {u.region.name: u for u in report.regions}
    t = report.totals
    tbss = sum(s.size for s in report.alloc_sections if s.tls and s.type == "NOBITS")
    assert usage["ROM"].used == t["code"]  # .text, .rodata and the load image of .data
    assert usage["RAM"].used == t["data"] - tbss
    assert {(p.section, p.kind) for p in usage["ROM"].placements} >= {(".data", "lma")}
    # ld counts from the origin to the highest address used: at most alignment gaps more.
    ld = parse_memory_usage(builds["base"].memory_usage)
    for name in ("ROM", "RAM"):
        assert 0 <= ld[name] - usage[name].used < 32, (name, ld[name], usage[name].used)


def parse_memory_usage(text: str) -> dict[str, int]:
    units = {"B": 1, "KB": 1024, "MB": 1024 * 1024, "GB": 1024**3}
    out = {}
    for m in re.finditer(r"^\s*(\S+):\s+(\d+)\s+(B|KB|MB|GB)\s", text, re.MULTILINE):
        out[m.group(1)] = int(m.group(2)) * units[m.group(3)]
    return out


def test_region_overflow_is_caught(builds) -> None:
    b = builds["base"]
    small_rom = Region("ROM", ROM.origin, 4096)
    r = analyze(b.elf, b.map, regions=[small_rom, RAM], components=rules())
    errors = check_regions(r)
    assert any(".text" in e and "overflows region ROM" in e for e in errors), errors
    text_size = next(s.size for s in r.sections if s.name == ".text")
    assert f"by {text_size - 4096} bytes" in errors[0]
    # Sections beyond the shrunken region land nowhere: also an error.
    assert any(".rodata" in e and "outside every memory region" in e for e in errors)
    assert r.to_json()["errors"] == errors
    assert "error: " in format_text(r)


def test_diff_shows_change_in_right_component(builds) -> None:
    old = analyze(builds["base"].elf, builds["base"].map, components=rules()).to_json()
    new_report = analyze(builds["extra"].elf, builds["extra"].map, components=rules(), top=100)
    new = new_report.to_json()
    d = diff(old, new)
    assert d.changed
    first = d.components[0]
    assert first.name == "helpers" and first.delta > 0
    extra = next(s for s in new_report.symbols if s.name == "helper_extra")
    assert extra.component == "helpers"
    assert first.delta >= extra.size
    # Nothing else of substance moved; alignment padding may shift by a few bytes.
    for row in d.components[1:]:
        assert row.name == REMAINDER or row.delta == 0, row
    text_row = next(r for r in d.sections if r.name == ".text")
    total = next(r for r in d.totals if r.name == "alloc")
    assert text_row.delta == total.delta == new["totals"]["alloc"] - old["totals"]["alloc"]
    out = format_diff(d)
    assert "helpers" in out and f"+{first.delta}" in out
    # Sorted by absolute change.
    deltas = [abs(r.delta) for r in d.components]
    assert deltas == sorted(deltas, reverse=True)
    assert not diff(old, old).changed


def test_diff_refuses_bad_baselines(report: SizeReport) -> None:
    doc = report.to_json()
    with pytest.raises(SizeReportError, match="schema"):
        diff({**doc, "schema": "ireerv-size-report/99"}, doc)
    with pytest.raises(SizeReportError, match="malformed"):
        diff({"schema": SCHEMA}, doc)


def test_json_round_trip(report: SizeReport, tmp_path: Path) -> None:
    doc = report.to_json()
    assert doc["schema"] == SCHEMA
    again = json.loads(json.dumps(doc))
    assert again == doc
    assert doc["elf"] == "app.elf" and doc["map"] == "app.map"
    blob = json.dumps(doc)
    assert str(tmp_path.parent.parent) not in blob  # no machine paths
    alloc = doc["totals"]["alloc"]
    assert sum(c["size"] for c in doc["components"]) + doc["remainder"]["size"] == alloc


def test_without_map_everything_is_remainder(builds) -> None:
    r = analyze(builds["base"].elf, None, regions=[ROM, RAM])
    assert r.components == []
    assert r.remainder.unmapped == r.remainder.size == r.totals["alloc"]
    assert all(s.component is None for s in r.symbols)
    assert "no map file" in format_text(r)


def test_map_of_another_link_is_refused(builds) -> None:
    with pytest.raises(SizeReportError, match="another link"):
        analyze(builds["extra"].elf, builds["base"].map)


def test_unmatched_inputs_stay_visible(builds) -> None:
    r = analyze(builds["base"].elf, builds["base"].map, components=default_rules())
    rem = r.remainder
    assert rem.unattributed > 0
    assert {"app/main.o", "kernel/kernel.o", "bsp/start.o"} <= set(rem.inputs)
    assert "unattributed" in format_text(r)


def test_text_and_svg(report: SizeReport, tmp_path: Path) -> None:
    text = format_text(report)
    for word in ("Sections", "Components", "Memory regions", "Largest symbols", REMAINDER):
        assert word in text
    svg = tmp_path / "size.svg"
    write_svg(report, svg)
    root = ET.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    labels = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert {"libc", "helpers", REMAINDER} <= labels


def test_rule_parsing() -> None:
    r = ComponentRule.parse("kernel=member:matmul_lib*.o")
    assert r == ComponentRule("kernel", member="matmul_lib*.o")
    r = ComponentRule.parse("iree/{archive}=archive:libiree_*.a,path:*/runtime/*")
    assert r.archive == "libiree_*.a" and r.path == "*/runtime/*"
    for bad in ("kernel", "kernel=", "kernel=file:x.o", "=member:x.o"):
        with pytest.raises(ValueError):
            ComponentRule.parse(bad)
    with pytest.raises(ValueError, match="no pattern"):
        ComponentRule("x")


def test_cli(builds, tmp_path: Path) -> None:
    def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": str(SITE_SCONS)}
        cmd = [sys.executable, "-m", "ireerv.size.cli", *map(str, args)]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)

    base, extra = builds["base"], builds["extra"]
    baseline = tmp_path / "base.json"
    p = cli(base.elf, "--map", base.map, "--json", baseline, "--app", "app/*", "--top", "5")
    assert p.returncode == 0, p.stderr
    assert json.loads(baseline.read_text())["schema"] == SCHEMA
    # Regions default to the map's MEMORY block.
    assert [r["name"] for r in json.loads(baseline.read_text())["regions"]] == ["ROM", "RAM"]
    p = cli(
        extra.elf,
        "--map",
        extra.map,
        "--baseline",
        baseline,
        "--app",
        "app/*",
        "--rule",
        "helpers=archive:libhelpers.a",
        "--svg",
        tmp_path / "x.svg",
    )
    assert p.returncode == 0, p.stderr
    assert "Size change" in p.stdout and (tmp_path / "x.svg").is_file()
    p = cli(
        base.elf,
        "--map",
        base.map,
        "--region",
        "ROM:0x80000000:1024",
        "--region",
        "RAM:0x80100000:0x10000",
    )
    assert p.returncode == 1 and "overflows region ROM" in p.stderr
    p = cli(extra.elf, "--map", base.map)
    assert p.returncode == 2 and "another link" in p.stderr


def test_bad_elf(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.elf"
    bogus.write_bytes(b"not an elf")
    with pytest.raises(SizeReportError, match="not a valid ELF"):
        analyze(bogus)
    with pytest.raises(SizeReportError, match="cannot read"):
        analyze(tmp_path / "missing.elf")


def test_rule_names_per_archive(builds) -> None:
    b = builds["base"]
    r = analyze(b.elf, b.map, components=[ComponentRule("lib/{archive}", archive="lib*.a")])
    names = {c.name for c in r.components}
    assert names == {"lib/libhelpers.a", "lib/libc.a", "lib/libgcc.a"}


@pytest.mark.parametrize(
    "member, soft",
    [
        *[(m, True) for m in ("adddf3.o", "muldf3.o", "divdf3.o", "subsf3.o", "floatsidf.o")],
        *[(m, True) for m in ("floatunsidf.o", "floatundidf.o", "fixdfsi.o", "fixunsdfdi.o")],
        *[(m, True) for m in ("extendsfdf2.o", "truncdfsf2.o", "eqdf2.o", "unorddf2.o")],
        *[(m, True) for m in ("_addsub_df.o", "_df_to_si.o", "_si_to_df.o", "_mul_sf.o")],
        *[(m, False) for m in ("_udivdi3.o", "_clzsi2.o", "save-restore.o", "muldi3.o")],
        *[(m, False) for m in ("multi3.o", "div.o", "_muldc3.o", "_powidf2.o", "_clz.o")],
    ],
)
def test_soft_float_members(member: str, soft: bool) -> None:
    rule = next(r for r in default_rules() if r.name == "libgcc soft-float")
    assert rule.matches(InputFile("x/libgcc.a", member)) is soft
    assert not rule.matches(InputFile(f"x/{member}"))  # only inside libgcc.a
