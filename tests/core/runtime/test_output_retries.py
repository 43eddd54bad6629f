"""Typed output that recovers: an answer that does not parse, or that a validator rejects, is
sent back as a user message naming its problems, up to ``output_retries`` times — on every
entry point alike."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from drivers import DRIVERS, run

from affordance import (
    MarkdownSection,
    OutputRejected,
    OutputRetried,
    OutputRetry,
    OutputValidationError,
    PromptEvaluationError,
    PromptTemplate,
    PromptValidationError,
    Session,
)
from affordance.adapters import AssistantMessage, UserMessage
from affordance.testing import ScriptedAdapter, text


@dataclass(frozen=True)
class Verdict:
    label: str
    score: float


def no_spam(verdict: Verdict) -> None:
    if verdict.label == "spam" and verdict.score < 0.5:
        raise OutputRejected("a spam verdict needs a score of at least 0.5")


def verdict_prompt(**options: object) -> PromptTemplate[Verdict]:
    return PromptTemplate[Verdict](
        name="verdict",
        sections=[MarkdownSection(title="Task", template="Classify the message.")],
        **options,  # type: ignore[arg-type]
    )


GOOD = '{"label": "ham", "score": 0.9}'


@pytest.mark.parametrize("driver", DRIVERS)
def test_an_invalid_answer_is_sent_back_and_the_next_valid_one_is_the_output(driver):
    adapter = ScriptedAdapter([text("it is ham"), text(GOOD)])
    session = Session()
    session.register_reducer(OutputRetried, OutputRetried, lambda kept, e: (*kept, e))
    response, events = run(adapter, verdict_prompt(), driver, session=session)
    assert response.output == Verdict("ham", 0.9)
    assert response.turns == 2
    retry = adapter.requests[1].messages
    assert retry[-2] == AssistantMessage("it is ham")
    assert isinstance(retry[-1], UserMessage)  # a user message: no made-up tool call
    assert "not JSON for Verdict" in retry[-1].text
    assert "Answer again" in retry[-1].text
    (retried,) = session.slice(OutputRetried)
    assert (retried.turn, retried.attempt) == (1, 1)
    assert "not JSON" in retried.problems[0]
    if driver in ("stream", "astream"):
        (shown,) = [e for e in events if isinstance(e, OutputRetry)]
        assert (shown.turn, shown.attempt, shown.problems) == (1, 1, retried.problems)


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_validator_rejection_is_sent_back_with_its_reason(driver):
    adapter = ScriptedAdapter([text('{"label": "spam", "score": 0.1}'), text(GOOD)])
    prompt = verdict_prompt(output_validators=(no_spam,))
    response, _ = run(adapter, prompt, driver)
    assert response.output == Verdict("ham", 0.9)
    feedback = adapter.requests[1].messages[-1]
    assert isinstance(feedback, UserMessage)
    assert "a spam verdict needs a score of at least 0.5" in feedback.text


@pytest.mark.parametrize("driver", DRIVERS)
def test_when_retries_run_out_the_error_carries_every_attempt(driver):
    answers = ["not json", '{"label": "spam", "score": 0.2}', '{"label": 3}']
    adapter = ScriptedAdapter([text(a) for a in answers])
    prompt = verdict_prompt(output_retries=2, output_validators=(no_spam,))
    with pytest.raises(OutputValidationError) as info:
        run(adapter, prompt, driver)
    error = info.value
    assert isinstance(error, PromptEvaluationError)
    assert error.phase == "output"
    assert [a.raw_text for a in error.attempts] == answers
    assert "not JSON" in error.attempts[0].problems[0]
    assert error.attempts[1].problems == ("a spam verdict needs a score of at least 0.5",)
    assert "label" in error.attempts[2].problems[0]
    assert error.raw_text == answers[-1]
    assert adapter.sent == 3


def test_every_validator_is_asked_and_all_their_problems_are_named():
    def positive(verdict: Verdict) -> None:
        if verdict.score <= 0:
            raise OutputRejected("the score must be positive")

    adapter = ScriptedAdapter([text('{"label": "spam", "score": -1}'), text(GOOD)])
    adapter.evaluate(verdict_prompt(output_validators=(no_spam, positive)))
    feedback = adapter.requests[1].messages[-1]
    assert isinstance(feedback, UserMessage)
    assert "at least 0.5" in feedback.text
    assert "must be positive" in feedback.text


def test_output_retries_zero_fails_at_the_first_bad_answer():
    adapter = ScriptedAdapter([text("nope")])
    with pytest.raises(OutputValidationError) as info:
        adapter.evaluate(verdict_prompt(output_retries=0))
    assert len(info.value.attempts) == 1
    assert adapter.sent == 1


def test_validators_of_a_text_prompt_receive_the_text():
    def polite(answer: str) -> None:
        if "please" not in answer:
            raise OutputRejected("say please")

    prompt = PromptTemplate(
        name="polite",
        sections=[MarkdownSection(title="Task", template="Ask for it.")],
        output_validators=(polite,),
    )
    adapter = ScriptedAdapter([text("give it"), text("please give it")])
    assert adapter.evaluate(prompt).text == "please give it"


def test_a_validator_that_crashes_is_an_error_naming_it_not_a_retry():
    def broken(verdict: Verdict) -> None:
        raise KeyError("oops")

    adapter = ScriptedAdapter([text(GOOD)])
    with pytest.raises(PromptEvaluationError, match="broken raised KeyError") as info:
        adapter.evaluate(verdict_prompt(output_validators=(broken,)))
    assert isinstance(info.value.__cause__, KeyError)
    assert adapter.sent == 1


def test_the_prompt_refuses_bad_retry_settings():
    with pytest.raises(PromptValidationError, match="0 or more"):
        verdict_prompt(output_retries=-1)
    with pytest.raises(PromptValidationError, match="an int"):
        verdict_prompt(output_retries=True)
    with pytest.raises(PromptValidationError, match="callables"):
        verdict_prompt(output_validators=("no_spam",))


def test_a_retried_answer_with_caller_messages_keeps_them_first():
    adapter = ScriptedAdapter([text("nope"), text(GOOD)])
    history = (UserMessage("Is this spam: 'hello'?"),)
    response = adapter.evaluate(verdict_prompt(), messages=history)
    assert response.output == Verdict("ham", 0.9)
    second = adapter.requests[1]
    assert second.messages[0] == history[0]
    assert second.instructions is not None
    assert [type(m).__name__ for m in response.messages] == [
        "AssistantMessage",
        "UserMessage",
        "AssistantMessage",
    ]
