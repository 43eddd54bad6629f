"""The serializer roles of the provider contract: how tools, tool results and output formats look
on one provider's wire.

Each provider plugin registers one serializer per role (``SerializerSpec(provider, role,
factory)``, priority 0) and its adapter uses whichever the registry resolves, so a third party
can replace one role — e.g. plain, non-strict function schemas for an OpenAI-compatible server —
without touching the adapter. Serializers work on plain JSON-like data and never import an SDK.

=============  =======================  ====================================================
role           protocol                 turns ...
=============  =======================  ====================================================
``tool``       :class:`ToolSerializer`  a ``Tool`` into the provider's function declaration
                                        (its JSON-Schema dialect included)
``tool_result`` :class:`ToolResultSerializer`  a tool's result message into what the model
                                        reads back, success or failure
``output``     :class:`OutputSerializer`  an output JSON Schema into the provider's
                                        structured-output format
=============  =======================  ====================================================

What a value means on the wire (a whole item, or the part the adapter wraps) is the provider's
to define; each provider's spec (``specs/adapters/<provider>.md``) says it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from affordance._frozen import frozen

if TYPE_CHECKING:
    from affordance.runtime.model.messages import ToolResultMessage
    from affordance.tools.tool import Tool

__all__ = [
    "OutputFormat",
    "OutputSerializer",
    "ToolDeclaration",
    "ToolResultSerializer",
    "ToolSerializer",
]

Arguments = str | Mapping[str, Any]


@frozen
class ToolDeclaration:
    """One tool as a provider declares it.

    ``wire`` is the declaration (shared by every request: never mutate it). When the declared
    schema changed the meaning of the model's arguments — OpenAI's strict mode turns an optional
    field into a required, nullable one — ``normalize_arguments`` maps the arguments the model
    sends back to what the tool's own schema expects. ``note`` says what a reader of
    ``affordance render`` should know (why a schema is not strict).
    """

    wire: Mapping[str, Any]
    normalize_arguments: Callable[[Arguments], Arguments] | None = None
    note: str | None = None


@frozen
class OutputFormat:
    """The structured-output format of one schema, and how to read the model's JSON text back
    (``normalize_text``, for the same reason as :attr:`ToolDeclaration.normalize_arguments`)."""

    wire: Mapping[str, Any]
    normalize_text: Callable[[str], str] | None = None


class ToolSerializer(Protocol):
    """Role ``tool``: a tool's declaration. Called once per tool object and cached."""

    def declare(self, tool: Tool[Any, Any]) -> ToolDeclaration: ...


class ToolResultSerializer(Protocol):
    """Role ``tool_result``: what the model reads back for one call, success or failure."""

    def serialize(self, message: ToolResultMessage) -> Any: ...


class OutputSerializer(Protocol):
    """Role ``output``: the structured-output format for a JSON Schema named ``name``. Called
    once per schema object and cached."""

    def output_format(self, schema: Mapping[str, Any], name: str) -> OutputFormat: ...
