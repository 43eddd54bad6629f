"""Prompts by reference: a prompt cannot cross the workflow boundary (its tools carry
handlers), so its registry name crosses instead, with what it is rendered with.

The client writes a :class:`~affordance_temporal.boundary.PromptRef` with :func:`prompt_ref`;
the workflow and every worker read it back against their own registry's prompt: its params
objects parsed into the dataclasses the prompt's sections take (one that does not fit is a
:class:`RegistryMismatchError`), its visibility overrides and its prompt overrides document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from affordance import PromptOverrides, PromptTemplate, SectionVisibility
from affordance.prompt import SectionPath
from affordance.serde import ParseError, dump, parse
from affordance_temporal.boundary import Overrides, ParamsData, PromptRef
from affordance_temporal.errors import RegistryMismatchError

__all__ = [
    "decode_overrides",
    "decode_params",
    "decode_texts",
    "encode_overrides",
    "prompt_ref",
]


def prompt_ref(
    name: str,
    params: Sequence[Any] = (),
    overrides: Mapping[SectionPath, SectionVisibility] | None = None,
    texts: PromptOverrides | None = None,
) -> PromptRef:
    """A reference to registry prompt ``name`` rendered with ``params``, visibility
    ``overrides`` and the prompt overrides ``texts``."""
    return PromptRef(
        name=name,
        params=tuple(ParamsData(type_name(type(value)), dump(value)) for value in params),
        overrides=encode_overrides(overrides),
        texts=None if texts is None else texts.to_json(),
    )


def decode_texts(ref: PromptRef) -> PromptOverrides | None:
    """The prompt overrides ``ref`` carries, if any."""
    return None if ref.texts is None else PromptOverrides.from_json(dict(ref.texts))


def decode_params(prompt: PromptTemplate[Any], ref: PromptRef) -> tuple[Any, ...]:
    """The params objects of ``ref``, parsed into the dataclasses the prompt's sections take."""
    if not ref.params:
        return ()
    types = params_types(prompt)
    values = []
    for item in ref.params:
        params_type = types.get(item.type)
        if params_type is None:
            raise RegistryMismatchError(
                f"prompt {ref.name!r} has no section taking params of type {item.type}"
            )
        try:
            values.append(parse(params_type, item.data))
        except ParseError as error:
            raise RegistryMismatchError(
                f"params of type {item.type} for prompt {ref.name!r} do not fit: {error}"
            ) from None
    return tuple(values)


def params_types(prompt: PromptTemplate[Any]) -> dict[str, type[Any]]:
    """The params dataclasses of a prompt's sections, by :func:`type_name`."""
    found: dict[str, type[Any]] = {}
    for path in prompt.section_paths():
        section = prompt.section(path)
        params_type = None if section is None else section.params_type
        if isinstance(params_type, type):
            found[type_name(params_type)] = params_type
    return found


def type_name(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def encode_overrides(overrides: Mapping[SectionPath, SectionVisibility] | None) -> Overrides:
    if not overrides:
        return ()
    return tuple((tuple(path), SectionVisibility(value).value) for path, value in overrides.items())


def decode_overrides(overrides: Overrides | None) -> dict[SectionPath, SectionVisibility]:
    return {tuple(path): SectionVisibility(value) for path, value in overrides or ()}
