"""The bench: matmul cycles and image sizes on the cluster, next to the reference work's figures.

collect() turns the run records of `scons run` (one JSON dict per image) and the ELF files of
those images into one table; write() saves it as bench.json, bench.md and bench.svg;
markdown() and render_svg() work on the table alone, so a saved bench.json can be drawn again.

A run that failed, or whose record is missing, still gets its row: its values are null ("—")
and the reason is kept beside them.

JSON schema "ireerv-bench/1" (cycles and bytes as integers, ratios as ours / reference):

    {
      "schema": "ireerv-bench/1",
      "model": "matmul", "board": "cluster4",
      "metrics": [{"key": "startup", "label": "runtime start-up"}, ...],
      "rows": [                                   # one per size, smallest first
        {"size": 4,
         "runs": {"iree": Run, "none": Run},     # the two images of this size
         "cells": {"startup" | "first_call" | "later_call" | "plain_c":
                     {"ours": int | null, "reference": int | null,
                      "ratio": float | null, "note": str | null}},
         "notes": [str]}],                        # why a value is missing
      "images": [                                 # one per ELF, by size then runtime
        {"key": "4-iree", "size": 4, "runtime": "iree", "elf": "app.elf" | null,
         "status": "ok" | "missing" | "error", "reason": str | null,
         "sections": [{"name": str, "size": int, "memory": "code" | "both" | "data"}],
         "totals": {"alloc", "code", "data", "text", "data_init", "bss"} | null,
         "code_and_data": int | null, "bss": int | null,
         "reference": {"code_and_data": int, "bss": int} | null,   # IREE images only
         "ratio": {"code_and_data": float | null, "bss": float | null} | null}],
      "reference": {"source": str, "cycles": [{"size", "startup", "iree_call", "plain_c"}],
                    "image": {"code_and_data": int, "bss": int}, "notes": [str]}
    }

    Run = {"status": "passed" | "failed" | "missing", "reason": str | null,
           "seconds": float | null, "startup_cycles": int | null,
           "input_cycles": int | null, "call_cycles": [int]}
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from ireerv.size.svg import svg_text
from ireerv.util.files import atomic_write

SCHEMA = "ireerv-bench/1"
MODEL = "matmul"
BOARD = "cluster4"
RUNTIMES = ("iree", "none")
RUNTIME_LABEL = {"iree": "IREE", "none": "plain C"}

# The reference work's figures: cycles on the cluster model, and its matmul image.
REFERENCE_SOURCE = (
    "blog series on IREE on a bare-metal RISC-V cluster "
    "(IREE 3.10.0rc20251128, CORE-V GCC 14.1, newlib)"
)
REFERENCE_CYCLES: dict[int, dict[str, int]] = {
    4: {"startup": 492_851, "iree_call": 1_202_005, "plain_c": 64_461},
    16: {"startup": 492_856, "iree_call": 6_535_215, "plain_c": 3_904_653},
    32: {"startup": 492_856, "iree_call": 23_898_480, "plain_c": 30_996_521},
}
REFERENCE_IMAGE = {"code_and_data": 1_105_394, "bss": 11_536}
REFERENCE_NOTES = [
    "The reference gives one figure per IREE call; it is set beside both our first call "
    "and our last call.",
    "The reference image size is that of its IREE matmul image; plain C images have none.",
]

# (key, label, which reference figure it is compared with)
METRICS: tuple[tuple[str, str, str], ...] = (
    ("startup", "runtime start-up", "startup"),
    ("first_call", "first IREE call", "iree_call"),
    ("later_call", "later IREE call", "iree_call"),
    ("plain_c", "plain C triple loop", "plain_c"),
)

MISSING_RUN = "no run result (the run failed or was not built)"


class BenchError(ValueError):
    """Bad input: a malformed run record, a size key not of the form <N>-<runtime>, a table
    of another schema."""


# --------------------------------------------------------------------------- collecting


def collect(
    results: Iterable[Mapping[str, Any]],
    sizes: Mapping[str, str | Path],
    *,
    model: str = MODEL,
    board: str = BOARD,
) -> dict[str, Any]:
    """The bench table from run records and the images' ELF files ("<N>-<runtime>" -> path).

    Records of another model or board are left out; when two records name the same image,
    the later one counts.
    """
    runs: dict[tuple[int, str], Mapping[str, Any]] = {}
    for record in results:
        if not isinstance(record, Mapping):
            raise BenchError(f"run record is a {type(record).__name__}, not a JSON object")
        if record.get("model") != model or record.get("board") != board:
            continue
        runs[(_size_of(record), _runtime_of(record))] = record

    images = [_image(key, Path(path)) for key, path in _sorted_sizes(sizes)]
    all_sizes = sorted(
        set(REFERENCE_CYCLES) | {s for s, _ in runs} | {int(i["size"]) for i in images}
    )
    return {
        "schema": SCHEMA,
        "model": model,
        "board": board,
        "metrics": [{"key": k, "label": label} for k, label, _ in METRICS],
        "rows": [_row(n, runs.get((n, "iree")), runs.get((n, "none"))) for n in all_sizes],
        "images": images,
        "reference": {
            "source": REFERENCE_SOURCE,
            "cycles": [{"size": n, **figs} for n, figs in sorted(REFERENCE_CYCLES.items())],
            "image": dict(REFERENCE_IMAGE),
            "notes": list(REFERENCE_NOTES),
        },
    }


def _size_of(record: Mapping[str, Any]) -> int:
    size = record.get("size")
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise BenchError(f"run record has no valid size: {size!r} (record {_brief(record)})")
    return size


def _runtime_of(record: Mapping[str, Any]) -> str:
    runtime = record.get("runtime")
    if runtime not in RUNTIMES:
        raise BenchError(
            f"run record has runtime {runtime!r}; expected one of {', '.join(RUNTIMES)} "
            f"(record {_brief(record)})"
        )
    return str(runtime)


def _brief(record: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={record.get(k)!r}" for k in ("model", "board", "size", "runtime"))


def _cycles(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _run(record: Mapping[str, Any] | None) -> dict[str, Any]:
    if record is None:
        return {"status": "missing", "reason": MISSING_RUN, "seconds": None,
                "startup_cycles": None, "input_cycles": None, "call_cycles": []}  # fmt: skip
    calls = record.get("call_cycles") or []
    passed = record.get("passed") is True
    reason = None
    if not passed:
        problems = [str(p) for p in record.get("problems") or []]
        why = "; ".join(problems) or " ".join(
            str(record.get(k)) for k in ("reason", "detail") if record.get(k)
        )
        reason = f"run failed: {why or 'no reason given'}"
    seconds = record.get("seconds")
    return {
        "status": "passed" if passed else "failed",
        "reason": reason,
        "seconds": float(seconds) if isinstance(seconds, int | float) else None,
        "startup_cycles": _cycles(record.get("startup_cycles")),
        "input_cycles": _cycles(record.get("input_cycles")),
        "call_cycles": [c for c in map(_cycles, calls if isinstance(calls, list) else [])
                        if c is not None],
    }  # fmt: skip


def _row(
    size: int, iree: Mapping[str, Any] | None, plain: Mapping[str, Any] | None
) -> dict[str, Any]:
    runs = {"iree": _run(iree), "none": _run(plain)}
    ref = REFERENCE_CYCLES.get(size, {})
    notes: list[str] = []
    cells: dict[str, dict[str, Any]] = {}
    for key, _, ref_key in METRICS:
        runtime = "none" if key == "plain_c" else "iree"
        run = runs[runtime]
        ours, note = None, run["reason"]
        if run["status"] == "passed":
            ours, note = _value(key, run)
        reference = ref.get(ref_key)
        cells[key] = {"ours": ours, "reference": reference, "ratio": _ratio(ours, reference),
                      "note": note}  # fmt: skip
        if note is not None:
            text = f"{RUNTIME_LABEL[runtime]}: {note}"
            if text not in notes:
                notes.append(text)
    return {"size": size, "runs": runs, "cells": cells, "notes": notes}


def _value(key: str, run: Mapping[str, Any]) -> tuple[int | None, str | None]:
    """Our figure for one metric of a passed run, or why there is none."""
    calls = run["call_cycles"]
    if key == "startup":
        value = run["startup_cycles"]
        return value, None if value is not None else "no start-up cycle count printed"
    if key == "later_call" and len(calls) == 1:
        return None, "only one call was made"
    if not calls:
        return None, "no call cycle count printed"
    return (calls[-1] if key == "later_call" else calls[0]), None


def _ratio(ours: int | None, reference: int | None) -> float | None:
    if ours is None or not reference:
        return None
    return round(ours / reference, 4)


def _sorted_sizes(sizes: Mapping[str, str | Path]) -> list[tuple[str, str | Path]]:
    def order(item: tuple[str, str | Path]) -> tuple[int, int, str]:
        size, runtime = _split_key(item[0])
        return size, RUNTIMES.index(runtime) if runtime in RUNTIMES else len(RUNTIMES), runtime

    return sorted(sizes.items(), key=order)


def _split_key(key: str) -> tuple[int, str]:
    size, sep, runtime = str(key).partition("-")
    if not sep or not size.isdigit() or not runtime:
        raise BenchError(f"image key {key!r} is not of the form <N>-<runtime>, e.g. 4-iree")
    return int(size), runtime


def _image(key: str, elf: Path) -> dict[str, Any]:
    from ireerv.size.analysis import analyze
    from ireerv.size.report import SizeReportError

    size, runtime = _split_key(key)
    is_iree = runtime == "iree"
    entry: dict[str, Any] = {
        "key": key, "size": size, "runtime": runtime, "elf": elf.name or None,
        "status": "ok", "reason": None, "sections": [], "totals": None,
        "code_and_data": None, "bss": None,
        "reference": dict(REFERENCE_IMAGE) if is_iree else None,
        "ratio": {"code_and_data": None, "bss": None} if is_iree else None,
    }  # fmt: skip
    if not elf.is_file():
        entry.update(status="missing", reason=f"image not built: {elf.name or elf}")
        return entry
    try:
        report = analyze(elf, None, top=0).to_json()
    except SizeReportError as err:
        entry.update(status="error", reason=str(err).replace(str(elf), elf.name))
        return entry
    totals = report["totals"]
    entry.update(
        sections=[{"name": s["name"], "size": s["size"], "memory": s["memory"]}
                  for s in report["sections"] if s["memory"] != "none"],
        totals=totals, code_and_data=totals["code"], bss=totals["bss"],
    )  # fmt: skip
    if is_iree:
        entry["ratio"] = {k: _ratio(entry[k], REFERENCE_IMAGE[k]) for k in REFERENCE_IMAGE}
    return entry


# --------------------------------------------------------------------------- writing


def write(table: Mapping[str, Any], out_dir: str | Path) -> None:
    """bench.json, bench.md and bench.svg in out_dir; each appears complete or not at all."""
    _check(table)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, text in (
        ("bench.json", json.dumps(table, indent=2) + "\n"),
        ("bench.md", markdown(table)),
        ("bench.svg", render_svg(table)),
    ):
        atomic_write(out / name, text)


def load(path: str | Path) -> dict[str, Any]:
    """A saved bench.json; refuses other schemas."""
    try:
        table = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise BenchError(f"cannot read {path}: {err}") from err
    _check(table)
    return table


def _check(table: Any) -> None:
    got = table.get("schema") if isinstance(table, Mapping) else type(table).__name__
    if got != SCHEMA:
        raise BenchError(f"bench table has schema {got!r}; expected {SCHEMA!r}")


def _num(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _times(ratio: float | None) -> str:
    return "—" if ratio is None else f"{ratio:.2f}×"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _image_label(image: Mapping[str, Any]) -> str:
    return f"N={image['size']} {RUNTIME_LABEL.get(image['runtime'], image['runtime'])}"


def markdown(table: Mapping[str, Any]) -> str:
    """The table as Markdown: cycles per size, image sizes, sections per image."""
    _check(table)
    metrics = {m["key"]: m["label"] for m in table["metrics"]}
    out = [f"# Bench: {table['model']} on {table['board']}, ours vs the reference work", "",
           "## Cycles", ""]  # fmt: skip
    head = ["N"]
    for label in metrics.values():
        head += [label, "reference", "ours/ref"]
    head.append("notes")
    out += [_md_row(head), _md_row(["---:"] * (len(head) - 1) + ["---"])]
    for row in table["rows"]:
        line = [f"{row['size']}×{row['size']}"]
        for key in metrics:
            c = row["cells"][key]
            line += [_num(c["ours"]), _num(c["reference"]), _times(c["ratio"])]
        line.append(_cell("; ".join(row["notes"])))
        out.append(_md_row(line))
    ref = table["reference"]
    out += ["", f"- Reference: {ref['source']}.", *(f"- {n}" for n in ref["notes"]),
            "- ours/ref below 1 means fewer cycles or bytes than the reference.", ""]  # fmt: skip

    images = table["images"]
    out += ["## Image size", ""]
    head = ["image", "code + data", "reference", "ours/ref", "bss", "reference", "ours/ref",
            "notes"]  # fmt: skip
    out += [_md_row(head), _md_row(["---"] + ["---:"] * 6 + ["---"])]
    for im in images:
        r, q = im["reference"] or {}, im["ratio"] or {}
        out.append(_md_row([
            _image_label(im), _num(im["code_and_data"]), _num(r.get("code_and_data")),
            _times(q.get("code_and_data")), _num(im["bss"]), _num(r.get("bss")),
            _times(q.get("bss")), _cell(im["reason"] or ""),
        ]))  # fmt: skip
    if not images:
        out.append("(no images)")
    out += ["", f"Reference image: {REFERENCE_IMAGE['code_and_data']:,} bytes code + "
            f"initialised data, {REFERENCE_IMAGE['bss']:,} bss.", ""]  # fmt: skip

    with_sections = [im for im in images if im["sections"]]
    if with_sections:
        out += ["## Sections (bytes)", ""]
        names: dict[str, str] = {}
        for im in with_sections:
            for s in im["sections"]:
                names.setdefault(s["name"], s["memory"])
        head = ["section", "memory"] + [_image_label(im) for im in with_sections]
        out += [_md_row(head), _md_row(["---", "---"] + ["---:"] * len(with_sections))]
        kinds = {"code": "code", "both": "code + data", "data": "data"}
        for name, memory in names.items():
            sizes = [{s["name"]: s["size"] for s in im["sections"]}.get(name)
                     for im in with_sections]  # fmt: skip
            out.append(_md_row([f"`{name}`", kinds.get(memory, memory), *map(_num, sizes)]))
        out.append("")
    return "\n".join(out)


def _md_row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"


# --------------------------------------------------------------------------- chart

COLOURS = {"startup": "#4e79a7", "first_call": "#f28e2b", "later_call": "#e15759",
           "plain_c": "#59a14f"}  # fmt: skip
BAR_W = 22
PAIR_GAP = 8  # between the metrics of one size
GROUP_GAP = 36  # between sizes
LEFT, RIGHT = 70, 20
TITLE_H = 92  # title, subtitle, legend
PLOT_H = 340
HEADROOM = 44  # above the highest decade, for the value labels
BOTTOM = 64  # ratio labels, size labels, axis title
CHAR_W = 6.0


def _short(value: int) -> str:
    """A compact figure for a bar label: 64.5k, 1.20M, 31.0M."""
    if value >= 10_000_000:
        return f"{value / 1e6:.1f}M"
    if value >= 1_000_000:
        return f"{value / 1e6:.2f}M"
    if value >= 1_000:
        return f"{value / 1e3:.1f}k"
    return str(value)


def _decade_label(exp: int) -> str:
    value = 10**exp
    for unit, div in (("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if value >= div:
            return f"{value // div}{unit}"
    return str(value)


def render_svg(table: Mapping[str, Any]) -> str:
    """Grouped bars per size on a log scale: ours (solid) and the reference (pale) per metric.

    Every bar is a <rect class="bar"> with its figure as a label and a tooltip; a missing
    figure gets a grey <text class="missing"> mark instead, whose tooltip gives the reason.
    """
    _check(table)
    metrics = [(m["key"], m["label"]) for m in table["metrics"]]
    rows = table["rows"]
    values = [v for row in rows for key, _ in metrics
              for v in (row["cells"][key]["ours"], row["cells"][key]["reference"])
              if v is not None and v > 0]  # fmt: skip
    lo = math.floor(math.log10(min(values))) if values else 4
    hi = math.ceil(math.log10(max(values))) if values else 8
    hi = max(hi, lo + 1)

    pair_w = 2 * BAR_W
    group_w = len(metrics) * pair_w + (len(metrics) - 1) * PAIR_GAP
    plot_w = max(len(rows), 1) * (group_w + GROUP_GAP)
    width = LEFT + plot_w + RIGHT
    width = max(width, 640)
    y0 = TITLE_H + HEADROOM  # the top decade
    base = y0 + PLOT_H  # the bottom decade: the x axis
    height = base + BOTTOM

    def y_of(v: int) -> float:
        if v <= 0:
            return base
        return base - (math.log10(v) - lo) / (hi - lo) * PLOT_H

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        svg_text(LEFT, 22, f"{table['model']} on {table['board']}: cycles, ours vs the reference "
              "work", size=15, weight="bold"),
        svg_text(LEFT, 40, "solid bars: ours, pale bars: the reference; ratio ours/reference "
              "under each pair; log scale", fill="#555"),
    ]  # fmt: skip
    # Legend: one swatch per metric, then what solid and pale mean.
    x = float(LEFT)
    for key, label in metrics:
        out.append(f'<rect x="{x:.1f}" y="54" width="12" height="12" fill="{COLOURS[key]}"/>')
        out.append(svg_text(x + 16, 64, label))
        x += 16 + len(label) * CHAR_W + 18
    x = float(LEFT)
    for label, opacity in (("ours", 1.0), ("reference", 0.35)):
        out.append(f'<rect x="{x:.1f}" y="72" width="12" height="12" fill="#666" '
                   f'fill-opacity="{opacity}" stroke="#666"/>')  # fmt: skip
        out.append(svg_text(x + 16, 82, label))
        x += 16 + len(label) * CHAR_W + 18

    # Axes and decade grid lines.
    for exp in range(lo, hi + 1):
        y = y_of(10**exp)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" '
                   f'stroke="{"#999" if exp == lo else "#e3e3e3"}"/>')  # fmt: skip
        out.append(svg_text(LEFT - 6, y + 4, _decade_label(exp), anchor="end"))
    out.append(f'<line x1="{LEFT}" y1="{y0}" x2="{LEFT}" y2="{base}" stroke="#999"/>')
    mid = (y0 + base) / 2
    out.append(f'<text x="16" y="{mid:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 16 {mid:.1f})">cycles (log scale)</text>')  # fmt: skip

    for i, row in enumerate(rows):
        gx = LEFT + GROUP_GAP / 2 + i * (group_w + GROUP_GAP)
        n = row["size"]
        for j, (key, label) in enumerate(metrics):
            px = gx + j * (pair_w + PAIR_GAP)
            cell = row["cells"][key]
            for k, (who, value) in enumerate((("ours", cell["ours"]),
                                              ("reference", cell["reference"]))):  # fmt: skip
                bx = px + k * BAR_W
                what = f"N={n}, {label}, {who}"
                if value is None:
                    # Where the bar would be: a grey mark, why it is missing on hover.
                    why = cell["note"] if who == "ours" else "no reference figure"
                    status = row["runs"]["none" if key == "plain_c" else "iree"]["status"]
                    mark = "—" if who == "reference" else {
                        "failed": "— failed", "missing": "— no run"}.get(status, "—")
                    lx, ly = bx + BAR_W / 2 + 3, base - 4
                    out.append(
                        f'<text class="missing" x="{lx:.1f}" y="{ly:.1f}" font-size="10" '
                        f'fill="#888" transform="rotate(-90 {lx:.1f} {ly:.1f})">{escape(mark)}'
                        f"<title>{escape(f'{what}: {why}')}</title></text>"
                    )
                    continue
                top = y_of(value)
                opacity = "1" if who == "ours" else "0.35"
                out.append(
                    f'<rect class="bar" data-size="{n}" data-metric="{key}" data-who="{who}" '
                    f'data-value="{value}" x="{bx:.1f}" y="{top:.1f}" width="{BAR_W - 2}" '
                    f'height="{base - top:.1f}" fill="{COLOURS[key]}" fill-opacity="{opacity}" '
                    f'stroke="{COLOURS[key]}"><title>{escape(f"{what}: {value:,} cycles")}'
                    "</title></rect>"
                )
                lx, ly = bx + BAR_W / 2 + 3, top - 4
                out.append(f'<text x="{lx:.1f}" y="{ly:.1f}" font-size="10" '
                           f'transform="rotate(-90 {lx:.1f} {ly:.1f})">{_short(value)}</text>')
            ratio = cell["ratio"]
            out.append(svg_text(px + pair_w / 2 - 1, base + 14,
                             "—" if ratio is None else f"{ratio:.2f}×", anchor="middle",
                             size=9, fill="#444"))  # fmt: skip
        out.append(svg_text(gx + group_w / 2, base + 32, f"N = {n} ({n}×{n} f32)",
                         anchor="middle", weight="bold"))  # fmt: skip
    out.append(svg_text(LEFT + plot_w / 2, base + 54, "matrix size", anchor="middle",
                     fill="#555"))  # fmt: skip
    out.append("</svg>")
    return "\n".join(out) + "\n"
