"""Golden files: committed expected outputs, compared byte for byte.  After an intended
change, regenerate them with IREERV_UPDATE_GOLDEN=1 and review the diff."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("IREERV_UPDATE_GOLDEN") == "1"


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(actual)
    expected = path.read_text()
    if actual != expected:
        lines = zip(actual.splitlines(), expected.splitlines(), strict=False)
        first = next((i for i, (a, e) in enumerate(lines, 1) if a != e), None)
        pytest.fail(f"{name} differs from tests/golden/{name} (first at line {first}); if the "
                    "change is intended, regenerate with IREERV_UPDATE_GOLDEN=1 and review")
