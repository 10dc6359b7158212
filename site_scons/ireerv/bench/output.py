"""Writing and reading bench tables: bench.json, bench.md (markdown()) and bench.svg."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ireerv.bench.chart import render_svg
from ireerv.bench.table import RUNTIME_LABEL, BenchError, check_schema
from ireerv.util.files import atomic_write


def write(table: Mapping[str, Any], out_dir: str | Path) -> None:
    """bench.json, bench.md and bench.svg in out_dir; each appears complete or not at all."""
    check_schema(table)
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
    check_schema(table)
    return table


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
    check_schema(table)
    out = [f"# Bench: {table['model']} on {table['board']}, ours vs the reference work", ""]
    out += _cycles_md(table) + _images_md(table) + _sections_md(table["images"])
    from .calls import markdown as calls_markdown  # the per-call columns, when present

    text = "\n".join(out) + calls_markdown(table)
    if table.get("cap"):  # the cap on several harts (bench/cap.py), when measured
        from .cap import markdown as cap_markdown

        text += "\n" + cap_markdown(table["cap"])
    return text


def _cycles_md(table: Mapping[str, Any]) -> list[str]:
    metrics = {m["key"]: m["label"] for m in table["metrics"]}
    out = ["## Cycles", ""]
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
    return out + ["", f"- Reference: {ref['source']}.", *(f"- {n}" for n in ref["notes"]),
                  "- ours/ref below 1 means fewer cycles or bytes than the reference.", ""]


def _images_md(table: Mapping[str, Any]) -> list[str]:
    images = table["images"]
    out = ["## Image size", ""]
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
    ref_image = table["reference"]["image"]
    return out + ["", f"Reference image: {ref_image['code_and_data']:,} bytes code + "
                  f"initialised data, {ref_image['bss']:,} bss.", ""]


def _sections_md(images: list[Mapping[str, Any]]) -> list[str]:
    with_sections = [im for im in images if im["sections"]]
    if not with_sections:
        return []
    out = ["## Sections (bytes)", ""]
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
    return out + [""]


def _md_row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"
