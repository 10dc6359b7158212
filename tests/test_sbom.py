"""Every release carries a CycloneDX bill of materials and a licence report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
from scons_helpers import copy_project, scons

from ireerv.inputs.lock import Lock


@pytest.mark.upstream
def test_the_bill_names_every_input_and_validates(tmp_path: Path, toolchain, lock: Lock) -> None:
    tree = copy_project(tmp_path / "src")
    scons(tree, "release", "MODEL=matmul", "RUNTIME=none", "BOARD=qemu-virt", "ALLOW_DIRTY=1")
    (folder,) = (tree / "dist").iterdir()
    text = (folder / "sbom.cdx.json").read_text()
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(text) is None
    bom = json.loads(text)
    by_ref = {c["bom-ref"]: c for c in bom["components"]}
    for name, pin in lock.inputs.items():
        component = by_ref[f"input:{name}"]
        assert component["licenses"][0]["expression"] == pin.license
    iree = by_ref["input:iree"]
    assert iree["hashes"][0]["content"] == lock.input("iree").commit
    assert any("iree-sync-inline-one-shot.patch" in p["diff"]["url"]
               for p in iree["pedigree"]["patches"])
    assert "python:numpy" in by_ref and "image: libc" in {c["name"] for c in bom["components"]}
    assert bom["metadata"]["timestamp"].startswith("20")  # the commit's time, not now
    licences = (folder / "licences.md").read_text()
    assert "| image: libgcc | GPL-3.0-or-later WITH GCC-exception-3.1 |" in licences
    assert "sbom.cdx.json" in (folder / "SHA256SUMS").read_text()
    # Byte for byte across checkouts: test_scons.py's release test compares every file.
