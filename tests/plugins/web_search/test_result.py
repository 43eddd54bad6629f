"""``Citation`` and ``WebSearchResult``: frozen, validated, and a citation slices the text."""

from __future__ import annotations

import pytest

from affordance import HostedToolOutput, PromptValidationError
from affordance_web_search import Citation, WebSearchResult


def test_a_citation_quotes_its_span_of_the_text() -> None:
    citation = Citation("https://a.example", "A", (8, 14))
    result = WebSearchResult("Zürich: sonnig.", citations=[citation])  # type: ignore[arg-type]

    assert result.quote(citation) == "sonnig"
    assert result.citations == (citation,)
    assert result.quote(Citation("https://a.example")) is None


def test_a_result_is_a_hosted_tool_output() -> None:
    assert isinstance(WebSearchResult(""), HostedToolOutput)


@pytest.mark.parametrize("span", [(3, 2), (-1, 2), ("0", 2), (0,)])
def test_a_span_is_an_ordered_pair_of_offsets(span: object) -> None:
    with pytest.raises(PromptValidationError, match="span must be"):
        Citation("https://a.example", span=span)  # type: ignore[arg-type]


def test_a_citation_needs_a_url() -> None:
    with pytest.raises(PromptValidationError, match="url"):
        Citation("")


def test_a_span_must_lie_inside_the_text() -> None:
    with pytest.raises(PromptValidationError, match="outside a text of 5 characters"):
        WebSearchResult("short", citations=(Citation("https://a.example", span=(0, 6)),))
