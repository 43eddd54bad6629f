"""The sample responses under tests/fixtures/hosted_tools are what the wire builders give
(so a variant built in a test differs from them only where it says), and each parses as the
provider's SDK reads it."""

from __future__ import annotations

import pytest
from hosted_tools import load
from hosted_tools.build import WEATHER, code_bodies, web_search_bodies

WEB_SEARCH = {
    "openai": "openai_responses_web_search",
    "openai-chat": "openai_chat_web_search",
    "anthropic": "anthropic_web_search",
    "google": "google_web_search",
}
CODE = {
    "openai": "openai_responses_code_interpreter",
    "anthropic": "anthropic_code_execution",
    "google": "google_code_execution",
}


@pytest.mark.parametrize("provider", list(WEB_SEARCH))
def test_the_web_search_samples_are_the_built_bodies(provider: str) -> None:
    assert web_search_bodies(WEATHER)[provider] == load(WEB_SEARCH[provider])


@pytest.mark.parametrize("provider", list(CODE))
def test_the_code_samples_are_the_built_bodies(provider: str) -> None:
    assert code_bodies()[provider] == load(CODE[provider])


def test_the_openai_samples_validate_against_the_sdk_types() -> None:
    from openai.types.chat import ChatCompletion
    from openai.types.responses import Response

    Response.model_validate(load(WEB_SEARCH["openai"]), strict=False)
    Response.model_validate(load(CODE["openai"]), strict=False)
    ChatCompletion.model_validate(load(WEB_SEARCH["openai-chat"]), strict=False)


def test_the_anthropic_samples_validate_against_the_sdk_types() -> None:
    from anthropic.types import Message

    Message.model_validate(load(WEB_SEARCH["anthropic"]))
    Message.model_validate(load(CODE["anthropic"]))


def test_the_google_samples_validate_against_the_sdk_types_with_no_extra_field() -> None:
    from google.genai import types

    types.GenerateContentResponse.model_validate(load(WEB_SEARCH["google"]))
    types.GenerateContentResponse.model_validate(load(CODE["google"]))
