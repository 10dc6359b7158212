"""A tuning file: per-dispatch kernel configurations in the board library's own form.

The file is a transform library by itself (`@__kernel_config` over `@tuned_<n>`
matchers, each matching one op at exactly its loop bounds).  A build of the model merges
it into the board's library: the tuned matchers come first, so they win where they
match, and every other op keeps the library's choice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ireerv.tune.space import Dispatch, Tiles

_ENTRY = "  transform.named_sequence @__kernel_config("
_FOREACH = "transform.foreach_match in %variant_op\n"
TUNED, HARTS = "tuned", "harts"  # the matchers' prefixes: a tuning file's, the harts library's
BORROWED = "borrowed"  # a tuning file's borrowed from another board, renamed from TUNED


def _sequences(prefix: str) -> re.Pattern[str]:
    return re.compile(rf"^  transform\.named_sequence @{prefix}_\w+\(.*?^  }}\n", re.S | re.M)


def _entries(prefix: str) -> re.Pattern[str]:
    return re.compile(rf"^ +(@{prefix}_\w+) -> @apply_op_config,?$", re.M)

_HEAD = """\
module attributes {transform.with_named_sequence} {
  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly},
                                            %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }
"""


class SpecError(Exception):
    """A library or tuning file not in the form a merge needs."""


def _list(values: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, values)) + "]"


def matcher(index: int, dispatch: Dispatch, tiles: Tiles) -> str:
    """A named sequence matching `dispatch` exactly and yielding `tiles`."""
    checks = []
    for i, bound in enumerate(dispatch.dims):
        checks += [
            f"      %d{i} = transform.match.structured.dim %s[{i}] : (!transform.any_op) "
            "-> !transform.param<i64>",
            f"      %v{i} = transform.param.constant {bound} : i64 -> !transform.param<i64>",
            f"      transform.match.param.cmpi eq %d{i}, %v{i} : !transform.param<i64>"]
    if dispatch.body:
        checks.append("      transform.match.structured.body %s "
                      f"{{contraction = [{dispatch.body}]}} : !transform.any_op")
    if dispatch.min_inputs:
        checks += [
            "      %n = transform.match.structured.num_inputs %s : (!transform.any_op) "
            "-> !transform.param<i64>",
            f"      %vn = transform.param.constant {dispatch.min_inputs} : i64 "
            "-> !transform.param<i64>",
            "      transform.match.param.cmpi ge %n, %vn : !transform.param<i64>"]
    reduction = (f",\n          vector_reduction = {_list(tiles.reduction)}>"
                 if tiles.reduction else ">")
    return "\n".join([
        f"  // {dispatch.key}: {tiles.label()}",
        f"  transform.named_sequence @tuned_{index}(%op: !transform.any_op "
        "{transform.readonly})",
        "      -> (!transform.any_op, !transform.any_param) {",
        f'    transform.match.operation_name %op ["{dispatch.linalg_op}"] : !transform.any_op',
        "    %m = transform.match.structured failures(propagate) %op",
        "        : (!transform.any_op) -> !transform.any_op {",
        "    ^bb0(%s: !transform.any_op):",
        *checks,
        "      transform.match.structured.yield %s : !transform.any_op",
        "    }",
        "    %config = transform.param.constant #iree_codegen.compilation_info<",
        "      lowering_config = #iree_cpu.lowering_config<"
        f"distribution = {_list(tiles.distribution)},",
        f"          vector_common_parallel = {_list(tiles.parallel)}{reduction},",
        "      translation_info = #iree_codegen.translation_info<"
        f"pipeline = {tiles.pipeline}>>",
        "        -> !transform.any_param",
        "    transform.yield %m, %config : !transform.any_op, !transform.any_param",
        "  }",
        ""])


def render(header: str, chosen: Sequence[tuple[Dispatch, Tiles]]) -> str:
    """A tuning file: `header` (comment lines) and one matcher per chosen dispatch."""
    if not chosen:
        raise SpecError("a tuning file needs at least one tuned dispatch")
    comment = "".join(f"// {line}\n".replace("// \n", "//\n") for line in header.splitlines())
    body = "\n".join(matcher(i, d, t) for i, (d, t) in enumerate(chosen))
    entries = "".join(f"        @tuned_{i} -> @apply_op_config,\n" for i in range(len(chosen)))
    entries = entries.removesuffix(",\n") + "\n"
    return (comment + _HEAD + "\n" + body + "\n" + _ENTRY
            + "%variant_op: !transform.any_op {transform.consumed})\n"
            "      -> !transform.any_op {\n"
            "    %res = " + _FOREACH + entries
            + "      : (!transform.any_op) -> !transform.any_op\n"
            "    transform.yield %res : !transform.any_op\n  }\n}\n")


def renamed(overlay: str, prefix: str) -> str:
    """A tuning file's matchers under `prefix` (BORROWED: beside the board's own file's,
    whose names are the same); other overlays as they are."""
    return overlay.replace(f"@{TUNED}_", f"@{prefix}_") if prefix == BORROWED else overlay


def merge(library: str, overlay: str, prefix: str = TUNED) -> str:
    """The board's library with an overlay's matchers (`@<prefix>_...`: a tuning file's, or
    the board's harts library's) put first."""
    sequences = _sequences(prefix).findall(overlay)
    entries = [f"        {name} -> @apply_op_config,\n"
               for name in _entries(prefix).findall(overlay)]
    if not sequences or len(entries) != len(sequences):
        raise SpecError(f"no {prefix} matchers in the form `scons tune` writes")
    if library.count(_ENTRY) != 1 or library.count(_FOREACH) != 1:
        raise SpecError("the board's library has no single @__kernel_config foreach_match")
    merged = library.replace(_ENTRY, "".join(s + "\n" for s in sequences) + _ENTRY)
    return merged.replace(_FOREACH, _FOREACH + "".join(entries))
