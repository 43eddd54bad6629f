"""``Tool``: a typed function the model may call, declared on a section."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any, Generic, TypeVar

from affordance._frozen import frozen
from affordance._referable import WeaklyReferable
from affordance._typeargs import TypeArgsAlias, is_concrete, subscript
from affordance.errors import PromptValidationError
from affordance.tools._handler import HandlerShape, inspect_handler
from affordance.tools._naming import check_description, check_tool_name
from affordance.tools.retry import RetryPolicy

__all__ = ["Tool", "ToolExample"]

ParamsT = TypeVar("ParamsT")
ResultT = TypeVar("ResultT")

NoneType = type(None)


@frozen
class ToolExample(Generic[ParamsT, ResultT]):
    """A worked call shown to the model: what the input looks like and what comes back."""

    description: str
    input: ParamsT
    output: ResultT


@frozen(eq=False)
class Tool(WeaklyReferable, Generic[ParamsT, ResultT]):
    """A callable affordance: name, description, typed params and an optional handler.

    The params type comes from ``Tool[Params, Result](...)`` or from the handler's annotation;
    ``Tool[None, Result]`` declares a tool without parameters, and ``params_type=`` a
    :class:`~affordance.serde.JSONSchemaType` one whose parameters are a JSON Schema (the
    handler then receives a ``dict``). ``destructive`` tools need the
    caller's confirmation before they run; ``timeout``, ``retry`` and ``cache_ttl`` tune the
    executor for this tool. A ``terminal`` tool ends the model's turn: calls after it in the
    same turn are skipped and the evaluation hands control back to the caller.
    """

    name: str
    description: str
    handler: Callable[..., Any] | None = None
    accepts_overrides: bool = True
    examples: tuple[ToolExample[ParamsT, ResultT], ...] = ()
    params_type: Any = None
    result_type: Any = None
    destructive: bool = False
    timeout: float | None = None
    retry: RetryPolicy | None = None
    cache_ttl: float | None = None
    terminal: bool = False
    shape: HandlerShape = field(init=False, repr=False)
    param_descriptions: Mapping[str, str] = field(init=False, repr=False)
    _described_schema: Mapping[str, Any] | None = field(default=None, init=False, repr=False)

    def __class_getitem__(cls, item: Any) -> TypeArgsAlias:
        return subscript(cls, item)

    @classmethod
    def _type_args_to_kwargs(cls, args: tuple[Any, ...]) -> dict[str, Any]:
        names = ("params_type", "result_type")
        return {
            name: (NoneType if arg is None else arg)
            for name, arg in zip(names, args, strict=False)
            if is_concrete(arg)
        }

    def __post_init__(self) -> None:
        name = check_tool_name(self.name)
        _set = object.__setattr__
        _set(self, "description", check_description(self.description, tool_name=name))
        if self.handler is not None and not callable(self.handler):
            raise PromptValidationError("Tool handler must be callable", tool_name=name)
        shape = inspect_handler(self.handler, tool_name=name)
        _set(self, "shape", shape)
        params_type = self.params_type if self.params_type is not None else shape.params_type
        if params_type is None:
            raise PromptValidationError(
                "Tool needs a params type: declare Tool[Params, Result](...), annotate the "
                "handler's first parameter, or use Tool[None, Result] for a tool without params",
                tool_name=name,
            )
        _check_params_type(params_type, name)
        _set(self, "params_type", params_type)
        if self.result_type is None and shape.result_type is not None:
            _set(self, "result_type", shape.result_type)
        _set(self, "examples", tuple(self.examples))
        for example in self.examples:
            _check_example(example, params_type, name)
        _check_tuning(self)
        _set(self, "param_descriptions", _field_descriptions(params_type))

    @property
    def takes_context(self) -> bool:
        return self.shape.takes_context

    @property
    def is_async(self) -> bool:
        return self.shape.is_async

    def parameters_schema(self) -> Mapping[str, Any]:
        """JSON Schema of the params (cached per type; treat it as read-only)."""
        if self._described_schema is not None:
            return self._described_schema
        if self.params_type is NoneType:
            return _EMPTY_OBJECT_SCHEMA
        from affordance.serde import schema

        return schema(self.params_type)

    def with_texts(
        self,
        *,
        description: str | None = None,
        param_descriptions: Mapping[str, str] | None = None,
        examples: tuple[ToolExample[ParamsT, ResultT], ...] | None = None,
    ) -> Tool[ParamsT, ResultT]:
        """A copy of this tool that tells the model other texts (how prompt overrides apply):
        its ``description``, the descriptions of the named params fields (in
        :attr:`param_descriptions` and in :meth:`parameters_schema`) and its ``examples``;
        ``None`` keeps this tool's. Everything else — handler, policies, name — is shared.
        ``PromptValidationError`` if a text is invalid or names no parameter."""
        copy = dataclasses.replace(
            self,
            description=self.description if description is None else description,
            examples=self.examples if examples is None else examples,
        )
        if param_descriptions:
            schema = self.parameters_schema()
            properties: Mapping[str, Any] = schema.get("properties") or {}
            for name, text in param_descriptions.items():
                if name not in properties:
                    raise PromptValidationError(
                        f"no parameter named {name!r} (parameters: "
                        f"{', '.join(properties) or 'none'})",
                        tool_name=self.name,
                    )
                raw: object = text  # read from a file: typed str, checked all the same
                if not isinstance(raw, str) or not text.strip():
                    raise PromptValidationError(
                        f"the description of parameter {name!r} must be a non-empty string",
                        tool_name=self.name,
                    )
            described = {
                name: {**prop, "description": param_descriptions[name]}
                if name in param_descriptions
                else prop
                for name, prop in properties.items()
            }
            _set = object.__setattr__
            _set(copy, "_described_schema", {**schema, "properties": described})
            _set(copy, "param_descriptions", {**self.param_descriptions, **param_descriptions})
        return copy


_EMPTY_OBJECT_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}


def _is_json_schema_type(params_type: object) -> bool:
    """Whether ``params_type`` is a :class:`~affordance.serde.JSONSchemaType`. One can only
    exist once its module is imported, so looking in ``sys.modules`` keeps declaring tools free
    of serde."""
    module = sys.modules.get("affordance.serde.json_schema_type")
    return module is not None and isinstance(params_type, module.JSONSchemaType)


def _check_params_type(params_type: Any, tool_name: str) -> None:
    if params_type is NoneType or _is_json_schema_type(params_type):
        return
    if isinstance(params_type, type) and (
        hasattr(params_type, "__dataclass_fields__") or hasattr(params_type, "model_fields")
    ):
        return
    raise PromptValidationError(
        "Tool params type must be a dataclass, a pydantic model or a JSONSchemaType, got "
        f"{params_type!r}",
        tool_name=tool_name,
    )


def _check_example(example: object, params_type: Any, tool_name: str) -> None:
    if not isinstance(example, ToolExample):
        raise PromptValidationError(
            f"Tool examples must be ToolExample instances, got {type(example).__qualname__}",
            tool_name=tool_name,
        )
    if _is_json_schema_type(params_type):
        try:
            params_type.parse(example.input)
        except ValueError as error:  # a ParseError: what in the input does not fit
            raise PromptValidationError(
                f"ToolExample input does not fit the schema: {error}", tool_name=tool_name
            ) from None
    elif params_type is not NoneType and not isinstance(example.input, params_type):
        raise PromptValidationError(
            f"ToolExample input must be a {params_type.__qualname__}, got "
            f"{type(example.input).__qualname__}",
            tool_name=tool_name,
            dataclass=params_type,
        )
    check_description(example.description, tool_name=tool_name, kind="ToolExample")


def _check_tuning(tool: Tool[Any, Any]) -> None:
    if tool.timeout is not None and not tool.timeout > 0:
        raise PromptValidationError(
            f"Tool timeout must be positive, got {tool.timeout}", tool_name=tool.name
        )
    if tool.cache_ttl is not None:
        if not tool.cache_ttl > 0:
            raise PromptValidationError(
                f"Tool cache_ttl must be positive, got {tool.cache_ttl}", tool_name=tool.name
            )
        if tool.destructive:
            raise PromptValidationError(
                "destructive tools are never cached; remove cache_ttl", tool_name=tool.name
            )


def _field_descriptions(params_type: Any) -> Mapping[str, str]:
    if _is_json_schema_type(params_type):
        descriptions: Mapping[str, str] = params_type.descriptions
        return descriptions
    fields: Mapping[str, Any] = getattr(params_type, "__dataclass_fields__", None) or {}
    descriptions = {
        name: str(f.metadata["description"])
        for name, f in fields.items()
        if "description" in f.metadata
    }
    model_fields: Mapping[str, Any] = getattr(params_type, "model_fields", None) or {}
    for name, info in model_fields.items():
        if getattr(info, "description", None):
            descriptions[name] = str(info.description)
    return descriptions
