"""Each dispatch's workgroup count read from the program after IREE's HAL phase."""

from __future__ import annotations

from ireerv.harts import dispatch_counts

# As the pinned compiler prints it (--compile-to=hal, inline HAL, locations on).
HAL_TEXT = """\
  util.func public @mlp(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %c1 = arith.constant 1 : index loc(unknown)
    %c8 = arith.constant 8 : index loc(unknown)
    %c0 = arith.constant 0 : index loc(unknown)
    %c1_i32 = arith.constant 1 : i32 loc(unknown)
    hal_loader.executable.dispatch executable(%e : !hal.executable)[%c0] workgroups([%c1, %c1, %c1])
    hal_loader.executable.dispatch executable(%e : !hal.executable)[%c1] workgroups([%c8, %c1, %c1])
    hal_loader.executable.dispatch executable(%e : !hal.executable)[%c0] workgroups([%n, %c1, %c1])
  }
"""


def test_counts_in_program_order_and_unknown_where_not_a_constant() -> None:
    assert dispatch_counts.workgroup_counts(HAL_TEXT) == [(1, 1, 1), (8, 1, 1), None]


def test_only_one_workgroup_everywhere_shares_nothing() -> None:
    assert not dispatch_counts.may_share([(1, 1, 1), (1, 1, 1)])
    assert not dispatch_counts.may_share([])  # a model without dispatches
    assert dispatch_counts.may_share([(1, 1, 1), (8, 1, 1)])
    assert dispatch_counts.may_share([(1, 1, 1), None])  # computed: may be several


def test_a_name_with_two_values_is_not_trusted() -> None:
    text = HAL_TEXT + "    %c8 = arith.constant 1 : index\n"
    assert dispatch_counts.workgroup_counts(text)[1] is None


def test_the_header_says_so() -> None:
    assert "#define RUNNER_MODEL_SHARES 0\n" in dispatch_counts.header(False)
    assert "#define RUNNER_MODEL_SHARES 1\n" in dispatch_counts.header(True)
    assert "#define RUNNER_MODEL_DISPATCHES 54\n" in dispatch_counts.header(True, 54)
    assert "RUNNER_MODEL_DISPATCHES" not in dispatch_counts.header(True)
