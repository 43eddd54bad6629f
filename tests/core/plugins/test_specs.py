"""Specs check their fields when built, so a malformed one fails inside its plugin."""

from __future__ import annotations

import pytest

from affordance.plugins import (
    PLUGIN_API,
    CodecSpec,
    HostedToolKindSpec,
    InvalidSpecError,
    ProviderSpec,
    SerializerSpec,
)


def test_valid_specs_keep_their_defaults():
    codec = CodecSpec("openai", "web_search", "pkg.codecs:WebSearch")
    assert (codec.priority, codec.sdk, codec.api) == (0, None, PLUGIN_API)
    provider = ProviderSpec("openai", "pkg.adapter:Adapter", sdk="openai>=1.66,<4")
    assert provider.priority == 0
    assert HostedToolKindSpec("web_search", "pkg:Config", "pkg:Result").api == PLUGIN_API
    assert SerializerSpec("openai", "tool", "pkg.serializers:Tools").role == "tool"


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: ProviderSpec("Open AI", "pkg:Adapter"), "name"),
        (lambda: ProviderSpec("openai", "pkg.Adapter"), "adapter"),
        (lambda: ProviderSpec("openai", "pkg:Adapter", sdk="openai=>1"), "sdk"),
        (lambda: CodecSpec("openai", "web-search", "pkg:Codec"), "kind"),
        (lambda: CodecSpec("openai", "web_search", "pkg:Codec", priority="high"), "priority"),
        (lambda: CodecSpec("openai", "web_search", "pkg:Codec", api=True), "api"),
        (lambda: HostedToolKindSpec("web_search", "pkg:Config", "nope"), "output"),
        (lambda: SerializerSpec("openai", "Tool", "pkg:Tools"), "role"),
    ],
)
def test_malformed_fields_are_rejected_naming_the_field(build, field):
    with pytest.raises(InvalidSpecError, match=rf"\.{field} "):
        build()
