"""The small PEP 440-ish requirement checker used for SDK floors and core/plugin skew."""

from __future__ import annotations

import pytest

from affordance.plugins import PluginConfigError
from affordance.plugins._requirements import (
    Requirement,
    Version,
    canonical_name,
    unmet_reason,
)


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        ("1.2", "1.66"),
        ("1.9", "1.10"),
        ("1.0.dev1", "1.0a1"),
        ("1.0a1", "1.0b1"),
        ("1.0b2", "1.0rc1"),
        ("1.0rc1", "1.0"),
        ("1.0", "1.0.post1"),
        ("1.0.post1.dev1", "1.0.post1"),
        ("2.0", "1!0.1"),
        ("3.54.0", "4"),
    ],
)
def test_versions_order_like_pep_440(lower, higher):
    assert Version.parse(lower) < Version.parse(higher)


def test_trailing_zeros_and_local_labels_do_not_matter():
    assert Version.parse("1.66") == Version.parse("1.66.0")
    assert Version.parse("1.0+local.1") == Version.parse("1.0")


def test_an_unreadable_version_is_a_config_error():
    with pytest.raises(PluginConfigError, match="not a version"):
        Version.parse("latest")


@pytest.mark.parametrize(
    ("requirement", "installed", "ok"),
    [
        ("openai>=1.66,<4", "1.66.0", True),
        ("openai>=1.66,<4", "3.54.0", True),
        ("openai>=1.66,<4", "1.2", False),
        ("openai>=1.66,<4", "4.0", False),
        ("openai>=1.66,<4", "4.0rc1", False),
        ("openai<4.0rc2", "4.0rc1", True),
        ("openai==1.2.*", "1.2.7", True),
        ("openai==1.2.*", "1.3", False),
        ("openai!=1.5", "1.5.0", False),
        ("openai~=1.4.5", "1.4.9", True),
        ("openai~=1.4.5", "1.5.0", False),
        ("openai>1.0", "1.0", False),
        ("openai<=1.0", "1.0.0", True),
        ("openai===1.0", "1.0", True),
        ("openai", "0.0.1", True),
        ("openai (>=1.0)", "1.1", True),
        ("openai[realtime]>=1.0; python_version >= '3.10'", "1.1", True),
    ],
)
def test_requirements_check_installed_versions(requirement, installed, ok):
    assert (not Requirement.parse(requirement).failures(installed)) is ok


def test_failures_are_phrased_as_facts():
    requirement = Requirement.parse("openai>=1.66,<4")
    assert requirement.failures("1.2") == ["openai 1.2 < 1.66"]
    assert requirement.failures("4.1") == ["openai 4.1 >= 4"]


def test_extra_markers_are_recognised():
    assert Requirement.parse('affordance-openai>=1; extra == "openai"').extra == "openai"
    assert Requirement.parse("affordance>=0.1,<1").extra is None


@pytest.mark.parametrize("text", ["openai>=", ">=1.0", "openai>=1.0 <2", "openai=>1"])
def test_malformed_requirements_are_config_errors(text):
    with pytest.raises(PluginConfigError):
        Requirement.parse(text)


def test_canonical_names_follow_pep_503():
    assert canonical_name("Affordance_Acme.Search") == "affordance-acme-search"


def test_unmet_reason_for_missing_and_old_distributions(fake_dists):
    fake_dists.dist("fakesdk", "1.2")
    assert unmet_reason("fakesdk>=1.66") == "fakesdk 1.2 < 1.66"
    assert unmet_reason("fakesdk>=1.0,<2") is None
    assert unmet_reason("affordance-test-absent-sdk>=1") == (
        "affordance-test-absent-sdk is not installed (needs affordance-test-absent-sdk>=1)"
    )
