"""Structured output (``runtime/output.py``): a hostile final answer is an output error."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from entity_tools import make_prompt

from affordance import PromptEvaluationError
from affordance.serde import MAX_DEPTH
from affordance.testing import ScriptedAdapter, text

MARKER = "zq-CONTENT-5e2a"  # the content_free_logs fixture fails a test whose logs carry it


@dataclass(frozen=True)
class Report:
    body: Any


def evaluate(adapter: ScriptedAdapter, prompt: Any, *, asynchronous: bool) -> Any:
    if asynchronous:
        return asyncio.run(adapter.aevaluate(prompt))
    return adapter.evaluate(prompt)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["evaluate", "aevaluate"])
@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 1_000, 100_000])
def test_a_final_answer_nested_too_deep_is_an_output_error(levels, asynchronous, content_free_logs):
    answer = '{"body":' + "[" * levels + f'"{MARKER}"' + "]" * levels + "}"
    adapter = ScriptedAdapter([text(answer)] * 2)  # asked again once, then given up
    prompt = make_prompt(output_type=Report)
    too_deep = f"nested deeper than {MAX_DEPTH} levels"
    with pytest.raises(PromptEvaluationError, match=too_deep) as info:
        evaluate(adapter, prompt, asynchronous=asynchronous)
    assert info.value.phase == "output"
    assert info.value.raw_text == answer
