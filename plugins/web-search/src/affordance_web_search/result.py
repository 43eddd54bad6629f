"""What a web search produced, in one shape on every provider.

A field a provider does not report is ``None`` or empty, never guessed; which provider fills
what is the support table in ``specs/HOSTED_TOOLS.md`` (each codec declares it).
"""

from __future__ import annotations

from dataclasses import dataclass

from affordance.errors import PromptValidationError

__all__ = ["RESULT_FIELDS", "Citation", "WebSearchResult"]

RESULT_FIELDS: tuple[str, ...] = (
    "text",
    "citations.url",
    "citations.title",
    "citations.span",
    "citations.excerpt",
    "source_urls",
    "queries",
    "errors",
)
"""Everything a :class:`WebSearchResult` can hold, as codecs name it."""


@dataclass(frozen=True, slots=True)
class Citation:
    """One source cited for a span of the answer.

    ``span`` is ``(start, end)``, character offsets into :attr:`WebSearchResult.text` (end
    exclusive), so ``result.text[start:end]`` is the cited part of the answer. ``excerpt`` is
    the passage of the *source* the provider quotes, when it quotes one.
    """

    url: str
    title: str | None = None
    span: tuple[int, int] | None = None
    excerpt: str | None = None

    def __post_init__(self) -> None:
        url: object = self.url
        if not isinstance(url, str) or not url:
            raise PromptValidationError(f"Citation.url must be a non-empty string: {self.url!r}")
        span: object = self.span
        if span is not None:
            start, end = span if isinstance(span, tuple) and len(span) == 2 else (-1, -1)
            if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end):
                raise PromptValidationError(f"Citation.span must be (start, end), got {span!r}")
            object.__setattr__(self, "span", (start, end))


@dataclass(frozen=True, slots=True)
class WebSearchResult:
    """The answer of a response that searched the web, with what backs it.

    - ``text``: the answer text of the response (every text part, in order);
    - ``citations``: the sources cited for spans of ``text``, in order of the span;
    - ``source_urls``: every URL the provider reports having consulted, cited or not,
      first-seen order, no duplicates;
    - ``queries``: the search queries the provider ran;
    - ``errors``: error codes the search tool reported (a failed or refused search).
    """

    text: str
    citations: tuple[Citation, ...] = ()
    source_urls: tuple[str, ...] = ()
    queries: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "citations", tuple(self.citations))
        object.__setattr__(self, "source_urls", tuple(self.source_urls))
        object.__setattr__(self, "queries", tuple(self.queries))
        object.__setattr__(self, "errors", tuple(self.errors))
        for citation in self.citations:
            if citation.span is not None and citation.span[1] > len(self.text):
                raise PromptValidationError(
                    f"citation span {citation.span} lies outside a text of {len(self.text)} "
                    "characters"
                )

    def quote(self, citation: Citation) -> str | None:
        """The part of :attr:`text` that ``citation`` backs (None when it has no span)."""
        if citation.span is None:
            return None
        start, end = citation.span
        return self.text[start:end]
