"""Support for pydantic v2 models, without importing or depending on pydantic.

A `BaseModel` subclass can only exist once `pydantic.main` has been imported by its author, so
looking in `sys.modules` detects models for free and keeps `import affordance.serde` cheap.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from affordance.serde._errors import FieldError, InvalidValueError, describe_value
from affordance.serde._walk import rebuild_schema

__all__ = ["dump_model", "is_model", "is_model_instance", "model_converter", "model_schema"]


def is_model(tp: object) -> bool:
    """Whether `tp` is a pydantic v2 `BaseModel` subclass."""
    main = sys.modules.get("pydantic.main")
    if main is None or not isinstance(tp, type):
        return False
    return issubclass(tp, main.BaseModel)


def is_model_instance(obj: object) -> bool:
    return is_model(type(obj))


def model_converter(cls: type[Any]) -> Callable[[Any], Any]:
    """A converter validating with the model itself; the model's own `extra` setting applies."""
    validation_error: type[Exception] = sys.modules["pydantic_core"].ValidationError
    validate = cls.model_validate

    def convert(value: Any) -> Any:
        try:
            return validate(value)
        except validation_error as exc:
            raise InvalidValueError(_field_errors(exc)) from None

    return convert


def _field_errors(exc: Any) -> list[FieldError]:
    errors: list[FieldError] = []
    for error in exc.errors(include_url=False, include_context=False):
        path = tuple(part if isinstance(part, str | int) else str(part) for part in error["loc"])
        message = error["msg"]
        if error["type"] != "missing":
            message = f"{message}, got {describe_value(error['input'])}"
        errors.append(FieldError(path, message))
    return errors


def dump_model(obj: Any, exclude_none: bool) -> Any:
    return obj.model_dump(mode="json", exclude_none=exclude_none)


def model_schema(cls: type[Any]) -> dict[str, Any]:
    """`model_json_schema()` without `title`s, with a root `$ref` inlined (`$defs` kept)."""
    raw = cls.model_json_schema()
    schema: dict[str, Any] = rebuild_schema(raw, _drop_title)
    defs = schema.get("$defs", {})
    root_ref = schema.get("$ref")
    if isinstance(root_ref, str) and root_ref.startswith("#/$defs/"):
        # A recursive root model comes out as a bare reference; providers want an object.
        target = defs[root_ref.removeprefix("#/$defs/")]
        schema = {**target, "$defs": defs}
    if cls.model_config.get("extra") == "forbid" and schema.get("type") == "object":
        schema.setdefault("additionalProperties", False)
    return schema


def _drop_title(name: str, value: Any) -> tuple[str, Any] | None:
    return None if name == "title" else (name, value)
