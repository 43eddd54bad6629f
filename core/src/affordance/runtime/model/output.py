"""Structured output: the schema a provider is asked to follow, and parsing the final answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from affordance._json import loads
from affordance.errors import PromptEvaluationError
from affordance.serde import MAX_DEPTH, ParseError, parse, schema

__all__ = ["output_name", "output_schema", "parse_output"]


def output_schema(output_type: Any) -> Mapping[str, Any] | None:
    """JSON Schema of the declared output type (cached by serde), or None for plain text."""
    return None if output_type is None else schema(output_type)


def output_name(output_type: Any) -> str:
    return getattr(output_type, "__name__", "output")


def parse_output(text: str | None, output_type: Any, prompt_name: str) -> Any:
    """The final answer parsed into ``output_type``; errors carry the raw text."""
    raw = strip_fence(text or "")
    try:
        data = loads(raw)
    except ValueError as error:
        raise PromptEvaluationError(
            f"the final answer is not JSON for {output_name(output_type)}: {error}",
            prompt_name=prompt_name,
            phase="output",
            raw_text=text,
        ) from error
    except RecursionError:  # past the stack; anything past MAX_DEPTH is refused by parse
        raise PromptEvaluationError(
            f"the final answer for {output_name(output_type)} is nested deeper than "
            f"{MAX_DEPTH} levels",
            prompt_name=prompt_name,
            phase="output",
            raw_text=text,
        ) from None
    try:
        return parse(output_type, data)
    except ParseError as error:
        raise PromptEvaluationError(
            f"the final answer does not match {output_name(output_type)}: {error}",
            prompt_name=prompt_name,
            phase="output",
            raw_text=text,
        ) from error


def strip_fence(text: str) -> str:
    """Accept a final answer wrapped in a ```json fence, as models often write it."""
    stripped = text.strip()
    if stripped.startswith("```"):
        first_newline = stripped.find("\n")
        if first_newline != -1 and stripped.endswith("```"):
            return stripped[first_newline + 1 : -3].strip()
    return stripped
