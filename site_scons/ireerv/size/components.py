"""The components of this project's images, for the size report.

Object names come from the image build: the kernel and the control program
are the files iree-compile's outputs compile to, the BSP lives under
build/<board>/bsp/, and the runner and model data are the application.
"""

from __future__ import annotations

from pathlib import Path

from ireerv.paths import PROJECT_ROOT
from ireerv.size import sizereport

KERNEL_OBJECT = "model_kernel.o"
CONTROL_OBJECT = "model_module.o"


def rules() -> list[sizereport.ComponentRule]:
    return sizereport.default_rules(
        kernel=KERNEL_OBJECT,
        control=CONTROL_OBJECT,
        bsp=("*/bsp/*",),
        app=("*/runner.o", "*/model_data.o", "*/plain.o"),
    )


def report_for(elf: Path, map_file: Path | None, regions, top: int) -> sizereport.SizeReport:
    """The size report of an image, attributed to this project's components."""
    return sizereport.analyze(elf, map_file, regions=regions, components=rules(), top=top,
                              root=PROJECT_ROOT)
