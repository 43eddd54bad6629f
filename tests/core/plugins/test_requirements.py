"""Requirement strings checked against installed versions (parsing is ``packaging``'s; what is
ours is how a failure reads and which requirements count)."""

from __future__ import annotations

import pytest

from affordance.plugins import PluginConfigError
from affordance.plugins.requirements import (
    canonical_name,
    parse_requirement,
    unmet_clauses,
    unmet_reason,
)


@pytest.mark.parametrize(
    ("requirement", "installed", "ok"),
    [
        ("openai>=1.66,<4", "1.66.0", True),
        ("openai>=1.66,<4", "3.54.0", True),
        ("openai>=1.66,<4", "1.2", False),
        ("openai>=1.66,<4", "4.0", False),
        ("openai>=1.66,<4", "3.55.0rc1", True),  # a pre-release below the cap counts
        ("openai==1.2.*", "1.2.7", True),
        ("openai~=1.4.5", "1.5.0", False),
        ("openai", "0.0.1", True),
        ("openai[realtime]>=1.0; python_version >= '3.10'", "1.1", True),
    ],
)
def test_requirements_check_installed_versions(requirement, installed, ok):
    assert (not unmet_clauses(parse_requirement(requirement), installed)) is ok


def test_failures_are_phrased_as_facts():
    requirement = parse_requirement("openai>=1.66,<4")
    assert unmet_clauses(requirement, "1.2") == ["openai 1.2 < 1.66"]
    assert unmet_clauses(requirement, "4.1") == ["openai 4.1 >= 4"]


def test_an_unreadable_installed_version_breaks_the_requirement():
    assert unmet_clauses(parse_requirement("openai>=1"), "latest") == [
        "openai latest is not a version this check can read"
    ]


@pytest.mark.parametrize("text", ["openai>=", ">=1.0", "openai>=1.0 <2", "openai=>1"])
def test_malformed_requirements_are_config_errors(text):
    with pytest.raises(PluginConfigError, match="is not a requirement"):
        parse_requirement(text)


def test_canonical_names_follow_pep_503():
    assert canonical_name("Affordance_Acme.Search") == "affordance-acme-search"


def test_unmet_reason_for_missing_and_old_distributions(fake_dists):
    fake_dists.dist("fakesdk", "1.2")
    assert unmet_reason("fakesdk>=1.66") == "fakesdk 1.2 < 1.66"
    assert unmet_reason("fakesdk>=1.0,<2") is None
    assert unmet_reason("affordance-test-absent-sdk>=1") == (
        "affordance-test-absent-sdk is not installed (needs affordance-test-absent-sdk>=1)"
    )
