"""``CodeInterpreterConfig`` validates at construction; ``CodeInterpreterResult`` holds the
runs and sums them up."""

from __future__ import annotations

import pytest

from affordance import HostedToolOutput, PromptValidationError
from affordance_code_interpreter import (
    CONFIG_FIELDS,
    CodeExecution,
    CodeFile,
    CodeInterpreterConfig,
    CodeInterpreterResult,
)


def test_the_default_asks_for_nothing() -> None:
    assert CodeInterpreterConfig().requested() == ()


def test_settings_are_named_in_config_field_order() -> None:
    new = CodeInterpreterConfig(memory_limit="4g", file_ids=["file_1"])  # type: ignore[arg-type]

    assert new.requested() == ("memory_limit", "file_ids")
    assert new.file_ids == ("file_1",)
    assert CodeInterpreterConfig(container_id="cntr_1").requested() == ("container_id",)
    assert set(CONFIG_FIELDS) == {"container_id", "memory_limit", "file_ids"}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"memory_limit": "2g"}, "memory_limit must be one of 1g, 4g, 16g, 64g"),
        ({"container_id": " "}, "container_id must be a non-empty string"),
        ({"file_ids": "file_1"}, "not one string"),
        ({"file_ids": ("",)}, "is not a file id"),
        ({"container_id": "cntr_1", "memory_limit": "4g"}, "set one or the other"),
        ({"container_id": "cntr_1", "file_ids": ("file_1",)}, "set one or the other"),
    ],
)
def test_a_config_validates_each_field(fields: dict[str, object], message: str) -> None:
    with pytest.raises(PromptValidationError, match=message):
        CodeInterpreterConfig(**fields)  # type: ignore[arg-type]


def test_a_result_sums_up_its_runs() -> None:
    first = CodeExecution(code="x = 6 * 7", language="python", output="", stdout="", exit_code=0)
    second = CodeExecution(
        code="print(x)", language="python", output="42\n", stdout="42\n", exit_code=1,
        outcome="failed", files=[CodeFile(file_id="f1")],  # type: ignore[arg-type]
    )  # fmt: skip

    result = CodeInterpreterResult(executions=[first, second], text="42.")  # type: ignore[arg-type]

    assert isinstance(result, HostedToolOutput)
    assert result.code == "x = 6 * 7\n\nprint(x)"
    assert (result.output, result.stdout, result.stderr) == ("42\n", "42\n", None)
    assert (result.exit_code, result.outcome) == (1, "failed")
    assert second.files == (CodeFile(file_id="f1"),)


def test_a_result_has_at_least_one_run_and_a_file_an_id_or_url() -> None:
    with pytest.raises(PromptValidationError, match="at least one execution"):
        CodeInterpreterResult(executions=())
    with pytest.raises(PromptValidationError, match="file_id or a url"):
        CodeFile(filename="plot.png")
