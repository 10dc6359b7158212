"""Logged build commands: the log's contents and the errors a failing step raises."""

from __future__ import annotations

from pathlib import Path

import pytest

from ireerv.util.buildlog import BuildError, log_tail, run_logged, start_log


class StepError(BuildError):
    pass


def test_output_goes_to_the_log(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "step.log"
    start_log(log, "a step")
    run_logged(["sh", "-c", "echo out; echo err >&2; echo $WHO"], log, env={"WHO": "me"})
    run_logged(["pwd"], log, cwd=tmp_path)
    assert log.read_text().splitlines() == [
        "# a step",
        "$ sh -c 'echo out; echo err >&2; echo $WHO'", "out", "err", "me",
        f"$ cd {tmp_path} && pwd", str(tmp_path),
    ]


def test_failure_names_command_log_and_tail(tmp_path: Path) -> None:
    log = tmp_path / "step.log"
    start_log(log, "failing")
    with pytest.raises(StepError) as info:
        run_logged(["sh", "-c", "seq 1 40; exit 3"], log, error=StepError)
    err = info.value
    assert err.command == ["sh", "-c", "seq 1 40; exit 3"] and err.log_path == log
    assert str(err).startswith("command failed (exit status 3): sh -c 'seq 1 40; exit 3'\n")
    assert f"log: {log}\n{log_tail(log)}" in str(err)
    assert log_tail(log).splitlines() == [str(n) for n in range(16, 41)]  # the last 25 lines


def test_missing_program_is_a_build_error(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="cannot run no-such-program-here"):
        run_logged(["no-such-program-here"], tmp_path / "step.log")
    assert log_tail(tmp_path / "absent.log") == ""
