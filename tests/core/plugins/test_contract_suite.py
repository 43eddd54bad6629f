"""The opt-in conformance kit, run the way a third party runs it: against the sample plugin
in tests/fixtures/plugins/acme-search (the worked example of specs/PLUGINS.md)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from affordance.plugins import PluginHost, configure
from affordance_testing.codec_contract import CodecContract
from affordance_testing.plugin_contract import PluginContract

pytest_plugins = ["pytester"]

ACME_SRC = Path(__file__).resolve().parents[2] / "fixtures" / "plugins" / "acme-search" / "src"


@pytest.fixture(autouse=True)
def acme_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(ACME_SRC))


class TestAcmeSearchCodec(CodecContract):
    @pytest.fixture
    def codec(self):
        from affordance_acme_search.codec import OpenAIAcmeSearchCodec

        return OpenAIAcmeSearchCodec()

    @pytest.fixture
    def hosted_tool(self):
        from affordance_acme_search import AcmeSearchConfig, acme_search_tool

        return acme_search_tool(AcmeSearchConfig(max_results=3))

    @pytest.fixture
    def sample_response_items(self):
        return [
            {"type": "acme_search_call", "id": "as_1", "urls": ["https://example.org/a"]},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Found it.", "annotations": []}],
            },
        ]

    @pytest.fixture
    def output_type(self):
        """The sample is not installed here: its kind's type comes from its plugin module."""
        host = PluginHost(autoload=False)
        host.register(importlib.import_module("affordance_acme_search.plugin"), name="acme")
        output_type, _ = host.registry().hosted_tool_output("acme_search")
        return output_type


class TestAcmeSearchPlugin(PluginContract):
    @pytest.fixture
    def plugin_module(self):
        return "affordance_acme_search.plugin"


def test_the_plugin_host_fixture_scans_nothing(plugin_host):
    assert plugin_host.settings.autoload is False
    assert plugin_host.records() == ()


def test_the_no_network_fixture_blocks_non_loopback_connections(no_network):
    import socket

    from affordance.testing import NetworkBlockedError

    with pytest.raises(NetworkBlockedError):
        socket.create_connection(("192.0.2.1", 80), timeout=0.1)


class TestAContractWithoutFixtures(CodecContract):
    """The base fixtures fail with a message naming the one to define."""

    __test__ = False


def test_a_missing_fixture_fails_with_a_clear_message():
    with pytest.raises(pytest.fail.Exception, match="must define the 'codec' fixture"):
        TestAContractWithoutFixtures.codec.__wrapped__(TestAContractWithoutFixtures())


def test_the_output_type_defaults_to_the_installed_registration_and_fails_without_one(
    fresh_default_host,
):
    from affordance_acme_search import acme_search_tool

    configure(autoload=False)  # nothing installed registers kind acme_search
    with pytest.raises(pytest.fail.Exception, match="or define the 'output_type' fixture"):
        CodecContract.output_type.__wrapped__(CodecContract(), acme_search_tool())


ACME_CODEC_SUITE = """
import pytest
from affordance_testing.codec_contract import CodecContract
from affordance_acme_search import AcmeSearchResult, acme_search_tool
from affordance_acme_search.codec import OpenAIAcmeSearchCodec

{codec}

class TestCodec(CodecContract):
    @pytest.fixture
    def codec(self):
        return Codec()

    @pytest.fixture
    def hosted_tool(self):
        return acme_search_tool()

    @pytest.fixture
    def sample_response_items(self):
        return [{{"type": "acme_search_call", "urls": []}}]

    @pytest.fixture
    def output_type(self):
        return AcmeSearchResult
"""


def run_acme_codec_suite(pytester, monkeypatch, codec: str):
    """Run ``CodecContract`` on ``codec`` (source defining ``Codec``) as a third party would."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # only what the conftest asks for
    pytester.syspathinsert(ACME_SRC)
    pytester.makeconftest('pytest_plugins = ["affordance.testing.pytest_plugin"]')
    pytester.makepyfile(test_acme=ACME_CODEC_SUITE.format(codec=codec))
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-W", "ignore")


def test_the_codec_contract_fails_a_codec_whose_output_is_a_string(pytester, monkeypatch):
    result = run_acme_codec_suite(
        pytester,
        monkeypatch,
        """
class Codec(OpenAIAcmeSearchCodec):
    def parse_output(self, response_items, tool):
        found = super().parse_output(response_items, tool)
        return None if found is None else "found " + " ".join(found.urls)
""",
    )
    result.assert_outcomes(passed=6, failed=1)
    expected = (
        "E * Failed: Codec.parse_output returned builtins.str for the sample; kind 'acme_search' "
        "is registered with output affordance_acme_search.AcmeSearchResult, *"
    )
    # The summary line carries the reason only when the terminal is wide enough: end in `*`.
    result.stdout.fnmatch_lines(
        [expected, "FAILED *::TestCodec::test_parse_output_returns_the_registered_output_type*"]
    )


def test_the_codec_contract_passes_the_sample_codec(pytester, monkeypatch):
    result = run_acme_codec_suite(pytester, monkeypatch, "Codec = OpenAIAcmeSearchCodec")
    result.assert_outcomes(passed=7)


def test_a_third_party_suite_enables_the_kit_with_pytest_plugins(pytester, monkeypatch):
    """The documented setup: ``pytest_plugins`` in the package's conftest, a Test... subclass."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # only what the conftest asks for
    pytester.syspathinsert(ACME_SRC)
    pytester.makeconftest('pytest_plugins = ["affordance.testing.pytest_plugin"]')
    pytester.makepyfile(
        test_acme="""
        import pytest
        from affordance_testing.codec_contract import CodecContract
        from affordance_acme_search import AcmeSearchResult, acme_search_tool
        from affordance_acme_search.codec import OpenAIAcmeSearchCodec

        class TestCodec(CodecContract):
            @pytest.fixture
            def codec(self):
                return OpenAIAcmeSearchCodec()

            @pytest.fixture
            def output_type(self):
                return AcmeSearchResult

            @pytest.fixture
            def hosted_tool(self):
                return acme_search_tool()

            @pytest.fixture
            def sample_response_items(self):
                return [{"type": "acme_search_call", "urls": []}]

        def test_fixtures(plugin_host, no_network):
            assert plugin_host.records() == ()
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-W", "ignore")
    result.assert_outcomes(passed=8)
