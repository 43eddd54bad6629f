"""``CodecContract``: the checks every hosted-tool codec passes, whoever wrote it.

Subclass it as ``Test...`` in the plugin's tests and define the ``codec``, ``hosted_tool`` and
``sample_response_items`` fixtures; the output ``parse_output`` returns must be of the type the
tool's kind is registered with (core drops any other with a warning).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pytest

from affordance.plugins import registry
from affordance.tools import HostedTool, HostedToolCodec
from affordance_testing.sdk_imports import PROVIDER_SDK_MODULES, modules_imported_by

__all__ = ["CodecContract"]


def _dotted(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _abstract(cls: type, name: str) -> Any:
    pytest.fail(f"{cls.__name__} must define the {name!r} fixture (see CodecContract)")


class CodecContract:
    """The checks every hosted-tool codec must pass. Subclass as ``Test...`` and define:

    - ``codec``: the codec instance under test;
    - ``hosted_tool``: a ``HostedTool`` of the codec's kind;
    - ``sample_response_items``: provider response items (JSON-like dicts) in which the tool
      was invoked, so ``parse_output`` returns an output.

    Optionally override ``unrelated_response_items`` (items in which it was not invoked),
    ``output_type`` (the type ``parse_output`` must return; by default the one the installed
    plugins register for the tool's kind, as core checks it at run time) and ``sdk_modules``
    (modules the codec's module must not import).
    """

    sdk_modules: ClassVar[tuple[str, ...]] = PROVIDER_SDK_MODULES

    @pytest.fixture
    def codec(self) -> HostedToolCodec[Any, Any]:
        return _abstract(type(self), "codec")  # type: ignore[no-any-return]

    @pytest.fixture
    def hosted_tool(self) -> HostedTool[Any]:
        return _abstract(type(self), "hosted_tool")  # type: ignore[no-any-return]

    @pytest.fixture
    def sample_response_items(self) -> Sequence[Mapping[str, Any]]:
        return _abstract(type(self), "sample_response_items")  # type: ignore[no-any-return]

    @pytest.fixture
    def unrelated_response_items(self) -> Sequence[Mapping[str, Any]]:
        return [
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Hello.", "annotations": []}],
            }
        ]

    @pytest.fixture
    def output_type(self, hosted_tool: HostedTool[Any]) -> type[Any]:
        registered = registry().hosted_tool_output(hosted_tool.kind)
        if registered is None:
            pytest.fail(
                f"no installed plugin registers hosted tool kind {hosted_tool.kind!r}, so the "
                "type parse_output must return is unknown: install the plugin registering the "
                "kind, or define the 'output_type' fixture (see CodecContract)"
            )
        return registered[0]

    def test_kind_matches_the_hosted_tool(
        self, codec: HostedToolCodec[Any, Any], hosted_tool: HostedTool[Any]
    ) -> None:
        assert codec.kind == hosted_tool.kind

    def test_serialize_returns_a_json_serializable_dict(
        self, codec: HostedToolCodec[Any, Any], hosted_tool: HostedTool[Any]
    ) -> None:
        payload = codec.serialize(hosted_tool)
        assert isinstance(payload, dict)
        assert json.loads(json.dumps(payload)) == payload

    def test_serialize_is_deterministic(
        self, codec: HostedToolCodec[Any, Any], hosted_tool: HostedTool[Any]
    ) -> None:
        assert codec.serialize(hosted_tool) == codec.serialize(hosted_tool)

    def test_parse_output_is_none_when_the_tool_was_not_invoked(
        self,
        codec: HostedToolCodec[Any, Any],
        hosted_tool: HostedTool[Any],
        unrelated_response_items: Sequence[Mapping[str, Any]],
    ) -> None:
        assert codec.parse_output([], hosted_tool) is None
        assert codec.parse_output(unrelated_response_items, hosted_tool) is None

    def test_parse_output_reads_the_sample(
        self,
        codec: HostedToolCodec[Any, Any],
        hosted_tool: HostedTool[Any],
        sample_response_items: Sequence[Mapping[str, Any]],
    ) -> None:
        assert codec.parse_output(sample_response_items, hosted_tool) is not None

    def test_parse_output_returns_the_registered_output_type(
        self,
        codec: HostedToolCodec[Any, Any],
        hosted_tool: HostedTool[Any],
        sample_response_items: Sequence[Mapping[str, Any]],
        output_type: type[Any],
    ) -> None:
        output = codec.parse_output(sample_response_items, hosted_tool)
        if not isinstance(output, output_type):
            pytest.fail(
                f"{type(codec).__qualname__}.parse_output returned {_dotted(type(output))} for "
                f"the sample; kind {hosted_tool.kind!r} is registered with output "
                f"{_dotted(output_type)}, and core drops any other output with a warning"
            )

    def test_codec_module_imports_no_provider_sdk(self, codec: HostedToolCodec[Any, Any]) -> None:
        assert modules_imported_by(type(codec).__module__, self.sdk_modules) == []
