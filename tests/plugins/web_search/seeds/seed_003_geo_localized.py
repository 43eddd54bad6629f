# Seed 003 "Geo-Localized Search", import path changed.
# ruff: noqa
from affordance_web_search import (
    WebSearchSection,
    WebSearchConfig,
    GeoHint,
)

config = WebSearchConfig(
    geo_hint=GeoHint(
        country_code="GB",
        city="London",
        timezone="Europe/London",
    ),
)

section = WebSearchSection(config=config)
