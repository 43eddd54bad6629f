"""`affordance demo --interactive`: the person's answer decides, and the model's last words
follow from the tool result it read."""

from __future__ import annotations

import subprocess
import sys


def demo(answer: str | None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "affordance", "demo", "--interactive"],
        input=answer,
        stdin=subprocess.DEVNULL if answer is None else None,
        capture_output=True,
        text=True,
    )


def test_answering_no_keeps_the_task_and_the_model_says_it_was_not_deleted():
    out = demo("n\n").stdout

    assert "confirm delete_task(task_id=3)? [y/N] n\n" in out
    assert "delete_task: FAILED - The user declined to run 'delete_task'" in out
    assert "assistant> I did not delete task #3" in out
    assert "Done" not in out
    assert "tasks now: Renew passport, Water the plants, Water the plants" in out


def test_answering_yes_deletes_the_task_and_the_model_says_so():
    out = demo("y\n").stdout

    assert "delete_task: ok - Deleted task #3." in out
    assert "assistant> Done: you have 'Renew passport' and 'Water the plants'" in out
    assert "tasks now: Renew passport, Water the plants\n" in out


def test_closed_input_is_a_no_not_a_traceback():
    result = demo(None)

    assert result.returncode == 0
    assert "Traceback" not in result.stderr
    assert "EOFError" not in result.stderr
    assert "confirm delete_task(task_id=3)? [y/N] n (no input to read: declined)\n" in result.stdout
    assert "assistant> I did not delete task #3" in result.stdout
