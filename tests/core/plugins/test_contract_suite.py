"""The opt-in conformance kit, run the way a third party runs it: against the sample plugin
in tests/fixtures/plugins/acme-search (the worked example of specs/PLUGINS.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from affordance.testing.pytest_plugin import CodecContract, PluginContract

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


def test_a_third_party_suite_enables_the_kit_with_pytest_plugins(pytester, monkeypatch):
    """The documented setup: ``pytest_plugins`` in the package's conftest, a Test... subclass."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # only what the conftest asks for
    pytester.syspathinsert(ACME_SRC)
    pytester.makeconftest('pytest_plugins = ["affordance.testing.pytest_plugin"]')
    pytester.makepyfile(
        test_acme="""
        import pytest
        from affordance.testing.pytest_plugin import CodecContract
        from affordance_acme_search import acme_search_tool
        from affordance_acme_search.codec import OpenAIAcmeSearchCodec

        class TestCodec(CodecContract):
            @pytest.fixture
            def codec(self):
                return OpenAIAcmeSearchCodec()

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
    result.assert_outcomes(passed=7)
