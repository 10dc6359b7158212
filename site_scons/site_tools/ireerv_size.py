"""scons size-report: where every byte of an image goes.

Adds env.SizeReport(image_or_None): prints the report, writes it as JSON and
SVG beside the ELF, diffs against BASELINE, and fails on a region overflow.
"""

from __future__ import annotations

import json
from pathlib import Path

import SCons.Action
import SCons.Errors

from ireerv.size.components import report_for
from ireerv.size.diff import diff, format_diff
from ireerv.size.report import SizeReportError, check_regions
from ireerv.size.svg import write_svg
from ireerv.size.text import format_text


def _size_report(target, source, env):
    elf = Path(str(source[0]))
    map_file = Path(str(source[1])) if len(source) > 1 else None
    board = env.get("_BOARD_OBJ")
    regions = list(board.memory) if board else []
    try:
        report = report_for(elf, map_file, regions, int(env["TOP"]))
    except (SizeReportError, OSError) as err:
        raise SCons.Errors.BuildError(errstr=f"size report of {elf}: {err}") from None
    data = report.to_json()
    json_path, svg_path = (Path(str(t)) for t in target)
    json_path.write_text(json.dumps(data, indent=2) + "\n")
    write_svg(report, svg_path)
    print(format_text(report))
    if env["BASELINE"]:
        try:
            baseline = json.loads(Path(env["BASELINE"]).read_text())
            print(format_diff(diff(baseline, data)))
        except (OSError, ValueError, SizeReportError) as err:
            raise SCons.Errors.BuildError(errstr=f"BASELINE {env['BASELINE']}: {err}") from None
    print(f"size-report: {json_path}, {svg_path}")
    problems = check_regions(report)
    if problems:
        raise SCons.Errors.BuildError(errstr="memory overflow:\n  " + "\n  ".join(problems))


def size_report(env, image=None):
    action = SCons.Action.Action(_size_report, None)
    if env["ELF"]:
        elf = Path(env["ELF"])
        if not elf.is_file():
            raise SCons.Errors.UserError(f"ELF={elf} does not exist")
        map_file = next((m for m in (elf.with_suffix(".map"), Path(f"{elf}.map")) if m.is_file()),
                        None)
        sources = [str(elf.resolve()), *([str(map_file.resolve())] if map_file else [])]
        targets = [f"{elf}.size.json", f"{elf}.size.svg"]
        node = env.Command(targets, sources, action, _BOARD_OBJ=None)
    else:
        targets = [f"{image.dir}/size-report.json", f"{image.dir}/size-report.svg"]
        node = env.Command(targets, [image.elf, image.map], action, _BOARD_OBJ=image.board)
    env.AlwaysBuild(node)  # it prints the report: asking for it shows it
    return node


def generate(env) -> None:
    env.AddMethod(size_report, "SizeReport")


def exists(env) -> bool:
    return True
