"""Command line: `python -m ireerv.size.cli app.elf --map app.map [--json ...] [--svg ...]`."""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ireerv.size import mapfile
from ireerv.size.analysis import analyze
from ireerv.size.diff import diff, format_diff
from ireerv.size.report import SizeReportError
from ireerv.size.rules import ComponentRule, default_rules
from ireerv.size.svg import write_svg
from ireerv.size.text import format_text
from ireerv.util.files import atomic_write
from ireerv.util.memory import Region


def _region(text: str) -> Region:
    try:
        name, origin, length = text.split(":")
        return Region(name, int(origin, 0), int(length, 0))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME:ORIGIN:LENGTH") from None


def _rule(text: str) -> ComponentRule:
    try:
        return ComponentRule.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ireerv.size.cli",
        description="Size report of a linked image. Exit status 1 when a memory region "
        "overflows, 2 on bad input.",
    )
    p.add_argument("elf", type=Path)
    p.add_argument("--map", type=Path, help="GNU ld map file of the same link")
    p.add_argument("--json", type=Path, help="write the report as JSON here")
    p.add_argument("--svg", type=Path, help="write a bar chart of the components here")
    p.add_argument("--top", type=int, default=20, help="how many symbols to list (20)")
    p.add_argument("--baseline", type=Path, help="report JSON to compare against")
    p.add_argument(
        "--region",
        type=_region,
        action="append",
        default=[],
        metavar="NAME:ORIGIN:LENGTH",
        help="memory region (repeatable); default: the map's MEMORY regions",
    )
    p.add_argument("--kernel", help="object file name pattern of the generated kernel")
    p.add_argument("--control", help="object file name pattern of the vm-c module")
    p.add_argument("--bsp", help="path pattern of board support objects")
    p.add_argument("--app", help="path pattern of application objects")
    p.add_argument(
        "--rule",
        type=_rule,
        action="append",
        default=[],
        metavar="NAME=FIELD:PATTERN",
        help="extra component rule, tried before the standard ones (repeatable)",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    rules = args.rule + default_rules(
        kernel=args.kernel, control=args.control, bsp=args.bsp, app=args.app
    )
    try:
        regions = args.region
        if not regions and args.map is not None:
            regions = mapfile.load(args.map).memory
        report = analyze(args.elf, args.map, regions=regions, components=rules, top=args.top)
        doc = report.to_json()
        text = format_text(report)
        if args.baseline is not None:
            try:
                baseline = json.loads(args.baseline.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise SizeReportError(f"cannot read baseline {args.baseline}: {e}") from e
            text += "\n" + format_diff(diff(baseline, doc))
        if args.json is not None:
            atomic_write(args.json, json.dumps(doc, indent=2) + "\n")
        if args.svg is not None:
            write_svg(doc, args.svg)
    except (SizeReportError, mapfile.MapFileError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    errors = doc["errors"]
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    return 1 if errors else 0




if __name__ == "__main__":
    sys.exit(main())
