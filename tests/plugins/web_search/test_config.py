"""``DomainFilter``, ``GeoHint`` and ``WebSearchConfig`` are frozen and validate at
construction; ``requested()`` says what a config asks of a provider."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from affordance import PromptValidationError
from affordance_web_search import CONFIG_FIELDS, DomainFilter, GeoHint, WebSearchConfig
from affordance_web_search._countries import ISO_3166_ALPHA_2

ISO_TABLE = Path("/usr/share/zoneinfo/iso3166.tab")


def test_the_defaults_ask_for_nothing() -> None:
    assert WebSearchConfig().requested() == ()


def test_every_setting_is_named_in_config_field_order() -> None:
    config = WebSearchConfig(
        domain_filter=DomainFilter(allowed=("cdc.gov",), blocked=("example.com",)),
        geo_hint=GeoHint(country_code="GB"),
        allow_live_access=False,
        max_uses=3,
        context_size="high",
    )

    assert config.requested() == CONFIG_FIELDS


def test_an_empty_domain_filter_asks_for_nothing() -> None:
    assert WebSearchConfig(domain_filter=DomainFilter()).requested() == ()


def test_values_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        WebSearchConfig().max_uses = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        DomainFilter().allowed = ("a.example",)  # type: ignore[misc]


def test_domains_are_kept_as_a_tuple() -> None:
    domains = DomainFilter(allowed=["pubmed.ncbi.nlm.nih.gov", "www.who.int"])  # type: ignore[arg-type]

    assert domains.allowed == ("pubmed.ncbi.nlm.nih.gov", "www.who.int")


@pytest.mark.parametrize(
    ("domain", "message"),
    [
        ("https://cdc.gov", "leave out the scheme"),
        ("cdc", "not a domain"),
        ("cdc gov", "not a domain"),
        ("", "not a domain"),
        (42, "not a domain"),
    ],
)
def test_a_domain_must_be_bare(domain: object, message: str) -> None:
    with pytest.raises(PromptValidationError, match=message):
        DomainFilter(allowed=(domain,))  # type: ignore[arg-type]


def test_a_domain_may_carry_a_path() -> None:
    assert DomainFilter(blocked=("example.com/blog",)).blocked == ("example.com/blog",)


def test_one_string_is_not_taken_for_a_list_of_characters() -> None:
    with pytest.raises(PromptValidationError, match=r"write allowed=\('cdc.gov',\)"):
        DomainFilter(allowed="cdc.gov")  # type: ignore[arg-type]


def test_a_domain_cannot_be_both_allowed_and_blocked() -> None:
    with pytest.raises(PromptValidationError, match=r"a\.example is both allowed and blocked"):
        DomainFilter(allowed=("a.example",), blocked=("a.example",))


def test_a_country_code_is_iso_3166_alpha_2_and_upper_cased() -> None:
    assert GeoHint(country_code="gb").country_code == "GB"
    for code in ("UK", "GBR", "XX", "", 44):
        with pytest.raises(PromptValidationError, match="ISO 3166-1 alpha-2"):
            GeoHint(country_code=code)  # type: ignore[arg-type]


@pytest.mark.skipif(not ISO_TABLE.exists(), reason="no tzdata iso3166.tab on this system")
def test_the_country_codes_are_those_of_the_tz_database_table() -> None:
    rows = ISO_TABLE.read_text(encoding="utf-8").splitlines()
    codes = {row.split("\t")[0] for row in rows if row and not row.startswith("#")}

    assert codes == ISO_3166_ALPHA_2


@pytest.mark.parametrize("zone", ["Europe/London", "America/Argentina/Buenos_Aires", "UTC"])
def test_an_iana_time_zone_is_accepted(zone: str) -> None:
    assert GeoHint(timezone=zone).timezone == zone


@pytest.mark.parametrize("zone", ["Europe/Atlantis", "GMT+25", "../etc/passwd", "/etc/localtime"])
def test_anything_else_is_not_a_time_zone(zone: str) -> None:
    with pytest.raises(PromptValidationError, match="not an IANA time zone"):
        GeoHint(timezone=zone)


def test_city_and_region_are_non_empty_text() -> None:
    assert GeoHint(city=" London ").city == "London"
    with pytest.raises(PromptValidationError, match=r"GeoHint\.region"):
        GeoHint(region=" ")


def test_a_geo_hint_lists_only_what_is_set() -> None:
    hint = GeoHint(country_code="GB", city="London", timezone="Europe/London")

    assert hint.fields() == {"country_code": "GB", "city": "London", "timezone": "Europe/London"}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"max_uses": 0}, "max_uses must be a positive int"),
        ({"max_uses": True}, "max_uses must be a positive int"),
        ({"context_size": "huge"}, "context_size must be 'low', 'medium' or 'high'"),
        ({"allow_live_access": "no"}, "allow_live_access must be a bool"),
        ({"domain_filter": ("cdc.gov",)}, "domain_filter must be a DomainFilter"),
        ({"geo_hint": {"country_code": "GB"}}, "geo_hint must be a GeoHint"),
    ],
)
def test_a_config_validates_each_field(fields: dict[str, object], message: str) -> None:
    with pytest.raises(PromptValidationError, match=message):
        WebSearchConfig(**fields)  # type: ignore[arg-type]
