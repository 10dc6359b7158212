"""The components of this project's images, for the size report.

Object names come from the image build: the kernel and the control program
are the files iree-compile's outputs compile to, the BSP lives under
build/<board>/bsp/, and the runner (with its parallel dispatcher, and the
library's API it calls the model through) and model data are the application;
hal_module.o and sync_device.o are IREE's HAL module and device, and
hal_inline_module.o and hal_loader_module.o its inline HAL's two modules, built
per image.
"""

from __future__ import annotations

from pathlib import Path

from ireerv.image import hal_exports
from ireerv.paths import PROJECT_ROOT
from ireerv.runtime import inline_hal
from ireerv.size import lto_map
from ireerv.size.analysis import analyze
from ireerv.size.report import SizeReport
from ireerv.size.rules import ComponentRule, default_rules

KERNEL_OBJECT = "model_kernel.o"
CONTROL_OBJECT = "model_module.o"
SOFT_FLOAT_DIR = "softfloat"  # build/<board>/softfloat/<choice>/


def rules() -> list[ComponentRule]:
    return [
        *default_rules(
            kernel=KERNEL_OBJECT,
            control=CONTROL_OBJECT,
            bsp=("*/bsp/*",),
            app=("*/runner.o", "*/parallel.o", "*/host_allocator.o", "*/staging.o",
                 "*/weight_cache.o", "*/ireerv.o", "*/arena.o",
                 "*/model_data.o", "*/plain.o"),
        ),
        # IREE's HAL module compiled per image with the program's imports alone
        # (image/hal_exports.py); the runtime library's copy is not linked.
        ComponentRule("HAL module", path=("*/hal_module.o",)),
        # The inline HAL's modules (runtime/inline_hal.py), in the HAL module's place.
        ComponentRule("inline HAL modules", path=tuple(f"*/{source[0]}" for source in
                                                       inline_hal.MODULE_SOURCES)),
        # The local-sync device and its command buffers, compiled per image without
        # the operations its program cannot reach (the same module).
        ComponentRule("HAL device", path=tuple(f"*/{obj}" for obj, _, _ in
                                                hal_exports.DEVICE_SOURCES)),
        # What link-time optimisation made of code several inputs define (size/lto_map.py).
        ComponentRule("LTO, several origins", path=(lto_map.PARTITION,)),
        # The SOFTFLOAT routines built here (RVfplib, fmaf); libgcc's have their own rule.
        ComponentRule("soft-float", path=(f"*/{SOFT_FLOAT_DIR}/*",)),
    ]


def report_for(elf: Path, map_file: Path | None, regions, top: int) -> SizeReport:
    """The size report of an image, attributed to this project's components."""
    return analyze(elf, map_file, regions=regions, components=rules(), top=top,
                              root=PROJECT_ROOT)
