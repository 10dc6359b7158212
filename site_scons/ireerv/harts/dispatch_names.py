"""What IREE's dispatch symbols say: `<module>_dispatch_<n>_<op>_<AxBx...>_<types>` names
a contraction's kind and its loop bounds, which the profile and the harts' plan read."""

from __future__ import annotations

import math
import re

_CONTRACTIONS = ("conv", "matmul", "matvec", "mmt4d", "contract")
_SHAPE = re.compile(r"_(\d+(?:x\d+)+)(?:_|$)")


def is_contraction(symbol: str) -> bool:
    return any(word in symbol for word in _CONTRACTIONS)


def shape_product(symbol: str) -> int:
    """The product of the first AxBx... shape in a dispatch's name: its MACs, for the
    contractions IREE names by their loop bounds; 0 when it names none."""
    found = _SHAPE.search(symbol)
    return math.prod(int(d) for d in found.group(1).split("x")) if found else 0


def dispatch_macs(symbol: str) -> int:
    """A dispatch's MACs from its name (a contraction's loop bounds); 0 when it names none."""
    return shape_product(symbol) if is_contraction(symbol) else 0
