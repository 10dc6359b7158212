"""Which of the model's layers each dispatch holds, read from iree-compile's flow-level IR
printed with locations in place (iree_compile.flow_ir).

Each `flow.executable` holds one dispatch region; its entry point's name is the kernel's
symbol in the image, and the name locations of the ops inside it are the layers (ONNX
nodes, TFLite operators) that IREE fused into it.  File locations ("model.mlir":7:11) and
`unknown` name nothing and are skipped.  Only ops that compute count: constants are shared
between layers (their location is the first layer's), and a dispatch's loads and stores
carry the locations of the layers that produce or pad its operands.

A board's own kernels (a `stream.executable` its transform spec brings in, such as
cluster4-pulp's convolution) hold no layer's ops: their layers are the names at their call
sites, every layer that calls the one entry point.
"""

from __future__ import annotations

import re

_EXECUTABLE = re.compile(r"^  flow\.executable (?:private |public )?@(\S+) \{", re.M)
_TOP_LEVEL = re.compile(r"^  \S", re.M)  # the next op of the module
_EXPORT = re.compile(r"flow\.executable\.export (?:public |private )?@([\w$.-]+)")
_KERNELS = re.compile(r"^  stream\.executable (?:private |public )?@(\S+) \{", re.M)
_KERNEL_EXPORT = re.compile(r"stream\.executable\.export (?:public |private )?@([\w$.-]+)")
_DISPATCH = re.compile(r"flow\.dispatch @[\w$.-]+::@([\w$.-]+)")
# A quoted string, and ":<line>:<column>" when it is a file location.
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"(:\d+:\d+)?')
# Ops that compute: linalg ops but fills (a region op's own location is on its closing
# line) and the arithmetic in their bodies.
_COMPUTE = re.compile(r"^\s*(?:%\S+ = (?:linalg\.(?!fill)|arith\.(?!constant)|math\.|tensor\.pad)"
                      r"|linalg\.|\} -> )")


def _loc_bodies(text: str):
    """The text inside each `loc(...)`, parentheses balanced, quotes respected."""
    start = text.find("loc(")
    while start >= 0:
        depth, i, quoted = 0, start + 3, False
        while i < len(text):
            ch = text[i]
            if quoted:
                i += 1 if ch == "\\" else 0
                quoted = ch != '"'
            elif ch == '"':
                quoted = True
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        yield text[start + 4:i]
        start = text.find("loc(", i)


def _unescape(name: str) -> str:
    return re.sub(r"\\(.)", r"\1", name)


def location_names(text: str) -> list[str]:
    """The names in the text's locations, each once, in order of first appearance."""
    seen: dict[str, None] = {}
    for body in _loc_bodies(text):
        for match in _STRING.finditer(body):
            if match.group(2) is None:
                seen.setdefault(_unescape(match.group(1)), None)
    return list(seen)


def dispatch_layers(flow_ir: str) -> dict[str, list[str]]:
    """Each entry point (kernel symbol) -> the location names inside its executable, and
    those of its other call sites: IREE keeps one executable for identical layers (vww's
    five 6x6x128 blocks), with the first one's locations inside."""
    result: dict[str, list[str]] = {}
    for match in _EXECUTABLE.finditer(flow_ir):
        end = _TOP_LEVEL.search(flow_ir, match.end())
        body = flow_ir[match.end():end.start() if end else len(flow_ir)]
        names = location_names("\n".join(line for line in body.splitlines()
                                          if _COMPUTE.match(line)))
        for export in _EXPORT.findall(body):
            result[export] = names
    kernels = _board_kernels(flow_ir)
    result.update((export, []) for export in kernels)
    for call in _DISPATCH.finditer(flow_ir):
        names = result.get(call.group(1))
        # A dispatch that computes layers (not a copy or a fill), or a board's kernel.
        if names or call.group(1) in kernels:
            line_end = flow_ir.find("\n", call.end())
            extra = location_names(flow_ir[call.start():line_end if line_end >= 0 else None])
            names.extend(n for n in extra if n not in names)
    return result


def _board_kernels(flow_ir: str) -> set[str]:
    """The entry points of the board's own kernels (`stream.executable`s)."""
    found: set[str] = set()
    for match in _KERNELS.finditer(flow_ir):
        end = _TOP_LEVEL.search(flow_ir, match.end())
        found.update(_KERNEL_EXPORT.findall(flow_ir[match.end():end.start() if end else None]))
    return found
