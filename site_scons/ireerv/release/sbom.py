"""The release's software bill of materials (CycloneDX 1.6 JSON) and its licence report.

Written and validated with the maintained cyclonedx-python-lib: every input of
toolchain.lock (version, hash, source, licence, the patches applied to it), the
Python packages of the build environment, and what the image links, by component,
with its licence.  Reproducible like the rest of the release: the serial number
comes from the outputs' hashes and the time from SOURCE_DATE_EPOCH.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cyclonedx.model import (
    ExternalReference,
    ExternalReferenceType,
    HashAlgorithm,
    HashType,
    Property,
    XsUri,
)
from cyclonedx.model.bom import Bom, BomMetaData
from cyclonedx.model.component import (
    Component,
    ComponentType,
    Diff,
    Patch,
    PatchClassification,
    Pedigree,
)
from cyclonedx.model.license import LicenseExpression
from cyclonedx.output import make_outputter
from cyclonedx.schema import OutputFormat, SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
from packageurl import PackageURL

SCHEMA = SchemaVersion.V1_6
UNKNOWN = "NOASSERTION"  # the project's own code and generated code carry no licence file


class SbomError(Exception):
    """The bill of materials does not validate against its schema."""


def _licences(expression: str) -> list[LicenseExpression]:
    return [LicenseExpression(expression)] if expression and expression != UNKNOWN else []


def _purl(inp) -> PackageURL | None:
    if inp.kind == "deb":
        return PackageURL("deb", "debian", inp.package, inp.version)
    if inp.kind == "wheel":
        return PackageURL("pypi", None, inp.package, inp.version)
    if inp.kind == "git" and inp.url and "github.com/" in inp.url:
        owner, repo = inp.url.split("github.com/", 1)[1].removesuffix(".git").split("/")[:2]
        return PackageURL("github", owner, repo, inp.commit)
    return None


def input_component(inp, patches_root: Path) -> Component:
    """One input of toolchain.lock."""
    hashes = [HashType(alg=HashAlgorithm.SHA_256, content=h)
              for h in ([inp.sha256] if inp.sha256 else []) + sorted(inp.files.values())]
    if inp.commit:
        hashes.append(HashType(alg=HashAlgorithm.SHA_1, content=inp.commit))
    refs = [ExternalReference(type=ExternalReferenceType.VCS if inp.kind == "git" else
                              ExternalReferenceType.DISTRIBUTION, url=XsUri(inp.url))
            ] if inp.url else []
    patches = [Patch(type=PatchClassification.UNOFFICIAL,
                     diff=Diff(url=XsUri(f"{p.file}#sha256={p.sha256}")))
               for p in inp.patches]
    return Component(
        name=inp.name, bom_ref=f"input:{inp.name}", version=inp.version or inp.tag or inp.commit,
        hashes=hashes, licenses=_licences(inp.license), purl=_purl(inp),
        external_references=refs, pedigree=Pedigree(patches=patches) if patches else None,
        properties=[Property(name="ireerv:kind", value=inp.kind),
                    Property(name="ireerv:cache-key", value=inp.key())])


def python_components() -> list[Component]:
    """The Python packages of the build environment, as installed."""
    found = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if not name or name.lower() in found:
            continue
        expression = dist.metadata.get("License-Expression") or ""
        found[name.lower()] = Component(
            name=name, bom_ref=f"python:{name.lower()}", version=dist.version,
            purl=PackageURL("pypi", None, name.lower(), dist.version),
            licenses=_licences(expression) if _spdx_like(expression) else [],
            properties=[Property(name="ireerv:scope", value="build environment")])
    return [found[k] for k in sorted(found)]


def _spdx_like(expression: str) -> bool:
    return bool(expression) and len(expression) < 120 and "\n" not in expression


def linked_components(components: list[Mapping[str, Any]],
                      licences: Mapping[str, str]) -> list[Component]:
    """What the image links, by size-report component, with its size and licence."""
    out = []
    for comp in components:
        name = comp["name"]
        out.append(Component(
            name=f"image: {name}", bom_ref=f"image:{name}", type=ComponentType.FILE,
            licenses=_licences(licences.get(name, UNKNOWN)),
            properties=[Property(name="ireerv:bytes", value=str(comp["size"]))]))
    return out


def document(*, release: Mapping[str, Any], inputs: list[Component], python: list[Component],
             linked: list[Component], outputs: Mapping[str, str]) -> str:
    """The bill of materials as validated CycloneDX JSON text."""
    epoch = int(release["source_date_epoch"])
    seed = "\n".join(f"{k} {v}" for k, v in sorted(outputs.items()))
    root = Component(name=release["name"], version=release["version"],
                     type=ComponentType.FIRMWARE, bom_ref="release")
    bom = Bom(serial_number=uuid.uuid5(uuid.NAMESPACE_URL, f"ireerv:{seed}"),
              components=[*inputs, *python, *linked],
              metadata=BomMetaData(timestamp=dt.datetime.fromtimestamp(epoch, tz=dt.UTC),
                                   component=root))
    bom.register_dependency(root, [*linked, *inputs, *python])  # what the release is made of
    text = make_outputter(bom, OutputFormat.JSON, SCHEMA).output_as_string(indent=2)
    error = JsonStrictValidator(SCHEMA).validate_str(text)
    if error is not None:
        raise SbomError(f"the bill of materials does not validate: {error}")
    return text + "\n"


def licence_report(inputs: list[Component], linked: list[Component]) -> str:
    """The licences of what the image links and of every pinned input, as Markdown."""
    def row(c: Component) -> str:
        lic = " ".join(str(getattr(x, "value", x)) for x in c.licenses) or UNKNOWN
        size = next((p.value for p in c.properties if p.name == "ireerv:bytes"), "")
        return f"| {c.name} | {lic} | {size} |"

    return "\n".join(["# Licences", "", "## What the image links", "",
                      "| component | licence | bytes |", "|---|---|---:|",
                      *map(row, linked), "", "## Pinned inputs (toolchain.lock)", "",
                      "| input | licence | |", "|---|---|---|", *map(row, inputs), ""])
