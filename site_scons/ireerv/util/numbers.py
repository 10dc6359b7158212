"""Whole numbers given on the command line: ASCII digits, positive, and within what the
device or the host can hold, each limit said once here."""

from __future__ import annotations

import re

# variable -> (largest value, why)
LIMITS: dict[str, tuple[int, str]] = {
    "SIZE": (2**31 - 1, "a dimension is a 32-bit index on the device"),
    "REPEAT": (2**31 - 1, "the runner counts its calls in 32 bits"),
    "MAXCYCLES": (2**63 - 1, "the simulators count cycles in 64 bits"),
    "TIMEOUT": (10**7, "about four months"),
    "CAP_LOOPS": (2**31 - 1, "the loops count passes in 32 bits"),
    "TOP": (10**6, "a list no one reads"),
}
_DIGITS = re.compile(r"[0-9]+")


class NumberError(ValueError):
    """A variable that is not a whole number the build can use."""


def whole_number(name: str, value: str, maximum: int | None = None) -> int:
    """`value` as a positive whole number within the variable's limit."""
    if not _DIGITS.fullmatch(value):
        raise NumberError(f"{name} must be a positive whole number written with the digits "
                          f"0-9, not {value!r}")
    number = int(value)
    if number <= 0:
        raise NumberError(f"{name} must be a positive whole number, not {value!r}")
    limit, why = (maximum, "") if maximum is not None else LIMITS.get(name, (None, ""))
    if limit is not None and number > limit:
        raise NumberError(f"{name}={value} is more than {limit:,}" + (f" ({why})" if why else ""))
    return number
