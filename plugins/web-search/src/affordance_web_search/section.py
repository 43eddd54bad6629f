"""``WebSearchSection``: a section that tells the model it may search, and lets it."""

from __future__ import annotations

from affordance.prompt import HostedKindSection
from affordance_web_search.config import WebSearchConfig
from affordance_web_search.plugin import WEB_SEARCH

__all__ = ["WebSearchSection"]


class WebSearchSection(HostedKindSection[WebSearchConfig]):
    """Guidance for the model plus the ``web_search`` hosted tool, exposed while the section is
    enabled and fully visible (like any section's tools).

    ``WebSearchSection(config=None, *, key="web_search", name="web_search", title="Web Search",
    template=..., enabled=None, visibility=FULL, summary=None)``: ``name`` is the hosted tool's
    name (the key of its output in ``hosted_outputs``); ``template`` replaces the guidance text.
    """

    hosted_kind = WEB_SEARCH
