"""``http_response_class``. ``JsonPost`` itself runs over real HTTP in every OpenAI and
Anthropic plugin test (plain, streamed, and the fault matrix), at the SDKs' floor and latest."""

from __future__ import annotations

import httpx2
import pytest

from affordance.adapters.stainless import http_response_class


class _SdkHttpClient(httpx2.Client):
    """Like an SDK's ``DefaultHttpxClient``: a subclass of the httpx client it is built on."""


def test_the_response_class_is_that_of_the_httpx_the_sdk_is_built_on() -> None:
    assert http_response_class(_SdkHttpClient) is httpx2.Response


def test_a_class_that_is_no_httpx_client_is_refused() -> None:
    with pytest.raises(TypeError, match="not an httpx client class"):
        http_response_class(dict)
