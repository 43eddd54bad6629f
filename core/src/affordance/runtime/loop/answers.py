"""Reading a final answer: parsing it into the prompt's output type, running its validators,
and — when it is not accepted — the message that asks the model for another.

An answer that is refused goes back as a *user* message naming the problems, never as a made-up
tool call: it works on every provider, with tools or without.
"""

from __future__ import annotations

from typing import Any

from affordance.errors import OutputRejected, PromptEvaluationError
from affordance.prompt.template import PromptTemplate
from affordance.runtime.model.output import output_name, parse_output

__all__ = ["NotAcceptedError", "accepted_output", "retry_message"]


class NotAcceptedError(Exception):
    """The answer was not accepted; ``problems`` say why (raised within the loop only)."""

    def __init__(self, problems: tuple[str, ...]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def accepted_output(prompt: PromptTemplate[Any], text: str | None) -> Any:
    """The output of a final answer: parsed into the prompt's output type (``None`` for a
    prompt without one) and passed by each of its validators.

    Raises :class:`NotAcceptedError` for an answer that does not parse or that a validator rejects
    with :class:`~affordance.errors.OutputRejected`. A validator that raises anything else is
    a bug in the caller's code, not a bad answer: it raises ``PromptEvaluationError`` (phase
    ``output``) naming the validator, chained to its exception.
    """
    output_type = prompt.output_type
    if output_type is None:
        output, value = None, text or ""  # the validators read the text
    else:
        try:
            output = value = parse_output(text, output_type, prompt.name)
        except PromptEvaluationError as error:
            raise NotAcceptedError((error.message,)) from error
    problems: list[str] | None = None
    for validator in prompt.output_validators:
        try:
            validator(value)
        except OutputRejected as rejection:
            problems = [*(problems or ()), rejection.reason]
        except Exception as error:
            name = getattr(validator, "__qualname__", type(validator).__qualname__)
            raise PromptEvaluationError(
                f"output validator {name} raised {type(error).__name__}: {error} (raise "
                "OutputRejected to ask the model for another answer)",
                prompt_name=prompt.name,
                phase="output",
                raw_text=text,
            ) from error
    if problems:
        raise NotAcceptedError(tuple(problems))
    return output


def retry_message(prompt: PromptTemplate[Any], problems: tuple[str, ...]) -> str:
    """The user message asking for another answer after ``problems``."""
    listed = "\n".join(f"- {problem}" for problem in problems)
    if prompt.output_type is not None:
        ask = (
            f"Answer again with the complete {output_name(prompt.output_type)} as JSON "
            "matching the required schema."
        )
    else:
        ask = "Answer again."
    return f"Your answer was not accepted:\n{listed}\n{ask}"
