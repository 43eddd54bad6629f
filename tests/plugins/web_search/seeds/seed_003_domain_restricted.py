# Seed 003 "Domain-Restricted Search", import path changed.
# ruff: noqa
from affordance_web_search import (
    WebSearchSection,
    WebSearchConfig,
    DomainFilter,
)

config = WebSearchConfig(
    domain_filter=DomainFilter(
        allowed=("pubmed.ncbi.nlm.nih.gov", "www.cdc.gov", "www.who.int"),
    ),
)

section = WebSearchSection(config=config)
