"""Golden files: outputs whose exact form matters, compared byte for byte with committed copies.

Runs without the cross toolchain: the inputs (a small linked image with its
map, an iree-compile kernel header) are committed under tests/golden/.  After
an intended change of an output, regenerate the expected files with
`IREERV_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden.py` and
review the diff.
"""

from __future__ import annotations

import json

import pytest
from golden_files import GOLDEN, check_golden

from ireerv import boards
from ireerv import formats as models
from ireerv.image import runner_data
from ireerv.library import model_source
from ireerv.size.components import report_for
from ireerv.size.svg import render_svg
from ireerv.size.text import format_text

# The plain C matmul (N=4) linked for qemu-virt, with its map (paths normalised).
ELF, MAP = GOLDEN / "matmul-4-c.elf", GOLDEN / "matmul-4-c.map"


@pytest.fixture(scope="module")
def size_report():
    return report_for(ELF, MAP, list(boards.load_board("qemu-virt").memory), top=10)


def test_size_report_text(size_report) -> None:
    check_golden("size-report.txt", format_text(size_report) + "\n")


def test_size_report_json(size_report) -> None:
    check_golden("size-report.json", json.dumps(size_report.to_json(), indent=2) + "\n")


def test_size_report_svg(size_report) -> None:
    check_golden("size-report.svg", render_svg(size_report))


@pytest.mark.parametrize("board", boards.list_boards())
def test_linker_script(board: str) -> None:
    check_golden(f"{board}-link.ld", boards.linker_script(boards.load_board(board)))


@pytest.mark.parametrize("board", boards.list_boards())
def test_config_header(board: str) -> None:
    check_golden(f"{board}-{boards.CONFIG_HEADER}", boards.config_header(boards.load_board(board)))


def test_model_data() -> None:
    model = models.load_model("matmul")
    arrays = model.generate_inputs(4)
    text = runner_data.model_source(
        "module", model.function, arrays,
        library_queries=runner_data.library_queries((GOLDEN / "model_kernel.h").read_text()),
        repeat=2, name=model_source.c_name(model.name),
        tensors=model_source.inputs(model, 4, arrays),
        # The model's own MLIR, as SHAPES=dynamic compiles it: the result's shape is the call's.
        outputs=model_source.outputs(model, model.mlir.read_text(), dynamic=True))
    check_golden("matmul-4-model_data.c", text)
