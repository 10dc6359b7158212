"""The runner's per-source optimisation flags (ireerv.image.runner_flags)."""

from __future__ import annotations

import pytest

from ireerv.image import runner_flags


@pytest.mark.parametrize(("source", "staged", "flags", "lto"), [
    ("model_module", False, ["-O2"], True),
    ("model_module", True, ["-O1"], False),  # vww's initialiser: minutes at -O2
    ("parallel", False, ["-O2"], True),
    ("staging", True, ["-O2"], True),
    ("hart_plan", True, ["-O2"], True),
    ("runner", False, [], True),  # once per call: size
    ("host_allocator", True, [], True),
])
def test_release_builds_the_hot_runner_sources_for_speed(source: str, staged: bool,
                                                         flags: list[str], lto: bool) -> None:
    assert runner_flags.extra_cflags(source, "release", staged) == flags
    assert runner_flags.without_lto(source, "release", staged) is not lto


def test_debug_keeps_the_profiles_flags() -> None:
    for source in ("model_module", *runner_flags.PER_DISPATCH):
        assert runner_flags.extra_cflags(source, "debug", True) == []
        assert not runner_flags.without_lto(source, "debug", True)
