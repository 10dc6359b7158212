"""scons size-report: where every byte of an image goes.

Adds env.SizeReportFiles(image) -> [json, svg, txt] beside the image (for ELF=,
in build/size-report/), rebuilt when the image changes (the release takes its
JSON), and env.SizeReport(image or None for ELF=): prints the report, diffs
against BASELINE and fails on a region overflow.
"""

from __future__ import annotations

import json
from pathlib import Path

from ireerv import size, targets
from ireerv.paths import BUILD
from ireerv.size.components import report_for
from ireerv.size.diff import diff, format_diff
from ireerv.size.elf_kind import check_riscv32
from ireerv.size.report import SizeReportError
from ireerv.size.svg import write_svg
from ireerv.size.text import format_text
from ireerv.targets import Target
from ireerv.util.files import atomic_write
from ireerv.util.scons import build_error, short_action, user_error

# The modules that read the ELF and map and write the report: sources of every report.
SIZE_LOGIC = sorted(str(p) for p in Path(size.__file__).parent.glob("*.py"))


def _write_files(target, source, env):
    elf = Path(str(source[0]))
    map_file = Path(str(source[1])) if len(source) > 1 else None
    board = env.get("BOARD_SPEC")
    try:
        report = report_for(elf, map_file, list(board.memory) if board else [], int(env["TOP"]))
    except (SizeReportError, OSError) as err:
        build_error(SizeReportError(f"size report of {elf}: {err}"))
    json_path, svg_path, text_path = (Path(str(t)) for t in target)
    atomic_write(json_path, json.dumps(report.to_json(), indent=2) + "\n")
    write_svg(report, svg_path)
    atomic_write(text_path, format_text(report) + "\n")


def size_report_files(env, image=None) -> list:
    """The report as JSON, SVG and text files, for an image or for ELF=."""
    if image is None:
        elf = Path(env["ELF"])
        if not elf.is_file():
            user_error(FileNotFoundError(f"ELF={elf} does not exist"))
        try:
            check_riscv32(elf, f"ELF={elf}")
        except SizeReportError as err:
            user_error(err)
        map_file = next((m for m in (elf.with_suffix(".map"), Path(f"{elf}.map")) if m.is_file()),
                        None)
        sources = [str(elf.resolve()), *([str(map_file.resolve())] if map_file else [])]
        # Under build/, never beside the ELF (which may be anywhere, even read-only).
        stem, board = f"{BUILD}/size-report/{elf.name}.size", None
    else:
        sources, stem, board = [image.elf, image.map], f"{image.dir}/size-report", image.board
    node = env.Command([f"{stem}.json", f"{stem}.svg", f"{stem}.txt"], sources,
                       short_action(_write_files, "SIZE"), BOARD_SPEC=board,
                       varlist=["TOP"])
    env.Depends(node, SIZE_LOGIC)  # new component rules or formats make a new report
    return node


def _show(target, source, env):
    json_path, svg_path, text_path = (Path(str(s)) for s in source)
    print(text_path.read_text(), end="")
    data = json.loads(json_path.read_text())
    if env["BASELINE"]:
        try:
            baseline = json.loads(Path(env["BASELINE"]).read_text())
            print(format_diff(diff(baseline, data)))
        except (OSError, ValueError, SizeReportError) as err:
            build_error(SizeReportError(f"BASELINE {env['BASELINE']}: {err}"))
    print(f"size-report: {json_path}, {svg_path}")
    problems = data["errors"]
    if problems:
        build_error(SizeReportError("memory overflow:\n  " + "\n  ".join(problems)))


def size_report(env, image=None):
    node = env.Alias("size-report-show", size_report_files(env, image),
                     env.Action(_show, None))
    env.AlwaysBuild(node)  # it prints the report: asking for it shows it
    return node


def generate(env) -> None:
    env.AddMethod(size_report_files, "SizeReportFiles")
    env.AddMethod(size_report, "SizeReport")
    targets.declare(env, Target(
        "size-report", "report the image's size per section, component, region and symbol",
        "measure", lambda env, request: env.SizeReport(None if env["ELF"] else request.image)))


def exists(env) -> bool:
    return True
