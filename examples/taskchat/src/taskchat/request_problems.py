"""What a refused request is told: every ``422 invalid_request`` carries ``problems``, a list of
``{"field", "problem"}``, and a ``message`` joining them as ``field: problem; ...``.

The schema's refusals (FastAPI's ``RequestValidationError``) and the service's
(``InvalidChatRequestError``) take the same shape. A refusal of the body as a whole is put in
words a person can act on: a body that is not sent as JSON, or not a JSON object.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["NOT_AN_OBJECT", "NOT_JSON", "Problem", "problems_message", "validation_problems"]

Problem = dict[str, str]  # {"field": "body.message", "problem": "..."}

NOT_JSON = "the body must be JSON (Content-Type: application/json)"
NOT_AN_OBJECT = 'the body must be a JSON object, such as {"message": "list my tasks"}'


def validation_problems(
    errors: Sequence[Mapping[str, Any]], content_type: str | None
) -> list[Problem]:
    """The problems of a request the schema refused; ``content_type`` is its header."""
    about_body = [e for e in errors if tuple(e.get("loc", ()))[:1] == ("body",)]
    if about_body and not _is_json(content_type):
        # FastAPI reads a body as JSON only when it says it is; otherwise every field "fails"
        others = [e for e in errors if e not in about_body]
        return [{"field": "body", "problem": NOT_JSON}, *_problems(others)]
    return _problems(errors)


def problems_message(problems: Iterable[Problem]) -> str:
    """``field: problem; field: problem``, the ``message`` of a ``422``."""
    return "; ".join(f"{p['field']}: {p['problem']}" for p in problems) or "invalid request"


def _problems(errors: Iterable[Mapping[str, Any]]) -> list[Problem]:
    problems: list[Problem] = []
    for error in errors:
        location = tuple(str(part) for part in error.get("loc", ()))
        whole_body = location == ("body",)
        problem = NOT_AN_OBJECT if whole_body else str(error.get("msg", "is not valid"))
        problems.append({"field": ".".join(location), "problem": problem})
    return problems


def _is_json(content_type: str | None) -> bool:
    """Whether the header names JSON, as FastAPI decides it (``application/json`` or
    ``application/...+json``)."""
    if not content_type:
        return False
    media_type = content_type.split(";", 1)[0].strip().lower()
    main, _, sub = media_type.partition("/")
    return main == "application" and (sub == "json" or sub.endswith("+json"))
